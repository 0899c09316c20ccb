//! Throwaway databases: a SQLite file, or a PostgreSQL database on 127.0.0.1:5432.

use std::future::Future;

use sqlx::{Connection, Executor};

/// A throwaway database: a SQLite file in a temporary directory, or a PostgreSQL
/// database `sannin_test_<uuid>` that is dropped when this value is (test passed or
/// not).
pub enum TestDb {
    Sqlite {
        _dir: tempfile::TempDir,
        url: String,
    },
    Postgres {
        admin: String,
        name: String,
        url: String,
    },
}

/// Whether tests must fail rather than skip when PostgreSQL or NATS is missing
/// (`SANNIN_REQUIRE_SERVICES=1`, as `scripts/test-all.sh` sets it).
pub fn services_required() -> bool {
    std::env::var("SANNIN_REQUIRE_SERVICES").is_ok_and(|v| !v.is_empty() && v != "0")
}

pub fn postgres_admin_url() -> String {
    std::env::var("SANNIN_TEST_POSTGRES")
        .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/postgres".into())
}

async fn admin_execute(admin: &str, sql: &str) -> Result<(), sqlx::Error> {
    sqlx::any::install_default_drivers();
    let mut conn = sqlx::AnyConnection::connect(admin).await?;
    conn.execute(sql).await?;
    conn.close().await.ok();
    Ok(())
}

impl TestDb {
    pub fn sqlite() -> TestDb {
        let dir = tempfile::tempdir().expect("temp dir");
        let url = format!("sqlite://{}/sub/sannin.db", dir.path().display());
        TestDb::Sqlite { _dir: dir, url }
    }

    /// Creates `sannin_test_<uuid>`. When PostgreSQL is unreachable: None, after one
    /// line on stderr saying the test skips it — or, with `SANNIN_REQUIRE_SERVICES=1`
    /// (as `scripts/test-all.sh` runs), a loud failure: there it is never skipped.
    pub async fn postgres() -> Option<TestDb> {
        let admin = postgres_admin_url();
        let name = format!("sannin_test_{}", uuid::Uuid::new_v4().simple());
        if let Err(e) = admin_execute(&admin, &format!("CREATE DATABASE {name}")).await {
            if services_required() {
                panic!("PostgreSQL is required and unreachable at {admin} (SANNIN_TEST_POSTGRES names another): {e}");
            }
            skip_line(format!("skipped on PostgreSQL: unreachable at {admin} ({e}); set SANNIN_REQUIRE_SERVICES=1 to fail instead"));
            return None;
        }
        let base = admin.rsplit_once('/').map(|(b, _)| b).unwrap_or(&admin);
        let url = format!("{base}/{name}");
        Some(TestDb::Postgres { admin, name, url })
    }

    /// Runs `sql` on this database, from a connection of the test's own.
    pub async fn execute(&self, sql: &str) {
        admin_execute(self.url(), sql)
            .await
            .unwrap_or_else(|e| panic!("{sql}: {e}"));
    }

    pub fn url(&self) -> &str {
        match self {
            TestDb::Sqlite { url, .. } | TestDb::Postgres { url, .. } => url,
        }
    }

    pub fn is_postgres(&self) -> bool {
        matches!(self, TestDb::Postgres { .. })
    }
}

impl Drop for TestDb {
    fn drop(&mut self) {
        if let TestDb::Postgres { admin, name, .. } = self {
            // Drop may run inside a runtime: the database is dropped from a thread of
            // its own, with a runtime of its own.
            let (admin, sql) = (
                admin.clone(),
                format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"),
            );
            let dropped = std::thread::spawn(move || {
                tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                    .expect("runtime")
                    .block_on(admin_execute(&admin, &sql))
            })
            .join();
            if !matches!(dropped, Ok(Ok(()))) && !std::thread::panicking() {
                panic!("dropping the test database {name} failed: {dropped:?}");
            }
        }
    }
}

/// Runs `body` on a fresh SQLite database, then on a fresh PostgreSQL database.
pub async fn on_both_databases<F, Fut>(body: F)
where
    F: Fn(TestDb) -> Fut,
    Fut: Future<Output = ()>,
{
    body(TestDb::sqlite()).await;
    if let Some(db) = TestDb::postgres().await {
        body(db).await;
    }
}

/// One line on the test's stderr, shown even when the test passes (libtest captures
/// only what the print macros write).
fn skip_line(line: String) {
    use std::io::Write as _;
    let _ = writeln!(std::io::stderr(), "{line}");
}
