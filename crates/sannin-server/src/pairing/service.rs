//! The matcher of this node: the tickets and the queues of the pools in memory (every
//! change written to the database first), waves of matching every second and at once
//! when a pool reaches three, long polls, the tables given up by no-shows, cooldowns.
//!
//! One matcher runs per site: on a single node, this one; in a cluster, the node that
//! holds the matcher's lease (`cluster`), which loads the stored tickets when it takes
//! over ([`Pairing::activate`]).

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use sannin_rules::Player;
use tokio::sync::{watch, Notify};
use tokio_util::sync::CancellationToken;
use tracing::{debug, info, warn};
use uuid::Uuid;

use super::matcher::{self, Person, Waiting};
use super::pools::{PoolId, PoolInfo};
use super::seating::{bot_level, shuffle};
use super::store::{self, Cooldown};
use super::PairingError;
use super::{Join, NoShow, PairingApi, TicketStatus};
use crate::bots::bot_name;
use crate::room::RoomError;
use crate::store::{Store, StoredSeat, BOT_TOKEN_HASH};
use crate::time::{Moment, TimeSource};
use futures_util::future::BoxFuture;

/// What the matcher asks of the application: a new room for a table of `pool`, its
/// seats taken.
pub trait TableOpener: Send + Sync + std::fmt::Debug {
    /// Creates and starts the room; its id. `requester`: the client address of the
    /// table's first ticket, whose lane and budgets its bots take.
    fn open(
        &self,
        pool: PoolId,
        seats: Vec<StoredSeat>,
        requester: Option<std::net::IpAddr>,
    ) -> BoxFuture<'_, Result<Uuid, RoomError>>;
}

/// How often a wave runs when nothing calls for one sooner.
const WAVE_EVERY: Duration = Duration::from_secs(1);

/// How long a waiting ticket of a live pool stays in its pool once its holder stops
/// asking after it (a page closed): no long poll of it open and none asked for this
/// long. A page asks again at once when its long poll is answered, and a long poll
/// whose connection closes ends then, so a closed page's ticket leaves within this.
const UNSEEN_DROPPED: Duration = Duration::from_secs(10);

/// How long a matched ticket stays known (its holder may ask again after a reload).
const MATCHED_KEPT: Duration = Duration::from_secs(3600);

/// How long a matched ticket of a correspondence pool stays known: its table may be
/// given up by a no-show for as long as its players have for their first moves (a
/// day each, `room::abort::correspondence_first_move_time`), the others then going
/// back to their pool.
const MATCHED_KEPT_CORRESPONDENCE: Duration = Duration::from_secs(4 * 86_400);

/// Where a ticket is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Place {
    /// In its pool's queue.
    Waiting,
    /// Taken by a wave; its room is being made.
    Seating,
    /// Seated.
    Matched {
        room: Uuid,
        seat: Player,
        at: Moment,
    },
}

#[derive(Debug)]
struct Entry {
    join: Join,
    /// In the queue since (kept when sent back to the front: the wait counts).
    since: Moment,
    /// Unix ms of its place in the queue, as stored.
    queued_at: i64,
    /// When its holder last asked after it (or made it), or its last long poll ended.
    seen: Moment,
    /// Long polls of it open now: its holder is there while one is.
    watching: u32,
    place: Place,
    /// Bumped at every change, for long polls.
    changed: watch::Sender<u64>,
}

impl Entry {
    /// Whether it leaves its pool once nobody has asked after it for
    /// [`UNSEEN_DROPPED`]: a waiting ticket of a live pool with no long poll open.
    fn unseen_leaves(&self) -> bool {
        self.place == Place::Waiting && !self.join.pool.is_correspondence() && self.watching == 0
    }
}

#[derive(Debug, Default)]
struct State {
    tickets: HashMap<String, Entry>,
    queues: BTreeMap<PoolId, VecDeque<String>>,
    /// The tickets seated at each room the matcher made, by seat.
    tables: HashMap<Uuid, Vec<(String, Player)>>,
    /// Pools whose last table could not be opened (`--max-rooms` full, the database
    /// down): no table is tried there before `until`, the wait doubling each time.
    blocked: HashMap<PoolId, Blocked>,
}

/// A pool whose tables cannot be opened just now.
#[derive(Debug, Clone, Copy)]
struct Blocked {
    until: Moment,
    wait: Duration,
}

/// The first and the longest wait of a pool whose tables cannot be opened.
const BLOCKED_WAIT: (Duration, Duration) = (Duration::from_secs(1), Duration::from_secs(30));

impl State {
    fn bump(&mut self, key: &str) {
        if let Some(e) = self.tickets.get(key) {
            e.changed.send_modify(|v| *v += 1);
        }
    }

    fn waiting(&self, pool: PoolId) -> usize {
        self.queues.get(&pool).map_or(0, VecDeque::len)
    }
}

/// The matcher.
#[derive(Debug)]
pub struct Pairing {
    state: Mutex<State>,
    store: Store,
    time: Arc<dyn TimeSource>,
    tables: Arc<dyn TableOpener>,
    wake: Notify,
    /// Tables that could not be opened (`sannin_pairing_tables_refused_total`).
    metrics_refused: std::sync::atomic::AtomicU64,
    /// The pairs kept apart, and when they were read (read again every
    /// [`APART_EVERY`], and at once after a moderator's change on this node).
    apart: Mutex<(Option<Moment>, Arc<matcher::Apart>)>,
}

/// How often the matcher reads the pairs kept apart again: a moderator's change on
/// another node of a cluster holds within this.
const APART_EVERY: Duration = Duration::from_secs(10);

/// A table a wave found: its pool, its tickets, and computer players to add.
struct Found {
    pool: PoolId,
    keys: Vec<String>,
    ratings: Vec<Option<i64>>,
    bots: usize,
}

impl Pairing {
    /// A matcher with no tickets; [`Pairing::activate`] loads the stored ones and runs
    /// the waves.
    pub fn new(store: Store, time: Arc<dyn TimeSource>, tables: Arc<dyn TableOpener>) -> Pairing {
        Pairing {
            state: Mutex::new(State::default()),
            store,
            time,
            tables,
            wake: Notify::new(),
            metrics_refused: std::sync::atomic::AtomicU64::new(0),
            apart: Mutex::new((None, Arc::default())),
        }
    }

    /// The pairs kept apart, read again when they are older than [`APART_EVERY`] (or
    /// were never read); a database that fails keeps the last ones read.
    async fn apart(&self) -> Arc<matcher::Apart> {
        let now = self.time.now();
        let (read_at, last) = {
            let a = self.apart.lock().unwrap_or_else(|e| e.into_inner());
            (a.0, a.1.clone())
        };
        if read_at.is_some_and(|t| now.since(t) < APART_EVERY) {
            return last;
        }
        let db = crate::fairplay::store::FairPlayDb::new(&self.store);
        match db.kept_apart().await {
            Ok(pairs) => {
                let fresh = Arc::new(matcher::Apart(pairs));
                *self.apart.lock().unwrap_or_else(|e| e.into_inner()) = (Some(now), fresh.clone());
                fresh
            }
            Err(e) => {
                warn!(error = %e, "pairing: cannot read the pairs kept apart");
                last
            }
        }
    }

    /// Reads the pairs kept apart again at the next wave (a moderator changed them).
    pub fn forget_apart(&self) {
        self.apart.lock().unwrap_or_else(|e| e.into_inner()).0 = None;
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        // A poisoned state only means a panic elsewhere; the maps are intact.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Loads the stored tickets and runs the waves until `stop`.
    ///
    /// # Errors
    /// Database errors.
    pub async fn activate(self: &Arc<Self>, stop: CancellationToken) -> anyhow::Result<()> {
        let stored = store::load(&self.store).await?;
        let (now, unix) = (self.time.now(), self.time.unix_ms());
        {
            let mut st = self.state();
            *st = State::default();
            for t in stored {
                let waited = Duration::from_millis(u64::try_from(unix - t.queued_at).unwrap_or(0));
                let place = match t.matched {
                    Some((room, seat)) => {
                        st.tables
                            .entry(room)
                            .or_default()
                            .push((t.join.key.clone(), seat));
                        Place::Matched {
                            room,
                            seat,
                            at: now,
                        }
                    }
                    None => {
                        st.queues
                            .entry(t.join.pool)
                            .or_default()
                            .push_back(t.join.key.clone());
                        Place::Waiting
                    }
                };
                let entry = Entry {
                    since: now.before(waited),
                    queued_at: t.queued_at,
                    seen: now,
                    watching: 0,
                    place,
                    changed: watch::channel(0).0,
                    join: t.join,
                };
                st.tickets.insert(entry.join.key.clone(), entry);
            }
            let waiting: usize = st.queues.values().map(VecDeque::len).sum();
            info!(waiting, "pairing: the matcher runs on this node");
        }
        let me = self.clone();
        tokio::spawn(async move { me.run(stop).await });
        Ok(())
    }

    /// Waves until `stop`: every second, at once when a pool reaches three, and when
    /// a ticket's wait for bots is over.
    async fn run(self: Arc<Self>, stop: CancellationToken) {
        let mut last_forget = self.time.now();
        loop {
            let next = self.next_due();
            tokio::select! {
                () = stop.cancelled() => return,
                () = self.wake.notified() => {}
                () = self.time.sleep_until(next.0) => {}
            }
            self.wave().await;
            if self.time.now().since(last_forget) >= Duration::from_secs(60) {
                last_forget = self.time.now();
                self.forget_matched().await;
            }
        }
    }

    /// The next wave when nothing calls for one sooner: a second from now, the first
    /// moment a ticket's wait for bots is over, or the moment a ticket nobody asks
    /// after is due to leave (at once if that has passed while a wave ran).
    fn next_due(&self) -> Moment {
        let now = self.time.now();
        let st = self.state();
        let waiting = || {
            st.queues
                .values()
                .flatten()
                .filter_map(|k| st.tickets.get(k))
        };
        let bots = waiting()
            .filter_map(|e| Some(e.since + Duration::from_millis(e.join.bots_after_ms?)))
            .filter(|due| *due > now);
        let unseen = waiting()
            .filter(|e| e.unseen_leaves())
            .map(|e| e.seen + UNSEEN_DROPPED + Duration::from_millis(1));
        bots.chain(unseen).fold(now + WAVE_EVERY, Moment::min)
    }

    /// One wave over every pool: the tables found are seated.
    pub async fn wave(&self) {
        self.drop_unseen().await;
        let apart = self.apart().await;
        let found = self.find_tables(&apart);
        for table in found {
            self.seat(table).await;
        }
    }

    /// Takes out of the live pools the tickets whose holders stopped asking after
    /// them ([`UNSEEN_DROPPED`]): a page closed while waiting must not be seated at a
    /// table the others then wait for in vain, nor make its pool look busy.
    /// Correspondence tickets stay.
    async fn drop_unseen(&self) {
        let now = self.time.now();
        let gone: Vec<String> = {
            let mut st = self.state();
            let gone: Vec<String> = st
                .tickets
                .iter()
                .filter(|(_, e)| e.unseen_leaves() && now.since(e.seen) > UNSEEN_DROPPED)
                .map(|(k, _)| k.clone())
                .collect();
            for k in &gone {
                if let Some(e) = st.tickets.remove(k) {
                    if let Some(q) = st.queues.get_mut(&e.join.pool) {
                        q.retain(|x| x != k);
                    }
                    e.changed.send_modify(|v| *v += 1);
                    info!(pool = %e.join.pool, "pairing: a ticket nobody asked after left its pool");
                }
            }
            gone
        };
        if !gone.is_empty() {
            if let Err(e) = store::delete(&self.store, &gone).await {
                warn!(error = %e, "pairing: cannot delete the tickets nobody asked after");
            }
        }
    }

    /// The tables of every pool now; their tickets leave the queues.
    fn find_tables(&self, apart: &matcher::Apart) -> Vec<Found> {
        let now = self.time.now();
        let mut st = self.state();
        let mut found = Vec::new();
        let pools: Vec<PoolId> = st.queues.keys().copied().collect();
        for pool in pools {
            if st.blocked.get(&pool).is_some_and(|b| b.until > now) {
                continue;
            }
            let keys: Vec<String> = st.queues[&pool].iter().cloned().collect();
            let queue: Vec<Waiting> = keys
                .iter()
                .map(|k| {
                    let e = &st.tickets[k];
                    Waiting {
                        person: e.join.person.clone(),
                        rating: e.join.rating,
                        bots_after: e.join.bots_after_ms.map(Duration::from_millis),
                        since: e.since,
                    }
                })
                .collect();
            for t in matcher::wave(&queue, pool.rated, now, apart) {
                let table_keys: Vec<String> = t.tickets.iter().map(|&i| keys[i].clone()).collect();
                let ratings = t.tickets.iter().map(|&i| queue[i].rating).collect();
                if let Some(q) = st.queues.get_mut(&pool) {
                    q.retain(|k| !table_keys.contains(k));
                }
                for k in &table_keys {
                    if let Some(e) = st.tickets.get_mut(k) {
                        e.place = Place::Seating;
                    }
                }
                found.push(Found {
                    pool,
                    keys: table_keys,
                    ratings,
                    bots: t.bots,
                });
            }
        }
        found
    }

    /// Makes the room of a table; its tickets learn their seats. A room that cannot
    /// be made sends them back to the front of their pool.
    async fn seat(&self, t: Found) {
        let mut seats_of: Vec<Player> = Player::ALL.to_vec();
        shuffle(&mut seats_of);
        let level = bot_level(&t.ratings);
        let mut seats = Vec::with_capacity(3);
        let mut humans = Vec::with_capacity(t.keys.len());
        {
            let st = self.state();
            for (i, key) in t.keys.iter().enumerate() {
                let join = st.tickets.get(key).map(|e| &e.join);
                let name = join.map_or_else(String::new, |j| j.name.clone());
                let account_id = join.and_then(|j| match &j.person {
                    Person::Account(id) => Some(id.clone()),
                    _ => None,
                });
                seats.push(StoredSeat {
                    seat: seats_of[i],
                    token_hash: key.clone(),
                    name,
                    bot: None,
                    account_id,
                });
                humans.push((key.clone(), seats_of[i]));
            }
        }
        for seat in seats_of.iter().skip(t.keys.len()).take(t.bots) {
            seats.push(StoredSeat {
                seat: *seat,
                token_hash: BOT_TOKEN_HASH.into(),
                name: bot_name(level),
                bot: Some(level),
                account_id: None,
            });
        }
        match store::claim(&self.store, &t.keys).await {
            Ok(true) => {}
            Ok(false) => {
                // Someone else took a ticket of it: the others wait again.
                warn!(pool = %t.pool, "pairing: a ticket of a table was taken meanwhile");
                let free = self.still_waiting(&t.keys).await;
                self.back_to_front(t.pool, &free).await;
                return;
            }
            Err(e) => {
                warn!(pool = %t.pool, error = %e, "pairing: cannot take a table's tickets");
                self.back_to_front(t.pool, &t.keys).await;
                return;
            }
        }
        let requester = {
            let st = self.state();
            t.keys
                .first()
                .and_then(|k| st.tickets.get(k))
                .and_then(|e| e.join.addr.as_deref()?.parse().ok())
        };
        let made = match self.tables.open(t.pool, seats, requester).await {
            Ok(room) => match store::matched(&self.store, room, &humans).await {
                Ok(()) => Ok(room),
                Err(e) => Err(RoomError::from(e)),
            },
            Err(e) => Err(e),
        };
        let room = match made {
            Ok(room) => room,
            Err(e) => {
                // The pool waits before its next table, longer each time, and says so
                // once: a full server must not make the matcher spin.
                let first = {
                    let mut st = self.state();
                    let wait = st
                        .blocked
                        .get(&t.pool)
                        .map_or(BLOCKED_WAIT.0, |b| (b.wait * 2).min(BLOCKED_WAIT.1));
                    let until = self.time.now() + wait;
                    st.blocked.insert(t.pool, Blocked { until, wait }).is_none()
                };
                if first {
                    warn!(pool = %t.pool, error = %e, "pairing: a table could not be opened; its tickets wait again, and the pool waits before its next table");
                } else {
                    debug!(pool = %t.pool, error = %e, "pairing: a table still cannot be opened");
                }
                self.metrics_refused
                    .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                self.send_back(t.pool, &t.keys, false).await;
                return;
            }
        };
        info!(pool = %t.pool, %room, people = humans.len(), bots = t.bots, "pairing: table found");
        let at = self.time.now();
        let mut st = self.state();
        if st.blocked.remove(&t.pool).is_some() {
            info!(pool = %t.pool, "pairing: the pool's tables open again");
        }
        for (key, seat) in &humans {
            if let Some(e) = st.tickets.get_mut(key) {
                e.place = Place::Matched {
                    room,
                    seat: *seat,
                    at,
                };
            }
            st.bump(key);
        }
        st.tables.insert(room, humans);
    }

    /// Those of `keys` whose tickets are still free in the database; the others are
    /// forgotten here.
    async fn still_waiting(&self, keys: &[String]) -> Vec<String> {
        let stored = store::load(&self.store).await.unwrap_or_default();
        let free: Vec<String> = keys
            .iter()
            .filter(|k| {
                stored
                    .iter()
                    .any(|t| t.join.key == **k && t.matched.is_none())
            })
            .cloned()
            .collect();
        let mut st = self.state();
        for k in keys.iter().filter(|k| !free.contains(k)) {
            st.tickets.remove(k);
        }
        free
    }

    /// Puts tickets back at the front of `pool`, in their order, stores it, and runs a
    /// wave at once.
    async fn back_to_front(&self, pool: PoolId, keys: &[String]) {
        self.send_back(pool, keys, true).await;
    }

    /// [`Pairing::back_to_front`], running a wave at once only with `wake`.
    async fn send_back(&self, pool: PoolId, keys: &[String], wake: bool) {
        let front = {
            let st = self.state();
            st.queues
                .get(&pool)
                .and_then(|q| q.front())
                .and_then(|k| st.tickets.get(k))
                .map_or_else(|| self.time.unix_ms(), |e| e.queued_at)
                - 1
        };
        if let Err(e) = store::requeue(&self.store, keys, front).await {
            warn!(error = %e, "pairing: cannot store tickets sent back to their pool");
        }
        let now = self.time.now();
        let mut st = self.state();
        for key in keys.iter().rev() {
            let Some(e) = st.tickets.get_mut(key) else {
                continue;
            };
            e.place = Place::Waiting;
            e.queued_at = front;
            e.seen = now;
            st.queues.entry(pool).or_default().push_front(key.clone());
            st.bump(key);
        }
        drop(st);
        if wake {
            self.wake.notify_one();
        }
    }

    /// Forgets tickets matched long ago.
    async fn forget_matched(&self) {
        let now = self.time.now();
        let old = {
            let mut st = self.state();
            let old: Vec<String> = st
                .tickets
                .iter()
                .filter(|(_, e)| {
                    let kept = match e.join.pool.is_correspondence() {
                        true => MATCHED_KEPT_CORRESPONDENCE,
                        false => MATCHED_KEPT,
                    };
                    matches!(e.place, Place::Matched { at, .. } if now.since(at) >= kept)
                })
                .map(|(k, _)| k.clone())
                .collect();
            for k in &old {
                if let Some(Entry {
                    place: Place::Matched { room, .. },
                    ..
                }) = st.tickets.remove(k)
                {
                    st.tables.remove(&room);
                }
            }
            old
        };
        // The correspondence tickets forgotten here; the live pools' by their age.
        if let Err(e) = store::delete(&self.store, &old).await {
            warn!(error = %e, "pairing: cannot forget old tickets");
        }
        let before = self.time.unix_ms() - i64::try_from(MATCHED_KEPT.as_millis()).unwrap_or(0);
        let correspondence: Vec<String> = PoolId::all()
            .filter(|p| p.is_correspondence())
            .map(PoolId::key)
            .collect();
        if let Err(e) = store::forget_matched(&self.store, before, &correspondence).await {
            warn!(error = %e, "pairing: cannot forget old tickets");
        }
    }

    async fn join_ticket(&self, join: Join) -> Result<(), PairingError> {
        let unix = self.time.unix_ms();
        for key in join.cooldown_keys() {
            if let Some(c) = store::cooldown(&self.store, &key).await? {
                if c.until > unix {
                    return Err(PairingError::Cooldown {
                        aborts: c.aborts,
                        until_ms: c.until,
                        retry_after: Duration::from_millis(
                            u64::try_from(c.until - unix).unwrap_or(0),
                        ),
                    });
                }
            }
        }
        // The same person's ticket in this pool (a page that lost it): the new one
        // replaces it, in its place.
        let earlier = {
            let st = self.state();
            let mine = |e: &&Entry| e.join.pool == join.pool && e.join.person == join.person;
            match st.tickets.values().find(mine) {
                Some(e) if e.place == Place::Waiting => {
                    Some((e.join.key.clone(), e.since, e.queued_at))
                }
                Some(_) => return Err(PairingError::AlreadyWaiting(join.pool.to_string())),
                None => None,
            }
        };
        let (since, queued_at) = earlier
            .as_ref()
            .map_or((self.time.now(), unix), |(_, since, at)| (*since, *at));
        if let Some((old, ..)) = &earlier {
            store::delete(&self.store, std::slice::from_ref(old)).await?;
        }
        store::insert(&self.store, &join, queued_at).await?;
        let mut st = self.state();
        let pool = join.pool;
        info!(pool = %pool, replaced = earlier.is_some(), "pairing: ticket");
        let queue = st.queues.entry(pool).or_default();
        match earlier
            .as_ref()
            .and_then(|(old, ..)| queue.iter().position(|k| k == old))
        {
            Some(i) => queue[i] = join.key.clone(),
            None => queue.push_back(join.key.clone()),
        }
        if let Some((old, ..)) = &earlier {
            if let Some(e) = st.tickets.remove(old) {
                e.changed.send_modify(|v| *v += 1);
            }
        }
        st.tickets.insert(
            join.key.clone(),
            Entry {
                join,
                since,
                queued_at,
                seen: self.time.now(),
                watching: 0,
                place: Place::Waiting,
                changed: watch::channel(0).0,
            },
        );
        if st.waiting(pool) >= 3 {
            self.wake.notify_one();
        }
        Ok(())
    }

    /// Where the ticket of `key` stands; its holder was seen asking.
    fn ticket_status(
        &self,
        key: &str,
    ) -> Result<(TicketStatus, watch::Receiver<u64>), PairingError> {
        let now = self.time.now();
        let mut st = self.state();
        let e = st
            .tickets
            .get_mut(key)
            .ok_or(PairingError::TicketNotFound)?;
        e.seen = now;
        let e = &st.tickets[key];
        let status = match e.place {
            Place::Matched { room, seat, .. } => TicketStatus::Matched { room, seat },
            Place::Waiting | Place::Seating => TicketStatus::Waiting {
                waiting: st.waiting(e.join.pool),
            },
        };
        Ok((status, e.changed.subscribe()))
    }

    async fn wait_status(&self, key: String, wait: Duration) -> Result<TicketStatus, PairingError> {
        let (status, mut changed) = self.ticket_status(&key)?;
        if wait.is_zero() || matches!(status, TicketStatus::Matched { .. }) {
            return Ok(status);
        }
        // Dropped with the request when its connection closes (the page has gone).
        let _watch = Watch::new(self, &key);
        let _ = tokio::time::timeout(wait, changed.changed()).await;
        self.ticket_status(&key).map(|(s, _)| s)
    }

    async fn leave_ticket(&self, key: String) -> Result<(), PairingError> {
        {
            let mut st = self.state();
            let e = st
                .tickets
                .remove(&key)
                .ok_or(PairingError::TicketNotFound)?;
            if let Some(q) = st.queues.get_mut(&e.join.pool) {
                q.retain(|k| *k != key);
            }
            e.changed.send_modify(|v| *v += 1);
        }
        store::delete(&self.store, &[key]).await?;
        Ok(())
    }

    fn pool_counts(&self) -> Vec<PoolInfo> {
        let st = self.state();
        PoolId::all()
            .map(|p| PoolInfo {
                name: p.preset().name,
                clock: p.preset().clock,
                rated: p.rated,
                waiting: st.waiting(p),
            })
            .collect()
    }

    async fn abort_table(&self, room: Uuid, seat: Player, why: NoShow) {
        let (no_show, others, pool) = {
            let mut st = self.state();
            let Some(table) = st.tables.remove(&room) else {
                return;
            };
            let no_show = table
                .iter()
                .find(|(_, s)| *s == seat)
                .map(|(k, _)| k.clone());
            let others: Vec<String> = table
                .iter()
                .filter(|(_, s)| *s != seat)
                .map(|(k, _)| k.clone())
                .collect();
            let pool = others
                .iter()
                .chain(no_show.iter())
                .find_map(|k| st.tickets.get(k).map(|e| e.join.pool));
            let no_show =
                no_show.and_then(|k| st.tickets.remove(&k).map(|e| (k, e.join.cooldown_keys())));
            (no_show, others, pool)
        };
        info!(%room, seat = seat.lower(), why = why.as_str(), "pairing: table given up");
        if let Some((key, holders)) = no_show {
            if let Err(e) = store::delete(&self.store, &[key]).await {
                warn!(error = %e, "pairing: cannot forget a no-show's ticket");
            }
            for holder in &holders {
                self.cool_down(holder).await;
            }
        }
        if let Some(pool) = pool {
            self.back_to_front(pool, &others).await;
        }
    }

    /// One more table given up by the holder kept under `key` (a person, or an
    /// address): from the second in a row, no ticket for a while that doubles each
    /// time (2 minutes, 4, 8… at most a day). A quiet day forgets the record.
    async fn cool_down(&self, key: &str) {
        let unix = self.time.unix_ms();
        let before = match store::cooldown(&self.store, key).await {
            Ok(c) => c.filter(|c| unix - c.last_abort < DAY_MS),
            Err(e) => {
                warn!(error = %e, "pairing: cannot read a cooldown");
                None
            }
        };
        let aborts = before.map_or(0, |c| c.aborts) + 1;
        let until = if aborts < 2 {
            unix
        } else {
            let minutes = 2_i64.saturating_pow(u32::try_from(aborts - 1).unwrap_or(u32::MAX));
            unix + minutes.saturating_mul(60_000).min(DAY_MS)
        };
        let c = Cooldown {
            aborts,
            last_abort: unix,
            until,
        };
        if let Err(e) = store::set_cooldown(&self.store, key, c).await {
            warn!(error = %e, "pairing: cannot store a cooldown");
        }
    }
}

/// A day in ms.
const DAY_MS: i64 = 86_400_000;

/// A long poll of a ticket, open while it lives: the ticket's holder is there.
struct Watch<'a> {
    pairing: &'a Pairing,
    key: String,
}

impl<'a> Watch<'a> {
    fn new(pairing: &'a Pairing, key: &str) -> Watch<'a> {
        if let Some(e) = pairing.state().tickets.get_mut(key) {
            e.watching += 1;
        }
        Watch {
            pairing,
            key: key.to_string(),
        }
    }
}

impl Drop for Watch<'_> {
    fn drop(&mut self) {
        let now = self.pairing.time.now();
        if let Some(e) = self.pairing.state().tickets.get_mut(&self.key) {
            e.watching = e.watching.saturating_sub(1);
            e.seen = now;
        }
    }
}

impl PairingApi for Pairing {
    fn apart_changed(&self) {
        self.forget_apart();
    }

    fn tables_refused(&self) -> u64 {
        self.metrics_refused
            .load(std::sync::atomic::Ordering::Relaxed)
    }

    fn long_polls(&self) -> u64 {
        self.state()
            .tickets
            .values()
            .map(|e| u64::from(e.watching))
            .sum()
    }

    fn join(&self, join: Join) -> BoxFuture<'_, Result<(), PairingError>> {
        Box::pin(self.join_ticket(join))
    }
    fn status(
        &self,
        key: String,
        wait: Duration,
    ) -> BoxFuture<'_, Result<TicketStatus, PairingError>> {
        Box::pin(self.wait_status(key, wait))
    }
    fn leave(&self, key: String) -> BoxFuture<'_, Result<(), PairingError>> {
        Box::pin(self.leave_ticket(key))
    }
    fn pools(&self) -> BoxFuture<'_, Result<Vec<PoolInfo>, PairingError>> {
        Box::pin(async move { Ok(self.pool_counts()) })
    }
    fn table_aborted(&self, room: Uuid, seat: Player, why: NoShow) -> BoxFuture<'_, ()> {
        Box::pin(self.abort_table(room, seat, why))
    }
}
