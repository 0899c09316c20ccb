//! The position string of RULES §13.3: reading one into a checked [`Position`]
//! (through a [`Setup`], as [`Position::from_setup`] checks it) and writing one.

use std::collections::BTreeMap;
use std::fmt;
use std::str::FromStr;

use crate::by_player::ByPlayer;
use crate::cell::{Cell, NUM_CELLS};
use crate::piece::{Piece, Role};
use crate::player::{Player, Players};
use crate::position::{flags, Core, Position, PositionError};
use crate::setup::{Hand, Setup};

/// The cells in the order the board part of a position string lists them (rank by
/// rank from a, each rank from its highest file down), with the number of cells in
/// each rank.
const STRING_ORDER: ([Cell; NUM_CELLS], [u8; 13]) = {
    let Some(first) = Cell::from_index(0) else {
        panic!("a board has cells")
    };
    let mut order = [first; NUM_CELLS];
    let mut lens = [0u8; 13];
    let mut i = 0;
    let mut r = 0u8;
    while r < 13 {
        let lo = r.saturating_sub(6);
        let hi = if r + 6 < 12 { r + 6 } else { 12 };
        let mut f = hi + 1;
        while f > lo {
            f -= 1;
            if let Some(c) = Cell::from_coords(r, f) {
                order[i] = c;
                i += 1;
                lens[r as usize] += 1;
            }
        }
        r += 1;
    }
    assert!(i == NUM_CELLS);
    (order, lens)
};

/// The cells of each rank, from a, in position-string order.
fn string_ranks() -> impl Iterator<Item = &'static [Cell]> {
    let (order, lens) = &STRING_ORDER;
    let mut rest = &order[..];
    lens.iter().map(move |&len| {
        let (rank, next) = rest.split_at(len.into());
        rest = next;
        rank
    })
}

fn parse_players(s: &str) -> Result<Players, PositionError> {
    let mut out = Players::NONE;
    if s == "-" {
        return Ok(out);
    }
    if s.is_empty() {
        return Err(PositionError::BadPlayers(s.to_string()));
    }
    for ch in s.chars() {
        let p = Player::from_letter(ch).ok_or_else(|| PositionError::BadPlayers(s.to_string()))?;
        if out.contains(p) {
            return Err(PositionError::BadPlayers(s.to_string()));
        }
        out.insert(p);
    }
    Ok(out)
}

fn parse_board(s: &str) -> Result<BTreeMap<Cell, Piece>, PositionError> {
    let ranks: Vec<&str> = s.split('/').collect();
    if ranks.len() != 13 {
        return Err(PositionError::RankCount(ranks.len()));
    }
    let mut board = BTreeMap::new();
    for ((r, text), cells) in ranks.iter().enumerate().zip(string_ranks()) {
        let rank = (b'a' + r as u8) as char;
        let expected = cells.len();
        let mut pos = 0usize;
        let chars: Vec<char> = text.chars().collect();
        let mut i = 0;
        while i < chars.len() {
            let ch = chars[i];
            if ch.is_ascii_digit() {
                let start = i;
                while i < chars.len() && chars[i].is_ascii_digit() {
                    i += 1;
                }
                let digits: String = chars[start..i].iter().collect();
                let n: usize = digits.parse().unwrap_or(usize::MAX);
                if n == 0 || digits.starts_with('0') {
                    return Err(PositionError::UnknownPiece {
                        rank,
                        token: digits,
                    });
                }
                pos = pos.saturating_add(n);
                continue;
            }
            let start = i;
            let owner = Player::from_owner_char(ch).filter(|_| ch.is_ascii_lowercase());
            i += 1;
            let promoted = i < chars.len() && chars[i] == '+';
            if promoted {
                i += 1;
            }
            let role = chars.get(i).and_then(|&c| Role::from_letter(c));
            i += 1;
            let token: String = chars[start..i.min(chars.len())].iter().collect();
            let (Some(owner), Some(role)) = (owner, role) else {
                return Err(PositionError::UnknownPiece { rank, token });
            };
            if promoted && !role.can_promote() {
                return Err(PositionError::UnknownPiece { rank, token });
            }
            if pos < expected {
                let cell = cells[pos];
                board.insert(cell, Piece::new(owner, role, promoted));
            }
            pos += 1;
        }
        if pos != expected {
            return Err(PositionError::RankLength {
                rank,
                expected,
                found: pos,
            });
        }
    }
    Ok(board)
}

fn parse_hands(s: &str) -> Result<ByPlayer<Hand>, PositionError> {
    let parts: Vec<&str> = s.split('/').collect();
    if parts.len() != 3 {
        return Err(PositionError::BadHands(format!(
            "three hands separated by '/' are needed; found {}",
            parts.len()
        )));
    }
    let mut hands = ByPlayer::<Hand>::default();
    for (p, part) in Player::ALL.into_iter().zip(parts) {
        if part == "-" {
            continue;
        }
        if part.is_empty() {
            return Err(PositionError::BadHands(format!(
                "{p}'s hand is empty; write -"
            )));
        }
        let mut count: Option<u32> = None;
        for ch in part.chars() {
            if let Some(d) = ch.to_digit(10) {
                let c = count.unwrap_or(0) * 10 + d;
                if c > 99 {
                    return Err(PositionError::BadHands(format!(
                        "count too large in `{part}`"
                    )));
                }
                count = Some(c);
                continue;
            }
            let slot = Role::from_letter(ch)
                .and_then(|r| hands[p].get_mut(r))
                .ok_or_else(|| {
                    PositionError::BadHands(format!(
                        "`{ch}` in `{part}` is not a piece that can be in hand"
                    ))
                })?;
            let n = count.take().unwrap_or(1);
            if n == 0 {
                return Err(PositionError::BadHands(format!("a count of 0 in `{part}`")));
            }
            // At most 99 per letter, and a letter may repeat: saturate rather
            // than wrap, and let the piece count reject the total.
            *slot = slot.saturating_add(n as u8);
        }
        if count.is_some() {
            return Err(PositionError::BadHands(format!(
                "`{part}` ends with a count"
            )));
        }
    }
    Ok(hands)
}

impl FromStr for Position {
    type Err = PositionError;

    /// Reads a position string (RULES §13.3) into a [`Setup`], then checks it
    /// as [`Position::from_setup`] does.
    fn from_str(s: &str) -> Result<Position, PositionError> {
        let fields: Vec<&str> = s.split_whitespace().collect();
        if fields.len() != 6 {
            return Err(PositionError::FieldCount(fields.len()));
        }
        let board = parse_board(fields[0])?;
        let to_move = match fields[1] {
            "-" => None,
            t => Some(
                t.chars()
                    .next()
                    .filter(|_| t.len() == 1)
                    .and_then(Player::from_letter)
                    .ok_or_else(|| PositionError::BadToMove(t.to_string()))?,
            ),
        };
        let hands = parse_hands(fields[2])?;
        let active = parse_players(fields[3])?;
        let alliance =
            parse_players(fields[4]).map_err(|_| PositionError::BadAlliance(fields[4].into()))?;
        let alliance = match alliance.len() {
            0 => None,
            2 => {
                let mut it = alliance.iter();
                Some((it.next().expect("ally"), it.next().expect("ally")))
            }
            _ => return Err(PositionError::BadAlliance(fields[4].into())),
        };
        let castling = parse_players(fields[5])?;
        Position::from_setup(Setup {
            board,
            hands,
            to_move,
            active: flags(active),
            alliance,
            castling: flags(castling),
        })
    }
}

impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.position_string())
    }
}

impl Position {
    /// The position string (RULES §13.3), as [`fmt::Display`] writes it, made without
    /// a formatter: a server writes one into every `state` it sends.
    pub fn position_string(&self) -> String {
        let mut out = Vec::with_capacity(192);
        write_core(&self.core, &mut out);
        String::from_utf8(out).expect("a position string is ASCII")
    }
}

/// Appends the position string of `core` to `out` (RULES §13.3), byte by byte: a
/// formatter's `write_char`, or a `String`'s `push` of a `char`, cost more than the
/// rest.
pub(crate) fn write_core(core: &Core, out: &mut Vec<u8>) {
    let b = &core.board;
    for (r, rank) in string_ranks().enumerate() {
        if r > 0 {
            out.push(b'/');
        }
        let mut empty = 0;
        for &c in rank {
            let code = b.code(c);
            if code == 0 {
                empty += 1;
                continue;
            }
            if empty > 0 {
                push_number(out, empty);
                empty = 0;
            }
            let p = Piece::decode(code);
            out.push(p.owner.owner_char() as u8);
            if p.promoted {
                out.push(b'+');
            }
            out.push(p.role.letter() as u8);
        }
        if empty > 0 {
            push_number(out, empty);
        }
    }
    out.push(b' ');
    out.push(core.to_move.map_or(b'-', |p| p.letter() as u8));
    out.push(b' ');
    for (i, p) in Player::ALL.into_iter().enumerate() {
        if i > 0 {
            out.push(b'/');
        }
        let mut any = false;
        for r in Role::HAND {
            let n = b.hand(p, r);
            if n > 1 {
                push_number(out, n.into());
            }
            if n > 0 {
                out.push(r.letter() as u8);
                any = true;
            }
        }
        if !any {
            out.push(b'-');
        }
    }
    // The player sets: letters in play order, `-` for none (RULES §13.3).
    for set in [core.active, core.alliance, core.castling] {
        out.push(b' ');
        if set.is_empty() {
            out.push(b'-');
        }
        for p in set.iter() {
            out.push(p.letter() as u8);
        }
    }
}

/// Appends `n` in decimal.
fn push_number(out: &mut Vec<u8>, n: u32) {
    if n >= 10 {
        push_number(out, n / 10);
    }
    out.push(b'0' + (n % 10) as u8);
}

const _: () = assert!(NUM_CELLS == 127);

#[cfg(feature = "serde")]
impl serde::Serialize for Position {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// A position deserializes from its position string (RULES §13.3), with the
/// same checks as `FromStr`.
#[cfg(feature = "serde")]
impl<'de> serde::Deserialize<'de> for Position {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Position, D::Error> {
        let s = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}
