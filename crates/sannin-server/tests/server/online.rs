//! Online play over real sockets: clocks (on a hand-driven time source, no sleeps),
//! lag credit, clocks across a restart, draws by agreement, chat channels and limits,
//! rematch with rotated seats, private rooms, and the state's newer fields.

use crate::common;

use std::time::Duration;

use common::*;
use sannin_protocol::{
    Channel, ClientMsg, ClockKind, Clocks, ErrorCode, Event, ForfeitReason, RoomStatus, RulesEvent,
    Seat, SeatMove, State,
};
use sannin_rules::{EndReason, Game, LossReason, Player};
use sannin_server::{ChatArgs, ConnectionArgs, LimitArgs, ManualTime, RoomArgs};
use serde_json::json;
use tokio_tungstenite::tungstenite::Message;

/// Time-source ms at which every manual clock starts (a pong stamp must be ≥ 0).
const T0: u64 = 1_000_000;

fn limits() -> LimitArgs {
    LimitArgs {
        rooms: RoomArgs {
            grace_seconds: 30.0,
            finished_idle_seconds: 30.0,
            // Clock tests that are not about lag: no credit, so charges are exact.
            lag_credit_max_ms: 0,
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

/// A server with `limits` whose clocks read a hand-driven time source.
async fn start(db: &TestDb, limits: &LimitArgs) -> (TestServer, ManualTime) {
    let time = ManualTime::new(T0);
    let server = Setup::with_limits(limits.clone())
        .time(time.clone())
        .start(db)
        .await;
    (server, time)
}

fn clocks(state: &State) -> &Clocks {
    state.clocks.as_ref().expect("clocks in the state")
}

fn remaining(state: &State, seat: Seat) -> u64 {
    clocks(state).get(seat).remaining_ms
}

/// The main time left of `seat` in the clocks a lead event carries.
fn remaining_after(event: &Event, seat: Seat) -> u64 {
    event
        .clocks()
        .unwrap_or_else(|| panic!("clocks in {event:?}"))
        .get(seat)
        .remaining_ms
}

/// A legal action of the player to move (the first pawn push the server offers).
fn some_action(state: &State) -> String {
    state
        .legal
        .iter()
        .find(|a| a.starts_with('P') && a.contains('-'))
        .expect("a pawn move")
        .clone()
}

fn forfeited(player: Seat, reason: ForfeitReason) -> impl Fn(&Event) -> bool {
    move |e| matches!(e, Event::Forfeited { player: p, reason: r, .. } if *p == player && *r == reason)
}

/// Plays any pawn move for the player to move.
trait PlayAny {
    async fn play_any(&mut self) -> State;
}

impl PlayAny for Table {
    async fn play_any(&mut self) -> State {
        let a = some_action(self.mover().state());
        self.play(&a).await
    }
}

/// Plays each player's first move, which no clock is charged for (docs/protocol.md
/// §11): the clocks run from First's second turn on.
async fn first_round(t: &mut Table) {
    for _ in 0..3 {
        t.play_any().await;
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
    let st = t.spectator.state().clone();
    assert_eq!(clocks(&st).settings.kind, ClockKind::SuddenDeath);
    assert_eq!(
        clocks(&st).running,
        None,
        "no clock before First's first move"
    );
    first_round(&mut t).await;
    let st = t.spectator.state().clone();
    assert_eq!(clocks(&st).running, Some(Seat::First));
    assert_eq!(remaining(&st, Seat::First), 10_000);
    let details = server.room(&t.room).await.room;
    assert_eq!(details.clock.unwrap().main_ms, 10_000);

    time.advance(Duration::from_millis(4_000));
    let st = t.play_any().await;
    let action = t.spectator.last_event("action");
    assert_eq!(remaining_after(&action, Seat::First), 6_000, "{action:?}");
    assert_eq!(action.clocks().unwrap().running, Some(Seat::Middle));
    assert_eq!(remaining(&st, Seat::First), 6_000);
    assert_eq!(remaining(&st, Seat::Middle), 10_000);

    // The state shows the running clock as of when it was sent.
    time.advance(Duration::from_millis(2_500));
    let st = t.spectator.sync().await;
    assert_eq!(remaining(&st, Seat::Middle), 7_500);

    // Middle's 10 s run out: it loses on time (RULES §12.10).
    time.advance(Duration::from_millis(7_500));
    let f = t.spectator.until_event("forfeited").await;
    assert!(forfeited(Seat::Middle, ForfeitReason::Timeout)(&f), "{f:?}");
    assert_eq!(remaining_after(&f, Seat::Middle), 0);
    let el = t.spectator.until_event("eliminated").await;
    assert!(
        matches!(
            el,
            Event::Rules(RulesEvent::Eliminated {
                reason: LossReason::Timeout,
                ..
            })
        ),
        "{el:?}"
    );
    let st = t.spectator.next_state().await;
    assert_eq!(st.to_move, Some(Seat::Last));
    assert_eq!(clocks(&st).running, Some(Seat::Last));
    // A move that arrives after the flag fell loses too, even before the timer fires.
    time.advance(Duration::from_millis(10_000));
    let mover = &mut t.players[2];
    let st = mover
        .until_state("last to move", |s| s.to_move == Some(Seat::Last))
        .await;
    mover.act(&some_action(&st)).await;
    let f = t.spectator.until_event("forfeited").await;
    assert!(
        matches!(
            f,
            Event::Forfeited {
                player: Seat::Last,
                ..
            }
        ),
        "{f:?}"
    );
    let st = t
        .spectator
        .until_state("finished", |s| s.status == RoomStatus::Finished)
        .await;
    assert_eq!(st.result.as_ref().unwrap().winners, [Player::First]);
    assert_eq!(clocks(&st).running, None);
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
    first_round(&mut t).await;
    time.advance(Duration::from_millis(10_000));
    let st = t.play_any().await;
    assert_eq!(remaining(&st, Seat::First), 55_000);
    t.play_any().await;
    t.play_any().await;
    time.advance(Duration::from_millis(1_000));
    let st = t.play_any().await;
    assert_eq!(remaining(&st, Seat::First), 59_000, "55 s + 5 s - 1 s");

    // Byoyomi: 2 s main, then 2 periods of 5 s.
    let mut t = Table::new(
        &server,
        json!({"clock": {"kind": "byoyomi", "main_seconds": 2, "byoyomi_seconds": 5, "periods": 2}}),
    )
    .await;
    let st = t.spectator.state().clone();
    assert_eq!(clocks(&st).first.periods, 2);
    assert_eq!(clocks(&st).first.period_ms, Some(5_000));
    first_round(&mut t).await;
    // 8 s: main time gone, one period lost, the move is made within the second.
    time.advance(Duration::from_millis(8_000));
    let st = t.play_any().await;
    assert_eq!(remaining(&st, Seat::First), 0);
    assert_eq!(clocks(&st).first.periods, 1);
    assert_eq!(
        clocks(&st).first.period_ms,
        Some(5_000),
        "the period resets"
    );
    // Middle moves within its main time, Last within its first period (kept).
    time.advance(Duration::from_millis(1_000));
    t.play_any().await;
    time.advance(Duration::from_millis(6_000));
    let st = t.play_any().await;
    assert_eq!(clocks(&st).last.periods, 2);
    // First has one period left: 4 s in, the state shows 1 s of it.
    time.advance(Duration::from_millis(4_000));
    let st = t.spectator.sync().await;
    assert_eq!(clocks(&st).first.period_ms, Some(1_000));
    time.advance(Duration::from_millis(1_000));
    let f = t.spectator.until_event("forfeited").await;
    assert!(forfeited(Seat::First, ForfeitReason::Timeout)(&f), "{f:?}");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lag_credit_is_the_measured_round_trip_capped() {
    let db = TestDb::sqlite();
    let l = LimitArgs {
        rooms: RoomArgs {
            lag_credit_max_ms: 1_000,
            ..limits().rooms
        },
        ..limits()
    };
    let (server, time) = start(&db, &l).await;
    let mut t = Table::new(
        &server,
        json!({"clock": {"kind": "sudden_death", "main_seconds": 60}}),
    )
    .await;
    first_round(&mut t).await;
    // First thinks 3 s; its connection's round trip is measured at 400 ms (a pong
    // carries back the server's ping stamp), so 2.6 s are charged.
    time.advance(Duration::from_millis(3_000));
    let stamp = T0 + 3_000 - 400;
    t.players[0]
        .send_raw(Message::Pong(stamp.to_be_bytes().to_vec().into()))
        .await;
    let st = t.play_any().await;
    assert_eq!(remaining(&st, Seat::First), 57_400);
    // Middle's round trip of 5 s is credited only up to the 1 s cap.
    time.advance(Duration::from_millis(3_000));
    let stamp = T0 + 6_000 - 5_000;
    t.players[1]
        .send_raw(Message::Pong(stamp.to_be_bytes().to_vec().into()))
        .await;
    let st = t.play_any().await;
    assert_eq!(remaining(&st, Seat::Middle), 58_000);
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
    first_round(&mut t).await;
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
    c.resume(&tokens[2]).await;
    let st = c.next_state().await;
    assert_eq!(remaining(&st, Seat::First), 55_000);
    assert_eq!(remaining(&st, Seat::Middle), 53_000);
    assert_eq!(clocks(&st).running, Some(Seat::Last));
    assert_eq!(
        remaining(&st, Seat::Last),
        60_000,
        "the downtime is not charged"
    );
    time.advance(Duration::from_millis(2_000));
    let st = c.sync().await;
    assert_eq!(remaining(&st, Seat::Last), 58_000);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn draw_offer_decline_withdraw_expiry_and_agreement() {
    let db = TestDb::sqlite();
    let (server, _time) = start(&db, &limits()).await;
    let mut t = Table::new(&server, json!({})).await;

    // Nothing to accept, decline or withdraw yet.
    for msg in [
        ClientMsg::AcceptDraw,
        ClientMsg::DeclineDraw,
        ClientMsg::WithdrawDraw,
    ] {
        t.players[1].send(msg).await;
        t.players[1].expect_error(ErrorCode::NoDrawOffer).await;
    }
    t.spectator.send(ClientMsg::OfferDraw).await;
    t.spectator.expect_error(ErrorCode::NotSeated).await;

    // Offer, declined.
    t.players[0].send(ClientMsg::OfferDraw).await;
    let e = t.spectator.until_event("draw_offered").await;
    assert_eq!(e, Event::DrawOffered { seat: Seat::First });
    t.players[1].send(ClientMsg::DeclineDraw).await;
    let e = t.spectator.until_event("draw_declined").await;
    assert_eq!(e, Event::DrawDeclined { seat: Seat::Middle });
    assert!(t.spectator.sync().await.draw_offers.is_empty());

    // Offer, withdrawn.
    t.players[2].send(ClientMsg::OfferDraw).await;
    t.spectator.until_event("draw_offered").await;
    t.players[2].send(ClientMsg::WithdrawDraw).await;
    let e = t.spectator.until_event("draw_withdrawn").await;
    assert_eq!(e, Event::DrawWithdrawn { seat: Seat::Last });

    // Offer, then an action: the offer expires.
    t.players[1].send(ClientMsg::OfferDraw).await;
    t.spectator.until_event("draw_offered").await;
    t.play_any().await;
    assert!(!t.spectator.events_of("draw_expired").is_empty());
    assert!(t.spectator.state().draw_offers.is_empty());

    // Offer, accepted by both others: drawn.
    t.players[0].send(ClientMsg::OfferDraw).await;
    t.spectator.until_event("draw_offered").await;
    t.players[1].send(ClientMsg::AcceptDraw).await;
    let e = t.spectator.until_event("draw_offered").await;
    assert_eq!(e, Event::DrawOffered { seat: Seat::Middle });
    t.players[2].send(ClientMsg::AcceptDraw).await;
    t.spectator.until_event("draw_agreed").await;
    let st = t
        .spectator
        .until_state("finished", |s| s.status == RoomStatus::Finished)
        .await;
    assert_eq!(st.result.unwrap().reason, EndReason::DrawAgreed);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chat_channels_history_and_limits() {
    let db = TestDb::sqlite();
    let l = LimitArgs {
        chat: ChatArgs {
            chat_max_chars: 20,
            chat_burst: 3,
            chat_per_minute: 0.01,
            ..limits().chat
        },
        ..limits()
    };
    let (server, _time) = start(&db, &l).await;
    let mut t = Table::new(&server, json!({})).await;
    // The table's spectator never sent `watch`: it may not chat yet.
    t.spectator.chat("hi").await;
    t.spectator.expect_error(ErrorCode::NotSeated).await;
    t.spectator
        .send(ClientMsg::Watch {
            name: Some("Zed".into()),
        })
        .await;
    assert!(t.spectator.until_chat_history().await.is_empty());

    t.players[0].chat("  good luck  ").await;
    for c in t
        .players
        .iter_mut()
        .chain(std::iter::once(&mut t.spectator))
    {
        let m = c.until_chat().await;
        assert_eq!(m.channel, Channel::Players);
        assert_eq!(m.seat, Some(Seat::First));
        assert_eq!(m.name, "player0");
        assert_eq!(m.text, "good luck");
    }
    t.spectator.chat("First should take 10k").await;
    t.spectator.expect_error(ErrorCode::ChatTooLong).await;
    t.spectator.chat("take 10k!").await;
    let m = t.spectator.until_chat().await;
    assert_eq!(m.channel, Channel::Spectators);
    assert_eq!(m.name, "Zed");
    assert_eq!(m.seat, None);
    // Players never get it: the next chat they see is Middle's.
    t.players[1].chat("gl").await;
    for p in t.players.iter_mut() {
        let m = p.until_chat().await;
        assert_eq!(m.text, "gl", "players do not see spectator chat");
    }
    // Late joiners get the history they may see.
    let mut late = server.client(&t.room).await;
    late.send(ClientMsg::Watch { name: None }).await;
    let texts = late.until_chat_history().await;
    assert_eq!(texts, ["good luck", "take 10k!", "gl"]);
    let token = t.players[0].token.clone().unwrap();
    let mut back = server.client(&t.room).await;
    back.resume(&token).await;
    let texts = back.until_chat_history().await;
    assert_eq!(texts, ["good luck", "gl"]);
    // Rate limit: a burst of 3, then refused.
    let mut c = back;
    for text in ["1", "2", "3", "4"] {
        c.chat(text).await;
    }
    c.expect_error(ErrorCode::RateLimited).await;
    // Text only: control characters are refused; an empty message too.
    t.players[2].chat("a\u{1b}[31m").await;
    t.players[2].expect_error(ErrorCode::BadMessage).await;
    t.players[2].chat("   ").await;
    t.players[2].expect_error(ErrorCode::BadMessage).await;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rematch_rotates_seats_and_keeps_tokens() {
    let db = TestDb::sqlite();
    let (server, _time) = start(&db, &limits()).await;
    let clock = json!({"kind": "fischer", "main_seconds": 300, "increment_seconds": 3});
    let mut t = Table::new(&server, json!({"clock": clock, "private": true})).await;
    t.players[0].send(ClientMsg::Rematch).await;
    t.players[0].expect_error(ErrorCode::GameNotRunning).await;
    t.finish_by_resignations().await;
    t.spectator.send(ClientMsg::Rematch).await;
    t.spectator.expect_error(ErrorCode::NotSeated).await;
    t.players[0].send(ClientMsg::Rematch).await;
    let e = t.spectator.until_event("rematch_requested").await;
    assert_eq!(e, Event::RematchRequested { seat: Seat::First });
    t.players[0].send(ClientMsg::CancelRematch).await;
    t.spectator.until_event("rematch_cancelled").await;
    for p in t.players.iter_mut() {
        p.send(ClientMsg::Rematch).await;
    }
    let e = t.spectator.until_event("rematch_started").await;
    let Event::RematchStarted {
        room: new_room,
        moved,
    } = e
    else {
        panic!("{e:?}")
    };
    let rotated: Vec<SeatMove> = Seat::ALL
        .into_iter()
        .map(|s| SeatMove {
            from: s,
            to: Seat::from(s.player().next()),
        })
        .collect();
    assert_eq!(moved, rotated);
    assert_eq!(
        moved[0],
        SeatMove {
            from: Seat::First,
            to: Seat::Middle
        }
    );
    let st = t.spectator.next_state().await;
    assert_eq!(st.rematch.room.as_deref(), Some(new_room.as_str()));

    let details = server.room(&new_room).await.room;
    assert!(details.private);
    assert_eq!(details.clock.unwrap().increment_ms, 3_000);
    assert_eq!(details.seats.middle.unwrap().name, "player0");
    // Each player resumes the new room with its old token and sits one seat on.
    let mut news = Vec::new();
    for (p, next) in t.players.iter().zip(rotated) {
        let mut c = server.client(&new_room).await;
        assert_eq!(c.resume(p.token.as_ref().unwrap()).await, next.to);
        news.push(c);
    }
    // All three back and ready: the game starts with the same clock.
    let st = news[0].until_playing().await;
    assert_eq!(clocks(&st).settings.increment_ms, 3_000);
    assert_eq!(st.rematch.of.as_deref(), Some(t.room.as_str()));
    assert_eq!(st.seats.first.as_ref().unwrap().name, "player2");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn private_rooms_and_bad_clocks() {
    let db = TestDb::sqlite();
    let (server, _time) = start(&db, &limits()).await;
    let public = server.create_room(json!({})).await;
    let private = server.create_room(json!({"private": true})).await;
    assert!(server.lists(&public).await);
    assert!(
        !server.lists(&private).await,
        "private rooms are not listed"
    );
    assert!(server.room(&private).await.room.private);
    let mut c = server.client(&private).await;
    assert_eq!(c.join(Some(Seat::First), "Ann").await, Seat::First);

    for body in [
        json!({"clock": {"kind": "fischer", "main_seconds": 60}}),
        json!({"clock": {"kind": "sudden_death"}}),
        json!({"clock": {"kind": "sudden_death", "main_seconds": 0}}),
        json!({"clock": {"kind": "byoyomi", "main_seconds": 60}}),
        json!({"clock": {"kind": "byoyomi", "byoyomi_seconds": 10, "periods": 99}}),
        json!({"clock": {"kind": "hourglass", "main_seconds": 60}}),
        json!({"clock": {"kind": "sudden_death", "main_seconds": 1e9}}),
    ] {
        let (status, v) = server.post_json("/api/rooms", &body).await;
        assert_eq!(status, 400, "{body}");
        assert_eq!(TestServer::error_code(&v), "bad_clock", "{body}: {v}");
        assert!(v["error"]["message"].as_str().unwrap().contains("clock"));
    }
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn state_has_checks_move_players_and_abandon_deadlines() {
    let actions = find_game("a check", |events| {
        events.iter().any(|e| matches!(e, RulesEvent::Check { .. }))
    })
    .await;
    // Play up to the first action that gives check.
    let mut g = Game::new();
    let mut upto = 0;
    let mut checked = None;
    for (i, a) in actions.iter().enumerate() {
        let p = g.to_move().unwrap();
        let played = g.play_notation(p, a).unwrap();
        if let Some(player) = played.events.iter().find_map(|e| match e {
            RulesEvent::Check { player, .. } => Some(*player),
            _ => None,
        }) {
            upto = i + 1;
            checked = Some(Seat::from(player));
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
    assert_eq!(st.in_check, [checked.expect("a check")]);
    assert_eq!(st.move_players().len(), upto);
    assert_eq!(st.move_players()[0], Seat::First);
    assert_eq!(st.clocks, None);
    assert_eq!(st.seats.first.as_ref().unwrap().abandon_at_ms, None);
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
    let at = st.seats.get(Seat::ALL[i]).unwrap().abandon_at_ms.unwrap();
    assert!(
        at >= before + 29_000 && at <= before + 32_000,
        "{at} vs {before}"
    );
    server.stop().await;
}
