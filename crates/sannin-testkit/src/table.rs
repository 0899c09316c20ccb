//! Three seated players and a spectator in a room, their game started.

use sannin_protocol::{ClientMsg, RoomStatus, Seat, State};
use serde_json::Value;

use crate::{http, Client};

/// A server a [`Table`] can be laid at: its address, from which its HTTP base and
/// the WebSocket URL of each room follow. A `str` is one: `host:port`, or an HTTP
/// base `http://host:port`.
pub trait Endpoint {
    /// `host:port`.
    fn addr(&self) -> String;

    /// `http://host:port`.
    fn http_base(&self) -> String {
        format!("http://{}", self.addr())
    }

    /// The WebSocket URL of `room`.
    fn ws_url(&self, room: &str) -> String {
        format!("ws://{}/api/rooms/{room}/ws", self.addr())
    }
}

impl Endpoint for str {
    fn addr(&self) -> String {
        let s = self.strip_prefix("http://").unwrap_or(self);
        s.trim_end_matches('/').to_string()
    }
}

impl<T: Endpoint + ?Sized> Endpoint for &T {
    fn addr(&self) -> String {
        (**self).addr()
    }
}

impl Endpoint for String {
    fn addr(&self) -> String {
        self.as_str().addr()
    }
}

/// Three seated players and a spectator in a room whose game has started.
pub struct Table {
    pub room: String,
    /// Indexed by `Seat::index`.
    pub players: Vec<Client>,
    pub spectator: Client,
}

impl Table {
    /// Creates a room at `server` (`POST /api/rooms` with `body`), seats three players,
    /// readies them: [`Table::start`].
    pub async fn new(server: &(impl Endpoint + ?Sized), body: Value) -> Table {
        let addr = server.addr();
        let room = tokio::task::spawn_blocking(move || http::create_room(&addr, &body.to_string()))
            .await
            .expect("create a room");
        let url = server.ws_url(&room);
        Table::start(room, [&url, &url, &url], &url).await
    }

    /// Connects a spectator at `spectator` and a player for each seat at `players[i]`
    /// (seat index `i`, named `player{i}`) to `room`, readies the players, and waits
    /// until all four have the game started.
    pub async fn start(room: String, players: [&str; 3], spectator: &str) -> Table {
        let spectator = Client::connect(spectator).await;
        let mut seated = Vec::new();
        for ((i, seat), url) in Seat::ALL.into_iter().enumerate().zip(players) {
            let mut c = Client::connect(url).await;
            let got = c.join(Some(seat), &format!("player{i}")).await;
            assert_eq!(got, seat);
            seated.push(c);
        }
        let mut t = Table {
            room,
            players: seated,
            spectator,
        };
        for p in t.players.iter_mut() {
            p.send(ClientMsg::Ready).await;
        }
        for c in t.clients_mut() {
            c.until_event("game_started").await;
            c.until_playing().await;
        }
        t
    }

    /// The players, then the spectator.
    pub fn clients_mut(&mut self) -> impl Iterator<Item = &mut Client> {
        self.players.iter_mut().chain([&mut self.spectator])
    }

    /// The player to move, as the spectator last saw it.
    pub fn to_move(&self) -> Seat {
        self.spectator.state().to_move.expect("someone to move")
    }

    pub fn player(&mut self, seat: Seat) -> &mut Client {
        &mut self.players[seat.index()]
    }

    /// The client of the player to move.
    pub fn mover(&mut self) -> &mut Client {
        let seat = self.to_move();
        self.player(seat)
    }

    /// Plays `action` for the player to move and waits until all four clients have the
    /// resulting state. Returns that state as the spectator saw it.
    pub async fn play(&mut self, action: &str) -> State {
        let seq = self.spectator.state().seq;
        self.mover().act(action).await;
        let after = |s: &State| s.seq > seq;
        for p in self.players.iter_mut() {
            p.until_state("state after the action", after).await;
        }
        self.spectator
            .until_state("state after the action", after)
            .await
    }

    /// First, then Middle resign: the game is over (Last wins). Returns once the
    /// spectator has the finished state.
    pub async fn finish_by_resignations(&mut self) -> State {
        self.players[0].send(ClientMsg::Resign).await;
        self.spectator.until_event("resigned").await;
        self.players[1].send(ClientMsg::Resign).await;
        self.spectator
            .until_state("finished", |s| s.status == RoomStatus::Finished)
            .await
    }

    /// All four event streams are identical and gap-free.
    pub fn assert_same_streams(&self) {
        let reference = &self.spectator.events;
        for w in reference.windows(2) {
            assert_eq!(w[1].0, w[0].0 + 1, "seq rises by one");
        }
        let last = reference.last().map(|e| e.0).unwrap_or(0);
        for p in &self.players {
            // Players joined after the spectator: compare from their first event on.
            let first = p.events.first().map(|e| e.0).unwrap_or(last + 1);
            assert_eq!(
                p.events,
                self.spectator.events_from(first),
                "same events, same order"
            );
        }
    }
}
