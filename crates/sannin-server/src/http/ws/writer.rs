//! A connection's writer: drains the queue the room fills into the socket, a burst of
//! frames in one write, and pings every interval.
//!
//! The first ping is the room's, once it lets the connection in: one on probation gets
//! nothing. A connection that sent a message and was sent one since the last tick is
//! alive both ways and needs no keep-alive ping (its reader's idle timer is reset by
//! what it hears). Each ping carries the time-source ms it was sent at; its pong gives
//! the round trip the room credits back to a player's clock (docs/protocol.md, "Lag
//! fairness"; the player to move is pinged by the room each turn).

use std::sync::Arc;
use std::time::Duration;

use axum::extract::ws::{CloseFrame, Message, WebSocket};
use futures_util::stream::SplitSink;
use futures_util::SinkExt;
use tokio_util::sync::CancellationToken;

use super::Pings;
use crate::room::{Inbox, Outbound};
use crate::time::TimeSource;

/// How long a connection closed for a bad frame or a flood is kept open after its
/// close frame, unread, so that the close frame reaches the client before the socket
/// goes (closing a socket with unread input resets it, and a reset can overtake it).
const LINGER: Duration = Duration::from_millis(500);

/// The most frames a connection's writer buffers before it flushes them to the socket.
const WRITE_BATCH: usize = 64;

/// A frame at least this long is flushed before more are gathered behind it. The
/// socket's write buffer keeps the largest size it ever held for the connection's
/// life, and grows by doubling: a `state` followed by a short frame in one burst (as on
/// joining) would double it for good. During play a burst ends with its `state`
/// anyway, so this costs no `send`.
const FLUSH_AFTER: usize = 512;

/// What the writer works with.
pub(super) struct Writer {
    pub sink: SplitSink<WebSocket, Message>,
    pub rx: Inbox,
    pub kill: CancellationToken,
    pub pings: Arc<Pings>,
    pub time: Arc<dyn TimeSource>,
    pub ping_every: Duration,
}

impl Writer {
    /// A ping stamped with the time now, remembered as ours.
    fn ping(&self) -> Message {
        let now = self.time.now_ms();
        self.pings.sent(now);
        Message::Ping(now.to_be_bytes().to_vec().into())
    }

    /// The frame of a queued item; notes in `linger` a close for what the client sent.
    fn frame(&self, out: Outbound, linger: &mut bool) -> Message {
        match out {
            Outbound::Text(t) => Message::Text(t),
            Outbound::Close(code, reason) => {
                // Closed for what the client sent (flood, bad frame).
                *linger = matches!(code, 1002 | 1007 | 1008 | 1009);
                Message::Close(Some(CloseFrame {
                    code,
                    reason: reason.into(),
                }))
            }
            Outbound::Ping => self.ping(),
        }
    }

    /// Writes `first` and whatever else is queued behind it, flushed once (and after
    /// each large frame, see [`FLUSH_AFTER`]): true when a close frame went out.
    async fn burst(&mut self, first: Message, linger: &mut bool) -> Result<bool, axum::Error> {
        let mut frame = first;
        let mut fed = 0;
        loop {
            let closing = matches!(frame, Message::Close(_));
            let large = matches!(&frame, Message::Text(t) if t.len() >= FLUSH_AFTER);
            self.sink.feed(frame).await?;
            fed += 1;
            if closing {
                self.sink.flush().await?;
                return Ok(true);
            }
            match self.rx.try_recv() {
                Some(out) => {
                    if fed == WRITE_BATCH || large {
                        self.sink.flush().await?;
                        fed = 0;
                    }
                    frame = self.frame(out, linger);
                }
                None => break,
            }
        }
        self.sink.flush().await?;
        Ok(false)
    }

    /// Runs until the queue closes, `kill` fires, or a write fails.
    pub(super) async fn run(&mut self) {
        let mut ping = tokio::time::interval_at(
            tokio::time::Instant::now() + self.ping_every,
            self.ping_every,
        );
        // One wait for `kill` for the writer's whole life, not one per wake-up: each
        // new wait takes the token's lock twice (to register, and on drop).
        let kill = self.kill.clone();
        let killed = kill.cancelled();
        tokio::pin!(killed);
        let mut linger = false;
        // The room queued something for the client since the last tick.
        let mut sent = false;
        loop {
            // The queue first: polling `killed` takes the token's lock, and a frame
            // waiting means there is no need to (a killed connection's queue is closed
            // by the room, so it ends either way).
            let first = tokio::select! {
                biased;
                out = self.rx.recv() => match out {
                    Some(out) => {
                        sent = true;
                        self.frame(out, &mut linger)
                    }
                    None => break,
                },
                () = &mut killed => break,
                _ = ping.tick() => {
                    let said = self.pings.take_said();
                    if std::mem::take(&mut sent) && said {
                        continue;
                    }
                    self.ping()
                }
            };
            // A send blocked by a client that does not read must not outlive `kill`.
            tokio::select! {
                biased;
                done = self.burst(first, &mut linger) => match done {
                    Ok(false) => {}
                    _ => break,
                },
                () = &mut killed => break,
            }
        }
        if kill.is_cancelled() {
            // Dropped for being too slow: one polite try at a close frame.
            let bye = Message::Close(Some(CloseFrame {
                code: 1008,
                reason: "too slow: resume to get a fresh state".into(),
            }));
            let _ = tokio::time::timeout(Duration::from_millis(100), self.sink.send(bye)).await;
            return;
        }
        let _ = tokio::time::timeout(Duration::from_secs(1), self.sink.close()).await;
        if linger {
            tokio::time::sleep(LINGER).await;
        }
    }
}
