//! Requests and moves the accounts' tests share.

use std::net::IpAddr;

use sannin_protocol::{ErrorCode, ServerMsg, State};
use sannin_testkit::Client;
use serde_json::{json, Value};

use super::{http_from, TestServer};

/// `method path` from `http` with a JSON body and an optional cookie: status,
/// headers, JSON body.
pub async fn call(
    http: &reqwest::Client,
    server: &TestServer,
    method: &str,
    path: &str,
    body: Option<Value>,
    cookie: Option<&str>,
) -> (u16, reqwest::header::HeaderMap, Value) {
    let mut req = http.request(method.parse().unwrap(), server.url(path));
    if let Some(b) = body {
        req = req
            .header("content-type", "application/json")
            .body(b.to_string());
    }
    if let Some(c) = cookie {
        req = req.header("cookie", c);
    }
    let r = req.send().await.expect("a request");
    let status = r.status().as_u16();
    let headers = r.headers().clone();
    (status, headers, r.json().await.unwrap_or(Value::Null))
}

/// `POST path` with a JSON body from `ip`, with an optional cookie: status, JSON body.
pub async fn post_from(
    server: &TestServer,
    ip: IpAddr,
    path: &str,
    body: Value,
    cookie: Option<&str>,
) -> (u16, Value) {
    let (s, _, v) = call(&http_from(ip), server, "POST", path, Some(body), cookie).await;
    (s, v)
}

/// Registers `name` from `ip`: its session cookie (`name=value`).
pub async fn register_from(server: &TestServer, ip: IpAddr, name: &str) -> String {
    let (s, h, v) = call(
        &http_from(ip),
        server,
        "POST",
        "/api/accounts",
        Some(json!({"name": name, "password": format!("{name}'s password")})),
        None,
    )
    .await;
    assert_eq!(s, 201, "{v}");
    session_cookie(&h).expect("a session cookie")
}

/// A log-in of `name` with `password` from `ip` (`POST /api/session`).
pub async fn log_in_from(
    server: &TestServer,
    ip: IpAddr,
    name: &str,
    password: &str,
) -> (u16, reqwest::header::HeaderMap, Value) {
    log_in_with(server, ip, name, password, None).await
}

/// As [`log_in_from`], sending `cookie` (a known device's, say).
pub async fn log_in_with(
    server: &TestServer,
    ip: IpAddr,
    name: &str,
    password: &str,
    cookie: Option<&str>,
) -> (u16, reqwest::header::HeaderMap, Value) {
    call(
        &http_from(ip),
        server,
        "POST",
        "/api/session",
        Some(json!({"name": name, "password": password})),
        cookie,
    )
    .await
}

/// The `name=value` of the cookie an answer sets, if any.
pub fn set_cookie(h: &reqwest::header::HeaderMap) -> Option<String> {
    let set = h.get("set-cookie")?.to_str().ok()?;
    Some(set.split(';').next().unwrap_or("").trim().to_string())
}

/// The `name=value` of each cookie an answer sets.
pub fn cookies_set(h: &reqwest::header::HeaderMap) -> Vec<String> {
    h.get_all("set-cookie")
        .iter()
        .filter_map(|v| v.to_str().ok()?.split(';').next().map(str::to_string))
        .collect()
}

/// The `name=value` of the session cookie an answer sets, among its cookies.
pub fn session_cookie(h: &reqwest::header::HeaderMap) -> Option<String> {
    cookies_set(h)
        .into_iter()
        .find(|c| c.starts_with("sannin_session="))
}

/// Each player makes one board move, in turn (a rated game moves ratings only if
/// every player moved).
pub async fn each_moves_once(players: &mut [Client], spectator: &mut Client) {
    for _ in 0..3 {
        let seq = spectator.state().seq;
        let mover = spectator.state().to_move.expect("someone to move");
        let p = &mut players[mover.index()];
        let mine = |s: &State| s.seq >= seq && s.to_move == s.you && !s.legal.is_empty();
        let state = if mine(p.state()) {
            p.state().clone()
        } else {
            p.until_state("its turn", mine).await
        };
        let action = state
            .legal
            .iter()
            .find(|a| a.starts_with('P') && a.contains('-'))
            .or_else(|| state.legal.iter().find(|a| a.contains('-')))
            .expect("a board move")
            .clone();
        p.act(&action).await;
        spectator
            .until_state("the move's state", |s| s.seq > seq)
            .await;
    }
}

/// Reads `c`'s answers to `n` messages it sent: how many `accepted` recognises, and how
/// many were refused `rate_limited` (other messages are skipped).
pub async fn count_answers(
    c: &mut Client,
    n: u32,
    accepted: impl Fn(&ServerMsg) -> bool,
) -> (u32, u32) {
    let (mut yes, mut limited) = (0, 0);
    while yes + limited < n {
        match c.recv().await {
            ServerMsg::Error {
                code: ErrorCode::RateLimited,
                ..
            } => limited += 1,
            m if accepted(&m) => yes += 1,
            _ => {}
        }
    }
    (yes, limited)
}
