//! The flags of expensive work: analyses, replays and password hashing, how long
//! and how many at once.

/// Expensive work: how long an analysis searches, and how many analyses, replays and
/// password hashes run at once.
#[derive(Debug, Clone, PartialEq, clap::Args)]
pub struct WorkArgs {
    /// Longest search of `POST /api/analyse`, in milliseconds; a request asking
    /// more gets this.
    #[arg(long, env = "SANNIN_ANALYSE_MAX_MS", default_value_t = 2000)]
    pub analyse_max_ms: u64,

    /// Most analyses (`POST /api/analyse`) running at once, each on one core apart
    /// from the game bots; one more is answered `503 analysis_busy` at once. 0:
    /// analysis is off.
    #[arg(long, env = "SANNIN_ANALYSE_CONCURRENCY", default_value_t = 1)]
    pub analyse_concurrency: usize,

    /// Replays played out at once, on the blocking pool; others wait up to 2 s, then
    /// `503 busy`. 0: half the cores, at least 1.
    #[arg(long, env = "SANNIN_REPLAY_CONCURRENCY", default_value_t = 0)]
    pub replay_concurrency: usize,

    /// Passwords hashed or checked at once (log-ins, registrations, password
    /// changes), each with 19 MiB of memory; others wait up to 5 s, then `503 busy`.
    /// 0: the cores, at most 8, and no more than a quarter of the available memory
    /// allows.
    #[arg(long, env = "SANNIN_PASSWORD_HASHING_CONCURRENCY", default_value_t = 0)]
    pub password_hashing_concurrency: usize,
}
