//! How the load generator talks to the server: WebSockets, and bare HTTP/1.1 for the
//! few requests it makes (rooms, `/metrics`, `/healthz`).

use std::net::{IpAddr, SocketAddr};

use anyhow::{bail, Context as _};
use futures_util::StreamExt;
use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpSocket, TcpStream};
use tokio::sync::Semaphore;
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;
use tokio_tungstenite::tungstenite::{Message, Utf8Bytes};

use crate::wire;

fn ws_config() -> WebSocketConfig {
    WebSocketConfig::default()
        .read_buffer_size(4 * 1024)
        .write_buffer_size(0)
}

pub(super) type Ws =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<TcpStream>>;

/// Opens a WebSocket to `url` (`ws://HOST:PORT/…`) from the local address `source`
/// (any, when `None`), at most as many at once as `sem` allows.
pub(super) async fn connect(
    url: &str,
    source: Option<IpAddr>,
    sem: &Semaphore,
) -> anyhow::Result<Ws> {
    let _permit = sem.acquire().await;
    let to: SocketAddr = url
        .strip_prefix("ws://")
        .and_then(|rest| rest.split('/').next())
        .and_then(|host| host.parse().ok())
        .with_context(|| format!("not a ws://ADDRESS/… URL: {url}"))?;
    let stream = match source {
        None => TcpStream::connect(to).await,
        Some(ip) => {
            let socket = if ip.is_ipv4() {
                TcpSocket::new_v4()?
            } else {
                TcpSocket::new_v6()?
            };
            socket.bind(SocketAddr::new(ip, 0))?;
            socket.connect(to).await
        }
    }
    .with_context(|| format!("connect {url}"))?;
    stream.set_nodelay(true)?;
    let (ws, _) = tokio_tungstenite::client_async_with_config(
        url,
        tokio_tungstenite::MaybeTlsStream::Plain(stream),
        Some(ws_config()),
    )
    .await
    .with_context(|| format!("connect {url}"))?;
    Ok(ws)
}

/// Reads the next text frame of the server before `deadline` (read it with
/// [`wire::Msg::parse`]): `Ok(None)` when the stream ends.
pub(super) async fn next_text(
    ws: &mut Ws,
    deadline: tokio::time::Instant,
) -> anyhow::Result<Option<Utf8Bytes>> {
    loop {
        let msg = match tokio::time::timeout_at(deadline, ws.next()).await {
            Ok(Some(Ok(m))) => m,
            Ok(Some(Err(e))) => bail!("read: {e}"),
            Ok(None) => return Ok(None),
            Err(_) => bail!("deadline"),
        };
        let Message::Text(text) = msg else { continue };
        return Ok(Some(text));
    }
}

/// `text` read as a server message.
pub(super) fn read(text: &str) -> anyhow::Result<wire::Msg<'_>> {
    wire::Msg::parse(text).map_err(|e| anyhow::anyhow!("unreadable message: {e}"))
}

pub(super) async fn resolve_loopback(addr: &str) -> anyhow::Result<SocketAddr> {
    let addrs: Vec<SocketAddr> = tokio::net::lookup_host(addr)
        .await
        .with_context(|| format!("cannot resolve {addr}"))?
        .collect();
    match addrs.into_iter().find(|a| a.ip().is_loopback()) {
        Some(a) => Ok(a),
        None => bail!(
            "the load test only targets loopback addresses (127.0.0.1, ::1, localhost), not {addr}"
        ),
    }
}

/// A bare HTTP/1.1 request (keeps the load test free of an HTTP client crate).
pub(super) async fn http(
    addr: SocketAddr,
    method: &str,
    path: &str,
    body: &str,
) -> anyhow::Result<(u16, String)> {
    let mut s = TcpStream::connect(addr).await?;
    let req = format!(
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    s.write_all(req.as_bytes()).await?;
    let mut buf = Vec::new();
    s.read_to_end(&mut buf).await?;
    let text = String::from_utf8_lossy(&buf);
    let status = text
        .split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok())
        .context("bad HTTP response")?;
    let body = text
        .split_once("\r\n\r\n")
        .map(|(_, b)| b.to_string())
        .unwrap_or_default();
    Ok((status, body))
}

/// `POST /api/rooms` with `body`: the new room's id.
pub(super) async fn create_room(addr: SocketAddr, body: &str) -> anyhow::Result<String> {
    let (status, body) = http(addr, "POST", "/api/rooms", body).await?;
    if status != 201 {
        bail!("POST /api/rooms: {status} {body}");
    }
    let v: Value = serde_json::from_str(&body)?;
    v["id"].as_str().map(String::from).context("no id")
}

/// A counter of `GET /metrics`, 0 when absent.
pub(super) async fn metric(addr: SocketAddr, name: &str) -> f64 {
    let Ok((200, text)) = http(addr, "GET", "/metrics", "").await else {
        return 0.0;
    };
    text.lines()
        .find_map(|l| l.strip_prefix(name)?.strip_prefix(' ')?.trim().parse().ok())
        .unwrap_or(0.0)
}
