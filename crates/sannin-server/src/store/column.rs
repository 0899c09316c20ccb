//! How each value the store keeps is written into its column and read back: one
//! conversion per type, used in both directions.
//!
//! A name column's reader is derived from its writer — it looks the name up among the
//! names of every variant ([`Named::all`]) — so a variant added to an enum is read back
//! the day it is first written, with nothing else to remember. A JSON column is
//! serde's `Serialize` and `Deserialize` of one type. What does not read back is an
//! [`Unreadable`] naming the column, the value and the reason, never a default.

use std::fmt;

use sannin_bot::Level;
use sannin_protocol::{Channel, ClockKind, ForfeitReason, RoomStatus};
use sannin_rules::Player;
use serde::de::DeserializeOwned;
use serde::Serialize;
use strum::IntoEnumIterator as _;

/// A stored value that does not read back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unreadable {
    /// What the column holds ("bot level").
    pub what: &'static str,
    /// The stored value, as text.
    pub value: String,
    /// Why it does not read.
    pub reason: String,
}

impl fmt::Display for Unreadable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "bad {} {:?}: {}", self.what, self.value, self.reason)
    }
}

impl std::error::Error for Unreadable {}

/// An enum stored as the name of its variant.
pub trait Named: Copy + Sized + 'static {
    /// What the column holds, for errors.
    const WHAT: &'static str;
    /// Every variant.
    fn all() -> impl Iterator<Item = Self>;
    /// The stored name.
    fn to_column(self) -> &'static str;
    /// The variant stored as `s`.
    ///
    /// # Errors
    /// No variant has that name.
    fn from_column(s: &str) -> Result<Self, Unreadable> {
        Self::all()
            .find(|v| v.to_column() == s)
            .ok_or_else(|| Unreadable {
                what: Self::WHAT,
                value: s.to_string(),
                reason: format!(
                    "not one of {}",
                    Self::all()
                        .map(Self::to_column)
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            })
    }
}

/// The optional form of a name column (`NULL` for none).
///
/// # Errors
/// As [`Named::from_column`].
pub fn read_opt<T: Named>(s: Option<&str>) -> Result<Option<T>, Unreadable> {
    s.map(T::from_column).transpose()
}

/// Implements [`Named`] for an enum from its iterator of variants and its name
/// function.
macro_rules! named {
    ($t:ty, $what:literal, $all:expr, $name:expr) => {
        impl $crate::store::column::Named for $t {
            const WHAT: &'static str = $what;
            fn all() -> impl Iterator<Item = Self> {
                $all
            }
            fn to_column(self) -> &'static str {
                ($name)(self)
            }
        }
    };
}

pub(crate) use named;

named!(Player, "seat", Player::ALL.into_iter(), Player::lower);
named!(
    RoomStatus,
    "room status",
    RoomStatus::iter(),
    RoomStatus::as_str
);
named!(Channel, "chat channel", Channel::iter(), Channel::as_str);
named!(
    ForfeitReason,
    "forfeit reason",
    ForfeitReason::iter(),
    ForfeitReason::as_str
);
named!(
    ClockKind,
    "clock kind",
    ClockKind::iter(),
    ClockKind::as_str
);
named!(
    super::ActionKind,
    "action kind",
    super::ActionKind::iter(),
    super::ActionKind::as_str
);

/// A bot level, stored as its number.
pub fn level_column(l: Level) -> i64 {
    i64::from(l.number())
}

/// The level stored as `n`.
///
/// # Errors
/// No such level.
pub fn level_from_column(n: i64) -> Result<Level, Unreadable> {
    u8::try_from(n)
        .ok()
        .and_then(Level::from_number)
        .ok_or_else(|| Unreadable {
            what: "bot level",
            value: n.to_string(),
            reason: format!("levels are 0 to {}", Level::MAX.number()),
        })
}

/// A value stored as JSON text.
pub trait Json: Serialize + DeserializeOwned {
    /// What the column holds, for errors.
    const WHAT: &'static str;

    /// The stored text.
    fn to_json(&self) -> String {
        // Serialising these plain structs cannot fail (no maps with non-string keys).
        serde_json::to_string(self).expect("a stored value serialises")
    }

    /// The value stored as `s`.
    ///
    /// # Errors
    /// Text that is not this type's JSON.
    fn from_json(s: &str) -> Result<Self, Unreadable> {
        serde_json::from_str(s).map_err(|e| Unreadable {
            what: Self::WHAT,
            value: s.chars().take(200).collect(),
            reason: e.to_string(),
        })
    }
}

impl Json for sannin_rules::Outcome {
    const WHAT: &'static str = "result";
}
