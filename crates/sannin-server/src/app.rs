//! State shared by the HTTP handlers and the connections: the registry of running
//! rooms, the store, the config and the metrics. Rooms see only the parts they need
//! ([`RoomDeps`]), with this registry behind the [`Registry`] trait.

use std::collections::BTreeMap;
use std::future::Future;
use std::ops::Bound;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use sannin_rules::Position;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;
use tracing::{error, info, warn};
use uuid::Uuid;

use crate::accounts::Accounts;
use crate::bots::Bots;
use crate::broken::BrokenRooms;
use crate::cluster::Cluster;
use crate::config::Config;
use crate::error::ApiError;
use crate::limits::Budgets;
use crate::metrics::Metrics;
use crate::room::{Registry, Room, RoomDeps, RoomHandle, RoomSettings};
use crate::store::column::Json as _;
use crate::store::{now_ms, Fence, LoadError, Store, StoredRoom, StoredSeat, BOT_TOKEN_HASH};
use sannin_protocol::{RoomStatus, RoomSummary};

/// Shared server state.
#[derive(Debug)]
pub struct Shared {
    /// Configuration.
    pub config: Arc<Config>,
    /// Database.
    pub store: Store,
    /// Counters.
    pub metrics: Arc<Metrics>,
    /// Runs the bots' searches of every room (bounded concurrency).
    pub bots: Arc<Bots>,
    /// Cancelled on shutdown; rooms then close their connections and stop.
    pub shutdown: CancellationToken,
    /// Tracks room tasks so shutdown can wait for them.
    pub tracker: TaskTracker,
    /// Per-client-address budgets (rooms created, WebSockets open).
    pub budgets: Arc<Budgets>,
    /// Accounts, sessions and ratings.
    pub accounts: Arc<Accounts>,
    /// Cluster mode: this node's membership (`cluster`); None for a single node.
    pub cluster: Option<Arc<Cluster>>,
    /// Running rooms, in id order: the lobby pages through them from a cursor
    /// without sorting (a hyphenated lowercase UUID sorts as its bytes do). A `std`
    /// mutex: it is never held across an `.await` (mini-redis `db.rs` explains why
    /// that is the right lock here).
    rooms: Mutex<BTreeMap<Uuid, RoomHandle>>,
    /// Rooms that could not be restored (`broken`).
    pub broken: BrokenRooms,
    /// Rooms not finished, for `--max-rooms`.
    open_rooms: AtomicUsize,
    next_conn: AtomicU64,
}

impl Shared {
    /// New state; no rooms yet.
    pub fn new(config: Config, store: Store, cluster: Option<Arc<Cluster>>) -> Arc<Shared> {
        Arc::new(Shared {
            bots: Arc::new(Bots::new(config.bots)),
            budgets: Arc::new(Budgets::new(&config.clients)),
            accounts: Arc::new(Accounts::new(
                &store,
                config.accounts.clone(),
                config.clients.trusted_proxies.clone(),
                cluster.is_some(),
            )),
            cluster,
            config: Arc::new(config),
            store,
            metrics: Arc::new(Metrics::default()),
            shutdown: CancellationToken::new(),
            tracker: TaskTracker::new(),
            rooms: Mutex::new(BTreeMap::new()),
            broken: BrokenRooms::default(),
            open_rooms: AtomicUsize::new(0),
            next_conn: AtomicU64::new(1),
        })
    }

    /// A fresh connection id.
    pub fn next_conn_id(&self) -> u64 {
        self.next_conn.fetch_add(1, Ordering::Relaxed)
    }

    /// What a room gets to run with.
    fn room_deps(self: &Arc<Self>) -> RoomDeps {
        self.room_deps_with(self.shutdown.clone(), None)
    }

    /// What a room gets to run with, stopped by `shutdown` and its action writes
    /// fenced by `fence` (cluster mode).
    pub(crate) fn room_deps_with(
        self: &Arc<Self>,
        shutdown: CancellationToken,
        fence: Option<Fence>,
    ) -> RoomDeps {
        RoomDeps {
            fence,
            config: self.config.clone(),
            store: self.store.clone(),
            metrics: self.metrics.clone(),
            bots: self.bots.clone(),
            registry: self.clone(),
            shutdown,
            tracker: self.tracker.clone(),
        }
    }

    fn rooms(&self) -> std::sync::MutexGuard<'_, BTreeMap<Uuid, RoomHandle>> {
        // A poisoned registry only means a panic elsewhere; the map itself is intact.
        self.rooms.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A room finished: it no longer counts against `--max-rooms`.
    pub fn room_closed(&self) {
        let _ = self
            .open_rooms
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| n.checked_sub(1));
    }

    /// Creates and starts a room (from a position string, if given) with `settings`
    /// and, for a rematch, its seats already taken.
    ///
    /// # Errors
    /// `TooManyRooms`, `BadPosition`, `ShuttingDown`, database errors.
    pub async fn create_room(
        self: &Arc<Self>,
        position: Option<String>,
        settings: RoomSettings,
        seats: Vec<StoredSeat>,
    ) -> Result<Uuid, ApiError> {
        if self.shutdown.is_cancelled() {
            return Err(ApiError::ShuttingDown);
        }
        let start = match position.as_deref().map(str::trim).filter(|s| !s.is_empty()) {
            None => None,
            Some(s) => {
                let p: Position = s
                    .parse()
                    .map_err(|e| ApiError::BadPosition(format!("{e}")))?;
                if p.to_move().is_none() {
                    return Err(ApiError::BadPosition(
                        "the game is already over in that position".into(),
                    ));
                }
                Some(p)
            }
        };
        // Cluster mode: a rematch is written only while its room still holds its lease.
        let store = match (&self.cluster, settings.rematch_of) {
            (Some(c), Some(parent)) => c.store_for_child_of(self, parent)?,
            _ => self.store.clone(),
        };
        let max = self.config.max_rooms;
        self.open_rooms
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| {
                (n < max).then_some(n + 1)
            })
            .map_err(|_| ApiError::TooManyRooms(max))?;
        let id = Uuid::new_v4();
        let start_text = start.as_ref().map(|p| p.to_string());
        // Cluster mode: the lease first, so that no other node takes the new room.
        let (deps, lease) = match &self.cluster {
            None => (self.room_deps(), None),
            Some(c) => match c.claim_new(self, id).await {
                Ok((deps, epoch, cancel)) => (deps, Some((c, epoch, cancel))),
                Err(e) => {
                    self.room_closed();
                    return Err(e);
                }
            },
        };
        if let Err(e) = store
            .create_room(
                &id.to_string(),
                start_text.as_deref(),
                &settings.to_json(),
                &seats,
            )
            .await
        {
            self.room_closed();
            if let Some((c, epoch, _)) = lease {
                c.unclaim(self, id, epoch).await;
            }
            return Err(e.into());
        }
        let private = settings.private;
        let handle = Room::new(deps, id, start, settings, seats).spawn();
        self.rooms().insert(id, handle.clone());
        if let Some((c, epoch, cancel)) = lease {
            c.adopt(self, handle, epoch, cancel);
        }
        self.metrics.rooms_created.fetch_add(1, Ordering::Relaxed);
        info!(room = %id, custom = start_text.is_some(), private, "room created");
        Ok(id)
    }

    /// The running room with this id, loading it from the database if it is stored
    /// but not in memory (a finished room after a restart).
    ///
    /// # Errors
    /// Database errors; `RoomBroken` for a room that cannot be restored.
    pub async fn room(self: &Arc<Self>, id: Uuid) -> Result<Option<RoomHandle>, ApiError> {
        if let Some(h) = self.rooms().get(&id) {
            return Ok(Some(h.clone()));
        }
        if self.broken.reason(id).is_some() {
            return Err(ApiError::RoomBroken(id.to_string()));
        }
        if let Some(c) = &self.cluster {
            // Owned here, proxied to its owner, or taken over (`cluster`).
            return c.room(self, id).await;
        }
        if self.shutdown.is_cancelled() {
            return Err(ApiError::ShuttingDown);
        }
        let Some(stored) = self.read_room(id).await? else {
            return Ok(None);
        };
        let room = self.rebuild(id, self.room_deps(), stored).await?;
        let mut rooms = self.rooms();
        if let Some(h) = rooms.get(&id) {
            // Loaded concurrently by someone else: keep theirs (ours is dropped unspawned).
            return Ok(Some(h.clone()));
        }
        if room.is_open() {
            self.open_rooms.fetch_add(1, Ordering::AcqRel);
        }
        let h = room.spawn();
        rooms.insert(id, h.clone());
        Ok(Some(h))
    }

    /// Room `id` as stored; None if it is not.
    ///
    /// # Errors
    /// Database errors; `RoomBroken` (and the room marked so) when a stored value of
    /// the room does not read back.
    pub(crate) async fn read_room(&self, id: Uuid) -> Result<Option<StoredRoom>, ApiError> {
        match self.store.load_room(&id.to_string()).await {
            Ok(stored) => Ok(stored),
            Err(LoadError::Db(e)) => Err(e.into()),
            Err(LoadError::Unreadable { error, .. }) => {
                Err(self.room_is_broken(id, &error.to_string()).await)
            }
        }
    }

    /// Rebuilds a stored room to run with `deps`.
    ///
    /// # Errors
    /// `RoomBroken` (and the room marked so) when its actions do not replay.
    pub(crate) async fn rebuild(
        &self,
        id: Uuid,
        deps: RoomDeps,
        stored: StoredRoom,
    ) -> Result<Room, ApiError> {
        let marked = stored.marked_broken;
        match Room::restore(deps, stored) {
            Ok(room) => {
                if marked {
                    // It reads again (an upgrade that knows its values): listed again.
                    info!(room = %id, "a room marked broken is restored");
                    if let Err(e) = self.store.mark_broken(&id.to_string(), None).await {
                        warn!(room = %id, error = %e, "cannot clear the room's broken mark");
                    }
                }
                Ok(room)
            }
            Err(e) => Err(self.room_is_broken(id, &format!("{e:#}")).await),
        }
    }

    /// Records that room `id` cannot be restored (`reason`): logged with its id,
    /// counted in `/metrics`, listed nowhere (marked in the database), answered with
    /// `room_broken`. Returns that error.
    pub(crate) async fn room_is_broken(&self, id: Uuid, reason: &str) -> ApiError {
        if self.broken.insert(id, reason) {
            error!(room = %id, reason, "the room cannot be restored: it is marked broken");
            if let Err(e) = self.store.mark_broken(&id.to_string(), Some(reason)).await {
                warn!(room = %id, error = %e, "cannot mark the room broken in the database");
            }
        }
        ApiError::RoomBroken(id.to_string())
    }

    /// Restarts every unfinished room stored in the database.
    ///
    /// # Errors
    /// Database errors; a room that cannot be restored is marked broken and skipped.
    pub async fn restore_all(self: &Arc<Self>) -> anyhow::Result<usize> {
        let ids = self.store.unfinished_room_ids().await?;
        let mut n = 0;
        for id in ids {
            let Ok(uuid) = id.parse::<Uuid>() else {
                error!(room = %id, "a stored room id is not a uuid; skipped");
                continue;
            };
            let stored = match self.read_room(uuid).await {
                Ok(Some(s)) => s,
                Ok(None) | Err(ApiError::RoomBroken(_)) => continue,
                Err(e) => return Err(anyhow::anyhow!("restoring room {id}: {e:?}")),
            };
            if expired_while_down(&stored, self.config.waiting_room_ttl) {
                // Nobody could have started it: not brought back.
                self.store.delete_room(&id).await?;
                info!(room = %id, "waiting room expired while the server was down");
                continue;
            }
            if let Ok(room) = self.rebuild(uuid, self.room_deps(), stored).await {
                if room.is_open() {
                    self.open_rooms.fetch_add(1, Ordering::AcqRel);
                }
                let h = room.spawn();
                self.rooms().insert(h.id, h);
                n += 1;
            }
        }
        Ok(n)
    }

    /// Forgets a room whose actor stopped (an idle finished room).
    pub fn unload_room(&self, id: Uuid) {
        self.rooms().remove(&id);
    }

    /// Forgets the room of handle `h` if it is still the one registered.
    pub fn unload_room_if(&self, h: &RoomHandle) {
        let mut rooms = self.rooms();
        if rooms.get(&h.id).is_some_and(|r| r.tx.same_channel(&h.tx)) {
            rooms.remove(&h.id);
        }
    }

    /// The room if it runs on this node.
    pub fn local_room(&self, id: Uuid) -> Option<RoomHandle> {
        self.rooms().get(&id).cloned()
    }

    /// Starts a restored room on this node and registers it.
    pub fn adopt_room(&self, room: Room) -> RoomHandle {
        if room.is_open() {
            self.open_rooms.fetch_add(1, Ordering::AcqRel);
        }
        let h = room.spawn();
        self.rooms().insert(h.id, h.clone());
        h
    }

    /// Handles of every room in memory.
    pub fn handles(&self) -> Vec<RoomHandle> {
        self.rooms().values().cloned().collect()
    }

    /// Up to `n` summaries of rooms in memory that `keep` accepts, in id order from
    /// the first id after `after`. Each room publishes its summary as it changes, so
    /// a page costs the rooms it walks over (a read of each one's latest summary) and
    /// the clones of those it returns: nothing is collected or sorted per request.
    pub fn summaries_after(
        &self,
        after: Option<Uuid>,
        n: usize,
        keep: impl Fn(&RoomSummary) -> bool,
    ) -> Vec<RoomSummary> {
        if let Some(c) = &self.cluster {
            return c.summaries_after(after, n, keep);
        }
        let from = after.map_or(Bound::Unbounded, Bound::Excluded);
        let rooms = self.rooms();
        let mut page = Vec::with_capacity(n.min(256));
        for h in rooms.range((from, Bound::Unbounded)).map(|(_, h)| h) {
            if page.len() >= n {
                break;
            }
            let s = h.summary.borrow();
            if keep(&s) {
                page.push(s.clone());
            }
        }
        page
    }

    /// Rooms by status, for the metrics.
    pub fn room_counts(&self) -> [(&'static str, usize); 3] {
        let mut c = [0usize; 3];
        for h in self.rooms().values() {
            let i = match h.summary.borrow().room.status {
                RoomStatus::Waiting => 0,
                RoomStatus::Playing => 1,
                RoomStatus::Finished => 2,
            };
            c[i] += 1;
        }
        [("waiting", c[0]), ("playing", c[1]), ("finished", c[2])]
    }
}

/// A waiting room with no human seated whose time to live ran out.
fn expired_while_down(stored: &StoredRoom, ttl: Option<std::time::Duration>) -> bool {
    let Some(ttl) = ttl else {
        return false;
    };
    stored.status == RoomStatus::Waiting
        && stored
            .seats
            .iter()
            .all(|s| s.bot.is_some() && s.token_hash == BOT_TOKEN_HASH)
        && now_ms() - stored.updated_at_ms >= ttl.as_millis() as i64
}

impl Registry for Shared {
    fn room_closed(&self) {
        Shared::room_closed(self);
    }

    fn unload_room(&self, id: Uuid) {
        Shared::unload_room(self, id);
    }

    fn create_room(
        self: Arc<Self>,
        position: Option<String>,
        settings: RoomSettings,
        seats: Vec<StoredSeat>,
    ) -> Pin<Box<dyn Future<Output = Result<Uuid, ApiError>> + Send>> {
        Box::pin(async move { Shared::create_room(&self, position, settings, seats).await })
    }

    fn rated_game_over(&self, id: Uuid) {
        self.accounts.game_over(&self.tracker, id.to_string());
    }
}
