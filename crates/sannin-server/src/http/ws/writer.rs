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

use tokio::io::AsyncWriteExt;
use tokio_tungstenite::tungstenite::protocol::frame::coding::{Control, Data, OpCode};
use tokio_tungstenite::tungstenite::protocol::frame::FrameHeader;
use tokio_util::sync::CancellationToken;

use super::{Pings, Sink};
use crate::room::{Inbox, Outbound};
use crate::time::TimeSource;

/// How long a connection closed for a bad frame or a flood is kept open after its
/// close frame, unread, so that the close frame reaches the client before the socket
/// goes (closing a socket with unread input resets it, and a reset can overtake it).
const LINGER: Duration = Duration::from_millis(500);

/// The most frames a connection's writer gathers into one write.
const WRITE_BATCH: usize = 64;

/// The most bytes of frames gathered into one write (a burst goes on in the next).
const WRITE_GATHER: usize = 16 * 1024;

/// Frames laid out for one write to the socket: each is tungstenite's header for it,
/// then its payload (a server's frames are not masked, RFC 6455 §5.1).
///
/// The buffer lives as long as the write it is for. A WebSocket library's own writer
/// keeps a buffer per socket at the largest size it ever held — for a `state`, 1.8 KiB
/// for each idle connection, a third of what one costs (docs/performance.md, "Idle rooms
/// and connections").
#[derive(Default)]
pub(super) struct Frames(Vec<u8>);

impl Frames {
    fn push(&mut self, opcode: OpCode, payload: &[&[u8]]) {
        let len: usize = payload.iter().map(|p| p.len()).sum();
        let header = FrameHeader {
            opcode,
            ..FrameHeader::default()
        };
        // A header is at most 10 bytes unmasked; writing to a Vec cannot fail.
        self.0.reserve(10 + len);
        let _ = header.format(len as u64, &mut self.0);
        for p in payload {
            self.0.extend_from_slice(p);
        }
    }

    pub(super) fn text(&mut self, text: &[u8]) {
        self.push(OpCode::Data(Data::Text), &[text]);
    }

    /// A close frame with a status code and a reason (at most 123 bytes: the rest of
    /// a longer one is cut at a character boundary).
    pub(super) fn close(&mut self, code: u16, reason: &str) {
        let mut end = reason.len().min(123);
        while !reason.is_char_boundary(end) {
            end -= 1;
        }
        let code = code.to_be_bytes();
        let reason = &reason.as_bytes()[..end];
        self.push(OpCode::Control(Control::Close), &[&code, reason]);
    }

    /// A close frame without a status code.
    fn close_empty(&mut self) {
        self.push(OpCode::Control(Control::Close), &[]);
    }

    fn ping(&mut self, payload: &[u8]) {
        self.push(OpCode::Control(Control::Ping), &[payload]);
    }

    /// A pong echoes a ping's payload (at most 125 bytes, which the reader's codec
    /// checked).
    fn pong(&mut self, payload: &[u8]) {
        self.push(OpCode::Control(Control::Pong), &[payload]);
    }

    fn len(&self) -> usize {
        self.0.len()
    }

    /// Writes the frames to `sink`.
    pub(super) async fn write(self, sink: &mut Sink) -> std::io::Result<()> {
        sink.write_all(&self.0).await?;
        sink.flush().await
    }
}

/// What the writer works with.
pub(super) struct Writer {
    pub sink: Sink,
    pub rx: Inbox,
    pub kill: CancellationToken,
    pub pings: Arc<Pings>,
    pub time: Arc<dyn TimeSource>,
    pub ping_every: Duration,
}

impl Writer {
    /// A ping stamped with the time now, remembered as ours.
    fn ping(&self, frames: &mut Frames) {
        let now = self.time.now_ms();
        self.pings.sent(now);
        frames.ping(&now.to_be_bytes());
    }

    /// Lays out the frame of a queued item: true for a close frame, and then notes in
    /// `linger` whether it closes for what the client sent.
    fn frame(&self, out: Outbound, frames: &mut Frames, linger: &mut bool) -> bool {
        match out {
            Outbound::Text(t) => frames.text(t.as_bytes()),
            Outbound::Close(code, reason) => {
                // Closed for what the client sent (flood, bad frame).
                *linger = matches!(code, 1002 | 1007 | 1008 | 1009);
                frames.close(code, reason);
                return true;
            }
            Outbound::Ping => self.ping(frames),
            Outbound::Pong(payload) => frames.pong(&payload),
        }
        false
    }

    /// Writes `first` and whatever else is queued behind it (up to [`WRITE_BATCH`]
    /// frames, [`WRITE_GATHER`] bytes) in one write: true when a close frame went out.
    async fn burst(
        &mut self,
        (mut frames, mut closing): (Frames, bool),
        linger: &mut bool,
    ) -> std::io::Result<bool> {
        let mut count = 1;
        while !closing && count < WRITE_BATCH && frames.len() < WRITE_GATHER {
            let Some(out) = self.rx.try_recv() else { break };
            count += 1;
            if self.frame(out, &mut frames, linger) {
                closing = true;
                break;
            }
        }
        frames.write(&mut self.sink).await?;
        Ok(closing)
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
        // Whether a close frame went out.
        let mut closed = false;
        // The room queued something for the client since the last tick.
        let mut sent = false;
        loop {
            let mut frames = Frames::default();
            // The queue first: polling `killed` takes the token's lock, and a frame
            // waiting means there is no need to (a killed connection's queue is closed
            // by the room, so it ends either way).
            let closing = tokio::select! {
                biased;
                out = self.rx.recv() => match out {
                    Some(out) => {
                        sent = true;
                        self.frame(out, &mut frames, &mut linger)
                    }
                    None => break,
                },
                () = &mut killed => break,
                _ = ping.tick() => {
                    let said = self.pings.take_said();
                    if std::mem::take(&mut sent) && said {
                        continue;
                    }
                    self.ping(&mut frames);
                    false
                }
            };
            // A send blocked by a client that does not read must not outlive `kill`.
            tokio::select! {
                biased;
                done = self.burst((frames, closing), &mut linger) => match done {
                    Ok(false) => {}
                    Ok(true) => {
                        closed = true;
                        break;
                    }
                    Err(_) => break,
                },
                () = &mut killed => break,
            }
        }
        if kill.is_cancelled() {
            // Dropped for being too slow: one polite try at a close frame.
            let mut bye = Frames::default();
            bye.close(1008, sannin_protocol::CloseReason::TooSlow.as_str());
            let _ =
                tokio::time::timeout(Duration::from_millis(100), bye.write(&mut self.sink)).await;
            return;
        }
        // The closing handshake's frame, if none went out yet, then the end of the
        // stream.
        let sink = &mut self.sink;
        let _ = tokio::time::timeout(Duration::from_secs(1), async move {
            if !closed {
                let mut bye = Frames::default();
                bye.close_empty();
                bye.write(sink).await?;
            }
            sink.shutdown().await
        })
        .await;
        if linger {
            tokio::time::sleep(LINGER).await;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio_tungstenite::tungstenite::protocol::frame::FrameSocket;

    /// What tungstenite's own frame reader makes of `frames`: (opcode, final, payload).
    fn read_back(frames: Frames) -> Vec<(OpCode, bool, Vec<u8>)> {
        let mut socket = FrameSocket::new(std::io::Cursor::new(frames.0));
        let mut read = Vec::new();
        while let Some(f) = socket.read(None).expect("a well-formed frame") {
            assert!(
                f.header().mask.is_none(),
                "a server's frames are not masked"
            );
            read.push((f.header().opcode, f.header().is_final, f.payload().to_vec()));
        }
        read
    }

    #[test]
    fn frames_of_every_length_class_read_back_as_written() {
        // Payload lengths that take the 7-bit, 16-bit and 64-bit length forms, and
        // their edges.
        let texts: Vec<String> = [0, 1, 125, 126, 65_535, 65_536, 200_000]
            .iter()
            .map(|&n| "é".repeat(n / 2) + &"x".repeat(n % 2))
            .collect();
        let mut frames = Frames::default();
        for t in &texts {
            frames.text(t.as_bytes());
        }
        frames.ping(&7u64.to_be_bytes());
        frames.pong(b"echo");
        frames.close(1008, "too many messages");
        frames.close_empty();
        let read = read_back(frames);
        assert_eq!(read.len(), texts.len() + 4);
        let text = OpCode::Data(Data::Text);
        for (t, r) in texts.iter().zip(&read) {
            assert_eq!(r, &(text, true, t.as_bytes().to_vec()));
        }
        let control = &read[texts.len()..];
        assert_eq!(
            control[0],
            (
                OpCode::Control(Control::Ping),
                true,
                7u64.to_be_bytes().to_vec()
            )
        );
        assert_eq!(
            control[1],
            (OpCode::Control(Control::Pong), true, b"echo".to_vec())
        );
        let mut close = 1008u16.to_be_bytes().to_vec();
        close.extend_from_slice(b"too many messages");
        assert_eq!(control[2], (OpCode::Control(Control::Close), true, close));
        assert_eq!(
            control[3],
            (OpCode::Control(Control::Close), true, Vec::new())
        );
    }

    #[test]
    fn a_close_reason_is_cut_to_fit_a_control_frame_at_a_character_boundary() {
        let mut frames = Frames::default();
        // 62 two-byte characters: 124 bytes, one over what fits with the code.
        frames.close(1000, &"é".repeat(62));
        let read = read_back(frames);
        let payload = &read[0].2;
        assert_eq!(payload.len(), 2 + 122, "the last whole character that fits");
        assert!(std::str::from_utf8(&payload[2..]).is_ok());
    }
}
