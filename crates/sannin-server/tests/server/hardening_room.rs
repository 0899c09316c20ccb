//! A room's places under attack from several real client addresses (127.0.1.N): a
//! player's chat budget that reconnecting from other addresses does not refill,
//! spectator places that a few addresses cannot keep to themselves, and finished
//! rooms that reading cannot pile up in memory.

use crate::common;

use std::time::Duration;

use common::*;
use sannin_protocol::{ClientMsg, ErrorCode, Seat, ServerMsg};
use serde_json::json;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reconnecting_does_not_refill_a_players_chat_budget() {
    // The default chat budget: 20 a minute, 5 at once.
    let (_db, server) = Setup::default().sqlite().await;
    let mut table = Table::new(&server, json!({})).await;
    let token = table.players[0].token.clone().expect("a token");
    let url = server.ws_url(&table.room);
    // The player at First sends 5 messages on each of 8 fresh sockets, each from an
    // address of its own, resuming its seat every time.
    let (mut accepted, mut limited) = (0u32, 0u32);
    for i in 0..8 {
        let mut c = Client::connect_from(&url, source(i), &[]).await;
        c.resume(&token).await;
        for k in 0..5 {
            c.chat(&format!("message {i}.{k}")).await;
        }
        let mine = format!("message {i}.");
        let (yes, no) = count_answers(
            &mut c,
            5,
            |m| matches!(m, ServerMsg::Chat(chat) if chat.text.starts_with(&mine)),
        )
        .await;
        accepted += yes;
        limited += no;
        c.close().await;
    }
    // A bucket per socket would pass all 40; the seat's one bucket passes its burst
    // and what refills meanwhile (one every 3 s).
    assert!(accepted >= 5, "the player can still chat: {accepted}");
    assert!(
        accepted <= 8,
        "the chat budget follows the seat: {accepted} sent, {limited} refused"
    );
    // The spectator saw only what was accepted.
    let mut seen = 0;
    while let Some(msg) = table.spectator.try_recv(Duration::from_millis(300)).await {
        if matches!(msg, ServerMsg::Chat(ref m) if m.text.starts_with("message ")) {
            seen += 1;
        }
    }
    assert_eq!(seen, accepted);
    server.stop().await;
}

/// A watcher of `room` from `ip`: the state it is let in with, or the error that
/// refused it.
async fn watcher_from(
    server: &TestServer,
    room: &str,
    ip: std::net::IpAddr,
) -> Result<Client, ErrorCode> {
    let mut c = Client::upgrade_from(&server.ws_url(room), &[], Some(ip))
        .await
        .expect("an upgrade");
    c.send(ClientMsg::Watch { name: None }).await;
    loop {
        match c.try_recv(TIMEOUT).await {
            Some(ServerMsg::ChatHistory { .. }) => return Ok(c),
            Some(ServerMsg::Error { code, .. }) => return Err(code),
            Some(_) => continue,
            None => panic!("no answer to watch"),
        }
    }
}

/// Whether the server let `c` go (a `room_full` error, or closed), reading what came.
async fn gone(c: &mut Client) -> bool {
    let mut gone = false;
    while let Some(m) = c.try_recv(Duration::from_millis(20)).await {
        if matches!(
            m,
            ServerMsg::Error {
                code: ErrorCode::RoomFull,
                ..
            }
        ) {
            gone = true;
        }
    }
    gone || c.closed
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn spectator_places_go_to_many_addresses() {
    // Room for 20 spectators, 8 a room per address.
    let (_db, server) = Setup::default()
        .limits(|l| {
            l.rooms.max_connections_per_room = 20;
            l.rooms.spectators_per_address = 8;
        })
        .sqlite()
        .await;
    let room = server.create_room(json!({})).await;
    // Four addresses try 30 watchers each: each gets its 8 places at most.
    let mut kept = Vec::new();
    let mut per_address = Vec::new();
    for a in 0..4 {
        let mut n = 0;
        for _ in 0..30 {
            match watcher_from(&server, &room, source(a)).await {
                Ok(c) => {
                    n += 1;
                    kept.push((a, c));
                }
                Err(code) => assert_eq!(code, ErrorCode::RoomFull),
            }
        }
        per_address.push(n);
    }
    assert!(per_address.iter().all(|n| *n <= 8), "{per_address:?}");
    // Later addresses took places from the more crowded ones: what is left is shared.
    let mut left = Vec::new();
    for (a, mut c) in kept {
        if !gone(&mut c).await {
            left.push((a, c));
        }
    }
    let held = |left: &[(usize, Client)]| {
        (0..4)
            .map(|a| left.iter().filter(|(b, _)| *b == a).count())
            .collect::<Vec<_>>()
    };
    let before = held(&left);
    assert_eq!(
        before.iter().sum::<usize>(),
        20,
        "the room is full: {before:?}"
    );
    assert!(
        before.iter().all(|n| *n >= 4),
        "every address holds places: {before:?}"
    );
    // A fifth address still gets in, in place of a watcher of an address holding the
    // most places.
    let newcomer = watcher_from(&server, &room, source(4)).await;
    assert!(
        newcomer.is_ok(),
        "a new address is let in: {:?}",
        newcomer.err()
    );
    let mut displaced = Vec::new();
    for (a, c) in left.iter_mut() {
        if gone(c).await {
            displaced.push(*a);
        }
    }
    assert_eq!(
        displaced.len(),
        1,
        "one watcher gave its place up: {displaced:?}"
    );
    let most = before.iter().max().unwrap();
    assert_eq!(
        before[displaced[0]], *most,
        "from an address with the most places: {before:?}"
    );
    // A player still gets its seat.
    let mut p = Client::upgrade_from(&server.ws_url(&room), &[], Some(source(5)))
        .await
        .unwrap();
    p.send(ClientMsg::Join {
        seat: Some(Seat::First),
        name: Some("Ann".into()),
    })
    .await;
    assert_eq!(p.until_seated().await, Seat::First);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reading_finished_rooms_has_a_budget_and_starts_no_room() {
    const BUDGET: usize = 10;
    let (_db, server) = Setup::default()
        .limits(|l| {
            l.clients.rooms_per_minute = 0.0;
            l.rooms.finished_idle_seconds = 0.2;
            l.clients.room_loads_per_minute = BUDGET as f64;
        })
        .sqlite()
        .await;
    // Finished games, out of memory once their players have gone.
    let mut rooms = Vec::new();
    for _ in 0..BUDGET + 5 {
        let mut t = Table::new(&server, json!({})).await;
        t.finish_by_resignations().await;
        rooms.push(t.room.clone());
    }
    const IN_MEMORY: &str = "sannin_rooms{status=\"finished\"}";
    let deadline = std::time::Instant::now() + TIMEOUT;
    while server.metric(IN_MEMORY).await > 0.0 {
        assert!(
            std::time::Instant::now() < deadline,
            "the finished rooms unload"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    // One address reads them all: its budget's worth are answered, then 429; none is
    // started, and what was read is kept in a small cache.
    let reader = http_from(source(0));
    let mut answered = 0;
    for room in &rooms {
        let (s, _, v) = call(
            &reader,
            &server,
            "GET",
            &format!("/api/rooms/{room}"),
            None,
            None,
        )
        .await;
        match s {
            200 => {
                assert_eq!(v["id"], room.as_str());
                answered += 1;
            }
            429 => assert_eq!(v["error"]["code"], "rate_limited", "{v}"),
            _ => panic!("{s} {v}"),
        }
    }
    assert_eq!(answered, BUDGET);
    assert_eq!(server.metric(IN_MEMORY).await, 0.0, "no room started");
    assert_eq!(
        server.metric("sannin_finished_rooms_read").await,
        BUDGET as f64
    );
    // What is kept is read again for nothing, its record too.
    let (s, _, _) = call(
        &reader,
        &server,
        "GET",
        &format!("/api/rooms/{}", rooms[0]),
        None,
        None,
    )
    .await;
    assert_eq!(s, 200);
    let record = reader
        .get(server.url(&format!("/api/rooms/{}/record", rooms[1])))
        .send()
        .await
        .unwrap();
    assert_eq!(record.status(), 200);
    assert!(record.text().await.unwrap().contains("Result"));
    // A socket to a room not in memory takes from the same budget.
    let url = server.ws_url(&rooms[BUDGET + 1]);
    match Client::upgrade_from(&url, &[], Some(source(0))).await {
        Err(ConnectError::Refused { status, .. }) => assert_eq!(status, 429),
        other => panic!("expected 429, got {:?}", other.map(|_| "a socket")),
    }
    // Another address has a budget of its own.
    let (s, _, _) = call(
        &http_from(source(1)),
        &server,
        "GET",
        &format!("/api/rooms/{}", rooms[BUDGET + 2]),
        None,
        None,
    )
    .await;
    assert_eq!(s, 200);
    server.stop().await;
}
