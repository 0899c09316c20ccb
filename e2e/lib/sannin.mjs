// Builds and starts the real server (`sannin serve`) on a free port with a fresh
// SQLite database, for the end-to-end tests.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO = fileURLToPath(new URL('../../', import.meta.url));

function freePort() {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

/** The `sannin` binary `cargo test --workspace` builds for its tests (target/debug/sannin),
 * built first, unless SANNIN_BIN names a binary; returns the binary path. The same
 * build as the Rust tests', so that neither compiles the workspace again for the other. */
export function buildServer() {
  if (process.env.SANNIN_BIN) return process.env.SANNIN_BIN;
  const res = spawnSync('cargo', ['test', '--workspace', '--no-run'], { cwd: REPO, stdio: ['ignore', 'inherit', 'inherit'] });
  if (res.status !== 0) throw new Error('cargo test --workspace --no-run failed');
  return join(REPO, 'target', 'debug', 'sannin');
}

/** Starts `sannin serve` (serving `staticDir`, the checkout's static/ unless told);
 * resolves once /healthz answers. Returns { url, databaseUrl,
 * bin, stop, restart, log }; `restart` stops the process and starts it again on the same
 * port and database; `databaseUrl` and `bin` let a test run `sannin admin` on the same
 * database. `args`: more options of `sannin serve` (`['--waiting-grace-seconds', '1']`). */
export async function startServer({ graceSeconds, staticDir = join(REPO, 'static'), args: more = [] } = {}) {
  const bin = buildServer();
  const dir = await mkdtemp(join(tmpdir(), 'sannin-e2e-'));
  const port = await freePort();
  const databaseUrl = `sqlite://${dir}/t.db`;
  const args = ['serve', '--addr', `127.0.0.1:${port}`, '--database-url', databaseUrl,
    '--static-dir', staticDir];
  if (graceSeconds !== undefined) args.push('--grace-seconds', String(graceSeconds));
  args.push(...more);
  const url = `http://127.0.0.1:${port}`;
  let log = '';
  let child;
  let exited;

  async function spawnAndWait() {
    child = spawn(bin, args, {
      cwd: REPO, env: { ...process.env, RUST_LOG: process.env.RUST_LOG ?? 'warn' }, stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout.on('data', (d) => { log += d; });
    child.stderr.on('data', (d) => { log += d; });
    exited = new Promise((resolve) => child.on('exit', (code) => resolve(code)));
    const deadline = Date.now() + 60_000;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`sannin serve exited (${child.exitCode}):\n${log}`);
      try {
        const res = await fetch(`${url}/healthz`);
        if (res.ok) return;
      } catch { /* not up yet */ }
      if (Date.now() > deadline) {
        child.kill();
        throw new Error(`sannin serve did not answer /healthz within 60 s:\n${log}`);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  async function kill() {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    }
  }

  await spawnAndWait();
  return {
    url,
    databaseUrl,
    bin,
    log: () => log,
    async restart() {
      await kill();
      await spawnAndWait();
    },
    async stop() {
      await kill();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
