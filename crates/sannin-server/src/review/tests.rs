//! The reviews' queue on a real SQLite file: fair order, leases, release.

use super::store::{self, Request};
use crate::store::Store;

/// Queues a review of a new finished room for `requester`, asked at `at`.
async fn queue(store: &Store, room: &str, requester: &str, at: i64) {
    sqlx::query(
        "INSERT INTO rooms (id, status, created_at, updated_at) VALUES ($1, 'finished', 0, 0)",
    )
    .bind(room)
    .execute(store.pool())
    .await
    .unwrap();
    let r = Request {
        room_id: room,
        requester,
        addr: "127.0.0.1",
        account_id: None,
        plies_total: 10,
        nodes: 100,
    };
    assert!(store::insert(store, &r).await.unwrap());
    assert!(
        !store::insert(store, &r).await.unwrap(),
        "one review per game"
    );
    sqlx::query("UPDATE game_reviews SET requested_at = $2 WHERE room_id = $1")
        .bind(room)
        .bind(at)
        .execute(store.pool())
        .await
        .unwrap();
}

/// Takes the next review for `node` at `now`, as a worker does.
async fn take(store: &Store, node: &str, now: i64) -> Option<String> {
    let room = store::next(store, now).await.unwrap()?;
    assert!(store::claim(store, &room, node, now, now + 1000)
        .await
        .unwrap());
    Some(room)
}

/// The queue's SQL, on SQLite and on PostgreSQL.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_requester_gets_its_turn_and_a_lapsed_lease_is_taken_over() {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}", dir.path().join("q.db").display());
    let sqlite = Store::connect(&url, 4).await.unwrap();
    fair_queue(&sqlite).await;
    sqlite.close().await;
    let Some(pg) = crate::testing::TestPg::new("review_queue").await else {
        return;
    };
    let store = Store::connect(&pg.url, 4).await.unwrap();
    fair_queue(&store).await;
    store.close().await;
    pg.drop_it().await;
}

async fn fair_queue(store: &Store) {
    let store = store.clone();
    // A asks for three reviews, then B for one: B's runs second, not fourth.
    queue(&store, "a1", "addr:a", 1).await;
    queue(&store, "a2", "addr:a", 2).await;
    queue(&store, "a3", "addr:a", 3).await;
    queue(&store, "b1", "addr:b", 4).await;
    assert_eq!(store::waiting(&store).await.unwrap(), 4);
    assert_eq!(store::ahead(&store, 4).await.unwrap(), 3);
    assert_eq!(take(&store, "n1", 10).await.as_deref(), Some("a1"));
    assert_eq!(take(&store, "n1", 10).await.as_deref(), Some("b1"));
    assert_eq!(take(&store, "n2", 10).await.as_deref(), Some("a2"));
    // a1 is running under n1's lease until 1010; at 1011 n1 has not renewed it and n2
    // takes it over; n1's writes then find it gone.
    assert!(store::progress(&store, "a1", "n1", 3, 1010).await.unwrap());
    assert_eq!(take(&store, "n2", 1005).await.as_deref(), Some("a3"));
    assert_eq!(take(&store, "n2", 1005).await, None);
    assert_eq!(take(&store, "n2", 1011).await.as_deref(), Some("a1"));
    assert!(!store::progress(&store, "a1", "n1", 4, 3000).await.unwrap());
    assert!(!store::finish(&store, "a1", "n1", true, "{}", 10)
        .await
        .unwrap());
    assert!(store::finish(&store, "a1", "n2", true, "{}", 10)
        .await
        .unwrap());
    let row = store::find(&store, "a1").await.unwrap().unwrap();
    assert_eq!((row.state.as_str(), row.plies_done), ("done", 10));
    assert_eq!(row.result.as_deref(), Some("{}"));
    // A node that stops puts its running reviews back in the queue.
    assert_eq!(store::release(&store, Some("n1")).await.unwrap(), 1); // b1
    assert_eq!(
        store::find(&store, "b1").await.unwrap().unwrap().state,
        "queued"
    );
    assert_eq!(store::release(&store, None).await.unwrap(), 2); // a2, a3
    assert_eq!(store::waiting(&store).await.unwrap(), 3);
}
