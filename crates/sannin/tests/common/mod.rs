//! What the tests of the `sannin` binary share: the binary, running a command to its
//! end, a guard that kills a child process, a real `sannin serve` on a free port, and
//! bare HTTP/1.1 requests.

#![allow(dead_code)] // each test file uses its own part of this

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

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
    let (status, body) = http(addr, "POST", "/api/rooms", "{}").expect("create a room");
    assert_eq!(status, 201, "{body}");
    let room: serde_json::Value = serde_json::from_str(&body).expect("JSON");
    room["id"].as_str().expect("room id").to_string()
}

/// A bare HTTP/1.1 request; the status and the body.
pub fn http(addr: &str, method: &str, path: &str, body: &str) -> std::io::Result<(u16, String)> {
    http_with(addr, method, path, body, &[]).map(|r| (r.status, r.body))
}

/// An answer of [`http_with`].
pub struct Answer {
    pub status: u16,
    /// The header lines, as sent.
    pub headers: Vec<String>,
    pub body: String,
}

impl Answer {
    /// The `name=value` of the cookie the answer sets (the part before `;`).
    pub fn cookie(&self) -> Option<String> {
        self.headers.iter().find_map(|h| {
            let (k, v) = h.split_once(':')?;
            k.eq_ignore_ascii_case("set-cookie")
                .then(|| v.trim().split(';').next().unwrap_or("").to_string())
        })
    }
}

/// A bare HTTP/1.1 request with extra header lines (`"Cookie: a=b"`).
pub fn http_with(
    addr: &str,
    method: &str,
    path: &str,
    body: &str,
    headers: &[&str],
) -> std::io::Result<Answer> {
    let mut s = TcpStream::connect(addr)?;
    s.set_read_timeout(Some(Duration::from_secs(10)))?;
    let extra: String = headers.iter().map(|h| format!("{h}\r\n")).collect();
    write!(
        s,
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n{extra}Connection: close\r\n\r\n{body}",
        body.len()
    )?;
    let mut buf = String::new();
    s.read_to_string(&mut buf)?;
    let (head, body) = buf.split_once("\r\n\r\n").unwrap_or((&buf, ""));
    let mut lines = head.lines();
    let status = lines
        .next()
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    Ok(Answer {
        status,
        headers: lines.map(str::to_string).collect(),
        body: body.to_string(),
    })
}
