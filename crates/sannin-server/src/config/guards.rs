//! The flags of the caps on expensive work and of the budgets that guard it (each
//! with an environment variable, like every flag of [`super::LimitArgs`]), and the
//! per-client limits resolved from the flags.

use super::LimitArgs;
use std::time::Duration;

use crate::limits::work::{default_replay_concurrency, WorkLimits};
use crate::limits::{self, ClientLimits};

/// Caps on expensive work: password hashing, replays, analyses, look-ups.
#[derive(Debug, Clone, clap::Args)]
pub struct GuardArgs {
    /// Passwords hashed or checked at once (log-ins, registrations, password
    /// changes), each with 19 MiB of memory; others wait up to 5 s, then `503 busy`.
    /// 0: the cores, at most 8, and no more than a quarter of the available memory
    /// allows.
    #[arg(long, env = "SANNIN_PASSWORD_HASHING_CONCURRENCY", default_value_t = 0)]
    pub password_hashing_concurrency: usize,

    /// Replays one client address may ask per minute on average (a minute's worth at
    /// once): `POST /api/replay` and `GET /api/rooms/{id}/history` together; over it,
    /// `429 rate_limited`. 0: no limit.
    #[arg(long, env = "SANNIN_REPLAYS_PER_MINUTE", default_value_t = 60.0)]
    pub replays_per_minute: f64,

    /// Replays played out at once, on the blocking pool; others wait up to 2 s, then
    /// `503 busy`. 0: half the cores, at least 1.
    #[arg(long, env = "SANNIN_REPLAY_CONCURRENCY", default_value_t = 0)]
    pub replay_concurrency: usize,

    /// Analyses (`POST /api/analyse`) one client address may have running or waiting
    /// at once; one more is answered `503 analysis_busy`. 0: no limit.
    #[arg(long, env = "SANNIN_ANALYSES_PER_ADDRESS", default_value_t = 1)]
    pub analyses_per_address: usize,

    /// Look-ups of players (`GET /api/players?names=…`, `GET /api/players/{name}`)
    /// one client address may make per minute on average (a minute's worth at once);
    /// over it, `429 rate_limited`. 0: no limit.
    #[arg(long, env = "SANNIN_PLAYER_LOOKUPS_PER_MINUTE", default_value_t = 60.0)]
    pub player_lookups_per_minute: f64,

    /// Rated games a day that move the ratings of the same three accounts (counted
    /// over the last 24 hours); later games of that trio finish unrated. 0: no cap.
    #[arg(
        long,
        env = "SANNIN_RATED_GAMES_PER_TRIO_PER_DAY",
        default_value_t = 10
    )]
    pub rated_games_per_trio_per_day: u32,

    /// Watchers (`watch`) one client address may have in one room; one more is
    /// refused with `room_full`. A room full of spectators lets a newcomer in in place
    /// of the longest-silent watcher of the address holding the most places. 0: no
    /// cap.
    #[arg(long, env = "SANNIN_SPECTATORS_PER_ADDRESS", default_value_t = 8)]
    pub spectators_per_address: usize,

    /// Fresh full states (`watch` and `resume`: a state and the chat history; `sync`:
    /// a state) one client address may ask per minute on average (a minute's worth at
    /// once); over it, the message is answered `rate_limited`. 0: no limit.
    #[arg(long, env = "SANNIN_STATES_PER_MINUTE", default_value_t = 120.0)]
    pub states_per_minute: f64,

    /// Rooms not in memory that one client address may have read from the database
    /// per minute on average (a minute's worth at once): a WebSocket to such a room,
    /// or `GET /api/rooms/{id}` and its record (a finished room is then kept read in
    /// a small cache, not started); over it, `429 rate_limited`. 0: no limit.
    #[arg(long, env = "SANNIN_ROOM_LOADS_PER_MINUTE", default_value_t = 60.0)]
    pub room_loads_per_minute: f64,

    /// Reports (`POST /api/reports`) one client address may file per hour on average
    /// (an hour's worth at once); over it, `429 rate_limited`. 0: no limit.
    #[arg(long, env = "SANNIN_REPORTS_PER_HOUR", default_value_t = 10.0)]
    pub reports_per_hour: f64,
}

impl Default for GuardArgs {
    fn default() -> Self {
        GuardArgs {
            password_hashing_concurrency: 0,
            replays_per_minute: 60.0,
            replay_concurrency: 0,
            analyses_per_address: 1,
            player_lookups_per_minute: 60.0,
            rated_games_per_trio_per_day: 10,
            spectators_per_address: 8,
            states_per_minute: 120.0,
            room_loads_per_minute: 60.0,
            reports_per_hour: 10.0,
        }
    }
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
        max_waiting_rooms_per_address: l.max_waiting_rooms_per_address,
        // A minute's worth may come at once.
        analyses: limits::quota(
            l.analyse_per_minute,
            l.analyse_per_minute.ceil().clamp(1.0, f64::from(u32::MAX)) as u32,
        ),
        my_games: minute_burst(l.my_games_per_minute),
        push_subscriptions: minute_burst(l.push_subscriptions_per_minute),
        states: minute_burst(l.guards.states_per_minute),
        room_loads: minute_burst(l.guards.room_loads_per_minute),
        analysis_concurrency: l.analyse_concurrency,
        work: WorkLimits {
            replays: minute_burst(l.guards.replays_per_minute),
            lookups: minute_burst(l.guards.player_lookups_per_minute),
            reports: limits::quota(
                l.guards.reports_per_hour / 60.0,
                l.guards
                    .reports_per_hour
                    .ceil()
                    .clamp(1.0, f64::from(u32::MAX)) as u32,
            ),
            replay_concurrency: match l.guards.replay_concurrency {
                0 => default_replay_concurrency(),
                n => n,
            },
            analyses_per_address: l.guards.analyses_per_address,
            // In line behind at most a few searches of the longest time.
            analysis_wait: Duration::from_millis(l.analyse_max_ms.saturating_mul(4))
                .max(Duration::from_secs(1)),
        },
    }
}

/// `per_minute` on average, a minute's worth at once.
fn minute_burst(per_minute: f64) -> Option<governor::Quota> {
    limits::quota(
        per_minute,
        per_minute.ceil().clamp(1.0, f64::from(u32::MAX)) as u32,
    )
}
