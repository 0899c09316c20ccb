//! The positions on the board of games in play with a person seated: the engine is
//! locked for them (`POST /api/analyse` answers `403 live_game`), so that nobody reads
//! the computer's best move for a game being played, whoever asks and however the
//! position is given (a position string, or the moves that reach it).
//!
//! Each room sets its entry after every change ([`LivePositions::set`]); the set holds
//! the position's repetition key (RULES §11 step 8: board, hands, player to move,
//! players in the game, alliance), so the check an analysis makes is one hash lookup.
//! A sleeping room's position is kept with the room in the database (`rooms.sleep_key`),
//! so the lock holds while it is out of memory and after a restart. In a cluster each
//! owner announces its rooms' entries with their lobby entries (`cluster::lobby`), so
//! the lock holds whichever node serves the request.

use std::collections::HashMap;
use std::sync::Mutex;

use uuid::Uuid;

/// The key a position is kept under: its repetition key (never 0, which rooms keep
/// for "none").
pub fn key_of(position: &sannin_rules::Position) -> u64 {
    position.repetition_key().max(1)
}

/// The live positions of this node's rooms and, in a cluster, of the other nodes'.
#[derive(Debug, Default)]
pub struct LivePositions {
    inner: Mutex<Inner>,
}

#[derive(Debug, Default)]
struct Inner {
    /// Each room's live position (this node's rooms, and those other nodes announced).
    by_room: HashMap<Uuid, u64>,
    /// How many rooms have each position.
    counts: HashMap<u64, u32>,
}

impl Inner {
    fn set(&mut self, room: Uuid, key: Option<u64>) -> bool {
        let old = match key {
            Some(k) => self.by_room.insert(room, k),
            None => self.by_room.remove(&room),
        };
        if old == key {
            return false;
        }
        if let Some(k) = old {
            if let Some(n) = self.counts.get_mut(&k) {
                *n -= 1;
                if *n == 0 {
                    self.counts.remove(&k);
                }
            }
        }
        if let Some(k) = key {
            *self.counts.entry(k).or_default() += 1;
        }
        true
    }
}

impl LivePositions {
    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        // Never held across an await; a poisoned lock only means a panic elsewhere.
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Room `room` is now at the live position `key`, or (`None`) has none: its game is
    /// not in play, or no person sits at it. True when that changed its entry.
    pub fn set(&self, room: Uuid, key: Option<u64>) -> bool {
        self.lock().set(room, key)
    }

    /// Whether a game in play with a person seated stands at the position of `key`.
    pub fn contains(&self, key: u64) -> bool {
        self.lock().counts.contains_key(&key)
    }

    /// The live position of `room`, if it has one.
    pub fn get(&self, room: Uuid) -> Option<u64> {
        self.lock().by_room.get(&room).copied()
    }

    /// How many rooms have a live position.
    pub fn len(&self) -> usize {
        self.lock().by_room.len()
    }

    /// No room has a live position.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_position_stays_live_while_any_room_has_it() {
        let live = LivePositions::default();
        let (a, b) = (Uuid::new_v4(), Uuid::new_v4());
        assert!(live.set(a, Some(7)));
        assert!(!live.set(a, Some(7)), "unchanged");
        assert!(live.set(b, Some(7)));
        assert!(live.contains(7));
        assert!(live.set(a, Some(8)));
        assert!(live.contains(7) && live.contains(8));
        assert!(live.set(b, None));
        assert!(!live.contains(7));
        assert!(live.set(a, None));
        assert!(live.is_empty() && !live.contains(8));
        assert!(!live.set(a, None));
    }
}
