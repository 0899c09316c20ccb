//! SQLite specifics: its URLs (a directory made, the file created), and the
//! checkpointer that copies the write-ahead log into the database off the commit path.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

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

/// Pages in the write-ahead log (64 MiB) from which the checkpointer asks the writer to
/// copy the last of it, so that the log starts over (see [`checkpoints`]).
const LOG_RESTART_PAGES: i64 = 16_384;

/// Pages committed between two checkpoints few enough for the writer to copy the
/// pages committed after the second one in a moment.
const CAUGHT_UP_PAGES: i64 = 512;

/// The most checkpoints run one after the other to catch up with a long log.
const CATCH_UP_PASSES: u32 = 16;

/// How many times the write-ahead log at `wal` started over: its header's checkpoint
/// sequence number (bytes 12–15, big-endian).
#[cfg(test)]
pub(super) fn log_restarts(wal: &std::path::Path) -> u32 {
    let head = std::fs::read(wal).unwrap();
    u32::from_be_bytes(head[12..16].try_into().unwrap())
}

/// The checkpointer's word to the action writer (`writer.rs`): the log is long and all
/// of it was copied a moment ago. The writer copies what it committed since, on its own
/// connection, between two of its commits, so that its next commit starts the log
/// over.
#[derive(Clone, Debug, Default)]
pub(super) struct LogCopied(Arc<AtomicBool>);

impl LogCopied {
    pub(super) fn raise(&self) {
        self.0.store(true, Ordering::Relaxed);
    }

    /// Whether the word was given since the last look (and takes it).
    pub(super) fn take(&self) -> bool {
        self.0.load(Ordering::Relaxed) && self.0.swap(false, Ordering::Relaxed)
    }
}

/// A log file larger than this is emptied by the checkpointer once the database is
/// quiet.
const WAL_KEEP_BYTES: u64 = 64 * 1024 * 1024;

/// How long nothing must have been written before the log file is emptied.
const QUIET: std::time::Duration = std::time::Duration::from_secs(5);

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
/// answers; this one comes every 20–25 s, each crossing 260–310 ms of late answers.
/// So under a steady load the backstop is not reached: once the log is longer than
/// [`LOG_RESTART_PAGES`], the checkpointer runs its checkpoints one after the other
/// until one finds fewer than [`CAUGHT_UP_PAGES`] committed since the one before, then
/// tells the writer (`copied`). The writer's own checkpoint after its next commit
/// copies what was committed since, and no other commit can land between that
/// checkpoint and the writer's following commit, which starts the log over. That
/// checkpoint holds the actions behind it: on a small machine at 5,200 actions a
/// second, 6–27 ms once every 1.75 s (mostly the kernel holding back its writes to the
/// database file while the disk takes about 90 MB a second; 10–35 ms when the writer
/// was told after any checkpoint, without catching up), instead of 260–310 ms every
/// 20–25 s, and the log file stays near 64 MiB instead of growing to 1 GiB. A site's
/// usual load pauses often enough for the log to start over on its own.
///
/// The log file keeps its size when the log starts over: no commit cuts it back (the
/// connections keep SQLite's default `journal_size_limit`, none). A commit that did
/// would hold every action behind it while the kernel frees the file's pages — 186 ms
/// for 140 MB on a small machine, at the first actions after a load test's rooms were
/// seated (their seats had made a log of 200 MB) — and a log written over its old
/// pages is cheaper than one that grows the file again. Only once nothing has been
/// written for [`QUIET`] (every checkpoint found the whole log copied, and the log
/// unchanged) does this checkpointer empty `wal`, the log file, if it is larger than
/// [`WAL_KEEP_BYTES`] (a `TRUNCATE` checkpoint: it holds the write lock while it runs,
/// and gives up at once when a write holds it). Cutting it back at any moment the log
/// was all copied, between two commits of a steady load, held the actions behind it
/// again and again (the load test's p99 at 10,002 connections went from 29–39 ms to
/// 113–118 ms).
pub(super) async fn checkpoints(
    mut c: sqlx::AnyConnection,
    pool: AnyPool,
    wal: Option<std::path::PathBuf>,
    copied: LogCopied,
) {
    let mut every = tokio::time::interval(CHECKPOINT_EVERY);
    every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    if let Err(e) = c.execute("PRAGMA busy_timeout=0").await {
        tracing::warn!(error = %e, "SQLite checkpointer: busy_timeout");
    }
    // The log's size in frames at the last checkpoint, and since when it has been quiet.
    let mut last = None;
    let mut quiet_since = None;
    // Checkpoints run one after the other so far, catching up with a long log.
    let mut passes = 0;
    every.tick().await;
    loop {
        if passes == 0 {
            every.tick().await;
        }
        if pool.is_closed() {
            break;
        }
        let catching_up = std::mem::take(&mut passes);
        let done: Result<(i64, i64, i64), _> = sqlx::query_as("PRAGMA wal_checkpoint(PASSIVE)")
            .fetch_one(&mut c)
            .await;
        let (busy, log, copied_pages) = match done {
            Ok(row) => row,
            Err(e) => {
                tracing::warn!(error = %e, "SQLite checkpoint failed");
                continue;
            }
        };
        let all_copied = busy == 0 && log == copied_pages;
        if all_copied && log >= LOG_RESTART_PAGES {
            match last {
                Some(before) if log - before < CAUGHT_UP_PAGES => copied.raise(),
                _ if catching_up < CATCH_UP_PASSES => passes = catching_up + 1,
                _ => {}
            }
        }
        // Quiet: all copied, and no page written since the last checkpoint.
        let settled = all_copied && last == Some(log);
        last = Some(log);
        let now = tokio::time::Instant::now();
        let since = match (settled, quiet_since) {
            (false, _) => {
                quiet_since = None;
                continue;
            }
            (true, Some(t)) => t,
            (true, None) => *quiet_since.insert(now),
        };
        let large = wal
            .as_deref()
            .and_then(|w| std::fs::metadata(w).ok())
            .is_some_and(|m| m.len() > WAL_KEEP_BYTES);
        if now - since >= QUIET && large {
            if let Err(e) = c.execute("PRAGMA wal_checkpoint(TRUNCATE)").await {
                tracing::debug!(error = %e, "SQLite log file not cut back");
            }
        }
    }
    let _ = c.close().await;
}
