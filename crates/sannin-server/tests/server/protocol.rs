//! The protocol over real sockets: every error code, seats and tokens, the voluntary
//! alliance, abandonment, limits, HTTP surfaces.

use crate::common;

use std::time::Duration;

use common::*;
use sannin_protocol::{
    ClientMsg, ErrorCode, Event, RoomStatus, RulesEvent, Seat, Seats, ServerMsg,
};
use sannin_rules::{AllianceCause, LossReason, Player, Position};
use sannin_server::{ConnectionArgs, LimitArgs, ManualTime, RoomArgs};
use serde_json::json;
use tokio_tungstenite::tungstenite::Message;

/// A server with exactly these limits (the others at their defaults).
async fn server_with(limits: LimitArgs) -> (TestDb, TestServer) {
    Setup::with_limits(limits).sqlite().await
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
        let e = a.expect_error(ErrorCode::BadMessage).await;
        assert!(!e.is_empty());
    }
    a.send_json(json!({"type": "join", "seat": "east"})).await;
    a.expect_error(ErrorCode::BadMessage).await;
    a.sync().await; // the connection stays usable

    // game_not_running: acting before the start.
    assert_eq!(a.join(Some(Seat::First), "Ann").await, Seat::First);
    a.act("P3c-4d").await;
    a.expect_error(ErrorCode::GameNotRunning).await;

    // seat_taken
    b.send(ClientMsg::Join {
        seat: Some(Seat::First),
        name: Some("Bob".into()),
    })
    .await;
    b.expect_error(ErrorCode::SeatTaken).await;
    assert_eq!(
        b.join(None, "Bob").await,
        Seat::Middle,
        "null takes any free seat"
    );
    assert_eq!(c.join(Some(Seat::Last), "Cid").await, Seat::Last);
    let mut d = server.client(&room).await;
    d.send(ClientMsg::Join {
        seat: None,
        name: Some("Dan".into()),
    })
    .await;
    d.expect_error(ErrorCode::SeatTaken).await;

    // bad_token
    d.send(ClientMsg::Resume {
        token: "0123456789abcdef".into(),
    })
    .await;
    d.expect_error(ErrorCode::BadToken).await;

    // already seated
    a.send(ClientMsg::Join {
        seat: None,
        name: None,
    })
    .await;
    a.expect_error(ErrorCode::AlreadySeated).await;

    for p in [&mut a, &mut b, &mut c] {
        p.send(ClientMsg::Ready).await;
    }
    for p in [&mut a, &mut b, &mut c, &mut spectator] {
        p.until_event("game_started").await;
        p.until_playing().await;
    }
    let st = a.state().clone();
    assert_eq!(st.you, Some(Seat::First));
    assert_eq!(st.to_move, Some(Seat::First));
    assert_eq!(st.legal.len(), 48, "perft(1) = 48");
    assert!(b.state().legal.is_empty());
    assert_eq!(spectator.state().you, None);
    assert!(st.illumination.is_none());

    // not_seated: a spectator acts.
    spectator.act("P3c-4d").await;
    spectator.expect_error(ErrorCode::NotSeated).await;
    spectator.send(ClientMsg::Resign).await;
    spectator.expect_error(ErrorCode::NotSeated).await;

    // not_your_turn
    b.act("P10k-10j").await;
    let e = b.expect_error(ErrorCode::NotYourTurn).await;
    assert!(e.contains("first"), "{e}");

    // illegal_action: unreadable notation, and a readable but illegal action.
    a.act("Zz9z").await;
    a.expect_error(ErrorCode::IllegalAction).await;
    a.act("K1d-7g").await;
    let e = a.expect_error(ErrorCode::IllegalAction).await;
    assert!(!e.is_empty());

    // A rejected action changed nothing: First is still to move, seq unchanged.
    let before = a.sync().await;
    assert_eq!(before.to_move, Some(Seat::First));
    assert!(before.moves().is_empty());

    // A short form is accepted and broadcast canonical.
    a.act("Bx10k+").await;
    let ev = spectator.until_event("action").await;
    assert_eq!(
        ev,
        Event::Action {
            player: Seat::First,
            action: "B2gx10k+".into(),
            clocks: None
        }
    );

    // Seats cannot change during play.
    d.send(ClientMsg::Join {
        seat: Some(Seat::First),
        name: None,
    })
    .await;
    d.expect_error(ErrorCode::SeatTaken).await;
    a.send(ClientMsg::Ready).await;
    a.expect_error(ErrorCode::GameNotRunning).await;
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
    assert_eq!(
        left,
        Event::PlayerLeft {
            seat: Seat::Middle,
            grace_seconds: 1.0
        }
    );

    // It resumes on a new connection: same seat, fresh state with its legal actions.
    let mut again = server.client(&t.room).await;
    assert_eq!(again.resume(&token).await, Seat::Middle);
    let state = again.next_state().await;
    assert_eq!(state.you, Some(Seat::Middle));
    assert_eq!(state.to_move, Some(Seat::Middle));
    assert!(!state.legal.is_empty());
    assert_eq!(state.moves(), ["P3c-4d"]);
    assert!(state.seats.middle.as_ref().unwrap().connected);
    let back = t.spectator.until_event("player_reconnected").await;
    assert_eq!(back, Event::PlayerReconnected { seat: Seat::Middle });

    // A second connection resuming the same seat replaces the first.
    let mut third = server.client(&t.room).await;
    assert_eq!(third.resume(&token).await, Seat::Middle);
    again.expect_error(ErrorCode::Replaced).await;
    again.expect_closed().await;
    // The new one acts for the seat.
    third.next_state().await;
    third.act("P10k-10j").await;
    let ev = t.spectator.until_event("action").await;
    assert!(
        matches!(
            ev,
            Event::Action {
                player: Seat::Middle,
                ..
            }
        ),
        "{ev:?}"
    );
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn voluntary_alliance_before_play() {
    let (_db, server) = sqlite_server().await;
    let room = server.create_room(json!({})).await;
    let mut spectator = server.client(&room).await;
    let mut ann = server.client(&room).await;
    let mut bob = server.client(&room).await;
    assert_eq!(ann.join(Some(Seat::First), "Ann").await, Seat::First);
    assert_eq!(bob.join(Some(Seat::Middle), "Bob").await, Seat::Middle);
    let propose = |seat| ClientMsg::ProposeAlliance { seat };

    // Proposals are cleared when the seats change.
    ann.send(propose(Seat::Middle)).await;
    let p = spectator.until_event("alliance_proposed").await;
    assert_eq!(
        p,
        Event::AllianceProposed {
            from: Seat::First,
            to: Seat::Middle
        }
    );
    let mut cid = server.client(&room).await;
    assert_eq!(cid.join(None, "Cid").await, Seat::Last);
    let cleared = spectator.until_event("alliance_declined").await;
    assert_eq!(cleared, Event::AllianceDeclined { by: None });
    bob.send(ClientMsg::AcceptAlliance).await;
    bob.expect_error(ErrorCode::BadAlliance).await;

    // Declined by the seat proposed to.
    ann.send(propose(Seat::Middle)).await;
    spectator.until_event("alliance_proposed").await;
    bob.send(ClientMsg::DeclineAlliance).await;
    let d = spectator.until_event("alliance_declined").await;
    assert_eq!(
        d,
        Event::AllianceDeclined {
            by: Some(Seat::Middle)
        }
    );

    // Proposed and accepted: Cid (the third) becomes First, Ann and Bob ally as M/L.
    cid.send(propose(Seat::Last)).await;
    cid.expect_error(ErrorCode::BadAlliance).await; // not to oneself
    ann.send(propose(Seat::Middle)).await;
    spectator.until_event("alliance_proposed").await;
    bob.send(ClientMsg::AcceptAlliance).await;
    let agreed = spectator.until_event("alliance_agreed").await;
    let Event::AllianceAgreed { allies, first, .. } = agreed else {
        panic!("{agreed:?}")
    };
    assert_eq!(allies, [Seat::Middle, Seat::Last]);
    assert_eq!(first, Seat::First);
    assert_eq!(cid.until_seated().await, Seat::First);
    let ann_seat = ann.until_seated().await;
    let bob_seat = bob.until_seated().await;
    let mut allies = vec![ann_seat, bob_seat];
    allies.sort();
    assert_eq!(allies, vec![Seat::Middle, Seat::Last]);
    ann.send(propose(Seat::First)).await;
    ann.expect_error(ErrorCode::BadAlliance).await; // already agreed

    // Tokens follow their person: Bob resumes on a new connection into his new seat.
    let bob_token = bob.token.clone().unwrap();
    bob.close().await;
    spectator.until_event("player_left").await;
    let mut bob = server.client(&room).await;
    assert_eq!(bob.resume(&bob_token).await, bob_seat);

    for p in [&mut ann, &mut bob, &mut cid] {
        p.send(ClientMsg::Ready).await;
    }
    spectator.until_event("game_started").await;
    let formed = spectator.until_event("alliance_formed").await;
    assert_eq!(
        formed,
        Event::Rules(RulesEvent::AllianceFormed {
            allies: [Player::Middle, Player::Last],
            cause: AllianceCause::Voluntary
        })
    );
    let st = spectator.until_playing().await;
    let vol = Position::voluntary_alliance_start().to_string();
    assert_eq!(st.start_position, vol);
    assert_eq!(st.position, vol);
    assert_eq!(st.to_move, Some(Seat::First));
    assert_eq!(st.seats.first.as_ref().unwrap().name, "Cid");
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
        left,
        Event::PlayerLeft {
            seat: Seat::First,
            grace_seconds: 1.0
        }
    );
    let f = t.spectator.until_event("forfeited").await;
    assert_eq!(
        f,
        Event::Forfeited {
            player: Seat::First,
            reason: sannin_protocol::ForfeitReason::Abandoned,
            clocks: None
        }
    );
    let el = t.spectator.until_event("eliminated").await;
    assert_eq!(
        el,
        Event::Rules(RulesEvent::Eliminated {
            player: Player::First,
            reason: LossReason::Abandoned
        })
    );
    let st = t.spectator.next_state().await;
    assert_eq!(st.to_move, Some(Seat::Middle));
    assert_eq!(st.status, RoomStatus::Playing);
    server.stop().await;
    // It was stored: a restarted server still has First eliminated.
    let server = Setup::default().start(&db).await;
    let details = server.room(&t.room).await;
    assert_eq!(details.to_move, Some(Seat::Middle));
    assert_eq!(details.position.split(' ').nth(3).unwrap(), "ML");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn waiting_seat_freed_after_grace_and_leave() {
    let (_db, server) = sqlite_server().await;
    let room = server.create_room(json!({})).await;
    let mut watcher = server.client(&room).await;
    let mut a = server.client(&room).await;
    a.join(Some(Seat::Last), "Ann").await;
    a.close().await;
    watcher.until_event("player_left").await;
    let freed = watcher.until_event("seat_freed").await;
    assert_eq!(freed, Event::SeatFreed { seat: Seat::Last });
    let mut b = server.client(&room).await;
    assert_eq!(b.join(Some(Seat::Last), "Bob").await, Seat::Last);
    b.send(ClientMsg::Leave).await;
    let st = b.next_state().await;
    assert_eq!(st.you, None);
    assert_eq!(st.seats.last, None);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn malformed_oversized_and_binary_frames() {
    let limits = LimitArgs {
        connections: ConnectionArgs {
            max_message_bytes: 1024,
            ..ConnectionArgs::default()
        },
        ..LimitArgs::default()
    };
    let (_db, server) = server_with(limits).await;
    let room = server.create_room(json!({})).await;
    let mut c = server.client(&room).await;
    // Over the message limit: an error, the connection stays.
    let big = json!({"type": "join", "name": "x".repeat(2000)}).to_string();
    c.send_raw(Message::Text(big.into())).await;
    let e = c.expect_error(ErrorCode::BadMessage).await;
    assert!(e.contains("too large"), "{e}");
    c.send_raw(Message::Binary(vec![1, 2, 3].into())).await;
    c.expect_error(ErrorCode::BadMessage).await;
    c.send_raw(Message::Text("\u{0}\u{1}".into())).await;
    c.expect_error(ErrorCode::BadMessage).await;
    // Name too long (limit 32 characters).
    c.send(ClientMsg::Join {
        seat: None,
        name: Some("n".repeat(33)),
    })
    .await;
    let e = c.expect_error(ErrorCode::BadMessage).await;
    assert!(e.contains("name"), "{e}");
    c.sync().await;
    // Far over the hard cap (64 KiB): the socket is closed, the server lives on.
    c.send_raw(Message::Text("y".repeat(200_000).into())).await;
    c.expect_closed().await;
    let (code, _) = server.get_json("/api/rooms").await;
    assert_eq!(code, 200);
    let mut d = server.client(&room).await;
    d.sync().await;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn flood_beyond_rate_limit() {
    let limits = LimitArgs {
        connections: ConnectionArgs {
            rate_per_second: 5.0,
            rate_burst: 5,
            ..ConnectionArgs::default()
        },
        ..LimitArgs::default()
    };
    // The bucket refills on the server's time source: here, only when told.
    let time = ManualTime::new(0);
    let (_db, server) = Setup::with_limits(limits).time(time.clone()).sqlite().await;
    let room = server.create_room(json!({})).await;
    let mut c = server.client(&room).await;
    for _ in 0..40 {
        c.send(ClientMsg::Ping).await;
    }
    let mut pongs = 0;
    let mut limited = 0;
    while pongs + limited < 40 {
        match c.recv().await {
            ServerMsg::Pong => pongs += 1,
            ServerMsg::Error {
                code: ErrorCode::RateLimited,
                ..
            } => limited += 1,
            other => panic!("unexpected {other:?}"),
        }
    }
    assert_eq!((pongs, limited), (5, 35), "the burst got through, no more");
    time.advance(Duration::from_millis(1200));
    c.sync().await; // usable again after a pause
    let (_, _) = server.get_json("/healthz").await;
    let metrics = server.metrics().await;
    assert!(metrics.contains("sannin_rate_limited_total"));
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn room_limits() {
    let limits = LimitArgs {
        rooms: RoomArgs {
            max_rooms: 2,
            max_connections_per_room: 2,
            ..RoomArgs::default()
        },
        ..LimitArgs::default()
    };
    let (_db, server) = server_with(limits).await;
    let room = server.create_room(json!({})).await;
    server.create_room(json!({})).await;
    let (status, v) = server.post_raw("/api/rooms", "").await;
    assert_eq!(status, 429);
    assert_eq!(TestServer::error_code(&v), "too_many_rooms");
    let _a = server.client(&room).await;
    let _b = server.client(&room).await;
    let (mut ws, _) = tokio_tungstenite::connect_async(server.ws_url(&room))
        .await
        .unwrap();
    use futures_util::StreamExt;
    let m = ws.next().await.unwrap().unwrap();
    let msg = ServerMsg::parse(m.to_text().unwrap()).unwrap();
    assert!(
        matches!(
            msg,
            ServerMsg::Error {
                code: ErrorCode::RoomFull,
                ..
            }
        ),
        "{msg:?}"
    );
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
    let (_db, server) = Setup::default()
        .static_dir(static_dir.path())
        .sqlite()
        .await;

    let (code, _) = server.get_json("/healthz").await;
    assert_eq!(code, 200);
    let id = server.create_room(json!({})).await;
    let entry = server.listed(&id).await.expect("listed");
    assert_eq!(entry.room.status, RoomStatus::Waiting);
    assert_eq!(entry.room.spectators, 0);
    assert_eq!(entry.room.seats, Seats::default());
    let details = server.room(&id).await;
    assert_eq!(details.position, Position::start().to_string());
    assert!(details.moves.is_empty());
    assert_eq!(details.room.result, None);

    // Unknown rooms: JSON 404s, and no WebSocket.
    for path in [
        format!("/api/rooms/{}", uuid::Uuid::new_v4()),
        format!("/api/rooms/{}/record", uuid::Uuid::new_v4()),
        "/api/rooms/not-a-uuid".to_string(),
    ] {
        let (code, v) = server.get_json(&path).await;
        assert_eq!(code, 404, "{path}");
        assert_eq!(TestServer::error_code(&v), "room_not_found");
    }
    let err =
        tokio_tungstenite::connect_async(server.ws_url(&uuid::Uuid::new_v4().to_string())).await;
    assert!(err.is_err(), "no websocket for an unknown room");

    // Bad bodies and positions.
    let (status, _) = server.post_raw("/api/rooms", "{oops").await;
    assert_eq!(status, 400);
    let (status, v) = server
        .post_json("/api/rooms", &json!({"position": "not a position"}))
        .await;
    assert_eq!(status, 400);
    assert_eq!(TestServer::error_code(&v), "bad_position");

    // Static client.
    let (status, index) = server.get_text("/").await;
    assert_eq!(status, 200);
    assert!(index.contains("sannin"));
    let (status, room_page) = server.get_text(&format!("/rooms/{id}")).await;
    assert_eq!(status, 200);
    assert!(room_page.contains("<title>sannin"));
    let (status, _) = server.get_text("/app.js").await;
    assert_eq!(status, 200);

    let metrics = server.metrics().await;
    assert!(
        metrics.contains("sannin_rooms{status=\"waiting\"} 1"),
        "{metrics}"
    );
    assert!(metrics.contains("sannin_action_latency_seconds_bucket"));
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn slow_client_is_dropped_and_can_resume() {
    let mut limits = LimitArgs {
        rooms: RoomArgs {
            grace_seconds: 30.0,
            ..RoomArgs::default()
        },
        connections: ConnectionArgs {
            send_queue: 8,
            rate_per_second: 1e6,
            rate_burst: 1_000_000,
            ..ConnectionArgs::default()
        },
        ..LimitArgs::default()
    };
    // The queue is under test here, not the address's budget of fresh states.
    limits.clients.states_per_minute = 0.0;
    let (_db, server) = server_with(limits).await;
    let room = server.create_room(json!({})).await;
    let mut watcher = server.client(&room).await;
    let mut slow = server.client(&room).await;
    slow.join(Some(Seat::First), "Slow").await;
    let token = slow.token.clone().unwrap();
    // It asks for state after state and never reads them.
    let sync = ClientMsg::Sync.to_text();
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
        assert!(
            matches!(
                left,
                Event::PlayerLeft {
                    seat: Seat::First,
                    ..
                }
            ),
            "{left:?}"
        );
    };
    tokio::join!(flood, dropped);
    // The room never stalled for the others, and the slow player can come back.
    watcher.sync().await;
    let metrics = server.metrics().await;
    assert!(
        metrics.contains("sannin_slow_clients_dropped_total 1"),
        "{metrics}"
    );
    let mut back = server.client(&room).await;
    assert_eq!(back.resume(&token).await, Seat::First);
    server.stop().await;
}
