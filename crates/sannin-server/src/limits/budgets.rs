//! The budgets of every client: its rates ([`Budget`]s, per address and per account),
//! the streams it holds open, its rooms where only bots play and its rooms waiting for
//! players. Made once for the node with the site it belongs to (a cluster's
//! database, or none): every budget that a client could otherwise multiply by
//! reaching several nodes is then counted on the site, and no caller needs to know
//! which.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use tokio::sync::Semaphore;
use tracing::{info, warn};
use uuid::Uuid;

use super::site::{SocketGuard, Sockets};
use super::{work, Budget, ClientAddr, ClientLimits, Refused};
use crate::store::Store;

/// The site a node's budgets are counted on: a cluster's database, and the node's
/// name in it.
#[derive(Debug, Clone)]
pub struct Site {
    /// The database the nodes share.
    pub store: Store,
    /// This node's name.
    pub node: String,
}

/// Which per-address rate of [`Budgets`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rate {
    /// `--analyse-per-minute` (site-wide in a cluster).
    Analyses,
    /// `--my-games-per-minute`.
    MyGames,
    /// `--push-subscriptions-per-minute`.
    PushSubscriptions,
    /// `--states-per-minute`: fresh full states (`watch`, `resume`: a state and the
    /// chat history, tens of kilobytes each; `sync`: a state).
    States,
    /// `--room-loads-per-minute`: rooms read or started from the database.
    RoomLoads,
    /// `--replays-per-minute` (site-wide in a cluster).
    Replays,
    /// `--player-lookups-per-minute` (site-wide in a cluster).
    Lookups,
    /// `--reports-per-hour` (site-wide in a cluster).
    Reports,
}

/// The budgets of every client.
#[derive(Debug)]
pub struct Budgets {
    rooms: Budget,
    bot_rooms: Budget,
    /// Tickets, keyed `addr:…` and `account:…`.
    tickets: Budget<String>,
    analyses: Budget,
    my_games: Budget,
    push_subscriptions: Budget,
    states: Budget,
    room_loads: Budget,
    replays: Budget,
    lookups: Budget,
    reports: Budget,
    max_ws: usize,
    /// A single node's open streams per address; an address leaves the map with its
    /// last one.
    ws: Mutex<HashMap<ClientAddr, usize>>,
    max_bot_only: usize,
    /// A single node's rooms with bots of each address (memory only: after a restart
    /// they count toward the server-wide cap alone).
    bot_only: Mutex<HashMap<ClientAddr, Vec<Uuid>>>,
    max_waiting: usize,
    /// The rooms each address (`addr:…`) and account (`account:…`) made that have not
    /// started yet (memory only, as `bot_only`).
    waiting: Mutex<HashMap<String, Vec<Uuid>>>,
    /// A cluster's counts of streams and rooms of bots alone.
    site: Option<SiteCounts>,
    /// Slots of the analyses running (per node, apart from the game bots' queue).
    pub(super) analysis_slots: Arc<Semaphore>,
    pub(super) analysis_concurrency: usize,
    /// Replays, analyses and look-ups (`work.rs`).
    pub(super) work: work::Work,
}

#[derive(Debug)]
struct SiteCounts {
    store: Store,
    sockets: Arc<Sockets>,
}

/// A place among an address's streams (a WebSocket, the live feed, a long poll) under
/// `--max-ws-per-address`, held while it lives.
#[derive(Debug)]
pub struct StreamPlace(#[allow(dead_code)] Stream);

#[derive(Debug)]
enum Stream {
    Node {
        budgets: Arc<Budgets>,
        addr: ClientAddr,
    },
    Site(#[allow(dead_code)] SocketGuard),
}

impl Drop for Stream {
    fn drop(&mut self) {
        if let Stream::Node { budgets, addr } = self {
            let mut open = budgets.ws.lock().unwrap_or_else(|e| e.into_inner());
            if let Some(n) = open.get_mut(addr) {
                *n -= 1;
                if *n == 0 {
                    open.remove(addr);
                }
            }
        }
    }
}

/// A room with bots about to be made, as `--max-bot-only-rooms-per-address` counts
/// it; hand it back to [`Budgets::bot_only_made`] with the room made (or not).
#[derive(Debug)]
#[must_use]
pub enum BotOnlyReservation {
    /// Not counted.
    None,
    /// A single node's room of `addr`, counted once bots alone play it.
    Node(ClientAddr),
    /// A cluster's reserved row.
    Site(String),
}

impl Budgets {
    /// Full budgets for everyone, counted on `site` where they would otherwise be
    /// per node.
    pub fn new(l: &ClientLimits, site: Option<&Site>) -> Budgets {
        let store = site.map(|s| &s.store);
        Budgets {
            rooms: Budget::site("rooms created", l.rooms, store),
            bot_rooms: Budget::site("rooms with bots created", l.bot_rooms, store),
            tickets: Budget::site("pairing tickets", l.tickets, store),
            analyses: Budget::site("analyses", l.analyses, store),
            my_games: Budget::node("look-ups of my games", l.my_games),
            push_subscriptions: Budget::node("push subscriptions", l.push_subscriptions),
            states: Budget::node("fresh states", l.states),
            room_loads: Budget::node("rooms read from the database", l.room_loads),
            replays: Budget::site("replays", l.work.replays, store),
            lookups: Budget::site("look-ups of players", l.work.lookups, store),
            reports: Budget::site("reports", l.work.reports, store),
            max_ws: l.max_ws_per_address,
            ws: Mutex::new(HashMap::new()),
            max_bot_only: l.max_bot_only_rooms_per_address,
            bot_only: Mutex::new(HashMap::new()),
            max_waiting: l.max_waiting_rooms_per_address,
            waiting: Mutex::new(HashMap::new()),
            site: site.map(|s| SiteCounts {
                store: s.store.clone(),
                sockets: Sockets::new(s.store.pool().clone(), s.node.clone(), l.max_ws_per_address),
            }),
            analysis_slots: Arc::new(Semaphore::new(l.analysis_concurrency)),
            analysis_concurrency: l.analysis_concurrency,
            work: work::Work::new(&l.work),
        }
    }

    fn rate(&self, rate: Rate) -> &Budget {
        match rate {
            Rate::Analyses => &self.analyses,
            Rate::MyGames => &self.my_games,
            Rate::PushSubscriptions => &self.push_subscriptions,
            Rate::States => &self.states,
            Rate::RoomLoads => &self.room_loads,
            Rate::Replays => &self.replays,
            Rate::Lookups => &self.lookups,
            Rate::Reports => &self.reports,
        }
    }

    /// Takes one from `addr`'s budget `rate`.
    ///
    /// # Errors
    /// [`Refused::Rate`], with the time until the budget allows one again.
    pub async fn take(&self, rate: Rate, addr: ClientAddr) -> Result<(), Refused> {
        self.rate(rate).take(&addr).await
    }

    /// Takes one from `addr`'s budget `rate` at once: for the budgets every node
    /// keeps for itself ([`Rate::States`], [`Rate::RoomLoads`]).
    ///
    /// # Errors
    /// [`Refused::Rate`].
    pub fn take_now(&self, rate: Rate, addr: ClientAddr) -> Result<(), Refused> {
        self.rate(rate).take_now(&addr)
    }

    /// Takes one room creation (and one bot-room creation when `bots`) from `addr`'s
    /// budgets.
    ///
    /// # Errors
    /// [`Refused::Rate`].
    pub async fn take_room(&self, addr: ClientAddr, bots: bool) -> Result<(), Refused> {
        self.rooms.take(&addr).await?;
        if bots {
            self.bot_rooms.take(&addr).await?;
        }
        Ok(())
    }

    /// Takes one pairing ticket from the budget of each of `keys` (`addr:…`, and
    /// `account:…` when logged in).
    ///
    /// # Errors
    /// [`Refused::Rate`].
    pub async fn take_ticket(&self, keys: &[String]) -> Result<(), Refused> {
        for key in keys {
            self.tickets.take(key).await?;
        }
        Ok(())
    }

    /// Before `addr` makes a room with bots (`all_bots`: three of them), under
    /// `--max-bot-only-rooms-per-address`. A single node counts the address's rooms
    /// with bots that bots alone play now (`state`: `Some(true)`; three bots, or two
    /// playing on once the person is out; `None`: no longer running, forgotten); a
    /// cluster counts, on every node, its rooms of three bots.
    ///
    /// # Errors
    /// [`Refused::BotOnlyRoomsHere`].
    pub async fn reserve_bot_only(
        &self,
        addr: ClientAddr,
        all_bots: bool,
        state: impl Fn(Uuid) -> Option<bool>,
    ) -> Result<BotOnlyReservation, Refused> {
        if self.max_bot_only == 0 {
            return Ok(BotOnlyReservation::None);
        }
        let Some(site) = &self.site else {
            self.check_bot_only_here(addr, state)?;
            return Ok(BotOnlyReservation::Node(addr));
        };
        if !all_bots {
            return Ok(BotOnlyReservation::None);
        }
        match super::site::reserve_bot_only(site.store.pool(), addr, self.max_bot_only).await {
            Ok(Some(r)) => Ok(BotOnlyReservation::Site(r)),
            Ok(None) => {
                info!(client = %addr, "bot-only rooms per address (site-wide)");
                Err(Refused::BotOnlyRoomsHere(self.max_bot_only))
            }
            Err(e) => Err(Refused::Internal(e.into())),
        }
    }

    fn check_bot_only_here(
        &self,
        addr: ClientAddr,
        state: impl Fn(Uuid) -> Option<bool>,
    ) -> Result<(), Refused> {
        let mut rooms = self.bot_only.lock().unwrap_or_else(|e| e.into_inner());
        let Some(mine) = rooms.get_mut(&addr) else {
            return Ok(());
        };
        let mut n = 0;
        mine.retain(|id| match state(*id) {
            None => false,
            Some(bots_only) => {
                n += usize::from(bots_only);
                true
            }
        });
        if mine.is_empty() {
            rooms.remove(&addr);
        }
        if n >= self.max_bot_only {
            info!(client = %addr, rooms = n, "bot-only rooms per address");
            return Err(Refused::BotOnlyRoomsHere(self.max_bot_only));
        }
        Ok(())
    }

    /// The room reserved with `reservation` was made as `room` (None: it was not).
    pub async fn bot_only_made(&self, reservation: BotOnlyReservation, room: Option<Uuid>) {
        match reservation {
            BotOnlyReservation::None => {}
            BotOnlyReservation::Node(addr) => {
                if let Some(id) = room {
                    self.note_bot_room(addr, id);
                }
            }
            BotOnlyReservation::Site(r) => {
                let Some(site) = &self.site else {
                    return;
                };
                let pool = site.store.pool();
                let done = match room {
                    Some(id) => super::site::bot_only_created(pool, &r, &id.to_string()).await,
                    None => super::site::bot_only_failed(pool, &r).await,
                };
                if let Err(e) = done {
                    warn!(error = %e, "cannot count or give back a room of bots alone");
                }
            }
        }
    }

    /// A single node: `addr` asked for the room with bots `id` some other way (a
    /// table of quick pairing with bots); it counts once bots alone play it.
    pub fn note_bot_room(&self, addr: ClientAddr, id: Uuid) {
        if self.max_bot_only > 0 && self.site.is_none() {
            let mut rooms = self.bot_only.lock().unwrap_or_else(|e| e.into_inner());
            rooms.entry(addr).or_default().push(id);
        }
    }

    /// Refuses a room when one of `keys` (`addr:…`, `account:…`) already made
    /// `--max-waiting-rooms-per-address` rooms that `waiting` says have not started.
    ///
    /// # Errors
    /// [`Refused::WaitingRooms`].
    pub fn check_waiting_rooms(
        &self,
        keys: &[String],
        waiting: impl Fn(Uuid) -> bool,
    ) -> Result<(), Refused> {
        if self.max_waiting == 0 {
            return Ok(());
        }
        let mut rooms = self.waiting.lock().unwrap_or_else(|e| e.into_inner());
        for key in keys {
            let Some(mine) = rooms.get_mut(key) else {
                continue;
            };
            mine.retain(|id| waiting(*id));
            let n = mine.len();
            if mine.is_empty() {
                rooms.remove(key);
            }
            if n >= self.max_waiting {
                info!(who = %key, rooms = n, "waiting rooms per address or account");
                return Err(Refused::WaitingRooms(n));
            }
        }
        Ok(())
    }

    /// `keys` made the room `id`, not started yet.
    pub fn add_waiting_room(&self, keys: &[String], id: Uuid) {
        if self.max_waiting > 0 {
            let mut rooms = self.waiting.lock().unwrap_or_else(|e| e.into_inner());
            for key in keys {
                rooms.entry(key.clone()).or_default().push(id);
            }
        }
    }

    /// One more stream of `addr` (a WebSocket, the live feed, a long poll) for as long
    /// as the place lives, counted by this node or, in a cluster, by every node.
    ///
    /// # Errors
    /// [`Refused::Connections`] when `addr` already has `--max-ws-per-address` open.
    pub async fn open_stream(self: &Arc<Self>, addr: ClientAddr) -> Result<StreamPlace, Refused> {
        if let Some(site) = &self.site {
            return match site.sockets.take(addr).await {
                Ok(Some(g)) => Ok(StreamPlace(Stream::Site(g))),
                Ok(None) => {
                    info!(client = %addr, limit = self.max_ws, "too many WebSockets (site-wide)");
                    Err(Refused::Connections(self.max_ws))
                }
                Err(e) => Err(Refused::Internal(e.into())),
            };
        }
        let mut open = self.ws.lock().unwrap_or_else(|e| e.into_inner());
        let n = open.entry(addr).or_insert(0);
        if self.max_ws > 0 && *n >= self.max_ws {
            info!(client = %addr, limit = self.max_ws, "too many WebSockets");
            return Err(Refused::Connections(self.max_ws));
        }
        *n += 1;
        Ok(StreamPlace(Stream::Node {
            budgets: self.clone(),
            addr,
        }))
    }

    /// Forgets every address whose budgets are full again (as good as new).
    pub fn prune(&self) {
        for b in self.per_address() {
            b.prune();
        }
        self.tickets.prune();
    }

    fn per_address(&self) -> [&Budget; 10] {
        [
            &self.rooms,
            &self.bot_rooms,
            &self.analyses,
            &self.my_games,
            &self.push_subscriptions,
            &self.states,
            &self.room_loads,
            &self.replays,
            &self.lookups,
            &self.reports,
        ]
    }

    /// Addresses remembered by the budgets of room creations and analyses.
    pub fn tracked(&self) -> usize {
        [&self.rooms, &self.bot_rooms, &self.analyses]
            .iter()
            .map(|b| b.tracked())
            .sum()
    }
}

#[cfg(test)]
mod tests {
    use super::super::quota;
    use super::*;

    #[tokio::test]
    async fn a_budget_runs_out_per_address() {
        let b = Budgets::new(
            &ClientLimits {
                rooms: quota(1.0, 3),
                bot_rooms: quota(1.0, 1),
                max_ws_per_address: 2,
                ..ClientLimits::default()
            },
            None,
        );
        let a = ClientAddr::of("1.1.1.1".parse().unwrap());
        let other = ClientAddr::of("2.2.2.2".parse().unwrap());
        assert!(b.take_room(a, true).await.is_ok());
        assert!(
            b.take_room(a, true).await.is_err(),
            "one bot room in the burst"
        );
        assert!(b.take_room(a, false).await.is_ok());
        assert!(b.take_room(a, false).await.is_err());
        assert!(b.take_room(other, false).await.is_ok());
        let b = Arc::new(b);
        let g1 = b.open_stream(a).await.unwrap();
        let _g2 = b.open_stream(a).await.unwrap();
        assert!(matches!(
            b.open_stream(a).await,
            Err(Refused::Connections(2))
        ));
        drop(g1);
        assert!(b.open_stream(a).await.is_ok());
        assert!(quota(0.0, 5).is_none());
    }
}
