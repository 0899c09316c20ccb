//! Finished rooms read without being started: `GET /api/rooms/{id}` and its record of
//! a finished game that is not in memory are answered from a rebuilt copy kept in a
//! small cache (the most recently read [`CAPACITY`]), not by a room task held for
//! `--finished-idle-seconds`. A rebuild (reading the room and replaying its moves)
//! takes one of the reader's `--room-loads-per-minute`; a copy read again costs
//! nothing. A room started here (a WebSocket to it, a rematch) drops its copy: from
//! then on the running room answers, and a later copy is read afresh.

use std::collections::{HashMap, VecDeque};
use std::sync::Mutex;

use uuid::Uuid;

use crate::room::Room;

/// Finished rooms kept read.
pub const CAPACITY: usize = 64;

/// The cache.
#[derive(Default)]
pub struct FinishedRooms {
    inner: Mutex<Inner>,
}

impl std::fmt::Debug for FinishedRooms {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FinishedRooms")
            .field("kept", &self.len())
            .finish()
    }
}

#[derive(Default)]
struct Inner {
    rooms: HashMap<Uuid, Room>,
    /// Ids in the order they were read; the first goes when one more comes.
    order: VecDeque<Uuid>,
}

impl FinishedRooms {
    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        // Never held across an await; poisoned only by a panic elsewhere.
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// `f` of the kept copy of room `id`, if there is one.
    pub fn with<T>(&self, id: Uuid, f: impl FnOnce(&Room) -> T) -> Option<T> {
        self.lock().rooms.get(&id).map(f)
    }

    /// Keeps `room`, dropping the copy read longest ago beyond [`CAPACITY`].
    pub fn keep(&self, room: Room) {
        let mut inner = self.lock();
        let id = room.id();
        if inner.rooms.insert(id, room).is_none() {
            inner.order.push_back(id);
        }
        while inner.order.len() > CAPACITY {
            if let Some(old) = inner.order.pop_front() {
                inner.rooms.remove(&old);
            }
        }
    }

    /// Drops the copy of room `id` (it runs here now).
    pub fn forget(&self, id: Uuid) {
        let mut inner = self.lock();
        if inner.rooms.remove(&id).is_some() {
            inner.order.retain(|i| *i != id);
        }
    }

    /// Copies kept.
    pub fn len(&self) -> usize {
        self.lock().rooms.len()
    }

    /// Whether none is kept.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}
