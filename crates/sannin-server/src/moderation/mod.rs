//! Moderation (docs/moderation.md): roles, bans and mutes of accounts and address
//! ranges, reports of chat lines and players, and the log of every action.
//!
//! - [`Sanctions`]: the bans and mutes in force, kept in memory and read again from the
//!   database every few seconds, so that the rooms and the HTTP handlers check them
//!   without a query, and a sanction given on the command line or on another node
//!   takes effect within seconds.
//! - `db`: the queries (sanctions, reports, the log, what a moderator sees of a player).
//! - `actions`: what a moderator does — one function for `/mod` and `sannin admin`.
//! - `reports`: making a report, with the chat lines around the reported one copied.

pub mod actions;
pub mod reports;
mod sanctions;
pub mod store;

use serde::{Deserialize, Serialize};
use strum::IntoEnumIterator as _;

use crate::store::column::named;

pub use sanctions::{Sanctioned, Sanctions};

/// A moderator's action or a report that does not fit.
#[derive(Debug, thiserror::Error)]
pub enum ModError {
    /// A report that cannot be made as asked.
    #[error("{0}")]
    BadReport(String),
    /// An action that cannot be taken as asked.
    #[error("{0}")]
    BadAction(String),
    /// What the report or action names does not exist.
    #[error("{0}")]
    NotFound(String),
    /// Not this moderator's to do.
    #[error("{0}")]
    Forbidden(String),
    /// A rename the accounts refuse.
    #[error(transparent)]
    Account(#[from] crate::accounts::AccountError),
    /// The database failed (logged with its cause).
    #[error("internal error")]
    Internal(#[source] anyhow::Error),
}

impl From<sqlx::Error> for ModError {
    fn from(e: sqlx::Error) -> Self {
        ModError::Internal(e.into())
    }
}

/// The name a deleted account's seats and chat lines keep.
pub const DELETED_NAME: &str = "Deleted player";

/// Who an account is to the site.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, strum::EnumIter, clap::ValueEnum,
)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// Everyone.
    Player,
    /// Handles reports, bans, mutes, renames.
    Moderator,
    /// A moderator who also deletes accounts and gives roles.
    Admin,
}

impl Role {
    /// As stored and on the wire.
    pub const fn as_str(self) -> &'static str {
        match self {
            Role::Player => "player",
            Role::Moderator => "moderator",
            Role::Admin => "admin",
        }
    }

    /// May use `/mod`.
    pub fn moderates(self) -> bool {
        self != Role::Player
    }
}

named!(Role, "role", Role::iter(), Role::as_str);

/// A ban or a mute.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, strum::EnumIter)]
#[serde(rename_all = "snake_case")]
pub enum SanctionKind {
    /// No seat, no chat, no rooms, no pools.
    Ban,
    /// Chat reaches only its writer.
    Mute,
}

impl SanctionKind {
    /// As stored and on the wire.
    pub const fn as_str(self) -> &'static str {
        match self {
            SanctionKind::Ban => "ban",
            SanctionKind::Mute => "mute",
        }
    }
}

named!(
    SanctionKind,
    "sanction kind",
    SanctionKind::iter(),
    SanctionKind::as_str
);

/// Why something is reported.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, strum::EnumIter)]
#[serde(rename_all = "snake_case")]
pub enum ReportReason {
    /// Insults, harassment.
    Abuse,
    /// Help from an engine or an ally outside the rules.
    Cheating,
    /// Flooding, advertising.
    Spam,
    /// Anything else (the text says).
    Other,
}

impl ReportReason {
    /// As stored and on the wire.
    pub const fn as_str(self) -> &'static str {
        match self {
            ReportReason::Abuse => "abuse",
            ReportReason::Cheating => "cheating",
            ReportReason::Spam => "spam",
            ReportReason::Other => "other",
        }
    }
}

named!(
    ReportReason,
    "report reason",
    ReportReason::iter(),
    ReportReason::as_str
);
