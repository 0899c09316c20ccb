//! Leases and fencing against the PostgreSQL on 127.0.0.1:5432 (a throwaway database
//! per test; `SANNIN_TEST_POSTGRES` names another server's admin URL).

use std::time::Duration;

use sannin_rules::Player;
use sqlx::{Connection, Executor};
use uuid::Uuid;

use super::lease;
use crate::store::{is_fenced, ActionKind, Fence, Store, StoredAction};

/// A database `sannin_lease_<uuid>`, dropped at the end.
struct Db {
    admin: String,
    name: String,
    url: String,
}

impl Db {
    async fn new() -> Db {
        sqlx::any::install_default_drivers();
        let admin = std::env::var("SANNIN_TEST_POSTGRES")
            .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/postgres".into());
        let name = format!("sannin_lease_{}", Uuid::new_v4().simple());
        let mut c = sqlx::AnyConnection::connect(&admin)
            .await
            .unwrap_or_else(|e| panic!("PostgreSQL is required at {admin}: {e}"));
        c.execute(format!("CREATE DATABASE {name}").as_str())
            .await
            .unwrap();
        let base = admin.rsplit_once('/').map(|(b, _)| b).unwrap_or(&admin);
        let url = format!("{base}/{name}");
        Db { admin, name, url }
    }

    async fn drop_it(self) {
        let mut c = sqlx::AnyConnection::connect(&self.admin).await.unwrap();
        let sql = format!("DROP DATABASE IF EXISTS {} WITH (FORCE)", self.name);
        c.execute(sql.as_str()).await.unwrap();
    }
}

fn action(ply: i64, text: &str) -> StoredAction {
    StoredAction {
        ply,
        kind: ActionKind::Act,
        player: Some(Player::First),
        text: text.into(),
        clocks: None,
    }
}

#[tokio::test]
async fn a_node_that_lost_the_lease_cannot_write_an_action() {
    let db = Db::new().await;
    let store = Store::connect(&db.url, 4).await.unwrap();
    let pool = store.pool();
    let id = Uuid::new_v4();
    let ttl = Duration::from_secs(30);
    let a = lease::acquire(pool, id, "node-a", ttl).await.unwrap();
    assert_eq!(a, Some(1), "a fresh room's lease is free");
    assert_eq!(
        lease::acquire(pool, id, "node-b", ttl).await.unwrap(),
        None,
        "a live lease is not taken"
    );
    store
        .create_room(&id.to_string(), None, "{}", &[])
        .await
        .unwrap();
    let fence_a = Fence {
        node: "node-a".into(),
        epoch: 1,
    };
    store
        .append_action(&id.to_string(), &action(1, "P3c-4d"), None, Some(&fence_a))
        .await
        .expect("the owner writes");

    // The lease runs out (as if node-a were paused) and node-b takes it.
    lease::release(pool, id, "node-a", 1).await.unwrap();
    let b = lease::acquire(pool, id, "node-b", ttl).await.unwrap();
    assert_eq!(b, Some(2), "a takeover raises the epoch");
    let err = store
        .append_action(
            &id.to_string(),
            &action(2, "P13k-13j"),
            None,
            Some(&fence_a),
        )
        .await
        .expect_err("the old owner's write is refused");
    assert!(is_fenced(&err), "{err}");
    // The write that ends a game is fenced too, and leaves the room as it was.
    let err = store
        .append_action(
            &id.to_string(),
            &action(2, "resign"),
            Some("{}"),
            Some(&fence_a),
        )
        .await
        .expect_err("refused");
    assert!(is_fenced(&err), "{err}");
    let stored = store.load_room(&id.to_string()).await.unwrap().unwrap();
    assert_eq!(
        stored.actions.len(),
        1,
        "nothing of the old owner's after the takeover"
    );
    assert_eq!(stored.status, "waiting");

    let fence_b = Fence {
        node: "node-b".into(),
        epoch: 2,
    };
    store
        .append_action(
            &id.to_string(),
            &action(2, "P13k-13j"),
            None,
            Some(&fence_b),
        )
        .await
        .expect("the new owner writes");
    let renewed = lease::renew_all(pool, "node-a", ttl).await.unwrap();
    assert!(
        renewed.is_empty(),
        "node-a holds nothing any more: {renewed:?}"
    );
    let renewed = lease::renew_all(pool, "node-b", ttl).await.unwrap();
    assert_eq!(renewed, vec![(id.to_string(), 2)]);
    assert_eq!(
        lease::orphans(pool, 10).await.unwrap(),
        Vec::<String>::new()
    );
    assert_eq!(lease::release_all(pool, "node-b").await.unwrap(), 1);
    assert_eq!(
        lease::orphans(pool, 10).await.unwrap(),
        vec![id.to_string()],
        "a released unfinished room is up for a sweep"
    );
    store.close().await;
    db.drop_it().await;
}
