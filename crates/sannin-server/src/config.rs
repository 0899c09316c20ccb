//! Configuration: `sannin serve` flags (each with an environment variable) and the
//! resolved [`Config`] the server runs with. Defaults run with nothing set up.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use crate::bots::BotSettings;
use crate::cluster::{cluster_settings, ClusterArgs};
use crate::time::{SystemTime, TimeSource};

mod guards;

use guards::client_limits;
pub use guards::GuardArgs;

/// Flags of `sannin serve`. Every flag can also be given by the environment variable
/// named next to it.
#[derive(Debug, Clone, clap::Args)]
pub struct ServeArgs {
    /// Address to listen on.
    #[arg(long, env = "SANNIN_ADDR", default_value = "127.0.0.1:8080")]
    pub addr: String,

    /// Database URL: `postgres://…` for PostgreSQL, `sqlite://FILE` for SQLite.
    /// Default: the SQLite file `./data/sannin.db` (the directory is created).
    #[arg(long, env = "DATABASE_URL")]
    pub database_url: Option<String>,

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

    #[command(flatten)]
    pub limits: LimitArgs,

    #[command(flatten)]
    pub cluster: ClusterArgs,

    #[command(flatten)]
    pub push: crate::push::PushArgs,

    #[command(flatten)]
    pub mail: crate::accounts::mail::MailArgs,

    #[command(flatten)]
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

/// Limits and timings. Shared by `serve` and the in-process server of `loadtest`.
#[derive(Debug, Clone, clap::Args)]
pub struct LimitArgs {
    /// Seconds a seated player may stay disconnected while it is to move before it
    /// loses by abandonment (fractions allowed). Before the game starts, a seat taken
    /// for a player who has not come yet (a rematch) is freed after this long.
    #[arg(long, env = "SANNIN_GRACE_SECONDS", default_value_t = 120.0)]
    pub grace_seconds: f64,

    /// Before the game starts, seconds after which the seat of a player who left is
    /// freed, so that the lobby's open tables tell the truth (fractions allowed).
    #[arg(long, env = "SANNIN_WAITING_GRACE_SECONDS", default_value_t = 10.0)]
    pub waiting_grace_seconds: f64,

    /// Largest WebSocket message accepted, in bytes. A larger text message gets a
    /// `bad_message` error; one over 4× this (or 64 KiB, if more) closes the socket.
    #[arg(long, env = "SANNIN_MAX_MESSAGE_BYTES", default_value_t = 4096)]
    pub max_message_bytes: usize,

    /// Messages a connection may send per second on average (token bucket).
    #[arg(long, env = "SANNIN_RATE_PER_SECOND", default_value_t = 10.0)]
    pub rate_per_second: f64,

    /// Burst size of the per-connection rate limit.
    #[arg(long, env = "SANNIN_RATE_BURST", default_value_t = 30)]
    pub rate_burst: u32,

    /// Most rooms not yet finished at once; creating one more gives `too_many_rooms`.
    #[arg(long, env = "SANNIN_MAX_ROOMS", default_value_t = 10_000)]
    pub max_rooms: usize,

    /// Most spectators per room: connections that hold no seat. A seated player's
    /// connection is never counted, nor refused for lack of room; a spectator beyond
    /// it gets `room_full` (close code 1013).
    #[arg(long, env = "SANNIN_MAX_CONNECTIONS_PER_ROOM", default_value_t = 200)]
    pub max_connections_per_room: usize,

    /// Seconds a connection arriving at a room full of spectators has to `resume` its
    /// seat (or `join` a free one) before it is refused with `room_full`; a connection
    /// that has sent none of `join`, `resume`, `watch` for this long gives its place up
    /// to a newcomer in a full room.
    #[arg(long, env = "SANNIN_HELLO_SECONDS", default_value_t = 5.0)]
    pub hello_seconds: f64,

    /// Seconds a WebSocket may stay open without sending `join`, `resume` or `watch`;
    /// then it is closed (1008), so sockets that never take part cannot pile up. 0:
    /// never closed for that.
    #[arg(long, env = "SANNIN_SILENT_SOCKET_SECONDS", default_value_t = 60.0)]
    pub silent_socket_seconds: f64,

    /// Longest player name, in characters.
    #[arg(long, env = "SANNIN_MAX_NAME_CHARS", default_value_t = 32)]
    pub max_name_chars: usize,

    /// Messages queued for one connection; a client that falls further behind is
    /// disconnected (it can resume).
    #[arg(long, env = "SANNIN_SEND_QUEUE", default_value_t = 256)]
    pub send_queue: usize,

    /// Bytes of messages queued for one connection (one message of any size fits an
    /// empty queue); a client that falls further behind is disconnected (it can
    /// resume and get a fresh state).
    #[arg(long, env = "SANNIN_SEND_QUEUE_BYTES", default_value_t = 256 * 1024)]
    pub send_queue_bytes: usize,

    /// Seconds between server pings (skipped for a connection that both sent and was
    /// sent a message since the last one); a connection silent for three intervals is
    /// closed.
    #[arg(long, env = "SANNIN_PING_SECONDS", default_value_t = 20.0)]
    pub ping_seconds: f64,

    /// Seconds a finished room with no connection stays in memory; it is then
    /// unloaded (and loaded again from the database when someone asks for it).
    #[arg(long, env = "SANNIN_FINISHED_IDLE_SECONDS", default_value_t = 600.0)]
    pub finished_idle_seconds: f64,

    /// Seconds between two sweeps that rate the rated games finished in the last day
    /// and not rated yet (a node that stopped between a game's end and its rating, a
    /// rating that failed); every node of a cluster sweeps. 0: only at start.
    #[arg(long, env = "SANNIN_RATING_SWEEP_SECONDS", default_value_t = 60.0)]
    pub rating_sweep_seconds: f64,

    /// Seconds a playing room with nobody connected and no timer due within a minute
    /// (a correspondence game) stays in memory; it then sleeps: unloaded, loaded
    /// again on demand or when its next deadline nears. 0: rooms never sleep.
    #[arg(long, env = "SANNIN_SLEEP_AFTER_SECONDS", default_value_t = 60.0)]
    pub sleep_after_seconds: f64,

    /// Seconds a waiting room with no human seated and nobody connected lives; it is
    /// then deleted (and not restored after a restart). 0: such rooms never expire.
    #[arg(long, env = "SANNIN_WAITING_ROOM_TTL_SECONDS", default_value_t = 600.0)]
    pub waiting_room_ttl_seconds: f64,

    /// Days a correspondence room that has not started lives with nobody connected
    /// (its seats taken, its players away); it is then deleted. 0: never.
    #[arg(
        long,
        env = "SANNIN_CORRESPONDENCE_WAITING_DAYS",
        default_value_t = 7.0
    )]
    pub correspondence_waiting_days: f64,

    /// Database connections (PostgreSQL; SQLite always uses one writer connection).
    #[arg(long, env = "SANNIN_DB_CONNECTIONS", default_value_t = 8)]
    pub db_connections: u32,

    /// Most milliseconds of measured network round trip credited back to a player's
    /// clock per move (lag fairness; 0 turns it off).
    #[arg(long, env = "SANNIN_LAG_CREDIT_MAX_MS", default_value_t = 1000)]
    pub lag_credit_max_ms: u64,

    /// Longest chat message, in characters.
    #[arg(long, env = "SANNIN_CHAT_MAX_CHARS", default_value_t = 500)]
    pub chat_max_chars: usize,

    /// Chat messages a connection may send per minute on average.
    #[arg(long, env = "SANNIN_CHAT_PER_MINUTE", default_value_t = 20.0)]
    pub chat_per_minute: f64,

    /// Chat messages a connection may send in a burst.
    #[arg(long, env = "SANNIN_CHAT_BURST", default_value_t = 5)]
    pub chat_burst: u32,

    /// Chat messages of each channel a room keeps for late joiners (every message is
    /// stored; a restored room reads back this many).
    #[arg(long, env = "SANNIN_CHAT_HISTORY", default_value_t = 100)]
    pub chat_history: usize,

    /// Messages the spectators' chat of one room carries per minute on average, all
    /// spectators together; more are refused (`rate_limited`), neither sent nor stored.
    #[arg(long, env = "SANNIN_SPECTATOR_CHAT_PER_MINUTE", default_value_t = 30.0)]
    pub spectator_chat_per_minute: f64,

    /// Messages the spectators' chat of one room carries in a burst.
    #[arg(long, env = "SANNIN_SPECTATOR_CHAT_BURST", default_value_t = 10)]
    pub spectator_chat_burst: u32,

    /// Seconds a spectator that runs past its own chat rate limit stays muted
    /// (its chat refused with `muted`).
    #[arg(long, env = "SANNIN_CHAT_MUTE_SECONDS", default_value_t = 60.0)]
    pub chat_mute_seconds: f64,

    /// Hard limit on one bot move, in seconds (fractions allowed): a search that has
    /// not answered by then is abandoned and a random legal action is played instead,
    /// so a bot never stalls its room. 0: no search at all, every bot move is that
    /// random action (for tests).
    #[arg(long, env = "SANNIN_BOT_MOVE_SECONDS", default_value_t = 10.0)]
    pub bot_move_seconds: f64,

    /// A bot never answers sooner than this many milliseconds after its turn began
    /// (pacing, so that people see the bots' moves come one by one).
    #[arg(long, env = "SANNIN_BOT_MIN_MOVE_MS", default_value_t = 300)]
    pub bot_min_move_ms: u64,

    /// Most bot searches running at once (on the blocking thread pool); further bots
    /// wait their turn, round robin among rooms, rooms with a person seated before
    /// rooms of bots alone. 0: every core but one (at least 1), so that bots cannot
    /// take the CPU from the human players' actions.
    #[arg(long, env = "SANNIN_BOT_CONCURRENCY", default_value_t = 0)]
    pub bot_concurrency: usize,

    /// Level (0–5) of the bot that replaces a player who abandons, in rooms created
    /// with `bot_takeover` and no `bot_takeover_level` of their own.
    #[arg(long, env = "SANNIN_BOT_TAKEOVER_LEVEL", default_value_t = 2,
          value_parser = clap::value_parser!(u8).range(0..=5))]
    pub bot_takeover_level: u8,

    /// Most rooms where only bots play (three bot seats, bots standing in for players
    /// who left, or bots playing on once the person is out of the game) not finished
    /// at once; creating one more gives `429 too_many_bot_only_rooms`. 0: no room of
    /// bots alone can be created.
    #[arg(long, env = "SANNIN_MAX_BOT_ONLY_ROOMS", default_value_t = 20)]
    pub max_bot_only_rooms: usize,

    /// Most rooms where only bots play that one client address may run at once (of
    /// `--max-bot-only-rooms`), counting the rooms with bots it made or was seated at
    /// by quick pairing that bots alone play now; one more room with bots gives `429
    /// too_many_bot_only_rooms`. 0: no limit per address.
    #[arg(
        long,
        env = "SANNIN_MAX_BOT_ONLY_ROOMS_PER_ADDRESS",
        default_value_t = 3
    )]
    pub max_bot_only_rooms_per_address: usize,

    /// Most waiting rooms (not started yet) that one client address, and one account,
    /// may have made and not seen start; one more gives `429 too_many_waiting_rooms`.
    /// 0: no limit.
    #[arg(
        long,
        env = "SANNIN_MAX_WAITING_ROOMS_PER_ADDRESS",
        default_value_t = 20
    )]
    pub max_waiting_rooms_per_address: usize,

    /// In a room where no human is seated, a bot never answers sooner than this many
    /// milliseconds after its turn began (at least `--bot-min-move-ms`), so that rooms
    /// of bots alone play at watching speed instead of filling the database.
    #[arg(long, env = "SANNIN_BOT_ONLY_MIN_MOVE_MS", default_value_t = 1000)]
    pub bot_only_min_move_ms: u64,

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

    /// Most WebSocket connections open at once from one client address; more get
    /// `429 too_many_connections`. 0: no limit.
    #[arg(long, env = "SANNIN_MAX_WS_PER_ADDRESS", default_value_t = 64)]
    pub max_ws_per_address: usize,

    /// Most TCP connections (HTTP and WebSocket) open at once; one more is answered
    /// `503 server_busy` and closed. 0: the open-file limit less 128 (kept for the
    /// database, files and logs).
    #[arg(long, env = "SANNIN_MAX_CONNECTIONS", default_value_t = 0)]
    pub max_connections: usize,

    /// Most TCP connections open at once from one client address (an IPv4 address, an
    /// IPv6 /64), of `--max-connections`; one more is answered `429
    /// too_many_connections` and closed. A `--trusted-proxies` peer is not counted
    /// (the per-address budgets count its clients). 0: no limit.
    #[arg(
        long,
        env = "SANNIN_MAX_CONNECTIONS_PER_ADDRESS",
        default_value_t = 256
    )]
    pub max_connections_per_address: usize,

    /// Seconds a client has to send a request's body once its headers are in; past
    /// it, `408 body_timeout` and the connection is closed.
    #[arg(long, env = "SANNIN_BODY_TIMEOUT_SECONDS", default_value_t = 10.0)]
    pub body_timeout_seconds: f64,

    /// Seconds a client has to send a request's headers (also how long an idle
    /// keep-alive connection stays open); a connection that has not sent them by then
    /// is closed.
    #[arg(long, env = "SANNIN_HEADER_TIMEOUT_SECONDS", default_value_t = 10.0)]
    pub header_timeout_seconds: f64,

    /// Seconds a WebSocket upgrade request may take from its headers to the switch of
    /// protocols (room lookup included); past it, `503 handshake_timeout`.
    #[arg(
        long,
        env = "SANNIN_WS_HANDSHAKE_TIMEOUT_SECONDS",
        default_value_t = 10.0
    )]
    pub ws_handshake_timeout_seconds: f64,

    /// Longest search of `POST /api/analyse`, in milliseconds; a request asking
    /// more gets this.
    #[arg(long, env = "SANNIN_ANALYSE_MAX_MS", default_value_t = 2000)]
    pub analyse_max_ms: u64,

    /// Most analyses (`POST /api/analyse`) running at once, each on one core apart
    /// from the game bots; one more is answered `503 analysis_busy` at once. 0:
    /// analysis is off.
    #[arg(long, env = "SANNIN_ANALYSE_CONCURRENCY", default_value_t = 1)]
    pub analyse_concurrency: usize,

    /// Analyses one client address may ask per minute on average (a minute's worth
    /// at once); over it, `429 rate_limited`. 0: no limit.
    #[arg(long, env = "SANNIN_ANALYSE_PER_MINUTE", default_value_t = 12.0)]
    pub analyse_per_minute: f64,

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

    /// Caps on expensive work and budgets added since (`config/guards.rs`).
    #[command(flatten)]
    pub guards: GuardArgs,
}

impl Default for LimitArgs {
    fn default() -> Self {
        LimitArgs {
            grace_seconds: 120.0,
            waiting_grace_seconds: 10.0,
            max_message_bytes: 4096,
            rate_per_second: 10.0,
            rate_burst: 30,
            max_rooms: 10_000,
            max_connections_per_room: 200,
            hello_seconds: 5.0,
            silent_socket_seconds: 60.0,
            max_name_chars: 32,
            send_queue: 256,
            send_queue_bytes: 256 * 1024,
            ping_seconds: 20.0,
            finished_idle_seconds: 600.0,
            rating_sweep_seconds: 60.0,
            sleep_after_seconds: 60.0,
            waiting_room_ttl_seconds: 600.0,
            correspondence_waiting_days: 7.0,
            db_connections: 8,
            lag_credit_max_ms: 1000,
            chat_max_chars: 500,
            chat_per_minute: 20.0,
            chat_burst: 5,
            chat_history: 100,
            spectator_chat_per_minute: 30.0,
            spectator_chat_burst: 10,
            chat_mute_seconds: 60.0,
            bot_move_seconds: 10.0,
            bot_min_move_ms: 300,
            bot_concurrency: 0,
            bot_takeover_level: 2,
            max_bot_only_rooms: 20,
            max_bot_only_rooms_per_address: 3,
            max_waiting_rooms_per_address: 20,
            bot_only_min_move_ms: 1000,
            trusted_proxies: None,
            allowed_origins: None,
            rooms_per_minute: 10.0,
            rooms_burst: 30,
            bot_rooms_per_minute: 4.0,
            bot_rooms_burst: 20,
            tickets_per_minute: 20.0,
            my_games_per_minute: 60.0,
            push_subscriptions_per_minute: 10.0,
            max_ws_per_address: 64,
            max_connections: 0,
            max_connections_per_address: 256,
            body_timeout_seconds: 10.0,
            header_timeout_seconds: 10.0,
            ws_handshake_timeout_seconds: 10.0,
            analyse_max_ms: 2000,
            analyse_concurrency: 1,
            analyse_per_minute: 12.0,
            logins_per_minute: 10,
            cookie_secure: crate::accounts::CookieSecure::Auto,
            guards: GuardArgs::default(),
        }
    }
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
    pub bots: BotSettings,
    /// Default level of a bot taking over from a player who abandons.
    pub bot_takeover_level: sannin_bot::Level,
    /// Per-address budgets, trusted proxies and allowed origins.
    pub clients: crate::limits::ClientLimits,
    /// The listener's limits: total connections, header and handshake timeouts.
    pub listener: crate::net::ListenerLimits,
    /// How `POST /api/analyse` is bounded.
    pub analysis: crate::bots::AnalysisSettings,
    /// Log-in limits and the session cookie.
    pub accounts: crate::accounts::AccountSettings,
    /// Cluster mode (`--nats-url`); None: a single node.
    pub cluster: Option<crate::cluster::ClusterSettings>,
    /// Web Push notifications.
    pub push: crate::push::PushSettings,
    /// Computer reviews of finished games.
    pub review: crate::review::ReviewSettings,
}

/// Default SQLite database, relative to the working directory.
pub const DEFAULT_SQLITE_URL: &str = "sqlite://./data/sannin.db";

impl Config {
    /// Config for `database_url` with default limits and static dir (handy in tests).
    pub fn new(database_url: impl Into<String>) -> Config {
        Config::from_parts(database_url.into(), None, &LimitArgs::default())
    }

    /// The same config with other limits.
    pub fn with_limits(self, limits: &LimitArgs) -> Config {
        let (time, cluster) = (self.time.clone(), self.cluster.clone());
        let mut c = Config::from_parts(self.database_url, Some(self.static_dir), limits);
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
            .database_url
            .clone()
            .filter(|u| !u.trim().is_empty())
            .unwrap_or_else(|| DEFAULT_SQLITE_URL.to_string());
        let mut config = Config::from_parts(url, args.static_dir.clone(), &args.limits);
        config.cluster = cluster_settings(&args.cluster);
        config.push = crate::push::PushSettings::from_args(&args.push);
        config.review = crate::review::ReviewSettings::from_args(&args.review);
        config.accounts.mail = args.mail.clone();
        config.metrics_token = args.metrics_token.clone().filter(|t| !t.is_empty());
        config
    }

    fn from_parts(database_url: String, static_dir: Option<PathBuf>, l: &LimitArgs) -> Config {
        Config {
            database_url,
            static_dir: static_dir.unwrap_or_else(default_static_dir),
            metrics_token: None,
            grace: secs(l.grace_seconds),
            waiting_grace: secs(l.waiting_grace_seconds),
            max_message_bytes: l.max_message_bytes.max(64),
            rate_per_second: l.rate_per_second.max(0.001),
            rate_burst: l.rate_burst.max(1),
            max_rooms: l.max_rooms,
            max_connections_per_room: l.max_connections_per_room.max(1),
            spectators_per_address: l.guards.spectators_per_address,
            hello: secs(l.hello_seconds).max(Duration::from_millis(100)),
            silent_socket: (l.silent_socket_seconds > 0.0).then(|| secs(l.silent_socket_seconds)),
            max_name_chars: l.max_name_chars.max(1),
            send_queue: crate::room::Bounds {
                frames: l.send_queue.max(8),
                bytes: l.send_queue_bytes.max(1024),
            },
            ping_interval: secs(l.ping_seconds).max(Duration::from_millis(100)),
            finished_idle: secs(l.finished_idle_seconds),
            rating_sweep: Some(secs(l.rating_sweep_seconds)).filter(|d| !d.is_zero()),
            sleep_after: Some(secs(l.sleep_after_seconds)).filter(|d| !d.is_zero()),
            waiting_room_ttl: Some(secs(l.waiting_room_ttl_seconds)).filter(|d| !d.is_zero()),
            correspondence_waiting_ttl: Some(secs(l.correspondence_waiting_days * 86_400.0))
                .filter(|d| !d.is_zero()),
            db_connections: l.db_connections.max(1),
            lag_credit_max_ms: l.lag_credit_max_ms,
            chat_max_chars: l.chat_max_chars.max(1),
            chat_per_minute: l.chat_per_minute.max(0.001),
            chat_burst: l.chat_burst.max(1),
            chat_history: l.chat_history,
            spectator_chat_per_minute: l.spectator_chat_per_minute.max(0.001),
            spectator_chat_burst: l.spectator_chat_burst.max(1),
            chat_mute: secs(l.chat_mute_seconds),
            time: Arc::new(SystemTime::new()),
            bots: BotSettings {
                move_limit: secs(l.bot_move_seconds),
                min_move: Duration::from_millis(l.bot_min_move_ms),
                concurrency: match l.bot_concurrency {
                    0 => crate::bots::default_concurrency(),
                    n => n,
                },
                bot_only_min_move: Duration::from_millis(l.bot_only_min_move_ms),
                max_bot_only_rooms: l.max_bot_only_rooms,
            },
            bot_takeover_level: sannin_bot::Level::from_number(l.bot_takeover_level)
                .unwrap_or(sannin_bot::Level::MAX),
            clients: client_limits(l),
            listener: crate::net::ListenerLimits {
                max_connections: l.max_connections,
                max_per_address: l.max_connections_per_address,
                body_timeout: secs(l.body_timeout_seconds).max(Duration::from_millis(100)),
                trusted: client_limits(l).trusted_proxies,
                header_timeout: secs(l.header_timeout_seconds).max(Duration::from_millis(100)),
                ws_handshake_timeout: secs(l.ws_handshake_timeout_seconds)
                    .max(Duration::from_millis(100)),
            },
            analysis: crate::bots::AnalysisSettings {
                max_time: Duration::from_millis(l.analyse_max_ms),
                concurrency: l.analyse_concurrency,
            },
            accounts: crate::accounts::AccountSettings {
                logins_per_minute: l.logins_per_minute,
                cookie_secure: l.cookie_secure,
                hashing_concurrency: l.guards.password_hashing_concurrency,
                rated_games_per_trio_per_day: l.guards.rated_games_per_trio_per_day,
                mail: crate::accounts::mail::MailArgs::default(),
            },
            cluster: None,
            push: crate::push::PushSettings::default(),
            review: crate::review::ReviewSettings::default(),
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
