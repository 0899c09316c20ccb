//! The server the load test starts in its own process when no `--addr` is given: on a
//! throwaway SQLite file (or `--database-url`), without per-address budgets.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use anyhow::bail;
use sannin_server::{BotArgs, ClientArgs, Config, ConnectionArgs, LimitArgs, RoomArgs};
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

use crate::client::http;
use crate::LoadtestArgs;

/// A server running in this process.
pub(super) struct LocalServer {
    pub addr: SocketAddr,
    stop: oneshot::Sender<()>,
    task: JoinHandle<anyhow::Result<()>>,
    /// Of the throwaway database.
    dir: PathBuf,
}

impl LocalServer {
    /// Starts a server on `127.0.0.1:0` sized for `rooms` rooms, the spectators and the
    /// bot rooms of `args`, and waits until it answers.
    pub async fn start(args: &LoadtestArgs, rooms: usize) -> anyhow::Result<LocalServer> {
        let dir = std::env::temp_dir().join(format!("sannin-loadtest-{}", uuid::Uuid::new_v4()));
        let url = args
            .database_url
            .clone()
            .unwrap_or_else(|| format!("sqlite://{}/load.db", dir.display()));
        // The load comes from one address: no per-address budgets.
        let limits = LimitArgs {
            rooms: RoomArgs {
                max_rooms: rooms + args.bot_rooms + args.pairing / 3 + 1000,
                max_connections_per_room: LimitArgs::default()
                    .rooms
                    .max_connections_per_room
                    .max(args.spectators + 10),
                spectators_per_address: 0,
                ..RoomArgs::default()
            },
            bots: BotArgs {
                bot_concurrency: args.bot_concurrency,
                bot_min_move_ms: args.bot_min_move_ms,
                max_bot_only_rooms: args.bot_rooms,
                max_bot_only_rooms_per_address: 0,
                ..BotArgs::default()
            },
            connections: ConnectionArgs {
                max_connections_per_address: 0,
                ..ConnectionArgs::default()
            },
            clients: ClientArgs {
                rooms_per_minute: 0.0,
                bot_rooms_per_minute: 0.0,
                max_ws_per_address: 0,
                max_waiting_rooms_per_address: 0,
                tickets_per_minute: 0.0,
                states_per_minute: 0.0,
                room_loads_per_minute: 0.0,
                ..ClientArgs::default()
            },
            ..LimitArgs::default()
        };
        let config = Config::new(url).with_limits(&limits);
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
        let addr = listener.local_addr()?;
        let (stop, stop_rx) = oneshot::channel::<()>();
        let task = tokio::spawn(sannin_server::run(listener, config, async {
            let _ = stop_rx.await;
        }));
        // Wait for the server (migrations) to answer.
        let mut up = false;
        for _ in 0..400 {
            if matches!(http(addr, "GET", "/healthz", "").await, Ok((200, _))) {
                up = true;
                break;
            }
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
        if !up {
            bail!("in-process server did not start");
        }
        Ok(LocalServer {
            addr,
            stop,
            task,
            dir,
        })
    }

    /// Stops the server and removes its throwaway database.
    pub async fn stop(self) -> anyhow::Result<()> {
        let _ = self.stop.send(());
        self.task.await??;
        let _ = std::fs::remove_dir_all(self.dir);
        Ok(())
    }
}
