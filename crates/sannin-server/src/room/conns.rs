//! Connections and fan-out: per-connection bounded queues, the room's `seq`, each
//! seat's own `state`, and dropping clients too slow to keep up.

use std::sync::atomic::Ordering;

use tracing::{debug, warn};

use super::*;
use crate::protocol;
use crate::rate::TokenBucket;

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
    pub(super) chat_bucket: TokenBucket,
}

impl Conn {
    /// A connection allowed `chat_per_minute` chat messages a minute, `burst` at once.
    pub(super) fn new(out: ConnHandle, chat_per_minute: f64, burst: u32) -> Conn {
        Conn {
            out,
            seat: None,
            token: None,
            watching: false,
            name: None,
            rtt_ms: None,
            chat_bucket: TokenBucket::new(chat_per_minute / 60.0, burst),
        }
    }
}

/// The room's connections and what goes out to them: one bounded queue per
/// connection, written with `try_send`; a connection whose queue is full is marked
/// and dropped after the current command instead of stalling the room.
#[derive(Debug, Default)]
pub(super) struct Fanout {
    /// Every connection of the room.
    pub(super) conns: HashMap<ConnId, Conn>,
    /// The `seq` of the last event sent.
    pub(super) seq: u64,
    /// Connections whose queue overflowed.
    dead: Vec<ConnId>,
}

impl Fanout {
    /// Queues `msg` for `conn`.
    pub(super) fn deliver(&mut self, conn: ConnId, msg: Utf8Bytes) {
        self.push(conn, Outbound::Text(msg));
    }

    /// Asks `conn`'s writer for a ping now (its pong measures the round trip).
    pub(super) fn ping(&mut self, conn: ConnId) {
        self.push(conn, Outbound::Ping);
    }

    fn push(&mut self, conn: ConnId, out: Outbound) {
        if let Some(c) = self.conns.get(&conn) {
            if c.out.tx.try_send(out).is_err() {
                self.dead.push(conn);
            }
        }
    }

    /// The next event's `seq`, and its text (built by `text`) queued for everyone.
    pub(super) fn broadcast(&mut self, text: impl FnOnce(u64) -> Utf8Bytes) {
        self.seq += 1;
        let t = text(self.seq);
        for (id, c) in &self.conns {
            if c.out.tx.try_send(Outbound::Text(t.clone())).is_err() {
                self.dead.push(*id);
            }
        }
    }

    /// A connection whose queue overflowed, to drop now.
    pub(super) fn next_dead(&mut self) -> Option<ConnId> {
        self.dead.pop()
    }
}

impl Room {
    pub(super) fn deliver(&mut self, conn: ConnId, msg: Utf8Bytes) {
        self.fanout.deliver(conn, msg);
    }

    pub(super) fn send<T: Serialize>(&mut self, conn: ConnId, v: &T) {
        let t = self.text(v);
        self.deliver(conn, t);
    }

    pub(super) fn send_error(&mut self, conn: ConnId, code: ErrorCode, message: impl Into<String>) {
        let message = message.into();
        debug!(conn, code = code.as_str(), %message, "rejected");
        self.send(conn, &protocol::error_msg(code, message));
    }

    /// Sends an event to every connection, with the next `seq`.
    pub(super) fn broadcast(&mut self, event: Event) {
        let text = |seq| Utf8Bytes::from(protocol::to_text(&protocol::event_msg(seq, event)));
        self.fanout.broadcast(text);
    }

    /// Sends everyone its own `state`.
    pub(super) fn broadcast_state(&mut self) {
        let ids: Vec<ConnId> = self.fanout.conns.keys().copied().collect();
        // The common snapshot is built once; each seat's copy adds its own part.
        let base = self.spectator_state();
        let spectator = self.text(&ServerMsg::State(Box::new(base.clone())));
        let mut per_seat: [Option<Utf8Bytes>; 3] = [None, None, None];
        for id in ids {
            let seat = self.fanout.conns.get(&id).and_then(|c| c.seat);
            let t = match seat {
                None => spectator.clone(),
                Some(p) => per_seat[idx(p)]
                    .get_or_insert_with(|| {
                        let mut v = base.clone();
                        self.personalize(&mut v, Some(p));
                        self.text(&ServerMsg::State(Box::new(v)))
                    })
                    .clone(),
            };
            self.deliver(id, t);
        }
    }

    pub(super) fn send_state(&mut self, conn: ConnId) {
        let seat = self.fanout.conns.get(&conn).and_then(|c| c.seat);
        let v = self.state(seat);
        self.send(conn, &ServerMsg::State(Box::new(v)));
    }

    /// Drops the connections whose queue overflowed.
    pub(super) fn reap_dead(&mut self) {
        while let Some(id) = self.fanout.next_dead() {
            if let Some(c) = self.fanout.conns.get(&id) {
                warn!(conn = id, "client too slow: send queue full, dropping it");
                self.deps
                    .metrics
                    .slow_clients_dropped
                    .fetch_add(1, Ordering::Relaxed);
                c.out.kill.cancel();
                self.disconnect(id);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A connection whose writer queue holds `room` messages; its receiving end.
    fn conn(room: usize) -> (Conn, mpsc::Receiver<Outbound>) {
        let (tx, rx) = mpsc::channel(room);
        let handle = ConnHandle {
            tx,
            kill: CancellationToken::new(),
        };
        (Conn::new(handle, 60.0, 1), rx)
    }

    fn text(o: Outbound) -> String {
        match o {
            Outbound::Text(t) => t.to_string(),
            other => panic!("a text frame: {other:?}"),
        }
    }

    #[test]
    fn events_are_numbered_and_reach_every_connection() {
        let mut f = Fanout::default();
        let (a, mut ra) = conn(8);
        let (b, mut rb) = conn(8);
        f.conns.insert(1, a);
        f.conns.insert(2, b);
        f.broadcast(|seq| Utf8Bytes::from(format!("event {seq}")));
        f.broadcast(|seq| Utf8Bytes::from(format!("event {seq}")));
        assert_eq!(f.seq, 2);
        for r in [&mut ra, &mut rb] {
            assert_eq!(text(r.try_recv().unwrap()), "event 1");
            assert_eq!(text(r.try_recv().unwrap()), "event 2");
        }
        f.deliver(2, Utf8Bytes::from("only b"));
        assert!(ra.try_recv().is_err());
        assert_eq!(text(rb.try_recv().unwrap()), "only b");
        assert_eq!(f.next_dead(), None);
    }

    #[test]
    fn a_client_whose_queue_is_full_is_marked_for_dropping() {
        let mut f = Fanout::default();
        let (slow, _never_read) = conn(1);
        let (fast, mut rf) = conn(8);
        f.conns.insert(7, slow);
        f.conns.insert(8, fast);
        f.broadcast(|_| Utf8Bytes::from("one"));
        assert_eq!(f.next_dead(), None, "one message fits");
        f.broadcast(|_| Utf8Bytes::from("two"));
        assert_eq!(f.next_dead(), Some(7));
        assert_eq!(f.next_dead(), None);
        // The others are not held up.
        assert_eq!(text(rf.try_recv().unwrap()), "one");
        assert_eq!(text(rf.try_recv().unwrap()), "two");
        // A ping to a full queue marks it too; to an unknown connection, nothing.
        f.ping(7);
        f.ping(99);
        assert_eq!(f.next_dead(), Some(7));
        assert_eq!(f.next_dead(), None);
    }
}
