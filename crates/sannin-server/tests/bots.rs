//! Issue 6 over real sockets: bot seats chosen at creation or added and removed in a
//! waiting room, a game of one human against two bots played to its end, bot
//! takeover after an abandonment (and the human taking the seat back), bots across
//! a server restart, and the hard per-move limit that keeps a bot from stalling a
//! room.

mod common;

use std::time::{Duration, Instant};

use common::*;
use sannin_server::{Config, LimitArgs};
use serde_json::{json, Value};

fn limits() -> LimitArgs {
    LimitArgs {
        grace_seconds: 1.0,
        rate_per_second: 1000.0,
        rate_burst: 1000,
        finished_idle_seconds: 30.0,
        // No pacing: bots answer as fast as they choose.
        bot_min_move_ms: 0,
        ..LimitArgs::default()
    }
}

fn config(db: &TestDb, limits: &LimitArgs) -> Config {
    Config::new(db.url()).with_limits(limits)
}

async fn post(server: &TestServer, body: Value) -> (u16, Value) {
    let r = reqwest::Client::new()
        .post(server.url("/api/rooms"))
        .json(&body)
        .send()
        .await
        .expect("POST /api/rooms");
    let status = r.status().as_u16();
    (status, r.json().await.unwrap_or(Value::Null))
}

async fn metric(server: &TestServer, name: &str) -> f64 {
    let text = reqwest::get(server.url("/metrics"))
        .await
        .expect("GET /metrics")
        .text()
        .await
        .expect("text");
    text.lines()
        .find_map(|l| l.strip_prefix(name)?.strip_prefix(' ')?.trim().parse().ok())
        .unwrap_or_else(|| panic!("no {name} in /metrics:\n{text}"))
}

fn moves(state: &Value) -> usize {
    state["moves"].as_array().map(Vec::len).unwrap_or(0)
}

/// Joins `seat` and readies.
async fn human(server: &TestServer, room: &str, seat: &str) -> Client {
    let mut c = server.client(room).await;
    assert_eq!(c.join(Some(seat), "Human").await, seat);
    c.send(json!({"type": "ready"})).await;
    c
}

/// As the seated human: waits for its turn and plays a random legal action, then
/// waits for the state of that action. Returns that state, or `None` when the game
/// ended first.
async fn play_one(c: &mut Client, rng: &mut Rng) -> Option<Value> {
    let me = c.seat.clone().expect("seated");
    // Catch up first: every message before the `pong` is older than it, so the last
    // state then is the room's current one (a test may not have read this client's
    // messages for a while).
    c.send(json!({"type": "ping"})).await;
    c.until_type("pong").await;
    let mut s = c.last_state.clone();
    loop {
        if let Some(st) = &s {
            if st["status"] == "finished" {
                return None;
            }
            let legal = st["legal"].as_array().cloned().unwrap_or_default();
            if st["status"] == "playing" && st["to_move"] == me.as_str() && !legal.is_empty() {
                let m = moves(st);
                let a = legal[rng.pick(legal.len())].as_str().unwrap().to_string();
                c.send(json!({"type": "act", "action": a})).await;
                let after = c
                    .until("the state of my action", |v| {
                        v["type"] == "error" || (v["type"] == "state" && moves(v) > m)
                    })
                    .await;
                assert_eq!(after["type"], "state", "{after}");
                return Some(after);
            }
        }
        s = Some(c.until_type("state").await);
    }
}

/// Plays random legal actions on every turn until the game ends; the final state.
async fn play_out(c: &mut Client, rng: &mut Rng) -> Value {
    while play_one(c, rng).await.is_some() {
        let n = moves(c.last_state.as_ref().unwrap());
        assert!(n < 800, "the game should have ended by now ({n} plies)");
    }
    c.last_state.clone().unwrap()
}

// ---- creation ------------------------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bot_seats_at_creation_are_validated_listed_and_ready() {
    let db = TestDb::sqlite();
    let server = TestServer::start(config(&db, &limits())).await;
    for (body, needle) in [
        (json!({"bots": {"middle": 4}}), "0 to 3"),
        (json!({"bots": {"middle": -1}}), "0 to 3"),
        (json!({"bots": {"middle": "two"}}), "0 to 3"),
        (json!({"bots": {"centre": 1}}), "centre"),
        (json!({"bots": [1, 2]}), "object"),
        (json!({"bot_takeover": "yes"}), ""),
        (
            json!({"bot_takeover": true, "bot_takeover_level": 9}),
            "0 to 3",
        ),
    ] {
        let (code, v) = post(&server, body.clone()).await;
        assert_eq!(code, 400, "{body} → {v}");
        let code_name = v["error"]["code"].as_str().unwrap_or("");
        assert!(
            code_name == "bad_bots" || code_name == "bad_request",
            "{body} → {v}"
        );
        assert!(
            v["error"]["message"].as_str().unwrap().contains(needle),
            "{body} → {v}"
        );
    }
    let (code, v) = post(&server, json!({"bots": {"middle": 2, "last": null}})).await;
    assert_eq!(code, 201, "{v}");
    let room = v["id"].as_str().unwrap().to_string();
    let (_, details) = server.get_json(&format!("/api/rooms/{room}")).await;
    let middle = &details["seats"]["middle"];
    assert_eq!(middle["name"], "Bot (level 2)");
    assert_eq!(middle["bot"], 2);
    assert_eq!(middle["ready"], true);
    assert_eq!(details["seats"]["last"], Value::Null);
    assert_eq!(details["seats"]["first"], Value::Null);
    assert_eq!(details["status"], "waiting");
    let list = server.get_json("/api/rooms").await.1;
    let listed = list
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["id"] == room.as_str())
        .expect("listed")
        .clone();
    assert_eq!(listed["seats"]["middle"]["bot"], 2);
    // Nobody can join or resume a bot's seat.
    let mut c = server.client(&room).await;
    c.send(json!({"type": "join", "seat": "middle", "name": "x"}))
        .await;
    c.expect_error("seat_taken").await;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_room_of_three_bots_starts_at_once_and_plays() {
    let db = TestDb::sqlite();
    let server = TestServer::start(config(&db, &limits())).await;
    let room = server
        .create_room(json!({"bots": {"first": 0, "middle": 0, "last": 0}}))
        .await;
    let mut s = server.client(&room).await;
    s.send(json!({"type": "watch"})).await;
    let st = s
        .until("a few bot actions", |v| {
            v["type"] == "state" && (v["status"] == "finished" || moves(v) >= 6)
        })
        .await;
    assert_ne!(st["status"], "waiting");
    server.stop().await;
}

// ---- one human, two bots -------------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_human_and_two_bots_play_to_the_end() {
    let db = TestDb::sqlite();
    let server = TestServer::start(config(&db, &limits())).await;
    let room = server
        .create_room(json!({"bots": {"middle": 1, "last": 1}}))
        .await;
    let mut spectator = server.client(&room).await;
    let mut me = human(&server, &room, "first").await;
    me.until_event("game_started").await;
    let mut rng = Rng(0x5eed);
    let end = play_out(&mut me, &mut rng).await;
    assert_eq!(end["status"], "finished", "{end}");
    assert_ne!(end["result"], Value::Null);
    let st = spectator
        .until("the final state", |v| {
            v["type"] == "state" && v["status"] == "finished"
        })
        .await;
    assert_eq!(st["moves"], end["moves"]);
    // The bots' actions are ordinary `action` events, stored like a human's.
    for seat in ["middle", "last"] {
        assert!(
            spectator
                .events
                .iter()
                .any(|e| e.1["type"] == "action" && e.1["player"] == seat),
            "{seat} played"
        );
    }
    assert_eq!(
        me.events,
        spectator.events[spectator.events.len() - me.events.len()..]
    );
    let (_, details) = server.get_json(&format!("/api/rooms/{room}")).await;
    assert_eq!(details["moves"], end["moves"]);
    let record = reqwest::get(server.url(&format!("/api/rooms/{room}/record")))
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(!record.is_empty());
    assert!(metric(&server, "sannin_bot_moves_total").await >= 2.0);
    server.stop().await;
}

// ---- add / remove --------------------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bots_are_added_and_removed_in_a_waiting_room() {
    let db = TestDb::sqlite();
    let server = TestServer::start(config(&db, &limits())).await;
    let room = server.create_room(json!({})).await;
    let mut watcher = server.client(&room).await;
    watcher
        .send(json!({"type": "add_bot", "seat": "middle", "level": 1}))
        .await;
    watcher.expect_error("not_seated").await;

    let mut a = server.client(&room).await;
    assert_eq!(a.join(Some("first"), "Ann").await, "first");
    a.send(json!({"type": "add_bot", "seat": "middle", "level": 2}))
        .await;
    let ev = a.until_event("bot_added").await;
    assert_eq!(
        ev["event"],
        json!({"type": "bot_added", "seat": "middle", "level": 2, "name": "Bot (level 2)"})
    );
    let st = a.sync().await;
    assert_eq!(st["seats"]["middle"]["bot"], 2);
    assert_eq!(st["seats"]["middle"]["ready"], true);
    assert_eq!(st["seats"]["middle"]["connected"], true);
    assert_eq!(st["seats"]["first"]["bot"], Value::Null);

    for (msg, code) in [
        (
            json!({"type": "add_bot", "seat": "middle", "level": 1}),
            "seat_taken",
        ),
        (
            json!({"type": "add_bot", "seat": "first", "level": 1}),
            "seat_taken",
        ),
        (
            json!({"type": "add_bot", "seat": "last", "level": 4}),
            "bad_message",
        ),
        (
            json!({"type": "add_bot", "seat": "centre", "level": 1}),
            "bad_message",
        ),
        (json!({"type": "remove_bot", "seat": "first"}), "bad_bot"),
        (json!({"type": "remove_bot", "seat": "last"}), "bad_bot"),
        (
            json!({"type": "propose_alliance", "seat": "middle"}),
            "bad_alliance",
        ),
    ] {
        a.send(msg.clone()).await;
        let e = a.expect_error(code).await;
        assert!(!e["message"].as_str().unwrap().is_empty(), "{msg}");
    }

    a.send(json!({"type": "remove_bot", "seat": "middle"}))
        .await;
    let ev = a.until_event("bot_removed").await;
    assert_eq!(
        ev["event"],
        json!({"type": "bot_removed", "seat": "middle"})
    );
    assert_eq!(a.sync().await["seats"]["middle"], Value::Null);

    // A second human may add a bot too; the level defaults to 2.
    let mut b = server.client(&room).await;
    assert_eq!(b.join(Some("middle"), "Bob").await, "middle");
    b.send(json!({"type": "add_bot", "seat": "last"})).await;
    let ev = b.until_event("bot_added").await;
    assert_eq!(ev["event"]["level"], 2);
    // Removing a bot and adding one of another level.
    b.send(json!({"type": "remove_bot", "seat": "last"})).await;
    b.until_event("bot_removed").await;
    b.send(json!({"type": "add_bot", "seat": "last", "level": 0}))
        .await;
    b.until_event("bot_added").await;

    // Everyone human ready: the game starts, the bot is always ready.
    a.send(json!({"type": "ready"})).await;
    b.send(json!({"type": "ready"})).await;
    a.until_event("game_started").await;
    a.send(json!({"type": "add_bot", "seat": "last", "level": 1}))
        .await;
    a.expect_error("game_not_running").await;
    a.send(json!({"type": "remove_bot", "seat": "last"})).await;
    a.expect_error("game_not_running").await;

    // First and Middle play; the bot answers after Middle.
    let mut rng = Rng(3);
    play_one(&mut a, &mut rng).await.expect("first's turn");
    play_one(&mut b, &mut rng).await.expect("middle's turn");
    let st = a
        .until("the bot's answer", |v| {
            v["type"] == "state" && moves(v) == 3
        })
        .await;
    assert_eq!(st["move_players"], json!(["first", "middle", "last"]));
    watcher.sync().await;
    server.stop().await;
}

// ---- takeover ------------------------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_abandoning_player_is_replaced_by_a_bot_and_can_come_back() {
    let db = TestDb::sqlite();
    let l = LimitArgs {
        grace_seconds: 0.5,
        ..limits()
    };
    let server = TestServer::start(config(&db, &l)).await;
    let mut t = Table::new(
        &server,
        json!({"bot_takeover": true, "bot_takeover_level": 0}),
    )
    .await;
    let st = t.spectator.last_state.clone().unwrap();
    assert_eq!(st["bot_takeover"], true);
    let first_move = t.players[0].last_state.clone().unwrap()["legal"][0]
        .as_str()
        .unwrap()
        .to_string();
    let token = t.players[1].token.clone().unwrap();
    // Middle leaves; First moves; Middle's grace runs out on its turn.
    let middle = t.players.remove(1);
    middle.close().await;
    t.spectator.until_event("player_left").await;
    t.players[0]
        .send(json!({"type": "act", "action": first_move}))
        .await;
    let ev = t.spectator.until_event("bot_took_over").await;
    assert_eq!(ev["event"]["seat"], "middle");
    assert_eq!(ev["event"]["level"], 0);
    let st = t
        .spectator
        .until("the bot's move for middle", |v| {
            v["type"] == "state" && moves(v) == 2
        })
        .await;
    assert_eq!(st["move_players"], json!(["first", "middle"]));
    assert_eq!(st["seats"]["middle"]["bot"], 0);
    assert_eq!(st["seats"]["middle"]["taken_over"], true);
    assert_eq!(st["seats"]["middle"]["name"], "player1");
    assert!(
        !t.spectator
            .events
            .iter()
            .any(|e| e.1["type"] == "forfeited" || e.1["type"] == "eliminated"),
        "nobody lost"
    );
    // Last and First play on; the bot answers for Middle.
    let mut rng = Rng(11);
    play_one(&mut t.players[1], &mut rng)
        .await
        .expect("last's turn");
    play_one(&mut t.players[0], &mut rng)
        .await
        .expect("first's turn");
    t.spectator
        .until("the bot's second move", |v| {
            v["type"] == "state" && moves(v) == 5
        })
        .await;

    // Middle comes back with its token and gets its seat back from the bot.
    let mut back = server.client(&t.room).await;
    back.send(json!({"type": "resume", "token": token})).await;
    assert_eq!(back.until_type("seated").await["seat"], "middle");
    let st = back.until_type("state").await;
    assert_eq!(st["seats"]["middle"]["bot"], Value::Null);
    assert_eq!(st["seats"]["middle"]["taken_over"], false);
    t.spectator.until_event("bot_released").await;
    t.spectator.until_event("player_reconnected").await;
    // And plays by hand again: Last, First, then Middle (no bot move).
    play_one(&mut t.players[1], &mut rng)
        .await
        .expect("last's turn");
    play_one(&mut t.players[0], &mut rng)
        .await
        .expect("first's turn");
    let st = back
        .until("middle to move", |v| v["type"] == "state" && moves(v) == 7)
        .await;
    assert_eq!(st["to_move"], "middle");
    assert!(!st["legal"].as_array().unwrap().is_empty());
    tokio::time::sleep(Duration::from_millis(300)).await;
    let st = back.sync().await;
    assert_eq!(moves(&st), 7, "no bot moved for the returned player");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_takeover_abandonment_still_loses() {
    let db = TestDb::sqlite();
    let l = LimitArgs {
        grace_seconds: 0.3,
        ..limits()
    };
    let server = TestServer::start(config(&db, &l)).await;
    let mut t = Table::new(&server, json!({})).await;
    let a = t.players[0].last_state.clone().unwrap()["legal"][0]
        .as_str()
        .unwrap()
        .to_string();
    let middle = t.players.remove(1);
    middle.close().await;
    t.players[0].send(json!({"type": "act", "action": a})).await;
    let ev = t.spectator.until_event("forfeited").await;
    assert_eq!(ev["event"]["player"], "middle");
    assert!(!t
        .spectator
        .events
        .iter()
        .any(|e| e.1["type"] == "bot_took_over"));
    server.stop().await;
}

// ---- restart -------------------------------------------------------------------

async fn bots_survive_a_restart(db: TestDb) {
    // Slow pacing on the first server: the bot is still "thinking" when it dies.
    let slow = LimitArgs {
        bot_min_move_ms: 5_000,
        ..limits()
    };
    let server = TestServer::start(config(&db, &slow)).await;
    let room = server
        .create_room(json!({"bots": {"middle": 1, "last": 1}}))
        .await;
    let mut me = human(&server, &room, "first").await;
    me.until_event("game_started").await;
    let token = me.token.clone().unwrap();
    let st = me
        .until("my turn", |v| {
            v["type"] == "state" && v["to_move"] == "first"
        })
        .await;
    // A pawn push: it leaves First's king safe from an early mate by the bots.
    let a = st["legal"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .find(|a| a.starts_with('P') && a.contains('-'))
        .unwrap()
        .to_string();
    me.send(json!({"type": "act", "action": a})).await;
    me.until("my action", |v| v["type"] == "state" && moves(v) == 1)
        .await;
    // Middle (a bot) is to move and waiting out its pacing: kill the server.
    server.kill();
    drop(me);

    let server = TestServer::start(config(&db, &limits())).await;
    let (code, details) = server.get_json(&format!("/api/rooms/{room}")).await;
    assert_eq!(code, 200);
    assert_eq!(details["seats"]["middle"]["bot"], 1);
    assert_eq!(details["seats"]["last"]["bot"], 1);
    assert_eq!(details["seats"]["last"]["name"], "Bot (level 1)");
    // The bots play on by themselves, without anyone connected…
    let mut spectator = server.client(&room).await;
    let st = spectator
        .until("the bots' moves after the restart", |v| {
            v["type"] == "state" && moves(v) >= 3
        })
        .await;
    assert_eq!(st["move_players"], json!(["first", "middle", "last"]));
    // …and the human resumes and plays with them (unless the bots already mated it).
    let mut me = server.client(&room).await;
    me.send(json!({"type": "resume", "token": token})).await;
    assert_eq!(me.until_type("seated").await["seat"], "first");
    if st["to_move"] == "first" {
        let mut rng = Rng(5);
        play_one(&mut me, &mut rng).await.expect("my turn");
    }
    spectator
        .until("the bots' next moves", |v| {
            v["type"] == "state" && (moves(v) >= 5 || v["status"] == "finished")
        })
        .await;
    server.stop().await;
    db.cleanup().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bots_survive_a_restart_sqlite() {
    bots_survive_a_restart(TestDb::sqlite()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bots_survive_a_restart_postgres() {
    bots_survive_a_restart(TestDb::postgres().await).await;
}

// ---- the hard limit ------------------------------------------------------------

/// With a zero hard limit every level-3 search is cut at the next timer tick and a
/// random legal action is played instead: the room never waits for the search.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bot_past_its_hard_limit_plays_a_random_action_instead_of_stalling() {
    let db = TestDb::sqlite();
    let l = LimitArgs {
        bot_move_seconds: 0.0,
        ..limits()
    };
    let server = TestServer::start(config(&db, &l)).await;
    let room = server
        .create_room(json!({"bots": {"middle": 3, "last": 3}}))
        .await;
    let mut me = human(&server, &room, "first").await;
    me.until_event("game_started").await;
    let mut rng = Rng(9);
    let t = Instant::now();
    for _ in 0..6 {
        if play_one(&mut me, &mut rng).await.is_none() {
            break;
        }
    }
    // A sanity bound only (the fallback counter below is the proof): six rounds of
    // two bot moves, each cut at the next 1 ms timer tick.
    assert!(
        t.elapsed() < Duration::from_secs(6),
        "took {:?}",
        t.elapsed()
    );
    assert!(metric(&server, "sannin_bot_fallbacks_total").await >= 1.0);
    // The searches cut off by the timeout stop by themselves soon after (their own
    // clock), giving back their slots.
    let deadline = Instant::now() + Duration::from_secs(10);
    while metric(&server, "sannin_bot_searching").await > 0.0 {
        assert!(Instant::now() < deadline, "searches still running");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    server.stop().await;
}

// ---- rematch -------------------------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rematch_keeps_the_bots_in_rotated_seats() {
    let db = TestDb::sqlite();
    let server = TestServer::start(config(&db, &limits())).await;
    let room = server
        .create_room(json!({"bots": {"middle": 1, "last": 0}}))
        .await;
    let mut me = human(&server, &room, "first").await;
    me.until_event("game_started").await;
    let mut rng = Rng(21);
    let end = play_out(&mut me, &mut rng).await;
    assert_eq!(end["status"], "finished");
    // The bots agree at once: the human's request is the last one needed.
    me.send(json!({"type": "rematch"})).await;
    let ev = me.until_event("rematch_started").await;
    let new_room = ev["event"]["room"].as_str().unwrap().to_string();
    let (_, d) = server.get_json(&format!("/api/rooms/{new_room}")).await;
    assert_eq!(d["status"], "waiting");
    assert_eq!(d["seats"]["first"]["bot"], 0, "last → first");
    assert_eq!(d["seats"]["last"]["bot"], 1, "middle → last");
    assert_eq!(d["seats"]["middle"]["bot"], Value::Null, "first → middle");
    // The human resumes in the new room: everyone is there, the game starts, and the
    // bot now playing First moves.
    let mut c = server.client(&new_room).await;
    c.send(json!({"type": "resume", "token": me.token.clone().unwrap()}))
        .await;
    assert_eq!(c.until_type("seated").await["seat"], "middle");
    c.until_event("game_started").await;
    let st = c
        .until("the first bot move", |v| {
            v["type"] == "state" && moves(v) >= 1
        })
        .await;
    assert_eq!(st["move_players"][0], "first");
    server.stop().await;
}
