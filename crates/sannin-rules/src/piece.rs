//! Pieces, their kinds and move sets (RULES §5).

use std::fmt;

use crate::cell::abs_dir;
use crate::player::Player;

/// The kind of a piece, unpromoted (RULES §4, §5).
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Role {
    #[cfg_attr(feature = "serde", serde(rename = "K"))]
    King = 0,
    #[cfg_attr(feature = "serde", serde(rename = "R"))]
    Rook = 1,
    #[cfg_attr(feature = "serde", serde(rename = "B"))]
    Bishop = 2,
    #[cfg_attr(feature = "serde", serde(rename = "G"))]
    Gold = 3,
    #[cfg_attr(feature = "serde", serde(rename = "S"))]
    Silver = 4,
    #[cfg_attr(feature = "serde", serde(rename = "N"))]
    Knight = 5,
    #[cfg_attr(feature = "serde", serde(rename = "L"))]
    Lance = 6,
    #[cfg_attr(feature = "serde", serde(rename = "P"))]
    Pawn = 7,
}

impl Role {
    pub const ALL: [Role; 8] = [
        Role::King,
        Role::Rook,
        Role::Bishop,
        Role::Gold,
        Role::Silver,
        Role::Knight,
        Role::Lance,
        Role::Pawn,
    ];
    /// The kinds a hand can hold, in the order of RULES §13.3: R B G S N L P.
    pub const HAND: [Role; 7] = [
        Role::Rook,
        Role::Bishop,
        Role::Gold,
        Role::Silver,
        Role::Knight,
        Role::Lance,
        Role::Pawn,
    ];

    pub const fn letter(self) -> char {
        match self {
            Role::King => 'K',
            Role::Rook => 'R',
            Role::Bishop => 'B',
            Role::Gold => 'G',
            Role::Silver => 'S',
            Role::Knight => 'N',
            Role::Lance => 'L',
            Role::Pawn => 'P',
        }
    }
    pub fn from_letter(c: char) -> Option<Role> {
        Role::ALL.into_iter().find(|r| r.letter() == c)
    }
    pub const fn name(self) -> &'static str {
        match self {
            Role::King => "king",
            Role::Rook => "rook",
            Role::Bishop => "bishop",
            Role::Gold => "gold",
            Role::Silver => "silver",
            Role::Knight => "knight",
            Role::Lance => "lance",
            Role::Pawn => "pawn",
        }
    }
    /// Whether the kind has a promoted side (RULES §5: gold and knight do not).
    pub const fn can_promote(self) -> bool {
        !matches!(self, Role::Gold | Role::Knight)
    }
    /// Index into a hand (`HAND` order); the king is never in hand.
    pub(crate) const fn hand_index(self) -> usize {
        self as usize - 1
    }
    /// Value for material threats (RULES §12.1): K > R = B > G = S = N = L > P.
    pub const fn value(self) -> u8 {
        match self {
            Role::King => 3,
            Role::Rook | Role::Bishop => 2,
            Role::Pawn => 0,
            _ => 1,
        }
    }
    /// How many of the kind one player starts with (RULES §4).
    pub(crate) const fn per_set(self) -> u8 {
        match self {
            Role::King | Role::Rook | Role::Bishop | Role::Knight => 1,
            Role::Gold | Role::Silver | Role::Lance => 2,
            Role::Pawn => 8,
        }
    }
}

impl fmt::Display for Role {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A piece on the board: owner, kind, promoted or not.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Piece {
    pub owner: Player,
    pub role: Role,
    pub promoted: bool,
}

impl Piece {
    pub const fn new(owner: Player, role: Role, promoted: bool) -> Piece {
        Piece {
            owner,
            role,
            promoted,
        }
    }
    /// Compact code `1..=48` used by the board's mailbox (0 is an empty cell).
    pub(crate) const fn code(self) -> u8 {
        1 + (self.owner as u8) * 16 + (self.promoted as u8) * 8 + self.role as u8
    }
    pub(crate) const fn from_code(code: u8) -> Piece {
        let c = code - 1;
        Piece {
            owner: Player::from_index((c / 16) as usize),
            promoted: (c / 8) % 2 == 1,
            role: Role::ALL[(c % 8) as usize],
        }
    }
    /// [`Piece::from_code`] by table, for the inner loops.
    #[inline]
    pub(crate) fn decode(code: u8) -> Piece {
        DECODED[code as usize]
    }
    /// Letters as on the board, `+R`, `P` (no owner).
    pub fn notation(self) -> String {
        if self.promoted {
            format!("+{}", self.role.letter())
        } else {
            self.role.letter().to_string()
        }
    }
}

impl fmt::Display for Piece {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.promoted {
            write!(f, "promoted ")?;
        }
        f.write_str(self.role.name())
    }
}

/// Move set of a kind as clock hours (RULES §5): `(steps, ranges)`, bit `h % 12`.
const fn hours(role: Role, promoted: bool) -> (u16, u16) {
    const fn m(hs: &[usize]) -> u16 {
        let mut b = 0u16;
        let mut i = 0;
        while i < hs.len() {
            b |= 1 << (hs[i] % 12);
            i += 1;
        }
        b
    }
    const ODD: &[usize] = &[1, 3, 5, 7, 9, 11];
    const EVEN: &[usize] = &[2, 4, 6, 8, 10, 12];
    const GOLD: &[usize] = &[1, 3, 6, 9, 11, 12];
    const SILVER: &[usize] = &[1, 2, 5, 7, 10, 11];
    match (role, promoted) {
        (Role::King, false) => (m(ODD), 0),
        (Role::King, true) => (0, m(ODD) | m(EVEN)),
        (Role::Rook, false) => (0, m(&[1, 3, 9, 11, 6])),
        (Role::Rook, true) => (0, m(ODD)),
        (Role::Bishop, false) => (0, m(EVEN)),
        (Role::Bishop, true) => (m(ODD), m(EVEN)),
        (Role::Gold, _) => (m(GOLD), 0),
        (Role::Knight, _) => (m(&[2, 3, 4, 8, 9, 10]), 0),
        (Role::Silver, false) => (m(SILVER), 0),
        (Role::Silver, true) => (m(SILVER), m(&[6, 12])),
        (Role::Lance, false) => (0, m(&[1, 11])),
        (Role::Lance, true) => (0, m(&[1, 5, 7, 11])),
        (Role::Pawn, false) => (m(&[1, 11]), 0),
        (Role::Pawn, true) => (m(GOLD), 0),
    }
}

const fn rotate(mask: u16, p: Player) -> u16 {
    let mut out = 0u16;
    let mut h = 0;
    while h < 12 {
        if mask & (1 << h) != 0 {
            out |= 1 << abs_dir(p, h);
        }
        h += 1;
    }
    out
}

const fn build_decoded() -> [Piece; 49] {
    let mut t = [Piece::new(Player::First, Role::Pawn, false); 49];
    let mut code = 1u8;
    while code <= 48 {
        t[code as usize] = Piece::from_code(code);
        code += 1;
    }
    t
}

/// `DECODED[code]`: the piece of a mailbox code (index 0 unused).
static DECODED: [Piece; 49] = build_decoded();

const fn build_moves() -> [(u16, u16); 49] {
    let mut t = [(0u16, 0u16); 49];
    let mut code = 1u8;
    while code <= 48 {
        let p = Piece::from_code(code);
        let (s, r) = hours(p.role, p.promoted);
        t[code as usize] = (rotate(s, p.owner), rotate(r, p.owner));
        code += 1;
    }
    t
}

/// `MOVES[code]`: (step directions, range directions) as absolute direction bit masks.
pub(crate) const MOVES: [(u16, u16); 49] = build_moves();

/// Absolute step and range direction masks of a piece code.
#[inline]
pub(crate) fn moves_of(code: u8) -> (u16, u16) {
    MOVES[code as usize]
}
