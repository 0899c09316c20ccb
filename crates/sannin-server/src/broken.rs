//! Rooms that cannot be restored: a stored value that does not read back, an action
//! the rules no longer accept. Such a room must never take the server down: it is
//! logged with its id and the reason, kept here (and marked in the database, so
//! that lists and other nodes pass it over), listed nowhere, and every request for
//! it answers `room_broken`. The server serves every other room.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use uuid::Uuid;

/// The rooms this node found broken, with the reason of each.
#[derive(Debug, Default)]
pub struct BrokenRooms {
    rooms: Mutex<HashMap<Uuid, Arc<str>>>,
}

impl BrokenRooms {
    fn rooms(&self) -> std::sync::MutexGuard<'_, HashMap<Uuid, Arc<str>>> {
        // A poisoned map only means a panic elsewhere; the map itself is intact.
        self.rooms.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Why room `id` is broken, if it is.
    pub fn reason(&self, id: Uuid) -> Option<Arc<str>> {
        self.rooms().get(&id).cloned()
    }

    /// Records room `id` as broken; false if it was already.
    pub fn insert(&self, id: Uuid, reason: &str) -> bool {
        self.rooms().insert(id, reason.into()).is_none()
    }

    /// How many rooms are broken (the `sannin_rooms_broken` metric).
    pub fn len(&self) -> usize {
        self.rooms().len()
    }
}
