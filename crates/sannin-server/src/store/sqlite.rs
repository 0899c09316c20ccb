//! SQLite specifics: its URLs (a directory made, the file created), and the
//! checkpointer that copies the write-ahead log into the database off the commit path.

use anyhow::Context as _;
use sqlx::{AnyPool, Connection, Executor};

/// Whether `url` names a SQLite database.
pub fn is_sqlite(url: &str) -> bool {
    url.starts_with("sqlite:")
}

/// The path and the query (after `?`) of a SQLite URL.
fn sqlite_parts(url: &str) -> (&str, Option<&str>) {
    let rest = url
        .strip_prefix("sqlite://")
        .or_else(|| url.strip_prefix("sqlite:"))
        .unwrap_or("");
    match rest.split_once('?') {
        Some((p, q)) => (p, Some(q)),
        None => (rest, None),
    }
}

/// The file a SQLite URL names, if it names one that may be written.
pub(super) fn sqlite_file(url: &str) -> Option<&str> {
    let (path, query) = sqlite_parts(url);
    let special = query.is_some_and(|q| {
        q.split('&')
            .any(|kv| matches!(kv, "mode=memory" | "mode=ro" | "immutable=1"))
    });
    (!path.is_empty() && path != ":memory:" && !special).then_some(path)
}

/// Prepares a SQLite URL: creates the file's directory and asks for the file to be
/// created (`mode=rwc`) unless the URL says otherwise.
pub(super) fn prepare_sqlite_url(url: &str) -> anyhow::Result<String> {
    let (path, query) = sqlite_parts(url);
    if path.is_empty() || path == ":memory:" {
        return Ok(url.to_string());
    }
    if let Some(dir) = std::path::Path::new(path).parent() {
        if !dir.as_os_str().is_empty() {
            std::fs::create_dir_all(dir)
                .with_context(|| format!("creating database directory {}", dir.display()))?;
        }
    }
    Ok(match query {
        Some(q) if q.contains("mode=") => url.to_string(),
        Some(_) => format!("{url}&mode=rwc"),
        None => format!("{url}?mode=rwc"),
    })
}

/// How often the checkpointer copies the SQLite write-ahead log into the database.
const CHECKPOINT_EVERY: std::time::Duration = std::time::Duration::from_millis(250);

/// Pages in the write-ahead log (1 GiB) at which a commit copies it into the database
/// itself (SQLite's automatic checkpoint), so that the log can start over; see
/// [`checkpoints`].
pub(super) const WAL_BACKSTOP_PAGES: u32 = 262_144;

/// The size a write-ahead log that grew larger is cut back to once it starts over.
pub(super) const WAL_KEEP_BYTES: u64 = 64 * 1024 * 1024;

/// Copies the write-ahead log into the database file every [`CHECKPOINT_EVERY`], on a
/// connection of its own, until `pool` closes; a passive checkpoint never blocks the
/// writer.
///
/// The log starts over from its beginning only at a commit that finds every page of
/// it copied already. Under a steady stream of writes that never happens (a commit
/// lands while each checkpoint runs), so the log grows until the commit that takes it
/// past [`WAL_BACKSTOP_PAGES`] checkpoints it itself: whatever this checkpointer had
/// not copied yet and two `fsync`s, during which the actions behind that commit wait
/// (on a small machine's disk, 50–200 ms at the old mark of 16,384 pages, 260–310 ms at
/// this one). At 5,000 actions a second (about 11,000 log pages a second) the old mark
/// came every 1.5 s, with a checkpoint a second, and made the load test's slowest
/// answers; this one comes every 20–25 s. A site's usual load pauses often enough for
/// the log to start over on its own.
pub(super) async fn checkpoints(mut c: sqlx::AnyConnection, pool: AnyPool) {
    let mut every = tokio::time::interval(CHECKPOINT_EVERY);
    every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    every.tick().await;
    loop {
        every.tick().await;
        if pool.is_closed() {
            break;
        }
        if let Err(e) = c.execute("PRAGMA wal_checkpoint(PASSIVE)").await {
            tracing::warn!(error = %e, "SQLite checkpoint failed");
        }
    }
    let _ = c.close().await;
}
