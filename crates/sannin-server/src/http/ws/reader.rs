//! A connection's reader: parses frames, applies the socket's limits, and hands each
//! message to the room.
//!
//! Limits of the socket (docs/protocol.md, "Limits"): every frame the client sends —
//! text, binary, ping, and pongs other than the answers to our own pings — takes a
//! token of the connection's bucket (`--rate-per-second`, `--rate-burst`); what is
//! beyond is dropped (text gets `rate_limited`), and a client that goes on sending
//! [`FLOOD_CLOSE`] frames in a row that way is closed with 1008. Frames the codec
//! refuses close with their RFC 6455 code: 1009 too big, 1007 invalid UTF-8, 1002 any
//! other protocol error. Until it says `join`, `resume` or `watch`, a socket has
//! `--silent-socket-seconds`; a socket silent for three ping intervals is idle.

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant as StdInstant};

use futures_util::StreamExt;
use sannin_protocol::{ClientMsg, ServerMsg};
use tokio::time::Instant;
use tokio_tungstenite::tungstenite::{self, Message};
use tokio_util::sync::CancellationToken;
use tracing::debug;

use super::Pings;
use crate::limits::Bucket;
use crate::limits::{Budgets, ClientAddr};
use crate::limits::{Rate, Refused};
use crate::metrics::Metrics;
use crate::room::{ConnId, Outbound, Outbox, RoomHandle, Text};
use crate::time::TimeSource;
use sannin_protocol::ErrorCode;

/// Frames refused in a row (over the rate limit, none accepted in between) after which
/// the connection is closed with 1008: a client past this is flooding, not bursting.
const FLOOD_CLOSE: u32 = 200;

/// The ms stamp a pong carries back: our pings carry 8 big-endian bytes.
fn stamp_of(payload: &[u8]) -> Option<u64> {
    Some(u64::from_be_bytes(payload.try_into().ok()?))
}

/// The round trip of a pong carrying `stamp`; None from the future or over a minute old.
fn round_trip(stamp: u64, now_ms: u64) -> Option<u64> {
    let rtt = now_ms.checked_sub(stamp)?;
    (rtt <= 60_000).then_some(rtt)
}

/// The close frame for a frame the WebSocket codec refused (RFC 6455 §7.4.1), if it
/// deserves one: 1009 for a message over the hard cap, 1007 for a text message that
/// is not UTF-8, 1002 for other protocol errors. I/O errors (the peer is gone) get none.
fn close_for(e: &tungstenite::Error) -> Option<(u16, &'static str)> {
    use tungstenite::Error;
    match e {
        Error::Capacity(_) => Some((1009, sannin_protocol::CloseReason::BadMessage.as_str())),
        Error::Utf8(_) => Some((1007, sannin_protocol::CloseReason::BadMessage.as_str())),
        Error::Protocol(_) => Some((1002, sannin_protocol::CloseReason::BadMessage.as_str())),
        _ => None,
    }
}

fn error_frame(code: ErrorCode, message: impl Into<String>) -> Outbound {
    Outbound::Text(Text::from(ServerMsg::error(code, message).to_text()))
}

/// What the reader works with.
pub(super) struct Reader {
    pub stream: super::Incoming,
    pub conn: ConnId,
    pub room: RoomHandle,
    /// The connection's own queue, for the errors the reader answers itself.
    /// Its end of the connection's queue, let go once the reader stops (the queue
    /// closes when the room lets go of its end too, and the writer then finishes).
    pub replies: Option<Outbox>,
    pub kill: CancellationToken,
    pub pings: Arc<Pings>,
    pub metrics: Arc<Metrics>,
    pub time: Arc<dyn TimeSource>,
    pub limit: Bucket,
    pub max_bytes: usize,
    /// Silent for this long (three ping intervals), a socket is idle.
    pub idle: Duration,
    /// Until it says `join`, `resume` or `watch`, a socket may stay until then.
    pub silent_until: Option<Instant>,
    /// Frames refused in a row.
    pub refused_in_a_row: u32,
    /// Cancelled when the log-in session the socket came with ends (log-out, password
    /// change). Checked before each frame: a frame read after the session ended is
    /// never the account's, whenever the task that closes the socket gets to run.
    pub session_ended: Option<CancellationToken>,
    /// The budgets of the client's address (fresh states).
    pub budgets: Arc<Budgets>,
    /// The client's address.
    pub addr: ClientAddr,
    /// For a guest (a socket with no log-in session): the accounts whose names its
    /// `join` and `watch` names may not borrow. `None` for a logged-in player, who
    /// sits and chats under its account's name whatever it sends.
    pub guest_names: Option<Arc<crate::accounts::Accounts>>,
}

/// What the reader does next after a frame.
enum Next {
    Go,
    Stop,
}

impl Reader {
    /// An answer of the reader's own; a connection whose queue is full is dropped.
    fn reply(&self, o: Outbound) {
        let sent = self.replies.as_ref().is_some_and(|r| r.try_send(o).is_ok());
        if !sent {
            self.kill.cancel();
        }
    }

    /// When the reader's one timer goes off: the earlier of idleness and silence.
    fn due(&self, heard: Instant) -> Instant {
        self.silent_until
            .map_or(heard + self.idle, |t| t.min(heard + self.idle))
    }

    /// Runs until the socket closes, the client breaks a limit, or the room is gone.
    pub(super) async fn run(&mut self) {
        // One timer for the reader's whole life, moved on only when it goes off: a fresh
        // timeout for every frame would be a trip through the timer wheel each.
        let mut heard = Instant::now();
        let timer = tokio::time::sleep_until(self.due(heard));
        tokio::pin!(timer);
        loop {
            let next = tokio::select! {
                biased;
                next = self.stream.next() => next,
                () = &mut timer => {
                    let now = Instant::now();
                    if self.silent_until.is_some_and(|t| t <= now) {
                        debug!("silent socket: closing");
                        self.reply(error_frame(
                            ErrorCode::BadMessage,
                            "this connection sent none of join, resume or watch: closing it",
                        ));
                        self.reply(Outbound::Close(1008, sannin_protocol::CloseReason::NoHello.as_str()));
                        break;
                    }
                    if heard + self.idle <= now {
                        debug!("idle timeout");
                        break;
                    }
                    timer.as_mut().reset(self.due(heard));
                    continue;
                }
            };
            heard = Instant::now();
            let frame = match next {
                None => break,
                Some(Err(e)) => {
                    if let Some((code, reason)) = close_for(&e) {
                        debug!(code, reason, "bad frame: closing");
                        self.metrics.bad_messages.fetch_add(1, Ordering::Relaxed);
                        self.reply(Outbound::Close(code, reason));
                    }
                    break;
                }
                Some(Ok(frame)) => frame,
            };
            // Boxed: handing a message to the room is most of the reader's future, and
            // an idle connection would otherwise keep room for it between messages.
            if let Next::Stop = Box::pin(self.frame(frame)).await {
                break;
            }
        }
        // The reader's state outlives this future (it is the connection's): let go of
        // the queue now, or the writer would wait for it.
        self.replies = None;
    }

    /// One frame from the client.
    async fn frame(&mut self, frame: Message) -> Next {
        if self
            .session_ended
            .as_ref()
            .is_some_and(|t| t.is_cancelled())
        {
            self.reply(session_ended_frame());
            self.reply(Outbound::Close(
                1008,
                sannin_protocol::CloseReason::SessionEnded.as_str(),
            ));
            return Next::Stop;
        }
        if matches!(frame, Message::Text(_) | Message::Binary(_)) {
            self.pings.said();
        }
        let stamp = match &frame {
            Message::Close(close) => {
                // The closing handshake (RFC 6455 §5.5.1): the client's code echoed,
                // or, for a close without one, the writer's own close frame at its end.
                if let Some(c) = close {
                    self.reply(Outbound::Close(u16::from(c.code), ""));
                }
                return Next::Stop;
            }
            Message::Pong(payload) => stamp_of(payload),
            _ => None,
        };
        // The answer to one of our pings is free.
        let asked = stamp.is_some_and(|s| self.pings.answered(s));
        let received = StdInstant::now();
        if !asked && !self.limit.allow() {
            return self.refused(&frame);
        }
        if !asked {
            self.refused_in_a_row = 0;
        }
        let text = match frame {
            Message::Text(t) => t,
            Message::Binary(_) => {
                self.metrics.bad_messages.fetch_add(1, Ordering::Relaxed);
                self.reply(error_frame(
                    ErrorCode::BadMessage,
                    "binary frames are not part of the protocol: send JSON text",
                ));
                return Next::Go;
            }
            Message::Pong(_) => {
                let rtt = stamp.and_then(|s| round_trip(s, self.time.now_ms()));
                return match rtt {
                    Some(rtt_ms) if self.room.rtt(self.conn, rtt_ms).await.is_err() => Next::Stop,
                    _ => Next::Go,
                };
            }
            Message::Ping(payload) => {
                self.reply(Outbound::Pong(payload));
                return Next::Go;
            }
            Message::Close(_) | Message::Frame(_) => return Next::Go,
        };
        self.text(text, received).await
    }

    /// A frame over the rate limit: dropped, and a flood closes the connection.
    fn refused(&mut self, frame: &Message) -> Next {
        self.metrics.rate_limited.fetch_add(1, Ordering::Relaxed);
        self.refused_in_a_row += 1;
        if self.refused_in_a_row >= FLOOD_CLOSE {
            debug!("flood: closing");
            self.reply(error_frame(
                ErrorCode::RateLimited,
                "far too many messages: closing this connection",
            ));
            self.reply(Outbound::Close(
                1008,
                sannin_protocol::CloseReason::RateLimited.as_str(),
            ));
            return Next::Stop;
        }
        // Control frames have nobody to answer to: they are just dropped.
        if matches!(frame, Message::Text(_) | Message::Binary(_)) {
            self.reply(error_frame(
                ErrorCode::RateLimited,
                "too many messages: this one was dropped; slow down",
            ));
        }
        Next::Go
    }

    /// A text frame: a protocol message for the room, or `bad_message`.
    async fn text(&mut self, text: tungstenite::Utf8Bytes, received: StdInstant) -> Next {
        if text.len() > self.max_bytes {
            self.metrics.bad_messages.fetch_add(1, Ordering::Relaxed);
            let limit = self.max_bytes;
            self.reply(error_frame(
                ErrorCode::BadMessage,
                format!("message too large: {} bytes, limit {limit}", text.len()),
            ));
            return Next::Go;
        }
        match ClientMsg::parse(text.as_str()) {
            Ok(msg) => {
                let fresh_state = matches!(
                    msg,
                    ClientMsg::Resume { .. } | ClientMsg::Watch { .. } | ClientMsg::Sync
                );
                if fresh_state {
                    if let Err(Refused::Rate { retry_after, .. }) =
                        self.budgets.take_now(Rate::States, self.addr)
                    {
                        self.reply(error_frame(
                            ErrorCode::RateLimited,
                            format!(
                                "too many fresh states asked from your address: try again in {} s",
                                retry_after.as_secs().max(1)
                            ),
                        ));
                        return Next::Go;
                    }
                }
                if matches!(
                    msg,
                    ClientMsg::Join { .. } | ClientMsg::Resume { .. } | ClientMsg::Watch { .. }
                ) {
                    self.silent_until = None;
                }
                // The accounts are taken out of the reader first: its future must not
                // borrow the reader (its stream is not `Sync`).
                let accounts = self.guest_names.clone();
                if let Err(refused) = check_guest_name(accounts, &msg).await {
                    self.reply(error_frame(ErrorCode::BadName, refused.message));
                    return Next::Go;
                }
                match self.room.message(self.conn, msg, received).await {
                    Ok(()) => Next::Go,
                    Err(_) => Next::Stop,
                }
            }
            Err(e) => {
                self.metrics.bad_messages.fetch_add(1, Ordering::Relaxed);
                self.reply(error_frame(ErrorCode::BadMessage, e));
                Next::Go
            }
        }
    }
}

/// A guest's `join` or `watch` name that borrows an account's or a computer player's,
/// or draws nothing: refused here, before the room sees it (`accounts` is `None` for
/// a logged-in socket).
async fn check_guest_name(
    accounts: Option<Arc<crate::accounts::Accounts>>,
    msg: &ClientMsg,
) -> Result<(), crate::accounts::names::Refused> {
    let (
        Some(accounts),
        ClientMsg::Join {
            name: Some(name), ..
        }
        | ClientMsg::Watch { name: Some(name) },
    ) = (accounts, msg)
    else {
        return Ok(());
    };
    match name.trim() {
        "" => Ok(()),
        name => accounts.check_guest_name(name).await,
    }
}

/// The last word to a socket whose log-in session ended.
pub(super) fn session_ended_frame() -> Outbound {
    error_frame(
        ErrorCode::LoginRequired,
        "you logged out, or your password was changed: this connection closes",
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pongs_carry_our_stamps_and_plausible_round_trips() {
        assert_eq!(stamp_of(&42u64.to_be_bytes()), Some(42));
        assert_eq!(stamp_of(b"short"), None);
        assert_eq!(round_trip(1_000, 1_250), Some(250));
        assert_eq!(round_trip(2_000, 1_000), None, "from the future");
        assert_eq!(round_trip(0, 60_001), None, "over a minute old");
    }
}
