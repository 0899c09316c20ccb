//! Board geometry (RULES §1, §3): the 127 cells, the twelve directions and the
//! precomputed neighbour and ray tables every other module reads.

use std::fmt;
use std::str::FromStr;

use crate::bitboard::Bitboard;
use crate::player::Player;

/// Number of cells on the board (RULES §1).
pub const NUM_CELLS: usize = 127;

/// A cell of the board, `0..127` in rank-major order (rank `a` first, then by file).
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Cell(u8);

const NONE: u8 = u8::MAX;

/// `(rank index, file index)` of every cell, and the reverse map.
const fn build_coords() -> ([(u8, u8); NUM_CELLS], [[u8; 13]; 13]) {
    let mut coords = [(0u8, 0u8); NUM_CELLS];
    let mut index = [[NONE; 13]; 13];
    let mut n = 0;
    let mut r = 0;
    while r < 13 {
        let mut f = 0;
        while f < 13 {
            let d = r as i32 - f as i32;
            if d >= -6 && d <= 6 {
                coords[n] = (r as u8, f as u8);
                index[r][f] = n as u8;
                n += 1;
            }
            f += 1;
        }
        r += 1;
    }
    (coords, index)
}

const COORDS_AND_INDEX: ([(u8, u8); NUM_CELLS], [[u8; 13]; 13]) = build_coords();
const COORDS: [(u8, u8); NUM_CELLS] = COORDS_AND_INDEX.0;
const INDEX: [[u8; 13]; 13] = COORDS_AND_INDEX.1;

/// The twelve absolute directions `(Δr, Δf)`, indexed by Middle's clock hour
/// (index 0 is hour 12). RULES §3: odd hours are orthogonals, even hours diagonals.
pub(crate) const DIRS: [(i8, i8); 12] = [
    (-2, -1), // 12
    (-1, -1), // 1
    (-1, -2), // 2
    (0, -1),  // 3
    (1, -1),  // 4
    (1, 0),   // 5
    (2, 1),   // 6
    (1, 1),   // 7
    (1, 2),   // 8
    (0, 1),   // 9
    (-1, 1),  // 10
    (-1, 0),  // 11
];

/// Offset that turns a player's clock hour into an absolute direction index
/// (RULES §2: a 120° rotation maps Middle → First → Last).
pub(crate) const fn hour_offset(p: Player) -> usize {
    match p {
        Player::Middle => 0,
        Player::First => 8,
        Player::Last => 4,
    }
}

/// Absolute direction index of `hour` (1..=12) for player `p`.
pub(crate) const fn abs_dir(p: Player, hour: usize) -> usize {
    (hour + hour_offset(p)) % 12
}

/// The direction opposite `d`.
pub(crate) const fn opposite(d: usize) -> usize {
    (d + 6) % 12
}

/// Whether moving in direction `d` increases the cell index.
pub(crate) const fn is_positive(d: usize) -> bool {
    let (dr, df) = DIRS[d];
    dr > 0 || (dr == 0 && df > 0)
}

const fn offset(c: usize, d: usize) -> u8 {
    let (r, f) = COORDS[c];
    let (dr, df) = DIRS[d];
    let nr = r as i32 + dr as i32;
    let nf = f as i32 + df as i32;
    if nr < 0 || nf < 0 || nr > 12 || nf > 12 {
        return NONE;
    }
    INDEX[nr as usize][nf as usize]
}

const fn build_step() -> [[u8; NUM_CELLS]; 12] {
    let mut t = [[NONE; NUM_CELLS]; 12];
    let mut d = 0;
    while d < 12 {
        let mut c = 0;
        while c < NUM_CELLS {
            t[d][c] = offset(c, d);
            c += 1;
        }
        d += 1;
    }
    t
}

/// `STEP[d][c]`: the cell one step from `c` in direction `d`, or `NONE`.
const STEP: [[u8; NUM_CELLS]; 12] = build_step();

const fn build_rays() -> [[u128; NUM_CELLS]; 12] {
    let mut t = [[0u128; NUM_CELLS]; 12];
    let mut d = 0;
    while d < 12 {
        let mut c = 0;
        while c < NUM_CELLS {
            let mut bits = 0u128;
            let mut cur = STEP[d][c];
            while cur != NONE {
                bits |= 1u128 << cur;
                cur = STEP[d][cur as usize];
            }
            t[d][c] = bits;
            c += 1;
        }
        d += 1;
    }
    t
}

/// `RAYS[d][c]`: every cell beyond `c` in direction `d`, not including `c`.
static RAYS: [[u128; NUM_CELLS]; 12] = build_rays();

const fn build_all_rays() -> [u128; NUM_CELLS] {
    let rays = build_rays();
    let mut t = [0u128; NUM_CELLS];
    let mut c = 0;
    while c < NUM_CELLS {
        let mut d = 0;
        while d < 12 {
            t[c] |= rays[d][c];
            d += 1;
        }
        c += 1;
    }
    t
}

/// The cells one step from cell index `c` in the directions of the bit mask
/// `dirs` (bit `d` = direction `d`).
pub(crate) const fn step_set(c: usize, dirs: u16) -> u128 {
    let mut bits = 0u128;
    let mut d = 0;
    while d < 12 {
        if dirs & (1 << d) != 0 && STEP[d][c] != NONE {
            bits |= 1u128 << STEP[d][c];
        }
        d += 1;
    }
    bits
}

/// `ALL_RAYS[c]`: every cell on any of the twelve rays from `c`.
const ALL_RAYS: [u128; NUM_CELLS] = build_all_rays();

/// Depth of a cell for each player (RULES §1): `[First, Middle, Last]`.
const fn build_depth() -> [[u8; 3]; NUM_CELLS] {
    let mut t = [[0u8; 3]; NUM_CELLS];
    let mut c = 0;
    while c < NUM_CELLS {
        let (r, f) = COORDS[c];
        t[c] = [f, 12 - r, 6 + r - f];
        c += 1;
    }
    t
}

const DEPTH: [[u8; 3]; NUM_CELLS] = build_depth();

const fn build_territory() -> [u128; 3] {
    let mut t = [0u128; 3];
    let mut c = 0;
    while c < NUM_CELLS {
        let mut p = 0;
        while p < 3 {
            if DEPTH[c][p] <= 2 {
                t[p] |= 1u128 << c;
            }
            p += 1;
        }
        c += 1;
    }
    t
}

/// Territory of each player (RULES §1: depth 0, 1 or 2), indexed by `Player as usize`.
const TERRITORY: [u128; 3] = build_territory();

impl Cell {
    /// The Pleasure Garden, `7g` (RULES §1).
    pub const GARDEN: Cell = Cell(INDEX[6][6]);

    /// The cell at rank index `r` (a = 0) and file index `f` (file number − 1), if it exists.
    pub const fn from_coords(r: u8, f: u8) -> Option<Cell> {
        if r > 12 || f > 12 {
            return None;
        }
        let i = INDEX[r as usize][f as usize];
        if i == NONE {
            None
        } else {
            Some(Cell(i))
        }
    }

    /// The cell with index `i` (`0..127`).
    pub const fn from_index(i: usize) -> Option<Cell> {
        if i < NUM_CELLS {
            Some(Cell(i as u8))
        } else {
            None
        }
    }

    pub(crate) const fn new_unchecked(i: u8) -> Cell {
        Cell(i)
    }

    /// Index `0..127`.
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// Rank index, `a` = 0 … `m` = 12.
    pub const fn rank(self) -> u8 {
        COORDS[self.0 as usize].0
    }

    /// File index, file number − 1 (0..=12).
    pub const fn file(self) -> u8 {
        COORDS[self.0 as usize].1
    }

    /// Distance from `p`'s home edge (RULES §1).
    pub const fn depth(self, p: Player) -> u8 {
        DEPTH[self.0 as usize][p as usize]
    }

    /// Every cell, in index order.
    pub fn all() -> impl Iterator<Item = Cell> {
        (0..NUM_CELLS as u8).map(Cell)
    }

    pub(crate) fn step(self, d: usize) -> Option<Cell> {
        let n = STEP[d][self.0 as usize];
        if n == NONE {
            None
        } else {
            Some(Cell(n))
        }
    }

    pub(crate) fn ray(self, d: usize) -> Bitboard {
        Bitboard(RAYS[d][self.0 as usize])
    }

    /// Every cell on any of the twelve rays from `self`: the only cells a
    /// piece attacking `self` can stand on.
    pub(crate) fn lines(self) -> Bitboard {
        Bitboard(ALL_RAYS[self.0 as usize])
    }

    pub(crate) fn bb(self) -> Bitboard {
        Bitboard(1u128 << self.0)
    }

    /// Whether the six orthogonal neighbours of `self` include `other`.
    pub fn is_neighbour(self, other: Cell) -> bool {
        (1..12).step_by(2).any(|d| self.step(d) == Some(other))
    }
}

const fn build_far_edge() -> [u128; 3] {
    let mut t = [0u128; 3];
    let mut c = 0;
    while c < NUM_CELLS {
        let mut p = 0;
        while p < 3 {
            if DEPTH[c][p] == 12 {
                t[p] |= 1u128 << c;
            }
            p += 1;
        }
        c += 1;
    }
    t
}

/// `FAR_EDGE[p]`: the cells at depth 12 for player `p` (RULES §6.4).
const FAR_EDGE: [u128; 3] = build_far_edge();

/// The cells at depth 12 for `p`, where an unpromoted pawn or lance of `p`
/// has no move (RULES §6.4, §7.3).
pub(crate) fn far_edge(p: Player) -> Bitboard {
    Bitboard(FAR_EDGE[p as usize])
}

/// The cells one step from `c` in any of the twelve directions.
pub(crate) fn around(c: Cell) -> Bitboard {
    Bitboard(AROUND[c.0 as usize])
}

const fn build_around() -> [u128; NUM_CELLS] {
    let mut t = [0u128; NUM_CELLS];
    let mut c = 0;
    while c < NUM_CELLS {
        t[c] = step_set(c, 0xFFF);
        c += 1;
    }
    t
}

const AROUND: [u128; NUM_CELLS] = build_around();

/// Cells of `p`'s territory (RULES §1).
pub(crate) fn territory(p: Player) -> Bitboard {
    Bitboard(TERRITORY[p as usize])
}

/// Attacks of a range from `c` in direction `d` given occupancy `occ`: every
/// cell up to and including the first occupied one (RULES §10.1).
#[inline]
pub(crate) fn ray_attacks(c: Cell, d: usize, occ: Bitboard) -> Bitboard {
    let ray = RAYS[d][c.0 as usize];
    let blockers = ray & occ.0;
    if blockers == 0 {
        return Bitboard(ray);
    }
    let first = if is_positive(d) {
        blockers.trailing_zeros()
    } else {
        127 - blockers.leading_zeros()
    };
    Bitboard(ray & !RAYS[d][first as usize])
}

/// The first occupied cell from `c` in direction `d`, if any.
#[inline]
pub(crate) fn first_blocker(c: Cell, d: usize, occ: Bitboard) -> Option<Cell> {
    let blockers = RAYS[d][c.0 as usize] & occ.0;
    if blockers == 0 {
        return None;
    }
    let first = if is_positive(d) {
        blockers.trailing_zeros()
    } else {
        127 - blockers.leading_zeros()
    };
    Some(Cell(first as u8))
}

impl Cell {
    /// Appends the cell's name (as [`fmt::Display`] writes it) to `out`, without the
    /// formatting machinery: notation writes every legal action's cells this way. A
    /// name is two or three ASCII bytes: three are copied (a copy of a known length,
    /// no call) and the spare one cut off.
    pub(crate) fn push_name(self, out: &mut Vec<u8>) {
        let (bytes, len) = NAMES[self.0 as usize];
        out.extend_from_slice(&bytes);
        out.truncate(out.len() - (3 - len as usize));
    }
}

/// Every cell's name as bytes, padded to three, with its length.
static NAMES: [([u8; 3], u8); NUM_CELLS] = {
    let mut names = [([0u8; 3], 0u8); NUM_CELLS];
    let mut i = 0;
    while i < NUM_CELLS {
        let (rank, file) = COORDS[i];
        let file = file + 1;
        let letter = b'a' + rank;
        names[i] = if file >= 10 {
            ([b'1', b'0' + file - 10, letter], 3)
        } else {
            ([b'0' + file, letter, 0], 2)
        };
        i += 1;
    }
    names
};

impl fmt::Display for Cell {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.file() + 1, (b'a' + self.rank()) as char)
    }
}

impl fmt::Debug for Cell {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// A string that does not name a cell.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{0}` is not a cell (a file 1-13 then a rank a-m, such as 7g)")]
pub struct ParseCellError(pub String);

impl FromStr for Cell {
    type Err = ParseCellError;
    fn from_str(s: &str) -> Result<Cell, ParseCellError> {
        let err = || ParseCellError(s.to_string());
        let bytes = s.as_bytes();
        if bytes.len() < 2 || bytes.len() > 3 {
            return Err(err());
        }
        let rank = *bytes.last().ok_or_else(err)?;
        if !(b'a'..=b'm').contains(&rank) {
            return Err(err());
        }
        let file: u8 = s[..s.len() - 1].parse().map_err(|_| err())?;
        if !(1..=13).contains(&file) || s.starts_with('0') {
            return Err(err());
        }
        Cell::from_coords(rank - b'a', file - 1).ok_or_else(err)
    }
}

#[cfg(feature = "serde")]
impl serde::Serialize for Cell {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

#[cfg(feature = "serde")]
impl<'de> serde::Deserialize<'de> for Cell {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Cell, D::Error> {
        let s = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(s: &str) -> Cell {
        s.parse().unwrap()
    }

    #[test]
    fn pushed_names_are_the_displayed_names() {
        for cell in Cell::all() {
            let mut out = b"x".to_vec();
            cell.push_name(&mut out);
            assert_eq!(String::from_utf8(out).unwrap(), format!("x{cell}"));
        }
    }

    #[test]
    fn rules_1_board_has_127_cells_with_rank_lengths() {
        assert_eq!(Cell::all().count(), 127);
        let mut lengths = [0; 13];
        for cell in Cell::all() {
            lengths[cell.rank() as usize] += 1;
        }
        assert_eq!(lengths, [7, 8, 9, 10, 11, 12, 13, 12, 11, 10, 9, 8, 7]);
    }

    #[test]
    fn rules_1_names_round_trip_and_corners_exist() {
        for cell in Cell::all() {
            assert_eq!(c(&cell.to_string()), cell);
        }
        for corner in ["1a", "7a", "13g", "13m", "7m", "1g"] {
            assert_eq!(c(corner).to_string(), corner);
        }
        for bad in ["8a", "1h", "0a", "14g", "7", "g7", "7n", "07g", ""] {
            assert!(bad.parse::<Cell>().is_err(), "{bad}");
        }
        assert_eq!(Cell::GARDEN.to_string(), "7g");
    }

    #[test]
    fn rules_1_depths_sum_to_18_and_garden_is_6_6_6() {
        for cell in Cell::all() {
            let sum: u32 = Player::ALL.iter().map(|&p| cell.depth(p) as u32).sum();
            assert_eq!(sum, 18, "{cell}");
        }
        for p in Player::ALL {
            assert_eq!(Cell::GARDEN.depth(p), 6);
        }
    }

    #[test]
    fn rules_1_territories_are_24_cells_disjoint_and_leave_55() {
        let all: Vec<Bitboard> = Player::ALL.iter().map(|&p| territory(p)).collect();
        for t in &all {
            assert_eq!(t.count(), 24);
        }
        assert!((all[0] & all[1]).is_empty());
        assert!((all[1] & all[2]).is_empty());
        assert!((all[0] & all[2]).is_empty());
        assert_eq!(127 - (all[0] | all[1] | all[2]).count(), 55);
        assert!(!(all[0] | all[1] | all[2]).contains(Cell::GARDEN));
    }

    /// RULES §3: the table of steps per player, exactly as written.
    #[test]
    fn rules_3_direction_table_matches_rule_book() {
        let table: [[(i8, i8); 3]; 12] = [
            [(0, 1), (-1, -1), (1, 0)],
            [(-1, 1), (-1, -2), (2, 1)],
            [(-1, 0), (0, -1), (1, 1)],
            [(-2, -1), (1, -1), (1, 2)],
            [(-1, -1), (1, 0), (0, 1)],
            [(-1, -2), (2, 1), (-1, 1)],
            [(0, -1), (1, 1), (-1, 0)],
            [(1, -1), (1, 2), (-2, -1)],
            [(1, 0), (0, 1), (-1, -1)],
            [(2, 1), (-1, 1), (-1, -2)],
            [(1, 1), (-1, 0), (0, -1)],
            [(1, 2), (-2, -1), (1, -1)],
        ];
        for (i, row) in table.iter().enumerate() {
            let hour = i + 1;
            for (p, &expected) in [Player::First, Player::Middle, Player::Last]
                .iter()
                .zip(row)
            {
                assert_eq!(DIRS[abs_dir(*p, hour)], expected, "hour {hour} for {p:?}");
            }
        }
        // Each diagonal is the sum of the two adjacent orthogonals.
        for d in (0..12).step_by(2) {
            let (a, b) = (DIRS[(d + 11) % 12], DIRS[(d + 1) % 12]);
            assert_eq!(DIRS[d], (a.0 + b.0, a.1 + b.1));
        }
    }

    #[test]
    fn rules_1_neighbours_are_the_six_orthogonals() {
        // 7g has six neighbours and six diagonal cells.
        let g = Cell::GARDEN;
        let n: Vec<String> = (1..12)
            .step_by(2)
            .filter_map(|d| g.step(d))
            .map(|c| c.to_string())
            .collect();
        assert_eq!(n.len(), 6);
        for s in ["6g", "8g", "7f", "7h", "6f", "8h"] {
            assert!(n.contains(&s.to_string()), "{s} in {n:?}");
        }
        assert_eq!(c("1a").step(0), None);
    }

    #[test]
    fn rays_stop_at_the_first_blocker() {
        let from = c("7m");
        let occ = c("7j").bb() | c("7c").bb();
        let up = abs_dir(Player::Middle, 11);
        let att = ray_attacks(from, up, occ);
        assert_eq!(
            att.iter().map(|c| c.to_string()).collect::<Vec<_>>(),
            ["7j", "7k", "7l"]
        );
        assert_eq!(first_blocker(from, up, occ), Some(c("7j")));
    }
}
