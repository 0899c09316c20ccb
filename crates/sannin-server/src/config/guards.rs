//! The flags of the caps on expensive work and of the budgets that guard it (each
//! with an environment variable, like every flag of [`super::LimitArgs`]), and the
//! per-client limits resolved from the flags.

use super::LimitArgs;
use crate::limits::{self, ClientLimits};

/// Caps on expensive work: password hashing, replays, analyses, look-ups.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct GuardArgs {
    /// Passwords hashed or checked at once (log-ins, registrations, password
    /// changes), each with 19 MiB of memory; others wait up to 5 s, then `503 busy`.
    /// 0: the cores, at most 8, and no more than a quarter of the available memory
    /// allows.
    #[arg(long, env = "SANNIN_PASSWORD_HASHING_CONCURRENCY", default_value_t = 0)]
    pub password_hashing_concurrency: usize,
}

/// The per-client limits of the flags. A bad proxy entry (only possible when the
/// config is built in code: clap checks the flag) is left out.
pub(super) fn client_limits(l: &LimitArgs) -> ClientLimits {
    ClientLimits {
        trusted_proxies: limits::split_list(l.trusted_proxies.as_deref().unwrap_or(""))
            .filter_map(|s| limits::parse_net(s).ok())
            .collect(),
        allowed_origins: limits::split_list(l.allowed_origins.as_deref().unwrap_or(""))
            .map(|s| s.trim_end_matches('/').to_ascii_lowercase())
            .collect(),
        rooms: limits::quota(l.rooms_per_minute, l.rooms_burst),
        bot_rooms: limits::quota(l.bot_rooms_per_minute, l.bot_rooms_burst),
        // A minute's worth may come at once.
        tickets: limits::quota(
            l.tickets_per_minute,
            l.tickets_per_minute.ceil().clamp(1.0, f64::from(u32::MAX)) as u32,
        ),
        max_ws_per_address: l.max_ws_per_address,
        max_bot_only_rooms_per_address: l.max_bot_only_rooms_per_address,
        // A minute's worth may come at once.
        analyses: limits::quota(
            l.analyse_per_minute,
            l.analyse_per_minute.ceil().clamp(1.0, f64::from(u32::MAX)) as u32,
        ),
        my_games: minute_burst(l.my_games_per_minute),
        push_subscriptions: minute_burst(l.push_subscriptions_per_minute),
        analysis_concurrency: l.analyse_concurrency,
    }
}

/// `per_minute` on average, a minute's worth at once.
fn minute_burst(per_minute: f64) -> Option<governor::Quota> {
    limits::quota(
        per_minute,
        per_minute.ceil().clamp(1.0, f64::from(u32::MAX)) as u32,
    )
}
