//! Attacks on the WebSocket of a room, scripted against a real server: a room filled
//! with spectators to lock a player out, ping/pong floods, reconnecting to refill a
//! rate limit, a crowd flooding the spectators' chat, frames the codec refuses (and
//! their close codes), and names or chat that hide characters or pose as bots.

use crate::common;

use std::time::Duration;

use common::*;
use futures_util::{SinkExt, StreamExt};
use sannin_protocol::{ClientMsg, ErrorCode, RoomStatus, Seat, ServerMsg};
use sannin_server::ManualTime;
use serde_json::json;
use tokio_tungstenite::tungstenite::protocol::frame::coding::{Data, OpCode};
use tokio_tungstenite::tungstenite::protocol::frame::Frame;
use tokio_tungstenite::tungstenite::Message;

/// A client on a socket that has not received anything yet (a connection on
/// probation in a full room gets nothing until it takes a seat).
async fn raw(server: &TestServer, room: &str) -> Client {
    Client::connect_raw(&server.ws_url(room)).await
}

/// Reads `ws` until the server's close frame; its code (`None`: the stream ended
/// without one). Panics if nothing closes within the test timeout.
async fn close_code(ws: &mut Ws) -> Option<u16> {
    let deadline = tokio::time::Instant::now() + TIMEOUT;
    loop {
        let left = deadline.saturating_duration_since(tokio::time::Instant::now());
        match tokio::time::timeout(left, ws.next()).await {
            Err(_) => panic!("the server did not close the connection"),
            Ok(None) | Ok(Some(Err(_))) => return None,
            Ok(Some(Ok(Message::Close(frame)))) => return frame.map(|f| u16::from(f.code)),
            Ok(Some(Ok(_))) => {}
        }
    }
}

/// A connection that sends `watch`: `Ok` once it has the state that answers it,
/// `Err(code)` if the room refuses it.
async fn watcher(server: &TestServer, room: &str) -> Result<Client, ErrorCode> {
    let mut c = raw(server, room).await;
    c.send(ClientMsg::Watch { name: None }).await;
    loop {
        match c.try_recv(TIMEOUT).await {
            Some(ServerMsg::ChatHistory { .. }) => return Ok(c),
            Some(ServerMsg::Error { code, .. }) => return Err(code),
            Some(_) => {}
            None => panic!("no answer to watch (closed: {})", c.closed),
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_player_resumes_into_a_room_full_of_spectators() {
    let cap = 12;
    let (_db, server) = Setup::default()
        .limits(|l| {
            l.rooms.max_connections_per_room = cap;
            l.rooms.hello_seconds = 1.0;
        })
        .sqlite()
        .await;
    let mut t = Table::new(&server, json!({})).await;
    t.spectator.send(ClientMsg::Watch { name: None }).await;
    t.spectator
        .until("chat history", |m| {
            matches!(m, ServerMsg::ChatHistory { .. }).then_some(())
        })
        .await;
    // The attacker takes every spectator's place it can (the table's spectator has one).
    let mut crowd = Vec::new();
    let refused = loop {
        match watcher(&server, &t.room).await {
            Ok(c) => crowd.push(c),
            Err(code) => break code,
        }
        assert!(crowd.len() < 10 * cap, "the room never said it was full");
    };
    assert_eq!(refused, ErrorCode::RoomFull);

    // First (to move) reloads its page: a new socket, then `resume`.
    let token = t.players[0].token.clone().expect("a token");
    let old = std::mem::replace(&mut t.players[0], raw(&server, &t.room).await);
    old.close().await;
    let first = &mut t.players[0];
    assert_eq!(first.resume(&token).await, Seat::First);
    let state = first
        .until_state("the player's state", |s| s.you == Some(Seat::First))
        .await;
    assert_eq!(state.status, RoomStatus::Playing);
    // And it plays on.
    let action = state.legal.first().expect("legal actions").clone();
    first.act(&action).await;
    t.spectator.until_event("action").await;
    assert_eq!(crowd.len(), cap - 1, "the cap counts spectators only");

    // One more spectator is still refused, with room_full and 1013.
    let mut extra = raw(&server, &t.room).await;
    extra.send(ClientMsg::Watch { name: None }).await;
    extra.expect_error(ErrorCode::RoomFull).await;
    assert_eq!(close_code(&mut extra.ws).await, Some(1013));
    // A newcomer that says nothing is refused once its time is up.
    let mut mute = raw(&server, &t.room).await;
    mute.expect_error(ErrorCode::RoomFull).await;
    assert_eq!(close_code(&mut mute.ws).await, Some(1013));
    // A bad token does not get in either.
    let mut guess = raw(&server, &t.room).await;
    guess
        .send(ClientMsg::Resume {
            token: "0".repeat(64),
        })
        .await;
    guess.expect_error(ErrorCode::BadToken).await;
    guess.expect_error(ErrorCode::RoomFull).await;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn silent_sockets_give_their_place_up_to_watchers() {
    let cap = 4;
    let time = ManualTime::new(0);
    let (_db, server) = Setup::default()
        .limits(|l| {
            l.rooms.max_connections_per_room = cap;
            l.rooms.hello_seconds = 0.5;
        })
        .time(time.clone())
        .sqlite()
        .await;
    let room = server.create_room(json!({})).await;
    // Sockets that never send join, resume or watch fill the room.
    let mut silent = Vec::new();
    for _ in 0..cap {
        silent.push(server.client(&room).await);
    }
    time.advance(Duration::from_millis(700));
    // A watcher gets in all the same, in the place of one of them.
    let mut w = watcher(&server, &room)
        .await
        .expect("a watcher gets a silent socket's place");
    let mut displaced = 0;
    for s in silent.iter_mut() {
        if let Some(ServerMsg::Error { code, .. }) = s.try_recv(Duration::from_millis(300)).await {
            assert_eq!(code, ErrorCode::RoomFull);
            assert_eq!(close_code(&mut s.ws).await, Some(1013));
            displaced += 1;
        }
    }
    assert_eq!(displaced, 1);
    w.sync().await;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ping_and_pong_floods_are_limited_and_closed() {
    let (_db, server) = Setup::default()
        .limits(|l| {
            l.connections.rate_per_second = 10.0;
            l.connections.rate_burst = 10;
        })
        .sqlite()
        .await;
    let mut t = Table::new(&server, json!({})).await;
    let limited_before = server.metric("sannin_rate_limited_total").await;

    let (ws, _) = tokio_tungstenite::connect_async(server.ws_url(&t.room))
        .await
        .expect("ws connect");
    let (mut tx, mut rx) = ws.split();
    let flood = tokio::spawn(async move {
        let mut sent = 0u32;
        for i in 0..10_000u64 {
            let payload = (i * 7).to_be_bytes().to_vec();
            let frame = if i % 2 == 0 {
                Message::Ping(payload.into())
            } else {
                Message::Pong(payload.into())
            };
            if tx.send(frame).await.is_err() {
                break;
            }
            sent += 1;
        }
        sent
    });
    // Read concurrently: the close frame must not wait behind our own writes.
    let code = {
        let deadline = tokio::time::Instant::now() + TIMEOUT;
        loop {
            let left = deadline.saturating_duration_since(tokio::time::Instant::now());
            match tokio::time::timeout(left, rx.next()).await {
                Err(_) => panic!("a flood of pings and pongs was never closed"),
                Ok(None) | Ok(Some(Err(_))) => break None,
                Ok(Some(Ok(Message::Close(f)))) => break f.map(|f| u16::from(f.code)),
                Ok(Some(Ok(_))) => {}
            }
        }
    };
    assert_eq!(code, Some(1008), "closed as a policy violation");
    let _ = flood.await;
    let limited = server.metric("sannin_rate_limited_total").await - limited_before;
    assert!(
        limited >= 100.0,
        "control frames count against the rate limit: {limited}"
    );

    // The players of the room go on as before.
    let mover = t.to_move();
    let action = t.player(mover).sync().await.legal[0].clone();
    let state = t.play(&action).await;
    assert_eq!(state.moves().len(), 1);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reconnecting_does_not_refill_a_seats_budget() {
    let (burst, reconnects, per_socket) = (5u32, 15u32, 10u32);
    let (_db, server) = Setup::default()
        .limits(|l| {
            l.connections.rate_per_second = 1.0;
            l.connections.rate_burst = burst;
        })
        .sqlite()
        .await;
    let room = server.create_room(json!({})).await;
    let mut c = server.client(&room).await;
    c.join(Some(Seat::First), "Ann").await;
    let token = c.token.clone().expect("a token");
    c.close().await;

    let (mut accepted, mut limited) = (0u32, 0u32);
    for _ in 0..reconnects {
        let mut c = server.client(&room).await;
        c.resume(&token).await;
        for _ in 0..per_socket {
            c.send(ClientMsg::Ping).await;
        }
        let (yes, no) = count_answers(&mut c, per_socket, |m| matches!(m, ServerMsg::Pong)).await;
        accepted += yes;
        limited += no;
        c.close().await;
    }
    // A bucket per socket would let at least burst − 1 (after `resume`) through on
    // every socket: 60 here. The seat's one bucket lets its burst through, then one a
    // second.
    assert!(accepted >= 1, "the seat can still talk");
    assert!(
        accepted <= reconnects * (burst - 1) / 2,
        "the budget follows the seat: {accepted} accepted, {limited} limited"
    );
    assert_eq!(accepted + limited, reconnects * per_socket);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_crowd_cannot_flood_the_spectators_chat() {
    let (room_burst, watchers, each) = (5u32, 50usize, 5usize);
    let (_db, server) = Setup::default()
        .limits(|l| {
            l.chat.spectator_chat_burst = room_burst;
            l.chat.spectator_chat_per_minute = 1.0;
            l.chat.chat_burst = 5;
            l.chat.chat_per_minute = 1.0;
        })
        .sqlite()
        .await;
    let room = server.create_room(json!({})).await;
    // A quiet reader that does not read while the crowd writes.
    let mut reader = watcher(&server, &room).await.expect("the reader watches");
    let mut crowd = Vec::new();
    for _ in 0..watchers {
        crowd.push(watcher(&server, &room).await.expect("a watcher"));
    }
    for (i, c) in crowd.iter_mut().enumerate() {
        for j in 0..each {
            c.send(ClientMsg::Chat {
                text: format!("spam {i}.{j}"),
            })
            .await;
        }
    }
    // Each writer hears about each of its messages: refused, or (for a few) sent.
    let mut busy = 0;
    for (i, c) in crowd.iter_mut().enumerate() {
        let mine = format!("spam {i}.");
        let mut answers = 0;
        while answers < each {
            match c.recv().await {
                ServerMsg::Error { code, .. } => {
                    assert_eq!(code, ErrorCode::RateLimited);
                    busy += 1;
                }
                ServerMsg::Chat(m) if m.text.starts_with(&mine) => {}
                _ => continue,
            }
            answers += 1;
        }
    }
    assert!(busy >= watchers * each - 2 * room_burst as usize, "{busy}");

    // The reader is still there and got at most the room's budget.
    // Everything sent to it so far comes before the answer to this `sync`.
    reader.send(ClientMsg::Sync).await;
    let mut seen = 0;
    let state = loop {
        match reader.recv().await {
            ServerMsg::Chat(_) => seen += 1,
            ServerMsg::State(s) => break s,
            _ => {}
        }
    };
    assert_eq!(state.status, RoomStatus::Waiting);
    assert!(!reader.closed, "the reader was not dropped");
    assert!(
        (1..=room_burst as usize + 1).contains(&seen),
        "the reader got {seen} messages"
    );
    // The history holds no more than what was let through.
    let mut late = raw(&server, &room).await;
    late.send(ClientMsg::Watch { name: None }).await;
    let history = late
        .until("chat history", |m| match m {
            ServerMsg::ChatHistory { messages } => Some(messages),
            _ => None,
        })
        .await;
    assert_eq!(history.len(), seen);

    // One who floods on its own is muted, then refused until the mute ends.
    let mut loud = crowd.pop().expect("a watcher");
    for i in 0..2 {
        loud.send(ClientMsg::Chat {
            text: format!("more {i}"),
        })
        .await;
    }
    let message = loud.expect_error(ErrorCode::Muted).await;
    assert!(message.contains("muted"), "{message}");
    loud.expect_error(ErrorCode::Muted).await;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn refused_frames_close_with_their_rfc_6455_codes() {
    let (_db, server) = sqlite_server().await;
    let room = server.create_room(json!({})).await;

    // Over the hard cap (64 KiB with the default --max-message-bytes): 1009.
    let (ws, _) = tokio_tungstenite::connect_async(server.ws_url(&room))
        .await
        .expect("ws connect");
    let (mut tx, rx) = ws.split();
    let big = tokio::spawn(async move {
        let _ = tx.send(Message::Text("x".repeat(100_000).into())).await;
        tx
    });
    let mut rx = rx;
    let code = loop {
        match tokio::time::timeout(TIMEOUT, rx.next()).await {
            Err(_) => panic!("not closed"),
            Ok(None) | Ok(Some(Err(_))) => break None,
            Ok(Some(Ok(Message::Close(f)))) => break f.map(|f| u16::from(f.code)),
            Ok(Some(Ok(_))) => {}
        }
    };
    assert_eq!(code, Some(1009), "message too big");
    let _ = big.await;

    // A text frame that is not UTF-8 (built by hand: the library will not make one).
    let mut c = server.client(&room).await;
    let bytes = b"{\"type\":\"watch\",\"name\":\"\xff\xfe\"}".to_vec();
    c.send_raw(Message::Frame(Frame::message(
        bytes,
        OpCode::Data(Data::Text),
        true,
    )))
    .await;
    assert_eq!(close_code(&mut c.ws).await, Some(1007), "invalid UTF-8");

    // The server lives on.
    let mut d = server.client(&room).await;
    d.sync().await;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn names_and_chat_hide_nothing_and_humans_are_not_bots() {
    let (_db, server) = sqlite_server().await;
    let room = server.create_room(json!({})).await;
    let mut c = server.client(&room).await;
    let hidden = [
        "Ann\u{202E}nnA",
        "A\u{200B}nn",
        "\u{2066}Ann\u{2069}",
        "Ann\u{200F}",
        "Ann\u{061C}",
        "Ann\u{2060}",
        "\u{FEFF}Ann",
        "A\u{200D}nn",
    ];
    for name in hidden {
        c.send(ClientMsg::Join {
            seat: None,
            name: Some(name.into()),
        })
        .await;
        // Refused as a name nobody can read right (`bad_name`), before the room.
        let e = c.expect_error(ErrorCode::BadName).await;
        assert!(e.contains("U+"), "{e}");
    }
    for name in [
        "Bot (level 3)",
        "bot (LEVEL 0)",
        "BOT(level 2)",
        "Bot (the real one)",
    ] {
        c.send(ClientMsg::Join {
            seat: None,
            name: Some(name.into()),
        })
        .await;
        let e = c.expect_error(ErrorCode::BadName).await;
        assert!(e.contains("computer player"), "{e}");
    }
    // Nothing was taken.
    let s = c.sync().await;
    assert!(s.seats.first.is_none() && s.seats.middle.is_none() && s.seats.last.is_none());
    // Spectators' names too.
    let mut w = server.client(&room).await;
    w.send(ClientMsg::Watch {
        name: Some("Zed\u{202D}".into()),
    })
    .await;
    w.expect_error(ErrorCode::BadName).await;
    w.send(ClientMsg::Watch {
        name: Some("Bot (level 1)".into()),
    })
    .await;
    w.expect_error(ErrorCode::BadName).await;
    w.send(ClientMsg::Watch {
        name: Some("Zed".into()),
    })
    .await;
    w.next_state().await;

    // Chat, from a player and from a spectator.
    assert_eq!(c.join(None, "Bottom").await, Seat::First);
    for text in ["gl \u{202E}fh", "hi\u{200B}"] {
        c.send(ClientMsg::Chat { text: text.into() }).await;
        c.expect_error(ErrorCode::BadMessage).await;
        w.send(ClientMsg::Chat { text: text.into() }).await;
        w.expect_error(ErrorCode::BadMessage).await;
    }
    c.send(ClientMsg::Chat {
        text: "fine".into(),
    })
    .await;
    let m = w
        .until("chat", |m| match m {
            ServerMsg::Chat(m) => Some(m),
            _ => None,
        })
        .await;
    assert_eq!((m.name.as_str(), m.text.as_str()), ("Bottom", "fine"));
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sockets_that_go_quiet_are_closed_and_those_that_answer_pings_stay() {
    // Pings every 200 ms: a socket that sends nothing at all (not even the pongs
    // its client owes) for three of them is dropped.
    let (_db, server) = Setup::default()
        .limits(|l| l.connections.ping_seconds = 0.2)
        .sqlite()
        .await;
    let room = server.create_room(json!({})).await;
    let mut quiet = watcher(&server, &room).await.expect("watching");
    let mut awake = watcher(&server, &room).await.expect("watching");
    // `awake` reads, so its client answers every ping; `quiet` reads nothing.
    let until = tokio::time::Instant::now() + Duration::from_millis(1500);
    let mut pings = 0;
    while let Ok(Some(frame)) = tokio::time::timeout_at(until, awake.ws.next()).await {
        if matches!(frame, Ok(Message::Ping(_))) {
            pings += 1;
        }
    }
    assert!(pings >= 5, "pings kept coming ({pings})");
    // Closed (`close_code` panics if it stays open), with or without a close frame: a
    // client that reads nothing may never see one.
    close_code(&mut quiet.ws).await;
    awake.sync().await;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn players_busy_both_ways_are_not_pinged_and_spectators_are() {
    // Pings every 600 ms. Players who move in turn, each about every 200 ms, both send
    // messages and are sent some within every interval: they need no keep-alive ping.
    // A spectator only reads, so it is pinged each interval, and its answers keep it.
    let (_db, server) = Setup::default()
        .limits(|l| l.connections.ping_seconds = 0.6)
        .sqlite()
        .await;
    let mut t = Table::new(&server, json!({})).await;
    for c in t.players.iter_mut().chain([&mut t.spectator]) {
        c.pings = 0;
    }
    let until = tokio::time::Instant::now() + Duration::from_millis(3000);
    let mut plies = 0;
    while tokio::time::Instant::now() < until {
        let mover = t.to_move();
        let action = t.player(mover).state().legal[0].clone();
        let after = t.play(&action).await;
        assert_eq!(
            after.status,
            RoomStatus::Playing,
            "still playing after {plies} plies"
        );
        plies += 1;
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    // The last tick before the first move may have found a player quiet.
    for p in &t.players {
        assert!(p.pings <= 1, "a busy player was pinged {} times", p.pings);
    }
    assert!(
        t.spectator.pings >= 3,
        "spectator pinged {}",
        t.spectator.pings
    );
    assert!(!t.spectator.closed);
    t.spectator.sync().await;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sockets_that_never_take_part_are_closed() {
    let (_db, server) = Setup::default()
        .limits(|l| l.connections.silent_socket_seconds = 1.0)
        .sqlite()
        .await;
    let room = server.create_room(json!({})).await;
    // One socket only reads; one watches; one sits down. Pings are answered by all.
    let mut silent = server.client(&room).await;
    let mut w = watcher(&server, &room).await.expect("watching");
    let mut player = server.client(&room).await;
    player.join(Some(Seat::First), "Akira").await;
    // A real wait: a socket's own timers (silence, idleness, pings) run on real time,
    // as the pings the client answers do.
    tokio::time::sleep(Duration::from_millis(1500)).await;
    // The reader that never said join, resume or watch is closed with 1008 ...
    assert_eq!(close_code(&mut silent.ws).await, Some(1008));
    // ... the watcher and the player are still there.
    w.sync().await;
    player.sync().await;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_clients_ping_is_answered_and_its_close_echoed() {
    let (_db, server) = sqlite_server().await;
    let room = server.create_room(json!({})).await;
    let mut c = watcher(&server, &room).await.expect("watching");
    c.send_raw(Message::Ping(b"are you there".to_vec().into()))
        .await;
    let deadline = tokio::time::Instant::now() + TIMEOUT;
    loop {
        let left = deadline.saturating_duration_since(tokio::time::Instant::now());
        match tokio::time::timeout(left, c.ws.next()).await {
            Ok(Some(Ok(Message::Pong(p)))) => {
                assert_eq!(&p[..], b"are you there", "the ping's payload comes back");
                break;
            }
            Ok(Some(Ok(_))) => {}
            other => panic!("no pong: {other:?}"),
        }
    }
    // The client starts the closing handshake; the server echoes its code.
    c.ws.send(Message::Close(Some(
        tokio_tungstenite::tungstenite::protocol::CloseFrame {
            code: 4001u16.into(),
            reason: "going".into(),
        },
    )))
    .await
    .expect("close sent");
    assert_eq!(close_code(&mut c.ws).await, Some(4001));
    server.stop().await;
}
