//! A room as the rest of the server sees it: a [`RoomHandle`] whose typed methods build
//! the room's command, send it and await the answer, so that no caller builds a
//! command or a reply channel by hand, nor depends on their shape (the command enum is
//! private to the room: lichess-org/fishnet, and Alice Ryhl's "Actors with Tokio").
//!
//! A handle reaches a room running here through its bounded queue, or — in a cluster
//! — a room running on another node through a [`RemoteRoom`] (the cluster's proxy),
//! with the same methods.

use std::fmt;
use std::sync::Arc;
use std::time::Instant as StdInstant;

use futures_util::future::BoxFuture;
use sannin_protocol::{ClientMsg, ErrorCode, RoomDetails, RoomSummary};
use tokio::sync::{mpsc, oneshot, watch};
use uuid::Uuid;

use super::{Cmd, ConnHandle, ConnId};

/// The room is gone: stopped, unloaded once idle, or (a remote room) its owner no
/// longer answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Gone;

/// A room that runs on another node, as a handle here reaches it (the cluster's
/// proxy): the same requests as a local room's.
pub trait RemoteRoom: Send + Sync + fmt::Debug {
    /// A socket here connected to the room.
    fn connect(&self, conn: ConnId, out: ConnHandle) -> BoxFuture<'_, Result<(), ErrorCode>>;
    /// A message a socket here read.
    fn message(&self, conn: ConnId, msg: ClientMsg) -> BoxFuture<'_, Result<(), Gone>>;
    /// A round trip measured on a socket here.
    fn rtt(&self, conn: ConnId, rtt_ms: u64) -> BoxFuture<'_, Result<(), Gone>>;
    /// A socket here closed.
    fn disconnect(&self, conn: ConnId) -> BoxFuture<'_, ()>;
    /// `GET /api/rooms/{id}`.
    fn details(&self) -> BoxFuture<'_, Result<RoomDetails, Gone>>;
    /// `GET /api/rooms/{id}/record`.
    fn record(&self, site: String) -> BoxFuture<'_, Result<String, Gone>>;
    /// Whether the proxy has stopped.
    fn is_closed(&self) -> bool;
    /// Completes once the proxy has stopped.
    fn closed(&self) -> BoxFuture<'_, ()>;
}

/// Where a handle's requests go.
#[derive(Clone, Debug)]
enum To {
    /// The queue of a room running here.
    Local(mpsc::Sender<Cmd>),
    /// A room on another node.
    Remote(Arc<dyn RemoteRoom>),
}

/// Handle to a running room (cheap to clone).
#[derive(Debug, Clone)]
pub struct RoomHandle {
    /// Room id.
    pub id: Uuid,
    /// Latest summary.
    pub summary: watch::Receiver<RoomSummary>,
    to: To,
}

impl RoomHandle {
    /// The handle of a room running here, on its queue.
    pub(super) fn local(
        id: Uuid,
        tx: mpsc::Sender<Cmd>,
        summary: watch::Receiver<RoomSummary>,
    ) -> RoomHandle {
        RoomHandle {
            id,
            summary,
            to: To::Local(tx),
        }
    }

    /// The handle of a room running on another node.
    pub fn remote(
        id: Uuid,
        summary: watch::Receiver<RoomSummary>,
        room: Arc<dyn RemoteRoom>,
    ) -> RoomHandle {
        RoomHandle {
            id,
            summary,
            to: To::Remote(room),
        }
    }

    /// Connects a socket: answered once the room let it in (a `state` is on its
    /// queue) or refused it (`room_full`; `shutting_down` for a room that is gone).
    ///
    /// # Errors
    /// The code the connection is refused with.
    pub async fn connect(&self, conn: ConnId, out: ConnHandle) -> Result<(), ErrorCode> {
        match &self.to {
            To::Remote(r) => r.connect(conn, out).await,
            To::Local(tx) => ask(tx, |reply| Cmd::Connect { conn, out, reply })
                .await
                .unwrap_or(Err(ErrorCode::ShuttingDown)),
        }
    }

    /// Hands the room a message a socket read at `received`.
    ///
    /// # Errors
    /// The room is gone.
    pub async fn message(
        &self,
        conn: ConnId,
        msg: ClientMsg,
        received: StdInstant,
    ) -> Result<(), Gone> {
        match &self.to {
            To::Remote(r) => r.message(conn, msg).await,
            To::Local(tx) => {
                send(
                    tx,
                    Cmd::Msg {
                        conn,
                        msg,
                        received,
                    },
                )
                .await
            }
        }
    }

    /// A round trip measured on a socket (ping → pong), for lag credit.
    ///
    /// # Errors
    /// The room is gone.
    pub async fn rtt(&self, conn: ConnId, rtt_ms: u64) -> Result<(), Gone> {
        match &self.to {
            To::Remote(r) => r.rtt(conn, rtt_ms).await,
            To::Local(tx) => send(tx, Cmd::Rtt { conn, rtt_ms }).await,
        }
    }

    /// A socket closed.
    pub async fn disconnect(&self, conn: ConnId) {
        match &self.to {
            To::Remote(r) => r.disconnect(conn).await,
            To::Local(tx) => {
                let _ = send(tx, Cmd::Disconnect { conn }).await;
            }
        }
    }

    /// The room's details (`GET /api/rooms/{id}`).
    ///
    /// # Errors
    /// The room is gone.
    pub async fn details(&self) -> Result<RoomDetails, Gone> {
        match &self.to {
            To::Remote(r) => r.details().await,
            To::Local(tx) => ask(tx, |reply| Cmd::Details { reply }).await,
        }
    }

    /// The game record, with `site` as its `Site` header.
    ///
    /// # Errors
    /// The room is gone.
    pub async fn record(&self, site: String) -> Result<String, Gone> {
        match &self.to {
            To::Remote(r) => r.record(site).await,
            To::Local(tx) => ask(tx, |reply| Cmd::Record { site, reply }).await,
        }
    }

    /// Whether the room has stopped (its queue is closed).
    pub fn is_closed(&self) -> bool {
        match &self.to {
            To::Local(tx) => tx.is_closed(),
            To::Remote(r) => r.is_closed(),
        }
    }

    /// Completes once the room has stopped.
    pub async fn closed(&self) {
        match &self.to {
            To::Local(tx) => tx.closed().await,
            To::Remote(r) => r.closed().await,
        }
    }

    /// Whether both handles reach the same running room (not merely the same id: a
    /// room unloaded and loaded again is another).
    pub fn same_room(&self, other: &RoomHandle) -> bool {
        match (&self.to, &other.to) {
            (To::Local(a), To::Local(b)) => a.same_channel(b),
            (To::Remote(a), To::Remote(b)) => Arc::ptr_eq(a, b),
            _ => false,
        }
    }
}

async fn send(tx: &mpsc::Sender<Cmd>, cmd: Cmd) -> Result<(), Gone> {
    tx.send(cmd).await.map_err(|_| Gone)
}

/// A request that awaits its answer.
async fn ask<T>(
    tx: &mpsc::Sender<Cmd>,
    make: impl FnOnce(oneshot::Sender<T>) -> Cmd,
) -> Result<T, Gone> {
    let (reply, answer) = oneshot::channel();
    send(tx, make(reply)).await?;
    answer.await.map_err(|_| Gone)
}
