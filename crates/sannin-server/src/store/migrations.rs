//! The migrations of `migrations/`, embedded when the crate is built (`build.rs` lists
//! them), and the migrator that applies them.
//!
//! sqlx records each applied migration with a checksum of its text and refuses to
//! start on a database whose record differs: a released migration file never changes,
//! a change to the schema is a new file.

use std::borrow::Cow;

use futures_util::future::BoxFuture;
use sqlx::error::BoxDynError;
use sqlx::migrate::{Migration, MigrationSource, MigrationType, Migrator};

/// `(version, description, text)` of each migration, by version.
const EMBEDDED: &[(i64, &str, &str)] = include!(concat!(env!("OUT_DIR"), "/migrations.rs"));

/// The embedded migrations, as sqlx reads them from a directory: the same versions,
/// descriptions, texts and checksums.
fn embedded() -> Vec<Migration> {
    EMBEDDED
        .iter()
        .map(|&(version, description, sql)| {
            Migration::new(
                version,
                Cow::Borrowed(description),
                MigrationType::Simple,
                Cow::Borrowed(sql),
                sql.starts_with("-- no-transaction"),
            )
        })
        .collect()
}

/// Where the migrator takes its migrations from: the binary itself.
#[derive(Debug)]
struct Embedded;

impl MigrationSource<'static> for Embedded {
    fn resolve(self) -> BoxFuture<'static, Result<Vec<Migration>, BoxDynError>> {
        Box::pin(async { Ok(embedded()) })
    }
}

/// The migrator of the embedded migrations.
pub async fn migrator() -> Migrator {
    Migrator::new(Embedded)
        .await
        .expect("the embedded migrations are resolved without reading anything")
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;

    /// Everything sqlx compares or records of a migration.
    fn record(m: &Migration) -> (i64, String, MigrationType, String, Vec<u8>, bool) {
        let (description, sql) = (m.description.to_string(), m.sql.to_string());
        let checksum = m.checksum.to_vec();
        (
            m.version,
            description,
            m.migration_type,
            sql,
            checksum,
            m.no_tx,
        )
    }

    #[tokio::test]
    async fn the_embedded_migrations_are_what_sqlx_reads_from_the_directory() {
        let dir = Path::new(env!("SANNIN_MIGRATIONS_DIR"));
        let read = Migrator::new(dir).await.expect("sqlx reads migrations/");
        let ours = migrator().await;
        let records = |m: &Migrator| m.iter().map(record).collect::<Vec<_>>();
        assert!(records(&ours).len() >= 17, "every migration is embedded");
        assert_eq!(records(&ours), records(&read));
    }
}
