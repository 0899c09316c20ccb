//! What the tests of the sannin crates share, whether they start the server in their
//! own process (`crates/sannin-server/tests`) or run the real `sannin` binary
//! (`crates/sannin/tests`):
//!
//! - [`Client`]: a WebSocket client that reads every server message as a
//!   `sannin_protocol` type and records what it saw — the events with their `seq`, the
//!   latest state made whole (by a [`sannin_protocol::Follower`]), its seat and token,
//!   the errors;
//! - [`Table`]: three seated players and a spectator in a room, their game started;
//! - [`http`]: bare HTTP/1.1 requests, one connection each.
//!
//! Every wait is bounded by [`TIMEOUT`] and ends as soon as what it waits for arrives.

use std::time::Duration;

mod client;
pub mod http;
mod table;

pub use client::{Client, ConnectError, Ws};
pub use table::{Endpoint, Table};

/// How long a test waits for an expected message.
pub const TIMEOUT: Duration = Duration::from_secs(20);
