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

    /// Creates `sannin_test_<uuid>`. Panics loudly when PostgreSQL is unreachable:
    /// these tests must never be skipped silently.
    pub async fn postgres() -> TestDb {
        let admin = postgres_admin_url();
        let name = format!("sannin_test_{}", uuid::Uuid::new_v4().simple());
        admin_execute(&admin, &format!("CREATE DATABASE {name}"))
            .await
            .unwrap_or_else(|e| {
                panic!("PostgreSQL is required for this test and is unreachable at {admin} (set SANNIN_TEST_POSTGRES): {e}")
            });
        let base = admin.rsplit_once('/').map(|(b, _)| b).unwrap_or(&admin);
        let url = format!("{base}/{name}");
        TestDb::Postgres { admin, name, url }
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
    body(TestDb::postgres().await).await;
}
