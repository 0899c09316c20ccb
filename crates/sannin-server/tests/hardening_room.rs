//! A room's places under attack from several real client addresses (127.0.1.N): a
//! player's chat budget that reconnecting from other addresses does not refill, and
//! spectator places that a few addresses cannot keep to themselves.

mod common;

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
        let mut answers = 0;
        while answers < 5 {
            match c.recv().await {
                ServerMsg::Chat(m) if m.text.starts_with(&format!("message {i}.")) => accepted += 1,
                ServerMsg::Error {
                    code: ErrorCode::RateLimited,
                    ..
                } => limited += 1,
                _ => continue,
            }
            answers += 1;
        }
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
            l.max_connections_per_room = 20;
            l.guards.spectators_per_address = 8;
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
