//! The cluster's flags.

use std::time::Duration;

use super::ClusterConfig;

/// Cluster mode: several `sannin serve` nodes with the same PostgreSQL database and
/// NATS serve one site (README "Scaling out").
#[derive(Debug, Clone, PartialEq, clap::Args)]
pub struct ClusterArgs {
    /// NATS server (`nats://host:4222`) that joins this node to a cluster: every node
    /// with the same database and NATS serves the same site. Needs a PostgreSQL
    /// database. Empty: a single node.
    #[arg(long, env = "NATS_URL")]
    pub nats_url: Option<String>,

    /// Prefix of every NATS subject of the site (letters, digits, `_` and `-`), so
    /// that several sites (or tests) can share one NATS server.
    #[arg(long, env = "SANNIN_NATS_PREFIX", default_value = "sannin")]
    pub nats_prefix: String,

    /// Seconds a room's lease lasts unless its node renews it (renewed four times
    /// per lease). After a node dies, its rooms move to another node within this.
    #[arg(long, env = "SANNIN_LEASE_SECONDS", default_value_t = 4.0)]
    pub lease_seconds: f64,
}

/// The cluster settings of the flags; None without a NATS URL (a single node).
pub fn cluster_config(a: &ClusterArgs) -> Option<ClusterConfig> {
    let url = a
        .nats_url
        .as_deref()
        .map(str::trim)
        .filter(|u| !u.is_empty())?;
    let lease = if a.lease_seconds.is_finite() && a.lease_seconds > 0.0 {
        Duration::from_secs_f64(a.lease_seconds)
    } else {
        Duration::ZERO
    };
    Some(ClusterConfig {
        nats_url: url.to_string(),
        prefix: a.nats_prefix.trim().to_string(),
        lease,
    })
}
