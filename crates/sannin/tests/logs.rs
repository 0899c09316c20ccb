//! Seat tokens never reach the log, even at `RUST_LOG=trace` (where the WebSocket
//! library would log every frame, payload included): the real `sannin serve`, a player
//! joining and resuming, and the captured output searched for the token.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use futures_util::{SinkExt, StreamExt};
use sannin_protocol::{ClientMsg, ServerMsg};
use tokio_tungstenite::tungstenite::Message;

const BIN: &str = env!("CARGO_BIN_EXE_sannin");

/// Kills the server when the test ends, passed or not.
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

/// A bare HTTP/1.1 request; the status and the body.
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

/// Sends `msg`, then reads until a `seated`; its token.
async fn seated(url: &str, msg: ClientMsg) -> String {
    let (mut ws, _) = tokio_tungstenite::connect_async(url)
        .await
        .expect("ws connect");
    ws.send(Message::Text(msg.to_text().into()))
        .await
        .expect("send");
    let token = tokio::time::timeout(Duration::from_secs(20), async {
        while let Some(m) = ws.next().await {
            if let Ok(Message::Text(t)) = m {
                if let Ok(ServerMsg::Seated { token, .. }) = ServerMsg::parse(t.as_str()) {
                    return token;
                }
            }
        }
        panic!("closed before seated");
    })
    .await
    .expect("seated in time");
    // A chat line too, so that the player's own frames go through the log as well.
    ws.send(Message::Text(
        ClientMsg::Chat {
            text: "hello".into(),
        }
        .to_text()
        .into(),
    ))
    .await
    .expect("send chat");
    let _ = tokio::time::timeout(Duration::from_secs(2), ws.next()).await;
    let _ = ws.close(None).await;
    token
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tokens_stay_out_of_the_log_at_trace_level() {
    let dir = tempfile::tempdir().expect("temp dir");
    let log_path = dir.path().join("server.log");
    let log = std::fs::File::create(&log_path).expect("log file");
    let addr = format!("127.0.0.1:{}", free_port());
    let server = Guard(
        Command::new(BIN)
            .args(["serve", "--addr", &addr])
            .current_dir(dir.path())
            .env_remove("DATABASE_URL")
            .env_remove("SANNIN_ADDR")
            // The most specific directives for the WebSocket library, too.
            .env(
                "RUST_LOG",
                "trace,tungstenite::protocol=trace,tokio_tungstenite=trace",
            )
            .stdout(Stdio::from(log.try_clone().expect("log file")))
            .stderr(Stdio::from(log))
            .spawn()
            .expect("start the server"),
    );
    let up = Instant::now() + Duration::from_secs(30);
    while !matches!(http(&addr, "GET", "/healthz", ""), Ok((200, _))) {
        assert!(Instant::now() < up, "the server did not come up on {addr}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let (status, body) = http(&addr, "POST", "/api/rooms", "{}").expect("create a room");
    assert_eq!(status, 201, "{body}");
    let room: serde_json::Value = serde_json::from_str(&body).expect("JSON");
    let url = format!(
        "ws://{addr}/api/rooms/{}/ws",
        room["id"].as_str().expect("id")
    );

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
    // Let the server write out what it logs about these connections, then stop it.
    tokio::time::sleep(Duration::from_millis(500)).await;
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
