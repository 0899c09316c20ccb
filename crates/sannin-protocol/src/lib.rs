//! The WebSocket protocol of the sannin server as types: what clients send
//! ([`ClientMsg`]), what the server sends ([`ServerMsg`]: `seated`, the [`State`]
//! snapshot, [`Event`]s, errors, chat), shared by the server and every client (the
//! `sannin bot` command, the load test, the tests), and the HTTP bodies that share
//! their objects ([`RoomSummary`], [`RoomDetails`], [`RoomInfo`]).
//!
//! `docs/protocol.md` describes the protocol for third-party clients; these types
//! are its wire format, value for value. Seats are [`Seat`]s, spelled `first`,
//! `middle`, `last`; only the rules' own events ([`Event::Rules`]) keep the rules
//! crate's spelling (`"First"`).
//!
//! ```
//! use sannin_protocol::{ClientMsg, Event, Seat, ServerMsg};
//!
//! let join = ClientMsg::parse(r#"{"type":"join","seat":"first","name":"Ann"}"#)?;
//! assert_eq!(join, ClientMsg::Join { seat: Some(Seat::First), name: Some("Ann".into()) });
//!
//! let msg = ServerMsg::parse(r#"{"type":"event","seq":1,"event":{"type":"player_joined","seat":"first","name":"Ann"}}"#)
//!     .map_err(|e| e.to_string())?;
//! let ServerMsg::Event { seq: 1, event: Event::PlayerJoined { seat, .. } } = msg else {
//!     return Err("not a player_joined event".into());
//! };
//! assert_eq!(seat, Seat::First);
//! # Ok::<(), String>(())
//! ```

mod client;
mod event;
mod http;
mod seat;
mod server;
mod state;
mod state_json;
mod state_text;

pub use client::{ClientMsg, DEFAULT_BOT_LEVEL};
pub use event::{Event, ForfeitReason, NoShow};
pub use http::{
    ApiCode, ApiErrorBody, ApiErrorDetail, Created, RoomDetails, RoomInfo, RoomSummary,
};
pub use sannin_rules::{Event as RulesEvent, Outcome};
pub use seat::{Seat, SeatMove, UnknownSeat};
pub use server::{Channel, ChatMessage, CloseReason, ErrorCode, ServerMsg, DEFAULT_SPECTATOR_NAME};
pub use state::{
    AllianceState, ClockKind, ClockSettings, Clocks, Follower, PlayerClock, RematchState,
    RoomStatus, SeatInfo, Seats, State, TakebackState,
};
pub use state_text::{LegalText, StateText};
