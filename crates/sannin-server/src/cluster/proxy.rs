//! A room owned by another node, as this node's sockets see it: a [`RoomHandle`] on a
//! [`RemoteRoom`] whose requests a proxy task forwards to the owner over NATS, handing
//! the owner's frames for this node to the right local socket.
//!
//! One proxy per room per node, shared by all the room's sockets here. While it has
//! sockets it checks every second that the owner still answers; when the owner is
//! gone (killed, paused, or it let the room go) the proxy closes its sockets with
//! 1012, as a restarting server does, and the clients reconnect and resume on the
//! room's next owner.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use futures_util::StreamExt as _;
use sannin_protocol::{ErrorCode, RoomInfo, RoomStatus, RoomSummary, Seats, ServerMsg};
use tokio::sync::{mpsc, oneshot, watch};
use tracing::{debug, info};
use uuid::Uuid;

use super::wire::{decode_out, NodeCmd, Out};
use super::Cluster;
use crate::registry::Registry;
use crate::room::{ConnHandle, ConnId, Gone, Outbound, RemoteRoom, RoomHandle, Text};
use futures_util::future::BoxFuture;
use sannin_protocol::{ClientMsg, RoomDetails};

/// Requests queued to a proxy task (one per room per node).
#[derive(Debug)]
enum ProxyCmd {
    Connect {
        conn: ConnId,
        out: ConnHandle,
        reply: oneshot::Sender<Result<(), ErrorCode>>,
    },
    Disconnect {
        conn: ConnId,
    },
    Msg {
        conn: ConnId,
        msg: ClientMsg,
    },
    Rtt {
        conn: ConnId,
        rtt_ms: u64,
    },
    Details {
        reply: oneshot::Sender<RoomDetails>,
    },
    Record {
        site: String,
        reply: oneshot::Sender<String>,
    },
}

/// Requests a proxy queues at once.
const PROXY_QUEUE: usize = 256;

/// The [`RemoteRoom`] of a proxy: its requests go to the proxy's task.
#[derive(Debug)]
struct Proxy {
    tx: mpsc::Sender<ProxyCmd>,
}

impl Proxy {
    async fn send(&self, cmd: ProxyCmd) -> Result<(), Gone> {
        self.tx.send(cmd).await.map_err(|_| Gone)
    }

    async fn ask<T>(&self, make: impl FnOnce(oneshot::Sender<T>) -> ProxyCmd) -> Result<T, Gone> {
        let (reply, answer) = oneshot::channel();
        self.send(make(reply)).await?;
        answer.await.map_err(|_| Gone)
    }
}

impl RemoteRoom for Proxy {
    fn connect(&self, conn: ConnId, out: ConnHandle) -> BoxFuture<'_, Result<(), ErrorCode>> {
        Box::pin(async move {
            self.ask(|reply| ProxyCmd::Connect { conn, out, reply })
                .await
                .unwrap_or(Err(ErrorCode::ShuttingDown))
        })
    }
    fn message(&self, conn: ConnId, msg: ClientMsg) -> BoxFuture<'_, Result<(), Gone>> {
        Box::pin(self.send(ProxyCmd::Msg { conn, msg }))
    }
    fn rtt(&self, conn: ConnId, rtt_ms: u64) -> BoxFuture<'_, Result<(), Gone>> {
        Box::pin(self.send(ProxyCmd::Rtt { conn, rtt_ms }))
    }
    fn disconnect(&self, conn: ConnId) -> BoxFuture<'_, ()> {
        Box::pin(async move {
            let _ = self.send(ProxyCmd::Disconnect { conn }).await;
        })
    }
    fn details(&self) -> BoxFuture<'_, Result<RoomDetails, Gone>> {
        Box::pin(self.ask(|reply| ProxyCmd::Details { reply }))
    }
    fn record(&self, site: String) -> BoxFuture<'_, Result<String, Gone>> {
        Box::pin(self.ask(|reply| ProxyCmd::Record { site, reply }))
    }
    fn is_closed(&self) -> bool {
        self.tx.is_closed()
    }
    fn closed(&self) -> BoxFuture<'_, ()> {
        Box::pin(self.tx.closed())
    }
}

/// How long a proxy with no socket stays, for the next one.
const IDLE: Duration = Duration::from_secs(30);
/// Failed probes in a row after which the owner counts as gone.
const PROBES_LOST: u32 = 2;

/// Starts the proxy of room `id`; returns its handle.
pub fn spawn(cluster: Arc<Cluster>, rooms: Arc<Registry>, id: Uuid) -> RoomHandle {
    let (tx, rx) = mpsc::channel(PROXY_QUEUE);
    // The lobby reads summaries from the site-wide list, never from a proxy.
    let (_, summary) = watch::channel(placeholder(id));
    let handle = RoomHandle::remote(id, summary, Arc::new(Proxy { tx }));
    let span = tracing::info_span!("proxy", room = %id);
    tokio::spawn(tracing::Instrument::instrument(
        run(cluster, rooms, handle.clone(), rx),
        span,
    ));
    handle
}

/// The lobby entry of a room known only by its id: private, waiting, empty.
pub(crate) fn placeholder(id: Uuid) -> RoomSummary {
    RoomSummary {
        room: RoomInfo {
            id: id.to_string(),
            status: RoomStatus::Waiting,
            seats: Seats::default(),
            spectators: 0,
            custom_position: false,
            voluntary_alliance: false,
            private: true,
            clock: None,
            bot_takeover: false,
            rated: false,
            paired: false,
            bots_only: false,
            result: None,
            created_at_ms: 0,
            updated_at_ms: 0,
        },
        moves: 0,
    }
}

async fn run(
    cluster: Arc<Cluster>,
    rooms: Arc<Registry>,
    me: RoomHandle,
    mut rx: mpsc::Receiver<ProxyCmd>,
) {
    let id = me.id;
    let node = cluster.node.clone();
    let cmd_subject = cluster.subject(id, "cmd");
    let Ok(mut frames) = cluster
        .nats
        .subscribe(cluster.subject(id, &format!("to.{node}")))
        .await
    else {
        cluster.forget_proxy(&me);
        return;
    };
    let mut conns: HashMap<u64, ConnHandle> = HashMap::new();
    let (gone_tx, mut gone_rx) = mpsc::channel::<()>(1);
    tokio::spawn(watch_owner(cluster.clone(), id, gone_tx));
    let mut idle_since = Some(tokio::time::Instant::now());
    loop {
        let idle_end = idle_since.map(|t| t + IDLE);
        tokio::select! {
            () = rooms.shutdown.cancelled() => break,
            _ = gone_rx.recv() => {
                info!(sockets = conns.len(), "the room's owner is gone: its sockets here resume elsewhere");
                break;
            }
            () = sleep_until_opt(idle_end) => break,
            cmd = rx.recv() => {
                let Some(cmd) = cmd else { break };
                on_cmd(&cluster, &cmd_subject, &mut conns, cmd).await;
            }
            m = frames.next() => {
                let Some(m) = m else { break };
                if let Some((conn, out)) = decode_out(&m.payload) {
                    deliver(&mut conns, conn, out);
                }
            }
        }
        idle_since = match conns.is_empty() {
            true => idle_since.or_else(|| Some(tokio::time::Instant::now())),
            false => None,
        };
    }
    // New sockets go through a fresh lookup from now on.
    cluster.forget_proxy(&me);
    rx.close();
    let bye = Text::from(
        ServerMsg::error(
            ErrorCode::ShuttingDown,
            "the room is moving to another server; resume",
        )
        .to_text(),
    );
    for out in conns.values() {
        let _ = out.tx.try_send(Outbound::Text(bye.clone()));
        let _ = out.tx.try_send(Outbound::Close(
            1012,
            sannin_protocol::CloseReason::ShuttingDown.as_str(),
        ));
    }
    let _ = frames.unsubscribe().await;
    debug!("proxy stopped");
}

async fn on_cmd(
    cluster: &Arc<Cluster>,
    subject: &str,
    conns: &mut HashMap<u64, ConnHandle>,
    cmd: ProxyCmd,
) {
    let node = cluster.node.clone();
    match cmd {
        ProxyCmd::Connect { conn, out, reply } => {
            let account = out.account.as_deref().map(|a| a.name.clone());
            let account_id = out.account.as_deref().map(|a| a.id.clone());
            let answer = cluster
                .request(
                    subject,
                    NodeCmd::Connect {
                        node,
                        conn,
                        account,
                        account_id,
                    },
                )
                .await;
            let result = match answer.as_deref() {
                Some("ok") => {
                    conns.insert(conn, out);
                    Ok(())
                }
                Some(code) => Err(serde_json::from_value(serde_json::Value::String(
                    code.to_string(),
                ))
                .unwrap_or(ErrorCode::ShuttingDown)),
                None => Err(ErrorCode::ShuttingDown),
            };
            let _ = reply.send(result);
        }
        ProxyCmd::Disconnect { conn } => {
            // Told even when the socket was already dropped here (its queue was full):
            // the owner still counts it until then.
            conns.remove(&conn);
            cluster
                .publish(subject, NodeCmd::Disconnect { node, conn })
                .await;
        }
        ProxyCmd::Msg { conn, msg } => {
            cluster
                .publish(subject, NodeCmd::Msg { node, conn, msg })
                .await;
        }
        ProxyCmd::Rtt { conn, rtt_ms } => {
            cluster
                .publish(subject, NodeCmd::Rtt { node, conn, rtt_ms })
                .await;
        }
        ProxyCmd::Details { reply } => {
            let answer = cluster.request(subject, NodeCmd::Details).await;
            if let Some(d) = answer.and_then(|a| serde_json::from_str(&a).ok()) {
                let _ = reply.send(d);
            }
        }
        ProxyCmd::Record { site, reply } => {
            if let Some(r) = cluster.request(subject, NodeCmd::Record { site }).await {
                let _ = reply.send(r);
            }
        }
    }
}

/// Hands a frame from the owner to its socket here.
fn deliver(conns: &mut HashMap<u64, ConnHandle>, conn: u64, out: Out) {
    let Some(c) = conns.get(&conn) else {
        return;
    };
    let queued = match out {
        Out::Text(t) => match Text::from_utf8(t) {
            Some(t) => c.tx.try_send(Outbound::Text(t)).is_ok(),
            None => true,
        },
        Out::Ping => c.tx.try_send(Outbound::Ping).is_ok(),
        Out::Close(code, reason) => {
            // The close reasons the room uses are fixed strings: keep the known ones.
            let reason = static_reason(&reason);
            let ok = c.tx.try_send(Outbound::Close(code, reason)).is_ok();
            conns.remove(&conn);
            ok
        }
        Out::Drop => {
            let _ = c.tx.try_send(Outbound::Close(
                1012,
                sannin_protocol::CloseReason::ShuttingDown.as_str(),
            ));
            conns.remove(&conn);
            true
        }
    };
    if !queued {
        if let Some(c) = conns.remove(&conn) {
            c.kill.cancel();
        }
    }
}

/// The owner's close reason, one of the codes of `CloseReason` (anything else, from a
/// node of another version, reads as `unavailable`).
fn static_reason(reason: &str) -> &'static str {
    sannin_protocol::CloseReason::ALL
        .into_iter()
        .map(sannin_protocol::CloseReason::as_str)
        .find(|k| *k == reason)
        .unwrap_or(sannin_protocol::CloseReason::Unavailable.as_str())
}

/// Probes the owner every second; tells the proxy once it stops answering.
async fn watch_owner(cluster: Arc<Cluster>, id: Uuid, gone: mpsc::Sender<()>) {
    let subject = cluster.subject(id, "cmd");
    let mut lost = 0;
    loop {
        tokio::select! {
            () = gone.closed() => return,
            () = tokio::time::sleep(Duration::from_secs(1)) => {}
        }
        match cluster.request(&subject, NodeCmd::Probe).await {
            Some(_) => lost = 0,
            None => lost += 1,
        }
        if lost >= PROBES_LOST {
            let _ = gone.send(()).await;
            return;
        }
    }
}

async fn sleep_until_opt(t: Option<tokio::time::Instant>) {
    match t {
        Some(t) => tokio::time::sleep_until(t).await,
        None => std::future::pending().await,
    }
}
