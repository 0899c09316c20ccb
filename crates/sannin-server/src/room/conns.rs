//! Connections and fan-out: per-connection bounded queues, the room's `seq`, each
//! seat's own `state`, and dropping clients too slow to keep up.
//!
//! Admission (docs/protocol.md §7): `--max-connections-per-room` counts spectators
//! only, the connections that hold no seat. A seated player is never kept out: a
//! connection that arrives while the room is full of spectators is put on probation —
//! it receives nothing and has `--hello-seconds` to `resume` its seat or `join` a free
//! one. A `watch` from it takes the place of a connection that has stayed silent (no
//! `join`, `resume` or `watch`) for that long, if there is one; otherwise, and when the
//! time is up, it is refused with `room_full` and closed (1013). So neither idle
//! sockets nor a crowd of spectators can lock players out of their own game.
//!
//! Message and chat budgets of seated players are kept here too, per seat token, so
//! that a player's budgets follow it across reconnects (a fresh socket, or `resume`
//! on one, does not refill them).

use std::sync::atomic::Ordering;

use tracing::{debug, info, warn};

use super::*;
use crate::limits::Bucket;
use sannin_protocol::StateText;

#[derive(Debug)]
pub(super) struct Conn {
    pub(super) out: ConnHandle,
    pub(super) seat: Option<Player>,
    /// The raw token this connection holds (memory only, never logged), so that a
    /// reseat after a voluntary alliance can send it a fresh `seated`.
    pub(super) token: Option<String>,
    /// Spectating (sent `watch`, holds no seat): receives the spectators' chat.
    pub(super) watching: bool,
    /// Spectator's chat name (from `watch`).
    pub(super) name: Option<String>,
    /// Latest measured round trip, ms.
    pub(super) rtt_ms: Option<u64>,
    /// Chat rate limit.
    pub(super) chat_bucket: Bucket,
    /// Chat refused until then: a spectator that ran past its chat rate limit.
    pub(super) muted_until: Option<Moment>,
    /// Sent `join`, `resume` or `watch`. A connection that stays silent longer than
    /// `--hello-seconds` gives its place up to a newcomer when the room is full.
    pub(super) greeted: bool,
    /// When it connected.
    pub(super) since: Moment,
    /// When it last sent a message.
    pub(super) heard: Moment,
    /// Frames for it during the current command, queued together by
    /// [`Fanout::flush`].
    staged: Vec<Outbound>,
}

impl Conn {
    /// A connection whose chat is allowed by `chat`.
    pub(super) fn new(out: ConnHandle, chat: Bucket, now: Moment) -> Conn {
        Conn {
            out,
            seat: None,
            token: None,
            watching: false,
            name: None,
            rtt_ms: None,
            chat_bucket: chat,
            muted_until: None,
            greeted: false,
            since: now,
            heard: now,
            staged: Vec::new(),
        }
    }
}

/// The budgets of one seat token: every message, and chat messages.
#[derive(Debug)]
pub(super) struct SeatBudget {
    token_hash: String,
    messages: Bucket,
    chat: Bucket,
}

/// Which budget of a seat token.
#[derive(Debug, Clone, Copy)]
pub(super) enum SeatRate {
    Messages,
    Chat,
}

/// A connection on probation: it arrived while the room was full of spectators.
#[derive(Debug)]
pub(super) struct Pending {
    out: ConnHandle,
    /// Refused with `room_full` unless seated by then.
    until: Moment,
    /// When it connected.
    since: Moment,
}

/// Stages `out` for `c` (connection `id`), noting `id` in `dirty` at its first frame.
fn stage(dirty: &mut Vec<ConnId>, id: ConnId, c: &mut Conn, out: Outbound) {
    if c.staged.is_empty() {
        dirty.push(id);
    }
    c.staged.push(out);
}

/// Queues the frames staged for `c`; `id` goes to `dead` if its queue is full.
fn send_staged(c: &mut Conn, id: ConnId, dead: &mut Vec<ConnId>) {
    for out in c.staged.drain(..) {
        if c.out.tx.try_send(out).is_err() {
            dead.push(id);
            break;
        }
    }
}

/// A connection let in off probation: it has said `join`, `resume` or `watch`.
fn greeted(out: ConnHandle, cfg: &RoomConfig, now: Moment) -> Conn {
    let mut c = Conn::new(out, cfg.chat_bucket(), now);
    c.greeted = true;
    c
}

/// Queues a `room_full` error and a close frame (1013, `unavailable`) for a
/// connection the room will not keep.
pub(super) fn refuse(out: &ConnHandle, message: &str) {
    let text = Text::from(ServerMsg::error(ErrorCode::RoomFull, message).to_text());
    let queued = out.tx.try_send(Outbound::Text(text)).is_ok()
        && out
            .tx
            .try_send(Outbound::Close(
                1013,
                sannin_protocol::CloseReason::Unavailable.as_str(),
            ))
            .is_ok();
    if !queued {
        out.kill.cancel();
    }
}

/// The room's connections and what goes out to them: one bounded queue per
/// connection, written with `try_send`; a connection whose queue is full is marked
/// and dropped after the current command instead of stalling the room.
///
/// What a command sends is staged per connection and queued in one burst at its end
/// ([`Fanout::flush`]; before the room waits on the database too): the `action`
/// event and the `state` that follows it then reach a connection's writer together,
/// which wakes once and writes them to the socket in one go, rather than waking for
/// the event while the room is still building the state.
#[derive(Debug, Default)]
pub(super) struct Fanout {
    /// Every connection of the room.
    pub(super) conns: HashMap<ConnId, Conn>,
    /// The `seq` of the last event sent.
    pub(super) seq: u64,
    /// Connections whose queue overflowed.
    dead: Vec<ConnId>,
    /// Connections with staged frames, in the order they got their first.
    dirty: Vec<ConnId>,
    /// Connections on probation (module docs); not in `conns`, so they receive nothing.
    pending: HashMap<ConnId, Pending>,
    /// Message and chat budgets of the seated players, by the hash of their seat
    /// token: a few entries (only tokens that hold a seat are kept), looked up at
    /// every message.
    seat_buckets: Vec<SeatBudget>,
    /// Reused list of the connections to send a snapshot to.
    scratch: Vec<(ConnId, Option<Player>)>,
}

impl Fanout {
    /// Queues `msg` for `conn`.
    pub(super) fn deliver(&mut self, conn: ConnId, msg: Text) {
        self.push(conn, Outbound::Text(msg));
    }

    /// Asks `conn`'s writer for a ping now (its pong measures the round trip).
    pub(super) fn ping(&mut self, conn: ConnId) {
        self.push(conn, Outbound::Ping);
    }

    fn push(&mut self, conn: ConnId, out: Outbound) {
        if let Some(c) = self.conns.get_mut(&conn) {
            stage(&mut self.dirty, conn, c, out);
        }
    }

    /// The next event's `seq`, and its text (built by `text`) staged for everyone.
    pub(super) fn broadcast(&mut self, text: impl FnOnce(u64) -> Text) {
        self.seq += 1;
        let t = text(self.seq);
        for (id, c) in &mut self.conns {
            stage(&mut self.dirty, *id, c, Outbound::Text(t.clone()));
        }
    }

    /// Queues every staged frame, connection by connection.
    pub(super) fn flush(&mut self) {
        for id in self.dirty.drain(..) {
            if let Some(c) = self.conns.get_mut(&id) {
                send_staged(c, id, &mut self.dead);
            }
        }
    }

    /// Removes `conn`, its staged frames queued first.
    pub(super) fn remove(&mut self, conn: ConnId) -> Option<Conn> {
        let mut c = self.conns.remove(&conn)?;
        send_staged(&mut c, conn, &mut self.dead);
        Some(c)
    }

    /// A connection whose queue overflowed, to drop now.
    pub(super) fn next_dead(&mut self) -> Option<ConnId> {
        self.dead.pop()
    }

    /// Connections that hold no seat: what `--max-connections-per-room` counts.
    pub(super) fn spectators(&self) -> usize {
        self.conns.values().filter(|c| c.seat.is_none()).count()
    }

    /// When the first probation runs out.
    pub(super) fn next_probation_end(&self) -> Option<Moment> {
        self.pending.values().map(|p| p.until).min()
    }

    /// Every connection of the room, those on probation included.
    pub(super) fn handles(&self) -> impl Iterator<Item = &ConnHandle> {
        let pending = self.pending.values().map(|p| &p.out);
        self.conns.values().map(|c| &c.out).chain(pending)
    }

    /// Whether `conn` is on probation.
    pub(super) fn on_probation(&self, conn: ConnId) -> bool {
        self.pending.contains_key(&conn)
    }

    /// Forgets `conn` if it was on probation (its socket closed); true if it was.
    pub(super) fn end_probation_of(&mut self, conn: ConnId) -> bool {
        self.pending.remove(&conn).is_some()
    }
}

impl Room {
    /// A connection arriving at a room full of spectators (module docs).
    pub(super) fn put_on_probation(&mut self, conn: ConnId, out: ConnHandle) {
        let cfg = self.deps.config.clone();
        // Probation is cheap (no state, no events), but bounded too: past the cap the
        // oldest newcomer goes. A player resumes right after connecting, long before.
        if self.fanout.pending.len() >= cfg.max_connections_per_room {
            let oldest = self
                .fanout
                .pending
                .iter()
                .min_by_key(|(_, p)| p.since)
                .map(|(id, _)| *id);
            if let Some(p) = oldest.and_then(|id| self.fanout.pending.remove(&id)) {
                refuse(&p.out, "this room is full of spectators; try again later");
            }
        }
        debug!(conn, "room full of spectators: connection on probation");
        let now = self.now();
        self.fanout.pending.insert(
            conn,
            Pending {
                out,
                until: now + cfg.hello,
                since: now,
            },
        );
    }

    /// A message from a connection on probation: `resume` and `join` are handled (the
    /// connection stays if they seat it), `watch` is let in if there is room (module
    /// docs), anything else is refused.
    pub(super) async fn on_probation_msg(
        &mut self,
        conn: ConnId,
        msg: ClientMsg,
        received: StdInstant,
    ) {
        let Some(p) = self.fanout.pending.remove(&conn) else {
            return;
        };
        let cfg = self.deps.config.clone();
        match msg {
            ClientMsg::Resume { .. } | ClientMsg::Join { .. } => {
                self.fanout
                    .conns
                    .insert(conn, greeted(p.out, &cfg, self.now()));
                self.on_msg(conn, msg, received).await;
                if self.seat_of(conn).is_some() {
                    // The first round trip, for lag credit (docs/protocol.md §11.3).
                    self.fanout.ping(conn);
                } else {
                    // Refused (it was told why): back on probation, same deadline.
                    if let Some(c) = self.fanout.remove(conn) {
                        self.fanout.pending.insert(
                            conn,
                            Pending {
                                out: c.out,
                                until: p.until,
                                since: p.since,
                            },
                        );
                    }
                }
            }
            ClientMsg::Watch { .. } => {
                if self.fanout.spectators() >= cfg.max_connections_per_room
                    && !self.displace_silent()
                    && !self.displace_crowded(p.out.addr)
                {
                    info!(room = %self.id, conn, "room full of spectators: watcher refused");
                    return refuse(
                        &p.out,
                        "this room has as many spectators as it takes; try again later",
                    );
                }
                self.fanout
                    .conns
                    .insert(conn, greeted(p.out, &cfg, self.now()));
                self.fanout.ping(conn);
                self.on_msg(conn, msg, received).await;
            }
            _ => {
                let text = self.text(&ServerMsg::error(
                    ErrorCode::RoomFull,
                    "this room is full of spectators: only resume (or join a free seat) is possible now",
                ));
                if p.out.tx.try_send(Outbound::Text(text)).is_err() {
                    p.out.kill.cancel();
                }
                self.fanout.pending.insert(conn, p);
            }
        }
    }

    /// Closes the oldest connection that has sent neither `join`, `resume` nor `watch`
    /// for `--hello-seconds`, to make room for a watcher. False if there is none.
    fn displace_silent(&mut self) -> bool {
        let now = self.now();
        let hello = self.deps.config.hello;
        let silent = self
            .fanout
            .conns
            .iter()
            .filter(|(_, c)| c.seat.is_none() && !c.greeted && c.since + hello <= now)
            .min_by_key(|(_, c)| c.since)
            .map(|(id, _)| *id);
        let Some(c) = silent.and_then(|id| self.fanout.remove(id)) else {
            return false;
        };
        debug!(conn = ?silent, "silent connection gives its place up to a watcher");
        refuse(
            &c.out,
            "this room is full and this connection sent no join, resume or watch: it gave its place up",
        );
        true
    }

    /// Refuses the connections whose probation ran out.
    pub(super) fn end_probations(&mut self) {
        let now = self.now();
        let due: Vec<ConnId> = self
            .fanout
            .pending
            .iter()
            .filter(|(_, p)| p.until <= now)
            .map(|(id, _)| *id)
            .collect();
        for id in due {
            if let Some(p) = self.fanout.pending.remove(&id) {
                debug!(conn = id, "probation over: refused");
                refuse(
                    &p.out,
                    "this room is full of spectators and this connection took no seat in time",
                );
            }
        }
    }

    /// Takes one message from the budget of `conn`'s seat (module docs); true for a
    /// connection without a seat (its socket's own budget applies).
    pub(super) fn seat_budget_allows(&mut self, conn: ConnId) -> bool {
        self.seat_allows(conn, SeatRate::Messages).unwrap_or(true)
    }

    /// Takes one from the budget `rate` of `conn`'s seat token: whether it was there;
    /// None for a connection without a seat.
    pub(super) fn seat_allows(&mut self, conn: ConnId, rate: SeatRate) -> Option<bool> {
        let p = self.seat_of(conn)?;
        let seat = self.seats[p.index()].as_ref()?;
        let buckets = &mut self.fanout.seat_buckets;
        let i = match buckets.iter().position(|b| b.token_hash == seat.token_hash) {
            Some(i) => i,
            None => {
                // A new token: forget the budgets of tokens that hold no seat here any
                // more.
                let held: Vec<&String> =
                    self.seats.iter().flatten().map(|s| &s.token_hash).collect();
                buckets.retain(|b| held.contains(&&b.token_hash));
                let cfg = &self.deps.config;
                buckets.push(SeatBudget {
                    token_hash: seat.token_hash.clone(),
                    messages: Bucket::new(cfg.rate_per_second, cfg.rate_burst, &cfg.time),
                    chat: cfg.chat_bucket(),
                });
                buckets.len() - 1
            }
        };
        let b = &mut buckets[i];
        Some(match rate {
            SeatRate::Messages => b.messages.allow(),
            SeatRate::Chat => b.chat.allow(),
        })
    }

    pub(super) fn deliver(&mut self, conn: ConnId, msg: Text) {
        self.fanout.deliver(conn, msg);
    }

    pub(super) fn send(&mut self, conn: ConnId, v: &ServerMsg) {
        let t = self.text(v);
        self.deliver(conn, t);
    }

    pub(super) fn send_error(&mut self, conn: ConnId, code: ErrorCode, message: impl Into<String>) {
        let message = message.into();
        debug!(conn, code = code.as_str(), %message, "rejected");
        self.send(conn, &ServerMsg::error(code, message));
    }

    /// Sends an event to every connection, with the next `seq`.
    pub(super) fn broadcast(&mut self, event: Event) {
        let text = |seq| Text::from(ServerMsg::Event { seq, event }.to_text());
        self.fanout.broadcast(text);
    }

    /// Sends everyone its own full `state`.
    pub(super) fn broadcast_state(&mut self) {
        self.broadcast_snapshot(Snapshot::Full);
    }

    /// Sends everyone its own `state` of `kind`. The spectators' text is serialised
    /// once, and each seat's text written from it ([`StateText`]) when first needed.
    pub(super) fn broadcast_snapshot(&mut self, kind: Snapshot) {
        let base = StateText::new(self.spectator_state(kind));
        let mut texts: [Option<Text>; 4] = [None, None, None, None];
        let mut out = std::mem::take(&mut self.fanout.scratch);
        out.extend(self.fanout.conns.iter().map(|(id, c)| (*id, c.seat)));
        for (id, seat) in out.drain(..) {
            let slot = seat.map_or(3, Player::index);
            let t = texts[slot]
                .get_or_insert_with(|| match seat {
                    None => Text::from(base.spectator().to_string()),
                    Some(p) => {
                        let (legal, illumination) = self.own_text(p);
                        Text::from(base.seat_with(Seat::from(p), &legal, illumination.as_deref()))
                    }
                })
                .clone();
            self.deliver(id, t);
        }
        self.fanout.scratch = out;
    }

    pub(super) fn send_state(&mut self, conn: ConnId) {
        let seat = self.fanout.conns.get(&conn).and_then(|c| c.seat);
        let v = self.state(seat);
        self.send(conn, &ServerMsg::State(Box::new(v)));
    }

    /// Queues what was staged, then drops the connections whose queue overflowed; true
    /// if there were any.
    pub(super) fn reap_dead(&mut self) -> bool {
        self.fanout.flush();
        let mut any = false;
        while let Some(id) = self.fanout.next_dead() {
            any = true;
            if let Some(c) = self.fanout.conns.get(&id) {
                warn!(room = %self.id, conn = id, "client too slow: send queue full, dropping it");
                self.deps
                    .metrics
                    .slow_clients_dropped
                    .fetch_add(1, Ordering::Relaxed);
                c.out.kill.cancel();
                self.disconnect(id);
            }
        }
        any
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A connection whose writer queue holds `room` messages; its receiving end.
    fn conn(room: usize) -> (Conn, Inbox) {
        let (tx, rx) = crate::room::outbox(crate::room::Bounds {
            frames: room,
            bytes: usize::MAX / 2,
        });
        let handle = ConnHandle {
            tx,
            kill: CancellationToken::new(),
            account: None,
            addr: None,
        };
        let time: Arc<dyn TimeSource> = Arc::new(crate::time::ManualTime::new(0));
        (Conn::new(handle, Bucket::new(1.0, 1, &time), Moment(0)), rx)
    }

    /// A fan-out of connections 1 and 2, and their receiving ends.
    fn two_conns() -> (Fanout, Inbox, Inbox) {
        let mut f = Fanout::default();
        let (a, ra) = conn(8);
        let (b, rb) = conn(8);
        f.conns.insert(1, a);
        f.conns.insert(2, b);
        (f, ra, rb)
    }

    fn text(o: Outbound) -> String {
        match o {
            Outbound::Text(t) => t.to_string(),
            other => panic!("a text frame: {other:?}"),
        }
    }

    #[test]
    fn events_are_numbered_and_reach_every_connection() {
        let (mut f, mut ra, mut rb) = two_conns();
        f.broadcast(|seq| Text::from(format!("event {seq}")));
        f.broadcast(|seq| Text::from(format!("event {seq}")));
        assert_eq!(f.seq, 2);
        assert!(ra.try_recv().is_none(), "staged until the flush");
        f.flush();
        for r in [&mut ra, &mut rb] {
            assert_eq!(text(r.try_recv().unwrap()), "event 1");
            assert_eq!(text(r.try_recv().unwrap()), "event 2");
        }
        f.deliver(2, Text::from("only b"));
        f.flush();
        assert!(ra.try_recv().is_none());
        assert_eq!(text(rb.try_recv().unwrap()), "only b");
        assert_eq!(f.next_dead(), None);
    }

    #[test]
    fn a_connection_gets_what_a_command_staged_in_order_and_in_one_burst() {
        let (mut f, mut ra, mut rb) = two_conns();
        f.broadcast(|seq| Text::from(format!("event {seq}")));
        f.deliver(1, Text::from("state of a"));
        f.deliver(2, Text::from("state of b"));
        // A connection removed mid-command still gets what was staged for it.
        let removed = f.remove(2).expect("connection 2");
        assert!(removed.staged.is_empty());
        assert_eq!(text(rb.try_recv().unwrap()), "event 1");
        assert_eq!(text(rb.try_recv().unwrap()), "state of b");
        assert!(ra.try_recv().is_none(), "a's frames wait for the flush");
        f.flush();
        assert_eq!(text(ra.try_recv().unwrap()), "event 1");
        assert_eq!(text(ra.try_recv().unwrap()), "state of a");
        f.flush();
        assert!(ra.try_recv().is_none(), "nothing twice");
    }

    #[test]
    fn a_client_whose_queue_is_full_is_marked_for_dropping() {
        let mut f = Fanout::default();
        let (slow, _never_read) = conn(1);
        let (fast, mut rf) = conn(8);
        f.conns.insert(7, slow);
        f.conns.insert(8, fast);
        f.broadcast(|_| Text::from("one"));
        f.flush();
        assert_eq!(f.next_dead(), None, "one message fits");
        f.broadcast(|_| Text::from("two"));
        f.flush();
        assert_eq!(f.next_dead(), Some(7));
        assert_eq!(f.next_dead(), None);
        // The others are not held up.
        assert_eq!(text(rf.try_recv().unwrap()), "one");
        assert_eq!(text(rf.try_recv().unwrap()), "two");
        // A ping to a full queue marks it too; to an unknown connection, nothing.
        f.ping(7);
        f.ping(99);
        f.flush();
        assert_eq!(f.next_dead(), Some(7));
        assert_eq!(f.next_dead(), None);
    }
}
