//! What the crate's own tests share: a throwaway PostgreSQL database.
//!
//! Tests that need PostgreSQL (on 127.0.0.1:5432, or `SANNIN_TEST_POSTGRES`) skip with
//! one line on stderr when it is unreachable, so that `cargo test` runs anywhere;
//! with `SANNIN_REQUIRE_SERVICES=1` (what `scripts/test-all.sh` sets) an unreachable
//! server fails the test instead.

use sqlx::{Connection, Executor};

/// Whether tests must fail rather than skip when a service is missing.
pub fn services_required() -> bool {
    std::env::var("SANNIN_REQUIRE_SERVICES").is_ok_and(|v| !v.is_empty() && v != "0")
}

/// A database `sannin_unit_<uuid>`, dropped by [`TestPg::drop_it`].
pub struct TestPg {
    admin: String,
    name: String,
    /// Its URL.
    pub url: String,
}

impl TestPg {
    /// A fresh database; None (after saying so) when PostgreSQL is unreachable and
    /// services are not required.
    pub async fn new(test: &str) -> Option<TestPg> {
        sqlx::any::install_default_drivers();
        let admin = std::env::var("SANNIN_TEST_POSTGRES")
            .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/postgres".into());
        let mut c = match sqlx::AnyConnection::connect(&admin).await {
            Ok(c) => c,
            Err(e) if !services_required() => {
                skip_line(format!("skipped {test}: PostgreSQL is unreachable at {admin} ({e}); set SANNIN_REQUIRE_SERVICES=1 to fail instead"));
                return None;
            }
            Err(e) => panic!("{test} needs PostgreSQL at {admin}: {e}"),
        };
        let name = format!("sannin_unit_{}", uuid::Uuid::new_v4().simple());
        c.execute(format!("CREATE DATABASE {name}").as_str())
            .await
            .expect("create the test database");
        let base = admin.rsplit_once('/').map_or(admin.as_str(), |(b, _)| b);
        let url = format!("{base}/{name}");
        Some(TestPg { admin, name, url })
    }

    /// Drops the database.
    pub async fn drop_it(self) {
        let mut c = sqlx::AnyConnection::connect(&self.admin)
            .await
            .expect("PostgreSQL");
        let sql = format!("DROP DATABASE IF EXISTS {} WITH (FORCE)", self.name);
        c.execute(sql.as_str())
            .await
            .expect("drop the test database");
    }
}

/// One line on the test's stderr, shown even when the test passes (libtest captures
/// only what the print macros write).
fn skip_line(line: String) {
    use std::io::Write as _;
    let _ = writeln!(std::io::stderr(), "{line}");
}
