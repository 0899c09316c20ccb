//! The flags of storage: which database, and how many connections to it.

/// Storage: the database and its connections.
#[derive(Debug, Clone, PartialEq, clap::Args)]
pub struct StorageArgs {
    /// Database URL: `postgres://…` for PostgreSQL, `sqlite://FILE` for SQLite.
    /// Default: the SQLite file `./data/sannin.db` (the directory is created).
    #[arg(long, env = "DATABASE_URL")]
    pub database_url: Option<String>,

    /// Database connections (PostgreSQL; SQLite always uses one writer connection).
    #[arg(long, env = "SANNIN_DB_CONNECTIONS", default_value_t = 8)]
    pub db_connections: u32,
}
