//! The public server under attack, over real sockets (docs/protocol.md §2.2): budgets
//! per client address (rooms, rooms with bots, WebSockets), the connection cap and
//! the header timeout of the listener, the lobby kept right as rooms change, the
//! security headers, the `Origin` and `Content-Type` rules, JSON bodies on every
//! `/api/` error, and `/metrics` behind its token when one is set.

use crate::common;

use std::time::Duration;

use common::{Client, ConnectError, Setup, Table, TestServer, TIMEOUT};
use futures_util::StreamExt;
use sannin_protocol::RoomStatus;
use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// A raw HTTP/1.1 exchange on a fresh connection: the status and the body.
async fn raw(server: &TestServer, request: &str) -> (u16, String) {
    let mut s = TcpStream::connect(server.addr).await.expect("connect");
    s.write_all(request.as_bytes()).await.expect("write");
    let mut buf = Vec::new();
    let _ = tokio::time::timeout(TIMEOUT, s.read_to_end(&mut buf)).await;
    let text = String::from_utf8_lossy(&buf).to_string();
    let status = text
        .split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    let body = text
        .split_once("\r\n\r\n")
        .map(|(_, b)| b.to_string())
        .unwrap_or_default();
    (status, body)
}

/// `POST /api/rooms` with these extra headers; status, headers and JSON body.
async fn post_room(
    http: &reqwest::Client,
    server: &TestServer,
    body: &str,
    headers: &[(&str, &str)],
) -> (u16, reqwest::header::HeaderMap, Value) {
    let mut req = http
        .post(server.url("/api/rooms"))
        .header("content-type", "application/json")
        .body(body.to_string());
    for (k, v) in headers {
        req = req.header(*k, *v);
    }
    let r = req.send().await.expect("POST /api/rooms");
    let status = r.status().as_u16();
    let headers = r.headers().clone();
    (status, headers, r.json().await.unwrap_or(Value::Null))
}

/// A JSON error of `status` with `code`.
fn assert_error(status: u16, body: &Value, want_status: u16, want_code: &str) {
    assert_eq!(status, want_status, "{body}");
    assert_eq!(TestServer::error_code(body), want_code, "{body}");
}

#[tokio::test]
async fn room_creation_spam_is_limited_per_client_address() {
    // Behind a trusted proxy on 127.0.0.1; the budget barely refills during the test.
    let (_db, server) = Setup::default()
        .limits(|l| {
            l.clients.trusted_proxies = Some("127.0.0.1".into());
            l.clients.rooms_per_minute = 0.001;
            l.clients.rooms_burst = 20;
        })
        .sqlite()
        .await;
    let http = reqwest::Client::new();
    let spammer = [("x-forwarded-for", "198.51.100.7")];
    // 10,000 quick creations from one address, eight at a time.
    let mut created = 0;
    let mut limited = 0;
    let mut attempts = futures_util::stream::iter(0..10_000)
        .map(|_| post_room(&http, &server, "{}", &spammer))
        .buffer_unordered(8);
    while let Some((status, headers, body)) = attempts.next().await {
        match status {
            201 => created += 1,
            429 => {
                assert_error(status, &body, 429, "rate_limited");
                let retry: u64 = headers["retry-after"]
                    .to_str()
                    .unwrap()
                    .parse()
                    .expect("Retry-After in seconds");
                assert!(retry >= 1, "Retry-After {retry}");
                limited += 1;
            }
            _ => panic!("unexpected {status}: {body}"),
        }
    }
    drop(attempts);
    assert_eq!(created, 20, "the burst, then nothing");
    assert_eq!(limited, 10_000 - 20);
    assert_eq!(server.rooms().await.len(), 20);
    // Another client of the same proxy is not affected.
    let (status, _, body) =
        post_room(&http, &server, "{}", &[("x-forwarded-for", "203.0.113.9")]).await;
    assert_eq!(status, 201, "{body}");
    // The spammer cannot pose as someone else by putting an address in front: only
    // the right-most entry before the trusted proxy counts.
    let (status, _, body) = post_room(
        &http,
        &server,
        "{}",
        &[("x-forwarded-for", "192.0.2.1, 198.51.100.7")],
    )
    .await;
    assert_error(status, &body, 429, "rate_limited");
    server.stop().await;
}

#[tokio::test]
async fn forwarded_for_is_ignored_without_a_trusted_proxy() {
    let (_db, server) = Setup::default()
        .limits(|l| {
            l.clients.rooms_per_minute = 0.001;
            l.clients.rooms_burst = 3;
        })
        .sqlite()
        .await;
    let http = reqwest::Client::new();
    for i in 0..3 {
        let xff = format!("192.0.2.{i}");
        let (status, _, body) = post_room(&http, &server, "{}", &[("x-forwarded-for", &xff)]).await;
        assert_eq!(status, 201, "{body}");
    }
    let (status, _, body) =
        post_room(&http, &server, "{}", &[("x-forwarded-for", "192.0.2.200")]).await;
    assert_error(status, &body, 429, "rate_limited");
    server.stop().await;
}

#[tokio::test]
async fn rooms_with_bots_have_a_budget_of_their_own() {
    let (_db, server) = Setup::default()
        .limits(|l| {
            l.clients.rooms_per_minute = 0.001;
            l.clients.rooms_burst = 10;
            l.clients.bot_rooms_per_minute = 0.001;
            l.clients.bot_rooms_burst = 2;
        })
        .sqlite()
        .await;
    let http = reqwest::Client::new();
    let bots = r#"{"bots": {"middle": 0, "last": 0}}"#;
    for _ in 0..2 {
        let (status, _, body) = post_room(&http, &server, bots, &[]).await;
        assert_eq!(status, 201, "{body}");
    }
    let (status, _, body) = post_room(&http, &server, bots, &[]).await;
    assert_error(status, &body, 429, "rate_limited");
    assert!(
        body["error"]["message"].as_str().unwrap().contains("bots"),
        "{body}"
    );
    // Rooms for people only are still allowed.
    let (status, _, body) = post_room(&http, &server, "{}", &[]).await;
    assert_eq!(status, 201, "{body}");
    server.stop().await;
}

/// A WebSocket upgrade of `room` with these headers: the client, or the refusal's
/// status and JSON body.
async fn ws_connect(
    server: &TestServer,
    room: &str,
    headers: &[(&str, &str)],
) -> Result<common::Ws, (u16, Value)> {
    match Client::upgrade(&server.ws_url(room), headers).await {
        Ok(c) => Ok(c.ws),
        Err(ConnectError::Refused { status, body }) => Err((status, body)),
        Err(e) => panic!("ws connect: {e:?}"),
    }
}

#[tokio::test]
async fn websockets_are_capped_per_client_address() {
    let (_db, server) = Setup::default()
        .limits(|l| {
            l.clients.max_ws_per_address = 3;
            l.clients.trusted_proxies = Some("127.0.0.1".into());
        })
        .sqlite()
        .await;
    let room = server.create_room(json!({})).await;
    let mut open = Vec::new();
    for _ in 0..3 {
        open.push(Client::connect(&server.ws_url(&room)).await);
    }
    let (status, body) = ws_connect(&server, &room, &[]).await.expect_err("a fourth");
    assert_error(status, &body, 429, "too_many_connections");
    // Another address behind the proxy still connects.
    let other = ws_connect(&server, &room, &[("x-forwarded-for", "203.0.113.5")]).await;
    assert!(other.is_ok(), "another address: {:?}", other.err());
    // Closing one gives its slot back.
    open.pop().expect("one").close().await;
    let mut again = None;
    for _ in 0..200 {
        if let Ok(ws) = ws_connect(&server, &room, &[]).await {
            again = Some(ws);
            break;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    assert!(again.is_some(), "a slot is free again after a close");
    drop(other);
    server.stop().await;
}

/// Whether the server closes `s` within `within` (reads until end of stream).
async fn closed_within(s: &mut TcpStream, within: Duration) -> bool {
    let mut buf = [0u8; 1024];
    let deadline = tokio::time::Instant::now() + within;
    loop {
        match tokio::time::timeout_at(deadline, s.read(&mut buf)).await {
            Err(_) => return false,
            Ok(Ok(0)) | Ok(Err(_)) => return true,
            Ok(Ok(_)) => continue,
        }
    }
}

#[tokio::test]
async fn slow_header_and_silent_connections_are_closed_after_the_header_timeout() {
    let (_db, server) = Setup::default()
        .limits(|l| l.connections.header_timeout_seconds = 1.0)
        .sqlite()
        .await;
    let mut silent = Vec::new();
    for _ in 0..5 {
        silent.push(TcpStream::connect(server.addr).await.expect("connect"));
    }
    // Drip-fed headers: a byte every 100 ms, never the blank line.
    let mut drips = Vec::new();
    for _ in 0..10 {
        let s = TcpStream::connect(server.addr).await.expect("connect");
        let (mut rd, mut wr) = s.into_split();
        let writer = tokio::spawn(async move {
            let _ = wr.write_all(b"GET / HTTP/1.1\r\nHost: x\r\n").await;
            for _ in 0..600 {
                if wr.write_all(b"X").await.is_err() {
                    break;
                }
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        });
        drips.push(tokio::spawn(async move {
            let mut buf = [0u8; 256];
            let closed = loop {
                match tokio::time::timeout(TIMEOUT, rd.read(&mut buf)).await {
                    Err(_) => break false,
                    Ok(Ok(0)) | Ok(Err(_)) => break true,
                    Ok(Ok(_)) => continue,
                }
            };
            writer.abort();
            closed
        }));
    }
    for s in &mut silent {
        assert!(
            closed_within(s, TIMEOUT).await,
            "a silent connection is closed"
        );
    }
    for d in drips {
        assert!(
            d.await.expect("drip task"),
            "a drip-fed connection is closed"
        );
    }
    // The server is fine.
    assert_eq!(
        raw(
            &server,
            "GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
        )
        .await
        .0,
        200
    );
    server.stop().await;
}

#[tokio::test]
async fn connections_over_the_cap_are_refused_and_healthz_answers_once_idlers_go() {
    let (_db, server) = Setup::default()
        .limits(|l| {
            l.connections.max_connections = 4;
            l.connections.header_timeout_seconds = 1.5;
        })
        .sqlite()
        .await;
    let mut idle = Vec::new();
    for _ in 0..4 {
        idle.push(TcpStream::connect(server.addr).await.expect("connect"));
    }
    // Every slot is taken by an idler: a new connection is refused at once, with a
    // JSON 503 (connect, write and read all succeed; nothing hangs).
    let (status, body) = raw(
        &server,
        "GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
    )
    .await;
    assert_eq!(status, 503, "{body}");
    let v: Value = serde_json::from_str(&body).expect("a JSON body");
    assert_eq!(v["error"]["code"], "server_busy");
    // The idlers are dropped after the header timeout; /healthz answers again.
    let mut answered = false;
    for _ in 0..100 {
        let (status, _) = raw(
            &server,
            "GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
        )
        .await;
        if status == 200 {
            answered = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(
        answered,
        "healthz answers once the idle connections are gone"
    );
    for s in &mut idle {
        assert!(closed_within(s, TIMEOUT).await, "idler closed");
    }
    server.stop().await;
}

#[tokio::test]
async fn the_lobby_stays_right_as_rooms_change() {
    let (_db, server) = Setup::default().sqlite().await;
    let mut ids = Vec::new();
    for _ in 0..5 {
        ids.push(server.create_room(json!({})).await);
    }
    ids.sort();
    // Pages of two, following the Link header, give every room once, in id order.
    let mut seen = Vec::new();
    let mut next = Some("/api/rooms?limit=2".to_string());
    while let Some(path) = next.take() {
        let r = server.request("GET", &path, None).await;
        assert_eq!(r.status(), 200);
        next = r
            .headers()
            .get("link")
            .and_then(|l| l.to_str().ok())
            .and_then(|l| Some(l.split_once('<')?.1.split_once('>')?.0.to_string()));
        let page: Value = r.json().await.expect("JSON");
        seen.extend(
            page.as_array()
                .expect("array")
                .iter()
                .map(|r| r["id"].as_str().unwrap().to_string()),
        );
    }
    assert_eq!(seen, ids);
    let (status, v) = server.get_json("/api/rooms?cursor=not-an-id").await;
    assert_error(status, &v, 400, "bad_request");

    // A new room is listed at once.
    let mut t = Table::new(&server, json!({})).await;
    let listed = server
        .listed(&t.room)
        .await
        .expect("the new room is listed");
    assert_eq!(listed.room.status, RoomStatus::Playing);
    assert_eq!(listed.moves, 0);
    let waiting = server.get_json("/api/rooms?status=waiting").await.1;
    assert_eq!(waiting.as_array().unwrap().len(), 5, "{waiting}");
    let playing = server.get_json("/api/rooms?status=playing").await.1;
    assert_eq!(playing.as_array().unwrap().len(), 1, "{playing}");

    // A move shows in the listing as soon as the room has it.
    let mover = t.to_move();
    let action = t.player(mover).state().legal[0].clone();
    t.play(&action).await;
    assert_eq!(server.listed(&t.room).await.expect("listed").moves, 1);

    // The end too.
    t.finish_by_resignations().await;
    let done = server.listed(&t.room).await.expect("listed");
    assert_eq!(done.room.status, RoomStatus::Finished);
    let playing = server.get_json("/api/rooms?status=playing").await.1;
    assert_eq!(playing.as_array().unwrap().len(), 0, "{playing}");
    let finished = server.get_json("/api/rooms?status=finished").await.1;
    assert_eq!(finished[0]["id"], t.room.as_str(), "{finished}");
    server.stop().await;
}

#[tokio::test]
async fn every_response_carries_the_security_headers() {
    let (_db, server) = Setup::default().sqlite().await;
    for path in [
        "/",
        "/rooms/x",
        "/js/main.js",
        "/api/rooms",
        "/api/nope",
        "/healthz",
    ] {
        let r = server.request("GET", path, None).await;
        let h = r.headers();
        let csp = h
            .get("content-security-policy")
            .unwrap_or_else(|| panic!("CSP on {path}"))
            .to_str()
            .unwrap();
        for part in [
            "default-src 'self'",
            "script-src 'self'",
            "style-src 'self'",
            "connect-src 'self'",
            "frame-ancestors 'none'",
        ] {
            assert!(csp.contains(part), "{path}: {part} in {csp}");
        }
        assert!(!csp.contains("unsafe-inline"), "{csp}");
        assert_eq!(h["x-content-type-options"], "nosniff", "{path}");
        assert_eq!(h["x-frame-options"], "DENY", "{path}");
        assert_eq!(h["referrer-policy"], "same-origin", "{path}");
    }
    server.stop().await;
}

#[tokio::test]
async fn cross_site_pages_cannot_post_nor_open_websockets() {
    let (_db, server) = Setup::default()
        .limits(|l| l.clients.allowed_origins = Some("https://friends.example".into()))
        .sqlite()
        .await;
    let http = reqwest::Client::new();
    let evil = [("origin", "https://evil.example")];
    let (status, _, body) = post_room(&http, &server, "{}", &evil).await;
    assert_error(status, &body, 403, "forbidden_origin");
    let r = http
        .post(server.url("/api/replay"))
        .header("content-type", "application/json")
        .header("origin", "https://evil.example")
        .body(r#"{"record": ""}"#)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 403);
    // The site's own pages, the listed origin and programs (no Origin) may.
    let own = format!("http://{}", server.addr);
    let (status, _, body) = post_room(&http, &server, "{}", &[("origin", &own)]).await;
    assert_eq!(status, 201, "{body}");
    let (status, _, body) = post_room(
        &http,
        &server,
        "{}",
        &[("origin", "https://friends.example")],
    )
    .await;
    assert_eq!(status, 201, "{body}");
    let (status, _, body) = post_room(&http, &server, "{}", &[]).await;
    assert_eq!(status, 201, "{body}");
    let room = body["id"].as_str().unwrap().to_string();

    let (status, body) = ws_connect(&server, &room, &evil)
        .await
        .expect_err("cross-site upgrade");
    assert_error(status, &body, 403, "forbidden_origin");
    let (status, body) = ws_connect(&server, &room, &[("origin", "null")])
        .await
        .expect_err("opaque origin");
    assert_error(status, &body, 403, "forbidden_origin");
    assert!(ws_connect(&server, &room, &[("origin", &own)])
        .await
        .is_ok());
    assert!(ws_connect(&server, &room, &[]).await.is_ok());
    // Reading stays open to anyone.
    let r = http
        .get(server.url("/api/rooms"))
        .header("origin", "https://evil.example")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    server.stop().await;
}

#[tokio::test]
async fn post_bodies_must_be_json() {
    let (_db, server) = Setup::default().sqlite().await;
    let http = reqwest::Client::new();
    for ct in [
        Some("text/plain"),
        Some("application/x-www-form-urlencoded"),
        None,
    ] {
        for path in ["/api/rooms", "/api/replay"] {
            let mut req = http.post(server.url(path)).body("{}");
            if let Some(ct) = ct {
                req = req.header("content-type", ct);
            }
            let r = req.send().await.unwrap();
            let status = r.status().as_u16();
            let body: Value = r.json().await.unwrap_or(Value::Null);
            assert_error(status, &body, 415, "unsupported_media_type");
        }
    }
    // A charset parameter is fine; so is a POST with no body at all.
    let r = http
        .post(server.url("/api/rooms"))
        .header("content-type", "application/json; charset=utf-8")
        .body("{}")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 201);
    let r = http.post(server.url("/api/rooms")).send().await.unwrap();
    assert_eq!(r.status(), 201);
    server.stop().await;
}

#[tokio::test]
async fn api_errors_are_json_whatever_answers_them() {
    let (_db, server) = Setup::default().sqlite().await;
    let (status, v) = server.get_json("/api/nope").await;
    assert_error(status, &v, 404, "not_found");
    let (status, v) = server.get_json("/api/rooms/x/y/z").await;
    assert_error(status, &v, 404, "not_found");

    let r = server.request("PUT", "/api/rooms", Some("{}")).await;
    assert_eq!(r.status(), 405);
    assert!(r.headers().contains_key("allow"), "Allow is kept");
    let v: Value = r.json().await.expect("JSON");
    assert_eq!(TestServer::error_code(&v), "method_not_allowed");

    let big = format!(r#"{{"position": "{}"}}"#, "x".repeat(70 * 1024));
    let (status, v) = server.post_raw("/api/rooms", &big).await;
    assert_error(status, &v, 413, "payload_too_large");

    // Not an upgrade request: a JSON error before any upgrade.
    let room = server.create_room(json!({})).await;
    let (status, v) = server.get_json(&format!("/api/rooms/{room}/ws")).await;
    assert!(status == 400 || status == 426, "{status} {v}");
    assert!(TestServer::error_code(&v).len() > 1, "{v}");

    // A body that is JSON but not an object is refused, and creates nothing.
    let before = server.metric("sannin_rooms_created_total").await;
    for body in ["[null,null,true]", "[]", "\"x\"", "3", "null"] {
        let (status, v) = server.post_raw("/api/rooms", body).await;
        assert_error(status, &v, 400, "bad_request");
        let (status, v) = server.post_raw("/api/replay", body).await;
        assert_error(status, &v, 400, "bad_request");
    }
    assert_eq!(server.metric("sannin_rooms_created_total").await, before);
    server.stop().await;
}

#[tokio::test]
async fn websockets_hold_their_slot_of_the_connection_cap() {
    let (_db, server) = Setup::default()
        .limits(|l| {
            l.connections.max_connections = 4;
            l.connections.header_timeout_seconds = 1.0;
        })
        .sqlite()
        .await;
    let room = server.create_room(json!({})).await;
    // Fill the cap with WebSockets (the test client's own keep-alive connection may
    // hold a slot for a moment).
    let mut open = Vec::new();
    loop {
        match ws_connect(&server, &room, &[]).await {
            Ok(ws) => open.push(ws),
            Err((status, body)) => {
                assert_error(status, &body, 503, "server_busy");
                break;
            }
        }
        assert!(open.len() <= 4, "the cap holds");
    }
    assert!(!open.is_empty());
    // Past the header timeout (idle HTTP connections are gone by then), the sockets
    // still hold their slots: nothing more gets in. (A real wait: the header timeout
    // is the HTTP server's own, on real time.)
    tokio::time::sleep(Duration::from_millis(2_000)).await;
    while open.len() < 4 {
        match ws_connect(&server, &room, &[]).await {
            Ok(ws) => open.push(ws),
            Err((status, body)) => panic!("a slot freed by an idler is free: {status} {body}"),
        }
    }
    let (status, _) = raw(
        &server,
        "GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
    )
    .await;
    assert_eq!(status, 503, "four WebSockets fill a cap of four");
    // A socket closed gives its slot back.
    let mut ws = open.pop().expect("one");
    ws.close(None).await.expect("close");
    while ws.next().await.is_some() {}
    let mut answered = false;
    for _ in 0..100 {
        let (status, _) = raw(
            &server,
            "GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
        )
        .await;
        if status == 200 {
            answered = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(answered, "healthz answers once a WebSocket is closed");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn metrics_need_the_token_when_one_is_set() {
    let db = common::TestDb::sqlite();
    let mut config = Setup::default().config(&db);
    config.metrics_token = Some("s3cret-metrics".into());
    let server = TestServer::start(config).await;
    let get = |auth: Option<&'static str>| {
        let mut req = reqwest::Client::new().get(server.url("/metrics"));
        if let Some(a) = auth {
            req = req.header("authorization", a);
        }
        async move { req.send().await.expect("a response") }
    };
    for auth in [
        None,
        Some("Bearer wrong"),
        Some("s3cret-metrics"),
        Some("Bearer s3cret-metric"),
    ] {
        let res = get(auth).await;
        assert_eq!(res.status(), 401, "{auth:?}");
        let body: Value = res.json().await.unwrap();
        assert_eq!(body["error"]["code"], "unauthorized", "{body}");
    }
    let res = get(Some("Bearer s3cret-metrics")).await;
    assert_eq!(res.status(), 200);
    assert!(res.text().await.unwrap().contains("sannin_rooms"));
    // The rest of the site is not behind it.
    let (status, _) = server.get_json("/api/rooms").await;
    assert_eq!(status, 200);
    server.stop().await;
}
