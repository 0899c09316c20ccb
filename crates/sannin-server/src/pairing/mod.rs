//! Quick pairing (`docs/pairing.md`): a person alone asks for a game in a pool — a
//! time-control preset, casual or rated — and gets a ticket; the matcher seats three
//! tickets of a pool at a new room (or fewer and computer players, when they asked
//! for bots after a wait), and each ticket's holder learns its room, seat and seat
//! token. The room starts once its three players are connected.
//!
//! | file          | handles                                                          |
//! |---------------|------------------------------------------------------------------|
//! | `pools.rs`    | the presets and pools                                            |
//! | `matcher.rs`  | which tickets of a pool sit down together (pure)                 |
//! | `service.rs`  | tickets, waves, long polls, no-shows and cooldowns, on this node |
//! | `store.rs`    | tickets and cooldowns in the database                            |
//!
//! The application reaches the matcher through [`PairingApi`]: the service itself on
//! a single node; in a cluster, the node that holds the matcher's lease, over NATS
//! (`cluster`).
//!
//! A ticket is a secret the holder keeps; the server stores only its *key*, the
//! SHA-256 of the seat token the ticket gives ([`seat_token`]): the seat a matched
//! ticket takes is stored under that key as its token hash, so that the database never
//! holds a secret and the token is derived again each time the holder asks.

use std::fmt;
use std::time::Duration;

use sannin_rules::Player;
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use crate::room::RoomError;
use crate::token::hash_token;
use futures_util::future::BoxFuture;

pub mod matcher;
pub mod pools;
mod seating;
mod service;
mod store;

pub use matcher::Person;
pub use pools::{PoolId, PoolInfo, PRESETS};
pub use sannin_protocol::NoShow;
pub use service::{Pairing, TableOpener};

/// The seat token a ticket gives once matched.
pub fn seat_token(ticket: &str) -> String {
    hash_token(&format!("seat:{ticket}"))
}

/// The key a ticket is kept under: the token hash of its seat.
pub fn ticket_key(ticket: &str) -> String {
    hash_token(&seat_token(ticket))
}

/// A new ticket, as the matcher takes it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Join {
    /// The ticket's key ([`ticket_key`]).
    pub key: String,
    /// Its pool.
    pub pool: PoolId,
    /// Its holder.
    pub person: Person,
    /// The name its seat is shown under.
    pub name: String,
    /// The holder's display rating, if it has an account.
    pub rating: Option<i64>,
    /// Computer players may fill its table after this long (casual pools).
    pub bots_after_ms: Option<u64>,
    /// The client address it came from: a table given up counts against the address
    /// too, so that a client without a cookie is not a new person at every ticket
    /// (memory only: a ticket read back after a restart has none).
    #[serde(default)]
    pub addr: Option<String>,
}

impl Join {
    /// The keys its holder's cooldown is kept under: the person, and its address.
    pub fn cooldown_keys(&self) -> Vec<String> {
        let mut keys = vec![self.person.to_string()];
        keys.extend(self.addr.as_ref().map(|a| format!("addr:{a}")));
        keys
    }
}

/// Where a ticket stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum TicketStatus {
    /// In its pool, with `waiting` people in it now.
    Waiting {
        /// People in the pool now.
        waiting: usize,
    },
    /// Seated at a room.
    Matched {
        /// The room.
        room: Uuid,
        /// The seat.
        seat: Player,
    },
}

/// What quick pairing refuses or fails at.
#[derive(Debug, thiserror::Error)]
pub enum PairingError {
    /// No pairing ticket is known by that secret (never made, left, or forgotten).
    #[error("no such pairing ticket: it left its pool, or was never made")]
    TicketNotFound,
    /// A pairing ticket for a clock that is no pool's.
    #[error("{0}")]
    UnknownPool(String),
    /// The same person already waits in that pool.
    #[error("you are already waiting in the {0} pool (one ticket per pool)")]
    AlreadyWaiting(String),
    /// A person who left tables unplayed is kept out of the pools for a while.
    #[error("you left {aborts} tables unplayed: you can look for a game again in {} min", crate::limits::retry_secs(*.retry_after).div_ceil(60))]
    Cooldown {
        /// Tables left in a row.
        aborts: i64,
        /// Unix ms when it may again.
        until_ms: i64,
        /// How long from now.
        retry_after: Duration,
    },
    /// In a cluster, no node holds the matcher right now (one takes over shortly).
    #[error("pairing is moving to another server; try again in a few seconds")]
    Unavailable,
    /// What the matcher of another node answered, by its code.
    #[error("{message}")]
    Remote {
        /// Its code.
        code: sannin_protocol::ApiCode,
        /// Its message.
        message: String,
    },
    /// A table that could not be opened.
    #[error(transparent)]
    Room(#[from] RoomError),
    /// The database or the cluster failed (logged with its cause).
    #[error("internal error")]
    Internal(#[source] anyhow::Error),
}

impl From<sqlx::Error> for PairingError {
    fn from(e: sqlx::Error) -> Self {
        PairingError::Internal(e.into())
    }
}

/// The matcher, wherever it runs.
pub trait PairingApi: Send + Sync + fmt::Debug {
    /// Puts a ticket in its pool.
    fn join(&self, join: Join) -> BoxFuture<'_, Result<(), PairingError>>;
    /// Where the ticket of `key` stands; with `wait`, once it changes or the wait is
    /// over.
    fn status(
        &self,
        key: String,
        wait: Duration,
    ) -> BoxFuture<'_, Result<TicketStatus, PairingError>>;
    /// Takes the ticket of `key` out of its pool.
    fn leave(&self, key: String) -> BoxFuture<'_, Result<(), PairingError>>;
    /// Every pool with the people waiting in it.
    fn pools(&self) -> BoxFuture<'_, Result<Vec<PoolInfo>, PairingError>>;
    /// The table of `room` was given up because of `seat`'s holder: the others go
    /// back to the front of their pool.
    fn table_aborted(&self, room: Uuid, seat: Player, why: NoShow) -> BoxFuture<'_, ()>;
    /// A moderator changed the pairs kept apart: read them again before the next wave.
    fn apart_changed(&self) {}
    /// Tables found that could not be opened, on this node, since it started.
    fn tables_refused(&self) -> u64 {
        0
    }
    /// Long polls of waiting tickets held open by this node's matcher now.
    fn long_polls(&self) -> u64 {
        0
    }
}

/// The longest `wait` of a status request.
pub const MAX_WAIT: Duration = Duration::from_secs(30);

pub use crate::room::{CONNECT_TIME, FIRST_MOVE_TIME};
