//! The limits on what clients may ask (docs/protocol.md §2.2, docs/security.md), all
//! kept in [`Budgets`]:
//! - **rates**: every per-address, per-account and per-site rate is a [`Budget`]
//!   (`budget.rs`), in this node's memory or, in a cluster, in the database the
//!   nodes share (`site.rs`);
//! - **what an address holds open at once**: WebSockets and other streams, rooms
//!   where only bots play, rooms waiting for players (`budgets.rs`; the first two
//!   counted on every node of a cluster, `site.rs`);
//! - **places** of the work that costs CPU: replays, analyses (`work.rs`).
//!
//! Who the client is (its address through trusted proxies) is `addr.rs`. A refusal is
//! a [`Refused`]; the web layer answers it with its status.

use std::num::NonZeroU32;
use std::time::Duration;

use governor::Quota;
use ipnet::IpNet;

mod addr;
mod bucket;
mod budget;
mod budgets;
pub mod site;
pub mod work;

pub use addr::{origin_allowed, parse_net, parse_proxy_list, split_list, ClientAddr};
pub use bucket::Bucket;
pub use budget::Budget;
pub use budgets::{BotOnlyReservation, Budgets, Rate, Site};

/// The resolved per-client settings.
#[derive(Debug, Clone, Default)]
pub struct ClientLimits {
    /// `--trusted-proxies`.
    pub trusted_proxies: Vec<IpNet>,
    /// `--allowed-origins`, as `scheme://host[:port]` in lower case.
    pub allowed_origins: Vec<String>,
    /// Room creations per address (`None`: unlimited).
    pub rooms: Option<Quota>,
    /// Creations of rooms with bot seats per address (`None`: unlimited).
    pub bot_rooms: Option<Quota>,
    /// Most WebSockets open per address (0: unlimited).
    pub max_ws_per_address: usize,
    /// Most rooms of bots alone running per address (0: unlimited).
    pub max_bot_only_rooms_per_address: usize,
    /// Most waiting rooms made and not started, per address and per account (0:
    /// unlimited).
    pub max_waiting_rooms_per_address: usize,
    /// Analyses (`POST /api/analyse`) per address (`None`: unlimited).
    pub analyses: Option<Quota>,
    /// Quick-pairing tickets per address and per account (`None`: unlimited).
    pub tickets: Option<Quota>,
    /// Look-ups of "my games" per address (`None`: unlimited).
    pub my_games: Option<Quota>,
    /// Push subscriptions made or changed per address (`None`: unlimited).
    pub push_subscriptions: Option<Quota>,
    /// Fresh full states (`watch`, `resume`, `sync`) per address (`None`: unlimited).
    pub states: Option<Quota>,
    /// Rooms read or started from the database per address (`None`: unlimited).
    pub room_loads: Option<Quota>,
    /// Most analyses running at once, server-wide (`--analyse-concurrency`).
    pub analysis_concurrency: usize,
    /// Replays, analyses and look-ups: their budgets and places.
    pub work: work::WorkLimits,
}

/// A request a limit refused.
#[derive(Debug, thiserror::Error)]
pub enum Refused {
    /// The budget of `what` is spent (`--rooms-per-minute`…).
    #[error("too many {what} from your address; try again in {} s", retry_secs(*.retry_after))]
    Rate {
        /// What was counted.
        what: &'static str,
        /// When the budget allows one again.
        retry_after: Duration,
    },
    /// The log-in budget of an account name is spent (by whoever tried it); the
    /// account's own devices are let past it.
    #[error("too many log-in attempts for this account; try again in {} s, or log in from a device that logged in to it before", retry_secs(*.retry_after))]
    NameRate {
        /// When the budget allows one again.
        retry_after: Duration,
    },
    /// The address already has `--max-ws-per-address` streams open.
    #[error("too many connections from your address (limit {0}); close some first")]
    Connections(usize),
    /// The server already holds `--max-rooms` unfinished rooms.
    #[error("too many rooms open (limit {0}); try again later")]
    Rooms(usize),
    /// The server already runs `--max-bot-only-rooms` rooms where only bots play.
    #[error("too many rooms where only bots play are running (limit {0}); try again later, or keep a seat for a person")]
    BotOnlyRooms(usize),
    /// This address already runs `--max-bot-only-rooms-per-address` of them.
    #[error(
        "you already run {0} rooms where only bots play; wait for one to end, or play people only"
    )]
    BotOnlyRoomsHere(usize),
    /// This address or account has `--max-waiting-rooms-per-address` rooms not started.
    #[error("you have {0} rooms waiting for players: start or leave one before making another")]
    WaitingRooms(usize),
    /// Every place for this kind of work (password hashing, replays…) stayed taken
    /// for as long as a request may wait.
    #[error("the server is busy {0}; try again in a moment")]
    Busy(&'static str),
    /// `--analyse-concurrency` analyses are running already (or this address has its
    /// `--analyses-per-address`).
    #[error("the server is busy with other analyses; try again in a moment")]
    AnalysisBusy,
    /// The server is shutting down.
    #[error("the server is shutting down")]
    ShuttingDown,
    /// The database that keeps a site-wide count failed (logged with its cause).
    #[error("internal error")]
    Internal(#[source] anyhow::Error),
}

impl Refused {
    /// How long to wait before asking again, where that is known.
    pub fn retry_after(&self) -> Option<Duration> {
        match self {
            Refused::Rate { retry_after, .. } | Refused::NameRate { retry_after } => {
                Some(*retry_after)
            }
            Refused::Connections(_) | Refused::Rooms(_) | Refused::ShuttingDown => {
                Some(Duration::from_secs(5))
            }
            Refused::AnalysisBusy | Refused::Busy(_) => Some(Duration::from_secs(1)),
            Refused::BotOnlyRooms(_) | Refused::BotOnlyRoomsHere(_) => {
                Some(Duration::from_secs(60))
            }
            Refused::WaitingRooms(_) | Refused::Internal(_) => None,
        }
    }
}

/// Whole seconds, rounded up, at least 1.
pub fn retry_secs(d: Duration) -> u64 {
    d.as_secs() + u64::from(d.subsec_nanos() > 0).max(u64::from(d.as_secs() == 0))
}

/// `per_minute` on average with bursts of `burst`; `None` when `per_minute` is 0.
pub fn quota(per_minute: f64, burst: u32) -> Option<Quota> {
    if !(per_minute.is_finite() && per_minute > 0.0) {
        return None;
    }
    let period = Duration::from_secs_f64(60.0 / per_minute).max(Duration::from_nanos(1));
    Some(Quota::with_period(period)?.allow_burst(NonZeroU32::new(burst.max(1))?))
}
