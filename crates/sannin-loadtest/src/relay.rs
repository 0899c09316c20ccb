//! `sannin relay`: the floor under what the server's job costs.
//!
//! A bare relay speaks enough of the room protocol for `sannin loadtest` to play
//! against it unchanged — `POST /api/rooms`, a room's WebSocket, `GET /metrics` — and
//! nothing more: no rules, no storage, no clocks, no limits. A `join` is answered with
//! `seated`, a `ready` with `player_ready` (and the game starts once three are ready),
//! and the `act` of the seat to move is fanned out to the room's connections as the
//! server would: an `action` event, then a `state` to each connection, of the server's
//! sizes (taken from a real game at start-up: its position, its seats, the legal
//! actions of the player to move). Whatever the server spends beyond the relay's CPU
//! per action is the price of the game itself; the load test's `--baseline` prints the
//! two side by side (docs/performance.md, "How far from the floor").
//!
//! It uses the server's own stack (axum's WebSockets on tokio, the same buffer sizes,
//! the same worker threads), one task per connection, and a room as a lock around its
//! connections' queues.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use anyhow::Context as _;
use axum::extract::ws::{Message, Utf8Bytes, WebSocket, WebSocketUpgrade};
use axum::extract::{Path, State as AxumState};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;
use futures_util::SinkExt;
use sannin_protocol::{ClientMsg, Event, RoomStatus, Seat, SeatInfo, Seats, ServerMsg, State};
use tokio::sync::mpsc;

/// Flags of `sannin relay`.
#[derive(Debug, Clone, clap::Args)]
pub struct RelayArgs {
    /// Address to listen on.
    #[arg(long, default_value = "127.0.0.1:8090")]
    pub addr: String,

    /// Worker threads (0: one per core, as `sannin serve`).
    #[arg(long, default_value_t = 0)]
    pub workers: usize,
}

/// Runs the relay on a runtime of `--workers` threads until the process is stopped.
///
/// # Errors
/// The address cannot be listened on.
pub fn run_blocking(args: RelayArgs) -> anyhow::Result<()> {
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    let workers = sannin_server::worker_threads(args.workers, cores);
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(workers)
        .enable_all()
        .build()?
        .block_on(async move {
            let listener = tokio::net::TcpListener::bind(&args.addr)
                .await
                .with_context(|| format!("cannot listen on {}", args.addr))?;
            println!(
                "relay listening on {} ({workers} worker threads)",
                listener.local_addr()?
            );
            axum::serve(listener, router()).await?;
            Ok(())
        })
}

/// The relay's routes, over a fresh set of rooms.
pub fn router() -> Router {
    let relay = Arc::new(Relay {
        rooms: Mutex::default(),
        connections: AtomicU64::new(0),
        frames: Frames::new(),
    });
    Router::new()
        .route("/api/rooms", post(create))
        .route("/api/rooms/{id}/ws", get(upgrade))
        .route("/metrics", get(metrics))
        .with_state(relay)
}

struct Relay {
    rooms: Mutex<HashMap<String, Arc<Room>>>,
    connections: AtomicU64,
    frames: Frames,
}

async fn create(AxumState(relay): AxumState<Arc<Relay>>) -> Response {
    let id = uuid::Uuid::new_v4().to_string();
    let room = Arc::new(Room::default());
    lock(&relay.rooms).insert(id.clone(), room);
    (StatusCode::CREATED, format!(r#"{{"id":"{id}"}}"#)).into_response()
}

async fn metrics(AxumState(relay): AxumState<Arc<Relay>>) -> String {
    format!(
        "sannin_connections {}\n",
        relay.connections.load(Ordering::Relaxed)
    )
}

async fn upgrade(
    AxumState(relay): AxumState<Arc<Relay>>,
    Path(id): Path<String>,
    ws: WebSocketUpgrade,
) -> Response {
    let Some(room) = lock(&relay.rooms).get(&id).cloned() else {
        return StatusCode::NOT_FOUND.into_response();
    };
    // The server's buffer sizes (crates/sannin-server/src/http/ws).
    ws.read_buffer_size(1024)
        .write_buffer_size(16 * 1024)
        .on_upgrade(move |socket| connection(socket, room, relay))
}

/// One connection: frames in go to the room, the room's frames go out in bursts.
async fn connection(mut socket: WebSocket, room: Arc<Room>, relay: Arc<Relay>) {
    relay.connections.fetch_add(1, Ordering::Relaxed);
    let (tx, mut rx) = mpsc::unbounded_channel();
    let conn = room.connect(tx, &relay.frames);
    loop {
        tokio::select! {
            frame = socket.recv() => match frame {
                Some(Ok(Message::Text(text))) => room.receive(conn, &text, &relay.frames),
                Some(Ok(Message::Close(_)) | Err(_)) | None => break,
                Some(Ok(_)) => {}
            },
            out = rx.recv() => {
                let Some(first) = out else { break };
                if socket.feed(Message::Text(first)).await.is_err() {
                    break;
                }
                while let Ok(more) = rx.try_recv() {
                    if socket.feed(Message::Text(more)).await.is_err() {
                        break;
                    }
                }
                if socket.flush().await.is_err() {
                    break;
                }
            }
        }
    }
    room.disconnect(conn);
    relay.connections.fetch_sub(1, Ordering::Relaxed);
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// A room: its connections' queues, who sits where, whose turn it is.
#[derive(Default)]
struct Room {
    inner: Mutex<Inner>,
}

#[derive(Default)]
struct Inner {
    conns: Vec<Conn>,
    next_conn: u64,
    seated: [bool; 3],
    ready: [bool; 3],
    playing: bool,
    seq: u64,
    to_move: usize,
}

struct Conn {
    id: u64,
    seat: Option<usize>,
    tx: mpsc::UnboundedSender<Utf8Bytes>,
}

impl Inner {
    fn to_all(&self, frame: &Utf8Bytes) {
        for c in &self.conns {
            let _ = c.tx.send(frame.clone());
        }
    }

    fn event(&mut self, event: Event) {
        self.seq += 1;
        let frame = Utf8Bytes::from(ServerMsg::event(self.seq, event).to_text());
        self.to_all(&frame);
    }

    /// A `state` to every connection, each with its own seat.
    fn states(&self, frames: &Frames) {
        for c in &self.conns {
            let _ = c.tx.send(frames.state(self, c.seat));
        }
    }
}

impl Room {
    fn connect(&self, tx: mpsc::UnboundedSender<Utf8Bytes>, frames: &Frames) -> u64 {
        let mut room = lock(&self.inner);
        room.next_conn += 1;
        let id = room.next_conn;
        let _ = tx.send(frames.state(&room, None));
        room.conns.push(Conn { id, seat: None, tx });
        id
    }

    fn disconnect(&self, conn: u64) {
        lock(&self.inner).conns.retain(|c| c.id != conn);
    }

    fn receive(&self, conn: u64, text: &str, frames: &Frames) {
        let Ok(msg) = ClientMsg::parse(text) else {
            return;
        };
        let mut room = lock(&self.inner);
        let Some(at) = room.conns.iter().position(|c| c.id == conn) else {
            return;
        };
        match msg {
            ClientMsg::Join {
                seat: Some(seat), ..
            } if !room.seated[seat.index()] => {
                let i = seat.index();
                room.seated[i] = true;
                room.conns[at].seat = Some(i);
                let _ = room.conns[at].tx.send(frames.seated[i].clone());
                room.event(Event::PlayerJoined {
                    seat,
                    name: format!("bot-{seat}"),
                });
                let _ = room.conns[at].tx.send(frames.state(&room, Some(i)));
            }
            ClientMsg::Ready => {
                let Some(i) = room.conns[at].seat else { return };
                room.ready[i] = true;
                room.event(Event::PlayerReady {
                    seat: Seat::ALL[i],
                    ready: true,
                });
                if room.ready == [true; 3] && !room.playing {
                    room.playing = true;
                    room.event(Event::GameStarted);
                    room.states(frames);
                }
            }
            ClientMsg::Act { action } if room.playing => {
                let mover = room.to_move;
                if room.conns[at].seat != Some(mover) {
                    return;
                }
                room.event(Event::Action {
                    player: Seat::ALL[mover],
                    action,
                    clocks: None,
                });
                room.to_move = (mover + 1) % 3;
                room.states(frames);
            }
            _ => {}
        }
    }
}

/// The frames the relay sends, built once from a real game: `state` texts by
/// receiver and player to move, split where their `seq` goes.
struct Frames {
    seated: [Utf8Bytes; 3],
    /// `[receiver][to_move]` (receiver 3: a spectator), waiting or playing: the text
    /// before and after the `seq`.
    playing: Vec<(String, String)>,
    waiting: Vec<(String, String)>,
}

impl Frames {
    fn new() -> Frames {
        let seated = Seat::ALL.map(|seat| {
            let token = "0123456789abcdef".repeat(4);
            Utf8Bytes::from(format!(
                r#"{{"type":"seated","seat":"{seat}","token":"{token}"}}"#
            ))
        });
        let game = typical_game();
        let mut playing = Vec::new();
        let mut waiting = Vec::new();
        for you in [
            Some(Seat::First),
            Some(Seat::Middle),
            Some(Seat::Last),
            None,
        ] {
            for (to_move, (position, legal)) in Seat::ALL.into_iter().zip(&game.turns) {
                let mut state = State {
                    room: uuid::Uuid::nil().to_string(),
                    status: RoomStatus::Playing,
                    position: position.clone(),
                    start_position: game.start.clone(),
                    seats: game.seats.clone(),
                    to_move: Some(to_move),
                    legal: if you == Some(to_move) {
                        legal.clone()
                    } else {
                        Vec::new()
                    },
                    you,
                    grace_seconds: 120.0,
                    now_ms: 1_767_225_600_000,
                    ..State::default()
                };
                playing.push(split_at_seq(&state));
                state.status = RoomStatus::Waiting;
                state.to_move = None;
                state.legal = Vec::new();
                waiting.push(split_at_seq(&state));
            }
        }
        Frames {
            seated,
            playing,
            waiting,
        }
    }

    fn state(&self, room: &Inner, you: Option<usize>) -> Utf8Bytes {
        let k = you.unwrap_or(3) * 3 + room.to_move;
        let (before, after) = if room.playing {
            &self.playing[k]
        } else {
            &self.waiting[k]
        };
        Utf8Bytes::from(format!("{before}{}{after}", room.seq))
    }
}

fn split_at_seq(state: &State) -> (String, String) {
    let text = ServerMsg::state(State {
        seq: 0,
        ..state.clone()
    })
    .to_text();
    let at = text.find(r#""seq":0"#).expect("a state has a seq") + r#""seq":"#.len();
    (text[..at].to_string(), text[at + 1..].to_string())
}

/// A game some plies in: its start, three seats, and three successive turns (the
/// position and the legal actions of First, Middle and Last to move).
struct TypicalGame {
    start: String,
    seats: Seats,
    turns: Vec<(String, Vec<String>)>,
}

fn typical_game() -> TypicalGame {
    let mut game = sannin_rules::Game::new();
    let start = game.start_position_text().to_string();
    let mut rng = sannin_bot::Rng::new(7);
    // Twelve plies in, then three turns: First, Middle and Last to move in turn.
    let mut turns = Vec::new();
    for ply in 0..15 {
        let legal = game.legal_notation();
        if ply >= 12 {
            turns.push((game.position().position_string(), legal.clone()));
        }
        let Some(player) = game.to_move() else { break };
        let pick = legal[rng.below(legal.len())].clone();
        game.play_notation(player, &pick)
            .expect("a legal action plays");
    }
    let seat = |seat: Seat| {
        Some(SeatInfo {
            name: format!("bot-{seat}"),
            connected: true,
            ready: true,
            abandon_at_ms: None,
            bot: None,
            taken_over: false,
            account: None,
        })
    };
    TypicalGame {
        start,
        seats: Seats {
            first: seat(Seat::First),
            middle: seat(Seat::Middle),
            last: seat(Seat::Last),
        },
        turns,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn its_states_read_as_the_servers() {
        let frames = Frames::new();
        let room = Inner {
            playing: true,
            seq: 42,
            to_move: 1,
            ..Inner::default()
        };
        let text = frames.state(&room, Some(1));
        let ServerMsg::State(state) = ServerMsg::parse(&text).unwrap() else {
            panic!("not a state: {text}");
        };
        assert_eq!(state.seq, 42);
        assert_eq!(state.to_move, Some(Seat::Middle));
        assert_eq!(state.you, Some(Seat::Middle));
        assert!(!state.legal.is_empty(), "the mover gets its legal actions");
        let other = frames.state(&room, Some(0));
        let ServerMsg::State(other) = ServerMsg::parse(&other).unwrap() else {
            panic!("not a state");
        };
        assert!(other.legal.is_empty());
    }
}
