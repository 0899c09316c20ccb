//! WebSocket clients that read every server message as a `sannin_protocol` type, and
//! a [`Table`] of three players and a spectator.

use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use sannin_protocol::{ClientMsg, ErrorCode, Event, Follower, RoomStatus, Seat, ServerMsg, State};
use serde_json::Value;
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

use super::{TestServer, TIMEOUT};

pub type Ws = WebSocketStream<MaybeTlsStream<TcpStream>>;

/// A protocol client: every message it reads must be a [`ServerMsg`]; it records the
/// events, the latest state (made whole: a state after an action leaves `moves` out),
/// and its seat and token.
pub struct Client {
    pub ws: Ws,
    pub events: Vec<(u64, Event)>,
    follow: Follower,
    pub seat: Option<Seat>,
    pub token: Option<String>,
    /// The server closed the connection.
    pub closed: bool,
    /// WebSocket pings read (the codec answers them).
    pub pings: u32,
}

impl Client {
    /// A connection that has read nothing yet (a newcomer to a room full of spectators
    /// is sent nothing until it takes a seat).
    pub async fn connect_raw(url: &str) -> Client {
        let (ws, _) = tokio_tungstenite::connect_async(url)
            .await
            .expect("ws connect");
        Client::over(ws)
    }

    /// A client over an open socket that has read nothing yet.
    fn over(ws: Ws) -> Client {
        Client {
            ws,
            events: Vec::new(),
            follow: Follower::default(),
            seat: None,
            token: None,
            closed: false,
            pings: 0,
        }
    }

    /// A connection carrying `cookie` (`name=value`) in its upgrade request, and the
    /// `state` it is sent first.
    pub async fn connect_with_cookie(url: &str, cookie: &str) -> Client {
        use tokio_tungstenite::tungstenite::client::IntoClientRequest;
        let mut req = url.into_client_request().expect("a ws request");
        req.headers_mut()
            .insert("cookie", cookie.parse().expect("a cookie header"));
        let (ws, _) = tokio_tungstenite::connect_async(req)
            .await
            .expect("ws connect");
        let mut c = Client::over(ws);
        let first = c.recv().await;
        assert!(
            matches!(first, ServerMsg::State(_)),
            "first message is a state: {first:?}"
        );
        c
    }

    /// A connection and the `state` it is sent first.
    pub async fn connect(url: &str) -> Client {
        let mut c = Client::connect_raw(url).await;
        let first = c.recv().await;
        assert!(
            matches!(first, ServerMsg::State(_)),
            "first message is a state: {first:?}"
        );
        c
    }

    pub async fn send(&mut self, msg: ClientMsg) {
        self.send_text(msg.to_text()).await;
    }

    /// Sends any JSON (for messages the protocol refuses).
    pub async fn send_json(&mut self, v: Value) {
        self.send_text(v.to_string()).await;
    }

    pub async fn send_text(&mut self, text: String) {
        self.send_raw(Message::Text(text.into())).await;
    }

    pub async fn send_raw(&mut self, m: Message) {
        self.ws.send(m).await.expect("send raw");
    }

    /// Next protocol message (control frames skipped), recording events and states.
    pub async fn recv(&mut self) -> ServerMsg {
        self.try_recv(TIMEOUT).await.expect("a message in time")
    }

    /// The next message within `timeout`; `None` on timeout, error or close (then
    /// `closed` is set).
    pub async fn try_recv(&mut self, timeout: Duration) -> Option<ServerMsg> {
        loop {
            let msg = match tokio::time::timeout(timeout, self.ws.next()).await {
                Err(_) => return None,
                Ok(None) | Ok(Some(Err(_))) => {
                    self.closed = true;
                    return None;
                }
                Ok(Some(Ok(m))) => m,
            };
            match msg {
                Message::Text(t) => {
                    let mut m = ServerMsg::parse(t.as_str())
                        .unwrap_or_else(|e| panic!("not a protocol message ({e}): {t}"));
                    self.follow.see(&mut m);
                    match &m {
                        ServerMsg::Event { seq, event } => self.events.push((*seq, event.clone())),
                        ServerMsg::Seated { seat, token } => {
                            self.seat = Some(*seat);
                            self.token = Some(token.clone());
                        }
                        _ => {}
                    }
                    return Some(m);
                }
                Message::Close(_) => {
                    self.closed = true;
                    return None;
                }
                Message::Ping(_) => {
                    self.pings += 1;
                    continue;
                }
                _ => continue,
            }
        }
    }

    /// Reads until a message satisfies `pick`; returns what it picked.
    pub async fn until<T>(&mut self, what: &str, pick: impl Fn(ServerMsg) -> Option<T>) -> T {
        let deadline = tokio::time::Instant::now() + TIMEOUT;
        loop {
            let left = deadline.saturating_duration_since(tokio::time::Instant::now());
            match self.try_recv(left).await {
                Some(m) => {
                    if let Some(t) = pick(m) {
                        return t;
                    }
                }
                None if self.closed => panic!("closed while waiting for {what}"),
                None => panic!("timed out waiting for {what}"),
            }
        }
    }

    /// The next event of type `kind` (`action`, `game_over`…).
    pub async fn until_event(&mut self, kind: &str) -> Event {
        self.until(kind, |m| match m {
            ServerMsg::Event { event, .. } if event.kind() == kind => Some(event),
            _ => None,
        })
        .await
    }

    /// The next state.
    pub async fn next_state(&mut self) -> State {
        self.until_state("a state", |_| true).await
    }

    /// The next state that satisfies `pred`.
    pub async fn until_state(&mut self, what: &str, pred: impl Fn(&State) -> bool) -> State {
        self.until(what, |m| match m {
            ServerMsg::State(s) if pred(&s) => Some(*s),
            _ => None,
        })
        .await
    }

    /// The next state of a running game.
    pub async fn until_playing(&mut self) -> State {
        self.until_state("a playing state", |s| s.status == RoomStatus::Playing)
            .await
    }

    /// The seat of the next `seated`.
    pub async fn until_seated(&mut self) -> Seat {
        self.until("seated", |m| match m {
            ServerMsg::Seated { seat, .. } => Some(seat),
            _ => None,
        })
        .await
    }

    /// Expects an error with `code` (skipping other messages); its message.
    pub async fn expect_error(&mut self, code: ErrorCode) -> String {
        let (got, message) = self
            .until("an error", |m| match m {
                ServerMsg::Error { code, message } => Some((code, message)),
                _ => None,
            })
            .await;
        assert_eq!(got, code, "error code ({message})");
        message
    }

    /// Sends `sync` then waits for the state that answers it.
    pub async fn sync(&mut self) -> State {
        self.send(ClientMsg::Sync).await;
        self.next_state().await
    }

    /// `join` (seat `None`: any) then the `seated` and the state after it; the seat.
    pub async fn join(&mut self, seat: Option<Seat>, name: &str) -> Seat {
        self.send(ClientMsg::Join {
            seat,
            name: Some(name.into()),
        })
        .await;
        let s = self.until_seated().await;
        self.next_state().await;
        s
    }

    /// `resume` with `token` then the `seated`; the seat.
    pub async fn resume(&mut self, token: &str) -> Seat {
        self.send(ClientMsg::Resume {
            token: token.into(),
        })
        .await;
        self.until_seated().await
    }

    /// `act` with `action`.
    pub async fn act(&mut self, action: &str) {
        self.send(ClientMsg::Act {
            action: action.into(),
        })
        .await;
    }

    pub async fn close(mut self) {
        let _ = self.ws.close(None).await;
    }

    /// Waits until the stream is closed by the server.
    pub async fn expect_closed(&mut self) {
        let deadline = tokio::time::Instant::now() + TIMEOUT;
        loop {
            let left = deadline.saturating_duration_since(tokio::time::Instant::now());
            if self.try_recv(left).await.is_none() {
                assert!(
                    self.closed || tokio::time::Instant::now() < deadline,
                    "not closed in time"
                );
                return;
            }
        }
    }

    /// The last event of type `kind` this client saw.
    pub fn last_event(&self, kind: &str) -> Event {
        self.events
            .iter()
            .rev()
            .find(|e| e.1.kind() == kind)
            .map(|e| e.1.clone())
            .unwrap_or_else(|| panic!("no {kind} event"))
    }

    /// The events of type `kind` this client saw, in order.
    pub fn events_of(&self, kind: &str) -> Vec<Event> {
        self.events
            .iter()
            .filter(|e| e.1.kind() == kind)
            .map(|e| e.1.clone())
            .collect()
    }

    /// The latest state (there always is one: the first message is a state).
    pub fn state(&self) -> &State {
        self.follow.state().expect("a state")
    }
}

/// Three seated players and a spectator in a fresh room.
pub struct Table {
    pub room: String,
    pub players: Vec<Client>, // indexed by `Seat::index`
    pub spectator: Client,
}

impl Table {
    /// Creates a room (with `body`), seats three players, readies them.
    pub async fn new(server: &TestServer, body: Value) -> Table {
        let room = server.create_room(body).await;
        let spectator = server.client(&room).await;
        let mut players = Vec::new();
        for (i, seat) in Seat::ALL.into_iter().enumerate() {
            let mut c = server.client(&room).await;
            let got = c.join(Some(seat), &format!("player{i}")).await;
            assert_eq!(got, seat);
            players.push(c);
        }
        let mut t = Table {
            room,
            players,
            spectator,
        };
        for p in t.players.iter_mut() {
            p.send(ClientMsg::Ready).await;
        }
        for c in t.players.iter_mut().chain([&mut t.spectator]) {
            c.until_event("game_started").await;
            c.until_playing().await;
        }
        t
    }

    /// The player to move, as the spectator last saw it.
    pub fn to_move(&self) -> Seat {
        self.spectator.state().to_move.expect("someone to move")
    }

    pub fn player(&mut self, seat: Seat) -> &mut Client {
        &mut self.players[seat.index()]
    }

    /// Plays `action` for the player to move and waits until all four clients have the
    /// resulting state. Returns that state as the spectator saw it.
    pub async fn play(&mut self, action: &str) -> State {
        let seq = self.spectator.state().seq;
        let mover = self.to_move();
        self.player(mover).act(action).await;
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
            let tail: Vec<_> = reference.iter().filter(|e| e.0 >= first).cloned().collect();
            assert_eq!(p.events, tail, "same events, same order");
        }
    }
}
