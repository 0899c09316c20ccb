//! One WebSocket connection = a read task and a write task joined by `select!`
//! (STYLE 10), so a client that does not read cannot stall anything but itself.

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Instant as StdInstant;

use axum::extract::ws::{CloseFrame, Message, Utf8Bytes, WebSocket};
use futures_util::{SinkExt, StreamExt};
use tokio::sync::{mpsc, oneshot};
use tokio_util::sync::CancellationToken;
use tracing::{debug, Instrument};

use crate::app::Shared;
use crate::error::ErrorCode;
use crate::protocol::{self, parse_client_msg};
use crate::rate::TokenBucket;
use crate::room::{Cmd, ConnHandle, Outbound, RoomHandle};

/// The round trip of a pong whose payload is the ms stamp of our ping; None for a
/// pong we did not ask for (wrong size, from the future, over a minute old).
fn round_trip(payload: &[u8], now_ms: u64) -> Option<u64> {
    let stamp = u64::from_be_bytes(payload.try_into().ok()?);
    let rtt = now_ms.checked_sub(stamp)?;
    (rtt <= 60_000).then_some(rtt)
}

fn error_frame(code: ErrorCode, message: impl Into<String>) -> Outbound {
    Outbound::Text(Utf8Bytes::from(protocol::to_text(&protocol::error_msg(
        code, message,
    ))))
}

/// Runs a connection to `room` until either side closes.
pub async fn connection(socket: WebSocket, room: RoomHandle, shared: Arc<Shared>) {
    let conn = shared.next_conn_id();
    let span = tracing::info_span!("conn", room = %room.id, conn);
    async move {
        shared.metrics.connections.fetch_add(1, Ordering::Relaxed);
        run_connection(socket, conn, room, &shared).await;
        shared.metrics.connections.fetch_sub(1, Ordering::Relaxed);
        debug!("connection closed");
    }
    .instrument(span)
    .await;
}

async fn run_connection(socket: WebSocket, conn: u64, room: RoomHandle, shared: &Arc<Shared>) {
    let config = &shared.config;
    let (tx, mut rx) = mpsc::channel::<Outbound>(config.send_queue);
    let kill = CancellationToken::new();
    let (mut sink, mut stream) = socket.split();

    let (reply_tx, reply_rx) = oneshot::channel();
    let handle = ConnHandle {
        tx: tx.clone(),
        kill: kill.clone(),
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
            let (code, msg) = match other {
                Ok(Err(ErrorCode::RoomFull)) => {
                    (ErrorCode::RoomFull, "this room has too many connections")
                }
                _ => (ErrorCode::ShuttingDown, "the room is not available"),
            };
            let text = protocol::to_text(&protocol::error_msg(code, msg));
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

    // Writer: drains the queue into the socket, pings at once and then periodically.
    // Each ping carries the time-source ms it was sent at; its pong gives the round
    // trip the room credits back to a player's clock (docs/protocol.md §11).
    let ping_every = config.ping_interval;
    let writer_kill = kill.clone();
    let time = config.time.clone();
    let stamp = move || Message::Ping(time.now_ms().to_be_bytes().to_vec().into());
    let mut writer = tokio::spawn(
        async move {
            let mut ping = tokio::time::interval(ping_every);
            loop {
                let frame = tokio::select! {
                    biased;
                    () = writer_kill.cancelled() => break,
                    out = rx.recv() => match out {
                        Some(Outbound::Text(t)) => Message::Text(t),
                        Some(Outbound::Close(code, reason)) => {
                            Message::Close(Some(CloseFrame { code, reason: reason.into() }))
                        }
                        Some(Outbound::Ping) => stamp(),
                        None => break,
                    },
                    _ = ping.tick() => stamp(),
                };
                let closing = matches!(frame, Message::Close(_));
                // A send blocked by a client that does not read must not outlive `kill`.
                tokio::select! {
                    biased;
                    () = writer_kill.cancelled() => break,
                    sent = sink.send(frame) => {
                        if sent.is_err() || closing {
                            break;
                        }
                    }
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
        }
        .in_current_span(),
    );

    // Reader: parses frames, applies limits, forwards commands to the room.
    let idle = ping_every * 3;
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
            // Errors the reader itself answers go straight to the writer's queue.
            let reply = |o: Outbound| {
                if reader_tx.try_send(o).is_err() {
                    reader_kill.cancel();
                }
            };
            loop {
                let frame = match tokio::time::timeout(idle, stream.next()).await {
                    Err(_) => {
                        debug!("idle timeout");
                        break;
                    }
                    Ok(None) | Ok(Some(Err(_))) => break,
                    Ok(Some(Ok(frame))) => frame,
                };
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
                    Message::Pong(payload) => {
                        if let Some(rtt_ms) = round_trip(&payload, time.now_ms()) {
                            if room_tx.send(Cmd::Rtt { conn, rtt_ms }).await.is_err() {
                                break;
                            }
                        }
                        continue;
                    }
                    Message::Ping(_) => continue,
                    Message::Close(_) => break,
                };
                let received = StdInstant::now();
                if !limit.allow() {
                    m.rate_limited.fetch_add(1, Ordering::Relaxed);
                    reply(error_frame(
                        ErrorCode::RateLimited,
                        "too many messages: this one was dropped; slow down",
                    ));
                    continue;
                }
                if text.len() > max_bytes {
                    m.bad_messages.fetch_add(1, Ordering::Relaxed);
                    reply(error_frame(
                        ErrorCode::BadMessage,
                        format!("message too large: {} bytes, limit {max_bytes}", text.len()),
                    ));
                    continue;
                }
                match parse_client_msg(text.as_str()) {
                    Ok(msg) => {
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
