//! The protocol over real sockets: every error code, seats and tokens, the voluntary
//! alliance, abandonment, limits, HTTP surfaces.

mod common;

use std::time::Duration;

use common::*;
use sannin_rules::Position;
use sannin_server::LimitArgs;
use serde_json::{json, Value};
use tokio_tungstenite::tungstenite::Message;

async fn sqlite_server() -> (TestDb, TestServer) {
    let db = TestDb::sqlite();
    let server = TestServer::start(test_config(db.url())).await;
    (db, server)
}

async fn server_with(limits: LimitArgs) -> (TestDb, TestServer) {
    let db = TestDb::sqlite();
    let server = TestServer::start(sannin_server::Config::new(db.url()).with_limits(&limits)).await;
    (db, server)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_error_code_for_its_situation() {
    let (_db, server) = sqlite_server().await;
    let room = server.create_room(json!({})).await;
    let mut a = server.client(&room).await;
    let mut b = server.client(&room).await;
    let mut c = server.client(&room).await;
    let mut spectator = server.client(&room).await;

    // bad_message: not JSON, not an object, unknown type, missing field; still usable.
    for bad in [
        "{nope",
        "[1,2]",
        r#"{"type":"fly"}"#,
        r#"{"type":"act"}"#,
        r#"{"action":"P3c-4d"}"#,
        r#"{"type":"join","seat":7}"#,
    ] {
        a.send_raw(Message::Text(bad.into())).await;
        let e = a.expect_error("bad_message").await;
        assert!(!e["message"].as_str().unwrap().is_empty());
    }
    a.send(json!({"type": "join", "seat": "east"})).await;
    a.expect_error("bad_message").await;
    assert_eq!(a.sync().await["type"], "state", "connection stays usable");

    // game_not_running: acting before the start.
    assert_eq!(a.join(Some("first"), "Ann").await, "first");
    a.send(json!({"type": "act", "action": "P3c-4d"})).await;
    a.expect_error("game_not_running").await;

    // seat_taken
    b.send(json!({"type": "join", "seat": "first", "name": "Bob"}))
        .await;
    b.expect_error("seat_taken").await;
    assert_eq!(
        b.join(None, "Bob").await,
        "middle",
        "null takes any free seat"
    );
    assert_eq!(c.join(Some("last"), "Cid").await, "last");
    let mut d = server.client(&room).await;
    d.send(json!({"type": "join", "seat": null, "name": "Dan"}))
        .await;
    d.expect_error("seat_taken").await;

    // bad_token
    d.send(json!({"type": "resume", "token": "0123456789abcdef"}))
        .await;
    d.expect_error("bad_token").await;

    // already seated
    a.send(json!({"type": "join", "seat": null})).await;
    a.expect_error("already_seated").await;

    for p in [&mut a, &mut b, &mut c] {
        p.send(json!({"type": "ready"})).await;
    }
    for p in [&mut a, &mut b, &mut c, &mut spectator] {
        p.until_event("game_started").await;
        p.until("playing", |v| {
            v["type"] == "state" && v["status"] == "playing"
        })
        .await;
    }
    let st = a.last_state.clone().unwrap();
    assert_eq!(st["you"], "first");
    assert_eq!(st["to_move"], "first");
    assert_eq!(st["legal"].as_array().unwrap().len(), 48, "perft(1) = 48");
    assert_eq!(b.last_state.as_ref().unwrap()["legal"], json!([]));
    assert_eq!(spectator.last_state.as_ref().unwrap()["you"], Value::Null);
    assert!(st["illumination"].is_null());

    // not_seated: a spectator acts.
    spectator
        .send(json!({"type": "act", "action": "P3c-4d"}))
        .await;
    spectator.expect_error("not_seated").await;
    spectator.send(json!({"type": "resign"})).await;
    spectator.expect_error("not_seated").await;

    // not_your_turn
    b.send(json!({"type": "act", "action": "P10k-10j"})).await;
    let e = b.expect_error("not_your_turn").await;
    assert!(e["message"].as_str().unwrap().contains("first"), "{e}");

    // illegal_action: unreadable notation, and a readable but illegal action.
    a.send(json!({"type": "act", "action": "Zz9z"})).await;
    a.expect_error("illegal_action").await;
    a.send(json!({"type": "act", "action": "K1d-7g"})).await;
    let e = a.expect_error("illegal_action").await;
    assert!(!e["message"].as_str().unwrap().is_empty());

    // A rejected action changed nothing: First is still to move, seq unchanged.
    let before = a.sync().await;
    assert_eq!(before["to_move"], "first");
    assert_eq!(before["moves"], json!([]));

    // A short form is accepted and broadcast canonical.
    a.send(json!({"type": "act", "action": "Bx10k+"})).await;
    let ev = spectator.until_event("action").await;
    assert_eq!(
        ev["event"],
        json!({"type": "action", "player": "first", "action": "B2gx10k+"})
    );

    // Seats cannot change during play.
    d.send(json!({"type": "join", "seat": "first"})).await;
    d.expect_error("seat_taken").await;
    a.send(json!({"type": "ready"})).await;
    a.expect_error("game_not_running").await;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn resume_and_replace() {
    let (_db, server) = sqlite_server().await;
    let mut t = Table::new(&server, json!({})).await;
    t.play("P3c-4d").await;

    // Middle's connection drops.
    let middle = t.players.remove(1);
    let token = middle.token.clone().unwrap();
    middle.close().await;
    let left = t.spectator.until_event("player_left").await;
    assert_eq!(left["event"]["seat"], "middle");
    assert_eq!(left["event"]["grace_seconds"], 1.0);

    // It resumes on a new connection: same seat, fresh state with its legal actions.
    let mut again = server.client(&t.room).await;
    again.send(json!({"type": "resume", "token": token})).await;
    let seated = again.until_type("seated").await;
    assert_eq!(seated["seat"], "middle");
    let state = again.until_type("state").await;
    assert_eq!(state["you"], "middle");
    assert_eq!(state["to_move"], "middle");
    assert!(!state["legal"].as_array().unwrap().is_empty());
    assert_eq!(state["moves"], json!(["P3c-4d"]));
    assert_eq!(state["seats"]["middle"]["connected"], true);
    let back = t.spectator.until_event("player_reconnected").await;
    assert_eq!(back["event"]["seat"], "middle");

    // A second connection resuming the same seat replaces the first.
    let mut third = server.client(&t.room).await;
    third.send(json!({"type": "resume", "token": token})).await;
    assert_eq!(third.until_type("seated").await["seat"], "middle");
    again.expect_error("replaced").await;
    again.expect_closed().await;
    // The new one acts for the seat.
    third.until_type("state").await;
    third
        .send(json!({"type": "act", "action": "P10k-10j"}))
        .await;
    let ev = t.spectator.until_event("action").await;
    assert_eq!(ev["event"]["player"], "middle");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn voluntary_alliance_before_play() {
    let (_db, server) = sqlite_server().await;
    let room = server.create_room(json!({})).await;
    let mut spectator = server.client(&room).await;
    let mut ann = server.client(&room).await;
    let mut bob = server.client(&room).await;
    assert_eq!(ann.join(Some("first"), "Ann").await, "first");
    assert_eq!(bob.join(Some("middle"), "Bob").await, "middle");

    // Proposals are cleared when the seats change.
    ann.send(json!({"type": "propose_alliance", "seat": "middle"}))
        .await;
    let p = spectator.until_event("alliance_proposed").await;
    assert_eq!(
        p["event"],
        json!({"type": "alliance_proposed", "from": "first", "to": "middle"})
    );
    let mut cid = server.client(&room).await;
    assert_eq!(cid.join(None, "Cid").await, "last");
    let cleared = spectator.until_event("alliance_declined").await;
    assert_eq!(cleared["event"]["by"], Value::Null);
    bob.send(json!({"type": "accept_alliance"})).await;
    bob.expect_error("bad_alliance").await;

    // Declined by the seat proposed to.
    ann.send(json!({"type": "propose_alliance", "seat": "middle"}))
        .await;
    spectator.until_event("alliance_proposed").await;
    bob.send(json!({"type": "decline_alliance"})).await;
    let d = spectator.until_event("alliance_declined").await;
    assert_eq!(d["event"]["by"], "middle");

    // Proposed and accepted: Cid (the third) becomes First, Ann and Bob ally as M/L.
    cid.send(json!({"type": "propose_alliance", "seat": "last"}))
        .await;
    cid.expect_error("bad_alliance").await; // not to oneself
    ann.send(json!({"type": "propose_alliance", "seat": "middle"}))
        .await;
    spectator.until_event("alliance_proposed").await;
    bob.send(json!({"type": "accept_alliance"})).await;
    let agreed = spectator.until_event("alliance_agreed").await;
    assert_eq!(agreed["event"]["allies"], json!(["middle", "last"]));
    assert_eq!(agreed["event"]["first"], "first");
    let cid_seat = cid.until_type("seated").await;
    assert_eq!(cid_seat["seat"], "first");
    let ann_seat = ann.until_type("seated").await["seat"]
        .as_str()
        .unwrap()
        .to_string();
    let bob_seat = bob.until_type("seated").await["seat"]
        .as_str()
        .unwrap()
        .to_string();
    let mut allies = vec![ann_seat.clone(), bob_seat.clone()];
    allies.sort();
    assert_eq!(allies, vec!["last", "middle"]);
    ann.send(json!({"type": "propose_alliance", "seat": "first"}))
        .await;
    ann.expect_error("bad_alliance").await; // already agreed

    // Tokens follow their person: Bob resumes on a new connection into his new seat.
    let bob_token = bob.token.clone().unwrap();
    bob.close().await;
    spectator.until_event("player_left").await;
    let mut bob = server.client(&room).await;
    bob.send(json!({"type": "resume", "token": bob_token}))
        .await;
    assert_eq!(bob.until_type("seated").await["seat"], bob_seat.as_str());

    for p in [&mut ann, &mut bob, &mut cid] {
        p.send(json!({"type": "ready"})).await;
    }
    spectator.until_event("game_started").await;
    let formed = spectator.until_event("alliance_formed").await;
    assert_eq!(
        formed["event"],
        json!({"type": "alliance_formed", "allies": ["Middle", "Last"], "cause": "voluntary"})
    );
    let st = spectator
        .until("playing", |v| {
            v["type"] == "state" && v["status"] == "playing"
        })
        .await;
    let vol = Position::voluntary_alliance_start().to_string();
    assert_eq!(st["start_position"], vol);
    assert_eq!(st["position"], vol);
    assert_eq!(st["to_move"], "first");
    assert_eq!(st["seats"]["first"]["name"], "Cid");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn abandonment_after_grace_period() {
    let (db, server) = sqlite_server().await;
    let mut t = Table::new(&server, json!({})).await;
    // First (to move) disconnects; the countdown starts for everyone.
    let first = t.players.remove(0);
    first.close().await;
    let left = t.spectator.until_event("player_left").await;
    assert_eq!(
        left["event"],
        json!({"type": "player_left", "seat": "first", "grace_seconds": 1.0})
    );
    let f = t.spectator.until_event("forfeited").await;
    assert_eq!(
        f["event"],
        json!({"type": "forfeited", "player": "first", "reason": "abandoned"})
    );
    let el = t.spectator.until_event("eliminated").await;
    assert_eq!(el["event"]["player"], "First");
    assert_eq!(el["event"]["reason"], "abandoned");
    let st = t.spectator.until_type("state").await;
    assert_eq!(st["to_move"], "middle");
    assert_eq!(st["status"], "playing");
    server.stop().await;
    // It was stored: a restarted server still has First eliminated.
    let server = TestServer::start(test_config(db.url())).await;
    let (_, details) = server.get_json(&format!("/api/rooms/{}", t.room)).await;
    assert_eq!(details["to_move"], "middle");
    assert_eq!(
        details["position"]
            .as_str()
            .unwrap()
            .split(' ')
            .nth(3)
            .unwrap(),
        "ML"
    );
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn waiting_seat_freed_after_grace_and_leave() {
    let (_db, server) = sqlite_server().await;
    let room = server.create_room(json!({})).await;
    let mut watcher = server.client(&room).await;
    let mut a = server.client(&room).await;
    a.join(Some("last"), "Ann").await;
    a.close().await;
    watcher.until_event("player_left").await;
    let freed = watcher.until_event("seat_freed").await;
    assert_eq!(freed["event"]["seat"], "last");
    let mut b = server.client(&room).await;
    assert_eq!(b.join(Some("last"), "Bob").await, "last");
    b.send(json!({"type": "leave"})).await;
    let st = b.until_type("state").await;
    assert_eq!(st["you"], Value::Null);
    assert_eq!(st["seats"]["last"], Value::Null);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn malformed_oversized_and_binary_frames() {
    let limits = LimitArgs {
        max_message_bytes: 1024,
        ..LimitArgs::default()
    };
    let (_db, server) = server_with(limits).await;
    let room = server.create_room(json!({})).await;
    let mut c = server.client(&room).await;
    // Over the message limit: an error, the connection stays.
    let big = json!({"type": "join", "name": "x".repeat(2000)}).to_string();
    c.send_raw(Message::Text(big.into())).await;
    let e = c.expect_error("bad_message").await;
    assert!(e["message"].as_str().unwrap().contains("too large"), "{e}");
    c.send_raw(Message::Binary(vec![1, 2, 3].into())).await;
    c.expect_error("bad_message").await;
    c.send_raw(Message::Text("\u{0}\u{1}".into())).await;
    c.expect_error("bad_message").await;
    // Name too long (limit 32 characters).
    c.send(json!({"type": "join", "name": "n".repeat(33)}))
        .await;
    let e = c.expect_error("bad_message").await;
    assert!(e["message"].as_str().unwrap().contains("name"), "{e}");
    assert_eq!(c.sync().await["type"], "state");
    // Far over the hard cap (64 KiB): the socket is closed, the server lives on.
    c.send_raw(Message::Text("y".repeat(200_000).into())).await;
    c.expect_closed().await;
    let (code, _) = server.get_json("/api/rooms").await;
    assert_eq!(code, 200);
    let mut d = server.client(&room).await;
    assert_eq!(d.sync().await["type"], "state");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn flood_beyond_rate_limit() {
    let limits = LimitArgs {
        rate_per_second: 5.0,
        rate_burst: 5,
        ..LimitArgs::default()
    };
    let (_db, server) = server_with(limits).await;
    let room = server.create_room(json!({})).await;
    let mut c = server.client(&room).await;
    for _ in 0..40 {
        c.send(json!({"type": "ping"})).await;
    }
    let mut pongs = 0;
    let mut limited = 0;
    while pongs + limited < 40 {
        let v = c.recv().await;
        match (v["type"].as_str(), v["code"].as_str()) {
            (Some("pong"), _) => pongs += 1,
            (Some("error"), Some("rate_limited")) => limited += 1,
            other => panic!("unexpected {other:?}"),
        }
    }
    assert!(
        (5..15).contains(&pongs),
        "about the burst got through: {pongs}"
    );
    assert!(limited > 20);
    tokio::time::sleep(Duration::from_millis(1200)).await;
    assert_eq!(
        c.sync().await["type"],
        "state",
        "usable again after a pause"
    );
    let (_, _) = server.get_json("/healthz").await;
    let metrics = reqwest::get(server.url("/metrics"))
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(metrics.contains("sannin_rate_limited_total"));
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn room_limits() {
    let limits = LimitArgs {
        max_rooms: 2,
        max_connections_per_room: 2,
        ..LimitArgs::default()
    };
    let (_db, server) = server_with(limits).await;
    let room = server.create_room(json!({})).await;
    server.create_room(json!({})).await;
    let r = reqwest::Client::new()
        .post(server.url("/api/rooms"))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 429);
    let v: Value = r.json().await.unwrap();
    assert_eq!(v["error"]["code"], "too_many_rooms");
    let _a = server.client(&room).await;
    let _b = server.client(&room).await;
    let (mut ws, _) = tokio_tungstenite::connect_async(server.ws_url(&room))
        .await
        .unwrap();
    use futures_util::StreamExt;
    let m = ws.next().await.unwrap().unwrap();
    let v: Value = serde_json::from_str(m.to_text().unwrap()).unwrap();
    assert_eq!(v["code"], "room_full");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http_surfaces_and_unknown_rooms() {
    let static_dir = tempfile::tempdir().unwrap();
    std::fs::write(
        static_dir.path().join("index.html"),
        "<!doctype html><title>sannin</title>",
    )
    .unwrap();
    std::fs::write(static_dir.path().join("app.js"), "export {};").unwrap();
    let db = TestDb::sqlite();
    let mut config = test_config(db.url());
    config.static_dir = static_dir.path().to_path_buf();
    let server = TestServer::start(config).await;

    let (code, _) = server.get_json("/healthz").await;
    assert_eq!(code, 200);
    let id = server.create_room(json!({})).await;
    let (code, list) = server.get_json("/api/rooms").await;
    assert_eq!(code, 200);
    let entry = list
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["id"] == id.as_str())
        .unwrap()
        .clone();
    assert_eq!(entry["status"], "waiting");
    assert_eq!(entry["spectators"], 0);
    assert_eq!(
        entry["seats"],
        json!({"first": null, "middle": null, "last": null})
    );
    let (code, details) = server.get_json(&format!("/api/rooms/{id}")).await;
    assert_eq!(code, 200);
    assert_eq!(details["position"], Position::start().to_string());
    assert_eq!(details["moves"], json!([]));
    assert_eq!(details["result"], Value::Null);

    // Unknown rooms: JSON 404s, and no WebSocket.
    for path in [
        format!("/api/rooms/{}", uuid::Uuid::new_v4()),
        format!("/api/rooms/{}/record", uuid::Uuid::new_v4()),
        "/api/rooms/not-a-uuid".to_string(),
    ] {
        let (code, v) = server.get_json(&path).await;
        assert_eq!(code, 404, "{path}");
        assert_eq!(v["error"]["code"], "room_not_found");
        assert!(v["error"]["message"].is_string());
    }
    let err =
        tokio_tungstenite::connect_async(server.ws_url(&uuid::Uuid::new_v4().to_string())).await;
    assert!(err.is_err(), "no websocket for an unknown room");

    // Bad bodies and positions.
    let c = reqwest::Client::new();
    let r = c
        .post(server.url("/api/rooms"))
        .body("{oops")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 400);
    let r = c
        .post(server.url("/api/rooms"))
        .json(&json!({"position": "not a position"}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 400);
    assert_eq!(
        r.json::<Value>().await.unwrap()["error"]["code"],
        "bad_position"
    );

    // Static client.
    let index = reqwest::get(server.url("/")).await.unwrap();
    assert_eq!(index.status().as_u16(), 200);
    assert!(index.text().await.unwrap().contains("sannin"));
    let room_page = reqwest::get(server.url(&format!("/rooms/{id}")))
        .await
        .unwrap();
    assert_eq!(room_page.status().as_u16(), 200);
    assert!(room_page.text().await.unwrap().contains("<title>sannin"));
    let js = reqwest::get(server.url("/app.js")).await.unwrap();
    assert_eq!(js.status().as_u16(), 200);

    let metrics = reqwest::get(server.url("/metrics"))
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(
        metrics.contains("sannin_rooms{status=\"waiting\"} 1"),
        "{metrics}"
    );
    assert!(metrics.contains("sannin_action_latency_seconds_bucket"));
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn slow_client_is_dropped_and_can_resume() {
    let limits = LimitArgs {
        send_queue: 8,
        rate_per_second: 1e6,
        rate_burst: 1_000_000,
        grace_seconds: 30.0,
        ..LimitArgs::default()
    };
    let (_db, server) = server_with(limits).await;
    let room = server.create_room(json!({})).await;
    let mut watcher = server.client(&room).await;
    let mut slow = server.client(&room).await;
    slow.join(Some("first"), "Slow").await;
    let token = slow.token.clone().unwrap();
    // It asks for state after state and never reads them.
    let sync = json!({"type": "sync"}).to_string();
    let flood = async {
        for _ in 0..30_000 {
            if futures_util::SinkExt::send(&mut slow.ws, Message::Text(sync.clone().into()))
                .await
                .is_err()
            {
                break;
            }
        }
    };
    let dropped = async {
        let left = watcher.until_event("player_left").await;
        assert_eq!(left["event"]["seat"], "first");
    };
    tokio::join!(flood, dropped);
    // The room never stalled for the others, and the slow player can come back.
    assert_eq!(watcher.sync().await["type"], "state");
    let metrics = reqwest::get(server.url("/metrics"))
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(
        metrics.contains("sannin_slow_clients_dropped_total 1"),
        "{metrics}"
    );
    let mut back = server.client(&room).await;
    back.send(json!({"type": "resume", "token": token})).await;
    assert_eq!(back.until_type("seated").await["seat"], "first");
    server.stop().await;
}
