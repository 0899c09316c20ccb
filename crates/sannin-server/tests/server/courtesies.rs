//! Abort, giving time and taking a move back (docs/protocol.md §17), and `/api/tv`,
//! over a real server: an abort in the first moves gives the game up (a table of
//! friends then waits again: `first_moves.rs`) and is refused later; 15 s given reach the clock; a move taken back once every other player
//! agreed (bots at once) is gone from the game and from the database, a refusal or
//! any action ends the request, and a rated game takes nothing back.

use std::time::Duration;

use crate::common;

use common::{on_both_databases, register_from, source, Client, Setup, Table, TestDb, TestServer};
use sannin_protocol::{ClientMsg, ErrorCode, Event, RoomStatus, Seat, State};
use sannin_server::ManualTime;
use serde_json::json;

/// A board move for the player to move in `s` (a pawn's, when it has one).
fn a_move(s: &State) -> String {
    s.legal
        .iter()
        .find(|a| a.starts_with('P') && a.contains('-'))
        .or_else(|| s.legal.first())
        .expect("a legal action")
        .clone()
}

/// Plays one move of the player to move.
async fn play_one(t: &mut Table) -> String {
    let s = t.mover().state().clone();
    let s = if s.to_move == s.you {
        s
    } else {
        t.mover().sync().await
    };
    let m = a_move(&s);
    t.play(&m).await;
    m
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_game_is_aborted_in_its_first_moves_only() {
    let server = Setup::default().start(&TestDb::sqlite()).await;
    let mut t = Table::new(&server, json!({})).await;
    play_one(&mut t).await;
    play_one(&mut t).await;
    t.players[1].send(ClientMsg::Abort).await;
    for c in t.clients_mut() {
        let e = c.until_event("game_aborted").await;
        assert_eq!(e, Event::GameAborted { seat: Seat::Middle });
    }
    let details = server.room(&t.room).await;
    assert_eq!(
        (details.room.status, details.moves.len()),
        (RoomStatus::Waiting, 0)
    );

    let mut t = Table::new(&server, json!({})).await;
    for _ in 0..6 {
        play_one(&mut t).await;
    }
    t.players[2].send(ClientMsg::Abort).await;
    t.players[2].expect_error(ErrorCode::TooLateToAbort).await;
    t.spectator.send(ClientMsg::Abort).await;
    t.spectator.expect_error(ErrorCode::NotSeated).await;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fifteen_seconds_given_reach_the_clock() {
    let time = ManualTime::new(1_000_000);
    let server = Setup::default()
        .time(time.clone())
        .start(&TestDb::sqlite())
        .await;
    let clock = json!({"clock": {"kind": "fischer", "main_seconds": 300, "increment_seconds": 0}});
    let mut t = Table::new(&server, clock).await;
    t.players[0]
        .send(ClientMsg::GiveTime { seat: Seat::Last })
        .await;
    let e = t.spectator.until_event("time_given").await;
    assert_eq!(
        e,
        Event::TimeGiven {
            from: Seat::First,
            to: Seat::Last,
            ms: 15_000
        }
    );
    let s = t.spectator.next_state().await;
    let c = s.clocks.expect("clocks");
    assert_eq!(
        (c.last.remaining_ms, c.middle.remaining_ms),
        (315_000, 300_000)
    );
    t.players[0]
        .send(ClientMsg::GiveTime { seat: Seat::First })
        .await;
    t.players[0].expect_error(ErrorCode::CannotGiveTime).await;
    // Once a move to each opponent: a second gift now is refused, and sends nobody
    // a new state; to the other opponent it goes.
    t.players[0]
        .send(ClientMsg::GiveTime { seat: Seat::Last })
        .await;
    let e = t.players[0].expect_error(ErrorCode::CannotGiveTime).await;
    assert!(e.contains("already"), "{e}");
    t.players[0]
        .send(ClientMsg::GiveTime { seat: Seat::Middle })
        .await;
    t.spectator.until_event("time_given").await;
    let s = t.spectator.next_state().await;
    let c = s.clocks.expect("clocks");
    assert_eq!(
        (c.last.remaining_ms, c.middle.remaining_ms),
        (315_000, 315_000)
    );
    // After a move, First may give Last time again.
    play_one(&mut t).await;
    t.players[0]
        .send(ClientMsg::GiveTime { seat: Seat::Last })
        .await;
    t.spectator.until_event("time_given").await;
    // No clock, no time to give.
    let mut plain = Table::new(&server, json!({})).await;
    plain.players[1]
        .send(ClientMsg::GiveTime { seat: Seat::First })
        .await;
    plain.players[1]
        .expect_error(ErrorCode::CannotGiveTime)
        .await;
    server.stop().await;
}

async fn takeback_by_agreement(db: TestDb) {
    let server = Setup::default().start(&db).await;
    let mut t = Table::new(&server, json!({})).await;
    let start = t.spectator.state().position.clone();
    let first = play_one(&mut t).await;
    // Only the player who made the last move asks.
    t.players[1].send(ClientMsg::OfferTakeback).await;
    t.players[1].expect_error(ErrorCode::NoTakeback).await;
    t.players[2].send(ClientMsg::AcceptTakeback).await;
    t.players[2].expect_error(ErrorCode::NoTakeback).await;
    // Asked, one agrees, one refuses: the request ends.
    t.players[0].send(ClientMsg::OfferTakeback).await;
    t.spectator.until_event("takeback_offered").await;
    t.players[1].send(ClientMsg::AcceptTakeback).await;
    let s = t
        .spectator
        .until_state("Middle agreed", |s| {
            s.takeback
                .as_ref()
                .is_some_and(|r| r.accepted == [Seat::Middle])
        })
        .await;
    assert_eq!(s.takeback.unwrap().seat, Seat::First);
    t.players[2].send(ClientMsg::DeclineTakeback).await;
    let e = t.spectator.until_event("takeback_declined").await;
    assert_eq!(e, Event::TakebackDeclined { seat: Seat::Last });
    t.spectator
        .until_state("no request", |s| s.takeback.is_none())
        .await;
    // Asked again, both agree: the move is gone.
    t.players[0].send(ClientMsg::OfferTakeback).await;
    t.spectator.until_event("takeback_offered").await;
    t.players[1].send(ClientMsg::AcceptTakeback).await;
    t.players[2].send(ClientMsg::AcceptTakeback).await;
    let e = t.spectator.until_event("took_back").await;
    assert_eq!(
        e,
        Event::TookBack {
            seat: Seat::First,
            ply: 1
        }
    );
    let s = t
        .spectator
        .until_state("the move taken back", |s| s.position == start)
        .await;
    assert_eq!((s.to_move, s.takeback), (Some(Seat::First), None));
    assert_eq!(s.moves.as_deref(), Some(&[][..]));
    // Play on; a request ends with the next action.
    for p in t.players.iter_mut() {
        p.until_state("the move taken back", |s| s.position == start)
            .await;
    }
    let again = play_one(&mut t).await;
    assert_eq!(again, first, "the same legal move again");
    t.players[0].send(ClientMsg::OfferTakeback).await;
    t.spectator
        .until_state("the request", |s| s.takeback.is_some())
        .await;
    let second = play_one(&mut t).await;
    let s = t.spectator.sync().await;
    assert_eq!(s.takeback, None);
    t.players[0].send(ClientMsg::OfferTakeback).await;
    t.players[0].expect_error(ErrorCode::NoTakeback).await;
    // The database agrees: after a restart, the game is the two moves.
    let room = t.room.clone();
    server.kill();
    drop(t);
    let server = Setup::default().start(&db).await;
    let mut c = server.client(&room).await;
    let s = c.sync().await;
    assert_eq!(s.moves, Some(vec![first, second]));
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_move_is_taken_back_when_both_others_agree() {
    on_both_databases(takeback_by_agreement).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bots_agree_to_take_a_move_back() {
    // Time stands still: the bots wait for their turn's least time, so the request
    // comes before Middle's bot moves.
    let time = ManualTime::new(1_000_000);
    let server = Setup::default().time(time).start(&TestDb::sqlite()).await;
    let clock = json!({"kind": "fischer", "main_seconds": 300, "increment_seconds": 2});
    let room = server
        .create_room(json!({"bots": {"middle": 0, "last": 0}, "clock": clock}))
        .await;
    let mut me = server.client(&room).await;
    me.join(Some(Seat::First), "me").await;
    me.send(ClientMsg::Ready).await;
    let s = me.until_playing().await;
    me.act(&a_move(&s)).await;
    me.until_state("Middle to move", |s| s.to_move == Some(Seat::Middle))
        .await;
    me.send(ClientMsg::OfferTakeback).await;
    me.until_event("took_back").await;
    let s = me
        .until_state("back to me", |s| s.to_move == Some(Seat::First))
        .await;
    assert_eq!(s.position, s.start_position);
    // Time stood still: the clock is as before the move, its increment taken back.
    assert_eq!(s.clocks.unwrap().first.remaining_ms, 300_000);
    server.stop().await;
}

/// Asks `/api/tv` until it answers `room` (its answer is kept a few seconds).
async fn on_tv(server: &TestServer, room: Option<&str>) {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    while server.get_json("/api/tv").await.1["room"].as_str() != room {
        assert!(
            tokio::time::Instant::now() < deadline,
            "{room:?} is not on TV"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tv_shows_the_top_rated_game_then_people_then_bots() {
    let time = ManualTime::new(1_000_000);
    let server = Setup::default().time(time).start(&TestDb::sqlite()).await;
    on_tv(&server, None).await;
    let bots = server
        .create_room(json!({"bots": {"first": 0, "middle": 0, "last": 0}}))
        .await;
    let mut watcher = server.client(&bots).await;
    watcher.until_playing().await;
    on_tv(&server, Some(&bots)).await;
    let people = Table::new(&server, json!({})).await;
    on_tv(&server, Some(&people.room)).await;
    // A private game with more watchers never shows.
    let private = Table::new(&server, json!({"private": true})).await;
    let _watchers = [
        server.client(&private.room).await,
        server.client(&private.room).await,
    ];
    tokio::time::sleep(Duration::from_secs(4)).await;
    on_tv(&server, Some(&people.room)).await;
    // A rated game comes first.
    let rated = server.create_room(json!({"rated": true})).await;
    let mut seated = Vec::new();
    for (i, seat) in Seat::ALL.into_iter().enumerate() {
        let cookie = register_from(&server, source(70 + i), &format!("rated{i}")).await;
        let mut c = Client::connect_with_cookie(&server.ws_url(&rated), &cookie).await;
        c.join(Some(seat), "x").await;
        c.send(ClientMsg::Ready).await;
        seated.push(c);
    }
    for c in seated.iter_mut() {
        c.until_playing().await;
    }
    on_tv(&server, Some(&rated)).await;
    server.stop().await;
}
