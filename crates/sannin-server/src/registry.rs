//! The rooms running on this node: their handles in id order, the count of open
//! rooms under `--max-rooms`, the rooms that could not be restored (`broken`), and how
//! a stored room is read back and rebuilt. The application (`app`) and, in a cluster,
//! the node's membership (`cluster`) both start and find rooms through it; it knows
//! nothing of either.

use std::collections::BTreeMap;
use std::ops::Bound;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, Weak};

use sannin_protocol::{RoomStatus, RoomSummary};
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;
use tracing::{error, info, warn};
use uuid::Uuid;

use crate::bots::Bots;
use crate::broken::BrokenRooms;
use crate::metrics::Metrics;
use crate::room::RoomError;
use crate::room::{Host, Room, RoomConfig, RoomDeps, RoomHandle, SLEEP_MARGIN};

/// How often a single node looks for sleeping rooms to wake.
pub const WAKE_SWEEP: std::time::Duration = std::time::Duration::from_secs(10);

/// Sleeping rooms woken per query.
const WAKE_BATCH: i64 = 64;
use crate::store::{unix_ms, Fence, LoadError, Store, StoredRoom, BOT_TOKEN_HASH};

mod dormant;
mod finished;
pub use dormant::{merge as merge_summaries, DormantRooms};
pub use finished::FinishedRooms;

/// The rooms of this node.
#[derive(Debug)]
pub struct Registry {
    config: Arc<RoomConfig>,
    store: Store,
    metrics: Arc<Metrics>,
    bots: Arc<Bots>,
    /// The bans and mutes in force.
    pub sanctions: Arc<crate::moderation::Sanctions>,
    /// Cancelled on shutdown; rooms then close their connections and stop.
    pub shutdown: CancellationToken,
    /// Tracks room tasks so that shutdown can wait for them.
    pub tracker: TaskTracker,
    /// What the rooms ask of the application (a rematch, a rated result).
    host: Weak<dyn Host>,
    /// Running rooms, in id order: the lobby pages through them from a cursor without
    /// sorting (a hyphenated lowercase UUID sorts as its bytes do). A `std` mutex: it
    /// is never held across an `.await` (mini-redis `db.rs` explains why that is the
    /// right lock here).
    map: Mutex<BTreeMap<Uuid, RoomHandle>>,
    /// Rooms that could not be restored.
    pub broken: BrokenRooms,
    /// Finished rooms read without being started.
    pub finished: FinishedRooms,
    /// Waiting rooms that sleep, listed in the lobby all the same.
    pub dormant: DormantRooms,
    /// The positions of games in play with a person seated (the engine's lock).
    pub live: Arc<crate::fairplay::LivePositions>,
    /// Rooms not finished, for `--max-rooms`.
    open: AtomicUsize,
    max_open: usize,
    next_conn: AtomicU64,
}

/// What [`Registry::new`] takes.
#[derive(Debug)]
pub struct RegistryParts {
    /// The rooms' settings.
    pub config: Arc<RoomConfig>,
    /// The database.
    pub store: Store,
    /// Counters.
    pub metrics: Arc<Metrics>,
    /// The bots' searches.
    pub bots: Arc<Bots>,
    /// `--max-rooms`.
    pub max_open: usize,
    /// The bans and mutes in force.
    pub sanctions: Arc<crate::moderation::Sanctions>,
}

impl Registry {
    /// No rooms yet; `host` is the application the rooms will ask.
    pub fn new(parts: RegistryParts, host: Weak<dyn Host>) -> Registry {
        Registry {
            config: parts.config,
            store: parts.store,
            metrics: parts.metrics,
            bots: parts.bots,
            sanctions: parts.sanctions,
            shutdown: CancellationToken::new(),
            tracker: TaskTracker::new(),
            host,
            map: Mutex::new(BTreeMap::new()),
            broken: BrokenRooms::default(),
            finished: FinishedRooms::default(),
            dormant: DormantRooms::default(),
            live: Arc::default(),
            open: AtomicUsize::new(0),
            max_open: parts.max_open,
            next_conn: AtomicU64::new(1),
        }
    }

    fn map(&self) -> std::sync::MutexGuard<'_, BTreeMap<Uuid, RoomHandle>> {
        // A poisoned map only means a panic elsewhere; the map itself is intact.
        self.map.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The database.
    pub fn store(&self) -> &Store {
        &self.store
    }

    /// A fresh connection id.
    pub fn next_conn_id(&self) -> u64 {
        self.next_conn.fetch_add(1, Ordering::Relaxed)
    }

    /// What a room runs with: stopped by `shutdown`, its action writes fenced by
    /// `fence` (cluster mode).
    ///
    /// # Errors
    /// `ShuttingDown` once the application is gone.
    pub fn deps(
        &self,
        shutdown: CancellationToken,
        fence: Option<Fence>,
    ) -> Result<RoomDeps, RoomError> {
        Ok(RoomDeps {
            fence,
            config: self.config.clone(),
            store: self.store.clone(),
            metrics: self.metrics.clone(),
            bots: self.bots.clone(),
            sanctions: self.sanctions.clone(),
            live: self.live.clone(),
            host: self.host.upgrade().ok_or(RoomError::ShuttingDown)?,
            shutdown,
            tracker: self.tracker.clone(),
        })
    }

    /// What a room of a single node runs with.
    ///
    /// # Errors
    /// As [`Rooms::deps`].
    pub fn local_deps(&self) -> Result<RoomDeps, RoomError> {
        self.deps(self.shutdown.clone(), None)
    }

    /// One more open room, if `--max-rooms` allows it.
    ///
    /// # Errors
    /// `TooManyRooms`.
    pub fn claim_open(&self) -> Result<(), RoomError> {
        let max = self.max_open;
        self.open
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| {
                (n < max).then_some(n + 1)
            })
            .map(|_| ())
            .map_err(|_| RoomError::TooMany(max))
    }

    /// A room finished (or was never made): it no longer counts against `--max-rooms`.
    pub fn room_closed(&self) {
        let _ = self
            .open
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| n.checked_sub(1));
    }

    /// Starts a room whose open place was claimed ([`Rooms::claim_open`]) and
    /// registers it.
    pub fn start_claimed(&self, room: Room) -> RoomHandle {
        let h = room.spawn();
        self.map().insert(h.id, h.clone());
        h
    }

    /// Starts a restored room and registers it, unless a copy was registered
    /// meanwhile (loaded concurrently): then that copy, and this one is dropped
    /// unstarted.
    pub fn start_restored(&self, room: Room) -> RoomHandle {
        self.finished.forget(room.id());
        self.dormant.forget(room.id());
        let mut map = self.map();
        if let Some(h) = map.get(&room.id()) {
            return h.clone();
        }
        if room.is_open() {
            self.open.fetch_add(1, Ordering::AcqRel);
        }
        let h = room.spawn();
        map.insert(h.id, h.clone());
        h
    }

    /// The room if it runs on this node.
    pub fn local(&self, id: Uuid) -> Option<RoomHandle> {
        self.map().get(&id).cloned()
    }

    /// Forgets a room whose actor stopped (an idle finished room).
    pub fn unload(&self, id: Uuid) {
        self.map().remove(&id);
    }

    /// Forgets the room of handle `h` if it is still the one registered.
    pub fn unload_if(&self, h: &RoomHandle) {
        let mut map = self.map();
        if map.get(&h.id).is_some_and(|r| r.same_room(h)) {
            map.remove(&h.id);
        }
    }

    /// Handles of every room in memory.
    pub fn handles(&self) -> Vec<RoomHandle> {
        self.map().values().cloned().collect()
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
        let from = after.map_or(Bound::Unbounded, Bound::Excluded);
        let map = self.map();
        let mut page = Vec::with_capacity(n.min(256));
        for h in map.range((from, Bound::Unbounded)).map(|(_, h)| h) {
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
    pub fn counts(&self) -> [(&'static str, usize); 3] {
        let mut c = [0usize; 3];
        for h in self.map().values() {
            let i = match h.summary.borrow().room.status {
                RoomStatus::Waiting => 0,
                RoomStatus::Playing => 1,
                RoomStatus::Finished => 2,
            };
            c[i] += 1;
        }
        [("waiting", c[0]), ("playing", c[1]), ("finished", c[2])]
    }

    /// Room `id` as stored; None if it is not.
    ///
    /// # Errors
    /// Database errors; `RoomBroken` (and the room marked so) when a stored value of
    /// the room does not read back.
    pub async fn read(&self, id: Uuid) -> Result<Option<StoredRoom>, RoomError> {
        match self.store.load_room(&id.to_string()).await {
            Ok(stored) => Ok(stored),
            Err(LoadError::Db(e)) => Err(e.into()),
            Err(LoadError::Unreadable { error, .. }) => {
                Err(self.is_broken(id, &error.to_string()).await)
            }
        }
    }

    /// Rebuilds a stored room to run with `deps`.
    ///
    /// # Errors
    /// `RoomBroken` (and the room marked so) when its actions do not replay.
    pub async fn rebuild(
        &self,
        id: Uuid,
        deps: RoomDeps,
        stored: StoredRoom,
    ) -> Result<Room, RoomError> {
        let marked = stored.marked_broken;
        let asleep = stored.asleep;
        match Room::restore(deps, stored) {
            Ok(room) => {
                if asleep {
                    // Awake again: restored at the next start, until it sleeps.
                    if let Err(e) = self.store.wake_room(&id.to_string()).await {
                        warn!(room = %id, error = %e, "cannot mark the room awake");
                    }
                    self.metrics.rooms_woken.fetch_add(1, Ordering::Relaxed);
                }
                if marked {
                    // It reads again (an upgrade that knows its values): listed again.
                    info!(room = %id, "a room marked broken is restored");
                    if let Err(e) = self.store.mark_broken(&id.to_string(), None).await {
                        warn!(room = %id, error = %e, "cannot clear the room's broken mark");
                    }
                }
                Ok(room)
            }
            Err(e) => Err(self.is_broken(id, &format!("{e:#}")).await),
        }
    }

    /// Records that room `id` cannot be restored (`reason`): logged with its id,
    /// counted in `/metrics`, listed nowhere (marked in the database), answered with
    /// `room_broken`. Returns that error.
    pub async fn is_broken(&self, id: Uuid, reason: &str) -> RoomError {
        if self.broken.insert(id, reason) {
            error!(room = %id, reason, "the room cannot be restored: it is marked broken");
            if let Err(e) = self.store.mark_broken(&id.to_string(), Some(reason)).await {
                warn!(room = %id, error = %e, "cannot mark the room broken in the database");
            }
        }
        RoomError::Broken(id.to_string())
    }

    /// The room `id` of a single node: in memory, else read from the database and
    /// started (a finished room after a restart, or unloaded once idle).
    ///
    /// # Errors
    /// Database errors; `RoomBroken`; `ShuttingDown`.
    pub async fn load(&self, id: Uuid) -> Result<Option<RoomHandle>, RoomError> {
        if let Some(h) = self.local(id) {
            return Ok(Some(h));
        }
        if self.broken.reason(id).is_some() {
            return Err(RoomError::Broken(id.to_string()));
        }
        if self.shutdown.is_cancelled() {
            return Err(RoomError::ShuttingDown);
        }
        let Some(stored) = self.read(id).await? else {
            return Ok(None);
        };
        let room = self.rebuild(id, self.local_deps()?, stored).await?;
        Ok(Some(self.start_restored(room)))
    }

    /// `f` of finished room `id`, which does not run here, read without starting it
    /// (`finished` module): from the kept copy, or rebuilt from the database once
    /// `take` allows (the reader's budget). `None` when it runs here or is not
    /// finished: the running room answers then.
    ///
    /// # Errors
    /// `RoomNotFound`, `RoomBroken`, `take`'s error, database errors.
    pub async fn read_finished<T, E: From<RoomError>>(
        &self,
        id: Uuid,
        take: impl FnOnce() -> Result<(), E>,
        f: impl Fn(&Room) -> T,
    ) -> Result<Option<T>, E> {
        if self.local(id).is_some() {
            return Ok(None);
        }
        if let Some(v) = self.finished.with(id, &f) {
            return Ok(Some(v));
        }
        if self.broken.reason(id).is_some() {
            return Err(RoomError::Broken(id.to_string()).into());
        }
        take()?;
        let Some(stored) = self.read(id).await.map_err(E::from)? else {
            return Err(RoomError::NotFound(id.to_string()).into());
        };
        if stored.status != RoomStatus::Finished {
            return Ok(None);
        }
        let deps = self.local_deps().map_err(E::from)?;
        let room = self.rebuild(id, deps, stored).await.map_err(E::from)?;
        let v = f(&room);
        self.finished.keep(room);
        Ok(Some(v))
    }

    /// Loads the sleeping rooms whose next timer is less than [`SLEEP_MARGIN`] away,
    /// every [`WAKE_SWEEP`], until shutdown (a single node: in a cluster the lease
    /// sweep takes them, `cluster::lease::orphans`).
    pub async fn wake_due(self: Arc<Self>) {
        let time = self.config.time.clone();
        loop {
            let next = time.now_ms() + WAKE_SWEEP.as_millis() as u64;
            let margin = SLEEP_MARGIN.as_millis() as i64;
            let mut more = false;
            match self
                .store
                .due_rooms(time.unix_ms() + margin, WAKE_BATCH)
                .await
            {
                Ok(ids) => {
                    more = ids.len() as i64 == WAKE_BATCH;
                    for id in ids.iter().filter_map(|s| s.parse::<Uuid>().ok()) {
                        if let Err(e) = self.load(id).await {
                            warn!(room = %id, error = ?e, "cannot wake a sleeping room");
                        }
                    }
                }
                Err(e) => warn!(error = %e, "cannot look for sleeping rooms to wake"),
            }
            if more {
                continue;
            }
            tokio::select! {
                () = self.shutdown.cancelled() => return,
                () = time.sleep_until(next) => {}
            }
        }
    }

    /// Reads again the list of the waiting rooms that sleep (every node's, in a
    /// cluster), leaving out those in memory here.
    pub async fn refresh_dormant(&self) {
        match self.store.sleeping_waiting_rooms(dormant::MAX_LISTED).await {
            Ok(rows) => self
                .dormant
                .replace(rows, |id| self.map().contains_key(&id)),
            Err(e) => warn!(error = %e, "cannot read the waiting rooms that sleep"),
        }
    }

    /// Keeps the list of the waiting rooms that sleep up to date, every
    /// [`WAKE_SWEEP`], until shutdown.
    pub async fn keep_dormant_listed(self: Arc<Self>) {
        let time = self.config.time.clone();
        loop {
            self.refresh_dormant().await;
            let next = time.now_ms() + WAKE_SWEEP.as_millis() as u64;
            tokio::select! {
                () = self.shutdown.cancelled() => return,
                () = time.sleep_until(next) => {}
            }
        }
    }

    /// Restarts every awake unfinished room stored in the database (a single node);
    /// sleeping rooms stay asleep.
    ///
    /// # Errors
    /// Database errors; a room that cannot be restored is marked broken and skipped.
    pub async fn restore_all(&self) -> anyhow::Result<usize> {
        let ids = self.store.awake_room_ids().await?;
        let mut n = 0;
        for id in ids {
            let Ok(uuid) = id.parse::<Uuid>() else {
                error!(room = %id, "a stored room id is not a uuid; skipped");
                continue;
            };
            let stored = match self.read(uuid).await {
                Ok(Some(s)) => s,
                Ok(None) | Err(RoomError::Broken(_)) => continue,
                Err(e) => return Err(anyhow::anyhow!("restoring room {id}: {e:?}")),
            };
            if expired_while_down(&stored, self.config.waiting_room_ttl) {
                // Nobody could have started it: not brought back.
                self.store.delete_room(&id).await?;
                info!(room = %id, "waiting room expired while the server was down");
                continue;
            }
            let deps = self.local_deps()?;
            if let Ok(room) = self.rebuild(uuid, deps, stored).await {
                self.start_restored(room);
                n += 1;
            }
        }
        Ok(n)
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
        && unix_ms() - stored.updated_at_ms >= ttl.as_millis() as i64
}
