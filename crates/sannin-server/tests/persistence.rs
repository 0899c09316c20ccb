//! Durability on SQLite and PostgreSQL: kill the server abruptly mid-game, start a new
//! one on the same database, resume all three seats and finish the game.

mod common;

use common::*;
use sannin_protocol::{RoomStatus, Seat};
use sannin_rules::Game;
use serde_json::json;

async fn restart_recovery(db: TestDb) {
    let actions = find_game("a mate", has_mate).await;
    let mut expected = Game::new();
    for a in &actions {
        let p = expected.to_move().unwrap();
        expected.play_notation(p, a).unwrap();
    }
    let cut = actions.len() / 2;

    let server = Setup::default().start(&db).await;
    let mut t = Table::new(&server, json!({})).await;
    for a in &actions[..cut] {
        t.play(a).await;
    }
    let tokens: Vec<String> = t.players.iter().map(|p| p.token.clone().unwrap()).collect();
    let room = t.room.clone();
    // Abrupt death: no graceful shutdown, tasks dropped wherever they are.
    server.kill();
    drop(t);

    let server = Setup::default().start(&db).await;
    let details = server.room(&room).await;
    assert_eq!(details.room.status, RoomStatus::Playing);
    assert_eq!(details.moves.len(), cut, "no acknowledged action lost");
    assert!(server.lists(&room).await);

    let mut spectator = server.client(&room).await;
    let mut players = Vec::new();
    for (seat, token) in Seat::ALL.into_iter().zip(&tokens) {
        let mut c = server.client(&room).await;
        assert_eq!(c.resume(token).await, seat);
        let st = c.next_state().await;
        assert_eq!(st.you, Some(seat));
        assert_eq!(st.status, RoomStatus::Playing);
        assert_eq!(st.moves(), &actions[..cut]);
        players.push(c);
    }
    spectator.sync().await;
    let mut t = Table {
        room: room.clone(),
        players,
        spectator,
    };
    for a in &actions[cut..] {
        t.play(a).await;
    }
    let st = t.spectator.state();
    assert_eq!(st.status, RoomStatus::Finished);
    assert_eq!(st.result.as_ref(), expected.outcome());
    t.assert_same_streams();
    server.stop().await;

    // Finished games stay viewable after another restart (loaded on demand).
    let server = Setup::default().start(&db).await;
    let details = server.room(&room).await;
    assert_eq!(details.room.status, RoomStatus::Finished);
    assert_eq!(details.moves, expected.moves());
    assert!(details.room.result.is_some());
    let (_, record) = server.get_text(&format!("/api/rooms/{room}/record")).await;
    assert!(record.ends_with(&expected.record()), "{record}");
    let mut late = server.client(&room).await;
    let st = late.sync().await;
    assert_eq!(st.status, RoomStatus::Finished);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn restart_recovery_sqlite_and_postgres() {
    on_both_databases(restart_recovery).await;
}

/// Seats (with hashed tokens) and a waiting room survive a restart too; on PostgreSQL.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn waiting_room_and_tokens_survive_restart_postgres() {
    let db = TestDb::postgres().await;
    let mut setup = Setup::default();
    setup.limits.grace_seconds = 30.0;
    let server = setup.start(&db).await;
    let room = server.create_room(json!({})).await;
    let mut a = server.client(&room).await;
    a.join(Some(Seat::Middle), "Ann").await;
    let token = a.token.clone().unwrap();
    server.kill();

    // Only the hash is stored.
    {
        use sqlx::{Connection, Executor, Row};
        let mut conn = sqlx::AnyConnection::connect(db.url()).await.unwrap();
        let row = conn
            .fetch_one(sqlx::query("SELECT token_hash FROM seats WHERE room_id = $1").bind(&room))
            .await
            .unwrap();
        let hash: String = row.get(0);
        assert_ne!(hash, token);
        assert_eq!(hash.len(), 64);
        conn.close().await.ok();
    }

    let server = setup.start(&db).await;
    let mut a = server.client(&room).await;
    assert_eq!(a.resume(&token).await, Seat::Middle);
    let st = a.next_state().await;
    assert_eq!(st.status, RoomStatus::Waiting);
    assert_eq!(st.seats.middle.as_ref().unwrap().name, "Ann");
    server.stop().await;
}
