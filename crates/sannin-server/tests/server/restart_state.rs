//! What a room holds besides its actions survives a restart too: the chat of both
//! channels and the rematch requests (SQLite and PostgreSQL). Waiting rooms nobody
//! can start expire, and are not brought back by a restart. The lobby lists what a
//! client needs to show a room.

use crate::common;

use std::time::Duration;

use common::*;
use sannin_protocol::{ChatMessage, ClientMsg, Event, RoomStatus, Seat, ServerMsg};
use serde_json::json;

async fn chat_history(c: &mut Client) -> Vec<ChatMessage> {
    c.until("chat_history", |m| match m {
        ServerMsg::ChatHistory { messages } => Some(messages),
        _ => None,
    })
    .await
}

async fn next_chat(c: &mut Client) -> ChatMessage {
    c.until("chat", |m| match m {
        ServerMsg::Chat(m) => Some(m),
        _ => None,
    })
    .await
}

async fn say(c: &mut Client, text: &str) {
    c.send(ClientMsg::Chat { text: text.into() }).await;
}

async fn chat_and_rematch_requests_survive(db: TestDb) {
    let server = Setup::default().start(&db).await;
    let mut t = Table::new(&server, json!({})).await;
    let room = t.room.clone();
    t.spectator
        .send(ClientMsg::Watch {
            name: Some("Zed".into()),
        })
        .await;
    chat_history(&mut t.spectator).await;
    say(&mut t.players[0], "good luck").await;
    next_chat(&mut t.spectator).await;
    say(&mut t.spectator, "go first!").await;
    next_chat(&mut t.spectator).await;
    t.players[0].send(ClientMsg::Resign).await;
    t.spectator.until_event("resigned").await;
    t.players[1].send(ClientMsg::Resign).await;
    t.spectator
        .until_state("finished", |s| s.status == RoomStatus::Finished)
        .await;
    t.players[0].send(ClientMsg::Rematch).await;
    let e = t.spectator.until_event("rematch_requested").await;
    assert_eq!(e, Event::RematchRequested { seat: Seat::First });
    // The lobby's view of a finished room.
    let (_, list) = server.get_json("/api/rooms").await;
    let summary = list
        .as_array()
        .expect("a list")
        .iter()
        .find(|r| r["id"] == room.as_str())
        .expect("the room is listed")
        .clone();
    assert_eq!(summary["moves"], 0);
    assert!(summary["result"].is_object(), "{summary}");
    assert!(summary["created_at_ms"].as_i64().expect("created_at_ms") > 0);
    assert!(summary["updated_at_ms"].as_i64() >= summary["created_at_ms"].as_i64());
    assert_eq!(summary["seats"]["first"]["name"], "player0");
    let tokens: Vec<String> = t.players.iter().map(|p| p.token.clone().unwrap()).collect();
    server.kill();
    drop(t);

    let server = Setup::default().start(&db).await;
    // A late spectator sees both channels' history as it was.
    let mut late = server.client(&room).await;
    late.send(ClientMsg::Watch { name: None }).await;
    let history = chat_history(&mut late).await;
    let texts: Vec<&str> = history.iter().map(|m| m.text.as_str()).collect();
    assert_eq!(texts, ["good luck", "go first!"]);
    assert_eq!(history[0].seat, Some(Seat::First));
    assert_eq!(history[1].name, "Zed");
    // A player sees the players' channel only.
    let mut second = server.client(&room).await;
    second.resume(&tokens[1]).await;
    let history = chat_history(&mut second).await;
    assert_eq!(history.len(), 1);
    // First's request is still there: the other two complete the rematch.
    let s = second.sync().await;
    assert_eq!(s.rematch.requested, vec![Seat::First]);
    let mut third = server.client(&room).await;
    third.resume(&tokens[2]).await;
    second.send(ClientMsg::Rematch).await;
    third.send(ClientMsg::Rematch).await;
    let started = third.until_event("rematch_started").await;
    assert!(
        matches!(started, Event::RematchStarted { .. }),
        "{started:?}"
    );
    // The chat numbering goes on after the restored messages.
    say(&mut second, "again!").await;
    let m = next_chat(&mut late).await;
    assert_eq!((m.id, m.text.as_str()), (3, "again!"));
    server.stop().await;
}

#[tokio::test]
async fn chat_and_rematch_requests_survive_a_restart() {
    on_both_databases(chat_and_rematch_requests_survive).await;
}

/// A waiting room with no human seated and nobody connected expires after
/// `--waiting-room-ttl-seconds`; one somebody watches does not.
#[tokio::test]
async fn lonely_waiting_rooms_expire() {
    let db = TestDb::sqlite();
    let server = Setup::default()
        .limits(|l| l.rooms.waiting_room_ttl_seconds = 0.5)
        .start(&db)
        .await;
    let lonely = server.create_room(json!({})).await;
    let watched = server.create_room(json!({})).await;
    let _watcher = server.client(&watched).await;
    let mut gone = false;
    for _ in 0..200 {
        if server.get_json(&format!("/api/rooms/{lonely}")).await.0 == 404 {
            gone = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    assert!(gone, "the lonely room expired");
    assert!(!server.lists(&lonely).await);
    assert_eq!(
        server.get_json(&format!("/api/rooms/{watched}")).await.0,
        200
    );
    assert!(server.lists(&watched).await);
    server.stop().await;
}

/// After a restart, a waiting room nobody can start whose time to live ran out is
/// not brought back; one with a seated player is.
#[tokio::test]
async fn expired_waiting_rooms_are_not_restored() {
    let db = TestDb::sqlite();
    let server = Setup::default().start(&db).await;
    let lonely = server.create_room(json!({})).await;
    let seated = server.create_room(json!({})).await;
    let mut ann = server.client(&seated).await;
    ann.join(Some(Seat::First), "Ann").await;
    server.kill();
    drop(ann);
    // Both rooms' last change an hour ago: longer than the lonely one's time to live.
    db.execute("UPDATE rooms SET updated_at = updated_at - 3600000")
        .await;
    let server = Setup::default()
        .limits(|l| {
            l.rooms.waiting_room_ttl_seconds = 0.3;
            l.rooms.grace_seconds = 60.0;
        })
        .start(&db)
        .await;
    assert_eq!(
        server.get_json(&format!("/api/rooms/{lonely}")).await.0,
        404
    );
    assert!(!server.lists(&lonely).await);
    let (code, details) = server.get_json(&format!("/api/rooms/{seated}")).await;
    assert_eq!(code, 200);
    assert_eq!(details["seats"]["first"]["name"], "Ann");
    server.stop().await;
}
