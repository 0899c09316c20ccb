//! Failed database writes (docs/protocol.md §14): every failed write is answered or
//! retried after a backoff, and leaves a state the next attempt completes.
//!
//! Failures are real: a trigger in the test's own connection to the server's
//! database makes one kind of write fail, on SQLite and on PostgreSQL; dropping it
//! lets the writes through again.

use crate::common;

use std::time::Duration;

use common::*;
use sannin_protocol::{ClientMsg, ErrorCode, RoomStatus, Seat};
use sannin_server::ManualTime;
use serde_json::json;
use sqlx::{Connection, Executor, Row};

/// A write that fails on purpose: a trigger on `table` for `op` (INSERT, UPDATE,
/// DELETE). On PostgreSQL each refused write also counts itself in a sequence
/// (sequences ignore rollbacks), so a test can see how often the server tried.
struct Fault {
    conn: sqlx::AnyConnection,
    postgres: bool,
    table: &'static str,
}

impl Fault {
    async fn inject(db: &TestDb, table: &'static str, op: &str) -> Fault {
        sqlx::any::install_default_drivers();
        let mut conn = sqlx::AnyConnection::connect(db.url())
            .await
            .expect("a connection to the server's database");
        let postgres = db.is_postgres();
        let sql = if postgres {
            format!(
                "CREATE SEQUENCE IF NOT EXISTS refused_writes;
                 CREATE OR REPLACE FUNCTION refuse_write() RETURNS trigger LANGUAGE plpgsql AS $$
                 BEGIN PERFORM nextval('refused_writes'); RAISE EXCEPTION 'injected failure'; END $$;
                 CREATE TRIGGER fail_{table} BEFORE {op} ON {table}
                 FOR EACH ROW EXECUTE FUNCTION refuse_write();"
            )
        } else {
            format!(
                "CREATE TRIGGER fail_{table} BEFORE {op} ON {table}
                 BEGIN SELECT RAISE(ABORT, 'injected failure'); END;"
            )
        };
        conn.execute(sql.as_str())
            .await
            .expect("create the trigger");
        Fault {
            conn,
            postgres,
            table,
        }
    }

    /// Writes refused so far (PostgreSQL only).
    async fn refused(&mut self) -> i64 {
        assert!(self.postgres);
        let row = sqlx::query("SELECT last_value, is_called FROM refused_writes")
            .fetch_one(&mut self.conn)
            .await
            .expect("read the sequence");
        let (last, called): (i64, bool) = (row.get(0), row.get(1));
        if called {
            last
        } else {
            0
        }
    }

    async fn clear(mut self) {
        let t = self.table;
        let sql = if self.postgres {
            format!("DROP TRIGGER fail_{t} ON {t}")
        } else {
            format!("DROP TRIGGER fail_{t}")
        };
        self.conn
            .execute(sql.as_str())
            .await
            .expect("drop the trigger");
        self.conn.close().await.ok();
    }
}

/// Three players seated in a fresh room; nobody ready yet.
async fn three_seated(server: &TestServer) -> (String, Vec<Client>) {
    let room = server.create_room(json!({})).await;
    let mut players = Vec::new();
    for (seat, name) in [
        (Seat::First, "Ann"),
        (Seat::Middle, "Bob"),
        (Seat::Last, "Cid"),
    ] {
        let mut c = server.client(&room).await;
        c.join(Some(seat), name).await;
        players.push(c);
    }
    (room, players)
}

/// The room's own writes back off: the abandonment check of a disconnected player
/// to move, whose forfeit cannot be stored, is tried again only once each wait of the
/// backoff has passed (250 ms, doubling), not in a loop that spins, and succeeds once
/// the database takes writes again. Time is the test's own: each step of the backoff
/// is one more attempt, exactly.
#[tokio::test]
async fn failed_abandonment_writes_back_off_then_succeed() {
    on_both_databases(|db| async move {
        let time = ManualTime::new(0);
        let server = Setup::default().time(time.clone()).start(&db).await;
        let (_room, mut players) = three_seated(&server).await;
        for p in &mut players {
            p.send(ClientMsg::Ready).await;
        }
        for p in &mut players {
            p.until_playing().await;
        }
        let mut fault = Fault::inject(&db, "actions", "INSERT").await;
        // First is to move; it goes away. The grace period is 1 s.
        let first = players.remove(0);
        first.close().await;
        players[0].until_event("player_left").await;
        time.advance(Duration::from_secs(1));
        failures_reach(&server, 1).await;
        for (step, wait_ms) in [250, 500, 1_000, 2_000].into_iter().enumerate() {
            time.advance(Duration::from_millis(wait_ms));
            failures_reach(&server, step as u64 + 2).await;
        }
        if db.is_postgres() {
            assert_eq!(fault.refused().await, 5, "the database saw five attempts");
        }
        // Nothing was announced while the write failed.
        assert!(players[0].events_of("forfeited").is_empty());
        fault.clear().await;
        time.advance(Duration::from_secs(4));
        let ev = players[0].until_event("forfeited").await;
        assert_eq!(ev.kind(), "forfeited");
        assert_eq!(server.metric("sannin_store_failures_total").await, 5.0);
        let s = players[0].sync().await;
        assert_eq!(s.status, RoomStatus::Playing);
        assert_ne!(s.to_move, Some(Seat::First));
        server.stop().await;
    })
    .await;
}

/// Waits until `n` writes have failed, and checks that no more did.
async fn failures_reach(server: &TestServer, n: u64) {
    let end = tokio::time::Instant::now() + TIMEOUT;
    loop {
        let failures = server.metric("sannin_store_failures_total").await as u64;
        assert!(failures <= n, "{failures} failed writes where {n} were due");
        if failures == n {
            return;
        }
        assert!(
            tokio::time::Instant::now() < end,
            "{n} failed writes did not come"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// The write that starts the game fails: the player whose `ready` completed the
/// table is told, nobody sees the game start, and the next `ready` starts it.
#[tokio::test]
async fn a_failed_start_is_answered_and_the_next_ready_starts_the_game() {
    on_both_databases(|db| async move {
        let server = Setup::default().start(&db).await;
        let (_room, mut players) = three_seated(&server).await;
        players[0].send(ClientMsg::Ready).await;
        players[1].send(ClientMsg::Ready).await;
        players[2].until_event("player_ready").await;
        players[2].until_event("player_ready").await;
        let fault = Fault::inject(&db, "rooms", "UPDATE").await;
        players[2].send(ClientMsg::Ready).await;
        let message = players[2].expect_error(ErrorCode::Internal).await;
        assert!(message.contains("ready again"), "{message}");
        let s = players[2].sync().await;
        assert_eq!(s.status, RoomStatus::Waiting);
        assert!(players[0].events_of("game_started").is_empty());
        fault.clear().await;
        // Already ready: the same message tries the start again.
        players[2].send(ClientMsg::Ready).await;
        players[2].until_event("game_started").await;
        players[0].until_event("game_started").await;
        assert_eq!(players[0].until_playing().await.status, RoomStatus::Playing);
        server.stop().await;
    })
    .await;
}

/// A `leave` whose write fails is answered with an error; the seat stays held (the
/// state says so) and the next `leave` frees it.
#[tokio::test]
async fn a_failed_leave_keeps_the_seat_and_the_next_leave_frees_it() {
    on_both_databases(|db| async move {
        let server = Setup::default().start(&db).await;
        let room = server.create_room(json!({})).await;
        let mut ann = server.client(&room).await;
        ann.join(Some(Seat::First), "Ann").await;
        let mut watcher = server.client(&room).await;
        let fault = Fault::inject(&db, "seats", "DELETE").await;
        ann.send(ClientMsg::Leave).await;
        ann.expect_error(ErrorCode::Internal).await;
        let s = ann.sync().await;
        assert_eq!(s.you, Some(Seat::First), "still seated");
        assert_eq!(s.seats.first.as_ref().map(|s| s.name.as_str()), Some("Ann"));
        let s = watcher.sync().await;
        assert!(s.seats.first.is_some());
        assert!(watcher.events_of("seat_freed").is_empty());
        fault.clear().await;
        ann.send(ClientMsg::Leave).await;
        let s = ann.next_state().await;
        assert_eq!(s.you, None);
        assert!(s.seats.first.is_none());
        watcher.until_event("seat_freed").await;
        server.stop().await;
    })
    .await;
}
