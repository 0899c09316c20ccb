//! The documented backups and restores (docs/self-hosting.md, "Backups"), run as
//! written against the real server. PostgreSQL: the restore builds a new database from
//! the dump in one transaction and swaps it in, so the site comes back exactly as it
//! was at the backup — a room made since is gone, none is half there — whatever the
//! schema the dump was taken at. SQLite: an online backup taken while the server runs,
//! put in place of the database (its WAL files removed) while it is stopped.

use crate::{cluster_support, common};
use std::path::Path;
use std::process::Command;

use cluster_support::Pg;

/// Runs a PostgreSQL client tool against the local server as `postgres`.
fn pg_tool(tool: &str, args: &[&str]) {
    let out = Command::new(tool)
        .args(["-h", "127.0.0.1", "-U", "postgres"])
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("{tool} (PostgreSQL's client tools): {e}"));
    assert!(
        out.status.success(),
        "{tool} {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn status_of(addr: &str, path: &str) -> u16 {
    sannin_testkit::http::http(addr, "GET", path, "")
        .expect("GET")
        .0
}

#[test]
fn a_postgres_backup_restores_the_site_as_it_was() {
    let Some(pg) = Pg::try_new() else { return };
    let dir = tempfile::tempdir().unwrap();
    let start = |dir: &Path| {
        common::start_server(dir, "warn", |c| {
            c.env("DATABASE_URL", &pg.url);
        })
    };
    let (server, addr) = start(dir.path());
    let kept = common::create_room(&addr);
    let dump = dir.path().join("site.dump");
    let dump_arg = dump.to_str().unwrap();
    pg_tool(
        "pg_dump",
        &["-d", &pg.name, "--format=custom", "-f", dump_arg],
    );
    let made_since = common::create_room(&addr);
    drop(server);

    // The restore, as documented: a new database from the dump in one transaction
    // (any error stops it and leaves nothing), then swapped in for the old one.
    let new = format!("{}_restore", pg.name);
    let old = format!("{}_before_restore", pg.name);
    pg_tool("createdb", &[&new]);
    pg_tool(
        "pg_restore",
        &[
            "-d",
            &new,
            "--single-transaction",
            "--exit-on-error",
            "--no-owner",
            dump_arg,
        ],
    );
    pg_tool(
        "psql",
        &[
            "-d",
            "postgres",
            "-v",
            "ON_ERROR_STOP=1",
            "-c",
            &format!("ALTER DATABASE {} RENAME TO {old}", pg.name),
            "-c",
            &format!("ALTER DATABASE {new} RENAME TO {}", pg.name),
        ],
    );

    let (server, addr) = start(dir.path());
    assert_eq!(status_of(&addr, &format!("/api/rooms/{kept}")), 200);
    assert_eq!(status_of(&addr, &format!("/api/rooms/{made_since}")), 404);
    drop(server);
    pg_tool("dropdb", &["--if-exists", &old]);
}

#[test]
fn a_sqlite_backup_taken_while_running_restores_the_site_as_it_was() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let start = || common::start_server(dir.path(), "warn", |_| {});
    let (server, addr) = start();
    let kept = common::create_room(&addr);
    // The documented command, while the server runs.
    let out = Command::new("sqlite3")
        .current_dir(dir.path())
        .args(["data/sannin.db", ".backup 'backup.db'"])
        .output()
        .expect("sqlite3 (the SQLite command-line shell)");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let made_since = common::create_room(&addr);
    drop(server);

    // Stop, replace the database, delete its WAL files, start.
    std::fs::copy(dir.path().join("backup.db"), data.join("sannin.db")).unwrap();
    for wal in ["sannin.db-wal", "sannin.db-shm"] {
        let _ = std::fs::remove_file(data.join(wal));
    }
    let (server, addr) = start();
    assert_eq!(status_of(&addr, &format!("/api/rooms/{kept}")), 200);
    assert_eq!(status_of(&addr, &format!("/api/rooms/{made_since}")), 404);
    // And it plays on: a room made after the restore.
    common::create_room(&addr);
    drop(server);
}
