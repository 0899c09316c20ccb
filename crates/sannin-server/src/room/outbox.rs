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

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use tokio::sync::mpsc;

use super::Outbound;

/// How much a connection's queue holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bounds {
    /// Frames.
    pub frames: usize,
    /// Bytes of text (one frame of any size when empty).
    pub bytes: usize,
}

/// A queue within `bounds`: the room's end and the writer's.
pub fn outbox(bounds: Bounds) -> (Outbox, Inbox) {
    let (frames, bytes) = (bounds.frames, bounds.bytes);
    let (tx, rx) = mpsc::channel(frames.max(1));
    let queued = Arc::new(AtomicUsize::new(0));
    (
        Outbox {
            tx,
            queued: queued.clone(),
            cap: bytes,
        },
        Inbox { rx, queued },
    )
}

/// The sending end (cloned by whoever writes to the connection).
#[derive(Debug, Clone)]
pub struct Outbox {
    tx: mpsc::Sender<Outbound>,
    queued: Arc<AtomicUsize>,
    cap: usize,
}

/// A frame refused: the queue is full, in frames or in bytes, or closed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Full;

/// The bytes a frame counts for.
fn weight(out: &Outbound) -> usize {
    match out {
        Outbound::Text(t) => t.len(),
        Outbound::Close(..) | Outbound::Ping => 0,
    }
}

impl Outbox {
    /// Queues `out` unless that would take the queue past its bounds.
    ///
    /// # Errors
    /// [`Full`]: the frame was not queued.
    pub fn try_send(&self, out: Outbound) -> Result<(), Full> {
        let n = weight(&out);
        let before = self.queued.fetch_add(n, Ordering::AcqRel);
        if n > 0 && before > 0 && before + n > self.cap {
            self.queued.fetch_sub(n, Ordering::AcqRel);
            return Err(Full);
        }
        self.tx.try_send(out).map_err(|_| {
            self.queued.fetch_sub(n, Ordering::AcqRel);
            Full
        })
    }

    /// A handle that does not keep the queue open.
    pub fn downgrade(&self) -> WeakOutbox {
        WeakOutbox {
            tx: self.tx.downgrade(),
            queued: self.queued.clone(),
            cap: self.cap,
        }
    }

    /// Bytes of text queued and not yet taken by the writer.
    #[cfg(test)]
    pub fn queued_bytes(&self) -> usize {
        self.queued.load(Ordering::Acquire)
    }
}

/// An [`Outbox`] that does not keep the writer's queue open.
#[derive(Debug, Clone)]
pub struct WeakOutbox {
    tx: mpsc::WeakSender<Outbound>,
    queued: Arc<AtomicUsize>,
    cap: usize,
}

impl WeakOutbox {
    /// The outbox, if the queue is still open.
    pub fn upgrade(&self) -> Option<Outbox> {
        Some(Outbox {
            tx: self.tx.upgrade()?,
            queued: self.queued.clone(),
            cap: self.cap,
        })
    }
}

/// The writer's end.
#[derive(Debug)]
pub struct Inbox {
    rx: mpsc::Receiver<Outbound>,
    queued: Arc<AtomicUsize>,
}

impl Inbox {
    fn taken(&self, out: Outbound) -> Outbound {
        self.queued.fetch_sub(weight(&out), Ordering::AcqRel);
        out
    }

    /// The next frame; `None` once every sender is gone and the queue is empty.
    pub async fn recv(&mut self) -> Option<Outbound> {
        let out = self.rx.recv().await?;
        Some(self.taken(out))
    }

    /// The next frame if one is queued.
    pub fn try_recv(&mut self) -> Option<Outbound> {
        let out = self.rx.try_recv().ok()?;
        Some(self.taken(out))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::extract::ws::Utf8Bytes;

    fn text(n: usize) -> Outbound {
        Outbound::Text(Utf8Bytes::from("x".repeat(n)))
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
