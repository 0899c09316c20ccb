//! Correspondence games (docs/correspondence.md): a time for each move whose deadline
//! is a moment of the wall clock, no abandonment, and rooms that sleep out of memory
//! and wake on demand or for their deadline — on a hand-driven clock, so that days
//! pass in a test without waiting.

use crate::common;

use std::time::Duration;

use common::{Client, Setup, Table, TestDb, TestServer, TIMEOUT};
use sannin_protocol::{ClockKind, Clocks, Event, ForfeitReason, RoomStatus, Seat, State};
use sannin_server::{ConnectionArgs, LimitArgs, ManualTime, RoomArgs};
use serde_json::{json, Value};

const T0: u64 = 1_000_000;
const DAY_MS: u64 = 86_400_000;
const HOUR: Duration = Duration::from_secs(3_600);

fn limits() -> LimitArgs {
    LimitArgs {
        rooms: RoomArgs {
            // A live room would be forfeited after 1 s away: a correspondence one is not.
            grace_seconds: 1.0,
            lag_credit_max_ms: 0,
            sleep_after_seconds: 30.0,
            ..RoomArgs::default()
        },
        connections: ConnectionArgs {
            rate_per_second: 1000.0,
            rate_burst: 1000,
            ..ConnectionArgs::default()
        },
        ..LimitArgs::default()
    }
}

fn day_a_move() -> Value {
    json!({"clock": {"kind": "correspondence", "seconds_per_move": 86_400}})
}

fn clocks(s: &State) -> &Clocks {
    s.clocks.as_ref().expect("clocks")
}

fn pawn_move(s: &State) -> String {
    s.legal
        .iter()
        .find(|a| a.starts_with('P') && a.contains('-'))
        .expect("a pawn move")
        .clone()
}

/// Waits (bounded) until `/metrics` shows `name` at `want`.
async fn metric_reaches(server: &TestServer, name: &str, want: f64) {
    let deadline = tokio::time::Instant::now() + TIMEOUT;
    loop {
        let got = server.metric(name).await;
        if got == want {
            return;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "{name} stayed at {got}, want {want}"
        );
        // Polling a counter the room task updates on its own.
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// The rooms in memory that are playing.
async fn playing_in_memory(server: &TestServer) -> f64 {
    server
        .metrics()
        .await
        .lines()
        .find_map(|l| l.strip_prefix("sannin_rooms{status=\"playing\"} "))
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(0.0)
}

/// A table of three whose first move is played after `first_after`; everyone then
/// leaves. Returns the room, the seat tokens and the state after the move.
async fn game_then_everyone_leaves(
    server: &TestServer,
    time: &ManualTime,
    first_after: Duration,
) -> (String, Vec<String>, State) {
    let mut t = Table::new(server, day_a_move()).await;
    let st = t.spectator.state().clone();
    assert_eq!(clocks(&st).settings.kind, ClockKind::Correspondence);
    assert_eq!(clocks(&st).first.remaining_ms, DAY_MS);
    time.advance(first_after);
    let action = pawn_move(t.mover().state());
    let st = t.play(&action).await;
    let tokens = t
        .players
        .iter()
        .map(|p| p.token.clone().expect("a seat token"))
        .collect();
    let room = t.room.clone();
    for c in t.players.into_iter().chain([t.spectator]) {
        c.close().await;
    }
    nobody_connected(server, &room).await;
    (room, tokens, st)
}

/// Waits (bounded) until the room has seen every connection go: only then does its
/// quiet time start, and a test may advance the clock past it.
async fn nobody_connected(server: &TestServer, room: &str) {
    let deadline = tokio::time::Instant::now() + TIMEOUT;
    loop {
        let r = server.room(room).await.room;
        let seated = [&r.seats.first, &r.seats.middle, &r.seats.last];
        if r.spectators == 0
            && seated
                .iter()
                .all(|s| s.as_ref().is_none_or(|s| !s.connected))
        {
            return;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "connections stay: {r:?}"
        );
        // Polling the summary the room publishes as it changes.
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_move_has_a_day_and_its_deadline_is_a_moment() {
    let db = TestDb::sqlite();
    let time = ManualTime::new(T0);
    let server = Setup::with_limits(limits())
        .time(time.clone())
        .start(&db)
        .await;
    let (room, _, st) = game_then_everyone_leaves(&server, &time, 10 * HOUR).await;
    // Nothing carries over: Middle has a full day, until a moment of the wall clock.
    let c = clocks(&st);
    assert_eq!(c.running, Some(Seat::Middle));
    assert_eq!(c.middle.remaining_ms, DAY_MS);
    let deadline = c.deadline_ms.expect("a correspondence deadline");
    let unix_now = time_unix(&time);
    assert_eq!(deadline, unix_now + DAY_MS);

    // Away for hours: no abandonment (the grace period is 1 s), the turn goes on.
    time.advance(5 * HOUR);
    let mut w = server.client(&room).await;
    let st = w.watch(Some("w")).await;
    assert_eq!(st.status, RoomStatus::Playing);
    assert_eq!(clocks(&st).deadline_ms, Some(deadline));
    assert_eq!(clocks(&st).middle.remaining_ms, DAY_MS - 5 * 3_600_000);
    assert!(st.seats.middle.as_ref().unwrap().abandon_at_ms.is_none());

    // The day runs out: Middle loses on time.
    time.advance(Duration::from_millis(DAY_MS) - 5 * HOUR);
    let f = w.until_event("forfeited").await;
    assert!(
        matches!(
            f,
            Event::Forfeited {
                player: Seat::Middle,
                reason: ForfeitReason::Timeout,
                ..
            }
        ),
        "{f:?}"
    );
    server.stop().await;
}

/// How often the sweep of sleeping rooms looks.
fn rooms_sweep() -> Duration {
    sannin_server::WAKE_SWEEP
}

fn time_unix(time: &ManualTime) -> u64 {
    use sannin_server::TimeSource as _;
    time.unix_ms() as u64
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_quiet_game_sleeps_and_wakes_on_demand_and_for_its_deadline() {
    let db = TestDb::sqlite();
    let time = ManualTime::new(T0);
    let server = Setup::with_limits(limits())
        .time(time.clone())
        .start(&db)
        .await;
    let (room, tokens, st) = game_then_everyone_leaves(&server, &time, HOUR).await;
    let deadline = clocks(&st).deadline_ms.unwrap();
    assert_eq!(playing_in_memory(&server).await, 1.0);

    // Nobody there, the next timer a day away: after 30 s it sleeps.
    time.advance(Duration::from_secs(31));
    metric_reaches(&server, "sannin_rooms_slept_total", 1.0).await;
    assert_eq!(playing_in_memory(&server).await, 0.0);

    // Asked for, it is loaded again, as it was.
    let details = server.room(&room).await;
    assert_eq!(details.to_move, Some(Seat::Middle));
    assert_eq!(details.moves.len(), 1);
    metric_reaches(&server, "sannin_rooms_woken_total", 1.0).await;
    let mut middle = server.client(&room).await;
    assert_eq!(middle.resume(&tokens[1]).await, Seat::Middle);
    let st = middle.state().clone();
    assert_eq!(clocks(&st).deadline_ms, Some(deadline));
    middle.chat("see you tomorrow").await;
    middle.until_chat().await;
    middle.close().await;
    nobody_connected(&server, &room).await;

    // It sleeps again; shortly before its deadline the sweep wakes it, and the
    // flag falls on time.
    time.advance(Duration::from_secs(31));
    metric_reaches(&server, "sannin_rooms_slept_total", 2.0).await;
    // An hour before: still asleep.
    time.advance(Duration::from_millis(deadline - time_unix(&time)) - HOUR);
    time.advance(rooms_sweep());
    assert_eq!(server.metric("sannin_rooms_woken_total").await, 1.0);
    // Thirty seconds before: awake, on time for the deadline.
    time.advance(HOUR - Duration::from_secs(30));
    metric_reaches(&server, "sannin_rooms_woken_total", 2.0).await;
    let mut w = server.client(&room).await;
    let st = w.watch(Some("w")).await;
    assert_eq!(st.status, RoomStatus::Playing);
    time.advance(Duration::from_secs(30));
    let f = w.until_event("forfeited").await;
    assert!(
        matches!(
            f,
            Event::Forfeited {
                player: Seat::Middle,
                reason: ForfeitReason::Timeout,
                ..
            }
        ),
        "{f:?}"
    );
    // Nothing was lost while it slept: the move and the chat line are there.
    let st = w.sync().await;
    assert_eq!(st.moves.as_deref(), Some(&details.moves[..]));
    let mut again = server.client(&room).await;
    again.watch(Some("again")).await;
    assert_eq!(again.until_chat_history().await, ["see you tomorrow"]);
    server.stop().await;
}

/// A restart (and any time it was down) does not move the deadline.
async fn deadline_survives_a_kill(db: TestDb) {
    let time = ManualTime::new(T0);
    let server = Setup::with_limits(limits())
        .time(time.clone())
        .start(&db)
        .await;
    let (room, _, st) = game_then_everyone_leaves(&server, &time, HOUR).await;
    let deadline = clocks(&st).deadline_ms.unwrap();
    server.kill();

    // Down for three hours (after the hour the first move took).
    let later = ManualTime::new(T0);
    later.advance(4 * HOUR);
    let server = Setup::with_limits(limits())
        .time(later.clone())
        .start(&db)
        .await;
    let mut w = server.client(&room).await;
    let st = w.watch(Some("w")).await;
    let c = clocks(&st);
    assert_eq!(c.running, Some(Seat::Middle));
    assert_eq!(c.deadline_ms, Some(deadline));
    let left = c.middle.remaining_ms;
    assert!(
        left <= DAY_MS - 3 * 3_600_000 && left > DAY_MS - 3 * 3_600_000 - 60_000,
        "{left}"
    );
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_deadline_survives_a_kill_on_sqlite() {
    deadline_survives_a_kill(TestDb::sqlite()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_deadline_survives_a_kill_on_postgres() {
    let Some(db) = TestDb::postgres().await else {
        return;
    };
    deadline_survives_a_kill(db).await;
}

/// Sleeping rooms are not restored at start; they wake when asked for.
async fn sleepers_stay_asleep_across_a_restart(db: TestDb) {
    let time = ManualTime::new(T0);
    let server = Setup::with_limits(limits())
        .time(time.clone())
        .start(&db)
        .await;
    let (room, tokens, _) = game_then_everyone_leaves(&server, &time, HOUR).await;
    time.advance(Duration::from_secs(31));
    metric_reaches(&server, "sannin_rooms_slept_total", 1.0).await;
    server.stop().await;

    let server = Setup::with_limits(limits())
        .time(ManualTime::new(T0))
        .start(&db)
        .await;
    assert_eq!(
        playing_in_memory(&server).await,
        0.0,
        "not restored at start"
    );
    let mut middle = server.client(&room).await;
    assert_eq!(middle.resume(&tokens[1]).await, Seat::Middle);
    let st = middle
        .until_state("Middle's legal moves", |s| !s.legal.is_empty())
        .await;
    middle.act(&pawn_move(&st)).await;
    let st = middle
        .until_state("Last to move", |s| s.to_move == Some(Seat::Last))
        .await;
    assert_eq!(st.moves.map(|m| m.len()).unwrap_or(2), 2);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sleepers_stay_asleep_across_a_restart_on_sqlite() {
    sleepers_stay_asleep_across_a_restart(TestDb::sqlite()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sleepers_stay_asleep_across_a_restart_on_postgres() {
    let Some(db) = TestDb::postgres().await else {
        return;
    };
    sleepers_stay_asleep_across_a_restart(db).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bad_correspondence_clock_is_refused() {
    let (_db, server) = Setup::with_limits(limits()).sqlite().await;
    for clock in [
        json!({"kind": "correspondence"}),
        json!({"kind": "correspondence", "seconds_per_move": 15 * 86_400}),
        json!({"kind": "correspondence", "seconds_per_move": 3600, "main_seconds": 60}),
    ] {
        let (status, v) = server
            .post_json("/api/rooms", &json!({"clock": clock}))
            .await;
        assert_eq!(status, 400, "{clock}: {v}");
        assert!(
            ["bad_clock", "bad_request"].contains(&TestServer::error_code(&v)),
            "{v}"
        );
    }
    let id = server.create_room(day_a_move()).await;
    let (_, text) = server.get_text(&format!("/api/rooms/{id}/record")).await;
    assert!(text.contains("[TimeControl \"1/86400\"]"), "{text}");
    let _ = Client::connect(&server.ws_url(&id)).await;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sleeping_room_holds_no_place_under_max_rooms() {
    let db = TestDb::sqlite();
    let time = ManualTime::new(T0);
    let server = Setup::with_limits(LimitArgs {
        rooms: RoomArgs {
            max_rooms: 3,
            ..limits().rooms
        },
        ..limits()
    })
    .time(time.clone())
    .start(&db)
    .await;
    let (room, _tokens, _) = game_then_everyone_leaves(&server, &time, HOUR).await;
    // It sleeps and is woken by a page three times over.
    for n in 1..=3 {
        time.advance(Duration::from_secs(31));
        metric_reaches(&server, "sannin_rooms_slept_total", f64::from(n)).await;
        assert_eq!(server.room(&room).await.moves.len(), 1);
        metric_reaches(&server, "sannin_rooms_woken_total", f64::from(n)).await;
        nobody_connected(&server, &room).await;
    }
    // Awake, it holds one place of the three: two more rooms, then the cap.
    for _ in 0..2 {
        let (s, v) = server.post_json("/api/rooms", &json!({})).await;
        assert_eq!(s, 201, "{v}");
    }
    let (s, v) = server.post_json("/api/rooms", &json!({})).await;
    assert_eq!(
        (s, TestServer::error_code(&v)),
        (429, "too_many_rooms"),
        "{v}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_correspondence_room_nobody_starts_expires_after_its_days() {
    let db = TestDb::sqlite();
    let time = ManualTime::new(T0);
    let server = Setup::with_limits(limits())
        .time(time.clone())
        .start(&db)
        .await;
    let room = server.create_room(day_a_move()).await;
    let mut ann = server.client(&room).await;
    ann.join(Some(Seat::First), "Ann").await;
    ann.close().await;
    nobody_connected(&server, &room).await;
    // Six days on (it slept meanwhile), its seat is still kept for its player.
    time.advance(Duration::from_secs(6 * 86_400));
    metric_reaches(&server, "sannin_rooms_slept_total", 1.0).await;
    let r = server.room(&room).await.room;
    assert!(r.seats.first.is_some(), "kept");
    // After the seventh, nobody having come, it is gone.
    time.advance(Duration::from_secs(86_400 + 60));
    let deadline = tokio::time::Instant::now() + TIMEOUT;
    loop {
        let (s, _) = server.get_json(&format!("/api/rooms/{room}")).await;
        if s == 404 {
            break;
        }
        assert!(tokio::time::Instant::now() < deadline, "still there");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// The ids the lobby lists as waiting.
async fn waiting_listed(server: &TestServer) -> Vec<String> {
    let (s, v) = server.get_json("/api/rooms?status=waiting").await;
    assert_eq!(s, 200, "{v}");
    v.as_array()
        .expect("a list")
        .iter()
        .map(|r| r["id"].as_str().expect("an id").to_string())
        .collect()
}

/// The rooms in memory that wait for players.
async fn waiting_in_memory(server: &TestServer) -> f64 {
    server
        .metrics()
        .await
        .lines()
        .find_map(|l| l.strip_prefix("sannin_rooms{status=\"waiting\"} "))
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(0.0)
}

/// A correspondence room waiting for players sleeps once everyone has gone; the lobby
/// lists it all the same, across a restart, and the next player to come wakes it.
async fn a_waiting_room_sleeps_listed(db: TestDb) {
    let time = ManualTime::new(T0);
    let server = Setup::with_limits(limits())
        .time(time.clone())
        .start(&db)
        .await;
    let room = server.create_room(day_a_move()).await;
    let mut ann = server.client(&room).await;
    ann.join(Some(Seat::First), "Ann").await;
    let ann_token = ann.token.clone().expect("a seat token");
    ann.close().await;
    nobody_connected(&server, &room).await;
    time.advance(Duration::from_secs(31));
    metric_reaches(&server, "sannin_rooms_slept_total", 1.0).await;
    assert_eq!(waiting_in_memory(&server).await, 0.0, "out of memory");
    assert_eq!(
        waiting_listed(&server).await,
        vec![room.clone()],
        "still listed"
    );
    server.stop().await;

    let time = ManualTime::new(T0);
    let server = Setup::with_limits(limits())
        .time(time.clone())
        .start(&db)
        .await;
    assert_eq!(
        waiting_in_memory(&server).await,
        0.0,
        "not restored at start"
    );
    assert_eq!(
        waiting_listed(&server).await,
        vec![room.clone()],
        "listed after a restart"
    );
    // Bob comes from the lobby: the room wakes, Ann's seat kept.
    let mut bob = server.client(&room).await;
    bob.join(Some(Seat::Middle), "Bob").await;
    metric_reaches(&server, "sannin_rooms_woken_total", 1.0).await;
    let r = server.room(&room).await.room;
    assert_eq!(r.seats.first.as_ref().map(|s| s.name.as_str()), Some("Ann"));
    assert_eq!(
        r.seats.middle.as_ref().map(|s| s.name.as_str()),
        Some("Bob")
    );
    assert_eq!(waiting_in_memory(&server).await, 1.0);
    assert_eq!(
        waiting_listed(&server).await,
        vec![room.clone()],
        "listed once"
    );
    let mut ann = server.client(&room).await;
    assert_eq!(ann.resume(&ann_token).await, Seat::First);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_waiting_correspondence_room_sleeps_listed_in_the_lobby_on_sqlite() {
    a_waiting_room_sleeps_listed(TestDb::sqlite()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_waiting_correspondence_room_sleeps_listed_in_the_lobby_on_postgres() {
    let Some(db) = TestDb::postgres().await else {
        return;
    };
    a_waiting_room_sleeps_listed(db).await;
}
