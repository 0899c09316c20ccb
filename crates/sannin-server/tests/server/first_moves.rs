//! A game's first moves over a real server: no clock runs before a player's first
//! move, so that each player's clock starts at its own first turn after it (people
//! and bots alike, across a restart: docs/protocol.md §11); and an abort at a table
//! of friends keeps the table — the same players seated, bots too, the chat kept —
//! waiting for `ready` again, on SQLite and PostgreSQL and after a restart
//! (docs/protocol.md §17).

use std::time::Duration;

use crate::common;

use common::{on_both_databases, Client, Setup, Table, TestDb, TestServer};
use sannin_protocol::{ClientMsg, Clocks, ErrorCode, Event, RoomStatus, Seat, State};
use sannin_server::{ConnectionArgs, LimitArgs, ManualTime, RoomArgs};
use serde_json::json;

/// Time-source ms at which every manual clock starts.
const T0: u64 = 1_000_000;

/// Three minutes and two seconds a move.
fn fischer() -> serde_json::Value {
    json!({"clock": {"kind": "fischer", "main_seconds": 180, "increment_seconds": 2}})
}

/// A server whose clocks read `time`, charging exactly (no lag credit).
async fn start(db: &TestDb, time: &ManualTime) -> TestServer {
    let limits = LimitArgs {
        rooms: RoomArgs {
            lag_credit_max_ms: 0,
            ..RoomArgs::default()
        },
        connections: ConnectionArgs {
            rate_per_second: 1000.0,
            rate_burst: 1000,
            ..ConnectionArgs::default()
        },
        ..LimitArgs::default()
    };
    Setup::with_limits(limits)
        .time(time.clone())
        .start(db)
        .await
}

fn clocks(s: &State) -> &Clocks {
    s.clocks.as_ref().expect("clocks in the state")
}

/// Each player's main time left, First, Middle, Last.
fn left(c: &Clocks) -> [u64; 3] {
    [
        c.first.remaining_ms,
        c.middle.remaining_ms,
        c.last.remaining_ms,
    ]
}

/// A board move for the player to move in `s` (a pawn's).
fn a_move(s: &State) -> String {
    s.legal
        .iter()
        .find(|a| a.starts_with('P') && a.contains('-'))
        .or_else(|| s.legal.first())
        .expect("a legal action")
        .clone()
}

/// Plays a move for the player to move; the state everyone then has.
async fn play_one(t: &mut Table) -> State {
    let s = t.mover().sync().await;
    t.play(&a_move(&s)).await
}

/// The clocks of the last `action` event the spectator saw.
fn after_action(t: &Table) -> Clocks {
    *t.spectator
        .last_event("action")
        .clocks()
        .expect("clocks on the action")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_clock_runs_before_each_players_first_move() {
    let db = TestDb::sqlite();
    let time = ManualTime::new(T0);
    let server = start(&db, &time).await;
    let mut t = Table::new(&server, fischer()).await;
    let s = t.spectator.state().clone();
    assert_eq!(clocks(&s).running, None, "nothing runs at the start");
    assert_eq!(left(clocks(&s)), [180_000; 3]);

    // First thinks 21 s: nothing is charged, its clock is not running.
    time.advance(Duration::from_secs(21));
    let s = t.spectator.sync().await;
    assert_eq!((clocks(&s).running, left(clocks(&s))), (None, [180_000; 3]));
    play_one(&mut t).await;
    let c = after_action(&t);
    assert_eq!(
        (c.running, left(&c)),
        (None, [180_000; 3]),
        "First's first move: not charged, no increment, Middle's first turn"
    );
    // Middle and Last take their time over their first moves: not charged either.
    time.advance(Duration::from_secs(5));
    play_one(&mut t).await;
    let c = after_action(&t);
    assert_eq!((c.running, left(&c)), (None, [180_000; 3]));
    time.advance(Duration::from_secs(7));
    play_one(&mut t).await;
    let c = after_action(&t);
    assert_eq!(
        (c.running, left(&c)),
        (Some(Seat::First), [180_000; 3]),
        "First's second turn: its clock runs"
    );
    // From each player's second move on, the clocks run as ever.
    time.advance(Duration::from_secs(4));
    let s = t.spectator.sync().await;
    assert_eq!(left(clocks(&s)), [176_000, 180_000, 180_000]);
    play_one(&mut t).await;
    let c = after_action(&t);
    assert_eq!(c.running, Some(Seat::Middle));
    assert_eq!(left(&c), [178_000, 180_000, 180_000], "4 s off, 2 s on");
    time.advance(Duration::from_secs(3));
    play_one(&mut t).await;
    assert_eq!(left(&after_action(&t)), [178_000, 179_000, 180_000]);
    // The history stores what was charged: after a restart the clocks are the same.
    let tokens: Vec<String> = t.players.iter().map(|p| p.token.clone().unwrap()).collect();
    let room = t.room.clone();
    server.kill();
    drop(t);
    let server = start(&db, &time).await;
    let mut c = server.client(&room).await;
    c.resume(&tokens[2]).await;
    let s = c.next_state().await;
    assert_eq!(clocks(&s).running, Some(Seat::Last));
    assert_eq!(left(clocks(&s)), [178_000, 179_000, 180_000]);
    server.stop().await;
}

/// A restart during a player's first turn leaves its clock stopped; its first move is
/// not charged, then its clock runs on its second turn.
async fn restart_before_a_first_move(db: TestDb) {
    let time = ManualTime::new(T0);
    let server = start(&db, &time).await;
    let mut t = Table::new(&server, fischer()).await;
    time.advance(Duration::from_secs(3));
    play_one(&mut t).await;
    let tokens: Vec<String> = t.players.iter().map(|p| p.token.clone().unwrap()).collect();
    let room = t.room.clone();
    server.kill();
    drop(t);

    let server = start(&db, &time).await;
    let mut players = Vec::new();
    for token in &tokens {
        let mut c = server.client(&room).await;
        c.resume(token).await;
        c.next_state().await;
        players.push(c);
    }
    time.advance(Duration::from_secs(10));
    let s = players[1].sync().await;
    assert_eq!(s.to_move, Some(Seat::Middle));
    assert_eq!(
        (clocks(&s).running, left(clocks(&s))),
        (None, [180_000; 3]),
        "Middle's first turn, restored: no clock runs"
    );
    players[1].act(&a_move(&s)).await;
    let s = players[2]
        .until_state("Last to move", |s| s.to_move == Some(Seat::Last))
        .await;
    assert_eq!((clocks(&s).running, left(clocks(&s))), (None, [180_000; 3]));
    players[2].act(&a_move(&s)).await;
    let s = players[0]
        .until_state("First to move", |s| s.to_move == Some(Seat::First))
        .await;
    assert_eq!(clocks(&s).running, Some(Seat::First));
    time.advance(Duration::from_secs(2));
    let s = players[0].sync().await;
    assert_eq!(left(clocks(&s)), [178_000, 180_000, 180_000]);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_restart_during_a_first_turn_keeps_its_clock_stopped() {
    on_both_databases(restart_before_a_first_move).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bots_first_move_is_not_charged_either() {
    let time = ManualTime::new(T0);
    let server = start(&TestDb::sqlite(), &time).await;
    let body = json!({"bots": {"middle": 0, "last": 0}, "clock": fischer()["clock"]});
    let room = server.create_room(body).await;
    let mut me = server.client(&room).await;
    me.join(Some(Seat::First), "me").await;
    me.send(ClientMsg::Ready).await;
    let s = me.until_playing().await;
    assert_eq!(clocks(&s).running, None);
    time.advance(Duration::from_secs(5));
    me.act(&a_move(&s)).await;
    // Each bot answers once its turn's least time has passed on the time source.
    for next in [Seat::Middle, Seat::Last, Seat::First] {
        let s = me
            .until_state("the next turn", |s| s.to_move == Some(next))
            .await;
        if next != Seat::First {
            assert_eq!(clocks(&s).running, None, "{next:?}'s first turn");
            time.advance(Duration::from_secs(1));
        }
    }
    let s = me.sync().await;
    assert_eq!(clocks(&s).running, Some(Seat::First));
    assert_eq!(
        left(clocks(&s)),
        [180_000; 3],
        "nobody's first move charged"
    );
    // The bots' second turns run their clocks.
    me.act(&a_move(&s)).await;
    let s = me
        .until_state("Middle's second turn", |s| s.to_move == Some(Seat::Middle))
        .await;
    assert_eq!(clocks(&s).running, Some(Seat::Middle));
    server.stop().await;
}

/// The state of `c` once its room waits again after an abort.
async fn waiting_again(c: &mut Client) -> State {
    c.until_state("the table waiting again", |s| {
        s.status == RoomStatus::Waiting
    })
    .await
}

async fn abort_keeps_the_table(db: TestDb) {
    let time = ManualTime::new(T0);
    let server = start(&db, &time).await;
    let mut t = Table::new(&server, fischer()).await;
    t.players[0].chat("good luck").await;
    for c in t.players.iter_mut() {
        c.until_chat().await;
    }
    play_one(&mut t).await;
    play_one(&mut t).await;
    t.players[1].send(ClientMsg::Abort).await;
    for c in t.clients_mut() {
        let e = c.until_event("game_aborted").await;
        assert_eq!(e, Event::GameAborted { seat: Seat::Middle });
        let s = waiting_again(c).await;
        assert_eq!(s.moves.as_deref(), Some(&[][..]), "the game is gone");
        assert_eq!(s.position, s.start_position);
        assert_eq!(s.to_move, None);
        assert_eq!(
            (clocks(&s).running, left(clocks(&s))),
            (None, [180_000; 3]),
            "full clocks, none running"
        );
        for (i, seat) in Seat::ALL.into_iter().enumerate() {
            let info = s.seats.get(seat).expect("still seated");
            assert_eq!(info.name, format!("player{i}"));
            assert!(!info.ready, "{seat:?} must be ready again");
            assert!(info.connected);
        }
    }
    assert!(
        t.players
            .iter()
            .all(|p| p.events_of("table_aborted").is_empty()),
        "a table of friends is not given up"
    );
    // The sockets stay open: the room answers, and a move is refused until the start.
    t.players[0].act("P3c-4d").await;
    t.players[0].expect_error(ErrorCode::GameNotRunning).await;
    let details = server.room(&t.room).await;
    assert_eq!(details.room.status, RoomStatus::Waiting);
    assert!(details.moves.is_empty());
    assert_eq!(details.room.result, None);
    assert!(server.lists(&t.room).await, "listed as waiting again");
    let (code, history) = server
        .get_json(&format!("/api/rooms/{}/history", t.room))
        .await;
    assert_eq!((code, history["plies"].clone()), (200, json!([])));

    // A restart finds the room waiting, its seats taken and its chat kept.
    let tokens: Vec<String> = t.players.iter().map(|p| p.token.clone().unwrap()).collect();
    let room = t.room.clone();
    server.kill();
    drop(t);
    let server = start(&db, &time).await;
    let mut players = Vec::new();
    for token in &tokens {
        let mut c = server.client(&room).await;
        c.resume(token).await;
        assert_eq!(c.until_chat_history().await, ["good luck"]);
        players.push(c);
    }
    let s = players[0].sync().await;
    assert_eq!(s.status, RoomStatus::Waiting);
    assert!(Seat::ALL
        .into_iter()
        .all(|seat| s.seats.get(seat).is_some_and(|i| !i.ready)));
    // Everyone ready: a new game starts, its clocks waiting for First's first move.
    for p in players.iter_mut() {
        p.send(ClientMsg::Ready).await;
    }
    for p in players.iter_mut() {
        let s = p.until_playing().await;
        assert_eq!(s.moves.as_deref(), Some(&[][..]));
        assert_eq!(clocks(&s).running, None);
    }
    time.advance(Duration::from_secs(2));
    let s = players[0].sync().await;
    players[0].act(&a_move(&s)).await;
    players[1]
        .until_state("Middle to move", |s| s.to_move == Some(Seat::Middle))
        .await;
    assert_eq!(server.room(&room).await.moves.len(), 1);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_abort_at_a_table_of_friends_keeps_the_table_waiting() {
    on_both_databases(abort_keeps_the_table).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bots_stay_seated_when_a_table_of_friends_aborts() {
    let server = Setup::default().start(&TestDb::sqlite()).await;
    let room = server.create_room(json!({"bots": {"last": 0}})).await;
    let mut a = server.client(&room).await;
    a.join(Some(Seat::First), "Ann").await;
    let mut b = server.client(&room).await;
    b.join(Some(Seat::Middle), "Bo").await;
    let mut watcher = server.client(&room).await;
    watcher.watch(None).await;
    a.send(ClientMsg::Ready).await;
    b.send(ClientMsg::Ready).await;
    let s = a.until_playing().await;
    a.act(&a_move(&s)).await;
    b.until_state("Middle to move", |s| s.to_move == Some(Seat::Middle))
        .await;
    b.send(ClientMsg::Abort).await;
    for c in [&mut a, &mut b, &mut watcher] {
        c.until_event("game_aborted").await;
        let s = waiting_again(c).await;
        let last = s.seats.last.clone().expect("the bot stays");
        assert_eq!((last.bot, last.ready), (Some(0), true));
        assert!(s.seats.first.as_ref().is_some_and(|i| !i.ready));
    }
    a.send(ClientMsg::Ready).await;
    b.send(ClientMsg::Ready).await;
    let s = watcher.until_playing().await;
    assert_eq!(s.seats.last.as_ref().and_then(|i| i.bot), Some(0));
    server.stop().await;
}
