//! Web Push (docs/correspondence.md, "Notifications") over a real server and a push
//! service on a real socket: a subscription made through the HTTP API, a player's
//! turn coming while its page is closed, the message decrypted with the browser's
//! keys and its VAPID signature checked against the server's public key; the
//! subscription's kinds; a service that is busy or says the subscription is gone;
//! bad subscriptions; the key kept across a restart.

use crate::common;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::IntoResponse;
use base64ct::{Base64UrlUnpadded, Encoding as _};
use common::{Setup, Table, TestDb, TestServer, TIMEOUT};
use sannin_protocol::Seat;
use sannin_server::push::{PushArgs, PushConfig};
use serde_json::{json, Value};
use web_push_native::jwt_simple::prelude::{
    ECDSAP256PublicKeyLike as _, ES256PublicKey, NoCustomClaims, VerificationOptions,
};
use web_push_native::p256::SecretKey;
use web_push_native::Auth;

/// A request the push service received.
#[derive(Debug, Clone)]
struct Received {
    path: String,
    headers: HeaderMap,
    body: Vec<u8>,
}

/// A push service on a real socket: records every request; answers `/push/gone`
/// with 410, the first request to `/push/busy` with 429, and every request to
/// `/push/stuck` with 429 and `Retry-After: 60`.
#[derive(Clone, Default)]
struct PushService {
    got: Arc<Mutex<Vec<Received>>>,
}

async fn receive(
    State(s): State<PushService>,
    Path(id): Path<String>,
    headers: HeaderMap,
    body: Bytes,
) -> impl IntoResponse {
    let mut got = s.got.lock().unwrap();
    let before = got.iter().filter(|r| r.path == id).count();
    got.push(Received {
        path: id.clone(),
        headers,
        body: body.to_vec(),
    });
    match (id.as_str(), before) {
        ("gone", _) => (StatusCode::GONE, [("retry-after", "0")]),
        ("stuck", _) => (StatusCode::TOO_MANY_REQUESTS, [("retry-after", "60")]),
        ("busy", 0) => (StatusCode::TOO_MANY_REQUESTS, [("retry-after", "0")]),
        _ => (StatusCode::CREATED, [("retry-after", "0")]),
    }
}

impl PushService {
    async fn start() -> (PushService, u16) {
        let s = PushService::default();
        let app = axum::Router::new()
            .route("/push/{id}", axum::routing::post(receive))
            .with_state(s.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        tokio::spawn(async move { axum::serve(listener, app).await });
        (s, port)
    }

    fn requests(&self, path: &str) -> Vec<Received> {
        let got = self.got.lock().unwrap();
        got.iter().filter(|r| r.path == path).cloned().collect()
    }

    /// Waits (bounded) for `n` requests to `path`.
    async fn wait_for(&self, path: &str, n: usize) -> Vec<Received> {
        let deadline = tokio::time::Instant::now() + TIMEOUT;
        loop {
            let got = self.requests(path);
            if got.len() >= n {
                return got;
            }
            assert!(
                tokio::time::Instant::now() < deadline,
                "{path}: {} requests, want {n}",
                got.len()
            );
            // Polling what the server's sender posts on its own.
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
}

/// A browser's push keys.
struct Browser {
    secret: SecretKey,
    auth: Auth,
}

impl Browser {
    fn new() -> Browser {
        let mut bytes = [0u8; 32];
        bytes[..16].copy_from_slice(uuid::Uuid::new_v4().as_bytes());
        bytes[16..].copy_from_slice(uuid::Uuid::new_v4().as_bytes());
        Browser {
            secret: SecretKey::from_slice(&bytes).expect("a P-256 scalar"),
            auth: Auth::clone_from_slice(uuid::Uuid::new_v4().as_bytes()),
        }
    }

    fn keys(&self) -> Value {
        use web_push_native::p256::elliptic_curve::sec1::ToEncodedPoint as _;
        let point = self.secret.public_key().to_encoded_point(false);
        json!({
            "p256dh": Base64UrlUnpadded::encode_string(point.as_bytes()),
            "auth": Base64UrlUnpadded::encode_string(&self.auth),
        })
    }

    fn decrypt(&self, r: &Received) -> Value {
        let plain = web_push_native::decrypt(r.body.clone(), &self.secret, &self.auth)
            .expect("a message encrypted for this browser");
        serde_json::from_slice(&plain).expect("a JSON payload")
    }
}

async fn server_with_push(db: &TestDb, port: u16) -> TestServer {
    let mut config = Setup::default().config(db);
    config.push = PushConfig::from_args(&PushArgs {
        push_services: format!("http://127.0.0.1:{port}"),
        push_contact: "mailto:admin@sannin.example".into(),
        ..PushArgs::default()
    });
    TestServer::start(config).await
}

async fn subscribe(server: &TestServer, body: &Value) -> (u16, Value) {
    server.post_json("/api/push/subscriptions", body).await
}

fn day_a_move() -> Value {
    json!({"clock": {"kind": "correspondence", "seconds_per_move": 86_400}})
}

/// Closes `seat`'s connection and waits until the room has seen it go.
async fn leave_page(server: &TestServer, t: &mut Table, seat: Seat) {
    let ws = std::mem::replace(
        &mut t.players[seat.index()],
        common::Client::connect(&server.ws_url(&t.room)).await,
    );
    ws.close().await;
    let deadline = tokio::time::Instant::now() + TIMEOUT;
    loop {
        let r = server.room(&t.room).await.room;
        let s = [&r.seats.first, &r.seats.middle, &r.seats.last][seat.index()];
        if s.as_ref().is_some_and(|s| !s.connected) {
            return;
        }
        assert!(tokio::time::Instant::now() < deadline, "still connected");
        // Polling the summary the room publishes as it changes.
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_absent_player_hears_that_its_turn_came() {
    let (service, port) = PushService::start().await;
    let db = TestDb::sqlite();
    let server = server_with_push(&db, port).await;
    let (status, key) = server.get_json("/api/push/key").await;
    assert_eq!(status, 200, "{key}");
    let public_key = key["public_key"].as_str().unwrap().to_string();

    let mut t = Table::new(&server, day_a_move()).await;
    let middle = t.players[1].token.clone().unwrap();
    let browser = Browser::new();
    let endpoint = format!("http://127.0.0.1:{port}/push/middle");
    let (status, v) = subscribe(
        &server,
        &json!({"endpoint": endpoint, "keys": browser.keys(), "tokens": [middle],
                "lang": "en", "expirationTime": null}),
    )
    .await;
    assert_eq!(status, 201, "{v}");
    let id = v["id"].as_str().unwrap().to_string();

    // Middle closes its page; First moves: Middle's turn comes while it is away.
    leave_page(&server, &mut t, Seat::Middle).await;
    let first = t.players[0].state().legal[0].clone();
    t.players[0].act(&first).await;
    let got = service.wait_for("middle", 1).await;
    let r = &got[0];
    let msg = browser.decrypt(r);
    assert_eq!(msg["type"], "your_turn", "{msg}");
    assert_eq!(msg["room"], t.room.as_str());
    assert_eq!(msg["seat"], "middle");
    assert_eq!(msg["url"], format!("/rooms/{}", t.room));
    assert_eq!(msg["title"], "Your move");
    let body = msg["body"].as_str().unwrap();
    assert!(body.contains("day") && body.contains("left"), "{body}");
    assert!(
        !msg.to_string().contains(&middle),
        "a payload carries no token"
    );
    assert_eq!(r.headers["content-encoding"], "aes128gcm");
    assert_eq!(r.headers["ttl"], "86400");

    // Signed by the server's key, for this push service's origin.
    let auth = r.headers["authorization"].to_str().unwrap();
    let rest = auth.strip_prefix("vapid t=").expect("a VAPID header");
    let (jwt, k) = rest.split_once(", k=").expect("t and k");
    assert_eq!(k, public_key);
    let key = ES256PublicKey::from_bytes(&Base64UrlUnpadded::decode_vec(k).unwrap()).unwrap();
    let claims = key
        .verify_token::<NoCustomClaims>(jwt, Some(VerificationOptions::default()))
        .expect("a valid signature");
    let origin = format!("http://127.0.0.1:{port}");
    assert!(claims.audiences.unwrap().contains(&[origin].into()));
    assert_eq!(
        claims.subject.as_deref(),
        Some("mailto:admin@sannin.example")
    );
    assert!(claims.expires_at.is_some());

    // Connected players hear nothing: First and Last moved their turns in the room.
    assert!(service.requests("first").is_empty());

    // Posting the same endpoint again answers the same id; deleting it stops pushes.
    let (status, again) = subscribe(
        &server,
        &json!({"endpoint": endpoint, "keys": browser.keys(), "tokens": [middle],
                "kinds": ["game_over"]}),
    )
    .await;
    assert_eq!((status, again["id"].as_str()), (201, Some(id.as_str())));
    let res = server
        .request("DELETE", &format!("/api/push/subscriptions/{id}"), None)
        .await;
    assert_eq!(res.status(), 204);
    let res = server
        .request("DELETE", &format!("/api/push/subscriptions/{id}"), None)
        .await;
    assert_eq!(res.status(), 404);
    let v: Value = res.json().await.unwrap();
    assert_eq!(v["error"]["code"], "subscription_not_found", "{v}");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_kinds_asked_for_a_busy_service_retried_a_gone_subscription_removed() {
    let (service, port) = PushService::start().await;
    let db = TestDb::sqlite();
    let server = server_with_push(&db, port).await;
    let mut t = Table::new(&server, day_a_move()).await;
    let middle = t.players[1].token.clone().unwrap();
    let last = t.players[2].token.clone().unwrap();
    let endpoint = |path: &str| format!("http://127.0.0.1:{port}/push/{path}");
    // Middle wants draw offers only, in Japanese; Last has a busy service (and reads
    // Russian) and a browser that is gone (below).
    let middles = Browser::new();
    let lasts = Browser::new();
    for (path, keys, tokens, extra) in [
        (
            "kinds",
            middles.keys(),
            &middle,
            json!({"kinds": ["draw_offered"], "lang": "ja"}),
        ),
        ("busy", lasts.keys(), &last, json!({"lang": "ru"})),
    ] {
        let mut body = json!({"endpoint": endpoint(path), "keys": keys, "tokens": [tokens]});
        body.as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        let (status, v) = subscribe(&server, &body).await;
        assert_eq!(status, 201, "{v}");
    }
    let (_, gone) = subscribe(
        &server,
        &json!({"endpoint": endpoint("gone"), "keys": Browser::new().keys(), "tokens": [last]}),
    )
    .await;
    leave_page(&server, &mut t, Seat::Middle).await;
    leave_page(&server, &mut t, Seat::Last).await;
    // Middle's turn comes: it did not ask for that.
    let first = t.players[0].state().legal[0].clone();
    t.players[0].act(&first).await;
    // First offers a draw: both absent players hear of it.
    t.players[0].send_json(json!({"type": "offer_draw"})).await;
    let got = service.wait_for("kinds", 1).await;
    let msg = middles.decrypt(&got[0]);
    assert_eq!(msg["type"], "draw_offered", "{msg}");
    assert_eq!(msg["title"], "引き分けの提案");
    // 429 then accepted: retried once.
    let got = service.wait_for("busy", 2).await;
    assert_eq!(lasts.decrypt(&got[1])["title"], "Предложена ничья");
    // 410: the subscription is removed.
    service.wait_for("gone", 1).await;
    let gone_id = gone["id"].as_str().unwrap();
    let deadline = tokio::time::Instant::now() + TIMEOUT;
    loop {
        let res = server
            .request(
                "DELETE",
                &format!("/api/push/subscriptions/{gone_id}"),
                None,
            )
            .await;
        if res.status() == 404 {
            break;
        }
        assert!(tokio::time::Instant::now() < deadline, "never removed");
        // It was answered before the 410 came back; ask again.
        subscribe(
            &server,
            &json!({"endpoint": endpoint("gone"), "keys": Browser::new().keys(), "tokens": [last]}),
        )
        .await;
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(
        service.requests("kinds").len(),
        1,
        "your_turn was not asked for"
    );
    assert!(server.metric("sannin_push_sent_total").await >= 2.0);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_subscriptions_are_refused_with_their_reason() {
    let (_service, port) = PushService::start().await;
    let db = TestDb::sqlite();
    let server = server_with_push(&db, port).await;
    let t = Table::new(&server, day_a_move()).await;
    let token = t.players[0].token.clone().unwrap();
    let keys = Browser::new().keys();
    let ok = format!("http://127.0.0.1:{port}/push/x");
    let cases = [
        (
            json!({"endpoint": "https://evil.example/push", "keys": keys, "tokens": [token]}),
            400,
            "push_service_not_allowed",
        ),
        (
            json!({"endpoint": "http://127.0.0.1:1/push", "keys": keys, "tokens": [token]}),
            400,
            "push_service_not_allowed",
        ),
        (
            json!({"endpoint": "file:///etc/passwd", "keys": keys, "tokens": [token]}),
            400,
            "bad_subscription",
        ),
        (
            json!({"endpoint": ok, "keys": {"p256dh": "AAAA", "auth": keys["auth"]}, "tokens": [token]}),
            400,
            "bad_subscription",
        ),
        (
            json!({"endpoint": ok, "keys": {"p256dh": keys["p256dh"], "auth": "AAAA"}, "tokens": [token]}),
            400,
            "bad_subscription",
        ),
        (
            json!({"endpoint": ok, "keys": keys, "tokens": ["a".repeat(64)]}),
            400,
            "bad_token",
        ),
        (
            json!({"endpoint": ok, "keys": keys, "tokens": [token], "kinds": ["everything"]}),
            400,
            "bad_request",
        ),
        (
            json!({"endpoint": ok, "keys": keys, "tokens": [token], "lang": "xx"}),
            400,
            "bad_request",
        ),
        (
            json!({"endpoint": ok, "keys": keys, "tokens": vec![token.clone(); 101]}),
            400,
            "bad_request",
        ),
        (json!([ok]), 400, "bad_request"),
        (
            json!({"endpoint": ok, "keys": keys, "tokens": [token], "padding": "x".repeat(17_000)}),
            413,
            "payload_too_large",
        ),
    ];
    for (body, status, code) in cases {
        let (got, v) = subscribe(&server, &body).await;
        assert_eq!(
            (got, v["error"]["code"].as_str()),
            (status, Some(code)),
            "{body:.200}: {v}"
        );
    }
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_key_and_the_subscriptions_outlive_a_restart_on_both_databases() {
    common::on_both_databases(|db| async move {
        let (service, port) = PushService::start().await;
        let server = server_with_push(&db, port).await;
        let (_, before) = server.get_json("/api/push/key").await;
        let mut t = Table::new(&server, day_a_move()).await;
        let middle = t.players[1].token.clone().unwrap();
        let browser = Browser::new();
        let body = json!({"endpoint": format!("http://127.0.0.1:{port}/push/kept"),
                          "keys": browser.keys(), "tokens": [middle]});
        let (status, first) = subscribe(&server, &body).await;
        assert_eq!(status, 201, "{first}");
        let (_, again) = subscribe(&server, &body).await;
        assert_eq!(first, again, "the same endpoint, the same subscription");
        leave_page(&server, &mut t, Seat::Middle).await;
        server.stop().await;

        let server = server_with_push(&db, port).await;
        let (_, after) = server.get_json("/api/push/key").await;
        assert_eq!(before, after);
        let raw = Base64UrlUnpadded::decode_vec(after["public_key"].as_str().unwrap()).unwrap();
        assert_eq!((raw.len(), raw[0]), (65, 4), "an uncompressed P-256 point");
        // First moves after the restart: Middle's subscription still covers its seat.
        let mut first_player = common::Client::connect(&server.ws_url(&t.room)).await;
        first_player
            .resume(t.players[0].token.as_deref().unwrap())
            .await;
        let state = first_player
            .until_state("First to move", |s| !s.legal.is_empty())
            .await;
        let action = state.legal[0].clone();
        first_player.act(&action).await;
        let got = service.wait_for("kept", 1).await;
        assert_eq!(browser.decrypt(&got[0])["type"], "your_turn");
        server.stop().await;
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_service_that_says_wait_a_minute_does_not_hold_back_the_others() {
    let (service, port) = PushService::start().await;
    let db = TestDb::sqlite();
    let mut config = Setup::default().config(&db);
    // One request at a time for the whole server: a retry that held its place would
    // stop every other notice for a minute.
    config.push = PushConfig::from_args(&PushArgs {
        push_services: format!("http://127.0.0.1:{port}"),
        push_contact: "mailto:admin@sannin.example".into(),
        push_concurrency: 1,
    });
    let server = TestServer::start(config).await;
    let mut t = Table::new(&server, day_a_move()).await;
    let middle = t.players[1].token.clone().unwrap();
    let last = t.players[2].token.clone().unwrap();
    let endpoint = |path: &str| format!("http://127.0.0.1:{port}/push/{path}");
    let middles = Browser::new();
    for (path, keys, token, kinds) in [
        ("fine", middles.keys(), &middle, json!(["your_turn"])),
        (
            "stuck",
            Browser::new().keys(),
            &last,
            json!(["draw_offered"]),
        ),
    ] {
        let body =
            json!({"endpoint": endpoint(path), "keys": keys, "tokens": [token], "kinds": kinds});
        let (status, v) = subscribe(&server, &body).await;
        assert_eq!(status, 201, "{v}");
    }
    leave_page(&server, &mut t, Seat::Middle).await;
    leave_page(&server, &mut t, Seat::Last).await;
    // A draw offer goes to Last's stuck service, which says to wait a minute...
    t.players[0].send_json(json!({"type": "offer_draw"})).await;
    service.wait_for("stuck", 1).await;
    // ...while Middle hears at once that its turn came.
    let first = t.players[0].state().legal[0].clone();
    t.players[0].act(&first).await;
    let got = service.wait_for("fine", 1).await;
    assert_eq!(middles.decrypt(&got[0])["type"], "your_turn");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_seat_is_followed_by_a_few_browsers() {
    let (_service, port) = PushService::start().await;
    let db = TestDb::sqlite();
    let server = server_with_push(&db, port).await;
    let t = Table::new(&server, day_a_move()).await;
    let token = t.players[1].token.clone().unwrap();
    let endpoint = |n: usize| format!("http://127.0.0.1:{port}/push/b{n}");
    for n in 0..5 {
        let body =
            json!({"endpoint": endpoint(n), "keys": Browser::new().keys(), "tokens": [&token]});
        assert_eq!(subscribe(&server, &body).await.0, 201);
    }
    let body = json!({"endpoint": endpoint(5), "keys": Browser::new().keys(), "tokens": [&token]});
    let (status, v) = subscribe(&server, &body).await;
    assert_eq!(
        (status, TestServer::error_code(&v)),
        (429, "too_many_subscriptions"),
        "{v}"
    );
    // A browser already following it may subscribe again (its keys change).
    let body = json!({"endpoint": endpoint(0), "keys": Browser::new().keys(), "tokens": [&token]});
    assert_eq!(subscribe(&server, &body).await.0, 201);
}
