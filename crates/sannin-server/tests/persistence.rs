//! Durability on SQLite and PostgreSQL: kill the server abruptly mid-game, start a new
//! one on the same database, resume all three seats and finish the game.

mod common;

use common::*;
use sannin_rules::{Game, Position};
use serde_json::{json, Value};

async fn restart_recovery(db: TestDb) {
    let actions = tokio::task::spawn_blocking(|| {
        search_game(Position::start(), 400, 0..40, |events, _| {
            events.iter().any(|e| e["type"] == "mated")
        })
    })
    .await
    .unwrap()
    .expect("a finished game");
    let mut expected = Game::new();
    for a in &actions {
        let p = expected.to_move().unwrap();
        expected.play_notation(p, a).unwrap();
    }
    let cut = actions.len() / 2;

    let server = TestServer::start(test_config(db.url())).await;
    let mut t = Table::new(&server, json!({})).await;
    for a in &actions[..cut] {
        t.play(a).await;
    }
    let tokens: Vec<String> = t.players.iter().map(|p| p.token.clone().unwrap()).collect();
    let room = t.room.clone();
    // Abrupt death: no graceful shutdown, tasks dropped wherever they are.
    server.kill();
    drop(t);

    let server = TestServer::start(test_config(db.url())).await;
    let (code, details) = server.get_json(&format!("/api/rooms/{room}")).await;
    assert_eq!(code, 200);
    assert_eq!(details["status"], "playing");
    assert_eq!(
        details["moves"].as_array().unwrap().len(),
        cut,
        "no acknowledged action lost"
    );
    let list = server.get_json("/api/rooms").await.1;
    assert!(list
        .as_array()
        .unwrap()
        .iter()
        .any(|r| r["id"] == room.as_str()));

    let mut spectator = server.client(&room).await;
    let mut players = Vec::new();
    for (i, token) in tokens.iter().enumerate() {
        let mut c = server.client(&room).await;
        c.send(json!({"type": "resume", "token": token})).await;
        assert_eq!(c.until_type("seated").await["seat"], SEATS[i]);
        let st = c.until_type("state").await;
        assert_eq!(st["you"], SEATS[i]);
        assert_eq!(st["status"], "playing");
        assert_eq!(st["moves"], json!(actions[..cut]));
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
    let st = t.spectator.last_state.clone().unwrap();
    assert_eq!(st["status"], "finished");
    assert_eq!(
        st["result"],
        serde_json::to_value(expected.outcome().unwrap()).unwrap()
    );
    t.assert_same_streams();
    server.stop().await;

    // Finished games stay viewable after another restart (loaded on demand).
    let server = TestServer::start(test_config(db.url())).await;
    let (code, details) = server.get_json(&format!("/api/rooms/{room}")).await;
    assert_eq!(code, 200);
    assert_eq!(details["status"], "finished");
    assert_eq!(details["moves"], json!(expected.moves()));
    assert_ne!(details["result"], Value::Null);
    let record = reqwest::get(server.url(&format!("/api/rooms/{room}/record")))
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert_eq!(record, expected.record());
    let mut late = server.client(&room).await;
    let st = late.sync().await;
    assert_eq!(st["status"], "finished");
    server.stop().await;
    db.cleanup().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn restart_recovery_sqlite() {
    restart_recovery(TestDb::sqlite()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn restart_recovery_postgres() {
    restart_recovery(TestDb::postgres().await).await;
}

/// Seats (with hashed tokens) and a waiting room survive a restart too; on PostgreSQL.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn waiting_room_and_tokens_survive_restart_postgres() {
    let db = TestDb::postgres().await;
    let mut config = test_config(db.url());
    config.grace = std::time::Duration::from_secs(30);
    let server = TestServer::start(config.clone()).await;
    let room = server.create_room(json!({})).await;
    let mut a = server.client(&room).await;
    a.join(Some("middle"), "Ann").await;
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

    let server = TestServer::start(config).await;
    let mut a = server.client(&room).await;
    a.send(json!({"type": "resume", "token": token})).await;
    assert_eq!(a.until_type("seated").await["seat"], "middle");
    let st = a.until_type("state").await;
    assert_eq!(st["status"], "waiting");
    assert_eq!(st["seats"]["middle"]["name"], "Ann");
    server.stop().await;
    db.cleanup().await;
}
