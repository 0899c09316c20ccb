//! The site-wide lobby: every node keeps the summaries of every room of the site.
//!
//! Each owner publishes its rooms' summaries on `{prefix}.lobby.put` when they change
//! and every few seconds (`bridge::LOBBY_REFRESH`), and `{prefix}.lobby.del` when it
//! lets a room go; every node (the owner too) listens and keeps them in id order, so
//! `GET /api/rooms` on any node pages through the same list, as the single-node lobby
//! does through its rooms. An entry not refreshed for [`STALE`] (its owner died) is
//! left out until the room's next owner publishes it again. A node that just started
//! knows every room after one refresh.

use std::collections::BTreeMap;
use std::ops::Bound;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use sannin_protocol::RoomSummary;
use uuid::Uuid;

/// How long an entry lasts without a refresh.
pub const STALE: Duration = Duration::from_secs(10);

/// The summaries of the site's rooms.
#[derive(Debug, Default)]
pub struct Lobby {
    rooms: Mutex<BTreeMap<Uuid, (RoomSummary, Instant)>>,
    /// The live position of each room its owner announced (`fairplay::live`), kept as
    /// long as a summary is.
    live: Mutex<std::collections::HashMap<Uuid, (u64, Instant)>>,
}

impl Lobby {
    fn rooms(&self) -> std::sync::MutexGuard<'_, BTreeMap<Uuid, (RoomSummary, Instant)>> {
        self.rooms.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A summary published by the room's owner.
    pub fn put(&self, s: RoomSummary) {
        if let Ok(id) = s.room.id.parse() {
            self.rooms().insert(id, (s, Instant::now()));
        }
    }

    /// The room's owner let it go.
    pub fn del(&self, id: Uuid) {
        self.rooms().remove(&id);
        self.live().remove(&id);
    }

    fn live(&self) -> std::sync::MutexGuard<'_, std::collections::HashMap<Uuid, (u64, Instant)>> {
        self.live.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A room's live position as its owner announced it (`None`: it has none).
    pub fn put_live(&self, id: Uuid, key: Option<u64>) {
        match key {
            Some(k) => self.live().insert(id, (k, Instant::now())),
            None => self.live().remove(&id),
        };
    }

    /// Whether a room of the site, announced within [`STALE`], stands at `key`.
    pub fn is_live(&self, key: u64) -> bool {
        let now = Instant::now();
        let mut live = self.live();
        live.retain(|_, (_, at)| now.duration_since(*at) < STALE);
        live.values().any(|(k, _)| *k == key)
    }

    /// Up to `n` fresh summaries that `keep` accepts, in id order after `after`.
    pub fn summaries_after(
        &self,
        after: Option<Uuid>,
        n: usize,
        keep: impl Fn(&RoomSummary) -> bool,
    ) -> Vec<RoomSummary> {
        let from = after.map_or(Bound::Unbounded, Bound::Excluded);
        let now = Instant::now();
        let mut rooms = self.rooms();
        rooms.retain(|_, (_, at)| now.duration_since(*at) < STALE);
        rooms
            .range((from, Bound::Unbounded))
            .map(|(_, (s, _))| s)
            .filter(|s| keep(s))
            .take(n)
            .cloned()
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn summary(id: Uuid, private: bool) -> RoomSummary {
        let mut s = crate::cluster::proxy::placeholder(id);
        s.room.private = private;
        s
    }

    #[test]
    fn pages_in_id_order_from_a_cursor() {
        let lobby = Lobby::default();
        let mut ids: Vec<Uuid> = (0..5).map(|_| Uuid::new_v4()).collect();
        for (i, id) in ids.iter().enumerate() {
            lobby.put(summary(*id, i == 2));
        }
        ids.sort();
        let all = lobby.summaries_after(None, 10, |_| true);
        let got: Vec<String> = all.iter().map(|s| s.room.id.clone()).collect();
        let want: Vec<String> = ids.iter().map(Uuid::to_string).collect();
        assert_eq!(got, want);
        let page = lobby.summaries_after(Some(ids[1]), 2, |_| true);
        assert_eq!(page.len(), 2);
        assert_eq!(page[0].room.id, ids[2].to_string());
        let public = lobby.summaries_after(None, 10, |s| !s.room.private);
        assert_eq!(public.len(), 4);
        lobby.del(ids[0]);
        assert_eq!(lobby.summaries_after(None, 10, |_| true).len(), 4);
    }
}
