//! Computer review of finished games (docs/review.md): a player, or anyone watching a
//! finished game, asks for one (`POST /api/rooms/{id}/review`); the server searches
//! every position of the game in the background and keeps the result, so a game is
//! reviewed once.
//!
//! - **The queue is the database.** A request inserts the game's row (`queued`); a
//!   worker of any node takes the next row with a lease, renews it as it goes, and
//!   stores the result. A node that stops puts its reviews back; one that dies loses
//!   its leases after [`LEASE`], and another node takes them over. In a cluster the
//!   review therefore runs on whichever node has a free worker, and every node answers
//!   from the same row.
//! - **Fair.** The next review is each requester's (account, else address) oldest
//!   before anyone's second ([`store::next`]).
//! - **Bounded.** `--review-workers` reviews at once per node, each one search at a
//!   time on the blocking pool, `--review-nodes` actions per position (the same
//!   review on every machine); at most `--max-reviews-waiting` waiting on the site;
//!   an address and an account may each ask for `--reviews-per-day` in a day: a
//!   [`Budget`] of that many at once, one more every day / `--reviews-per-day`, kept
//!   for the whole site in a cluster (as every site-wide limit is).
//!   A game already reviewed (or waiting) is answered as it stands, for free; a
//!   review that failed is queued again when asked for again.

use std::num::NonZeroU32;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context as _;
use governor::Quota;
use sannin_protocol::RoomStatus;
use serde_json::{json, Value};
use tokio::sync::Notify;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;
use tracing::{info, warn};

use crate::limits::{Budget, ClientAddr, Refused};
use crate::store::{unix_ms, Store, StoredRoom};

mod config;
pub mod store;
mod worker;

pub use config::{ReviewArgs, ReviewConfig};

pub use worker::review_json;

/// How long a node holds a review without renewing it (it renews after each
/// position, so only a node that stopped answering loses it).
pub const LEASE: Duration = Duration::from_secs(60);
/// How often an idle worker looks for reviews other nodes queued, or that a stopped
/// node left.
const POLL: Duration = Duration::from_secs(2);
/// The period of the daily budgets.
const DAY: Duration = Duration::from_secs(24 * 3600);

/// A review that cannot be asked for now.
#[derive(Debug, thiserror::Error)]
pub enum ReviewError {
    /// The game is not over.
    #[error("the game is not over yet: a review is made of a finished game")]
    NotFinished,
    /// This server reviews no games.
    #[error("this server does not review games")]
    Off,
    /// So many reviews wait already.
    #[error("{0} reviews are waiting already; ask again in a few minutes")]
    Busy(i64),
    /// The asker's reviews of the day are spent.
    #[error(transparent)]
    Refused(#[from] Refused),
    /// The database failed (logged with its cause).
    #[error("internal error")]
    Internal(#[source] anyhow::Error),
}

/// Who asks for a review.
#[derive(Debug, Clone)]
pub struct Requester {
    /// The client's address.
    pub addr: ClientAddr,
    /// Its account, when logged in.
    pub account: Option<String>,
}

/// The reviews of this node.
#[derive(Debug)]
pub struct Reviews {
    store: Store,
    settings: ReviewConfig,
    /// This node's id in a cluster; None for a single node.
    node: Option<String>,
    /// Wakes an idle worker when this node queues a review.
    wake: Notify,
    /// The reviews each address, and each account, may still ask for.
    per_addr: Budget,
    per_account: Budget<String>,
}

impl Reviews {
    /// The reviews of a node; nothing runs before [`Reviews::start`]. `site`: the
    /// database of a cluster, where the daily budgets are kept for every node.
    pub fn new(
        store: Store,
        settings: ReviewConfig,
        node: Option<String>,
        site: Option<&Store>,
    ) -> Reviews {
        // 0: no daily limit.
        let daily = NonZeroU32::new(settings.per_day).and_then(|n| {
            let period = DAY.checked_div(n.get())?.max(Duration::from_millis(1));
            Some(Quota::with_period(period)?.allow_burst(n))
        });
        Reviews {
            store,
            settings,
            node,
            wake: Notify::new(),
            per_addr: Budget::site("computer reviews today", daily, site),
            per_account: Budget::site("computer reviews for your account today", daily, site),
        }
    }

    /// The settings.
    pub fn settings(&self) -> ReviewConfig {
        self.settings
    }

    /// Forgets the addresses and accounts whose daily budget is full again.
    pub fn prune(&self) {
        self.per_addr.prune();
        self.per_account.prune();
    }

    /// Puts back the reviews an earlier run of this node left running, then starts the
    /// workers; they stop (putting their review back in the queue) on `shutdown`.
    ///
    /// # Errors
    /// Database errors.
    pub async fn start(
        self: &Arc<Self>,
        shutdown: CancellationToken,
        tracker: &TaskTracker,
    ) -> anyhow::Result<()> {
        let released = store::release(&self.store, self.node.as_deref())
            .await
            .context("putting back the reviews a stop left running")?;
        if released > 0 {
            info!(
                reviews = released,
                "computer reviews queued again after a stop"
            );
        }
        for _ in 0..self.settings.workers {
            tracker.spawn(self.clone().work(shutdown.clone()));
        }
        Ok(())
    }

    /// The review of `room` as the API answers it; None when nobody asked for one.
    ///
    /// # Errors
    /// Database errors.
    pub async fn get(&self, room: &str) -> Result<Option<Value>, ReviewError> {
        let Some(row) = store::find(&self.store, room).await.map_err(db_error)? else {
            return Ok(None);
        };
        let ahead = match row.state.as_str() {
            "queued" => Some(
                store::ahead(&self.store, row.requested_at)
                    .await
                    .map_err(db_error)?,
            ),
            _ => None,
        };
        Ok(Some(view(&row, ahead)))
    }

    /// Asks for the review of the finished game `room`: queues it (within the budgets)
    /// unless it is reviewed or waiting already, and answers it as it stands.
    ///
    /// # Errors
    /// `game_not_finished`, `reviews_off`, `review_busy`, `rate_limited`; database
    /// errors.
    pub async fn request(&self, room: &StoredRoom, who: &Requester) -> Result<Value, ReviewError> {
        if room.status != RoomStatus::Finished {
            return Err(ReviewError::NotFinished);
        }
        let failed = match self.get(&room.id).await? {
            // A review that failed (a database that was away…) is asked for anew.
            Some(found) if found["state"] == "failed" => true,
            Some(found) => return Ok(found),
            None => false,
        };
        if self.settings.workers == 0 && self.node.is_none() {
            return Err(ReviewError::Off);
        }
        let waiting = store::waiting(&self.store).await.map_err(db_error)?;
        if waiting >= i64::from(self.settings.max_waiting) {
            return Err(ReviewError::Busy(waiting));
        }
        self.per_addr.take(&who.addr).await?;
        if let Some(account) = &who.account {
            self.per_account.take(account).await?;
        }
        let addr = who.addr.to_string();
        let requester = match &who.account {
            Some(a) => format!("account:{a}"),
            None => format!("addr:{addr}"),
        };
        let plies = i64::try_from(room.actions.len()).unwrap_or(i64::MAX);
        let asked = store::Request {
            room_id: &room.id,
            requester: &requester,
            addr: &addr,
            account_id: who.account.as_deref(),
            plies_total: plies.saturating_add(1),
            nodes: i64::try_from(self.settings.nodes).unwrap_or(i64::MAX),
        };
        if failed {
            store::requeue(&self.store, &asked).await
        } else {
            store::insert(&self.store, &asked).await
        }
        .map_err(db_error)?;
        self.wake.notify_one();
        self.get(&room.id)
            .await?
            .ok_or_else(|| ReviewError::Internal(anyhow::anyhow!("a queued review went missing")))
    }

    /// One worker: takes the next review, runs it, and again; idle, it waits for this
    /// node's next request or polls for other nodes'.
    async fn work(self: Arc<Self>, shutdown: CancellationToken) {
        let node = self.node.clone().unwrap_or_else(|| "local".into());
        loop {
            match self.take(&node).await {
                Ok(Some(room)) => {
                    if let Err(e) = self.run(&room, &node, &shutdown).await {
                        warn!(room = %room, error = %format!("{e:#}"), "a computer review failed");
                        let why = format!("{e:#}");
                        let _ = store::finish(&self.store, &room, &node, false, &why, 0).await;
                    }
                    continue;
                }
                Ok(None) => {}
                Err(e) => warn!(error = %e, "looking for computer reviews to run"),
            }
            tokio::select! {
                () = shutdown.cancelled() => return,
                () = self.wake.notified() => {}
                () = tokio::time::sleep(POLL) => {}
            }
            if shutdown.is_cancelled() {
                return;
            }
        }
    }

    /// Takes the next review for `node`, if any.
    async fn take(&self, node: &str) -> sqlx::Result<Option<String>> {
        loop {
            let now = unix_ms();
            let Some(room) = store::next(&self.store, now).await? else {
                return Ok(None);
            };
            if store::claim(&self.store, &room, node, now, lease_until()).await? {
                return Ok(Some(room));
            }
            // Another node took it first: the next one.
        }
    }
}

/// When a lease taken or renewed now runs out.
fn lease_until() -> i64 {
    unix_ms() + i64::try_from(LEASE.as_millis()).unwrap_or(60_000)
}

fn db_error(e: sqlx::Error) -> ReviewError {
    ReviewError::Internal(anyhow::Error::new(e).context("reading or queuing a computer review"))
}

/// A review's row as the API answers it (docs/protocol.md, "Computer review"): its
/// state and progress, and once done the positions, moves and counts of the result.
fn view(row: &store::Row, ahead: Option<i64>) -> Value {
    let result = row.result.as_deref();
    let mut out = json!({
        "room": row.room_id,
        "state": row.state,
        "ahead": ahead,
        "plies_done": row.plies_done,
        "plies_total": row.plies_total,
        "nodes": row.nodes,
        "error": if row.state == "failed" { result } else { None },
        "positions": [],
        "moves": [],
        "counts": null,
    });
    if row.state == "done" {
        if let Some(Value::Object(done)) = result.and_then(|r| serde_json::from_str(r).ok()) {
            out.as_object_mut().expect("an object").extend(done);
        }
    }
    out
}

#[cfg(test)]
mod tests;
