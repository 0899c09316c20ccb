//! A room's WebSocket (docs/protocol.md, "WebSocket"): the upgrade, then one
//! connection = a reader and a writer joined by `select!` in the connection's task,
//! so a client that does not read cannot stall anything but itself (axum's chat
//! example; see docs/conventions.md, "Each socket is two halves").
//!
//! | file        | handles                                                        |
//! |-------------|----------------------------------------------------------------|
//! | `mod.rs`    | the upgrade, joining the room, the two halves, their shared pings |
//! | `reader.rs` | frames in (tungstenite's codec): limits, parsing, messages to the room |
//! | `writer.rs` | frames out, laid out here: the room's queue in bursts, pings, answers |

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use axum::body::Body;
use axum::extract::ws::rejection::WebSocketUpgradeRejection;
use axum::extract::ws::WebSocketUpgrade;
use axum::extract::{Extension, FromRequestParts, Path, State};
use axum::http::{header, request::Parts, HeaderMap, StatusCode};
use axum::response::Response;
use futures_util::FutureExt;
use hyper::upgrade::{OnUpgrade, Upgraded};
use hyper_util::rt::TokioIo;
use sannin_protocol::ServerMsg;
use tokio::io::{Join, ReadHalf, WriteHalf};
use tokio_tungstenite::tungstenite::handshake::derive_accept_key;
use tokio_tungstenite::tungstenite::protocol::{Role, WebSocketConfig};
use tokio_tungstenite::WebSocketStream;
use tokio_util::sync::CancellationToken;

use crate::accounts::sessions::SessionWatch;
use std::future::Future;
use tracing::{debug, Instrument};

use super::ClientAddr;
use crate::app::Shared;
use crate::http::ApiError;
use crate::net::ConnSlot;
use crate::room::{ConnAccount, ConnHandle, Outbound, RoomHandle};
use sannin_protocol::ErrorCode;

mod reader;
mod writer;

/// An upgraded connection's socket.
type Io = TokioIo<Upgraded>;

/// The half of the socket the writer writes frames to (`writer::Frames`).
type Sink = WriteHalf<Io>;

/// The frames the client sends, read by tungstenite from the other half of the socket.
/// tungstenite also writes its own answers to the client's pings and closes: those go to
/// a sink that drops them, since every frame to the client goes through the writer,
/// which answers pings and closes itself (the reader queues the answers).
type Incoming = WebSocketStream<Join<ReadHalf<Io>, tokio::io::Sink>>;

/// The request's promise of its upgraded connection, taken before axum's
/// [`WebSocketUpgrade`] checks the request: that check gives the socket to a WebSocket
/// whose writer keeps its largest buffer for life, so the server keeps the socket
/// itself and only the reading goes to tungstenite (see [`Incoming`]).
pub(super) struct Upgrading(Option<OnUpgrade>);

impl<S: Send + Sync> FromRequestParts<S> for Upgrading {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, Self::Rejection> {
        Ok(Upgrading(parts.extensions.get::<OnUpgrade>().cloned()))
    }
}

/// `GET /api/rooms/{id}/ws`. The socket holds its client's slot of
/// `--max-ws-per-address` and its slot of the connection cap as long as it is open.
pub(super) async fn upgrade(
    State(shared): State<Arc<Shared>>,
    Path(id): Path<String>,
    client: ClientAddr,
    slot: Option<Extension<ConnSlot>>,
    headers: HeaderMap,
    upgrading: Upgrading,
    ws: Result<WebSocketUpgrade, WebSocketUpgradeRejection>,
) -> Result<Response, ApiError> {
    // axum's checks of the request (GET, the Upgrade, Connection and version headers,
    // a key): what they refuse gets their status and words. What they give back is
    // dropped unused: the server answers the handshake itself, below.
    drop(ws.map_err(|e| ApiError::Http {
        status: e.status(),
        message: e.body_text(),
    })?);
    let (Some(on_upgrade), Some(key)) = (upgrading.0, headers.get(header::SEC_WEBSOCKET_KEY))
    else {
        return Err(ApiError::Http {
            status: StatusCode::UPGRADE_REQUIRED,
            message: "this connection cannot be upgraded to a WebSocket".into(),
        });
    };
    let accept = derive_accept_key(key.as_bytes());
    if shared.shutdown.is_cancelled() {
        return Err(crate::limits::Refused::ShuttingDown.into());
    }
    let limit = shared.config.listener.ws_handshake_timeout;
    let room = tokio::time::timeout(limit, async {
        let mut room = super::rooms::find(&shared, &id, client).await?;
        if room.is_closed() {
            // Unloaded (idle and finished) just now: load it again.
            shared.rooms.unload_if(&room);
            room = super::rooms::find(&shared, &id, client).await?;
        }
        Ok::<_, ApiError>(room)
    })
    .await
    .map_err(|_| ApiError::HandshakeTimeout)??;
    // The account of the session cookie, for the seats of rated rooms.
    // The socket closes when that session ends (log-out, password change).
    let (account, session) = match crate::http::session::session(&headers) {
        None => (None, None),
        Some(_) => match shared
            .accounts
            .account_of(crate::http::session::session(&headers).as_deref())
            .await
        {
            None => (None, None),
            Some((a, hash)) => {
                let watch = shared.accounts.sockets.watch(&hash, &a.id);
                let account = Arc::new(ConnAccount {
                    id: a.id,
                    name: a.name,
                });
                (Some(account), Some(watch))
            }
        },
    };
    let held = (shared.budgets.open_stream(client).await?, slot);
    let cap = shared.config.hard_message_cap();
    // A small read buffer: protocol messages are small (an `act` is about 40 bytes), and
    // at thousands of connections the 128 KiB default dominates memory. tungstenite
    // also zero-fills the free part of the buffer before every read, so each KiB of it
    // is written once per message received; a larger message takes a few reads.
    // tungstenite writes nothing that reaches the client (see `Incoming`).
    let config = WebSocketConfig::default()
        .read_buffer_size(READ_BUFFER)
        .write_buffer_size(0)
        .max_message_size(Some(cap))
        .max_frame_size(Some(cap));
    tokio::spawn(async move {
        let io = match on_upgrade.await {
            Ok(upgraded) => TokioIo::new(upgraded),
            Err(e) => {
                tracing::debug!(error = %e, "WebSocket upgrade failed");
                return;
            }
        };
        let (read, sink) = tokio::io::split(io);
        let read = tokio::io::join(read, tokio::io::sink());
        let incoming = WebSocketStream::from_raw_socket(read, Role::Server, Some(config)).await;
        let upgraded = Start {
            room,
            shared,
            account,
            session,
            client,
        };
        // The connection gets a task of its own, and this one (the upgrade's, with
        // room for the upgrade's future) ends here.
        tokio::spawn(connection(sink, incoming, upgraded).map(move |()| drop(held)));
    });
    Ok(Response::builder()
        .status(StatusCode::SWITCHING_PROTOCOLS)
        .header(header::CONNECTION, "upgrade")
        .header(header::UPGRADE, "websocket")
        .header(header::SEC_WEBSOCKET_ACCEPT, accept)
        .body(Body::empty())
        .unwrap_or_default())
}

/// What a connection starts with, besides its socket.
struct Start {
    room: RoomHandle,
    shared: Arc<Shared>,
    /// The account of the session cookie, for the seats of rated rooms.
    account: Option<Arc<ConnAccount>>,
    /// Closes the socket when that session ends (log-out, password change).
    session: Option<SessionWatch>,
    client: ClientAddr,
}

/// Bytes read from a socket at a time (see `upgrade`): an `act` is about 40, a chat
/// line at the limit takes a few reads.
const READ_BUFFER: usize = 256;

/// Runs a connection to its room until either side closes.
fn connection(sink: Sink, stream: Incoming, up: Start) -> impl Future<Output = ()> {
    let conn = up.shared.rooms.next_conn_id();
    // At debug level, as everything logged under it: entering a span costs a lookup in
    // the subscriber's registry at every poll of the connection's task.
    let span = tracing::debug_span!("conn", room = %up.room.id, conn);
    run(sink, stream, conn, up).instrument(span)
}

/// Hands the connection to the room. A room that stopped just as the socket came (it
/// fell asleep, or was unloaded once idle) is loaded again and asked once more.
async fn connect(
    shared: &Arc<Shared>,
    mut room: RoomHandle,
    conn: u64,
    out: ConnHandle,
) -> (RoomHandle, Result<(), ErrorCode>) {
    for _ in 0..3 {
        match room.connect(conn, out.clone()).await {
            Err(ErrorCode::ShuttingDown) if !shared.shutdown.is_cancelled() => {
                shared.rooms.unload_if(&room);
                match shared.room(room.id).await {
                    Ok(Some(h)) => room = h,
                    _ => break,
                }
            }
            done => return (room, done),
        }
    }
    (room, Err(ErrorCode::ShuttingDown))
}

/// Joins the room, then runs the reader and the writer until either ends.
async fn run(mut sink: Sink, stream: Incoming, conn: u64, up: Start) {
    // Read in place, not taken apart: its fields moved into locals would be held
    // twice too.
    let _counted = Counted::new(&up.shared);
    let shared = &up.shared;
    let client = up.client;
    let session = &up.session;
    let config = &shared.config;
    let (tx, rx) = crate::room::outbox(config.send_queue);
    let kill = CancellationToken::new();
    let out = ConnHandle {
        tx: tx.clone(),
        kill: kill.clone(),
        account: up.account.clone(),
        addr: Some(client),
    };
    // Boxed: loading a room is a large future (the database's), and the connection's
    // task, which lives as long as the socket, would otherwise keep room for it.
    let (room, connected) = Box::pin(connect(shared, up.room.clone(), conn, out)).await;
    if let Err(code) = connected {
        let msg = "the room is not available; try again later";
        let text = ServerMsg::error(code, msg).to_text();
        let mut frames = writer::Frames::default();
        frames.text(text.as_bytes());
        frames.close(1013, sannin_protocol::CloseReason::Unavailable.as_str());
        let _ = frames.write(&mut sink).await;
        return;
    }
    debug!("connected");
    let pings = Arc::new(Pings::default());
    // A weak end of the queue: it must not keep the writer from ending.
    let replies = tx.downgrade();
    let ended = session.as_ref().map(|w| w.ended.clone());
    let session_ended = async move {
        match ended {
            Some(t) => t.cancelled_owned().await,
            None => std::future::pending().await,
        }
    };
    // The halves' state lives here and their futures borrow it: a future that took it
    // by value would hold it twice (the argument, and the local it moves into).
    let mut writer = writer::Writer {
        sink,
        rx,
        kill: kill.clone(),
        pings: pings.clone(),
        time: config.time.clone(),
        ping_every: config.ping_interval,
    };
    let writer = writer.run();
    let mut reader = reader::Reader {
        stream,
        conn,
        room: room.clone(),
        replies: Some(tx),
        kill,
        pings,
        metrics: shared.metrics.clone(),
        time: config.time.clone(),
        limit: crate::limits::Bucket::new(config.rate_per_second, config.rate_burst, &config.time),
        max_bytes: config.max_message_bytes,
        idle: config.ping_interval * 3,
        silent_until: config
            .silent_socket
            .map(|d| tokio::time::Instant::now() + d),
        refused_in_a_row: 0,
        session_ended: session.as_ref().map(|w| w.ended.clone()),
        budgets: shared.budgets.clone(),
        addr: client,
        guest_names: up.account.is_none().then(|| shared.accounts.clone()),
    };
    let reader = reader.run();
    // Both halves run in this one task (each waits on its own: a reader held up by a
    // full room queue does not hold up the writer, nor the other way round): at ten
    // thousand connections, a task each would cost two more allocations apiece.
    tokio::pin!(writer, reader);
    tokio::select! {
        () = &mut writer => {
            Box::pin(room.disconnect(conn)).await;
        }
        () = &mut reader => {
            // The room drops its end of the queue on `disconnect`; the writer then
            // flushes what is queued (a close frame included) and ends.
            Box::pin(room.disconnect(conn)).await;
            let _ = tokio::time::timeout(std::time::Duration::from_secs(2), &mut writer).await;
        }
        () = session_ended => {
            debug!("its session ended: closing");
            if let Some(tx) = replies.upgrade() {
                let _ = tx.try_send(reader::session_ended_frame());
                let _ = tx.try_send(Outbound::Close(1008, sannin_protocol::CloseReason::SessionEnded.as_str()));
            }
            Box::pin(room.disconnect(conn)).await;
            let _ = tokio::time::timeout(std::time::Duration::from_secs(2), &mut writer).await;
        }
    }
}

/// Counts an open connection in `sannin_connections` while it lives.
struct Counted(Arc<Shared>);

impl Counted {
    fn new(shared: &Arc<Shared>) -> Counted {
        shared.metrics.connections.fetch_add(1, Ordering::Relaxed);
        Counted(shared.clone())
    }
}

impl Drop for Counted {
    fn drop(&mut self) {
        self.0.metrics.connections.fetch_sub(1, Ordering::Relaxed);
        debug!("connection closed");
    }
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
pub(super) struct Pings {
    stamps: Mutex<VecDeque<u64>>,
    said: AtomicBool,
}

impl Pings {
    /// Pings in flight remembered; older ones are forgotten (their pongs then count).
    const KEEP: usize = 4;

    pub(super) fn sent(&self, stamp: u64) {
        let mut q = self.stamps.lock().unwrap_or_else(PoisonError::into_inner);
        if q.len() >= Self::KEEP {
            q.pop_front();
        }
        q.push_back(stamp);
    }

    /// True (once) if `stamp` is that of a ping we sent.
    pub(super) fn answered(&self, stamp: u64) -> bool {
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
    pub(super) fn said(&self) {
        if !self.said.load(Ordering::Relaxed) {
            self.said.store(true, Ordering::Relaxed);
        }
    }

    /// Whether the client sent a text or binary frame since the last call.
    pub(super) fn take_said(&self) -> bool {
        self.said.swap(false, Ordering::Relaxed)
    }
}
