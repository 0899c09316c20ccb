//! The flags of accounts and ratings: log-ins, the session cookie, rated games.

/// Accounts and ratings: log-ins, the session cookie, rated games and their rating.
#[derive(Debug, Clone, PartialEq, clap::Args)]
pub struct AccountArgs {
    /// Log-in attempts (also registrations and password changes) allowed per minute,
    /// both per client address and per account name; over it, `429 rate_limited`.
    /// 0: no limit.
    #[arg(long, env = "SANNIN_LOGINS_PER_MINUTE", default_value_t = 10)]
    pub logins_per_minute: u32,

    /// When the session cookie is marked `Secure`: `auto` (when the request came
    /// over https through a `--trusted-proxies` proxy, by its `X-Forwarded-Proto`),
    /// `always` or `never`.
    #[arg(long, env = "SANNIN_COOKIE_SECURE", value_enum, default_value_t = crate::accounts::CookieSecure::Auto)]
    pub cookie_secure: crate::accounts::CookieSecure,

    /// Rated games a day that move the ratings of the same three accounts (counted
    /// over the last 24 hours); later games of that trio finish unrated. 0: no cap.
    #[arg(
        long,
        env = "SANNIN_RATED_GAMES_PER_TRIO_PER_DAY",
        default_value_t = 10
    )]
    pub rated_games_per_trio_per_day: u32,

    /// Seconds between two sweeps that rate the rated games finished in the last day
    /// and not rated yet (a node that stopped between a game's end and its rating, a
    /// rating that failed); every node of a cluster sweeps. 0: only at start.
    #[arg(long, env = "SANNIN_RATING_SWEEP_SECONDS", default_value_t = 60.0)]
    pub rating_sweep_seconds: f64,
}
