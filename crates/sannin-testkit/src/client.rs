//! A WebSocket client that reads every server message as a `sannin_protocol` type.

use std::net::{IpAddr, SocketAddr};
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use sannin_protocol::{
    ChatMessage, ClientMsg, ErrorCode, Event, Follower, RoomStatus, Seat, ServerMsg, State,
};
use serde_json::Value;
use tokio::net::{TcpSocket, TcpStream};
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::http::{HeaderName, HeaderValue};
use tokio_tungstenite::tungstenite::{Error as WsError, Message};
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

use crate::TIMEOUT;

/// The socket under a [`Client`].
pub type Ws = WebSocketStream<MaybeTlsStream<TcpStream>>;

/// Why a WebSocket upgrade opened no socket.
#[derive(Debug)]
pub enum ConnectError {
    /// The server answered the upgrade with this HTTP status and body (`Value::Null`
    /// when the body is not JSON).
    Refused { status: u16, body: Value },
    /// No answer: the connection failed, or nothing came within [`TIMEOUT`].
    Failed(String),
}

impl ConnectError {
    /// The HTTP status of a refusal.
    pub fn status(&self) -> Option<u16> {
        match self {
            ConnectError::Refused { status, .. } => Some(*status),
            ConnectError::Failed(_) => None,
        }
    }
}

/// A protocol client: every message it reads must be a [`ServerMsg`]. It records the
/// events with their `seq`, the latest state (made whole: a state after an action
/// leaves `moves` out), its seat and token, and the errors it was sent.
pub struct Client {
    pub ws: Ws,
    /// Every event read, with its `seq`, in order.
    pub events: Vec<(u64, Event)>,
    follow: Follower,
    /// The seat of the last `seated`.
    pub seat: Option<Seat>,
    /// The token of the last `seated`.
    pub token: Option<String>,
    /// Every `error` read: its code and message.
    pub errors: Vec<(ErrorCode, String)>,
    /// The server closed the connection.
    pub closed: bool,
    /// WebSocket pings read (the codec answers them).
    pub pings: u32,
}

impl Client {
    /// The WebSocket upgrade of `url` with these extra headers (`("cookie", "a=b")`,
    /// `("x-forwarded-for", "10.0.0.1")`): a client that has read nothing yet, or why
    /// there is none.
    pub async fn upgrade(url: &str, headers: &[(&str, &str)]) -> Result<Client, ConnectError> {
        Client::upgrade_from(url, headers, None).await
    }

    /// [`Client::upgrade`] from the source address `from` (any of 127.0.0.0/8 on a
    /// loopback server: each counts as a client address of its own).
    pub async fn upgrade_from(
        url: &str,
        headers: &[(&str, &str)],
        from: Option<IpAddr>,
    ) -> Result<Client, ConnectError> {
        let mut req = url
            .into_client_request()
            .unwrap_or_else(|e| panic!("a WebSocket request for {url}: {e}"));
        for (name, value) in headers {
            let name = HeaderName::from_bytes(name.as_bytes())
                .unwrap_or_else(|e| panic!("a header name {name:?}: {e}"));
            let value = HeaderValue::from_str(value)
                .unwrap_or_else(|e| panic!("a header value {value:?}: {e}"));
            req.headers_mut().insert(name, value);
        }
        let connect = async move {
            let Some(ip) = from else {
                return tokio_tungstenite::connect_async(req).await;
            };
            let host = req.uri().host().unwrap_or("127.0.0.1").to_string();
            let port = req.uri().port_u16().unwrap_or(80);
            let to = tokio::net::lookup_host((host.as_str(), port))
                .await?
                .next()
                .ok_or_else(|| std::io::Error::other("no address"))?;
            let socket = match ip {
                IpAddr::V4(_) => TcpSocket::new_v4()?,
                IpAddr::V6(_) => TcpSocket::new_v6()?,
            };
            socket.bind(SocketAddr::new(ip, 0))?;
            let stream = socket.connect(to).await?;
            tokio_tungstenite::client_async(req, MaybeTlsStream::Plain(stream)).await
        };
        match tokio::time::timeout(TIMEOUT, connect).await {
            Err(_) => Err(ConnectError::Failed(format!(
                "no answer from {url} in time"
            ))),
            Ok(Ok((ws, _))) => Ok(Client::over(ws)),
            Ok(Err(WsError::Http(res))) => Err(ConnectError::Refused {
                status: res.status().as_u16(),
                body: res
                    .body()
                    .as_ref()
                    .and_then(|b| serde_json::from_slice(b).ok())
                    .unwrap_or(Value::Null),
            }),
            Ok(Err(e)) => Err(ConnectError::Failed(format!("{url}: {e}"))),
        }
    }

    /// A client over an open socket that has read nothing yet.
    pub fn over(ws: Ws) -> Client {
        Client {
            ws,
            events: Vec::new(),
            follow: Follower::default(),
            seat: None,
            token: None,
            errors: Vec::new(),
            closed: false,
            pings: 0,
        }
    }

    /// A connection that has read nothing yet (a newcomer to a room full of spectators
    /// is sent nothing until it takes a seat).
    pub async fn connect_raw(url: &str) -> Client {
        Client::upgrade(url, &[])
            .await
            .unwrap_or_else(|e| panic!("ws connect: {e:?}"))
    }

    /// A connection and the `state` it is sent first.
    pub async fn connect(url: &str) -> Client {
        Client::connect_with_headers(url, &[]).await
    }

    /// A connection from the source address `from` with these extra headers, and the
    /// `state` it is sent first.
    pub async fn connect_from(url: &str, from: IpAddr, headers: &[(&str, &str)]) -> Client {
        let mut c = Client::upgrade_from(url, headers, Some(from))
            .await
            .unwrap_or_else(|e| panic!("ws connect from {from}: {e:?}"));
        let first = c.recv().await;
        assert!(
            matches!(first, ServerMsg::State(_)),
            "first message is a state: {first:?}"
        );
        c
    }

    /// A connection carrying `cookie` (`name=value`) in its upgrade request, and the
    /// `state` it is sent first.
    pub async fn connect_with_cookie(url: &str, cookie: &str) -> Client {
        Client::connect_with_headers(url, &[("cookie", cookie)]).await
    }

    /// A connection with these extra headers in its upgrade request, and the `state`
    /// it is sent first.
    pub async fn connect_with_headers(url: &str, headers: &[(&str, &str)]) -> Client {
        let mut c = Client::upgrade(url, headers)
            .await
            .unwrap_or_else(|e| panic!("ws connect: {e:?}"));
        let first = c.recv().await;
        assert!(
            matches!(first, ServerMsg::State(_)),
            "first message is a state: {first:?}"
        );
        c
    }

    // ---- Sending ----

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

    /// Sends any frame.
    pub async fn send_raw(&mut self, m: Message) {
        self.ws.send(m).await.expect("send");
    }

    // ---- Reading ----

    /// The next protocol message (control frames skipped); panics if none comes
    /// within [`TIMEOUT`].
    pub async fn recv(&mut self) -> ServerMsg {
        match self.try_recv(TIMEOUT).await {
            Some(m) => m,
            None if self.closed => panic!("closed while waiting for a message"),
            None => panic!("no message in time"),
        }
    }

    /// The next protocol message within `timeout`; `None` on timeout, error or close
    /// (then `closed` is set). Records events, states, seats and errors.
    pub async fn try_recv(&mut self, timeout: Duration) -> Option<ServerMsg> {
        loop {
            let frame = match tokio::time::timeout(timeout, self.ws.next()).await {
                Err(_) => return None,
                Ok(None) | Ok(Some(Err(_))) | Ok(Some(Ok(Message::Close(_)))) => {
                    self.closed = true;
                    return None;
                }
                Ok(Some(Ok(m))) => m,
            };
            let text = match frame {
                Message::Text(t) => t,
                Message::Ping(_) => {
                    self.pings += 1;
                    continue;
                }
                _ => continue,
            };
            let mut m = ServerMsg::parse(text.as_str())
                .unwrap_or_else(|e| panic!("not a protocol message ({e}): {text}"));
            self.follow.see(&mut m);
            match &m {
                ServerMsg::Event { seq, event } => self.events.push((*seq, event.clone())),
                ServerMsg::Seated { seat, token } => {
                    self.seat = Some(*seat);
                    self.token = Some(token.clone());
                }
                ServerMsg::Error { code, message } => self.errors.push((*code, message.clone())),
                _ => {}
            }
            return Some(m);
        }
    }

    /// Reads until a message satisfies `pick`; returns what it picked. Panics, naming
    /// `what`, if the socket closes or nothing fits within [`TIMEOUT`].
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
                None if self.closed => panic!(
                    "closed while waiting for {what} (errors read: {:?})",
                    self.errors
                ),
                None => panic!(
                    "timed out waiting for {what} (errors read: {:?})",
                    self.errors
                ),
            }
        }
    }

    /// The next event of kind `kind` (`action`, `game_over`…).
    pub async fn until_event(&mut self, kind: &str) -> Event {
        self.until_event_where(kind, |e| e.kind() == kind).await
    }

    /// The next event that satisfies `pred`.
    pub async fn until_event_where(&mut self, what: &str, pred: impl Fn(&Event) -> bool) -> Event {
        self.until(what, |m| match m {
            ServerMsg::Event { event, .. } if pred(&event) => Some(event),
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

    /// The next chat message.
    pub async fn until_chat(&mut self) -> ChatMessage {
        self.until("chat", |m| match m {
            ServerMsg::Chat(c) => Some(c),
            _ => None,
        })
        .await
    }

    /// The texts of the next chat history.
    pub async fn until_chat_history(&mut self) -> Vec<String> {
        self.until("chat_history", |m| match m {
            ServerMsg::ChatHistory { messages } => {
                Some(messages.into_iter().map(|m| m.text).collect())
            }
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

    /// Reads until the server closes the socket; panics if it is still open after
    /// [`TIMEOUT`].
    pub async fn expect_closed(&mut self) {
        let deadline = tokio::time::Instant::now() + TIMEOUT;
        while !self.closed {
            let left = deadline.saturating_duration_since(tokio::time::Instant::now());
            assert!(!left.is_zero(), "not closed in time");
            self.try_recv(left).await;
        }
    }

    // ---- The protocol's requests ----

    /// Sends `sync` then waits for the state that answers it.
    pub async fn sync(&mut self) -> State {
        self.send(ClientMsg::Sync).await;
        self.next_state().await
    }

    /// Sends `watch` then waits for the state that answers it.
    pub async fn watch(&mut self, name: Option<&str>) -> State {
        self.send(ClientMsg::Watch {
            name: name.map(str::to_string),
        })
        .await;
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

    /// A chat message.
    pub async fn chat(&mut self, text: &str) {
        self.send(ClientMsg::Chat { text: text.into() }).await;
    }

    /// Closes the socket from this side.
    pub async fn close(mut self) {
        let _ = self.ws.close(None).await;
    }

    // ---- What it saw ----

    /// The latest state, whole (there is one once a state was read; connected
    /// clients read one first).
    pub fn state(&self) -> &State {
        self.follow.state().expect("a state")
    }

    /// The last event of kind `kind` this client saw.
    pub fn last_event(&self, kind: &str) -> Event {
        self.events
            .iter()
            .rev()
            .find(|e| e.1.kind() == kind)
            .map(|e| e.1.clone())
            .unwrap_or_else(|| panic!("no {kind} event"))
    }

    /// The events of kind `kind` this client saw, in order.
    pub fn events_of(&self, kind: &str) -> Vec<Event> {
        self.events
            .iter()
            .filter(|e| e.1.kind() == kind)
            .map(|e| e.1.clone())
            .collect()
    }

    /// The `(seq, event)` pairs from `seq` `from` on.
    pub fn events_from(&self, from: u64) -> Vec<(u64, Event)> {
        self.events
            .iter()
            .filter(|e| e.0 >= from)
            .cloned()
            .collect()
    }
}
