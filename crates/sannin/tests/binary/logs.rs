//! Seat tokens never reach the log, even at `RUST_LOG=trace` (where the WebSocket
//! library would log every frame, payload included): the real `sannin serve`, a player
//! joining and resuming, and the captured output searched for the token. At the default
//! level, a room's lines name the room.

use crate::common;
use std::process::Stdio;
use std::time::Duration;

use common::{create_room, start_server};
use sannin_protocol::ClientMsg;
use sannin_testkit::Client;

/// Sends `msg`, then reads until a `seated`; its token.
async fn seated(url: &str, msg: ClientMsg) -> String {
    let mut c = Client::connect(url).await;
    c.send(msg).await;
    c.until_seated().await;
    let token = c.token.clone().expect("a token");
    // A chat line too, so that the player's own frames go through the log as well.
    c.chat("hello").await;
    c.until_chat().await;
    c.close().await;
    token
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tokens_stay_out_of_the_log_at_trace_level() {
    let dir = tempfile::tempdir().expect("temp dir");
    let log_path = dir.path().join("server.log");
    let log = std::fs::File::create(&log_path).expect("log file");
    let (server, addr) = start_server(
        dir.path(),
        // The most specific directives for the WebSocket library, too.
        "trace,tungstenite::protocol=trace,tokio_tungstenite=trace",
        |cmd| {
            cmd.stdout(Stdio::from(log.try_clone().expect("log file")))
                .stderr(Stdio::from(log));
        },
    );
    let url = format!("ws://{addr}/api/rooms/{}/ws", create_room(&addr));

    let token = seated(
        &url,
        ClientMsg::Join {
            seat: None,
            name: Some("Ann".into()),
        },
    )
    .await;
    let again = seated(
        &url,
        ClientMsg::Resume {
            token: token.clone(),
        },
    )
    .await;
    assert_eq!(again, token);
    // Once the server has logged the last of these connections — the resume, and the
    // WebSocket library reading a client's close (a client's `close` does not wait for
    // the server to read it) — stop it.
    log_shows(&log_path, "player resumed").await;
    log_shows(&log_path, "tungstenite").await;
    drop(server);

    let text = std::fs::read_to_string(&log_path).expect("the log");
    // The WebSocket library's own lines are there (at debug): the log saw it all.
    assert!(
        text.contains("player resumed") && text.contains("tungstenite"),
        "the log saw the resume and the WebSocket library:\n{text}"
    );
    let hex: String = token.bytes().map(|b| format!("{b:02x}")).collect();
    for (what, needle) in [("the token", &token), ("the token in hex", &hex)] {
        if let Some(at) = text.find(needle.as_str()) {
            let line = text[..at].rfind('\n').map_or(0, |i| i + 1);
            let end = text[at..].find('\n').map_or(text.len(), |i| at + i);
            panic!("{what} is in the log: {}", &text[line..end]);
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rooms_lines_name_it_at_the_default_level() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (server, addr, log_path) = logged_server(dir.path(), "info");
    let id = create_room(&addr);
    let url = format!("ws://{addr}/api/rooms/{id}/ws");
    seated(
        &url,
        ClientMsg::Join {
            seat: None,
            name: Some("Ann".into()),
        },
    )
    .await;
    log_shows(&log_path, "player left").await;
    drop(server);

    let text = std::fs::read_to_string(&log_path).expect("the log");
    for what in ["player joined", "player left"] {
        let line = text
            .lines()
            .find(|l| l.contains(what))
            .unwrap_or_else(|| panic!("no {what:?} line in the log:\n{text}"));
        assert!(line.contains(&format!("room={id}")), "{line}");
    }
}

/// `sannin serve` in `dir` at `rust_log`, its output in `dir/server.log`: the guard,
/// its address and the log's path.
fn logged_server(
    dir: &std::path::Path,
    rust_log: &str,
) -> (common::Guard, String, std::path::PathBuf) {
    let log_path = dir.join("server.log");
    let log = std::fs::File::create(&log_path).expect("log file");
    let (server, addr) = start_server(dir, rust_log, |cmd| {
        cmd.stdout(Stdio::from(log.try_clone().expect("log file")))
            .stderr(Stdio::from(log));
    });
    (server, addr, log_path)
}

/// Waits until the log at `path` has a line with `what`.
async fn log_shows(path: &std::path::Path, what: &str) {
    let end = tokio::time::Instant::now() + Duration::from_secs(20);
    while !std::fs::read_to_string(path).is_ok_and(|t| t.contains(what)) {
        assert!(tokio::time::Instant::now() < end, "no {what:?} in the log");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// A start names each migration it applied, then the version the schema is at; a
/// second start on the same database applies none.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_start_logs_the_migrations_it_applied() {
    let dir = tempfile::tempdir().expect("temp dir");
    let first_start = |name: &str| {
        let log_path = dir.path().join(name);
        let log = std::fs::File::create(&log_path).expect("log file");
        let (server, _) = start_server(dir.path(), "info", |cmd| {
            cmd.stdout(Stdio::from(log.try_clone().expect("log file")))
                .stderr(Stdio::from(log));
        });
        drop(server);
        std::fs::read_to_string(&log_path).expect("the log")
    };
    let first = first_start("first.log");
    let applied: Vec<&str> = first
        .lines()
        .filter(|l| l.contains("database migration applied"))
        .collect();
    assert!(
        applied.iter().any(|l| l.contains("version=20250101000000")),
        "the first migration is named:\n{first}"
    );
    let files = std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../../migrations"))
        .expect("migrations")
        .count();
    assert_eq!(applied.len(), files, "one line per migration:\n{first}");
    assert!(first.contains("database schema up to date"), "{first}");

    let second = first_start("second.log");
    assert!(!second.contains("database migration applied"), "{second}");
    assert!(second.contains("newly_applied=0"), "{second}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refused_origin_is_logged_escaped() {
    use std::io::{Read as _, Write as _};
    let dir = tempfile::tempdir().expect("temp dir");
    let (server, addr, log_path) = logged_server(dir.path(), "info");
    // An Origin carrying U+0085 and U+2028 (as UTF-8 bytes) before a forged line.
    let origin = "https://evil.example\u{85}FORGED-A\u{2028}FORGED-B";
    let mut tcp = std::net::TcpStream::connect(&addr).expect("connect");
    let mut request = Vec::new();
    request.extend_from_slice(b"POST /api/rooms HTTP/1.1\r\nHost: ");
    request.extend_from_slice(addr.as_bytes());
    request.extend_from_slice(b"\r\nOrigin: ");
    request.extend_from_slice(origin.as_bytes());
    request.extend_from_slice(
        b"\r\nContent-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}",
    );
    tcp.write_all(&request).expect("send");
    let mut answer = String::new();
    let _ = tcp.read_to_string(&mut answer);
    assert!(answer.starts_with("HTTP/1.1 403"), "{answer}");
    log_shows(&log_path, "cross-site request refused").await;
    drop(server);
    let text = std::fs::read_to_string(&log_path).expect("the log");
    assert!(
        !text.contains('\u{85}') && !text.contains('\u{2028}'),
        "{text:?}"
    );
    let line = text
        .lines()
        .find(|l| l.contains("cross-site request refused"))
        .expect("the line");
    assert!(line.contains(r"\u{85}FORGED-A\u{2028}FORGED-B"), "{line}");
}
