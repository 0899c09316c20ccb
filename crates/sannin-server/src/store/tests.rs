//! The store's own tests: SQLite URLs, and writes through the group commit.

use super::*;

#[test]
fn sqlite_urls_get_their_directory_and_create_mode() {
    let dir = std::env::temp_dir().join(format!("sannin-url-{}", uuid::Uuid::new_v4()));
    let url = format!("sqlite://{}/a/b.db", dir.display());
    assert_eq!(prepare_sqlite_url(&url).unwrap(), format!("{url}?mode=rwc"));
    assert!(dir.join("a").is_dir());
    let ro = format!("sqlite://{}/a/b.db?mode=ro", dir.display());
    assert_eq!(prepare_sqlite_url(&ro).unwrap(), ro);
    assert_eq!(
        prepare_sqlite_url("sqlite::memory:").unwrap(),
        "sqlite::memory:"
    );
    std::fs::remove_dir_all(dir).unwrap();
    assert!(is_sqlite("sqlite://x.db") && !is_sqlite("postgres://h/db"));
    assert_eq!(
        sqlite_file("sqlite:///tmp/x.db?mode=rwc"),
        Some("/tmp/x.db")
    );
    assert_eq!(sqlite_file("sqlite:x.db"), Some("x.db"));
    assert_eq!(sqlite_file("sqlite::memory:"), None);
    assert_eq!(sqlite_file("sqlite:///tmp/x.db?mode=ro"), None);
}

fn act(ply: i64, text: &str) -> StoredAction {
    StoredAction::first_moves(ply, text)
}

/// Actions go through the writer's own SQLite connection; while another connection
/// holds the write lock they go through the pool instead, which waits for it: nothing
/// is lost either way, and a row the database refuses gets its own error.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlite_actions_are_written_directly_or_wait_for_a_busy_database() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.db");
    let store = Store::connect(&format!("sqlite://{}", path.display()), 4)
        .await
        .unwrap();
    store.create_room("r", None, "{}", &[]).await.unwrap();
    store
        .append_action("r", &act(1, "P3c-4c"), None, None)
        .await
        .unwrap();

    // Another process of SQLite holds the write lock for a while.
    let blocker = rusqlite::Connection::open(&path).unwrap();
    blocker.execute_batch("BEGIN IMMEDIATE").unwrap();
    let writing = {
        let store = store.clone();
        tokio::spawn(async move {
            store
                .append_action("r", &act(2, "P10k-10j"), None, None)
                .await
        })
    };
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    assert!(!writing.is_finished(), "the action waits for the lock");
    blocker.execute_batch("COMMIT").unwrap();
    writing.await.unwrap().unwrap();

    // The same ply again: refused, and the rows stored stay as they are.
    let again = store
        .append_action("r", &act(2, "P11g-10g"), None, None)
        .await;
    assert!(again.is_err());
    store
        .append_action("r", &act(3, "P11g-10g"), Some("{}"), None)
        .await
        .unwrap();
    let room = store.load_room("r").await.unwrap().unwrap();
    let texts: Vec<&str> = room.actions.iter().map(|a| a.text.as_str()).collect();
    assert_eq!(texts, ["P3c-4c", "P10k-10j", "P11g-10g"]);
    assert_eq!(room.status, "finished");
    store.close().await;
}
