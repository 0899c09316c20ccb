//! State shared by the HTTP handlers, the connections and the rooms: the registry of
//! running rooms, the store, the config and the metrics.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use sannin_rules::Position;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;
use tracing::{error, info};
use uuid::Uuid;

use crate::bots::Bots;
use crate::config::Config;
use crate::error::ApiError;
use crate::metrics::Metrics;
use crate::room::{Room, RoomHandle, RoomSettings, Status};
use crate::store::{Store, StoredSeat};

/// Shared server state.
#[derive(Debug)]
pub struct Shared {
    /// Configuration.
    pub config: Config,
    /// Database.
    pub store: Store,
    /// Counters.
    pub metrics: Metrics,
    /// Runs the bots' searches of every room (bounded concurrency).
    pub bots: Bots,
    /// Cancelled on shutdown; rooms then close their connections and stop.
    pub shutdown: CancellationToken,
    /// Tracks room tasks so shutdown can wait for them.
    pub tracker: TaskTracker,
    /// Running rooms. A `std` mutex: it is never held across an `.await`
    /// (mini-redis `db.rs` explains why that is the right lock here).
    rooms: Mutex<HashMap<Uuid, RoomHandle>>,
    /// Rooms not finished, for `--max-rooms`.
    open_rooms: AtomicUsize,
    next_conn: AtomicU64,
}

impl Shared {
    /// New state; no rooms yet.
    pub fn new(config: Config, store: Store) -> Arc<Shared> {
        Arc::new(Shared {
            bots: Bots::new(config.bots),
            config,
            store,
            metrics: Metrics::default(),
            shutdown: CancellationToken::new(),
            tracker: TaskTracker::new(),
            rooms: Mutex::new(HashMap::new()),
            open_rooms: AtomicUsize::new(0),
            next_conn: AtomicU64::new(1),
        })
    }

    /// A fresh connection id.
    pub fn next_conn_id(&self) -> u64 {
        self.next_conn.fetch_add(1, Ordering::Relaxed)
    }

    fn rooms(&self) -> std::sync::MutexGuard<'_, HashMap<Uuid, RoomHandle>> {
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
        let max = self.config.max_rooms;
        self.open_rooms
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| {
                (n < max).then_some(n + 1)
            })
            .map_err(|_| ApiError::TooManyRooms(max))?;
        let id = Uuid::new_v4();
        let start_text = start.as_ref().map(|p| p.to_string());
        if let Err(e) = self
            .store
            .create_room(
                &id.to_string(),
                start_text.as_deref(),
                &settings.to_json(),
                &seats,
            )
            .await
        {
            self.room_closed();
            return Err(e.into());
        }
        let private = settings.private;
        let handle = Room::new(self.clone(), id, start, settings, seats).spawn();
        self.rooms().insert(id, handle);
        self.metrics.rooms_created.fetch_add(1, Ordering::Relaxed);
        info!(room = %id, custom = start_text.is_some(), private, "room created");
        Ok(id)
    }

    /// The running room with this id, loading it from the database if it is stored
    /// but not in memory (a finished room after a restart).
    ///
    /// # Errors
    /// Database errors.
    pub async fn room(self: &Arc<Self>, id: Uuid) -> Result<Option<RoomHandle>, ApiError> {
        if let Some(h) = self.rooms().get(&id) {
            return Ok(Some(h.clone()));
        }
        if self.shutdown.is_cancelled() {
            return Err(ApiError::ShuttingDown);
        }
        let Some(stored) = self
            .store
            .load_room(&id.to_string())
            .await
            .map_err(ApiError::Internal)?
        else {
            return Ok(None);
        };
        let room = Room::restore(self.clone(), stored).map_err(ApiError::Internal)?;
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

    /// Restarts every unfinished room stored in the database.
    ///
    /// # Errors
    /// Database errors; a room that does not replay is logged and skipped.
    pub async fn restore_all(self: &Arc<Self>) -> anyhow::Result<usize> {
        let ids = self.store.unfinished_room_ids().await?;
        let mut n = 0;
        for id in ids {
            let Some(stored) = self.store.load_room(&id).await? else {
                continue;
            };
            match Room::restore(self.clone(), stored) {
                Ok(room) => {
                    if room.is_open() {
                        self.open_rooms.fetch_add(1, Ordering::AcqRel);
                    }
                    let h = room.spawn();
                    self.rooms().insert(h.id, h);
                    n += 1;
                }
                Err(e) => error!(room = %id, error = %e, "cannot restore room; skipped"),
            }
        }
        Ok(n)
    }

    /// Forgets a room whose actor stopped (an idle finished room).
    pub fn unload_room(&self, id: Uuid) {
        self.rooms().remove(&id);
    }

    /// Handles of every room in memory.
    pub fn handles(&self) -> Vec<RoomHandle> {
        self.rooms().values().cloned().collect()
    }

    /// Rooms by status, for the metrics.
    pub fn room_counts(&self) -> [(&'static str, usize); 3] {
        let mut c = [0usize; 3];
        for h in self.rooms().values() {
            let i = match h.summary.borrow().status {
                Status::Waiting => 0,
                Status::Playing => 1,
                Status::Finished => 2,
            };
            c[i] += 1;
        }
        [("waiting", c[0]), ("playing", c[1]), ("finished", c[2])]
    }
}
