//! The sannin game server: rooms of three players (and spectators) playing sannin
//! shogi over WebSockets, stored in SQLite or PostgreSQL.
//!
//! `sannin serve` calls [`serve`]; tests and the load test call [`run`] with a
//! listener bound to `127.0.0.1:0` and talk to it over real sockets (docs/conventions.md,
//! "A library with `run`, and a thin `main`").
//! The wire protocol is described in `docs/protocol.md`.

use std::future::Future;
use std::time::Duration;

use anyhow::Context as _;
use tokio::net::TcpListener;
use tracing::{info, warn};

pub mod accounts;
mod app;
pub mod bots;
mod broken;
pub mod clock;
mod cluster;
mod config;

pub mod fairplay;
pub mod history;
mod http;
mod limits;
mod metrics;
pub mod moderation;
mod net;
pub mod pairing;
pub mod push;
mod record;
mod registry;
pub mod review;
mod room;
mod store;
#[cfg(test)]
mod testing;
pub mod time;
mod token;

pub use bots::BotConfig;
pub use cluster::ClusterArgs;
pub use config::{
    worker_threads, AccountArgs, BotArgs, ChatArgs, ClientArgs, Config, ConnectionArgs, LimitArgs,
    RoomArgs, ServeArgs, StorageArgs, WorkArgs, DEFAULT_SQLITE_URL,
};
pub use http::{analysis_json, ApiError};
pub use registry::WAKE_SWEEP;
pub use sannin_protocol::ErrorCode;
pub use store::migrations::migrator;
pub use store::{ActionKind, Store, StoredAction};
pub use time::{ManualTime, SystemTime, TimeSource};

/// `sannin serve`: logging, config, listener, and [`run`] until SIGTERM or ctrl-c.
///
/// # Errors
/// Bad address, unreachable database, failed migration.
pub async fn serve(args: ServeArgs) -> anyhow::Result<()> {
    init_tracing();
    // Connections are capped below the open-file limit (`--max-connections`); raise
    // the soft limit to the hard one first so that the cap is as high as allowed.
    if let Err(e) = rlimit::increase_nofile_limit(u64::MAX) {
        warn!(error = %e, "cannot raise the open-file limit");
    }
    let config = Config::from_args(&args);
    let listener = TcpListener::bind(&args.addr)
        .await
        .with_context(|| format!("cannot listen on {}", args.addr))?;
    info!(addr = %listener.local_addr()?, "listening");
    run(listener, config, shutdown_signal()).await
}

/// [`serve`] on a fresh multi-threaded runtime, for a synchronous `main`.
///
/// # Errors
/// As [`serve`].
pub fn serve_blocking(args: ServeArgs) -> anyhow::Result<()> {
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(args.worker_threads(cores))
        .enable_all()
        .build()?
        .block_on(serve(args))
}

/// Installs the `tracing` subscriber: `RUST_LOG` (EnvFilter syntax), default `info`.
/// Does nothing if one is already installed.
///
/// Whatever `RUST_LOG` says, the WebSocket libraries never log below `debug`: at
/// `trace` level tungstenite logs every frame with its payload (as text, and as hex),
/// and the `seated` and `resume` frames carry seat tokens, which must never reach a
/// log. Their `debug` lines name no payload.
pub fn init_tracing() {
    use tracing_subscriber::filter::{FilterExt as _, LevelFilter, Targets};
    use tracing_subscriber::prelude::*;
    use tracing_subscriber::EnvFilter;
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info"));
    // A directive such as `tungstenite::protocol=trace` would win over any cap added
    // to the EnvFilter (the most specific directive applies), so the cap is a filter of
    // its own, and both must agree. Both decide per call site, once: a disabled
    // `trace!` in a hot loop of a library costs nothing after its first call.
    let no_frames = Targets::new()
        .with_default(LevelFilter::TRACE)
        .with_target("tungstenite", LevelFilter::DEBUG)
        .with_target("tokio_tungstenite", LevelFilter::DEBUG);
    // Colours only on a terminal: `docker logs` and log files get plain text.
    let ansi = std::io::IsTerminal::is_terminal(&std::io::stdout());
    let _ = tracing_subscriber::registry()
        .with(
            tracing_subscriber::fmt::layer()
                .with_ansi(ansi)
                .with_filter(filter.and(no_frames)),
        )
        .try_init();
}

/// Runs the server on `listener` until `shutdown` completes: connects to the database,
/// runs the migrations, restores every unfinished room, serves HTTP and WebSockets.
/// Connections are accepted within the listener's limits (`net`: connection cap,
/// header timeout; accept errors pause and retry). On shutdown, stops accepting, lets
/// every room finish the command it is handling (so no write in flight is cut),
/// closes the connections and the database.
///
/// # Errors
/// Unreachable database, failed migration.
pub async fn run(
    listener: TcpListener,
    config: Config,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> anyhow::Result<()> {
    if let Some(c) = &config.cluster {
        c.check(&config.database_url)?;
    }
    let mailer = crate::accounts::mail::Mailer::from_args(&config.accounts.mail)?;
    if mailer.is_some() {
        info!("account recovery mail on");
    }
    let store = Store::connect(&config.database_url, config.db_connections).await?;
    info!(
        database = %redact_url(&config.database_url),
        static_dir = %config.static_dir.display(),
        "database ready"
    );
    let cluster = match &config.cluster {
        None => None,
        Some(c) => Some(cluster::Cluster::connect(c, &store, config.send_queue).await?),
    };
    let shared = app::Shared::new(config, store.clone(), cluster.clone(), mailer);
    // The bans and mutes in force, before any room or request checks them.
    let sanctions = &shared.rooms.sanctions;
    sanctions
        .refresh(&shared.moderation)
        .await
        .context("reading the sanctions in force")?;
    sanctions.refresh_every(shared.moderation.clone(), shared.shutdown.clone());
    // The lobby lists the waiting rooms that sleep (a cluster's, all of them).
    shared.rooms.refresh_dormant().await;
    tokio::spawn(shared.rooms.clone().keep_dormant_listed());
    if let Some(c) = &cluster {
        // Rooms are taken over by the lease sweep, not all restored here.
        c.start(&shared.rooms).await?;
    } else {
        let restored = shared.rooms.restore_all().await?;
        if restored > 0 {
            info!(rooms = restored, "restored unfinished rooms");
        }
        // Sleeping rooms are loaded when their deadline nears.
        tokio::spawn(shared.rooms.clone().wake_due());
        // A single node is the site's matcher.
        shared.matcher.activate(shared.shutdown.clone()).await?;
    }
    shared
        .push
        .start(&store, shared.shutdown.clone())
        .await
        .context("starting push notifications")?;
    shared.accounts.warm_up();
    // Accounts made before names had skeletons (docs/accounts.md, "Names").
    let filled = shared
        .accounts
        .db
        .fill_in_skeletons()
        .await
        .context("giving the accounts' names their skeletons")?;
    if filled > 0 {
        info!(accounts = filled, "account names given their skeletons");
    }
    // Rated games that ended while no node could rate them; then, now and then, those
    // of the last day that a node's stop or a failure left unrated.
    shared.accounts.sweep(0).await;
    if let Some(every) = shared.config.rating_sweep {
        shared.accounts.sweep_every(every, shared.shutdown.clone());
    }
    shared
        .reviews
        .start(shared.shutdown.clone(), &shared.tracker)
        .await?;
    http::feed::start(&shared);
    let router = http::router(shared.clone());
    let cancel = shared.shutdown.clone();
    // Addresses whose budgets are full again are forgotten once a minute.
    let budgets = shared.budgets.clone();
    let accounts = shared.accounts.clone();
    let reviews = shared.reviews.clone();
    let pruning = cancel.clone();
    tokio::spawn(async move {
        let mut every = tokio::time::interval(Duration::from_secs(60));
        loop {
            tokio::select! {
                () = pruning.cancelled() => break,
                _ = every.tick() => {
                    budgets.prune();
                    accounts.prune();
                    reviews.prune();
                }
            }
        }
    });
    net::serve(listener, router, &shared.config.listener, async move {
        shutdown.await;
        info!("shutting down");
        cancel.cancel();
    })
    .await;
    shared.shutdown.cancel();
    shared.tracker.close();
    if tokio::time::timeout(Duration::from_secs(10), shared.tracker.wait())
        .await
        .is_err()
    {
        warn!("some rooms did not stop within 10 s");
    }
    if let Some(c) = &cluster {
        // Drain: the rooms have stopped; their leases go to the other nodes now.
        c.release_all().await;
    }
    // Give connection writers a moment to flush their close frames.
    tokio::time::sleep(Duration::from_millis(50)).await;
    store.close().await;
    info!("stopped");
    Ok(())
}

/// Completes on ctrl-c or SIGTERM.
pub async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => {},
        () = term => {},
    }
}

/// The URL without its password, for logs.
fn redact_url(url: &str) -> String {
    match (url.find("://"), url.rfind('@')) {
        (Some(s), Some(at)) if at > s => {
            let creds = &url[s + 3..at];
            match creds.split_once(':') {
                Some((user, _)) => format!("{}{user}:***{}", &url[..s + 3], &url[at..]),
                None => url.to_string(),
            }
        }
        _ => url.to_string(),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn passwords_are_redacted_from_logged_urls() {
        assert_eq!(
            super::redact_url("postgres://u:secret@h:5432/db"),
            "postgres://u:***@h:5432/db"
        );
        assert_eq!(super::redact_url("postgres://u@h/db"), "postgres://u@h/db");
        assert_eq!(
            super::redact_url("sqlite://./data/x.db"),
            "sqlite://./data/x.db"
        );
    }
}
