//! The players: three connections per room that join, ready, and play random legal
//! actions until the game ends, the room reaches `--plies` actions, or time runs out.

use std::net::IpAddr;
use std::ops::ControlFlow;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use futures_util::{SinkExt, StreamExt};
use sannin_protocol::{ClientMsg, RoomStatus, Seat};
use tokio::sync::{Barrier, Semaphore};
use tokio_tungstenite::tungstenite::Message;

use crate::client::{connect, Ws};
use crate::wire;

/// What one room's players measured.
#[derive(Debug, Default)]
pub(super) struct RoomStats {
    pub actions: u64,
    pub latencies_us: Vec<u32>,
    pub errors: Vec<String>,
    pub finished: bool,
    /// Bytes of the frames received after the room started playing.
    pub bytes: u64,
    /// `seq` of each accepted action of this seat's, with the moment its `act` went.
    pub acted: Vec<(u64, Instant)>,
}

/// One player: where it plays and how.
pub(super) struct Player {
    /// Its room's WebSocket.
    pub url: String,
    pub seat: Seat,
    /// Most actions played in the room.
    pub plies: usize,
    /// Mean pause before each action.
    pub think: Duration,
    /// Of its random choices.
    pub seed: u64,
    /// The local address its connection comes from (any, when `None`).
    pub source: Option<IpAddr>,
    /// When it gives up waiting for the server.
    pub deadline: tokio::time::Instant,
}

/// Where every player waits: at `start` once its room is playing, at `end` once it has
/// played its last action.
pub(super) struct Gates {
    pub start: Arc<Gate>,
    pub end: Arc<Gate>,
}

/// A barrier that counts who has reached it, so that the one who opens it (the load
/// test's main task, its last party) can tell when everyone else waits there — and,
/// as one of several processes, tell its parent before it opens.
pub(super) struct Gate {
    barrier: Barrier,
    arrived: AtomicUsize,
    parties: usize,
}

impl Gate {
    pub fn new(parties: usize) -> Arc<Gate> {
        Arc::new(Gate {
            barrier: Barrier::new(parties),
            arrived: AtomicUsize::new(0),
            parties,
        })
    }

    /// Waits until every party has come.
    pub async fn wait(&self) {
        self.arrived.fetch_add(1, Ordering::SeqCst);
        self.barrier.wait().await;
    }

    /// Returns once every party but the last (the caller) waits at the gate.
    pub async fn all_but_one(&self) {
        while self.arrived.load(Ordering::SeqCst) + 1 < self.parties {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    }
}

/// One player: join its seat, ready, then play random legal actions when to move; wait
/// at the end gate for every other player to finish, then close.
pub(super) async fn play_seat(player: Player, sem: Arc<Semaphore>, gates: Gates) -> RoomStats {
    let mut ws = match connect(&player.url, player.source, &sem).await {
        Ok(ws) => ws,
        Err(e) => {
            gates.start.wait().await;
            gates.end.wait().await;
            return RoomStats {
                errors: vec![format!("{e:#}")],
                ..RoomStats::default()
            };
        }
    };
    let mut game = Game::new(&player);
    game.play(&mut ws, &gates.start, player.deadline).await;
    if !game.gated {
        gates.start.wait().await;
    }
    gates.end.wait().await;
    let _ = ws.close(None).await;
    game.stats
}

/// A player's game as its connection follows it.
struct Game {
    seat: Seat,
    plies: usize,
    think: Duration,
    rng: sannin_bot::Rng,
    /// When the `act` still awaiting its `action` event went.
    pending: Option<Instant>,
    plies_seen: wire::Plies,
    /// Whether it has passed the start gate.
    gated: bool,
    stats: RoomStats,
}

impl Game {
    fn new(player: &Player) -> Game {
        Game {
            seat: player.seat,
            plies: player.plies,
            think: player.think,
            rng: sannin_bot::Rng::new(player.seed),
            pending: None,
            plies_seen: wire::Plies::default(),
            gated: false,
            stats: RoomStats::default(),
        }
    }

    /// Joins, then answers the server's messages until the game is over for this
    /// player, the connection fails, or `deadline` passes.
    async fn play(&mut self, ws: &mut Ws, start: &Gate, deadline: tokio::time::Instant) {
        let seat = self.seat;
        let join = ClientMsg::Join {
            seat: Some(seat),
            name: Some(format!("bot-{seat}")),
        }
        .to_text();
        let ready = ClientMsg::Ready.to_text();
        if ws.send(Message::Text(join.into())).await.is_err() {
            self.stats.errors.push("send join".into());
        }
        loop {
            let msg = match tokio::time::timeout_at(deadline, ws.next()).await {
                Ok(Some(Ok(m))) => m,
                Ok(Some(Err(e))) => {
                    self.stats.errors.push(format!("read: {e}"));
                    break;
                }
                Ok(None) => break,
                Err(_) => {
                    self.stats.errors.push("deadline".into());
                    break;
                }
            };
            let Message::Text(text) = msg else { continue };
            if self.gated {
                self.stats.bytes += text.len() as u64;
            }
            let msg = match wire::Msg::parse(text.as_str()) {
                Ok(m) => m,
                Err(e) => {
                    self.stats.errors.push(format!("unreadable message: {e}"));
                    continue;
                }
            };
            self.plies_seen.see(&msg);
            let flow = match &*msg.kind {
                "seated" => {
                    let _ = ws.send(Message::Text(ready.clone().into())).await;
                    ControlFlow::Continue(())
                }
                "event" => {
                    self.on_event(&msg);
                    ControlFlow::Continue(())
                }
                "error" => {
                    self.stats.errors.push(msg.error_text());
                    self.pending = None;
                    ControlFlow::Continue(())
                }
                "state" => self.on_state(ws, &msg, start).await,
                _ => ControlFlow::Continue(()),
            };
            if flow.is_break() {
                break;
            }
        }
    }

    /// An `event`: the round trip of this player's pending `act`, if it is its action.
    fn on_event(&mut self, msg: &wire::Msg<'_>) {
        if let (Some(seq), Some(t)) = (msg.action_by(self.seat), self.pending) {
            self.pending = None;
            self.stats
                .latencies_us
                .push(t.elapsed().as_micros().min(u32::MAX as u128) as u32);
            self.stats.actions += 1;
            self.stats.acted.push((seq, t));
        }
    }

    /// A `state`: passes the start gate once the room plays, stops once the game ended
    /// or reached the ply cap, acts when it is this player's turn.
    async fn on_state(
        &mut self,
        ws: &mut Ws,
        msg: &wire::Msg<'_>,
        start: &Gate,
    ) -> ControlFlow<()> {
        let status = msg.status.unwrap_or_default();
        let playing = status == RoomStatus::Playing;
        if playing && !self.gated {
            self.gated = true;
            start.wait().await;
        }
        let finished = status == RoomStatus::Finished;
        if finished || self.plies_seen.0 >= self.plies {
            self.stats.finished = finished;
            return ControlFlow::Break(());
        }
        let my_turn = playing && msg.to_move == Some(self.seat);
        if my_turn && self.pending.is_none() && !msg.legal.is_empty() {
            return self.act(ws, &msg.legal).await;
        }
        ControlFlow::Continue(())
    }

    /// Sends one of `legal` at random, after a pause of 0.5–1.5 × the thinking time;
    /// breaks when the socket is gone.
    async fn act(&mut self, ws: &mut Ws, legal: &[String]) -> ControlFlow<()> {
        let action = legal[self.rng.below(legal.len())].clone();
        if !self.think.is_zero() {
            // Each pause is drawn from 0.5–1.5 × think, so the rooms, started together,
            // spread out into a steady load instead of acting in lockstep bursts.
            let factor = 0.5 + self.rng.below(1000) as f64 / 1000.0;
            tokio::time::sleep(self.think.mul_f64(factor)).await;
        }
        self.pending = Some(Instant::now());
        let act = ClientMsg::Act { action }.to_text();
        if ws.send(Message::Text(act.into())).await.is_err() {
            self.stats.errors.push("send act".into());
            return ControlFlow::Break(());
        }
        ControlFlow::Continue(())
    }
}
