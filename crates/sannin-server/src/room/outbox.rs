//! A connection's outgoing queue, bounded in frames and in bytes.
//!
//! The room writes to it with [`Outbox::try_send`] and never waits: a frame that
//! would take the queue past either bound is refused, and the room drops that
//! connection (it can `resume` and get a fresh state). The byte bound is what keeps a
//! client that does not read from holding the server's memory: a full `state` with a
//! long chat is tens of kilobytes, and a frame count alone let a few sockets that
//! never read hold gigabytes. One frame is always let into an empty queue, however
//! large, so that no legitimate message is ever too big to send. Control frames (a
//! close, a ping) are a few bytes and count toward the frame bound only.
//!
//! The bytes are counted from the moment a frame is queued until the writer takes it
//! out; after that it sits in the socket's write buffer, which holds at most one
//! burst (`http::ws`).

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use tokio::sync::Notify;

use super::Outbound;

/// The payload of a text frame: UTF-8 (it is only ever made from a `str`), shared by
/// every connection it goes to, so that a clone is a reference count. The writer lays
/// its bytes out as a frame without checking them again.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Text(bytes::Bytes);

impl Text {
    /// Its bytes, UTF-8.
    pub fn as_bytes(&self) -> &[u8] {
        &self.0
    }

    /// Its length in bytes.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether it is empty.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The shared bytes (to relay them to another node).
    pub fn into_bytes(self) -> bytes::Bytes {
        self.0
    }

    /// The bytes as a text, if they are UTF-8 (bytes relayed from another node).
    pub fn from_utf8(bytes: bytes::Bytes) -> Option<Text> {
        std::str::from_utf8(&bytes).is_ok().then_some(Text(bytes))
    }
}

impl From<String> for Text {
    fn from(s: String) -> Text {
        Text(bytes::Bytes::from(s))
    }
}

impl From<&'static str> for Text {
    fn from(s: &'static str) -> Text {
        Text(bytes::Bytes::from_static(s.as_bytes()))
    }
}

impl std::fmt::Display for Text {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&String::from_utf8_lossy(&self.0))
    }
}

/// How much a connection's queue holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bounds {
    /// Frames.
    pub frames: usize,
    /// Bytes of text (one frame of any size when empty).
    pub bytes: usize,
}

/// A queue within `bounds`: the room's end and the writer's.
///
/// It is a lock around a `VecDeque` and a [`Notify`] rather than a channel: every
/// connection has one, most of them idle, and a bounded channel allocates its first
/// block of slots (about 1.3 KiB) when it is made, where an empty `VecDeque` holds
/// nothing. Only the room and the writer touch the lock, for a push or a pop each.
pub fn outbox(bounds: Bounds) -> (Outbox, Inbox) {
    let queue = Arc::new(Queue {
        state: Mutex::new(State {
            frames: VecDeque::new(),
            bytes: 0,
            senders: 1,
            unread: false,
        }),
        ready: Notify::new(),
        bounds: Bounds {
            frames: bounds.frames.max(1),
            bytes: bounds.bytes,
        },
    });
    (
        Outbox {
            queue: queue.clone(),
        },
        Inbox { queue },
    )
}

#[derive(Debug)]
struct Queue {
    state: Mutex<State>,
    /// Woken on every frame queued and when the last sender goes.
    ready: Notify,
    bounds: Bounds,
}

#[derive(Debug)]
struct State {
    frames: VecDeque<Outbound>,
    /// Bytes of text queued.
    bytes: usize,
    /// [`Outbox`]es alive; the queue closes at 0.
    senders: usize,
    /// The [`Inbox`] is gone: nothing more is let in.
    unread: bool,
}

impl Queue {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// The sending end (cloned by whoever writes to the connection).
#[derive(Debug)]
pub struct Outbox {
    queue: Arc<Queue>,
}

impl Clone for Outbox {
    fn clone(&self) -> Outbox {
        self.queue.lock().senders += 1;
        Outbox {
            queue: self.queue.clone(),
        }
    }
}

impl Drop for Outbox {
    fn drop(&mut self) {
        let last = {
            let mut state = self.queue.lock();
            state.senders -= 1;
            state.senders == 0
        };
        if last {
            self.queue.ready.notify_one();
        }
    }
}

/// A frame refused: the queue is full, in frames or in bytes, or closed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Full;

/// The bytes a frame counts for.
fn weight(out: &Outbound) -> usize {
    match out {
        Outbound::Text(t) => t.len(),
        Outbound::Close(..) | Outbound::Ping => 0,
        Outbound::Pong(payload) => payload.len(),
    }
}

impl Outbox {
    /// Queues `out` unless that would take the queue past its bounds.
    ///
    /// # Errors
    /// [`Full`]: the frame was not queued.
    pub fn try_send(&self, out: Outbound) -> Result<(), Full> {
        let n = weight(&out);
        let bounds = self.queue.bounds;
        {
            let mut state = self.queue.lock();
            if state.unread
                || state.frames.len() >= bounds.frames
                || (n > 0 && state.bytes > 0 && state.bytes + n > bounds.bytes)
            {
                return Err(Full);
            }
            state.bytes += n;
            state.frames.push_back(out);
        }
        self.queue.ready.notify_one();
        Ok(())
    }

    /// A handle that does not keep the queue open.
    pub fn downgrade(&self) -> WeakOutbox {
        WeakOutbox {
            queue: self.queue.clone(),
        }
    }

    /// Bytes of text queued and not yet taken by the writer.
    #[cfg(test)]
    pub fn queued_bytes(&self) -> usize {
        self.queue.lock().bytes
    }
}

/// An [`Outbox`] that does not keep the writer's queue open.
#[derive(Debug, Clone)]
pub struct WeakOutbox {
    queue: Arc<Queue>,
}

impl WeakOutbox {
    /// The outbox, if the queue is still open.
    pub fn upgrade(&self) -> Option<Outbox> {
        let mut state = self.queue.lock();
        if state.senders == 0 {
            return None;
        }
        state.senders += 1;
        drop(state);
        Some(Outbox {
            queue: self.queue.clone(),
        })
    }
}

/// The writer's end.
#[derive(Debug)]
pub struct Inbox {
    queue: Arc<Queue>,
}

impl Drop for Inbox {
    fn drop(&mut self) {
        let mut state = self.queue.lock();
        state.unread = true;
        state.frames.clear();
        state.bytes = 0;
    }
}

/// What the writer found in the queue.
enum Took {
    Frame(Outbound),
    Empty,
    Closed,
}

impl Inbox {
    fn take(&self) -> Took {
        let mut state = self.queue.lock();
        match state.frames.pop_front() {
            Some(out) => {
                state.bytes -= weight(&out);
                if state.frames.is_empty() && state.frames.capacity() > 8 {
                    // A burst is over: an idle connection keeps no large queue.
                    state.frames.shrink_to(8);
                }
                Took::Frame(out)
            }
            None if state.senders == 0 => Took::Closed,
            None => Took::Empty,
        }
    }

    /// The next frame; `None` once every sender is gone and the queue is empty.
    pub async fn recv(&mut self) -> Option<Outbound> {
        loop {
            match self.take() {
                Took::Frame(out) => return Some(out),
                Took::Closed => return None,
                Took::Empty => self.queue.ready.notified().await,
            }
        }
    }

    /// The next frame if one is queued.
    pub fn try_recv(&mut self) -> Option<Outbound> {
        match self.take() {
            Took::Frame(out) => Some(out),
            Took::Empty | Took::Closed => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(n: usize) -> Outbound {
        Outbound::Text(Text::from("x".repeat(n)))
    }

    #[test]
    fn bytes_bound_the_queue_but_one_frame_always_fits() {
        let (out, mut inbox) = outbox(Bounds {
            frames: 16,
            bytes: 100,
        });
        // Larger than the bound, into an empty queue: let in.
        out.try_send(text(150)).unwrap();
        assert_eq!(out.try_send(text(1)), Err(Full));
        // Control frames pass the byte bound.
        out.try_send(Outbound::Ping).unwrap();
        assert!(matches!(inbox.try_recv(), Some(Outbound::Text(_))));
        assert_eq!(out.queued_bytes(), 0);
        out.try_send(text(60)).unwrap();
        out.try_send(text(40)).unwrap();
        assert_eq!(out.try_send(text(1)), Err(Full), "100 bytes queued");
        assert_eq!(out.queued_bytes(), 100);
        assert!(matches!(inbox.try_recv(), Some(Outbound::Ping)));
        assert!(matches!(inbox.try_recv(), Some(Outbound::Text(t)) if t.len() == 60));
        out.try_send(text(60)).unwrap();
        assert_eq!(out.queued_bytes(), 100);
    }

    #[test]
    fn frames_bound_the_queue_and_a_refused_frame_is_not_counted() {
        let (out, mut inbox) = outbox(Bounds {
            frames: 2,
            bytes: 1000,
        });
        out.try_send(text(10)).unwrap();
        out.try_send(text(10)).unwrap();
        assert_eq!(out.try_send(text(10)), Err(Full));
        assert_eq!(out.queued_bytes(), 20);
        inbox.try_recv().unwrap();
        inbox.try_recv().unwrap();
        assert!(inbox.try_recv().is_none());
        assert_eq!(out.queued_bytes(), 0);
    }

    #[test]
    fn nothing_is_let_in_once_the_writer_is_gone() {
        let (out, inbox) = outbox(Bounds {
            frames: 4,
            bytes: 1000,
        });
        out.try_send(text(3)).unwrap();
        drop(inbox);
        assert_eq!(out.try_send(text(3)), Err(Full));
        assert_eq!(out.queued_bytes(), 0);
    }

    #[test]
    fn a_weak_outbox_lets_the_queue_close() {
        let (out, mut inbox) = outbox(Bounds {
            frames: 2,
            bytes: 1000,
        });
        let weak = out.downgrade();
        weak.upgrade().unwrap().try_send(text(3)).unwrap();
        drop(out);
        assert!(weak.upgrade().is_none());
        assert!(inbox.try_recv().is_some());
        assert!(inbox.try_recv().is_none());
    }
}
