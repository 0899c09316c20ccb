//! What the tests of the `sannin` binary share: the binary, running a command to its
//! end, a guard that kills a child process, a real `sannin serve` on a free port; bare
//! HTTP/1.1 requests are the testkit's (`sannin_testkit::http`).

#![allow(dead_code, unused_imports)] // each test file uses its own part of this

use std::io::Write;
use std::net::TcpListener;
use std::path::Path;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

pub use sannin_testkit::http::{http, http_with, Answer};

pub const BIN: &str = env!("CARGO_BIN_EXE_sannin");

/// Whether tests must fail rather than skip when PostgreSQL or NATS is missing
/// (`SANNIN_REQUIRE_SERVICES=1`, as `scripts/test-all.sh` sets it).
pub fn services_required() -> bool {
    std::env::var("SANNIN_REQUIRE_SERVICES").is_ok_and(|v| !v.is_empty() && v != "0")
}

/// Runs `sannin args…` to its end with `stdin` as its input; its output.
pub fn sannin(args: &[&str], stdin: Option<&str>) -> Output {
    let mut child = Command::new(BIN)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run sannin");
    let mut input = child.stdin.take().expect("stdin");
    if let Some(text) = stdin {
        input.write_all(text.as_bytes()).expect("write stdin");
    }
    drop(input);
    child.wait_with_output().expect("sannin output")
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).expect("UTF-8 output")
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).expect("UTF-8 errors")
}

/// Kills the child process when the test ends, passed or not.
pub struct Guard(pub Child);

impl Drop for Guard {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

pub fn free_port() -> u16 {
    let l = TcpListener::bind("127.0.0.1:0").expect("bind");
    l.local_addr().expect("addr").port()
}

/// `sannin serve` on a free port, run in `dir` (so its default SQLite file is there),
/// with `RUST_LOG` = `rust_log`; `setup` adds what else the test wants (output,
/// environment). Returns once `/healthz` answers: the guard and the address.
pub fn start_server(
    dir: &Path,
    rust_log: &str,
    setup: impl FnOnce(&mut Command),
) -> (Guard, String) {
    let addr = format!("127.0.0.1:{}", free_port());
    let mut cmd = Command::new(BIN);
    cmd.args(["serve", "--addr", &addr])
        .current_dir(dir)
        .env_remove("DATABASE_URL")
        .env_remove("SANNIN_ADDR")
        .env("RUST_LOG", rust_log);
    setup(&mut cmd);
    let server = Guard(cmd.spawn().expect("start the server"));
    let up = Instant::now() + Duration::from_secs(30);
    while !matches!(http(&addr, "GET", "/healthz", ""), Ok((200, _))) {
        assert!(Instant::now() < up, "the server did not come up on {addr}");
        std::thread::sleep(Duration::from_millis(100));
    }
    (server, addr)
}

/// Creates a room on the server at `addr`; its id.
pub fn create_room(addr: &str) -> String {
    sannin_testkit::http::create_room(addr, "{}")
}
