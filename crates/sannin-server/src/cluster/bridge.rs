//! The owner's side of a room: commands from other nodes' sockets go into the room's
//! queue as if the sockets were local, and what the room sends to them goes back out
//! to their node, one NATS message per frame (the room's own JSON text).
//!
//! Each remote socket gets a local connection id and a bounded queue like a local
//! one, drained by a pump task; so the room neither knows nor cares where its
//! sockets are. The bridge also keeps the room's entry in the site-wide lobby and,
//! once the room stops (lease lost, drain, unloaded), gives its lease back.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use futures_util::StreamExt as _;
use tokio_util::sync::CancellationToken;
use tracing::{debug, info, warn};

use super::wire::{encode_out, NodeCmd, Out};
use super::Cluster;
use crate::registry::Registry;
use crate::room::{ConnAccount, ConnHandle, ConnId, Outbound, RoomHandle};
use sannin_protocol::RoomStatus;

/// How often an owner repeats its rooms' lobby entries (they expire unrefreshed).
pub const LOBBY_REFRESH: Duration = Duration::from_secs(3);

/// Runs the bridge of an owned room until the room stops.
pub async fn run(
    cluster: Arc<Cluster>,
    rooms: Arc<Registry>,
    room: RoomHandle,
    epoch: i64,
    cancel: CancellationToken,
) {
    let id = room.id;
    let nats = cluster.nats.clone();
    let mut sub = match nats.subscribe(cluster.subject(id, "cmd")).await {
        Ok(s) => Some(s),
        Err(e) => {
            warn!(room = %id, error = %e, "cannot subscribe to the room's commands; stopping it");
            cancel.cancel();
            None
        }
    };
    let mut remote: HashMap<(String, u64), ConnId> = HashMap::new();
    let mut summary = room.summary.clone();
    let mut refresh = tokio::time::interval(LOBBY_REFRESH);
    loop {
        tokio::select! {
            () = room.closed() => break,
            m = async { sub.as_mut()?.next().await } => {
                let Some(m) = m else { break };
                let Some(cmd) = NodeCmd::decode(&m.payload) else {
                    debug!(room = %id, "unreadable cluster command dropped");
                    continue;
                };
                let answer = on_cmd(&cluster, &rooms, &room, &mut remote, cmd).await;
                if let (Some(reply), Some(body)) = (m.reply, answer) {
                    let _ = nats.publish(reply, body.into()).await;
                }
            }
            changed = summary.changed() => {
                if changed.is_err() {
                    break;
                }
                let s = summary.borrow_and_update().clone();
                cluster.lobby_put(&s).await;
                cluster.live_put(id, rooms.live.get(id)).await;
            }
            _ = refresh.tick() => {
                let s = summary.borrow().clone();
                cluster.lobby_put(&s).await;
                cluster.live_put(id, rooms.live.get(id)).await;
            }
        }
    }
    if let Some(s) = sub.as_mut() {
        let _ = s.unsubscribe().await;
    }
    // The room's task has ended (its queue's receiver is gone): nothing more is written
    // under this lease, so it can go.
    let finished = summary.borrow().room.status == RoomStatus::Finished;
    if cancel.is_cancelled() && !finished {
        // Stopped by a lost lease or the drain, not by the end of its game.
        rooms.room_closed();
    }
    rooms.unload_if(&room);
    // Its live position, if any, is another node's to announce now, or the database's
    // while the room sleeps.
    rooms.live.set(id, None);
    cluster.disown(id, epoch);
    cluster.lobby_del(id).await;
    if let Err(e) = super::lease::release(rooms.store().pool(), id, &cluster.node, epoch).await {
        warn!(room = %id, error = %e, "cannot release the room's lease; it expires by itself");
    }
    info!(room = %id, epoch, "room released by this node");
}

/// Handles one command; returns the reply for a request.
async fn on_cmd(
    cluster: &Arc<Cluster>,
    rooms: &Arc<Registry>,
    room: &RoomHandle,
    remote: &mut HashMap<(String, u64), ConnId>,
    cmd: NodeCmd,
) -> Option<String> {
    match cmd {
        NodeCmd::Probe => Some("ok".into()),
        NodeCmd::Connect {
            node,
            conn,
            account,
            account_id,
        } => {
            let local = rooms.next_conn_id();
            let (tx, rx) = crate::room::outbox(cluster.send_queue);
            let kill = CancellationToken::new();
            let subject = cluster.subject(room.id, &format!("to.{node}"));
            tokio::spawn(pump(cluster.clone(), subject, conn, rx, kill.clone()));
            let out = ConnHandle {
                tx,
                kill,
                addr: None,
                account: account.map(|name| {
                    Arc::new(ConnAccount {
                        id: account_id.unwrap_or_default(),
                        name,
                    })
                }),
            };
            let answer = match room.connect(local, out).await {
                Ok(()) => {
                    remote.insert((node, conn), local);
                    "ok".to_string()
                }
                Err(code) => code.as_str().to_string(),
            };
            Some(answer)
        }
        NodeCmd::Disconnect { node, conn } => {
            if let Some(local) = remote.remove(&(node, conn)) {
                room.disconnect(local).await;
            }
            None
        }
        NodeCmd::Msg { node, conn, msg } => {
            match remote.get(&(node.clone(), conn)) {
                Some(&local) => {
                    let _ = room.message(local, msg, Instant::now()).await;
                }
                None => {
                    // A socket connected to an earlier owner: it must reconnect here.
                    let subject = cluster.subject(room.id, &format!("to.{node}"));
                    let _ = cluster
                        .nats
                        .publish(subject, encode_out(conn, &Out::Drop))
                        .await;
                }
            }
            None
        }
        NodeCmd::Rtt { node, conn, rtt_ms } => {
            if let Some(&local) = remote.get(&(node, conn)) {
                let _ = room.rtt(local, rtt_ms).await;
            }
            None
        }
        NodeCmd::Details => {
            let details = room.details().await.ok()?;
            serde_json::to_string(&details).ok()
        }
        NodeCmd::Record { site } => room.record(site).await.ok(),
    }
}

/// Drains a remote socket's queue into NATS until the room drops it.
async fn pump(
    cluster: Arc<Cluster>,
    subject: String,
    conn: u64,
    mut rx: crate::room::Inbox,
    kill: CancellationToken,
) {
    loop {
        let out = tokio::select! {
            biased;
            () = kill.cancelled() => Out::Drop,
            o = rx.recv() => match o {
                None => return,
                Some(Outbound::Text(t)) => Out::Text(t.into_bytes()),
                Some(Outbound::Close(code, reason)) => Out::Close(code, reason.into()),
                Some(Outbound::Ping) => Out::Ping,
                // The socket's own node answers its pings.
                Some(Outbound::Pong(_)) => continue,
            },
        };
        let end = matches!(out, Out::Drop | Out::Close(..));
        if cluster
            .nats
            .publish(subject.clone(), encode_out(conn, &out))
            .await
            .is_err()
            || end
        {
            return;
        }
    }
}
