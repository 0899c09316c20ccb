//! Leases and fencing against the PostgreSQL on 127.0.0.1:5432 (a throwaway database
//! per test, `testing::TestPg`).

use std::time::Duration;

use sannin_rules::Player;
use uuid::Uuid;

use super::lease;
use sannin_protocol::RoomStatus;
use tokio_util::sync::CancellationToken;

use crate::store::{is_fenced, ChatAuthor, Fence, Store, StoredAction, StoredChat, StoredSeat};
use crate::testing::TestPg;

fn action(ply: i64, text: &str) -> StoredAction {
    StoredAction::first_moves(ply, text)
}

#[tokio::test]
async fn a_node_that_lost_the_lease_cannot_write_an_action() {
    let Some(db) = TestPg::new(module_path!()).await else {
        return;
    };
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
    let fence_a = node_as_fence();
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
    assert_eq!(stored.status, RoomStatus::Waiting);

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
        lease::orphans(pool, 10, 60_000).await.unwrap(),
        Vec::<String>::new()
    );
    assert_eq!(lease::release_all(pool, "node-b").await.unwrap(), 1);
    assert_eq!(
        lease::orphans(pool, 10, 60_000).await.unwrap(),
        vec![id.to_string()],
        "a released unfinished room is up for a sweep"
    );
    store.close().await;
    db.drop_it().await;
}

fn seat(p: Player, name: &str) -> StoredSeat {
    StoredSeat {
        seat: p,
        token_hash: format!("{:064x}", name.len()),
        name: name.into(),
        bot: None,
        account_id: None,
    }
}

fn chat(id: i64, text: &str) -> StoredChat {
    StoredChat {
        id,
        channel: sannin_protocol::Channel::Players,
        seat: Some(Player::First),
        name: "alice".into(),
        account: None,
        text: text.into(),
        at_ms: 1,
    }
}

/// What a room's rows say, for comparing before and after.
async fn rows(store: &Store, id: &str) -> String {
    let r = store.load_room(id).await.unwrap().expect("the room");
    let mut seats: Vec<String> = r
        .seats
        .iter()
        .map(|s| format!("{}={}:{:?}", s.seat.lower(), s.name, s.bot))
        .collect();
    seats.sort();
    format!(
        "status={} start={:?} settings={:?} seats={seats:?} actions={} rematch={:?} chat={:?}",
        r.status.as_str(),
        r.start_position,
        r.settings,
        r.actions.len(),
        r.rematch,
        r.chat.iter().map(|c| c.text.clone()).collect::<Vec<_>>(),
    )
}

#[tokio::test]
async fn a_node_that_lost_the_lease_cannot_write_anything() {
    let Some(db) = TestPg::new(module_path!()).await else {
        return;
    };
    let store = Store::connect(&db.url, 4).await.unwrap();
    let pool = store.pool();
    let room = Uuid::new_v4();
    let id = room.to_string();
    let ttl = Duration::from_secs(30);
    assert_eq!(
        lease::acquire(pool, room, "node-a", ttl).await.unwrap(),
        Some(1)
    );
    store.create_room(&id, None, "{}", &[]).await.unwrap();
    let lost_a = CancellationToken::new();
    let a = store.fenced(&id, node_as_fence(), lost_a.clone());
    a.put_seat(&id, &seat(Player::First, "alice"))
        .await
        .expect("the owner writes");
    a.put_seat(&id, &seat(Player::Middle, "bob")).await.unwrap();
    a.append_chat(&id, &chat(1, "hello"), &ChatAuthor::default())
        .await
        .unwrap();
    assert!(!lost_a.is_cancelled());

    // Node a is paused past its lease; node b takes the room.
    lease::release(pool, room, "node-a", 1).await.unwrap();
    assert_eq!(
        lease::acquire(pool, room, "node-b", ttl).await.unwrap(),
        Some(2)
    );
    let before = rows(&store, &id).await;

    // Node a wakes up and tries every write a room makes.
    let refused = every_write(&a, &id).await;
    for (what, r) in refused {
        let e = r.expect_err(what);
        assert!(is_fenced(&e), "{what}: {e}");
    }
    assert!(
        lost_a.is_cancelled(),
        "a refused write stops the stale room"
    );
    // A rematch made by the stale room (its new room fenced by the old room's lease).
    let rematch = Uuid::new_v4().to_string();
    let e = a
        .create_room(&rematch, None, "{}", &[seat(Player::Middle, "alice")])
        .await
        .expect_err("no rematch from a stale owner");
    assert!(is_fenced(&e), "{e}");
    assert!(store.load_room(&rematch).await.unwrap().is_none());
    assert_eq!(rows(&store, &id).await, before, "nothing of node a landed");

    // The new owner writes.
    new_owner_writes(&store, &id, &rematch).await;
    store.close().await;
    db.drop_it().await;
}

#[tokio::test]
async fn fenced_actions_written_together_are_answered_row_by_row() {
    let Some(db) = TestPg::new(module_path!()).await else {
        return;
    };
    let store = Store::connect(&db.url, 4).await.unwrap();
    let ids = rooms_leased_to(&store, &["node-a", "node-a", "node-b"]).await;
    let a = node_as_fence();
    // Sent at once, so that the writer takes several in one statement: rows of rooms
    // node-a holds, a row of a room it does not hold, and a game's last action.
    let (first, second, resign) = (
        action(1, "P3c-4d"),
        action(2, "P13k-13j"),
        action(2, "resign"),
    );
    let (r0, r1, r2, end0, end2) = tokio::join!(
        store.append_action(&ids[0], &first, None, Some(&a)),
        store.append_action(&ids[1], &first, None, Some(&a)),
        store.append_action(&ids[2], &first, None, Some(&a)),
        store.append_action(&ids[0], &resign, Some("{}"), Some(&a)),
        store.append_action(&ids[2], &resign, Some("{}"), Some(&a)),
    );
    r0.expect("held");
    r1.expect("held");
    end0.expect("held");
    assert!(is_fenced(&r2.expect_err("not held")));
    assert!(is_fenced(&end2.expect_err("not held")));
    // A row the database refuses (the ply is taken) fails alone.
    let taken = action(1, "P13k-13j");
    let (dup, ok) = tokio::join!(
        store.append_action(&ids[1], &taken, None, Some(&a)),
        store.append_action(&ids[1], &second, None, Some(&a)),
    );
    let dup = dup.expect_err("ply 1 is stored already");
    assert!(!is_fenced(&dup), "{dup}");
    ok.expect("the other row of the batch");
    let load = |i: usize| store.load_room(&ids[i]);
    let (s0, s1, s2) = (
        load(0).await.unwrap().unwrap(),
        load(1).await.unwrap().unwrap(),
        load(2).await.unwrap().unwrap(),
    );
    assert_eq!((s0.actions.len(), s0.status.as_str()), (2, "finished"));
    assert_eq!((s1.actions.len(), s1.status.as_str()), (2, "waiting"));
    assert_eq!(s1.actions[0].text, "P3c-4d");
    assert_eq!((s2.actions.len(), s2.status.as_str()), (0, "waiting"));
    store.close().await;
    db.drop_it().await;
}

#[tokio::test]
async fn a_batch_of_fenced_rows_in_runs_answers_each_room() {
    let Some(db) = TestPg::new(module_path!()).await else {
        return;
    };
    let store = Store::connect(&db.url, 4).await.unwrap();
    // 37 rows sent at once, every third of a room node-a does not hold: taken together,
    // the writer writes them by statements of 32, 4 and 1 rows in one transaction.
    let held: Vec<bool> = (0..37).map(|i| i % 3 != 2).collect();
    let nodes: Vec<&str> = held
        .iter()
        .map(|&h| if h { "node-a" } else { "node-b" })
        .collect();
    let ids = rooms_leased_to(&store, &nodes).await;
    let rooms: Vec<(String, bool)> = ids.into_iter().zip(held).collect();
    let a = node_as_fence();
    let first = action(1, "P3c-4d");
    let answers = futures_util::future::join_all(
        rooms
            .iter()
            .map(|(r, _)| store.append_action(r, &first, None, Some(&a))),
    )
    .await;
    for ((r, held), answer) in rooms.iter().zip(answers) {
        match answer {
            Ok(()) => assert!(held, "{r} is node-b's"),
            Err(e) => assert!(!held && is_fenced(&e), "{r}: {e}"),
        }
        let stored = store.load_room(r).await.unwrap().unwrap().actions.len();
        assert_eq!(stored, usize::from(*held), "{r}");
    }
    store.close().await;
    db.drop_it().await;
}

/// A room for each of `nodes`, each leased to its node (epoch 1); their ids.
async fn rooms_leased_to(store: &Store, nodes: &[&str]) -> Vec<String> {
    let mut ids = Vec::new();
    for node in nodes {
        let r = Uuid::new_v4();
        let ttl = Duration::from_secs(30);
        assert_eq!(
            lease::acquire(store.pool(), r, node, ttl).await.unwrap(),
            Some(1)
        );
        store
            .create_room(&r.to_string(), None, "{}", &[])
            .await
            .unwrap();
        ids.push(r.to_string());
    }
    ids
}

/// The fence of node-a's first lease of a room.
fn node_as_fence() -> Fence {
    Fence {
        node: "node-a".into(),
        epoch: 1,
    }
}

/// Every write a room's store makes, by a node that may no longer hold the lease.
async fn every_write(a: &Store, id: &str) -> Vec<(&'static str, sqlx::Result<()>)> {
    let id = id.to_string();
    vec![
        (
            "put_seat",
            a.put_seat(&id, &seat(Player::Last, "mallory")).await,
        ),
        (
            "set_seat_bot",
            a.set_seat_bot(&id, Player::First, Some(sannin_bot::Level::CASUAL))
                .await,
        ),
        ("delete_seat", a.delete_seat(&id, Player::Middle).await),
        ("free_seat", a.free_seat(&id, Player::First, true).await),
        (
            "append_chat",
            a.append_chat(&id, &chat(2, "stale"), &ChatAuthor::default())
                .await,
        ),
        (
            "set_rematch",
            a.set_rematch(&id, Some(Player::First), true).await,
        ),
        ("set_rematch all", a.set_rematch(&id, None, true).await),
        (
            "set_settings",
            a.set_settings(&id, r#"{"private":true}"#).await,
        ),
        (
            "set_status",
            a.set_status(&id, RoomStatus::Playing, None).await,
        ),
        (
            "set_start_position",
            a.set_start_position(&id, Some("x")).await,
        ),
        (
            "reseat",
            a.reseat(&id, &[seat(Player::First, "eve")], "x").await,
        ),
        (
            "append_action",
            a.append_action(&id, &action(1, "P3c-4d"), None, None).await,
        ),
        ("delete_room", a.delete_room(&id).await),
    ]
}

/// The holder of lease epoch 2 of room `id` writes, and what it wrote reads back.
async fn new_owner_writes(store: &Store, id: &str, rematch: &str) {
    let id = id.to_string();
    let lost_b = CancellationToken::new();
    let b = store.fenced(
        &id,
        Fence {
            node: "node-b".into(),
            epoch: 2,
        },
        lost_b.clone(),
    );
    b.put_seat(&id, &seat(Player::Last, "carol")).await.unwrap();
    b.append_chat(&id, &chat(2, "from b"), &ChatAuthor::default())
        .await
        .unwrap();
    b.set_settings(&id, r#"{"private":true}"#).await.unwrap();
    b.set_status(&id, RoomStatus::Playing, None).await.unwrap();
    b.append_action(&id, &action(1, "P3c-4d"), None, None)
        .await
        .unwrap();
    b.create_room(rematch, None, "{}", &[]).await.unwrap();
    assert!(!lost_b.is_cancelled());
    let after = store.load_room(&id).await.unwrap().unwrap();
    assert_eq!(after.status, RoomStatus::Playing);
    assert_eq!(after.settings.as_deref(), Some(r#"{"private":true}"#));
    assert_eq!(after.seats.len(), 3);
    assert_eq!(after.chat.len(), 2);
    assert_eq!(after.actions.len(), 1);
    assert!(store.load_room(rematch).await.unwrap().is_some());
}
