//! One WebSocket connection = a read task and a write task joined by `select!`
//! (STYLE 10), so a client that does not read cannot stall anything but itself.
//!
//! Limits of the socket (docs/protocol.md §7): every frame the client sends — text,
//! binary, ping, and pongs other than the answers to our own pings — takes a token of
//! the connection's bucket (`--rate-per-second`, `--rate-burst`); what is beyond is
//! dropped (text gets `rate_limited`), and a client that goes on sending
//! [`FLOOD_CLOSE`] frames in a row that way is closed with 1008. Frames the codec
//! refuses close with their RFC 6455 code: 1009 too big, 1007 invalid UTF-8, 1002 any
//! other protocol error.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant as StdInstant};

use axum::extract::ws::{CloseFrame, Message, Utf8Bytes, WebSocket};
use futures_util::{SinkExt, StreamExt};
use tokio::sync::{mpsc, oneshot};
use tokio_util::sync::CancellationToken;
use tracing::{debug, Instrument};

use axum::extract::ws::rejection::WebSocketUpgradeRejection;
use axum::extract::ws::WebSocketUpgrade;
use axum::extract::{Extension, Path, State};
use axum::http::HeaderMap;
use axum::response::Response;

use super::ClientAddr;
use crate::app::Shared;
use crate::error::ApiError;
use crate::error::ErrorCode;
use crate::net::ConnSlot;
use crate::rate::TokenBucket;
use crate::room::{Cmd, ConnHandle, Outbound, RoomHandle};
use sannin_protocol::{ClientMsg, ServerMsg};

/// Frames refused in a row (over the rate limit, none accepted in between) after which
/// the connection is closed with 1008: a client past this is flooding, not bursting.
pub const FLOOD_CLOSE: u32 = 200;

/// How long a connection closed for a bad frame or a flood is kept open after its
/// close frame, unread, so that the close frame reaches the client before the socket
/// goes (closing a socket with unread input resets it, and a reset can overtake it).
const LINGER: Duration = Duration::from_millis(500);

/// The most frames a connection's writer buffers before it flushes them to the socket.
const WRITE_BATCH: usize = 64;

/// The ms stamp a pong carries back: our pings carry 8 big-endian bytes.
fn stamp_of(payload: &[u8]) -> Option<u64> {
    Some(u64::from_be_bytes(payload.try_into().ok()?))
}

/// The round trip of a pong carrying `stamp`; None from the future or over a minute old.
fn round_trip(stamp: u64, now_ms: u64) -> Option<u64> {
    let rtt = now_ms.checked_sub(stamp)?;
    (rtt <= 60_000).then_some(rtt)
}

/// The stamps of our last pings not answered yet. A pong carrying one of them is the
/// answer we asked for: free. Any other pong is a frame like any other and takes a
/// token. Either measures the round trip if its stamp is plausible: a made-up stamp
/// gains a client no more than a delayed answer would (the credit is capped per move,
/// docs/protocol.md §11.3), so only the rate of pongs needs holding back.
///
/// It also carries word from the reader to the writer that the client sent a message
/// of its own since the writer's last keep-alive tick ([`Pings::said`]).
#[derive(Debug, Default)]
struct Pings {
    stamps: Mutex<VecDeque<u64>>,
    said: AtomicBool,
}

impl Pings {
    /// Pings in flight remembered; older ones are forgotten (their pongs then count).
    const KEEP: usize = 4;

    fn sent(&self, stamp: u64) {
        let mut q = self.stamps.lock().unwrap_or_else(PoisonError::into_inner);
        if q.len() >= Self::KEEP {
            q.pop_front();
        }
        q.push_back(stamp);
    }

    /// True (once) if `stamp` is that of a ping we sent.
    fn answered(&self, stamp: u64) -> bool {
        let mut q = self.stamps.lock().unwrap_or_else(PoisonError::into_inner);
        match q.iter().position(|s| *s == stamp) {
            Some(i) => {
                q.remove(i);
                true
            }
            None => false,
        }
    }

    /// The client sent a text or binary frame (the reader's note).
    fn said(&self) {
        if !self.said.load(Ordering::Relaxed) {
            self.said.store(true, Ordering::Relaxed);
        }
    }

    /// Whether the client sent a text or binary frame since the last call.
    fn take_said(&self) -> bool {
        self.said.swap(false, Ordering::Relaxed)
    }
}

/// The close frame for a frame the WebSocket codec refused (RFC 6455 §7.4.1), if it
/// deserves one: 1009 for a message over the hard cap, 1007 for a text message that
/// is not UTF-8, 1002 for other protocol errors. I/O errors (the peer is gone) get none.
fn close_for(e: axum::Error) -> Option<(u16, &'static str)> {
    use tokio_tungstenite::tungstenite::Error;
    let e = e.into_inner();
    match e.downcast_ref::<Error>()? {
        Error::Capacity(_) => Some((1009, "message too big")),
        Error::Utf8(_) => Some((1007, "text message is not valid UTF-8")),
        Error::Protocol(_) => Some((1002, "protocol error")),
        _ => None,
    }
}

fn error_frame(code: ErrorCode, message: impl Into<String>) -> Outbound {
    Outbound::Text(Utf8Bytes::from(ServerMsg::error(code, message).to_text()))
}

/// `GET /api/rooms/{id}/ws`. The socket holds its client's slot of
/// `--max-ws-per-address` and its slot of the connection cap as long as it is open.
pub(super) async fn upgrade(
    State(shared): State<Arc<Shared>>,
    Path(id): Path<String>,
    client: ClientAddr,
    slot: Option<Extension<ConnSlot>>,
    headers: HeaderMap,
    ws: Result<WebSocketUpgrade, WebSocketUpgradeRejection>,
) -> Result<Response, ApiError> {
    let ws = ws.map_err(|e| ApiError::Http {
        status: e.status(),
        message: e.body_text(),
    })?;
    if shared.shutdown.is_cancelled() {
        return Err(ApiError::ShuttingDown);
    }
    let limit = shared.config.listener.ws_handshake_timeout;
    let room = tokio::time::timeout(limit, async {
        let mut room = super::rooms::find(&shared, &id).await?;
        if room.tx.is_closed() {
            // Unloaded (idle and finished) just now: load it again.
            shared.unload_room(room.id);
            room = super::rooms::find(&shared, &id).await?;
        }
        Ok::<_, ApiError>(room)
    })
    .await
    .map_err(|_| ApiError::HandshakeTimeout)??;
    // The account of the session cookie, for the seats of rated rooms.
    let account = match crate::accounts::Accounts::token(&headers) {
        None => None,
        Some(_) => shared
            .accounts
            .account_of(&headers)
            .await
            .map(|(a, _)| Arc::<str>::from(a.name)),
    };
    let held = match &shared.cluster {
        // A cluster counts the sockets of every node.
        Some(c) => (None, Some(c.open_ws(client).await?), slot),
        None => (Some(shared.budgets.open_ws(client)?), None, slot),
    };
    let ws = ws.on_failed_upgrade(|e| tracing::debug!(error = %e, "WebSocket upgrade failed"));
    let cap = shared.config.hard_message_cap();
    // A small read buffer: protocol messages are small (an `act` is about 40 bytes), and
    // at thousands of connections the 128 KiB default dominates memory. tungstenite
    // also zero-fills the free part of the buffer before every read, so each KiB of it
    // is written once per message received; a larger message takes a few reads.
    // Frames written are gathered up to `WRITE_GATHER` bytes: the writer flushes after
    // each burst (an event and the state after it), so a burst goes out in one `send`
    // instead of one a frame; the buffer only ever holds what a burst needs.
    Ok(ws
        .read_buffer_size(READ_BUFFER)
        .write_buffer_size(WRITE_GATHER)
        .max_message_size(cap)
        .max_frame_size(cap)
        .on_upgrade(move |socket| async move {
            connection(socket, room, shared, account).await;
            drop(held);
        }))
}

/// Bytes read from a socket at a time (see `room_ws`).
const READ_BUFFER: usize = 1024;

/// The most bytes of frames gathered before they are written (see `room_ws`).
const WRITE_GATHER: usize = 16 * 1024;

/// Runs a connection to `room` until either side closes.
pub async fn connection(
    socket: WebSocket,
    room: RoomHandle,
    shared: Arc<Shared>,
    account: Option<Arc<str>>,
) {
    let conn = shared.next_conn_id();
    // At debug level, as everything logged under it: entering a span costs a lookup in
    // the subscriber's registry at every poll of the connection's tasks.
    let span = tracing::debug_span!("conn", room = %room.id, conn);
    async move {
        shared.metrics.connections.fetch_add(1, Ordering::Relaxed);
        run_connection(socket, conn, room, &shared, account).await;
        shared.metrics.connections.fetch_sub(1, Ordering::Relaxed);
        debug!("connection closed");
    }
    .instrument(span)
    .await;
}

async fn run_connection(
    socket: WebSocket,
    conn: u64,
    room: RoomHandle,
    shared: &Arc<Shared>,
    account: Option<Arc<str>>,
) {
    let config = &shared.config;
    let (tx, mut rx) = mpsc::channel::<Outbound>(config.send_queue);
    let kill = CancellationToken::new();
    let (mut sink, mut stream) = socket.split();

    let (reply_tx, reply_rx) = oneshot::channel();
    let handle = ConnHandle {
        tx: tx.clone(),
        kill: kill.clone(),
        account,
    };
    let registered = room
        .tx
        .send(Cmd::Connect {
            conn,
            out: handle,
            reply: reply_tx,
        })
        .await
        .is_ok();
    match reply_rx.await {
        Ok(Ok(())) if registered => {}
        other => {
            let code = match other {
                Ok(Err(code)) => code,
                _ => ErrorCode::ShuttingDown,
            };
            let msg = "the room is not available; try again later";
            let text = ServerMsg::error(code, msg).to_text();
            let _ = sink.send(Message::Text(text.into())).await;
            let _ = sink
                .send(Message::Close(Some(CloseFrame {
                    code: 1013,
                    reason: "try again later".into(),
                })))
                .await;
            return;
        }
    }
    debug!("connected");

    // Writer: drains the queue into the socket and pings every interval (the first ping
    // is the room's, once it lets the connection in: one on probation gets nothing),
    // unless the client sent a message and was sent one since the last tick: such a
    // connection is alive both ways, and its reader's idle timer is reset by what it
    // hears. Each ping carries the time-source ms it was sent at; its pong gives the
    // round trip the room credits back to a player's clock (docs/protocol.md §11; the
    // player to move is pinged by the room each turn).
    let ping_every = config.ping_interval;
    let writer_kill = kill.clone();
    let time = config.time.clone();
    let pings = Arc::new(Pings::default());
    let writer_pings = pings.clone();
    let tick_pings = pings.clone();
    let stamp = move || {
        let now = time.now_ms();
        writer_pings.sent(now);
        Message::Ping(now.to_be_bytes().to_vec().into())
    };
    let mut writer = tokio::spawn(
        async move {
            let mut ping =
                tokio::time::interval_at(tokio::time::Instant::now() + ping_every, ping_every);
            // One wait for `kill` for the writer's whole life, not one per wake-up: each
            // new wait takes the token's lock twice (to register, and on drop).
            let killed = writer_kill.cancelled();
            tokio::pin!(killed);
            let mut linger = false;
            // The room queued something for the client since the last tick.
            let mut sent = false;
            let mut frame_of = |out: Outbound| match out {
                Outbound::Text(t) => Message::Text(t),
                Outbound::Close(code, reason) => {
                    // Closed for what the client sent (flood, bad frame).
                    linger = matches!(code, 1002 | 1007 | 1008 | 1009);
                    Message::Close(Some(CloseFrame {
                        code,
                        reason: reason.into(),
                    }))
                }
                Outbound::Ping => stamp(),
            };
            loop {
                // The queue first: polling `killed` takes the token's lock, and a frame
                // waiting means there is no need to (a killed connection's queue is
                // closed by the room, so it ends either way).
                let first = tokio::select! {
                    biased;
                    out = rx.recv() => match out {
                        Some(out) => {
                            sent = true;
                            frame_of(out)
                        }
                        None => break,
                    },
                    () = &mut killed => break,
                    _ = ping.tick() => {
                        // Keep-alive: a connection that sent a message and was sent one
                        // since the last tick is alive both ways and needs no ping.
                        let said = tick_pings.take_said();
                        if std::mem::take(&mut sent) && said {
                            continue;
                        }
                        stamp()
                    }
                };
                // Whatever else is queued goes out with it: frames are buffered and
                // flushed once, one write to the socket for the whole batch.
                let batch = async {
                    let mut frame = first;
                    let mut fed = 0;
                    loop {
                        let closing = matches!(frame, Message::Close(_));
                        sink.feed(frame).await?;
                        fed += 1;
                        if closing {
                            sink.flush().await?;
                            return Ok::<bool, axum::Error>(true);
                        }
                        match rx.try_recv() {
                            Ok(out) => {
                                if fed == WRITE_BATCH {
                                    sink.flush().await?;
                                    fed = 0;
                                }
                                frame = frame_of(out);
                            }
                            Err(_) => break,
                        }
                    }
                    sink.flush().await?;
                    Ok(false)
                };
                // A send blocked by a client that does not read must not outlive `kill`.
                tokio::select! {
                    biased;
                    done = batch => match done {
                        Ok(false) => {}
                        _ => break,
                    },
                    () = &mut killed => break,
                }
            }
            if writer_kill.is_cancelled() {
                // Dropped for being too slow: one polite try at a close frame.
                let bye = Message::Close(Some(CloseFrame {
                    code: 1008,
                    reason: "too slow: resume to get a fresh state".into(),
                }));
                let _ = tokio::time::timeout(std::time::Duration::from_millis(100), sink.send(bye))
                    .await;
                return;
            }
            let _ = tokio::time::timeout(std::time::Duration::from_secs(1), sink.close()).await;
            if linger {
                tokio::time::sleep(LINGER).await;
            }
        }
        .in_current_span(),
    );

    // Reader: parses frames, applies limits, forwards commands to the room.
    let idle = ping_every * 3;
    // Until it says `join`, `resume` or `watch`, a socket has `--silent-socket-seconds`.
    let mut silent_until = config
        .silent_socket
        .map(|d| tokio::time::Instant::now() + d);
    let max_bytes = config.max_message_bytes;
    let mut limit = TokenBucket::new(config.rate_per_second, config.rate_burst);
    let room_tx = room.tx.clone();
    let reader_shared = shared.clone();
    let reader_tx = tx;
    let reader_kill = kill.clone();
    let time = config.time.clone();
    let mut reader = tokio::spawn(
        async move {
            let m = &reader_shared.metrics;
            let mut refused_in_a_row = 0u32;
            // Errors the reader itself answers go straight to the writer's queue.
            let reply = |o: Outbound| {
                if reader_tx.try_send(o).is_err() {
                    reader_kill.cancel();
                }
            };
            // One timer for the reader's whole life, moved on only when it goes off: a
            // fresh timeout for every frame would be a trip through the timer wheel each.
            let mut heard = tokio::time::Instant::now();
            let due = |heard: tokio::time::Instant, silent_until: Option<tokio::time::Instant>| {
                silent_until.map_or(heard + idle, |t| t.min(heard + idle))
            };
            let timer = tokio::time::sleep_until(due(heard, silent_until));
            tokio::pin!(timer);
            loop {
                let next = tokio::select! {
                    biased;
                    next = stream.next() => next,
                    () = &mut timer => {
                        let now = tokio::time::Instant::now();
                        if silent_until.is_some_and(|t| t <= now) {
                            debug!("silent socket: closing");
                            reply(error_frame(
                                ErrorCode::BadMessage,
                                "this connection sent none of join, resume or watch: closing it",
                            ));
                            reply(Outbound::Close(1008, "say join, resume or watch"));
                            break;
                        }
                        if heard + idle <= now {
                            debug!("idle timeout");
                            break;
                        }
                        timer.as_mut().reset(due(heard, silent_until));
                        continue;
                    }
                };
                heard = tokio::time::Instant::now();
                let frame = match next {
                    None => break,
                    Some(Err(e)) => {
                        if let Some((code, reason)) = close_for(e) {
                            debug!(code, reason, "bad frame: closing");
                            m.bad_messages.fetch_add(1, Ordering::Relaxed);
                            reply(Outbound::Close(code, reason));
                        }
                        break;
                    }
                    Some(Ok(frame)) => frame,
                };
                if matches!(frame, Message::Text(_) | Message::Binary(_)) {
                    pings.said();
                }
                let stamp = match &frame {
                    Message::Close(_) => break,
                    Message::Pong(payload) => stamp_of(payload),
                    _ => None,
                };
                // The answer to one of our pings is free.
                let asked = stamp.is_some_and(|s| pings.answered(s));
                let received = StdInstant::now();
                if !asked && !limit.allow() {
                    m.rate_limited.fetch_add(1, Ordering::Relaxed);
                    refused_in_a_row += 1;
                    if refused_in_a_row >= FLOOD_CLOSE {
                        debug!("flood: closing");
                        reply(error_frame(
                            ErrorCode::RateLimited,
                            "far too many messages: closing this connection",
                        ));
                        reply(Outbound::Close(1008, "too many messages"));
                        break;
                    }
                    // Control frames have nobody to answer to: they are just dropped.
                    if matches!(frame, Message::Text(_) | Message::Binary(_)) {
                        reply(error_frame(
                            ErrorCode::RateLimited,
                            "too many messages: this one was dropped; slow down",
                        ));
                    }
                    continue;
                }
                if !asked {
                    refused_in_a_row = 0;
                }
                let text = match frame {
                    Message::Text(t) => t,
                    Message::Binary(_) => {
                        m.bad_messages.fetch_add(1, Ordering::Relaxed);
                        reply(error_frame(
                            ErrorCode::BadMessage,
                            "binary frames are not part of the protocol: send JSON text",
                        ));
                        continue;
                    }
                    Message::Pong(_) => {
                        let rtt = stamp.and_then(|s| round_trip(s, time.now_ms()));
                        if let Some(rtt_ms) = rtt {
                            if room_tx.send(Cmd::Rtt { conn, rtt_ms }).await.is_err() {
                                break;
                            }
                        }
                        continue;
                    }
                    // The codec answers pings itself.
                    Message::Ping(_) | Message::Close(_) => continue,
                };
                if text.len() > max_bytes {
                    m.bad_messages.fetch_add(1, Ordering::Relaxed);
                    reply(error_frame(
                        ErrorCode::BadMessage,
                        format!("message too large: {} bytes, limit {max_bytes}", text.len()),
                    ));
                    continue;
                }
                match ClientMsg::parse(text.as_str()) {
                    Ok(msg) => {
                        if matches!(
                            msg,
                            ClientMsg::Join { .. }
                                | ClientMsg::Resume { .. }
                                | ClientMsg::Watch { .. }
                        ) {
                            silent_until = None;
                        }
                        if room_tx
                            .send(Cmd::Msg {
                                conn,
                                msg,
                                received,
                            })
                            .await
                            .is_err()
                        {
                            break;
                        }
                    }
                    Err(e) => {
                        m.bad_messages.fetch_add(1, Ordering::Relaxed);
                        reply(error_frame(ErrorCode::BadMessage, e));
                    }
                }
            }
        }
        .in_current_span(),
    );

    tokio::select! {
        _ = &mut writer => {
            reader.abort();
            let _ = room.tx.send(Cmd::Disconnect { conn }).await;
        }
        _ = &mut reader => {
            // The room drops its end of the queue on `Disconnect`; the writer then
            // flushes what is queued (a close frame included) and ends.
            let _ = room.tx.send(Cmd::Disconnect { conn }).await;
            if tokio::time::timeout(std::time::Duration::from_secs(2), &mut writer).await.is_err() {
                writer.abort();
            }
        }
    }
}
