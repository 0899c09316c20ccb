//! Requests and moves the accounts' tests share.

use sannin_protocol::State;
use sannin_testkit::Client;
use serde_json::Value;

use super::TestServer;

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

/// The `name=value` of the cookie an answer sets, if any.
pub fn set_cookie(h: &reqwest::header::HeaderMap) -> Option<String> {
    let set = h.get("set-cookie")?.to_str().ok()?;
    Some(set.split(';').next().unwrap_or("").trim().to_string())
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
