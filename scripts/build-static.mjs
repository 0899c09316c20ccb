#!/usr/bin/env node
// The optional build of the browser client: static/ as the server serves it fastest
// (docs/performance.md, "First load"). The client runs as it is, with no build
// (`cargo run -- serve` serves static/); this makes a copy in which
//
// - the modules are bundled and minified by esbuild: one module per page (`js/main.js`,
//   each page that main.js imports — `js/room.js`, `js/lobby.js`… — and each language,
//   `js/lang/<code>.js`) under its own name, with what they share in `js/chunk-*.js`,
//   so that a page asks for a few files instead of ninety;
// - the stylesheets of index.html are one `css/site.css`, minified;
// - every text file has its `.br` and `.gz` beside it (served by the server to the
//   browsers that take them, instead of compressing on each request).
//
//   cd scripts/build && npm ci && cd ../.. && node scripts/build-static.mjs [--out target/static]
//   cargo run -- serve --static-dir target/static
//
// The Dockerfile's image serves this build.
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { createRequire } from 'node:module';

const REPO = fileURLToPath(new URL('../', import.meta.url));
const SRC = join(REPO, 'static');
const require = createRequire(join(REPO, 'scripts', 'build', 'package.json'));
const esbuild = require('esbuild');

const { values: opts } = parseArgs({ options: { out: { type: 'string', default: join(REPO, 'target', 'static') } } });
const OUT = opts.out;

rmSync(OUT, { recursive: true, force: true });
mkdirSync(OUT, { recursive: true });
// Everything but the modules (fonts, sounds, pieces, css, sw.js — the service worker
// stays at /sw.js, unbundled — icons, index.html).
cpSync(SRC, OUT, { recursive: true, filter: (p) => !p.startsWith(join(SRC, 'js')) && !/\.(py|md)$/.test(p) && !p.endsWith('.chars.txt') });

// The entry points: main.js, the pages it imports, the languages.
const main = readFileSync(join(SRC, 'js', 'main.js'), 'utf8');
const pages = [...main.matchAll(/import\('\.\/([\w/-]+\.js)'\)/g)].map((m) => m[1]);
const langs = readdirSync(join(SRC, 'js', 'lang')).filter((f) => f.endsWith('.js')).map((f) => `lang/${f}`);
const entries = [...new Set(['main.js', ...pages, ...langs])].map((f) => join(SRC, 'js', f));
const result = await esbuild.build({
  entryPoints: entries,
  outbase: join(SRC, 'js'),
  outdir: join(OUT, 'js'),
  bundle: true,
  splitting: true,
  format: 'esm',
  minify: true,
  target: 'es2022',
  entryNames: '[dir]/[name]',
  // Beside the pages, directly in js/: files.js finds the client's root as `..` of
  // whichever of them holds it.
  chunkNames: 'chunk-[hash]',
  legalComments: 'none',
  metafile: true,
  logLevel: 'warning',
});

// index.html's stylesheets as one. They are all in css/, so their relative url()s
// (the fonts) hold in css/site.css too.
const indexPath = join(OUT, 'index.html');
let index = readFileSync(indexPath, 'utf8');
const sheets = [...index.matchAll(/<link rel="stylesheet" href="\/(css\/[\w-]+\.css)">\n/g)];
const css = sheets.map((m) => readFileSync(join(SRC, m[1]), 'utf8')).join('\n');
const { code: siteCss } = await esbuild.transform(css, { loader: 'css', minify: true, legalComments: 'none' });
writeFileSync(join(OUT, 'css', 'site.css'), siteCss);
for (const [i, m] of sheets.entries()) index = index.replace(m[0], i === 0 ? '<link rel="stylesheet" href="/css/site.css">\n' : '');
writeFileSync(indexPath, index);

// Precompressed copies of every text file.
function* files(dir) {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) yield* files(p);
    else yield p;
  }
}
let raw = 0;
let br = 0;
for (const p of [...files(OUT)]) {
  if (!/\.(js|css|svg|json|txt|webmanifest)$/.test(p)) continue;
  const data = readFileSync(p);
  const b = brotliCompressSync(data, { params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: data.length } });
  writeFileSync(`${p}.br`, b);
  writeFileSync(`${p}.gz`, gzipSync(data, { level: 9 }));
  raw += data.length;
  br += b.length;
}

const js = Object.entries(result.metafile.outputs).filter(([f]) => f.endsWith('.js'));
const kb = (n) => `${Math.round(n / 100) / 10} kB`;
console.log(`${relative(process.cwd(), OUT) || '.'}: ${js.length} modules from ${entries.length} entries, ${sheets.length} stylesheets in css/site.css; text ${kb(raw)}, ${kb(br)} with brotli`);
if (!existsSync(join(OUT, 'js', 'main.js')) || !dirname(indexPath)) process.exit(1);
