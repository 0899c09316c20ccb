//! Bots on a public server, over real sockets: a flood of rooms of strong bots alone
//! cannot starve a person's game of search slots, a bot's clock does not run while
//! it waits for one (and the stored clocks stay exact across a restart), rooms of
//! bots alone are capped in number and paced.
//!
//! Nothing here asserts how fast the server is: the fairness is counted in searches
//! (`sannin_bot_searches_total`), the clocks are driven by hand ([`ManualTime`]), and
//! the pacing is checked as a lower bound on the time a number of actions took.

use crate::common;

use std::time::{Duration, Instant};

use common::*;
use sannin_protocol::{ClientMsg, Event, RoomStatus, Seat, ServerMsg, State};
use sannin_server::{BotArgs, ClientArgs, ConnectionArgs, LimitArgs, ManualTime, RoomArgs};
use serde_json::{json, Value};

/// No per-address budgets (one test address creates every room), no pacing for
/// people's bots, one search slot.
fn limits() -> LimitArgs {
    LimitArgs {
        rooms: RoomArgs {
            grace_seconds: 30.0,
            finished_idle_seconds: 30.0,
            ..RoomArgs::default()
        },
        bots: BotArgs {
            max_bot_only_rooms_per_address: 0,
            bot_min_move_ms: 0,
            bot_only_min_move_ms: 0,
            bot_concurrency: 1,
            ..BotArgs::default()
        },
        connections: ConnectionArgs {
            rate_per_second: 1000.0,
            rate_burst: 1000,
            ..ConnectionArgs::default()
        },
        clients: ClientArgs {
            rooms_per_minute: 0.0,
            bot_rooms_per_minute: 0.0,
            ..ClientArgs::default()
        },
        ..LimitArgs::default()
    }
}

fn setup() -> Setup {
    Setup::with_limits(limits())
}

fn three_bots(level: u8) -> Value {
    json!({"bots": {"first": level, "middle": level, "last": level}})
}

const QUEUED_BOTS_ONLY: &str = "sannin_bot_queued{rooms=\"bots_only\"}";
const QUEUED_WITH_HUMAN: &str = "sannin_bot_queued{rooms=\"with_human\"}";
const SEARCHES_BOTS_ONLY: &str = "sannin_bot_searches_total{rooms=\"bots_only\"}";
const SEARCHES_WITH_HUMAN: &str = "sannin_bot_searches_total{rooms=\"with_human\"}";

/// A metric of `GET /metrics`, which must be there.
async fn metric(server: &TestServer, name: &str) -> f64 {
    let text = server.metrics().await;
    assert!(text.contains(name), "no {name} in /metrics:\n{text}");
    server.metric(name).await
}

/// Polls `name` until it is at least `at_least`.
async fn until_metric(server: &TestServer, name: &str, at_least: f64) -> f64 {
    let deadline = Instant::now() + TIMEOUT;
    loop {
        let v = metric(server, name).await;
        if v >= at_least {
            return v;
        }
        assert!(
            Instant::now() < deadline,
            "{name} stayed at {v} < {at_least}"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// `n` rooms of three bots of `level`, all running.
async fn flood(server: &TestServer, n: usize, level: u8) -> Vec<String> {
    let mut rooms = Vec::new();
    for _ in 0..n {
        rooms.push(server.create_room(three_bots(level)).await);
    }
    rooms
}

/// A room of `body` (its bots in Middle and Last) with a person as First, started.
async fn person_against_bots(server: &TestServer, body: Value) -> (String, Client) {
    let room = server.create_room(body).await;
    let mut me = server.client(&room).await;
    assert_eq!(me.join(Some(Seat::First), "Person").await, Seat::First);
    me.send(ClientMsg::Ready).await;
    me.until_event("game_started").await;
    (room, me)
}

/// As First, once it is First's turn: plays a pawn push (it keeps First's king safe
/// from an early mate) and returns the state of that action.
async fn push_a_pawn(me: &mut Client) -> State {
    let st = me
        .until_state("my turn", |s| {
            s.status != RoomStatus::Playing
                || (s.to_move == Some(Seat::First) && !s.legal.is_empty())
        })
        .await;
    assert_eq!(st.status, RoomStatus::Playing, "the game goes on");
    let n = st.moves().len();
    let a = st
        .legal
        .iter()
        .find(|a| a.starts_with('P') && a.contains('-'))
        .unwrap_or(&st.legal[0])
        .clone();
    me.act(&a).await;
    me.until_state("my action", |s| s.moves().len() > n).await
}

// ---- fairness --------------------------------------------------------------------

/// One search slot, twelve rooms of three level-3 bots searching without pause (so
/// eleven of their searches always wait): a person's move is answered by its bot
/// after at most a few of the flood's searches, not after the eleven queued before
/// it (first come first served would run them all first).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_person_s_bot_answers_before_a_flood_of_bot_rooms_searches() {
    const FLOOD: usize = 12;
    let (_db, server) = setup()
        .limits(|l| l.bots.max_bot_only_rooms = FLOOD)
        .sqlite()
        .await;
    flood(&server, FLOOD, 3).await;
    let (_room, mut me) =
        person_against_bots(&server, json!({"bots": {"middle": 1, "last": 1}})).await;
    // The flood's requests fill the queue.
    until_metric(&server, QUEUED_BOTS_ONLY, (FLOOD - 2) as f64).await;
    let flood_before = metric(&server, SEARCHES_BOTS_ONLY).await;
    let mine_before = metric(&server, SEARCHES_WITH_HUMAN).await;
    push_a_pawn(&mut me).await;
    let st = me
        .until_state("my bot's answer", |s| {
            s.moves().len() >= 2 || s.status == RoomStatus::Finished
        })
        .await;
    assert_eq!(st.move_players()[1], Seat::Middle, "{st:?}");
    let flood_during = metric(&server, SEARCHES_BOTS_ONLY).await - flood_before;
    // The search running when the person moved, the one bot-only request queued for
    // the slot before it, and one more on either side of the reads of the counter.
    assert!(
        flood_during <= 4.0,
        "{flood_during} searches of rooms of bots alone ran before my bot answered"
    );
    assert!(metric(&server, SEARCHES_WITH_HUMAN).await > mine_before);
    // The flood is not starved either: it goes on searching.
    until_metric(
        &server,
        SEARCHES_BOTS_ONLY,
        flood_before + flood_during + 2.0,
    )
    .await;
    server.stop().await;
}

/// A room of two level-3 bots (Middle, Last) created from `from`, with a person from
/// the same address as First, started.
async fn own_room_beside_bots(server: &TestServer, from: std::net::IpAddr) -> (String, Client) {
    let body = json!({"bots": {"middle": 3, "last": 3}});
    let (status, _, v) = call(
        &http_from(from),
        server,
        "POST",
        "/api/rooms",
        Some(body),
        None,
    )
    .await;
    assert_eq!(status, 201, "{v}");
    let room = v["id"].as_str().expect("an id").to_string();
    let mut me = Client::connect_from(&server.ws_url(&room), from, &[]).await;
    assert_eq!(me.join(Some(Seat::First), "Many").await, Seat::First);
    me.send(ClientMsg::Ready).await;
    me.until_event("game_started").await;
    (room, me)
}

/// One search slot. One address keeps eight rooms busy, each with itself seated
/// beside two level-3 bots and moving at once whenever its turn comes (so its eight
/// rooms always have a search asked: rooms with a person, which the bot-only lane does
/// not hold back). A person from another address plays its own bots: its bot answers
/// after at most a few of that address's searches, not after the eight queued before
/// it — the slots go round the addresses.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_address_s_rooms_do_not_queue_ahead_of_everyone_s_bots() {
    const ROOMS: usize = 8;
    let (_db, server) = setup().sqlite().await;
    let mut busy = Vec::new();
    for _ in 0..ROOMS {
        let (_, mut c) = own_room_beside_bots(&server, source(0)).await;
        busy.push(tokio::spawn(async move {
            loop {
                push_a_pawn(&mut c).await;
            }
        }));
    }
    // The busy address's requests fill the queue.
    until_metric(&server, QUEUED_WITH_HUMAN, (ROOMS - 2) as f64).await;
    let (_room, mut me) = own_room_beside_bots(&server, source(1)).await;
    let before = metric(&server, SEARCHES_WITH_HUMAN).await;
    push_a_pawn(&mut me).await;
    me.until_state("my bot's answer", |s| {
        s.moves().len() >= 2 || s.status == RoomStatus::Finished
    })
    .await;
    let during = metric(&server, SEARCHES_WITH_HUMAN).await - before;
    // My bot's search, the one running when I moved, the busy address's one request
    // queued before mine, and one more on either side of the reads of the counter.
    assert!(
        during <= 5.0,
        "{during} searches ran before my bot answered (the busy address had {ROOMS} rooms)"
    );
    assert!(metric(&server, "sannin_bot_lanes").await <= 2.0);
    for t in busy {
        t.abort();
    }
    server.stop().await;
}

// ---- the bot's clock -------------------------------------------------------------

/// The clocks read a hand-driven time source. While the person's bot waits for the
/// one slot behind a flood of bot rooms, a minute passes: its clock is not charged
/// for it, and the clocks stored with its action come back the same after a restart.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bot_s_clock_does_not_run_while_it_waits_for_a_search_slot() {
    let time = ManualTime::new(1_000);
    let setup = setup()
        .limits(|l| l.bots.max_bot_only_rooms = 6)
        .time(time.clone());
    let db = TestDb::sqlite();
    let server = setup.start(&db).await;
    flood(&server, 6, 3).await;
    let clock = json!({"kind": "sudden_death", "main_seconds": 3600});
    let (room, mut me) = person_against_bots(
        &server,
        json!({"bots": {"middle": 2, "last": 2}, "clock": clock}),
    )
    .await;
    let token = me.token.clone().expect("a token");
    let mut proved = None;
    // The minute must pass while the bot waits, which the test can only see from the
    // outside (the queue gauge, read before and after): a round where the bot's
    // search had already started when time was moved proves nothing and is retried,
    // and so does the first, whose move no clock is charged for (docs/protocol.md §11).
    for _round in 0..7 {
        until_metric(&server, QUEUED_BOTS_ONLY, 3.0).await;
        let st = push_a_pawn(&mut me).await;
        let ply = st.moves().len();
        let before = st.clocks.expect("clocks").middle.remaining_ms;
        // Seen waiting, or already moved (read over HTTP: the socket's messages are
        // left for below).
        let mut waiting_seen = false;
        let deadline = Instant::now() + TIMEOUT;
        while Instant::now() < deadline {
            if metric(&server, QUEUED_WITH_HUMAN).await >= 1.0 {
                waiting_seen = true;
                break;
            }
            if server.room(&room).await.moves.len() > ply {
                break;
            }
        }
        time.advance(Duration::from_secs(60));
        // A request of this room still queued, then Middle still to move: that request
        // was Middle's (Last asks only after Middle's action), so Middle waited from
        // before the minute passed until after it.
        let still_waiting = waiting_seen
            && metric(&server, QUEUED_WITH_HUMAN).await >= 1.0
            && server.room(&room).await.moves.len() == ply;
        let ev = me
            .until("the bot's action", |m| match m {
                ServerMsg::Event {
                    event:
                        Event::Action {
                            player: Seat::Middle,
                            clocks,
                            ..
                        },
                    ..
                } => Some(clocks),
                _ => None,
            })
            .await
            .expect("clocks on the action");
        if still_waiting && ply >= 3 {
            assert_eq!(
                ev.middle.remaining_ms, before,
                "the minute the bot waited for a slot was charged"
            );
            assert_eq!(ev.running, Some(Seat::Last));
            proved = Some(ev.middle.remaining_ms);
            break;
        }
    }
    let middle = proved.expect("in six rounds after the first the bot was seen waiting");
    let st = me
        .until_state("the last bot's move", |s| {
            s.to_move == Some(Seat::First) || s.status == RoomStatus::Finished
        })
        .await;
    assert_eq!(st.clocks.expect("clocks").middle.remaining_ms, middle);
    // The clocks as stored: the same after a restart.
    server.stop().await;
    let server = setup.start(&db).await;
    let mut back = server.client(&room).await;
    assert_eq!(back.resume(&token).await, Seat::First);
    let st = back.next_state().await;
    let clocks = st.clocks.expect("clocks");
    assert_eq!(clocks.middle.remaining_ms, middle);
    server.stop().await;
}

// ---- the cap ---------------------------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rooms_of_bots_alone_are_capped() {
    let (_db, server) = setup()
        .limits(|l| {
            l.bots.max_bot_only_rooms = 2;
            // Slow bots: the rooms stay unfinished during the test.
            l.bots.bot_only_min_move_ms = 60_000;
        })
        .sqlite()
        .await;
    server.create_room(three_bots(0)).await;
    server.create_room(three_bots(3)).await;
    let (status, v) = server.post_json("/api/rooms", &three_bots(1)).await;
    assert_eq!(status, 429, "{v}");
    assert_eq!(TestServer::error_code(&v), "too_many_bot_only_rooms");
    assert!(
        v["error"]["message"].as_str().unwrap().contains("limit 2"),
        "{v}"
    );
    // Rooms with a seat for a person are not counted.
    server
        .create_room(json!({"bots": {"middle": 3, "last": 3}}))
        .await;
    server.create_room(json!({})).await;
    assert_eq!(
        server.rooms().await.len(),
        4,
        "the refused room was not made"
    );
    assert_eq!(
        metric(&server, "sannin_bot_only_rooms_refused_total").await,
        1.0
    );
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_address_cannot_take_every_room_of_bots_alone() {
    let (_db, server) = setup()
        .limits(|l| {
            l.bots.max_bot_only_rooms = 10;
            l.bots.max_bot_only_rooms_per_address = 2;
            l.clients.trusted_proxies = Some("127.0.0.1".into());
            // Slow bots: the rooms stay unfinished during the test.
            l.bots.bot_only_min_move_ms = 60_000;
        })
        .sqlite()
        .await;
    let http = reqwest::Client::new();
    let create = |from: &'static str, body: Value| {
        let http = http.clone();
        let url = server.url("/api/rooms");
        async move {
            let res = http
                .post(url)
                .header("x-forwarded-for", from)
                .json(&body)
                .send()
                .await
                .expect("POST /api/rooms");
            let status = res.status().as_u16();
            (status, res.json::<Value>().await.expect("JSON body"))
        }
    };
    for _ in 0..2 {
        assert_eq!(create("192.0.2.1", three_bots(0)).await.0, 201);
    }
    let (status, v) = create("192.0.2.1", three_bots(1)).await;
    assert_eq!(status, 429, "{v}");
    assert_eq!(TestServer::error_code(&v), "too_many_bot_only_rooms");
    assert!(
        v["error"]["message"]
            .as_str()
            .unwrap()
            .contains("you already run 2"),
        "{v}"
    );
    // Another address still gets its rooms. The first one makes no room with bots
    // until one ends (a person who resigns at once would leave one more room of bots
    // alone), but rooms for people only.
    assert_eq!(create("198.51.100.7", three_bots(0)).await.0, 201);
    let (status, v) = create("192.0.2.1", json!({"bots": {"middle": 1, "last": 1}})).await;
    assert_eq!(
        (status, TestServer::error_code(&v)),
        (429, "too_many_bot_only_rooms"),
        "{v}"
    );
    let (status, v) = create("192.0.2.1", json!({})).await;
    assert_eq!(status, 201, "{v}");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_room_of_bots_alone_when_the_cap_is_zero() {
    let (_db, server) = setup()
        .limits(|l| l.bots.max_bot_only_rooms = 0)
        .sqlite()
        .await;
    let (status, v) = server.post_json("/api/rooms", &three_bots(0)).await;
    assert_eq!(status, 429, "{v}");
    assert_eq!(TestServer::error_code(&v), "too_many_bot_only_rooms");
    server
        .create_room(json!({"bots": {"first": 0, "last": 0}}))
        .await;
    server.stop().await;
}

// ---- pacing ----------------------------------------------------------------------

/// Level-0 bots alone would play hundreds of actions a second; paced at 250 ms, each
/// action comes at least 250 ms after the one before (the first after the start),
/// whatever the machine: `n` actions take at least `n` × 250 ms. A spectator still
/// watches the game go on.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_room_of_bots_alone_moves_no_faster_than_its_pacing() {
    const PACE: Duration = Duration::from_millis(250);
    let (_db, server) = setup()
        .limits(|l| l.bots.bot_only_min_move_ms = PACE.as_millis() as u64)
        .sqlite()
        .await;
    let t0 = Instant::now();
    let room = server.create_room(three_bots(0)).await;
    let mut spectator = server.client(&room).await;
    spectator.send(ClientMsg::Watch { name: None }).await;
    let st = spectator
        .until_state("four bot actions", |s| {
            s.moves().len() >= 4 || s.status == RoomStatus::Finished
        })
        .await;
    assert!(st.moves().len() >= 4, "{st:?}");
    // A little longer, then count every action so far against the time it took. (A
    // real wait: the pacing of bots is what is measured.)
    tokio::time::sleep(PACE * 3).await;
    let st = spectator.sync().await;
    let elapsed = t0.elapsed();
    let n = st.moves().len() as u32;
    assert!(
        PACE * n <= elapsed,
        "{n} actions in {elapsed:?}, paced at {PACE:?}"
    );
    // A person's bots are not paced that way: they answer at once (no pacing here).
    let (_room, mut me) =
        person_against_bots(&server, json!({"bots": {"middle": 0, "last": 0}})).await;
    push_a_pawn(&mut me).await;
    let st = me
        .until_state("both bots' answers", |s| s.moves().len() >= 3)
        .await;
    assert_eq!(st.move_players()[..3], Seat::ALL);
    server.stop().await;
}
