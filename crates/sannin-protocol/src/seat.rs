//! The three seats, spelled `first`, `middle`, `last` everywhere in the protocol.

use std::fmt;
use std::str::FromStr;

use sannin_rules::Player;
use serde::{Deserialize, Serialize};

/// A seat of a room: the player who sits in it plays that [`Player`].
///
/// On the wire it is lower case (`"first"`); only the rules' own events (inside an
/// [`Event::Rules`](crate::Event::Rules)) keep the rules crate's `"First"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Seat {
    /// Moves first (RULES §2).
    First,
    /// Moves second.
    Middle,
    /// Moves third.
    Last,
}

impl Seat {
    /// In play order.
    pub const ALL: [Seat; 3] = [Seat::First, Seat::Middle, Seat::Last];

    /// The wire name.
    pub const fn as_str(self) -> &'static str {
        match self {
            Seat::First => "first",
            Seat::Middle => "middle",
            Seat::Last => "last",
        }
    }

    /// Parses a wire name (`first`, `middle`, `last`; exact, lower case).
    pub fn from_name(s: &str) -> Option<Seat> {
        Seat::ALL.into_iter().find(|p| p.as_str() == s)
    }

    /// 0, 1, 2 in play order.
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The player of this seat.
    pub const fn player(self) -> Player {
        match self {
            Seat::First => Player::First,
            Seat::Middle => Player::Middle,
            Seat::Last => Player::Last,
        }
    }
}

impl From<Player> for Seat {
    fn from(p: Player) -> Seat {
        match p {
            Player::First => Seat::First,
            Player::Middle => Seat::Middle,
            Player::Last => Seat::Last,
        }
    }
}

impl From<Seat> for Player {
    fn from(s: Seat) -> Player {
        s.player()
    }
}

impl fmt::Display for Seat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The error of [`Seat::from_str`]: the text is not a seat name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownSeat(pub String);

impl fmt::Display for UnknownSeat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "unknown seat {:?}: want \"first\", \"middle\" or \"last\"",
            self.0
        )
    }
}

impl std::error::Error for UnknownSeat {}

impl FromStr for Seat {
    type Err = UnknownSeat;

    fn from_str(s: &str) -> Result<Seat, UnknownSeat> {
        Seat::from_name(s).ok_or_else(|| UnknownSeat(s.to_string()))
    }
}

/// A seat change: whoever sat in `from` now sits in `to` (voluntary alliance,
/// rematch).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeatMove {
    /// The old seat.
    pub from: Seat,
    /// The new seat.
    pub to: Seat,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_players_agree() {
        for (s, p) in Seat::ALL.into_iter().zip(Player::ALL) {
            assert_eq!(Seat::from(p), s);
            assert_eq!(Player::from(s), p);
            assert_eq!(s.as_str(), p.lower());
            assert_eq!(s.index(), p.index());
            assert_eq!(s.as_str().parse::<Seat>(), Ok(s));
            assert_eq!(
                serde_json::to_value(s).unwrap(),
                serde_json::json!(p.lower())
            );
        }
        assert_eq!(
            "First".parse::<Seat>().unwrap_err().to_string(),
            r#"unknown seat "First": want "first", "middle" or "last""#
        );
    }
}
