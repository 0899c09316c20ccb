//! Durability on SQLite and PostgreSQL: kill the server abruptly mid-game, start a new
//! one on the same database, resume all three seats and finish the game.

use crate::common;

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
    let Some(db) = TestDb::postgres().await else {
        return;
    };
    let mut setup = Setup::default();
    setup.limits.rooms.grace_seconds = 30.0;
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

/// An `INSERT` of one row of `actions` (`created_at` is 100 + `ply`), to run on any
/// connection.
fn action_row<'q>(
    room: &'q str,
    ply: i64,
    kind: &'q str,
    player: Option<&'q str>,
    text: &'q str,
    clocks: Option<&'q str>,
) -> sqlx::query::Query<'q, sqlx::Any, sqlx::any::AnyArguments<'q>> {
    sqlx::query(
        "INSERT INTO actions (room_id, ply, kind, player, text, created_at, clocks) \
         VALUES ($1, $2, $3, $4, $5, $6, $7)",
    )
    .bind(room)
    .bind(ply)
    .bind(kind)
    .bind(player)
    .bind(text)
    .bind(100 + ply)
    .bind(clocks)
}

/// A database made before the rebuild of `actions` (its checks rewritten as
/// comparisons): the upgrade keeps every row in order, the rows still go with their
/// room, and the checks accept and refuse exactly what they did.
async fn upgrade_keeps_actions_and_their_checks(db: TestDb) {
    use sqlx::migrate::Migrator;
    sqlx::any::install_default_drivers();
    let url = match &db {
        TestDb::Sqlite { url, .. } => {
            let file = url.trim_start_matches("sqlite://");
            std::fs::create_dir_all(std::path::Path::new(file).parent().unwrap()).unwrap();
            format!("{url}?mode=rwc")
        }
        TestDb::Postgres { url, .. } => url.clone(),
    };
    let pool = sqlx::AnyPool::connect(&url).await.unwrap();
    let all = sannin_server::migrator().await;
    let earlier: Vec<_> = all
        .migrations
        .iter()
        .take_while(|m| m.description != "action checks")
        .cloned()
        .collect();
    assert!(
        earlier.len() < all.migrations.len(),
        "the rebuild is a migration"
    );
    let old = Migrator {
        migrations: earlier.into(),
        ..Migrator::DEFAULT
    };
    old.run(&pool).await.unwrap();
    for room in ["r1", "r2"] {
        sqlx::query(
            "INSERT INTO rooms (id, status, created_at, updated_at) VALUES ($1, 'playing', 1, 1)",
        )
        .bind(room)
        .execute(&pool)
        .await
        .unwrap();
    }
    let rows = [
        ("r1", 1, "act", Some("first"), "P3c-4d", None),
        (
            "r1",
            2,
            "act",
            Some("middle"),
            "P10k-10j",
            Some(r#"{"first":{}}"#),
        ),
        ("r1", 3, "resign", Some("last"), "resign", None),
        ("r1", 4, "forfeit", Some("first"), "timeout", None),
        ("r1", 5, "draw", None, "draw", None),
        ("r2", 1, "act", Some("first"), "P3c-4c", None),
    ];
    for (room, ply, kind, player, text, clocks) in rows {
        action_row(room, ply, kind, player, text, clocks)
            .execute(&pool)
            .await
            .unwrap();
    }
    type Row = (
        String,
        i64,
        String,
        Option<String>,
        String,
        i64,
        Option<String>,
    );
    let read = "SELECT room_id, ply, kind, player, text, created_at, clocks FROM actions \
                ORDER BY room_id, ply";
    let stored: Vec<Row> = sqlx::query_as(read).fetch_all(&pool).await.unwrap();
    assert_eq!(stored.len(), rows.len());

    // A node still running the previous version keeps writing while another upgrades
    // (a rolling restart of a cluster): a row it is committing as the upgrade starts,
    // and one it writes while the upgrade runs, both end up in the new table.
    use sqlx::Connection as _;
    let mut before = sqlx::AnyConnection::connect(&url).await.unwrap();
    let mut during = sqlx::AnyConnection::connect(&url).await.unwrap();
    let mut tx = before.begin().await.unwrap();
    action_row("r2", 2, "act", Some("middle"), "P10k-10j", None)
        .execute(&mut *tx)
        .await
        .unwrap();
    let upgrade = {
        let pool = pool.clone();
        tokio::spawn(async move {
            let all = sannin_server::migrator().await;
            all.run(&pool).await
        })
    };
    // A wait on purpose: what is checked is that the upgrade does not finish while
    // the row is being written (it waits for the lock).
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    assert!(
        !upgrade.is_finished(),
        "the upgrade waits for the row being written"
    );
    let late = tokio::spawn(async move {
        action_row("r2", 3, "act", Some("last"), "P11g-10g", None)
            .execute(&mut during)
            .await
            .map(|_| ())
    });
    // Let the late write reach the database and queue behind the migration's lock;
    // whether it has yet or not, it must land once both commit.
    tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    tx.commit().await.unwrap();
    upgrade.await.unwrap().unwrap();
    late.await.unwrap().unwrap();
    before.close().await.ok();

    let upgraded: Vec<Row> = sqlx::query_as(read).fetch_all(&pool).await.unwrap();
    let mut expected = stored.clone();
    for (ply, player, text) in [(2, "middle", "P10k-10j"), (3, "last", "P11g-10g")] {
        expected.push((
            "r2".into(),
            ply,
            "act".into(),
            Some(player.into()),
            text.into(),
            100 + ply,
            None,
        ));
    }
    assert_eq!(upgraded, expected, "every row kept as it was, none lost");

    let try_insert = |ply: i64, kind: &'static str, player: Option<&'static str>| {
        action_row("r2", ply, kind, player, "x", None).execute(&pool)
    };
    for (ply, kind, player) in [(10, "bogus", Some("first")), (11, "act", Some("fourth"))] {
        assert!(
            try_insert(ply, kind, player).await.is_err(),
            "{kind} by {player:?} refused"
        );
    }
    let mut ply = 20;
    for kind in ["act", "resign", "forfeit", "draw"] {
        for player in [Some("first"), Some("middle"), Some("last"), None] {
            try_insert(ply, kind, player).await.unwrap();
            ply += 1;
        }
    }
    assert!(
        try_insert(20, "act", Some("first")).await.is_err(),
        "a ply stored twice is refused"
    );
    // (sqlx turns SQLite's foreign keys on for its connections, as the server does.)
    assert!(
        action_row("nowhere", 1, "act", Some("first"), "x", None)
            .execute(&pool)
            .await
            .is_err(),
        "an action of no room is refused"
    );
    sqlx::query("DELETE FROM rooms WHERE id = 'r1'")
        .execute(&pool)
        .await
        .unwrap();
    let left: Vec<Row> = sqlx::query_as(read).fetch_all(&pool).await.unwrap();
    assert!(
        left.iter().all(|r| r.0 == "r2"),
        "a room's actions go with it"
    );
    pool.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn upgrade_keeps_actions_sqlite_and_postgres() {
    on_both_databases(upgrade_keeps_actions_and_their_checks).await;
}
