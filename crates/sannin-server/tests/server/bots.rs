//! Bots over real sockets: bot seats chosen at creation or added and removed in a
//! waiting room, a game of one human against two bots played to its end, bot
//! takeover after an abandonment (and the human taking the seat back), bots across
//! a server restart, and the hard per-move limit that keeps a bot from stalling a
//! room.

use crate::common;

use std::time::{Duration, Instant};

use common::*;
use sannin_protocol::{ClientMsg, ErrorCode, Event, RoomStatus, Seat, ServerMsg, State};
use sannin_server::{BotArgs, ConnectionArgs, LimitArgs, RoomArgs};
use serde_json::{json, Value};

fn limits() -> LimitArgs {
    LimitArgs {
        rooms: RoomArgs {
            grace_seconds: 1.0,
            finished_idle_seconds: 30.0,
            ..RoomArgs::default()
        },
        bots: BotArgs {
            // No pacing: bots answer as fast as they choose (also alone in a room).
            bot_min_move_ms: 0,
            bot_only_min_move_ms: 0,
            ..BotArgs::default()
        },
        connections: ConnectionArgs {
            rate_per_second: 1000.0,
            rate_burst: 1000,
            ..ConnectionArgs::default()
        },
        ..LimitArgs::default()
    }
}

/// The limits of these tests: no pacing (bots answer as fast as they choose).
fn setup() -> Setup {
    Setup::with_limits(limits())
}

/// A metric of `GET /metrics`, which must be there.
async fn metric(server: &TestServer, name: &str) -> f64 {
    let text = server.metrics().await;
    assert!(text.contains(name), "no {name} in /metrics:\n{text}");
    server.metric(name).await
}

fn moves(state: &State) -> usize {
    state.moves().len()
}

/// Joins `seat` and readies.
async fn human(server: &TestServer, room: &str, seat: Seat) -> Client {
    let mut c = server.client(room).await;
    assert_eq!(c.join(Some(seat), "Human").await, seat);
    c.send(ClientMsg::Ready).await;
    c
}

/// A room with the `bots` of `body` and a human as First (ready); the game has
/// started.
async fn human_against_bots(server: &TestServer, body: Value) -> (String, Client) {
    let room = server.create_room(body).await;
    let mut me = human(server, &room, Seat::First).await;
    me.until_event("game_started").await;
    (room, me)
}

/// With Middle's player gone (`t.players` holds First and Last): Last, then First,
/// play a random action each.
async fn last_then_first(t: &mut Table, rng: &mut Rng) {
    play_one(&mut t.players[1], rng).await.expect("last's turn");
    play_one(&mut t.players[0], rng)
        .await
        .expect("first's turn");
}

fn add_bot(seat: Seat, level: Option<u8>) -> ClientMsg {
    ClientMsg::AddBot { seat, level }
}

fn played_by(c: &Client, seat: Seat) -> bool {
    c.events
        .iter()
        .any(|e| matches!(e.1, Event::Action { player, .. } if player == seat))
}

/// As the seated human: waits for its turn and plays a random legal action, then
/// waits for the state of that action. Returns that state, or `None` when the game
/// ended first.
async fn play_one(c: &mut Client, rng: &mut Rng) -> Option<State> {
    let me = c.seat.expect("seated");
    // Catch up first: every message before the `pong` is older than it, so the last
    // state then is the room's current one (a test may not have read this client's
    // messages for a while).
    c.send(ClientMsg::Ping).await;
    c.until("pong", |m| matches!(m, ServerMsg::Pong).then_some(()))
        .await;
    let mut st = c.state().clone();
    loop {
        if st.status == RoomStatus::Finished {
            return None;
        }
        if st.is_turn_of(me) && !st.legal.is_empty() {
            let m = moves(&st);
            let a = st.legal[rng.below(st.legal.len())].clone();
            c.act(&a).await;
            let after = c
                .until("the state of my action", |msg| match msg {
                    ServerMsg::State(s) if moves(&s) > m => Some(Ok(*s)),
                    ServerMsg::Error { code, message } => Some(Err((code, message))),
                    _ => None,
                })
                .await;
            return Some(after.unwrap_or_else(|e| panic!("my action was refused: {e:?}")));
        }
        st = c.next_state().await;
    }
}

/// Plays random legal actions on every turn until the game ends; the final state.
async fn play_out(c: &mut Client, rng: &mut Rng) -> State {
    while play_one(c, rng).await.is_some() {
        let n = moves(c.state());
        assert!(n < 800, "the game should have ended by now ({n} plies)");
    }
    c.state().clone()
}

// ---- creation ------------------------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bot_seats_at_creation_are_validated_listed_and_ready() {
    let (_db, server) = setup().sqlite().await;
    for (body, needle) in [
        (json!({"bots": {"middle": 6}}), "0 to 5"),
        (json!({"bots": {"middle": -1}}), "0 to 5"),
        (json!({"bots": {"middle": "two"}}), "0 to 5"),
        (json!({"bots": {"centre": 1}}), "centre"),
        (json!({"bots": [1, 2]}), "object"),
        (json!({"bot_takeover": "yes"}), ""),
        (
            json!({"bot_takeover": true, "bot_takeover_level": 9}),
            "0 to 5",
        ),
    ] {
        let (code, v) = server.post_json("/api/rooms", &body).await;
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
    let (code, v) = server
        .post_json("/api/rooms", &json!({"bots": {"middle": 2, "last": null}}))
        .await;
    assert_eq!(code, 201, "{v}");
    let room = v["id"].as_str().unwrap().to_string();
    let details = server.room(&room).await.room;
    let middle = details.seats.middle.as_ref().unwrap();
    assert_eq!(middle.name, "Bot (Casual)");
    assert_eq!(middle.bot, Some(2));
    assert!(middle.ready);
    assert_eq!(details.seats.last, None);
    assert_eq!(details.seats.first, None);
    assert_eq!(details.status, RoomStatus::Waiting);
    let listed = server.listed(&room).await.expect("listed");
    assert_eq!(listed.room.seats.middle.unwrap().bot, Some(2));
    // Nobody can join or resume a bot's seat.
    let mut c = server.client(&room).await;
    c.send(ClientMsg::Join {
        seat: Some(Seat::Middle),
        name: Some("x".into()),
    })
    .await;
    c.expect_error(ErrorCode::SeatTaken).await;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_room_of_three_bots_starts_at_once_and_plays() {
    let (_db, server) = setup().sqlite().await;
    let room = server
        .create_room(json!({"bots": {"first": 0, "middle": 0, "last": 0}}))
        .await;
    let mut s = server.client(&room).await;
    s.send(ClientMsg::Watch { name: None }).await;
    let st = s
        .until_state("a few bot actions", |s| {
            s.status == RoomStatus::Finished || moves(s) >= 6
        })
        .await;
    assert_ne!(st.status, RoomStatus::Waiting);
    server.stop().await;
}

// ---- one human, two bots -------------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_human_and_two_bots_play_to_the_end() {
    let (_db, server) = setup().sqlite().await;
    let room = server
        .create_room(json!({"bots": {"middle": 1, "last": 1}}))
        .await;
    let mut spectator = server.client(&room).await;
    let mut me = human(&server, &room, Seat::First).await;
    me.until_event("game_started").await;
    let mut rng = Rng::new(0x5eed);
    let end = play_out(&mut me, &mut rng).await;
    assert_eq!(end.status, RoomStatus::Finished, "{end:?}");
    assert!(end.result.is_some());
    let st = spectator
        .until_state("the final state", |s| s.status == RoomStatus::Finished)
        .await;
    assert_eq!(st.moves(), end.moves());
    // The bots' actions are ordinary `action` events, stored like a human's.
    for seat in [Seat::Middle, Seat::Last] {
        assert!(played_by(&spectator, seat), "{seat} played");
    }
    assert_eq!(
        me.events,
        spectator.events[spectator.events.len() - me.events.len()..]
    );
    assert_eq!(server.room(&room).await.moves, end.moves());
    let (_, record) = server.get_text(&format!("/api/rooms/{room}/record")).await;
    assert!(!record.is_empty());
    assert!(metric(&server, "sannin_bot_moves_total").await >= 2.0);
    server.stop().await;
}

// ---- alliances -----------------------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bot_answers_an_alliance_as_its_search_rates_it() {
    let (_db, server) = setup().sqlite().await;
    let room = server
        .create_room(json!({"bots": {"middle": 2, "last": 2}}))
        .await;
    let mut me = server.client(&room).await;
    assert_eq!(me.join(Some(Seat::First), "Human").await, Seat::First);
    // The room did not ask for the bots to ally: they propose nothing.
    assert_eq!(me.sync().await.alliance.proposal, None);
    me.send(ClientMsg::ProposeAlliance { seat: Seat::Middle })
        .await;
    me.until_event("alliance_proposed").await;
    let accepts = sannin_server::bots::alliance::prefers_alliance(
        sannin_bot::Level::CASUAL,
        sannin_rules::Player::Middle,
    );
    if accepts {
        me.until_event("alliance_agreed").await;
        assert!(me.sync().await.alliance.agreed);
    } else {
        let ev = me.until_event("alliance_declined").await;
        assert_eq!(
            ev,
            Event::AllianceDeclined {
                by: Some(Seat::Middle)
            }
        );
        let st = me.sync().await;
        assert!(
            !st.alliance.agreed && st.alliance.proposal.is_none(),
            "{st:?}"
        );
    }
    // Asked again: the same answer, remembered.
    me.send(ClientMsg::ProposeAlliance { seat: Seat::Last })
        .await;
    me.until_event("alliance_proposed").await;
    let answer = me
        .until_event_where("the answer", |e| {
            matches!(
                e,
                Event::AllianceAgreed { .. } | Event::AllianceDeclined { .. }
            )
        })
        .await;
    assert_eq!(
        matches!(answer, Event::AllianceAgreed { .. }),
        sannin_server::bots::alliance::prefers_alliance(
            sannin_bot::Level::CASUAL,
            sannin_rules::Player::Last,
        )
    );
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_bots_asked_to_ally_against_the_person_do_so_before_it_is_ready() {
    let (_db, server) = setup().sqlite().await;
    for (body, err) in [
        (
            json!({"bots": {"first": 1, "last": 1}, "bots_ally": "often"}),
            "bots_ally",
        ),
        (
            json!({"bots": {"first": 1, "last": 1}, "bots_ally": true}),
            "bots_ally",
        ),
    ] {
        let (status, e) = server.post_json("/api/rooms", &body).await;
        assert_eq!(status, 400, "{e}");
        assert!(e.to_string().contains(err), "{e}");
    }
    let room = server
        .create_room(json!({"bots": {"first": 1, "last": 3}, "bots_ally": "always"}))
        .await;
    let mut spectator = server.client(&room).await;
    let mut me = server.client(&room).await;
    assert_eq!(me.join(Some(Seat::Middle), "Human").await, Seat::Middle);
    // The stronger bot (Last) proposes to the other; it agrees; the person, alone,
    // moves first (RULES §12.8).
    let ev = me.until_event("alliance_proposed").await;
    assert_eq!(
        ev,
        Event::AllianceProposed {
            from: Seat::Last,
            to: Seat::First
        }
    );
    me.until_event("alliance_agreed").await;
    let st = me.sync().await;
    assert!(st.alliance.agreed, "{st:?}");
    assert_eq!(st.you, Some(Seat::First));
    assert_eq!(st.seats.first.as_ref().unwrap().name, "Human");
    for seat in [&st.seats.middle, &st.seats.last] {
        assert!(seat.as_ref().unwrap().bot.is_some(), "{st:?}");
    }
    me.send(ClientMsg::Ready).await;
    me.until_event("game_started").await;
    me.until_event("alliance_formed").await;
    let st = spectator.until_playing().await;
    assert_eq!(
        st.start_position,
        sannin_rules::Position::voluntary_alliance_start().to_string()
    );
    assert_eq!(st.to_move, Some(Seat::First));
    server.stop().await;
}

// ---- add / remove --------------------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bots_are_added_and_removed_in_a_waiting_room() {
    let (_db, server) = setup().sqlite().await;
    let room = server.create_room(json!({})).await;
    let mut watcher = server.client(&room).await;
    watcher.send(add_bot(Seat::Middle, Some(1))).await;
    watcher.expect_error(ErrorCode::NotSeated).await;

    let mut a = server.client(&room).await;
    assert_eq!(a.join(Some(Seat::First), "Ann").await, Seat::First);
    a.send(add_bot(Seat::Middle, Some(2))).await;
    let ev = a.until_event("bot_added").await;
    assert_eq!(
        ev,
        Event::BotAdded {
            seat: Seat::Middle,
            level: 2,
            name: "Bot (Casual)".into()
        }
    );
    let st = a.sync().await;
    let middle = st.seats.middle.as_ref().unwrap();
    assert_eq!(middle.bot, Some(2));
    assert!(middle.ready);
    assert!(middle.connected);
    assert_eq!(st.seats.first.as_ref().unwrap().bot, None);

    for (msg, code) in [
        (
            json!({"type": "add_bot", "seat": "middle", "level": 1}),
            ErrorCode::SeatTaken,
        ),
        (
            json!({"type": "add_bot", "seat": "first", "level": 1}),
            ErrorCode::SeatTaken,
        ),
        (
            json!({"type": "add_bot", "seat": "last", "level": 6}),
            ErrorCode::BadMessage,
        ),
        (
            json!({"type": "add_bot", "seat": "centre", "level": 1}),
            ErrorCode::BadMessage,
        ),
        (
            json!({"type": "remove_bot", "seat": "first"}),
            ErrorCode::BadBot,
        ),
        (
            json!({"type": "remove_bot", "seat": "last"}),
            ErrorCode::BadBot,
        ),
    ] {
        a.send_json(msg.clone()).await;
        let e = a.expect_error(code).await;
        assert!(!e.is_empty(), "{msg}");
    }

    a.send(ClientMsg::RemoveBot { seat: Seat::Middle }).await;
    let ev = a.until_event("bot_removed").await;
    assert_eq!(ev, Event::BotRemoved { seat: Seat::Middle });
    assert_eq!(a.sync().await.seats.middle, None);

    // A second human may add a bot too; the level defaults to 2.
    let mut b = server.client(&room).await;
    assert_eq!(b.join(Some(Seat::Middle), "Bob").await, Seat::Middle);
    b.send(add_bot(Seat::Last, None)).await;
    let ev = b.until_event("bot_added").await;
    assert!(matches!(ev, Event::BotAdded { level: 2, .. }), "{ev:?}");
    // Removing a bot and adding one of another level.
    b.send(ClientMsg::RemoveBot { seat: Seat::Last }).await;
    b.until_event("bot_removed").await;
    b.send(add_bot(Seat::Last, Some(0))).await;
    b.until_event("bot_added").await;

    // Everyone human ready: the game starts, the bot is always ready.
    a.send(ClientMsg::Ready).await;
    b.send(ClientMsg::Ready).await;
    a.until_event("game_started").await;
    a.send(add_bot(Seat::Last, Some(1))).await;
    a.expect_error(ErrorCode::GameNotRunning).await;
    a.send(ClientMsg::RemoveBot { seat: Seat::Last }).await;
    a.expect_error(ErrorCode::GameNotRunning).await;

    // First and Middle play; the bot answers after Middle.
    let mut rng = Rng::new(3);
    play_one(&mut a, &mut rng).await.expect("first's turn");
    play_one(&mut b, &mut rng).await.expect("middle's turn");
    let st = a.until_state("the bot's answer", |s| moves(s) == 3).await;
    assert_eq!(st.move_players(), Seat::ALL);
    watcher.sync().await;
    server.stop().await;
}

// ---- takeover ------------------------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_abandoning_player_is_replaced_by_a_bot_and_can_come_back() {
    let (_db, server) = setup()
        .limits(|l| l.rooms.grace_seconds = 0.5)
        .sqlite()
        .await;
    let mut t = Table::new(
        &server,
        json!({"bot_takeover": true, "bot_takeover_level": 0}),
    )
    .await;
    assert!(t.spectator.state().bot_takeover);
    let first_move = t.players[0].state().legal[0].clone();
    let token = t.players[1].token.clone().unwrap();
    // Middle leaves; First moves; Middle's grace runs out on its turn.
    let middle = t.players.remove(1);
    middle.close().await;
    t.spectator.until_event("player_left").await;
    t.players[0].act(&first_move).await;
    let ev = t.spectator.until_event("bot_took_over").await;
    assert_eq!(
        ev,
        Event::BotTookOver {
            seat: Seat::Middle,
            level: 0
        }
    );
    let st = t
        .spectator
        .until_state("the bot's move for middle", |s| moves(s) == 2)
        .await;
    assert_eq!(st.move_players(), [Seat::First, Seat::Middle]);
    let middle = st.seats.middle.as_ref().unwrap();
    assert_eq!(middle.bot, Some(0));
    assert!(middle.taken_over);
    assert_eq!(middle.name, "player1");
    assert!(
        t.spectator.events_of("forfeited").is_empty()
            && t.spectator.events_of("eliminated").is_empty(),
        "nobody lost"
    );
    // Last and First play on; the bot answers for Middle.
    let mut rng = Rng::new(11);
    last_then_first(&mut t, &mut rng).await;
    t.spectator
        .until_state("the bot's second move", |s| moves(s) == 5)
        .await;

    // Middle comes back with its token and gets its seat back from the bot.
    let mut back = server.client(&t.room).await;
    assert_eq!(back.resume(&token).await, Seat::Middle);
    let st = back.next_state().await;
    let middle = st.seats.middle.as_ref().unwrap();
    assert_eq!(middle.bot, None);
    assert!(!middle.taken_over);
    t.spectator.until_event("bot_released").await;
    t.spectator.until_event("player_reconnected").await;
    // And plays by hand again: Last, First, then Middle (no bot move).
    last_then_first(&mut t, &mut rng).await;
    let st = back.until_state("middle to move", |s| moves(s) == 7).await;
    assert_eq!(st.to_move, Some(Seat::Middle));
    assert!(!st.legal.is_empty());
    // A wait on purpose: what is checked is that no bot moves in that time (a bot
    // answers within a few ms here).
    tokio::time::sleep(Duration::from_millis(300)).await;
    let st = back.sync().await;
    assert_eq!(moves(&st), 7, "no bot moved for the returned player");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_takeover_abandonment_still_loses() {
    let (_db, server) = setup()
        .limits(|l| l.rooms.grace_seconds = 0.3)
        .sqlite()
        .await;
    let mut t = Table::new(&server, json!({})).await;
    let a = t.players[0].state().legal[0].clone();
    let middle = t.players.remove(1);
    middle.close().await;
    t.players[0].act(&a).await;
    let ev = t.spectator.until_event("forfeited").await;
    assert!(
        matches!(
            ev,
            Event::Forfeited {
                player: Seat::Middle,
                ..
            }
        ),
        "{ev:?}"
    );
    assert!(t.spectator.events_of("bot_took_over").is_empty());
    server.stop().await;
}

// ---- restart -------------------------------------------------------------------

async fn bots_survive_a_restart(db: TestDb) {
    // Slow pacing on the first server: the bot is still "thinking" when it dies.
    let server = setup()
        .limits(|l| l.bots.bot_min_move_ms = 5_000)
        .start(&db)
        .await;
    let (room, mut me) =
        human_against_bots(&server, json!({"bots": {"middle": 1, "last": 1}})).await;
    let token = me.token.clone().unwrap();
    let st = me
        .until_state("my turn", |s| s.to_move == Some(Seat::First))
        .await;
    // A pawn push: it leaves First's king safe from an early mate by the bots.
    let a = st
        .legal
        .iter()
        .find(|a| a.starts_with('P') && a.contains('-'))
        .unwrap()
        .clone();
    me.act(&a).await;
    me.until_state("my action", |s| moves(s) == 1).await;
    // Middle (a bot) is to move and waiting out its pacing: kill the server.
    server.kill();
    drop(me);

    let server = setup().start(&db).await;
    let seats = server.room(&room).await.room.seats;
    assert_eq!(seats.middle.unwrap().bot, Some(1));
    let last = seats.last.unwrap();
    assert_eq!(last.bot, Some(1));
    assert_eq!(last.name, "Bot (Beginner)");
    // The bots play on by themselves, without anyone connected…
    let mut spectator = server.client(&room).await;
    let st = spectator
        .until_state("the bots' moves after the restart", |s| moves(s) >= 3)
        .await;
    assert_eq!(st.move_players(), Seat::ALL);
    // …and the human resumes and plays with them (unless the bots already mated it).
    let mut me = server.client(&room).await;
    assert_eq!(me.resume(&token).await, Seat::First);
    if st.to_move == Some(Seat::First) {
        let mut rng = Rng::new(5);
        play_one(&mut me, &mut rng).await.expect("my turn");
    }
    spectator
        .until_state("the bots' next moves", |s| {
            moves(s) >= 5 || s.status == RoomStatus::Finished
        })
        .await;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bots_survive_a_restart_on_sqlite_and_postgres() {
    on_both_databases(bots_survive_a_restart).await;
}

// ---- the hard limit ------------------------------------------------------------

/// With a zero hard limit no level-3 search runs: each bot move is the random legal
/// fallback, counted as such, and the room never waits (the server's unit tests cut a
/// search that overruns a real limit).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bot_past_its_hard_limit_plays_a_random_action_instead_of_stalling() {
    let (_db, server) = setup()
        .limits(|l| l.bots.bot_move_seconds = 0.0)
        .sqlite()
        .await;
    let (_room, mut me) =
        human_against_bots(&server, json!({"bots": {"middle": 3, "last": 3}})).await;
    let mut rng = Rng::new(9);
    let t = Instant::now();
    for _ in 0..6 {
        if play_one(&mut me, &mut rng).await.is_none() {
            break;
        }
    }
    // A sanity bound only (the fallback counter below is the proof): six rounds of
    // two bot moves, none searched.
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
    let (_db, server) = setup().sqlite().await;
    let (_room, mut me) =
        human_against_bots(&server, json!({"bots": {"middle": 1, "last": 0}})).await;
    let mut rng = Rng::new(21);
    let end = play_out(&mut me, &mut rng).await;
    assert_eq!(end.status, RoomStatus::Finished);
    // The bots agree at once: the human's request is the last one needed.
    me.send(ClientMsg::Rematch).await;
    let ev = me.until_event("rematch_started").await;
    let Event::RematchStarted { room: new_room, .. } = ev else {
        panic!("{ev:?}")
    };
    let d = server.room(&new_room).await.room;
    assert_eq!(d.status, RoomStatus::Waiting);
    let bot = |s: Seat| d.seats.get(s).expect("a seated player").bot;
    assert_eq!(bot(Seat::First), Some(0), "last → first");
    assert_eq!(bot(Seat::Last), Some(1), "middle → last");
    assert_eq!(bot(Seat::Middle), None, "first → middle");
    // The human resumes in the new room: everyone is there, the game starts, and the
    // bot now playing First moves.
    let mut c = server.client(&new_room).await;
    assert_eq!(c.resume(me.token.as_ref().unwrap()).await, Seat::Middle);
    c.until_event("game_started").await;
    let st = c.until_state("the first bot move", |s| moves(s) >= 1).await;
    assert_eq!(st.move_players()[0], Seat::First);
    server.stop().await;
}
