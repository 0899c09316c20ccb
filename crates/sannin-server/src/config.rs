//! Configuration: the flags of `sannin serve` (each with an environment variable), in
//! groups by what they govern, one file each (`config/rooms.rs`, `config/chat.rs`, …,
//! the cluster's, push's, mail's and reviews' in their modules), and the resolved
//! [`Config`] the server runs with. Every default is the flag's own
//! (`config/defaults.rs`); the defaults run with nothing set up.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use crate::bots::BotConfig;
use crate::cluster::{cluster_config, ClusterArgs};
use crate::time::{SystemTime, TimeSource};

mod accounts;
mod bots;
mod chat;
mod clients;
mod connections;
mod defaults;
mod rooms;
mod storage;
mod work;

pub use accounts::AccountArgs;
pub use bots::BotArgs;
pub use chat::ChatArgs;
pub use clients::ClientArgs;
pub use connections::ConnectionArgs;
pub use rooms::RoomArgs;
pub use storage::StorageArgs;
pub use work::WorkArgs;

use clients::client_limits;

/// Flags of `sannin serve`, in groups by what they govern (the sections of its
/// `--help`). Every flag can also be given by the environment variable named next to
/// it.
#[derive(Debug, Clone, PartialEq, clap::Args)]
#[command(next_help_heading = "Server")]
pub struct ServeArgs {
    /// Address to listen on.
    #[arg(long, env = "SANNIN_ADDR", default_value = "127.0.0.1:8080")]
    pub addr: String,

    /// Directory of the browser client. Default: `./static` if it exists, else the
    /// workspace's `static/` (found at compile time).
    #[arg(long, env = "SANNIN_STATIC_DIR")]
    pub static_dir: Option<PathBuf>,

    /// Threads that run the connections and rooms. 0: one per CPU core (bots'
    /// searches, analysis, password hashing and the SQLite writer run on threads of
    /// their own; on two cores a single thread saturated at 18,900 connections and
    /// held the slowest answers at tens of milliseconds).
    #[arg(long, env = "SANNIN_WORKERS", default_value_t = 0)]
    pub workers: usize,

    /// Token `GET /metrics` must carry (`Authorization: Bearer TOKEN`); without it the
    /// answer is `401`. Empty: `/metrics` answers anyone (then keep it off the public
    /// address, at the proxy).
    #[arg(long, env = "SANNIN_METRICS_TOKEN")]
    pub metrics_token: Option<String>,

    #[command(flatten, next_help_heading = "Storage")]
    pub storage: StorageArgs,

    #[command(flatten)]
    pub limits: LimitArgs,

    #[command(flatten, next_help_heading = "Cluster")]
    pub cluster: ClusterArgs,

    #[command(flatten, next_help_heading = "Push notifications")]
    pub push: crate::push::PushArgs,

    #[command(flatten, next_help_heading = "Mail")]
    pub mail: crate::accounts::mail::MailArgs,

    #[command(flatten, next_help_heading = "Computer reviews")]
    pub review: crate::review::ReviewArgs,
}

impl ServeArgs {
    /// The number of threads `--workers` asks for, with 0 resolved against the
    /// `cores` this machine has: one each.
    pub fn worker_threads(&self, cores: usize) -> usize {
        worker_threads(self.workers, cores)
    }
}

/// Worker threads for `asked` (`--workers`; 0: one per core of the `cores`).
pub fn worker_threads(asked: usize, cores: usize) -> usize {
    match asked {
        0 => cores.max(1),
        n => n,
    }
}

/// Limits and timings, by what they govern. Shared by `serve` and the in-process
/// server of `loadtest`.
#[derive(Debug, Clone, PartialEq, clap::Args)]
pub struct LimitArgs {
    #[command(flatten, next_help_heading = "Rooms")]
    pub rooms: RoomArgs,

    #[command(flatten, next_help_heading = "Chat")]
    pub chat: ChatArgs,

    #[command(flatten, next_help_heading = "Bots")]
    pub bots: BotArgs,

    #[command(flatten, next_help_heading = "Connections")]
    pub connections: ConnectionArgs,

    #[command(flatten, next_help_heading = "Client budgets")]
    pub clients: ClientArgs,

    #[command(flatten, next_help_heading = "Expensive work")]
    pub work: WorkArgs,

    #[command(flatten, next_help_heading = "Accounts and ratings")]
    pub accounts: AccountArgs,
}

/// The resolved configuration of a running server.
#[derive(Debug, Clone)]
pub struct Config {
    /// sqlx URL of the database.
    pub database_url: String,
    /// Directory served at `/`.
    pub static_dir: PathBuf,
    /// The token `GET /metrics` must carry (`None`: open).
    pub metrics_token: Option<String>,
    /// Abandonment grace period.
    pub grace: Duration,
    /// Before the start, how long the seat of a player who left stays held.
    pub waiting_grace: Duration,
    /// Largest accepted message (bytes).
    pub max_message_bytes: usize,
    /// Rate limit: tokens per second and bucket size.
    pub rate_per_second: f64,
    /// Rate limit burst.
    pub rate_burst: u32,
    /// Most unfinished rooms.
    pub max_rooms: usize,
    /// Most spectators (connections without a seat) in one room.
    pub max_connections_per_room: usize,
    /// Most watchers from one client address in one room (0: no cap).
    pub spectators_per_address: usize,
    /// Time a newcomer to a full room has to take its seat; also when a silent
    /// connection counts as idle.
    pub hello: Duration,
    /// Time a WebSocket may stay open without `join`, `resume` or `watch`; None: for
    /// ever.
    pub silent_socket: Option<Duration>,
    /// Longest name in characters.
    pub max_name_chars: usize,
    /// What one connection's send queue holds.
    pub send_queue: crate::room::Bounds,
    /// Ping interval.
    pub ping_interval: Duration,
    /// How long an idle finished room stays in memory.
    pub finished_idle: Duration,
    /// Time between two rating sweeps (`None`: only at start).
    pub rating_sweep: Option<Duration>,
    /// How long a quiet playing room stays in memory before it sleeps (None: never).
    pub sleep_after: Option<Duration>,
    /// How long a waiting room with no human and no connection lives (None: forever).
    pub waiting_room_ttl: Option<Duration>,
    /// How long a correspondence room not started lives with nobody connected.
    pub correspondence_waiting_ttl: Option<Duration>,
    /// Pool size for PostgreSQL.
    pub db_connections: u32,
    /// Cap of the per-move lag credit, ms.
    pub lag_credit_max_ms: u64,
    /// Longest chat message (characters).
    pub chat_max_chars: usize,
    /// Chat rate: messages per minute.
    pub chat_per_minute: f64,
    /// Chat burst.
    pub chat_burst: u32,
    /// Chat messages kept per channel.
    pub chat_history: usize,
    /// Room-wide budget of the spectators' chat: messages per minute.
    pub spectator_chat_per_minute: f64,
    /// Room-wide budget of the spectators' chat: burst.
    pub spectator_chat_burst: u32,
    /// How long a spectator that floods the chat is muted.
    pub chat_mute: Duration,
    /// Time source of the game clocks (tests inject a [`crate::ManualTime`]).
    pub time: Arc<dyn TimeSource>,
    /// How bots run: hard limit per move, pacing, concurrent searches.
    pub bots: BotConfig,
    /// Default level of a bot taking over from a player who abandons.
    pub bot_takeover_level: sannin_bot::Level,
    /// Per-address budgets, trusted proxies and allowed origins.
    pub clients: crate::limits::ClientLimits,
    /// The listener's limits: total connections, header and handshake timeouts.
    pub listener: crate::net::ListenerLimits,
    /// How `POST /api/analyse` is bounded.
    pub analysis: crate::bots::AnalysisConfig,
    /// Log-in limits and the session cookie.
    pub accounts: crate::accounts::AccountConfig,
    /// Cluster mode (`--nats-url`); None: a single node.
    pub cluster: Option<crate::cluster::ClusterConfig>,
    /// Web Push notifications.
    pub push: crate::push::PushConfig,
    /// Computer reviews of finished games.
    pub review: crate::review::ReviewConfig,
}

/// Default SQLite database, relative to the working directory.
pub const DEFAULT_SQLITE_URL: &str = "sqlite://./data/sannin.db";

impl Config {
    /// Config for `database_url` with default limits and static dir (handy in tests).
    pub fn new(database_url: impl Into<String>) -> Config {
        let storage = StorageArgs::default();
        Config::from_parts(database_url.into(), None, &storage, &LimitArgs::default())
    }

    /// The same config with other limits.
    pub fn with_limits(self, limits: &LimitArgs) -> Config {
        let (time, cluster) = (self.time.clone(), self.cluster.clone());
        let storage = StorageArgs {
            database_url: None,
            db_connections: self.db_connections,
        };
        let mut c = Config::from_parts(self.database_url, Some(self.static_dir), &storage, limits);
        c.cluster = cluster;
        c.with_time(time)
    }

    /// The same config reading game clocks from `time`.
    pub fn with_time(mut self, time: Arc<dyn TimeSource>) -> Config {
        self.time = time;
        self
    }

    /// Resolves the flags.
    pub fn from_args(args: &ServeArgs) -> Config {
        let url = args
            .storage
            .database_url
            .clone()
            .filter(|u| !u.trim().is_empty())
            .unwrap_or_else(|| DEFAULT_SQLITE_URL.to_string());
        let mut config =
            Config::from_parts(url, args.static_dir.clone(), &args.storage, &args.limits);
        config.cluster = cluster_config(&args.cluster);
        config.push = crate::push::PushConfig::from_args(&args.push);
        config.review = crate::review::ReviewConfig::from_args(&args.review);
        config.accounts.mail = args.mail.clone();
        config.metrics_token = args.metrics_token.clone().filter(|t| !t.is_empty());
        config
    }

    /// The config of `database_url` (`storage.database_url` is not read), the limits
    /// `l`, the default cluster, push and review settings, and no mail.
    fn from_parts(
        database_url: String,
        static_dir: Option<PathBuf>,
        storage: &StorageArgs,
        l: &LimitArgs,
    ) -> Config {
        let (rooms, chat, bots, conn) = (&l.rooms, &l.chat, &l.bots, &l.connections);
        Config {
            database_url,
            static_dir: static_dir.unwrap_or_else(default_static_dir),
            metrics_token: None,
            grace: secs(rooms.grace_seconds),
            waiting_grace: secs(rooms.waiting_grace_seconds),
            max_message_bytes: conn.max_message_bytes.max(64),
            rate_per_second: conn.rate_per_second.max(0.001),
            rate_burst: conn.rate_burst.max(1),
            max_rooms: rooms.max_rooms,
            max_connections_per_room: rooms.max_connections_per_room.max(1),
            spectators_per_address: rooms.spectators_per_address,
            hello: secs(rooms.hello_seconds).max(Duration::from_millis(100)),
            silent_socket: (conn.silent_socket_seconds > 0.0)
                .then(|| secs(conn.silent_socket_seconds)),
            max_name_chars: rooms.max_name_chars.max(1),
            send_queue: crate::room::Bounds {
                frames: conn.send_queue.max(8),
                bytes: conn.send_queue_bytes.max(1024),
            },
            ping_interval: secs(conn.ping_seconds).max(Duration::from_millis(100)),
            finished_idle: secs(rooms.finished_idle_seconds),
            rating_sweep: Some(secs(l.accounts.rating_sweep_seconds)).filter(|d| !d.is_zero()),
            sleep_after: Some(secs(rooms.sleep_after_seconds)).filter(|d| !d.is_zero()),
            waiting_room_ttl: Some(secs(rooms.waiting_room_ttl_seconds)).filter(|d| !d.is_zero()),
            correspondence_waiting_ttl: Some(secs(rooms.correspondence_waiting_days * 86_400.0))
                .filter(|d| !d.is_zero()),
            db_connections: storage.db_connections.max(1),
            lag_credit_max_ms: rooms.lag_credit_max_ms,
            chat_max_chars: chat.chat_max_chars.max(1),
            chat_per_minute: chat.chat_per_minute.max(0.001),
            chat_burst: chat.chat_burst.max(1),
            chat_history: chat.chat_history,
            spectator_chat_per_minute: chat.spectator_chat_per_minute.max(0.001),
            spectator_chat_burst: chat.spectator_chat_burst.max(1),
            chat_mute: secs(chat.chat_mute_seconds),
            time: Arc::new(SystemTime::new()),
            bots: BotConfig {
                move_limit: secs(bots.bot_move_seconds),
                min_move: Duration::from_millis(bots.bot_min_move_ms),
                concurrency: match bots.bot_concurrency {
                    0 => crate::bots::default_concurrency(),
                    n => n,
                },
                bot_only_min_move: Duration::from_millis(bots.bot_only_min_move_ms),
                max_bot_only_rooms: bots.max_bot_only_rooms,
            },
            bot_takeover_level: sannin_bot::Level::from_number(bots.bot_takeover_level)
                .unwrap_or(sannin_bot::Level::MAX),
            clients: client_limits(l),
            listener: crate::net::ListenerLimits {
                max_connections: conn.max_connections,
                max_per_address: conn.max_connections_per_address,
                body_timeout: secs(conn.body_timeout_seconds).max(Duration::from_millis(100)),
                trusted: client_limits(l).trusted_proxies,
                header_timeout: secs(conn.header_timeout_seconds).max(Duration::from_millis(100)),
                ws_handshake_timeout: secs(conn.ws_handshake_timeout_seconds)
                    .max(Duration::from_millis(100)),
            },
            analysis: crate::bots::AnalysisConfig {
                max_time: Duration::from_millis(l.work.analyse_max_ms),
                concurrency: l.work.analyse_concurrency,
            },
            accounts: crate::accounts::AccountConfig {
                logins_per_minute: l.accounts.logins_per_minute,
                cookie_secure: l.accounts.cookie_secure,
                hashing_concurrency: l.work.password_hashing_concurrency,
                rated_games_per_trio_per_day: l.accounts.rated_games_per_trio_per_day,
                mail: crate::accounts::mail::MailArgs::default(),
            },
            cluster: None,
            push: crate::push::PushConfig::default(),
            review: crate::review::ReviewConfig::default(),
        }
    }

    /// What every room runs with.
    pub fn room_config(&self) -> crate::room::RoomConfig {
        crate::room::RoomConfig {
            grace: self.grace,
            waiting_grace: self.waiting_grace,
            hello: self.hello,
            max_connections_per_room: self.max_connections_per_room,
            spectators_per_address: self.spectators_per_address,
            max_name_chars: self.max_name_chars,
            finished_idle: self.finished_idle,
            sleep_after: self.sleep_after,
            waiting_room_ttl: self.waiting_room_ttl,
            correspondence_waiting_ttl: self.correspondence_waiting_ttl,
            lag_credit_max_ms: self.lag_credit_max_ms,
            rate_per_second: self.rate_per_second,
            rate_burst: self.rate_burst,
            chat_max_chars: self.chat_max_chars,
            chat_per_minute: self.chat_per_minute,
            chat_burst: self.chat_burst,
            chat_history: self.chat_history,
            spectator_chat_per_minute: self.spectator_chat_per_minute,
            spectator_chat_burst: self.spectator_chat_burst,
            chat_mute: self.chat_mute,
            bot_takeover_level: self.bot_takeover_level,
            time: self.time.clone(),
        }
    }

    /// The hard cap handed to the WebSocket codec: larger messages close the socket.
    pub fn hard_message_cap(&self) -> usize {
        (self.max_message_bytes * 4).max(64 * 1024)
    }
}

fn secs(s: f64) -> Duration {
    if s.is_finite() && s > 0.0 {
        Duration::from_secs_f64(s)
    } else {
        Duration::ZERO
    }
}

/// `./static` when it exists (the usual layout when run from the repository or an
/// install dir), else the workspace's `static/` as seen at compile time, so that
/// `cargo run` works from any directory.
fn default_static_dir() -> PathBuf {
    let here = PathBuf::from("static");
    if here.is_dir() {
        return here;
    }
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../static"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        serve: ServeArgs,
    }

    #[test]
    fn workers_default_to_every_core() {
        let auto = Cli::parse_from(["sannin", "--workers", "0"]).serve;
        assert_eq!(auto.worker_threads(0), 1, "never none");
        assert_eq!(auto.worker_threads(2), 2);
        assert_eq!(auto.worker_threads(8), 8);
        let three = Cli::parse_from(["sannin", "--workers", "3"]).serve;
        assert_eq!(three.worker_threads(2), 3, "as many as asked for");
    }
}
