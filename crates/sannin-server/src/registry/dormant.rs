//! The waiting rooms that sleep (docs/correspondence.md, "Rooms that sleep"): a
//! correspondence room waiting for its players leaves memory like a game between
//! moves, but the lobby goes on listing it, from the summary it stored as it fell
//! asleep. This node's own rooms are added as they sleep and dropped as they load; the
//! whole list is read again from the database every few seconds, which is how a node
//! of a cluster learns of the others'.

use std::collections::BTreeMap;
use std::ops::Bound;
use std::sync::Mutex;

use sannin_protocol::RoomSummary;
use uuid::Uuid;

/// The most sleeping waiting rooms listed (the caps per address and per account keep
/// far fewer).
pub const MAX_LISTED: i64 = 10_000;

/// The summaries of the waiting rooms that sleep, in id order.
#[derive(Debug, Default)]
pub struct DormantRooms {
    map: Mutex<BTreeMap<Uuid, RoomSummary>>,
}

impl DormantRooms {
    fn map(&self) -> std::sync::MutexGuard<'_, BTreeMap<Uuid, RoomSummary>> {
        self.map.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Room `id` fell asleep waiting.
    pub fn put(&self, id: Uuid, summary: RoomSummary) {
        self.map().insert(id, summary);
    }

    /// Room `id` is loaded again (or gone).
    pub fn forget(&self, id: Uuid) {
        self.map().remove(&id);
    }

    /// Whether room `id` sleeps waiting.
    pub fn contains(&self, id: Uuid) -> bool {
        self.map().contains_key(&id)
    }

    /// The list as the database has it now, less the rooms `awake` says are loaded.
    pub fn replace(&self, rows: Vec<(String, String)>, awake: impl Fn(Uuid) -> bool) {
        let fresh: BTreeMap<Uuid, RoomSummary> = rows
            .into_iter()
            .filter_map(|(id, json)| Some((id.parse().ok()?, serde_json::from_str(&json).ok()?)))
            .filter(|(id, _)| !awake(*id))
            .collect();
        *self.map() = fresh;
    }

    /// Up to `n` summaries that `keep` accepts, in id order after `after`.
    pub fn after(
        &self,
        after: Option<Uuid>,
        n: usize,
        keep: impl Fn(&RoomSummary) -> bool,
    ) -> Vec<RoomSummary> {
        let from = after.map_or(Bound::Unbounded, Bound::Excluded);
        self.map()
            .range((from, Bound::Unbounded))
            .map(|(_, s)| s)
            .filter(|s| keep(s))
            .take(n)
            .cloned()
            .collect()
    }
}

/// The first `n` of two lists in id order, merged in id order; a room in both (loaded
/// again since the list was read) counts once, as `awake` has it.
pub fn merge(awake: Vec<RoomSummary>, asleep: Vec<RoomSummary>, n: usize) -> Vec<RoomSummary> {
    if asleep.is_empty() {
        return awake;
    }
    let mut out = Vec::with_capacity(n.min(awake.len() + asleep.len()));
    let (mut a, mut b) = (awake.into_iter().peekable(), asleep.into_iter().peekable());
    while out.len() < n {
        let next = match (a.peek(), b.peek()) {
            (Some(x), Some(y)) if x.room.id == y.room.id => {
                b.next();
                a.next()
            }
            // Hyphenated lowercase UUIDs sort as their bytes do.
            (Some(x), Some(y)) if y.room.id < x.room.id => b.next(),
            (Some(_), _) => a.next(),
            (None, _) => b.next(),
        };
        match next {
            Some(s) => out.push(s),
            None => break,
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn summary(id: &str) -> RoomSummary {
        let mut s = crate::cluster::placeholder(Uuid::nil());
        s.room.id = id.to_string();
        s
    }

    fn ids(list: &[RoomSummary]) -> Vec<&str> {
        list.iter().map(|s| s.room.id.as_str()).collect()
    }

    #[test]
    fn merges_in_id_order_counting_a_room_in_both_once() {
        let awake = vec![summary("1"), summary("3"), summary("5")];
        let asleep = vec![summary("2"), summary("3"), summary("6")];
        assert_eq!(
            ids(&merge(awake.clone(), asleep.clone(), 10)),
            ["1", "2", "3", "5", "6"]
        );
        assert_eq!(ids(&merge(awake, asleep, 3)), ["1", "2", "3"]);
        assert_eq!(ids(&merge(vec![], vec![summary("2")], 3)), ["2"]);
    }

    #[test]
    fn a_list_read_again_leaves_out_the_rooms_loaded_meanwhile() {
        let d = DormantRooms::default();
        let (a, b) = (Uuid::new_v4(), Uuid::new_v4());
        let json = |id: Uuid| serde_json::to_string(&summary(&id.to_string())).unwrap();
        d.replace(
            vec![
                (a.to_string(), json(a)),
                (b.to_string(), json(b)),
                ("x".into(), "{".into()),
            ],
            |id| id == b,
        );
        assert!(d.contains(a) && !d.contains(b));
        assert_eq!(d.after(None, 10, |_| true).len(), 1);
        d.forget(a);
        assert!(d.after(None, 10, |_| true).is_empty());
    }
}
