//! Quick pairing across the cluster: the pools are site-wide, so one node at a time
//! runs the matcher — the holder of the matcher's lease, a row of `room_leases` renewed
//! with the rooms' leases — and every other node forwards its clients' pairing
//! requests to it over NATS (`{prefix}.pairing`). The tickets are in the database
//! before a ticket is answered, so when the matcher's node dies the next holder of
//! the lease loads them and goes on: no ticket is lost. While nobody holds the lease
//! (a lease time at most), requests answer `503 pairing_unavailable`.

use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use futures_util::StreamExt as _;
use sannin_rules::Player;
use serde::{Deserialize, Serialize};
use tokio_util::sync::CancellationToken;
use tracing::{info, warn};
use uuid::Uuid;

use super::{lease, Cluster};
use crate::pairing::PairingError;
use crate::pairing::{Join, NoShow, Pairing, PairingApi, PoolInfo, TicketStatus};
use futures_util::future::BoxFuture;
use sannin_protocol::ApiCode;

/// The longest piece of a long poll forwarded to the matcher's node.
const FORWARDED_WAIT: Duration = Duration::from_secs(5);

/// The id the matcher's lease is kept under in `room_leases` (no room has it).
pub const MATCHER_LEASE: Uuid = Uuid::nil();

/// A pairing request between nodes.
#[derive(Debug, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case")]
enum Req {
    Join {
        join: Join,
    },
    Status {
        key: String,
        wait_ms: u64,
    },
    Leave {
        key: String,
    },
    Pools,
    Aborted {
        room: Uuid,
        seat: Player,
        why: NoShow,
    },
}

/// Its answer: a value, or the error's code and message.
#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
enum Resp {
    Done,
    Status(TicketStatus),
    Pools(Vec<PoolInfoWire>),
    Error { code: String, message: String },
}

/// A pool's entry between nodes.
#[derive(Debug, Serialize, Deserialize)]
struct PoolInfoWire {
    pool: crate::pairing::PoolId,
    waiting: usize,
}

/// Pairing as a node of the cluster sees it.
#[derive(Debug)]
pub struct SitePairing {
    cluster: Weak<Cluster>,
    matcher: Arc<Pairing>,
    /// While this node runs the matcher: the epoch of its lease and what stops it.
    active: Mutex<Option<(i64, CancellationToken)>>,
}

impl SitePairing {
    pub fn new(cluster: Weak<Cluster>, matcher: Arc<Pairing>) -> SitePairing {
        SitePairing {
            cluster,
            matcher,
            active: Mutex::new(None),
        }
    }

    fn active(&self) -> std::sync::MutexGuard<'_, Option<(i64, CancellationToken)>> {
        self.active.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn is_active(&self) -> bool {
        self.active().is_some()
    }

    /// After the leases were renewed (`held`: this node's live leases): keeps running
    /// the matcher while its lease holds, stops it when lost, takes it up when free.
    pub async fn keep(
        &self,
        cluster: &Arc<Cluster>,
        held: &[(String, i64)],
        stop: &CancellationToken,
    ) {
        let id = MATCHER_LEASE.to_string();
        let held_epoch = held.iter().find(|(r, _)| *r == id).map(|(_, e)| *e);
        let current = self.active().as_ref().map(|(e, c)| (*e, c.clone()));
        match (current, held_epoch) {
            (Some((e, _)), Some(h)) if e == h => return,
            (Some((_, cancel)), _) => {
                warn!("the matcher's lease is lost: pairing stops on this node");
                cancel.cancel();
                *self.active() = None;
            }
            (None, _) => {}
        }
        let pool = cluster.store.pool();
        let epoch = match lease::acquire(pool, MATCHER_LEASE, &cluster.node, cluster.lease).await {
            Ok(Some(epoch)) => epoch,
            Ok(None) => return,
            Err(e) => {
                warn!(error = %e, "cannot look for the matcher's lease");
                return;
            }
        };
        let cancel = stop.child_token();
        if let Err(e) = self.matcher.activate(cancel.clone()).await {
            warn!(error = %e, "cannot start the matcher; its lease goes back");
            let _ = lease::release(pool, MATCHER_LEASE, &cluster.node, epoch).await;
            return;
        }
        match cluster
            .nats
            .subscribe(format!("{}.pairing", cluster.prefix))
            .await
        {
            Ok(sub) => {
                tokio::spawn(serve(
                    self.matcher.clone(),
                    cluster.clone(),
                    sub,
                    cancel.clone(),
                ));
            }
            Err(e) => warn!(error = %e, "cannot serve pairing requests"),
        }
        info!(epoch, "this node runs the site's matcher");
        *self.active() = Some((epoch, cancel));
    }

    /// Forwards `req` to the matcher's node; `wait` is how long it may hold the answer.
    async fn forward(&self, req: Req, wait: Duration) -> Result<Resp, PairingError> {
        let cluster = self
            .cluster
            .upgrade()
            .ok_or(PairingError::Room(crate::room::RoomError::ShuttingDown))?;
        let body = serde_json::to_vec(&req).map_err(|e| PairingError::Internal(e.into()))?;
        let request = async_nats::client::Request::new()
            .payload(body.into())
            .timeout(Some(wait + Duration::from_secs(2)));
        let answer = cluster
            .nats
            .send_request(format!("{}.pairing", cluster.prefix), request)
            .await
            .map_err(|_| PairingError::Unavailable)?;
        let resp: Resp = serde_json::from_slice(&answer.payload)
            .map_err(|e| PairingError::Internal(e.into()))?;
        if let Resp::Error { code, message } = resp {
            return Err(error_of(&code, message));
        }
        Ok(resp)
    }
}

/// The code a matcher answers an error with.
fn code_of(e: &PairingError) -> ApiCode {
    match e {
        PairingError::TicketNotFound => ApiCode::TicketNotFound,
        PairingError::UnknownPool(_) => ApiCode::UnknownPool,
        PairingError::AlreadyWaiting(_) => ApiCode::AlreadyWaiting,
        PairingError::Cooldown { .. } => ApiCode::PairingCooldown,
        PairingError::Unavailable => ApiCode::PairingUnavailable,
        PairingError::Remote { code, .. } => *code,
        PairingError::Room(_) | PairingError::Internal(_) => ApiCode::Internal,
    }
}

/// The error a matcher answered, by its code.
fn error_of(code: &str, message: String) -> PairingError {
    match code.parse::<ApiCode>() {
        Ok(ApiCode::TicketNotFound) => PairingError::TicketNotFound,
        Ok(ApiCode::PairingUnavailable) => PairingError::Unavailable,
        Ok(code) => PairingError::Remote { code, message },
        Err(_) => PairingError::Remote {
            code: ApiCode::Internal,
            message,
        },
    }
}

/// Answers the pairing requests of the other nodes until `stop`.
async fn serve(
    matcher: Arc<Pairing>,
    cluster: Arc<Cluster>,
    mut sub: async_nats::Subscriber,
    stop: CancellationToken,
) {
    loop {
        let m = tokio::select! {
            () = stop.cancelled() => break,
            m = sub.next() => match m { Some(m) => m, None => break },
        };
        let Some(reply) = m.reply else { continue };
        let matcher = matcher.clone();
        let nats = cluster.nats.clone();
        tokio::spawn(async move {
            let resp = match serde_json::from_slice::<Req>(&m.payload) {
                Ok(req) => answer(&matcher, req).await,
                Err(e) => Resp::Error {
                    code: "internal".into(),
                    message: format!("unreadable pairing request: {e}"),
                },
            };
            if let Ok(body) = serde_json::to_vec(&resp) {
                let _ = nats.publish(reply, body.into()).await;
            }
        });
    }
    let _ = sub.unsubscribe().await;
}

async fn answer(matcher: &Pairing, req: Req) -> Resp {
    let result = match req {
        Req::Join { join } => matcher.join(join).await.map(|()| Resp::Done),
        Req::Status { key, wait_ms } => matcher
            .status(key, Duration::from_millis(wait_ms))
            .await
            .map(Resp::Status),
        Req::Leave { key } => matcher.leave(key).await.map(|()| Resp::Done),
        Req::Pools => matcher.pools().await.map(|p| Resp::Pools(wire_pools(p))),
        Req::Aborted { room, seat, why } => {
            matcher.table_aborted(room, seat, why).await;
            Ok(Resp::Done)
        }
    };
    result.unwrap_or_else(|e| Resp::Error {
        code: code_of(&e).as_str().into(),
        message: e.to_string(),
    })
}

fn wire_pools(pools: Vec<PoolInfo>) -> Vec<PoolInfoWire> {
    crate::pairing::PoolId::all()
        .zip(pools)
        .map(|(pool, info)| PoolInfoWire {
            pool,
            waiting: info.waiting,
        })
        .collect()
}

impl PairingApi for SitePairing {
    fn apart_changed(&self) {
        // The node running the matcher reads them within `APART_EVERY` anyway.
        self.matcher.forget_apart();
    }

    fn tables_refused(&self) -> u64 {
        self.matcher.tables_refused()
    }

    fn long_polls(&self) -> u64 {
        self.matcher.long_polls()
    }

    fn join(&self, join: Join) -> BoxFuture<'_, Result<(), PairingError>> {
        Box::pin(async move {
            if self.is_active() {
                return self.matcher.join(join).await;
            }
            self.forward(Req::Join { join }, Duration::ZERO)
                .await
                .map(|_| ())
        })
    }

    fn status(
        &self,
        key: String,
        wait: Duration,
    ) -> BoxFuture<'_, Result<TicketStatus, PairingError>> {
        Box::pin(async move {
            if self.is_active() {
                return self.matcher.status(key, wait).await;
            }
            // A long poll goes to the matcher's node in pieces of at most
            // `FORWARDED_WAIT`: a page that has gone (this request dropped with its
            // connection) stops holding its ticket there within one piece.
            let until = tokio::time::Instant::now() + wait;
            loop {
                let left = until.saturating_duration_since(tokio::time::Instant::now());
                let piece = left.min(FORWARDED_WAIT);
                let asked = tokio::time::Instant::now();
                let wait_ms = u64::try_from(piece.as_millis()).unwrap_or(u64::MAX);
                let status = match self
                    .forward(
                        Req::Status {
                            key: key.clone(),
                            wait_ms,
                        },
                        piece,
                    )
                    .await?
                {
                    Resp::Status(s) => s,
                    other => {
                        return Err(PairingError::Internal(anyhow::anyhow!(
                            "pairing answered {other:?}"
                        )))
                    }
                };
                // Answered before its piece was over: the ticket changed.
                let early = asked.elapsed() + Duration::from_millis(500) < piece;
                if piece == left || early || matches!(status, TicketStatus::Matched { .. }) {
                    return Ok(status);
                }
            }
        })
    }

    fn leave(&self, key: String) -> BoxFuture<'_, Result<(), PairingError>> {
        Box::pin(async move {
            if self.is_active() {
                return self.matcher.leave(key).await;
            }
            self.forward(Req::Leave { key }, Duration::ZERO)
                .await
                .map(|_| ())
        })
    }

    fn pools(&self) -> BoxFuture<'_, Result<Vec<PoolInfo>, PairingError>> {
        Box::pin(async move {
            if self.is_active() {
                return self.matcher.pools().await;
            }
            match self.forward(Req::Pools, Duration::ZERO).await? {
                Resp::Pools(p) => Ok(p
                    .into_iter()
                    .map(|w| PoolInfo {
                        name: w.pool.preset().name,
                        clock: w.pool.preset().clock,
                        rated: w.pool.rated,
                        waiting: w.waiting,
                    })
                    .collect()),
                other => Err(PairingError::Internal(anyhow::anyhow!(
                    "pairing answered {other:?}"
                ))),
            }
        })
    }

    fn table_aborted(&self, room: Uuid, seat: Player, why: NoShow) -> BoxFuture<'_, ()> {
        Box::pin(async move {
            if self.is_active() {
                return self.matcher.table_aborted(room, seat, why).await;
            }
            if let Err(e) = self
                .forward(Req::Aborted { room, seat, why }, Duration::ZERO)
                .await
            {
                warn!(%room, error = %e, "cannot tell the matcher of a table given up");
            }
        })
    }
}
