//! The flags of the per-address budgets (each with an environment variable, like every
//! flag of `sannin serve`) and the per-client limits resolved from the flags.

use std::time::Duration;

use super::LimitArgs;
use crate::limits::work::{default_replay_concurrency, WorkLimits};
use crate::limits::{self, ClientLimits};

/// Client budgets: what one client address may ask for, and who the client is (proxies,
/// origins).
#[derive(Debug, Clone, PartialEq, clap::Args)]
pub struct ClientArgs {
    /// Reverse proxies whose `X-Forwarded-For` is believed: IPs or CIDRs, comma
    /// separated (e.g. `127.0.0.1,10.0.0.0/8`). A request from one of them is counted
    /// against the right-most address of that header that is not itself a trusted
    /// proxy. Default: none (the peer address is the client).
    #[arg(long, env = "SANNIN_TRUSTED_PROXIES",
          value_parser = crate::limits::parse_proxy_list)]
    pub trusted_proxies: Option<String>,

    /// Other origins (`https://example.org`, comma separated) whose pages may open
    /// WebSockets and POST; the site's own origin (its `Host`) always may. Default:
    /// none.
    #[arg(long, env = "SANNIN_ALLOWED_ORIGINS")]
    pub allowed_origins: Option<String>,

    /// Rooms one client address may create per minute on average (token bucket
    /// refill); over it, `429 rate_limited`. 0: no limit.
    #[arg(long, env = "SANNIN_ROOMS_PER_MINUTE", default_value_t = 10.0)]
    pub rooms_per_minute: f64,

    /// Rooms one client address may create in a burst.
    #[arg(long, env = "SANNIN_ROOMS_BURST", default_value_t = 30)]
    pub rooms_burst: u32,

    /// Rooms with bot seats one client address may create per minute on average
    /// (they also count as rooms). 0: no limit.
    #[arg(long, env = "SANNIN_BOT_ROOMS_PER_MINUTE", default_value_t = 4.0)]
    pub bot_rooms_per_minute: f64,

    /// Rooms with bot seats one client address may create in a burst.
    #[arg(long, env = "SANNIN_BOT_ROOMS_BURST", default_value_t = 20)]
    pub bot_rooms_burst: u32,

    /// Quick-pairing tickets one client address, and one account, may take per
    /// minute on average; 0: no limit.
    #[arg(long, env = "SANNIN_TICKETS_PER_MINUTE", default_value_t = 20.0)]
    pub tickets_per_minute: f64,

    /// Look-ups of "my games" (`POST /api/games/mine`) one client address may make
    /// per minute on average; 0: no limit.
    #[arg(long, env = "SANNIN_MY_GAMES_PER_MINUTE", default_value_t = 60.0)]
    pub my_games_per_minute: f64,

    /// Push subscriptions one client address may make or change per minute on
    /// average; 0: no limit.
    #[arg(
        long,
        env = "SANNIN_PUSH_SUBSCRIPTIONS_PER_MINUTE",
        default_value_t = 10.0
    )]
    pub push_subscriptions_per_minute: f64,

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

    /// Replays one client address may ask per minute on average (a minute's worth at
    /// once): `POST /api/replay` and `GET /api/rooms/{id}/history` together; over it,
    /// `429 rate_limited`. 0: no limit.
    #[arg(long, env = "SANNIN_REPLAYS_PER_MINUTE", default_value_t = 60.0)]
    pub replays_per_minute: f64,

    /// Look-ups of players (`GET /api/players?names=…`, `GET /api/players/{name}`)
    /// one client address may make per minute on average (a minute's worth at once);
    /// over it, `429 rate_limited`. 0: no limit.
    #[arg(long, env = "SANNIN_PLAYER_LOOKUPS_PER_MINUTE", default_value_t = 60.0)]
    pub player_lookups_per_minute: f64,

    /// Reports (`POST /api/reports`) one client address may file per hour on average
    /// (an hour's worth at once); over it, `429 rate_limited`. 0: no limit.
    #[arg(long, env = "SANNIN_REPORTS_PER_HOUR", default_value_t = 10.0)]
    pub reports_per_hour: f64,

    /// Analyses one client address may ask per minute on average (a minute's worth
    /// at once); over it, `429 rate_limited`. 0: no limit.
    #[arg(long, env = "SANNIN_ANALYSE_PER_MINUTE", default_value_t = 12.0)]
    pub analyse_per_minute: f64,

    /// Analyses (`POST /api/analyse`) one client address may have running or waiting
    /// at once; one more is answered `503 analysis_busy`. 0: no limit.
    #[arg(long, env = "SANNIN_ANALYSES_PER_ADDRESS", default_value_t = 1)]
    pub analyses_per_address: usize,

    /// Most WebSocket connections open at once from one client address; more get
    /// `429 too_many_connections`. 0: no limit.
    #[arg(long, env = "SANNIN_MAX_WS_PER_ADDRESS", default_value_t = 64)]
    pub max_ws_per_address: usize,

    /// Most waiting rooms (not started yet) that one client address, and one account,
    /// may have made and not seen start; one more gives `429 too_many_waiting_rooms`.
    /// 0: no limit.
    #[arg(
        long,
        env = "SANNIN_MAX_WAITING_ROOMS_PER_ADDRESS",
        default_value_t = 20
    )]
    pub max_waiting_rooms_per_address: usize,
}

/// The per-client limits of the flags. A bad proxy entry (only possible when the
/// config is built in code: clap checks the flag) is left out.
pub(super) fn client_limits(l: &LimitArgs) -> ClientLimits {
    let (c, w) = (&l.clients, &l.work);
    ClientLimits {
        trusted_proxies: limits::split_list(c.trusted_proxies.as_deref().unwrap_or(""))
            .filter_map(|s| limits::parse_net(s).ok())
            .collect(),
        allowed_origins: limits::split_list(c.allowed_origins.as_deref().unwrap_or(""))
            .map(|s| s.trim_end_matches('/').to_ascii_lowercase())
            .collect(),
        rooms: limits::quota(c.rooms_per_minute, c.rooms_burst),
        bot_rooms: limits::quota(c.bot_rooms_per_minute, c.bot_rooms_burst),
        // A minute's worth may come at once.
        tickets: minute_burst(c.tickets_per_minute),
        max_ws_per_address: c.max_ws_per_address,
        max_bot_only_rooms_per_address: l.bots.max_bot_only_rooms_per_address,
        max_waiting_rooms_per_address: c.max_waiting_rooms_per_address,
        // A minute's worth may come at once.
        analyses: minute_burst(c.analyse_per_minute),
        my_games: minute_burst(c.my_games_per_minute),
        push_subscriptions: minute_burst(c.push_subscriptions_per_minute),
        states: minute_burst(c.states_per_minute),
        room_loads: minute_burst(c.room_loads_per_minute),
        analysis_concurrency: w.analyse_concurrency,
        work: WorkLimits {
            replays: minute_burst(c.replays_per_minute),
            lookups: minute_burst(c.player_lookups_per_minute),
            reports: limits::quota(
                c.reports_per_hour / 60.0,
                c.reports_per_hour.ceil().clamp(1.0, f64::from(u32::MAX)) as u32,
            ),
            replay_concurrency: match w.replay_concurrency {
                0 => default_replay_concurrency(),
                n => n,
            },
            analyses_per_address: c.analyses_per_address,
            // In line behind at most a few searches of the longest time.
            analysis_wait: Duration::from_millis(w.analyse_max_ms.saturating_mul(4))
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
