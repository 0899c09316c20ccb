//! `sannin bot` end to end: the real server binary, a room made over HTTP, three
//! bot processes joining it over WebSockets and playing until the game ends.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_sannin");

/// Kills the child process when the test ends, passed or not.
struct Guard(Child);

impl Drop for Guard {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn free_port() -> u16 {
    let l = TcpListener::bind("127.0.0.1:0").expect("bind");
    l.local_addr().expect("addr").port()
}

/// A bare HTTP/1.1 request; returns the status and the body.
fn http(addr: &str, method: &str, path: &str, body: &str) -> std::io::Result<(u16, String)> {
    let mut s = TcpStream::connect(addr)?;
    s.set_read_timeout(Some(Duration::from_secs(10)))?;
    write!(
        s,
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )?;
    let mut buf = String::new();
    s.read_to_string(&mut buf)?;
    let status = buf
        .split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    let body = buf
        .split_once("\r\n\r\n")
        .map(|(_, b)| b.to_string())
        .unwrap_or_default();
    Ok((status, body))
}

fn wait_exit(child: &mut Child, deadline: Instant) -> Option<ExitStatus> {
    while Instant::now() < deadline {
        if let Some(st) = child.try_wait().expect("try_wait") {
            return Some(st);
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    None
}

#[test]
fn three_bots_play_a_room_to_the_end() {
    let dir = tempfile::tempdir().expect("temp dir");
    let addr = format!("127.0.0.1:{}", free_port());
    let _server = Guard(
        Command::new(BIN)
            .args(["serve", "--addr", &addr])
            .current_dir(dir.path())
            .env_remove("DATABASE_URL")
            .env_remove("SANNIN_ADDR")
            .env("RUST_LOG", "warn")
            .stdout(Stdio::null())
            .spawn()
            .expect("start the server"),
    );
    let up = Instant::now() + Duration::from_secs(30);
    while !matches!(http(&addr, "GET", "/healthz", ""), Ok((200, _))) {
        assert!(Instant::now() < up, "the server did not come up on {addr}");
        std::thread::sleep(Duration::from_millis(100));
    }
    let (status, body) = http(&addr, "POST", "/api/rooms", "{}").expect("create a room");
    assert_eq!(status, 201, "{body}");
    let room: serde_json::Value = serde_json::from_str(&body).expect("JSON");
    let id = room["id"].as_str().expect("room id").to_string();

    // Levels 0, 1, 0; each resigns on its turn once 45 actions are played, so the
    // game ends by mate or by two resignations.
    let url = format!("ws://{addr}");
    let mut bots: Vec<Guard> = [("first", "0"), ("middle", "1"), ("last", "0")]
        .iter()
        .enumerate()
        .map(|(i, (seat, level))| {
            Guard(
                Command::new(BIN)
                    .args([
                        "bot", "--url", &url, "--room", &id, "--level", level, "--seat", seat,
                    ])
                    .args([
                        "--name",
                        &format!("test-{seat}"),
                        "--seed",
                        &i.to_string(),
                        "--resign-after",
                        "45",
                    ])
                    .stdout(Stdio::null())
                    .spawn()
                    .expect("start a bot"),
            )
        })
        .collect();
    let deadline = Instant::now() + Duration::from_secs(120);
    for (i, bot) in bots.iter_mut().enumerate() {
        let st =
            wait_exit(&mut bot.0, deadline).unwrap_or_else(|| panic!("bot {i} did not finish"));
        assert!(st.success(), "bot {i} exited with {st}");
    }

    let (status, body) = http(&addr, "GET", &format!("/api/rooms/{id}"), "").expect("room details");
    assert_eq!(status, 200, "{body}");
    let details: serde_json::Value = serde_json::from_str(&body).expect("JSON");
    assert_eq!(details["status"], "finished", "{details}");
    assert!(!details["result"].is_null(), "{details}");
    let moves = details["moves"].as_array().expect("moves").len();
    eprintln!("room {id}: {moves} actions, result {}", details["result"]);
    assert!((1..=47).contains(&moves), "{moves} moves");
}
