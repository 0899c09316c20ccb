//! Issue 7 over real sockets: clocks (on a hand-driven time source, no sleeps),
//! lag credit, clocks across a restart, draws by agreement, chat channels and limits,
//! rematch with rotated seats, private rooms, and the state's new fields.

mod common;

use std::sync::Arc;
use std::time::Duration;

use common::*;
use sannin_rules::{Game, Position};
use sannin_server::{Config, LimitArgs, ManualTime};
use serde_json::{json, Value};
use tokio_tungstenite::tungstenite::Message;

/// Time-source ms at which every manual clock starts (a pong stamp must be ≥ 0).
const T0: u64 = 1_000_000;

fn limits() -> LimitArgs {
    LimitArgs {
        grace_seconds: 30.0,
        rate_per_second: 1000.0,
        rate_burst: 1000,
        finished_idle_seconds: 30.0,
        // Clock tests that are not about lag: no credit, so charges are exact.
        lag_credit_max_ms: 0,
        ..LimitArgs::default()
    }
}

async fn start(db: &TestDb, limits: &LimitArgs) -> (TestServer, ManualTime) {
    let time = ManualTime::new(T0);
    let config = Config::new(db.url())
        .with_limits(limits)
        .with_time(Arc::new(time.clone()));
    (TestServer::start(config).await, time)
}

fn remaining(v: &Value, seat: &str) -> u64 {
    v["clocks"][seat]["remaining_ms"]
        .as_u64()
        .unwrap_or_else(|| panic!("clocks.{seat}.remaining_ms in {v}"))
}

/// The `action` event after `t.play(action)`, as the spectator saw it.
fn last_event(c: &Client, kind: &str) -> Value {
    c.events
        .iter()
        .rev()
        .find(|e| e.1["type"] == kind)
        .map(|e| e.1.clone())
        .unwrap_or_else(|| panic!("no {kind} event"))
}

/// A legal action of the player to move (the first pawn push the server offers).
fn some_action(state: &Value) -> String {
    state["legal"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a.as_str().unwrap().to_string())
        .find(|a| a.starts_with('P') && a.contains('-'))
        .expect("a pawn move")
}

impl Table {
    fn mover(&mut self) -> &mut Client {
        let tm = self.spectator.last_state.as_ref().unwrap()["to_move"]
            .as_str()
            .unwrap()
            .to_string();
        &mut self.players[seat_index(&tm)]
    }

    /// Plays any pawn move for the player to move.
    async fn play_any(&mut self) -> Value {
        let a = some_action(self.mover().last_state.as_ref().unwrap());
        self.play(&a).await
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sudden_death_clock_runs_and_flag_falls() {
    let db = TestDb::sqlite();
    let (server, time) = start(&db, &limits()).await;
    let mut t = Table::new(
        &server,
        json!({"clock": {"kind": "sudden_death", "main_seconds": 10}}),
    )
    .await;
    let st = t.spectator.last_state.clone().unwrap();
    assert_eq!(st["clocks"]["kind"], "sudden_death");
    assert_eq!(st["clocks"]["running"], "first");
    assert_eq!(remaining(&st, "first"), 10_000);
    let (_, details) = server.get_json(&format!("/api/rooms/{}", t.room)).await;
    assert_eq!(details["clock"]["main_ms"], 10_000);

    time.advance(Duration::from_millis(4_000));
    let st = t.play_any().await;
    let action = last_event(&t.spectator, "action");
    assert_eq!(remaining(&action, "first"), 6_000, "{action}");
    assert_eq!(action["clocks"]["running"], "middle");
    assert_eq!(remaining(&st, "first"), 6_000);
    assert_eq!(remaining(&st, "middle"), 10_000);

    // The state shows the running clock as of when it was sent.
    time.advance(Duration::from_millis(2_500));
    let st = t.spectator.sync().await;
    assert_eq!(remaining(&st, "middle"), 7_500);

    // Middle's 10 s run out: it loses on time (RULES §12.10).
    time.advance(Duration::from_millis(7_500));
    let f = t.spectator.until_event("forfeited").await;
    assert_eq!(f["event"]["player"], "middle");
    assert_eq!(f["event"]["reason"], "timeout");
    assert_eq!(remaining(&f["event"], "middle"), 0);
    let el = t.spectator.until_event("eliminated").await;
    assert_eq!(el["event"]["reason"], "timeout");
    let st = t.spectator.until_type("state").await;
    assert_eq!(st["to_move"], "last");
    assert_eq!(st["clocks"]["running"], "last");
    // A move that arrives after the flag fell loses too, even before the timer fires.
    time.advance(Duration::from_millis(10_000));
    let mover = &mut t.players[2];
    let st = mover
        .until("last to move", |v| {
            v["type"] == "state" && v["to_move"] == "last"
        })
        .await;
    let a = some_action(&st);
    mover.send(json!({"type": "act", "action": a})).await;
    let f = t.spectator.until_event("forfeited").await;
    assert_eq!(f["event"]["player"], "last");
    let st = t
        .spectator
        .until("finished", |v| {
            v["type"] == "state" && v["status"] == "finished"
        })
        .await;
    assert_eq!(st["result"]["winners"], json!(["First"]));
    assert_eq!(st["clocks"]["running"], Value::Null);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fischer_increment_and_byoyomi_periods() {
    let db = TestDb::sqlite();
    let (server, time) = start(&db, &limits()).await;
    let mut t = Table::new(
        &server,
        json!({"clock": {"kind": "fischer", "main_seconds": 60, "increment_seconds": 5}}),
    )
    .await;
    time.advance(Duration::from_millis(10_000));
    let st = t.play_any().await;
    assert_eq!(remaining(&st, "first"), 55_000);
    t.play_any().await;
    t.play_any().await;
    time.advance(Duration::from_millis(1_000));
    let st = t.play_any().await;
    assert_eq!(remaining(&st, "first"), 59_000, "55 s + 5 s - 1 s");

    // Byoyomi: 2 s main, then 2 periods of 5 s.
    let mut t = Table::new(
        &server,
        json!({"clock": {"kind": "byoyomi", "main_seconds": 2, "byoyomi_seconds": 5, "periods": 2}}),
    )
    .await;
    let st = t.spectator.last_state.clone().unwrap();
    assert_eq!(st["clocks"]["first"]["periods"], 2);
    assert_eq!(st["clocks"]["first"]["period_ms"], 5_000);
    // 8 s: main time gone, one period lost, the move is made within the second.
    time.advance(Duration::from_millis(8_000));
    let st = t.play_any().await;
    assert_eq!(remaining(&st, "first"), 0);
    assert_eq!(st["clocks"]["first"]["periods"], 1);
    assert_eq!(
        st["clocks"]["first"]["period_ms"], 5_000,
        "the period resets"
    );
    // Middle moves within its main time, Last within its first period (kept).
    time.advance(Duration::from_millis(1_000));
    t.play_any().await;
    time.advance(Duration::from_millis(6_000));
    let st = t.play_any().await;
    assert_eq!(st["clocks"]["last"]["periods"], 2);
    // First has one period left: 4 s in, the state shows 1 s of it.
    time.advance(Duration::from_millis(4_000));
    let st = t.spectator.sync().await;
    assert_eq!(st["clocks"]["first"]["period_ms"], 1_000);
    time.advance(Duration::from_millis(1_000));
    let f = t.spectator.until_event("forfeited").await;
    assert_eq!(f["event"]["player"], "first");
    assert_eq!(f["event"]["reason"], "timeout");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lag_credit_is_the_measured_round_trip_capped() {
    let db = TestDb::sqlite();
    let l = LimitArgs {
        lag_credit_max_ms: 1_000,
        ..limits()
    };
    let (server, time) = start(&db, &l).await;
    let mut t = Table::new(
        &server,
        json!({"clock": {"kind": "sudden_death", "main_seconds": 60}}),
    )
    .await;
    // First thinks 3 s; its connection's round trip is measured at 400 ms (a pong
    // carries back the server's ping stamp), so 2.6 s are charged.
    time.advance(Duration::from_millis(3_000));
    let stamp = T0 + 3_000 - 400;
    t.players[0]
        .send_raw(Message::Pong(stamp.to_be_bytes().to_vec().into()))
        .await;
    let st = t.play_any().await;
    assert_eq!(remaining(&st, "first"), 57_400);
    // Middle's round trip of 5 s is credited only up to the 1 s cap.
    time.advance(Duration::from_millis(3_000));
    let stamp = T0 + 6_000 - 5_000;
    t.players[1]
        .send_raw(Message::Pong(stamp.to_be_bytes().to_vec().into()))
        .await;
    let st = t.play_any().await;
    assert_eq!(remaining(&st, "middle"), 58_000);
    // A pong from the future or of the wrong size is ignored (no credit from it).
    t.players[2]
        .send_raw(Message::Pong((T0 + 99_000).to_be_bytes().to_vec().into()))
        .await;
    t.players[2]
        .send_raw(Message::Pong(vec![1, 2, 3].into()))
        .await;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn restart_restores_clocks_without_charging_downtime() {
    let db = TestDb::sqlite();
    let (server, time) = start(&db, &limits()).await;
    let mut t = Table::new(
        &server,
        json!({"clock": {"kind": "sudden_death", "main_seconds": 60}}),
    )
    .await;
    time.advance(Duration::from_millis(5_000));
    t.play_any().await;
    time.advance(Duration::from_millis(7_000));
    t.play_any().await;
    // Last thinks 3 s, then the server dies.
    time.advance(Duration::from_millis(3_000));
    let tokens: Vec<String> = t.players.iter().map(|p| p.token.clone().unwrap()).collect();
    let room = t.room.clone();
    server.kill();
    drop(t);

    let (server, time) = start(&db, &limits()).await;
    let mut c = server.client(&room).await;
    c.send(json!({"type": "resume", "token": tokens[2]})).await;
    let st = c.until_type("state").await;
    assert_eq!(remaining(&st, "first"), 55_000);
    assert_eq!(remaining(&st, "middle"), 53_000);
    assert_eq!(st["clocks"]["running"], "last");
    assert_eq!(
        remaining(&st, "last"),
        60_000,
        "the downtime is not charged"
    );
    time.advance(Duration::from_millis(2_000));
    let st = c.sync().await;
    assert_eq!(remaining(&st, "last"), 58_000);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn draw_offer_decline_withdraw_expiry_and_agreement() {
    let db = TestDb::sqlite();
    let (server, _time) = start(&db, &limits()).await;
    let mut t = Table::new(&server, json!({})).await;

    // Nothing to accept, decline or withdraw yet.
    for kind in ["accept_draw", "decline_draw", "withdraw_draw"] {
        t.players[1].send(json!({"type": kind})).await;
        t.players[1].expect_error("no_draw_offer").await;
    }
    t.spectator.send(json!({"type": "offer_draw"})).await;
    t.spectator.expect_error("not_seated").await;

    // Offer, declined.
    t.players[0].send(json!({"type": "offer_draw"})).await;
    let e = t.spectator.until_event("draw_offered").await;
    assert_eq!(e["event"]["seat"], "first");
    t.players[1].send(json!({"type": "decline_draw"})).await;
    let e = t.spectator.until_event("draw_declined").await;
    assert_eq!(e["event"]["seat"], "middle");
    assert_eq!(t.spectator.sync().await["draw_offers"], json!([]));

    // Offer, withdrawn.
    t.players[2].send(json!({"type": "offer_draw"})).await;
    t.spectator.until_event("draw_offered").await;
    t.players[2].send(json!({"type": "withdraw_draw"})).await;
    let e = t.spectator.until_event("draw_withdrawn").await;
    assert_eq!(e["event"]["seat"], "last");

    // Offer, then an action: the offer expires.
    t.players[1].send(json!({"type": "offer_draw"})).await;
    t.spectator.until_event("draw_offered").await;
    t.play_any().await;
    assert!(t
        .spectator
        .events
        .iter()
        .any(|e| e.1["type"] == "draw_expired"));
    assert_eq!(
        t.spectator.last_state.as_ref().unwrap()["draw_offers"],
        json!([])
    );

    // Offer, accepted by both others: drawn.
    t.players[0].send(json!({"type": "offer_draw"})).await;
    t.spectator.until_event("draw_offered").await;
    t.players[1].send(json!({"type": "accept_draw"})).await;
    let e = t.spectator.until_event("draw_offered").await;
    assert_eq!(e["event"]["seat"], "middle");
    t.players[2].send(json!({"type": "accept_draw"})).await;
    t.spectator.until_event("draw_agreed").await;
    let st = t
        .spectator
        .until("finished", |v| {
            v["type"] == "state" && v["status"] == "finished"
        })
        .await;
    assert_eq!(st["result"]["reason"], "draw_agreed");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chat_channels_history_and_limits() {
    let db = TestDb::sqlite();
    let l = LimitArgs {
        chat_max_chars: 20,
        chat_burst: 3,
        chat_per_minute: 0.01,
        ..limits()
    };
    let (server, _time) = start(&db, &l).await;
    let mut t = Table::new(&server, json!({})).await;
    // The table's spectator never sent `watch`: it may not chat yet.
    t.spectator
        .send(json!({"type": "chat", "text": "hi"}))
        .await;
    t.spectator.expect_error("not_seated").await;
    t.spectator
        .send(json!({"type": "watch", "name": "Zed"}))
        .await;
    let h = t.spectator.until_type("chat_history").await;
    assert_eq!(h["messages"], json!([]));

    t.players[0]
        .send(json!({"type": "chat", "text": "  good luck  "}))
        .await;
    for c in t
        .players
        .iter_mut()
        .chain(std::iter::once(&mut t.spectator))
    {
        let m = c.until_type("chat").await;
        assert_eq!(m["channel"], "players");
        assert_eq!(m["seat"], "first");
        assert_eq!(m["name"], "player0");
        assert_eq!(m["text"], "good luck");
    }
    t.spectator
        .send(json!({"type": "chat", "text": "First should take 10k"}))
        .await;
    t.spectator.expect_error("chat_too_long").await;
    t.spectator
        .send(json!({"type": "chat", "text": "take 10k!"}))
        .await;
    let m = t.spectator.until_type("chat").await;
    assert_eq!(m["channel"], "spectators");
    assert_eq!(m["name"], "Zed");
    assert_eq!(m["seat"], Value::Null);
    // Players never get it: the next chat they see is Middle's.
    t.players[1]
        .send(json!({"type": "chat", "text": "gl"}))
        .await;
    for p in t.players.iter_mut() {
        let m = p.until_type("chat").await;
        assert_eq!(m["text"], "gl", "players do not see spectator chat");
    }
    // Late joiners get the history they may see.
    let mut late = server.client(&t.room).await;
    late.send(json!({"type": "watch"})).await;
    let h = late.until_type("chat_history").await;
    let texts: Vec<&str> = h["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["text"].as_str().unwrap())
        .collect();
    assert_eq!(texts, ["good luck", "take 10k!", "gl"]);
    let token = t.players[0].token.clone().unwrap();
    let mut back = server.client(&t.room).await;
    back.send(json!({"type": "resume", "token": token})).await;
    let h = back.until_type("chat_history").await;
    let texts: Vec<&str> = h["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["text"].as_str().unwrap())
        .collect();
    assert_eq!(texts, ["good luck", "gl"]);
    // Rate limit: a burst of 3, then refused.
    let mut c = back;
    c.send(json!({"type": "chat", "text": "1"})).await;
    c.send(json!({"type": "chat", "text": "2"})).await;
    c.send(json!({"type": "chat", "text": "3"})).await;
    c.send(json!({"type": "chat", "text": "4"})).await;
    c.expect_error("rate_limited").await;
    // Text only: control characters are refused; an empty message too.
    t.players[2]
        .send(json!({"type": "chat", "text": "a\u{1b}[31m"}))
        .await;
    t.players[2].expect_error("bad_message").await;
    t.players[2]
        .send(json!({"type": "chat", "text": "   "}))
        .await;
    t.players[2].expect_error("bad_message").await;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rematch_rotates_seats_and_keeps_tokens() {
    let db = TestDb::sqlite();
    let (server, _time) = start(&db, &limits()).await;
    let clock = json!({"kind": "fischer", "main_seconds": 300, "increment_seconds": 3});
    let mut t = Table::new(&server, json!({"clock": clock, "private": true})).await;
    t.players[0].send(json!({"type": "rematch"})).await;
    t.players[0].expect_error("game_not_running").await;
    t.players[0].send(json!({"type": "resign"})).await;
    t.spectator.until_event("resigned").await;
    t.players[1].send(json!({"type": "resign"})).await;
    t.spectator
        .until("finished", |v| {
            v["type"] == "state" && v["status"] == "finished"
        })
        .await;
    t.spectator.send(json!({"type": "rematch"})).await;
    t.spectator.expect_error("not_seated").await;
    t.players[0].send(json!({"type": "rematch"})).await;
    let e = t.spectator.until_event("rematch_requested").await;
    assert_eq!(e["event"]["seat"], "first");
    t.players[0].send(json!({"type": "cancel_rematch"})).await;
    t.spectator.until_event("rematch_cancelled").await;
    for p in t.players.iter_mut() {
        p.send(json!({"type": "rematch"})).await;
    }
    let e = t.spectator.until_event("rematch_started").await;
    let new_room = e["event"]["room"].as_str().unwrap().to_string();
    assert_eq!(
        e["event"]["moved"],
        json!([{"from": "first", "to": "middle"}, {"from": "middle", "to": "last"}, {"from": "last", "to": "first"}])
    );
    let st = t.spectator.until_type("state").await;
    assert_eq!(st["rematch"]["room"], new_room.as_str());

    let (code, details) = server.get_json(&format!("/api/rooms/{new_room}")).await;
    assert_eq!(code, 200);
    assert_eq!(details["private"], true);
    assert_eq!(details["clock"]["increment_ms"], 3_000);
    assert_eq!(details["seats"]["middle"]["name"], "player0");
    // Each player resumes the new room with its old token and sits one seat on.
    let mut news = Vec::new();
    for (i, p) in t.players.iter().enumerate() {
        let mut c = server.client(&new_room).await;
        c.send(json!({"type": "resume", "token": p.token.clone().unwrap()}))
            .await;
        let s = c.until_type("seated").await;
        assert_eq!(s["seat"], SEATS[(i + 1) % 3]);
        news.push(c);
    }
    // All three back and ready: the game starts with the same clock.
    let st = news[0]
        .until("playing", |v| {
            v["type"] == "state" && v["status"] == "playing"
        })
        .await;
    assert_eq!(st["clocks"]["increment_ms"], 3_000);
    assert_eq!(st["rematch"]["of"], t.room.as_str());
    assert_eq!(st["seats"]["first"]["name"], "player2");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn private_rooms_and_bad_clocks() {
    let db = TestDb::sqlite();
    let (server, _time) = start(&db, &limits()).await;
    let public = server.create_room(json!({})).await;
    let private = server.create_room(json!({"private": true})).await;
    let (_, list) = server.get_json("/api/rooms").await;
    let ids: Vec<&str> = list
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_str().unwrap())
        .collect();
    assert!(ids.contains(&public.as_str()));
    assert!(
        !ids.contains(&private.as_str()),
        "private rooms are not listed"
    );
    let (code, details) = server.get_json(&format!("/api/rooms/{private}")).await;
    assert_eq!(code, 200);
    assert_eq!(details["private"], true);
    let mut c = server.client(&private).await;
    assert_eq!(c.join(Some("first"), "Ann").await, "first");

    let http = reqwest::Client::new();
    for body in [
        json!({"clock": {"kind": "fischer", "main_seconds": 60}}),
        json!({"clock": {"kind": "sudden_death"}}),
        json!({"clock": {"kind": "sudden_death", "main_seconds": 0}}),
        json!({"clock": {"kind": "byoyomi", "main_seconds": 60}}),
        json!({"clock": {"kind": "byoyomi", "byoyomi_seconds": 10, "periods": 99}}),
        json!({"clock": {"kind": "hourglass", "main_seconds": 60}}),
        json!({"clock": {"kind": "sudden_death", "main_seconds": 1e9}}),
    ] {
        let r = http
            .post(server.url("/api/rooms"))
            .json(&body)
            .send()
            .await
            .unwrap();
        assert_eq!(r.status().as_u16(), 400, "{body}");
        let v: Value = r.json().await.unwrap();
        assert_eq!(v["error"]["code"], "bad_clock", "{body}: {v}");
        assert!(v["error"]["message"].as_str().unwrap().contains("clock"));
    }
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn state_has_checks_move_players_and_abandon_deadlines() {
    let actions = tokio::task::spawn_blocking(|| {
        search_game(Position::start(), 400, 0..40, |events, _| {
            events.iter().any(|e| e["type"] == "check")
        })
    })
    .await
    .unwrap()
    .expect("a game with a check");
    // Play up to the first action that gives check.
    let mut g = Game::new();
    let mut upto = 0;
    let mut checked = String::new();
    for (i, a) in actions.iter().enumerate() {
        let p = g.to_move().unwrap();
        let played = g.play_notation(p, a).unwrap();
        if let Some(e) = played.events.iter().find_map(|e| {
            let v = serde_json::to_value(e).unwrap();
            (v["type"] == "check").then_some(v)
        }) {
            upto = i + 1;
            checked = e["player"].as_str().unwrap().to_lowercase();
            break;
        }
    }
    let db = TestDb::sqlite();
    let (server, _time) = start(&db, &limits()).await;
    let mut t = Table::new(&server, json!({})).await;
    for a in &actions[..upto] {
        t.play(a).await;
    }
    let st = t.spectator.sync().await;
    assert_eq!(st["in_check"], json!([checked]));
    let mp = st["move_players"].as_array().unwrap();
    assert_eq!(mp.len(), upto);
    assert_eq!(mp[0], "first");
    assert_eq!(st["clocks"], Value::Null);
    assert_eq!(st["seats"]["first"]["abandon_at_ms"], Value::Null);
    // A player who leaves gets an abandonment deadline: now + grace (30 s).
    let before = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64;
    let i = (upto + 1) % 3; // not the player to move
    let gone = t.players.remove(i);
    gone.close().await;
    t.spectator.until_event("player_left").await;
    let st = t.spectator.sync().await;
    let at = st["seats"][SEATS[i]]["abandon_at_ms"].as_i64().unwrap();
    assert!(
        at >= before + 29_000 && at <= before + 32_000,
        "{at} vs {before}"
    );
    server.stop().await;
}
