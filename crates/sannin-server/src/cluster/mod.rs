//! Cluster mode: any number of `sannin serve` nodes with the same PostgreSQL database
//! and NATS serve one site; a load balancer may send any request to any node.
//!
//! - **One writer per room.** A room runs on one node at a time, the holder of its
//!   lease in `room_leases` (`lease.rs`), renewed by the owner four times per lease.
//!   Only the owner runs the room's task, and every write it makes is fenced by the
//!   lease (node, epoch): actions in their own statement (`store::Fence`), everything
//!   else in a transaction that checks the lease first (`Store::fenced`). A node that
//!   lost the lease (paused past its expiry) cannot write.
//! - **Sockets anywhere.** A node asked for a room it does not own gets a proxy
//!   (`proxy.rs`) that forwards its sockets' commands to the owner over NATS; the
//!   owner's bridge (`bridge.rs`) feeds them to the room as local connections and
//!   sends each frame back to the socket's node as the room serialised it. So every
//!   socket of a room, wherever it is, sees one ordered stream (`seq`).
//! - **Failover.** When an owner dies its leases run out; the next lookup of the room
//!   (a socket, an HTTP request) or the sweep every node runs takes the lease, raises
//!   the epoch and restores the room from the database. Clients of the dead node, and
//!   sockets proxied to it (closed with 1012 once it stops answering), reconnect and
//!   `resume`.
//! - **Drain.** On SIGTERM a node stops its rooms (every write in flight finishes),
//!   gives their leases back at once and exits; other nodes take the rooms over.
//! - **Limits.** The per-address budgets hold site-wide, in the database
//!   (`limits::site`): this node beats its heartbeat there and sweeps what no longer
//!   counts.
//! - **Lobby.** Owners publish their rooms' summaries; every node keeps the site's
//!   list (`lobby.rs`).
//!
//! Subjects: `{prefix}.room.{id}.cmd` (to the owner), `{prefix}.room.{id}.to.{node}`
//! (to the sockets on a node), `{prefix}.lobby.put` / `.del`.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use anyhow::Context as _;
use futures_util::StreamExt as _;
use sannin_protocol::RoomSummary;
use tokio_util::sync::CancellationToken;
use tracing::{info, warn};
use uuid::Uuid;

use crate::registry::Registry;
use crate::room::RoomError;
use crate::room::{RoomDeps, RoomHandle};
use crate::store::{Fence, Store};

mod args;
mod bridge;
pub use args::{cluster_config, ClusterArgs};
mod lease;
mod lobby;
mod pairing;
mod proxy;
#[cfg(test)]
pub(crate) use proxy::placeholder;
mod wire;

/// How long a request to another node waits for its answer.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(1);

/// Resolved cluster settings.
#[derive(Debug, Clone)]
pub struct ClusterConfig {
    /// NATS URL.
    pub nats_url: String,
    /// Subject prefix.
    pub prefix: String,
    /// Lease time.
    pub lease: Duration,
}

impl ClusterConfig {
    /// Checks the settings against the database URL.
    ///
    /// # Errors
    /// A SQLite database, a bad prefix, a lease under a second.
    pub fn check(&self, database_url: &str) -> anyhow::Result<()> {
        if !(database_url.starts_with("postgres://") || database_url.starts_with("postgresql://")) {
            anyhow::bail!(
                "--nats-url (NATS_URL) needs a PostgreSQL database shared by every node: \
                 give --database-url postgres://… (SQLite is for a single node)"
            );
        }
        let ok = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '-';
        if self.prefix.is_empty() || !self.prefix.chars().all(ok) {
            anyhow::bail!(
                "--nats-prefix {:?}: use letters, digits, `_` and `-` only",
                self.prefix
            );
        }
        if self.lease < Duration::from_secs(1) {
            anyhow::bail!("--lease-seconds must be at least 1");
        }
        Ok(())
    }
}

/// A room this node owns.
#[derive(Debug)]
struct Owned {
    epoch: i64,
    /// The room's own shutdown token: cancelled when its lease is lost.
    cancel: CancellationToken,
}

/// This node's membership of the cluster.
#[derive(Debug)]
pub struct Cluster {
    /// This node's id (unique per process).
    pub node: String,
    nats: async_nats::Client,
    prefix: String,
    lease: Duration,
    owned: Mutex<HashMap<Uuid, Owned>>,
    proxies: Mutex<HashMap<Uuid, RoomHandle>>,
    lobby: lobby::Lobby,
    /// The database every node shares.
    store: Store,
    /// The send queue of a socket of another node, in frames (`--send-queue`).
    send_queue: crate::room::Bounds,
    /// Quick pairing across the site (`pairing.rs`).
    site_pairing: std::sync::OnceLock<Arc<pairing::SitePairing>>,
}

impl Cluster {
    /// Connects to NATS; `store` is the database shared by every node.
    ///
    /// # Errors
    /// Unreachable NATS.
    pub async fn connect(
        settings: &ClusterConfig,
        store: &Store,
        send_queue: crate::room::Bounds,
    ) -> anyhow::Result<Arc<Cluster>> {
        let node = Uuid::new_v4().simple().to_string()[..12].to_string();
        let nats = async_nats::ConnectOptions::new()
            .name(format!("sannin-{node}"))
            .request_timeout(Some(REQUEST_TIMEOUT))
            .connect(&settings.nats_url)
            .await
            .with_context(|| format!("connecting to NATS at {}", settings.nats_url))?;
        info!(node = %node, prefix = %settings.prefix, "joined the cluster");
        Ok(Arc::new(Cluster {
            nats,
            prefix: settings.prefix.clone(),
            lease: settings.lease,
            owned: Mutex::new(HashMap::new()),
            proxies: Mutex::new(HashMap::new()),
            lobby: lobby::Lobby::default(),
            node,
            store: store.clone(),
            send_queue,
            site_pairing: std::sync::OnceLock::new(),
        }))
    }

    fn subject(&self, id: Uuid, what: &str) -> String {
        format!("{}.room.{id}.{what}", self.prefix)
    }

    fn owned(&self) -> std::sync::MutexGuard<'_, HashMap<Uuid, Owned>> {
        self.owned.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn proxies(&self) -> std::sync::MutexGuard<'_, HashMap<Uuid, RoomHandle>> {
        self.proxies.lock().unwrap_or_else(|e| e.into_inner())
    }

    async fn publish(&self, subject: &str, cmd: wire::NodeCmd) {
        if let Err(e) = self.nats.publish(subject.to_string(), cmd.encode()).await {
            warn!(error = %e, "cannot publish to NATS");
        }
    }

    /// A request to the room's owner; None when nobody answers in time.
    async fn request(&self, subject: &str, cmd: wire::NodeCmd) -> Option<String> {
        let m = self
            .nats
            .request(subject.to_string(), cmd.encode())
            .await
            .ok()?;
        String::from_utf8(m.payload.to_vec()).ok()
    }

    async fn lobby_put(&self, s: &RoomSummary) {
        if let Ok(body) = serde_json::to_vec(s) {
            let subject = format!("{}.lobby.put", self.prefix);
            let _ = self.nats.publish(subject, body.into()).await;
        }
    }

    /// Announces room `id`'s live position (`fairplay::live`) to every node.
    async fn live_put(&self, id: Uuid, key: Option<u64>) {
        let subject = format!("{}.lobby.live", self.prefix);
        let body = format!("{id} {}", key.unwrap_or(0));
        let _ = self.nats.publish(subject, body.into()).await;
    }

    /// Whether a room another node owns (or this one) stands at the live position `key`.
    pub fn live_elsewhere(&self, key: u64) -> bool {
        self.lobby.is_live(key)
    }

    async fn lobby_del(&self, id: Uuid) {
        let subject = format!("{}.lobby.del", self.prefix);
        let _ = self.nats.publish(subject, id.to_string().into()).await;
    }

    /// The site-wide lobby, in id order (`lobby::Lobby::summaries_after`).
    pub fn summaries_after(
        &self,
        after: Option<Uuid>,
        n: usize,
        keep: impl Fn(&RoomSummary) -> bool,
    ) -> Vec<RoomSummary> {
        self.lobby.summaries_after(after, n, keep)
    }

    /// Starts the node's background work: lease renewal and the sweep for rooms
    /// nobody owns (every quarter lease), and the lobby listener.
    ///
    /// # Errors
    /// The lobby subscription failed.
    pub async fn start(self: &Arc<Self>, rooms: &Arc<Registry>) -> anyhow::Result<()> {
        // This node's sockets count site-wide from its first heartbeat on.
        crate::limits::site::heartbeat(self.store.pool(), &self.node, self.lease)
            .await
            .context("joining the cluster's heartbeats")?;
        let mut lobby = self
            .nats
            .subscribe(format!("{}.lobby.*", self.prefix))
            .await
            .context("subscribing to the lobby")?;
        let me = self.clone();
        let stop = rooms.shutdown.clone();
        tokio::spawn(async move {
            loop {
                let m = tokio::select! {
                    () = stop.cancelled() => break,
                    m = lobby.next() => match m { Some(m) => m, None => break },
                };
                if m.subject.ends_with(".put") {
                    if let Ok(s) = serde_json::from_slice::<RoomSummary>(&m.payload) {
                        me.lobby.put(s);
                    }
                } else if m.subject.ends_with(".live") {
                    let text = std::str::from_utf8(&m.payload).unwrap_or_default();
                    if let Some((id, key)) = text.split_once(' ') {
                        if let (Ok(id), Ok(key)) = (id.parse(), key.parse::<u64>()) {
                            me.lobby.put_live(id, (key != 0).then_some(key));
                        }
                    }
                } else if let Some(id) = std::str::from_utf8(&m.payload)
                    .ok()
                    .and_then(|s| s.parse().ok())
                {
                    me.lobby.del(id);
                }
            }
        });
        let me = self.clone();
        let rooms = rooms.clone();
        tokio::spawn(async move { me.keep_leases(rooms).await });
        Ok(())
    }

    /// Renews this node's leases, stops the rooms whose lease was lost, and takes over
    /// rooms nobody owns, every quarter lease until shutdown.
    async fn keep_leases(self: Arc<Self>, rooms: Arc<Registry>) {
        let pool = self.store.pool().clone();
        let mut last_ok = tokio::time::Instant::now();
        let mut tick = tokio::time::interval(self.lease / 4);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        let mut last_prune = tokio::time::Instant::now();
        loop {
            tokio::select! {
                () = rooms.shutdown.cancelled() => return,
                _ = tick.tick() => {}
            }
            if last_prune.elapsed() >= Duration::from_secs(60) {
                last_prune = tokio::time::Instant::now();
                if let Err(e) = crate::limits::site::prune(&pool).await {
                    warn!(error = %e, "cannot prune the client budgets");
                }
            }
            if let Err(e) = crate::limits::site::heartbeat(&pool, &self.node, self.lease).await {
                warn!(error = %e, "cannot renew this node's heartbeat");
            }
            match lease::renew_all(&pool, &self.node, self.lease).await {
                Ok(held) => {
                    last_ok = tokio::time::Instant::now();
                    if let Some(p) = self.site_pairing.get() {
                        p.keep(&self, &held, &rooms.shutdown).await;
                    }
                    let held: HashMap<String, i64> = held.into_iter().collect();
                    for (id, o) in self.owned().iter() {
                        if held.get(&id.to_string()) != Some(&o.epoch) {
                            warn!(room = %id, epoch = o.epoch, "lease lost: the room stops here");
                            o.cancel.cancel();
                        }
                    }
                }
                Err(e) => {
                    warn!(error = %e, "cannot renew the room leases");
                    if last_ok.elapsed() >= self.lease {
                        // Others may hold them by now: stop rather than serve stale rooms.
                        for o in self.owned().values() {
                            o.cancel.cancel();
                        }
                    }
                }
            }
            if rooms.shutdown.is_cancelled() {
                return;
            }
            let margin = crate::room::SLEEP_MARGIN.as_millis() as i64;
            match lease::orphans(&pool, 16, margin).await {
                Ok(ids) => {
                    for id in ids.iter().filter_map(|s| s.parse().ok()) {
                        if let Err(e) = self.fail_over(&rooms, id).await {
                            warn!(room = %id, error = %e, "cannot fail the room over to this node");
                        }
                    }
                }
                Err(e) => warn!(error = %e, "cannot look for rooms without an owner"),
            }
        }
    }

    /// The room, wherever it runs: this node's copy if it owns it, else a proxy to
    /// its live owner, else (no live owner) this node takes the lease and restores it.
    /// None if no such room is stored.
    ///
    /// # Errors
    /// Database errors; no node answers for the room within two lease times.
    pub async fn room(
        self: &Arc<Self>,
        rooms: &Arc<Registry>,
        id: Uuid,
    ) -> Result<Option<RoomHandle>, RoomError> {
        let give_up = tokio::time::Instant::now() + self.lease * 2 + Duration::from_secs(1);
        let pool = self.store.pool();
        loop {
            if let Some(h) = rooms.local(id) {
                return Ok(Some(h));
            }
            if rooms.shutdown.is_cancelled() {
                return Err(RoomError::ShuttingDown);
            }
            let held = lease::holder(pool, id).await.map_err(internal)?;
            match held {
                Some(l) if l.live && l.node != self.node => {
                    if let Some(h) = self.proxy_if_alive(rooms, id).await {
                        return Ok(Some(h));
                    }
                    // The owner does not answer: wait for its lease to run out.
                }
                // Ours and being restored by another request: wait for it.
                Some(l) if l.live => {}
                other => {
                    if other.is_none() && !lease::room_exists(pool, id).await.map_err(internal)? {
                        return Ok(None);
                    }
                    if let Some(h) = self.fail_over(rooms, id).await? {
                        return Ok(Some(h));
                    }
                    if !lease::room_exists(pool, id).await.map_err(internal)? {
                        return Ok(None);
                    }
                }
            }
            if tokio::time::Instant::now() >= give_up {
                return Err(RoomError::Internal(anyhow::anyhow!(
                    "no node answers for room {id}"
                )));
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// The proxy of a room owned elsewhere, if its owner answers.
    async fn proxy_if_alive(
        self: &Arc<Self>,
        rooms: &Arc<Registry>,
        id: Uuid,
    ) -> Option<RoomHandle> {
        let cached = self.proxies().get(&id).filter(|h| !h.is_closed()).cloned();
        if let Some(h) = cached {
            return Some(h);
        }
        self.request(&self.subject(id, "cmd"), wire::NodeCmd::Probe)
            .await?;
        let mut proxies = self.proxies();
        if let Some(h) = proxies.get(&id).filter(|h| !h.is_closed()) {
            return Some(h.clone());
        }
        let h = proxy::spawn(self.clone(), rooms.clone(), id);
        proxies.insert(id, h.clone());
        Some(h)
    }

    /// A proxy stopped: new sockets look the room up afresh.
    fn forget_proxy(&self, h: &RoomHandle) {
        let mut proxies = self.proxies();
        if proxies.get(&h.id).is_some_and(|p| p.same_room(h)) {
            proxies.remove(&h.id);
        }
    }

    /// Failover: takes the lease of a stored room nobody holds (its owner died or let
    /// it go) and restores the room here.
    /// None when another node (or another request here) got the lease first, or the
    /// room is not stored.
    async fn fail_over(
        self: &Arc<Self>,
        rooms: &Arc<Registry>,
        id: Uuid,
    ) -> Result<Option<RoomHandle>, RoomError> {
        if rooms.shutdown.is_cancelled() {
            return Err(RoomError::ShuttingDown);
        }
        let pool = self.store.pool();
        let Some(epoch) = lease::acquire(pool, id, &self.node, self.lease)
            .await
            .map_err(internal)?
        else {
            return Ok(None);
        };
        let give_back = || async {
            let _ = lease::release(pool, id, &self.node, epoch).await;
        };
        let stored = match rooms.read(id).await {
            Ok(Some(s)) => s,
            Ok(None) => {
                give_back().await;
                return Ok(None);
            }
            Err(e) => {
                give_back().await;
                return Err(e);
            }
        };
        let (deps, cancel) = self.deps(rooms, id, epoch)?;
        let room = match rooms.rebuild(id, deps, stored).await {
            Ok(r) => r,
            Err(e) => {
                give_back().await;
                return Err(e);
            }
        };
        let h = rooms.start_restored(room);
        self.adopt(rooms, h.clone(), epoch, cancel);
        info!(room = %id, epoch, "room failed over to this node");
        Ok(Some(h))
    }

    /// The lease of a room being created here (taken before the room is stored, so
    /// that no sweep elsewhere can take it first) and what the room runs with.
    ///
    /// # Errors
    /// Database errors; the id is leased already (never, for a fresh id).
    pub async fn claim_new(
        &self,
        rooms: &Arc<Registry>,
        id: Uuid,
    ) -> Result<(RoomDeps, i64, CancellationToken), RoomError> {
        let epoch = lease::acquire(self.store.pool(), id, &self.node, self.lease)
            .await
            .map_err(internal)?
            .ok_or_else(|| RoomError::Internal(anyhow::anyhow!("room {id} is leased already")))?;
        let (deps, cancel) = self.deps(rooms, id, epoch)?;
        Ok((deps, epoch, cancel))
    }

    /// Gives back the lease of a room whose creation failed.
    pub async fn unclaim(&self, id: Uuid, epoch: i64) {
        let _ = lease::release(self.store.pool(), id, &self.node, epoch).await;
    }

    /// What room `id` runs with under lease `epoch`: its own shutdown token, and a
    /// store whose every write is fenced by the lease (`Store::fenced`).
    fn deps(
        &self,
        rooms: &Registry,
        id: Uuid,
        epoch: i64,
    ) -> Result<(RoomDeps, CancellationToken), RoomError> {
        let cancel = rooms.shutdown.child_token();
        let fence = self.fence(epoch);
        let mut deps = rooms.deps(cancel.clone(), Some(fence.clone()))?;
        deps.store = deps.store.fenced(&id.to_string(), fence, cancel.clone());
        Ok((deps, cancel))
    }

    fn fence(&self, epoch: i64) -> Fence {
        Fence {
            node: self.node.clone(),
            epoch,
        }
    }

    /// The store a room made by room `parent` (a rematch) is created through: fenced
    /// by `parent`'s lease, so that a node that lost `parent` makes no room for it.
    ///
    /// # Errors
    /// `parent` does not run here (any more).
    pub fn store_for_child_of(&self, parent: Uuid) -> Result<Store, RoomError> {
        let owned = self
            .owned()
            .get(&parent)
            .map(|o| (o.epoch, o.cancel.clone()));
        let Some((epoch, cancel)) = owned else {
            return Err(RoomError::Internal(anyhow::anyhow!(
                "room {parent} is not owned by this node"
            )));
        };
        Ok(self
            .store
            .fenced(&parent.to_string(), self.fence(epoch), cancel))
    }

    /// A room now running here under lease `epoch`: its bridge starts.
    pub fn adopt(
        self: &Arc<Self>,
        rooms: &Arc<Registry>,
        h: RoomHandle,
        epoch: i64,
        cancel: CancellationToken,
    ) {
        self.owned().insert(
            h.id,
            Owned {
                epoch,
                cancel: cancel.clone(),
            },
        );
        tokio::spawn(bridge::run(self.clone(), rooms.clone(), h, epoch, cancel));
    }

    /// The room under lease `epoch` stopped here.
    fn disown(&self, id: Uuid, epoch: i64) {
        let mut owned = self.owned();
        if owned.get(&id).is_some_and(|o| o.epoch == epoch) {
            owned.remove(&id);
        }
    }

    /// Gives back every lease of this node (after its rooms stopped), so that other
    /// nodes take the rooms over at once instead of after the lease time.
    pub async fn release_all(&self) {
        match lease::release_all(self.store.pool(), &self.node).await {
            Ok(n) => info!(leases = n, "leases handed over"),
            Err(e) => warn!(error = %e, "cannot release the leases; they expire by themselves"),
        }
        if let Err(e) = crate::limits::site::leave(self.store.pool(), &self.node).await {
            warn!(error = %e, "cannot clear this node's socket counts; they expire by themselves");
        }
        let _ = self.nats.flush().await;
    }
}

impl Cluster {
    /// Quick pairing for this node: the site's matcher, run here while this node holds
    /// its lease, reached over NATS otherwise (`pairing.rs`).
    pub fn pairing(
        self: &Arc<Self>,
        matcher: Arc<crate::pairing::Pairing>,
    ) -> Arc<dyn crate::pairing::PairingApi> {
        let p = self
            .site_pairing
            .get_or_init(|| Arc::new(pairing::SitePairing::new(Arc::downgrade(self), matcher)));
        p.clone()
    }
}

fn internal(e: sqlx::Error) -> RoomError {
    RoomError::Internal(e.into())
}

#[cfg(test)]
mod tests;
