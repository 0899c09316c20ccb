//! Bare HTTP/1.1 requests, one connection each (`Connection: close`), blocking: for
//! servers in another process, for polls from synchronous code, and for requests a
//! client library would not send as they are.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

/// A bare HTTP/1.1 request to `addr` (`host:port`); the status and the body.
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

    /// The `code` of an error answer (`{"error":{"code","message"}}`); empty when the
    /// body has none.
    pub fn error_code(&self) -> String {
        serde_json::from_str::<serde_json::Value>(&self.body)
            .ok()
            .and_then(|v| v["error"]["code"].as_str().map(str::to_string))
            .unwrap_or_default()
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

/// `POST /api/rooms` with `body` to the server at `addr`, which must create the room;
/// its id.
pub fn create_room(addr: &str, body: &str) -> String {
    let (status, answer) = http(addr, "POST", "/api/rooms", body).expect("create a room");
    assert_eq!(status, 201, "create a room: {answer}");
    let room: serde_json::Value = serde_json::from_str(&answer).expect("JSON");
    room["id"].as_str().expect("room id").to_string()
}
