//! Spectator places shared between addresses: one client address has at most
//! `--spectators-per-address` watchers in a room, and when the room is full of
//! spectators a newcomer takes the place of the longest-silent watcher of the address
//! holding the most places (if it holds more than the newcomer's). A few addresses
//! therefore cannot fill a room's places and keep everyone else out.

use tracing::info;

use super::conns::refuse;
use super::*;
use crate::limits::ClientAddr;

impl Room {
    /// Watchers (spectating, no seat) from `addr`, `except` left out.
    fn watchers_of(&self, addr: ClientAddr, except: ConnId) -> usize {
        self.fanout
            .conns
            .iter()
            .filter(|(id, c)| {
                **id != except && c.seat.is_none() && c.watching && c.out.addr == Some(addr)
            })
            .count()
    }

    /// Whether `conn` (no seat) may watch: refused and closed with `room_full` when its
    /// address already has `--spectators-per-address` watchers here.
    pub(super) fn admit_watcher(&mut self, conn: ConnId) -> bool {
        let cap = self.deps.config.spectators_per_address;
        let Some(c) = self.fanout.conns.get(&conn) else {
            return false;
        };
        let Some(addr) = c.out.addr.filter(|_| cap > 0 && !c.watching) else {
            return true;
        };
        if self.watchers_of(addr, conn) < cap {
            return true;
        }
        info!(room = %self.id, conn, client = %addr, "spectators per address: watcher refused");
        if let Some(c) = self.fanout.remove(conn) {
            refuse(
                &c.out,
                "your address already watches this room from as many connections as it may; close one first",
            );
        }
        false
    }

    /// The room is full: closes the longest-silent watcher of the address holding
    /// the most places, if it holds more than `newcomer`'s address. False if none.
    pub(super) fn displace_crowded(&mut self, newcomer: Option<ClientAddr>) -> bool {
        let mut places: HashMap<ClientAddr, usize> = HashMap::new();
        for c in self.fanout.conns.values() {
            if let (None, true, Some(a)) = (c.seat, c.watching, c.out.addr) {
                *places.entry(a).or_default() += 1;
            }
        }
        let Some((&crowded, &most)) = places.iter().max_by_key(|(_, n)| **n) else {
            return false;
        };
        let mine = newcomer.and_then(|a| places.get(&a).copied()).unwrap_or(0);
        if most <= mine + 1 {
            return false;
        }
        let quietest = self
            .fanout
            .conns
            .iter()
            .filter(|(_, c)| c.seat.is_none() && c.watching && c.out.addr == Some(crowded))
            .min_by_key(|(_, c)| c.heard)
            .map(|(id, _)| *id);
        let Some(c) = quietest.and_then(|id| self.fanout.remove(id)) else {
            return false;
        };
        info!(room = %self.id, client = %crowded, "room full: a watcher of the most crowded address gives its place up");
        refuse(
            &c.out,
            "this room is full, and your address holds the most places: this connection, the quietest, gave its place up",
        );
        true
    }
}
