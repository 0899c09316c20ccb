//! The static evaluation: material (hand pieces a bit above board pieces),
//! king safety, the Pleasure Garden threat (RULES §11 step 2) and what an
//! alliance changes (RULES §12.5), scored for one player (or its team).

use std::sync::LazyLock;

use sannin_rules::{Bitboard, Cell, Player, Position, Role, NUM_CELLS};

/// A won game, from the evaluating player's side; wins nearer the root score
/// higher (`WIN - ply`).
pub const WIN: i32 = 1_000_000;
/// Scores at least this large are wins or losses, not evaluations.
pub const WIN_BOUND: i32 = WIN - 10_000;

/// Value of a piece on the board. The hex board gives every piece more
/// directions than in shogi; the ratios follow shogi programs loosely.
#[inline]
pub fn piece_value(role: Role, promoted: bool) -> i32 {
    VALUES[value_slot(role, promoted)]
}

/// Where a piece's value sits in [`VALUES`] and [`Weights::values`]: the order of
/// [`Position::piece_counts`].
#[inline]
fn value_slot(role: Role, promoted: bool) -> usize {
    role as usize + 8 * promoted as usize
}

/// [`piece_value`] at `role + 8 * promoted`, the order of
/// [`Position::piece_counts`].
const VALUES: [i32; 16] = {
    let mut t = [0; 16];
    let table: [(Role, i32, i32); 8] = [
        // A promoted king ranges in twelve directions and illuminates (RULES §9).
        (Role::King, 0, 1200),
        (Role::Rook, 900, 1150),
        (Role::Bishop, 800, 1050),
        (Role::Gold, 500, 500),
        (Role::Silver, 450, 600),
        (Role::Knight, 350, 350),
        (Role::Lance, 300, 450),
        (Role::Pawn, 100, 450),
    ];
    let mut i = 0;
    while i < table.len() {
        let (role, plain, promoted) = table[i];
        t[role as usize] = plain;
        t[role as usize + 8] = promoted;
        i += 1;
    }
    t
};

/// The evaluation's weights: each term's factor, in centipawns or percent.
/// The defaults ([`Weights::DEFAULT`]) were tuned by self-play
/// (`examples/tune.rs`; docs/bots.md, "Strength" and "Measuring the levels").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Weights {
    /// A piece in hand, in percent of its value on the board (a drop can go
    /// anywhere, RULES §6.3, so a bit more).
    pub hand_pct: i32,
    /// Per own piece next to the king.
    pub shelter: i32,
    /// Per cell next to the king attacked by an enemy.
    pub attacked: i32,
    /// Per enemy piece (not a pawn) within two steps of the king.
    pub near: i32,
    /// The penalty of a king with no, one or two free cells around it, in
    /// percent of (90, 35, 10).
    pub escape_pct: i32,
    /// Being in check.
    pub check: i32,
    /// The Pleasure Garden terms, in percent of the built-in table.
    pub garden_pct: i32,
    /// The weight of the two opponents' scores (together) against one's
    /// own in a free-for-all, in percent (100: their sum counts fully, 50:
    /// their average).
    pub others_pct: i32,
    /// A piece attacked by an enemy and not defended (en prise, RULES §12.1),
    /// in percent of its value; the player to move saves its most valuable one.
    pub hanging_pct: i32,
    /// A piece's value on the board in the evaluation, at `role + 8 * promoted`
    /// ([`piece_value`]'s table by default; the search's move ordering keeps that
    /// table whatever the weights).
    pub values: [i32; 16],
}

impl Weights {
    /// The weights the levels play with.
    pub const DEFAULT: Weights = Weights {
        hand_pct: 115,
        shelter: 12,
        attacked: 30,
        near: 18,
        escape_pct: 100,
        check: 70,
        garden_pct: 100,
        others_pct: 50,
        hanging_pct: 0,
        values: VALUES,
    };

    /// The weights fitted to self-play results (`weights/fitted.txt`, written by
    /// `tune texel`; docs/bots.md, "Fitting the evaluation to results"): level 5's.
    pub fn fitted() -> Weights {
        *FITTED
    }

    /// How many weights there are: [`Weights::NAMES`]' length.
    pub const COUNT: usize = 22;

    /// The names of the weights, in the order of [`Weights::to_vec`].
    pub const NAMES: [&'static str; Weights::COUNT] = [
        "hand_pct",
        "shelter",
        "attacked",
        "near",
        "escape_pct",
        "check",
        "garden_pct",
        "others_pct",
        "hanging_pct",
        "rook",
        "bishop",
        "gold",
        "silver",
        "knight",
        "lance",
        "pawn",
        "promoted_king",
        "promoted_rook",
        "promoted_bishop",
        "promoted_silver",
        "promoted_lance",
        "promoted_pawn",
    ];

    /// The pieces of [`Weights::NAMES`]' values, in its order: a king has no
    /// value until it promotes, and a gold or knight never promotes (RULES §7.2).
    const VALUED: [(Role, bool); 13] = [
        (Role::Rook, false),
        (Role::Bishop, false),
        (Role::Gold, false),
        (Role::Silver, false),
        (Role::Knight, false),
        (Role::Lance, false),
        (Role::Pawn, false),
        (Role::King, true),
        (Role::Rook, true),
        (Role::Bishop, true),
        (Role::Silver, true),
        (Role::Lance, true),
        (Role::Pawn, true),
    ];

    pub fn to_vec(&self) -> [i32; Weights::COUNT] {
        let mut v = [0; Weights::COUNT];
        v[..9].copy_from_slice(&[
            self.hand_pct,
            self.shelter,
            self.attacked,
            self.near,
            self.escape_pct,
            self.check,
            self.garden_pct,
            self.others_pct,
            self.hanging_pct,
        ]);
        for (slot, (role, promoted)) in v[9..].iter_mut().zip(Weights::VALUED) {
            *slot = self.value(role, promoted);
        }
        v
    }

    pub fn from_vec(v: [i32; Weights::COUNT]) -> Weights {
        let mut values = VALUES;
        for (&x, (role, promoted)) in v[9..].iter().zip(Weights::VALUED) {
            values[value_slot(role, promoted)] = x;
        }
        Weights {
            hand_pct: v[0],
            shelter: v[1],
            attacked: v[2],
            near: v[3],
            escape_pct: v[4],
            check: v[5],
            garden_pct: v[6],
            others_pct: v[7],
            hanging_pct: v[8],
            values,
        }
    }

    /// A piece's value on the board.
    #[inline]
    pub fn value(&self, role: Role, promoted: bool) -> i32 {
        self.values[value_slot(role, promoted)]
    }

    /// Parses `name=value,...` over the defaults.
    pub fn parse(s: &str) -> Result<Weights, String> {
        Ok(Weights::from_vec(Weights::assignments(s)?.0))
    }

    /// Reads a weights file ([`Weights::file`]'s text): `name=value` a line (or
    /// several on a line, separated by commas), `#` starting a comment, and every
    /// weight named, so that a file never falls back on a default unseen.
    pub fn read_file(text: &str) -> Result<Weights, String> {
        let (v, named) = Weights::assignments(text)?;
        match Weights::NAMES.iter().zip(named).find(|(_, n)| !n) {
            Some((name, _)) => Err(format!("{name}: not in the file")),
            None => Ok(Weights::from_vec(v)),
        }
    }

    /// The weights as a file [`Weights::read_file`] reads, under `header` (each of
    /// its lines made a comment).
    pub fn file(&self, header: &str) -> String {
        let mut out: String = header.lines().map(|l| format!("# {l}\n")).collect();
        for (name, v) in Weights::NAMES.iter().zip(self.to_vec()) {
            out += &format!("{name}={v}\n");
        }
        out
    }

    /// The defaults with `text`'s assignments applied, and which weights it named.
    fn assignments(text: &str) -> Result<([i32; Weights::COUNT], [bool; Weights::COUNT]), String> {
        let mut v = Weights::DEFAULT.to_vec();
        let mut named = [false; Weights::COUNT];
        let parts = text
            .lines()
            .flat_map(|line| line.split('#').next().unwrap_or_default().split(','))
            .map(str::trim)
            .filter(|p| !p.is_empty());
        for part in parts {
            let (k, x) = part
                .split_once('=')
                .ok_or_else(|| format!("{part}: expected name=value"))?;
            let i = Weights::NAMES
                .iter()
                .position(|n| *n == k.trim())
                .ok_or_else(|| format!("{k}: no such weight"))?;
            v[i] = x.trim().parse().map_err(|e| format!("{part}: {e}"))?;
            named[i] = true;
        }
        Ok((v, named))
    }

    fn hand_value(&self, role: Role) -> i32 {
        self.value(role, false) * self.hand_pct / 100
    }
}

static FITTED: LazyLock<Weights> = LazyLock::new(|| {
    Weights::read_file(include_str!("../weights/fitted.txt"))
        .unwrap_or_else(|e| panic!("weights/fitted.txt: {e}"))
});

/// `name=value,...`, every weight, as [`Weights::parse`] reads it.
impl std::fmt::Display for Weights {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for (i, (name, v)) in Weights::NAMES.iter().zip(self.to_vec()).enumerate() {
            write!(f, "{}{name}={v}", if i > 0 { "," } else { "" })?;
        }
        Ok(())
    }
}

impl Default for Weights {
    fn default() -> Weights {
        Weights::DEFAULT
    }
}

/// The six orthogonal steps `(Δr, Δf)` (RULES §1 neighbours).
const ORTHOGONAL: [(i8, i8); 6] = [(0, 1), (0, -1), (1, 0), (-1, 0), (1, 1), (-1, -1)];
/// The six diagonal steps (RULES §3: each the sum of two adjacent orthogonals).
const DIAGONAL: [(i8, i8); 6] = [(-1, 1), (1, -1), (-2, -1), (2, 1), (-1, -2), (1, 2)];

fn offset(c: Cell, (dr, df): (i8, i8)) -> Option<Cell> {
    let r = c.rank() as i8 + dr;
    let f = c.file() as i8 + df;
    if (0..13).contains(&r) && (0..13).contains(&f) {
        Cell::from_coords(r as u8, f as u8)
    } else {
        None
    }
}

/// The orthogonal neighbours of `c`.
pub fn neighbours(c: Cell) -> impl Iterator<Item = Cell> {
    ORTHOGONAL.into_iter().filter_map(move |d| offset(c, d))
}

/// Steps between two cells for a piece stepping to neighbours (hex distance).
pub fn distance(a: Cell, b: Cell) -> i32 {
    let dr = a.rank() as i32 - b.rank() as i32;
    let df = a.file() as i32 - b.file() as i32;
    dr.abs().max(df.abs()).max((dr - df).abs())
}

/// Whether a promoted king on `from` could range to `to` in one move: `to`
/// lies on one of its twelve lines and every cell between is empty.
fn clear_line(pos: &Position, from: Cell, to: Cell) -> bool {
    for d in ORTHOGONAL.into_iter().chain(DIAGONAL) {
        let mut c = from;
        while let Some(n) = offset(c, d) {
            if n == to {
                return true;
            }
            if pos.piece_at(n).is_some() {
                break;
            }
            c = n;
        }
    }
    false
}

/// The players whose pieces can check `p` (RULES §12.5: allies cannot).
pub fn enemies(pos: &Position, p: Player) -> Vec<Player> {
    enemy_players(pos, p).collect()
}

/// [`enemies`] without the allocation.
fn enemy_players(pos: &Position, p: Player) -> impl Iterator<Item = Player> + Clone + '_ {
    let ally = ally_of(pos, p);
    pos.active_players()
        .filter(move |&q| q != p && Some(q) != ally)
}

/// `p`'s ally while an alliance stands.
pub fn ally_of(pos: &Position, p: Player) -> Option<Player> {
    match pos.alliance() {
        Some((a, b)) if a == p => Some(b),
        Some((a, b)) if b == p => Some(a),
        _ => None,
    }
}

/// Whether `p` and `q` are on one side: the same player or allies.
pub fn same_side(pos: &Position, p: Player, q: Player) -> bool {
    p == q || ally_of(pos, p) == Some(q)
}

/// Whether a piece of one of `enemies` attacks `cell`.
pub fn attacked_by_any(pos: &Position, enemies: &[Player], cell: Cell) -> bool {
    enemies.iter().any(|&e| pos.is_attacked_by(cell, e))
}

/// Per cell, its orthogonal neighbours and the cells at most two steps
/// away, as sets: the evaluation counts pieces and attacks near a king with
/// a few set operations.
struct Around {
    neighbours: [Bitboard; NUM_CELLS],
    within_two: [Bitboard; NUM_CELLS],
}

static AROUND: LazyLock<Around> = LazyLock::new(|| {
    let mut t = Around {
        neighbours: [Bitboard::EMPTY; NUM_CELLS],
        within_two: [Bitboard::EMPTY; NUM_CELLS],
    };
    for c in Cell::all() {
        for n in neighbours(c) {
            t.neighbours[c.index()].set(n);
        }
        for d in Cell::all().filter(|&d| distance(c, d) <= 2) {
            t.within_two[c.index()].set(d);
        }
    }
    t
});

/// King safety of `p`: enemy-attacked cells around the king (own pieces
/// there included), free escape cells, own pieces sheltering it, enemy
/// pieces close to it, check.
fn king_safety(
    w: &Weights,
    pos: &Position,
    attacked_by: &[Bitboard; 3],
    p: Player,
    king: Cell,
    near_enemies: i32,
) -> i32 {
    let mut hit = Bitboard::EMPTY;
    for e in enemy_players(pos, p) {
        hit |= attacked_by[e.index()];
    }
    let around = AROUND.neighbours[king.index()];
    let own = pos.occupied_by(p);
    let shelter = (around & own).count() as i32;
    let attacked = (around & hit).count() as i32;
    let escapes = (around & !own & !hit).count();
    let escape_term = match escapes {
        0 => -90,
        1 => -35,
        2 => -10,
        _ => 0,
    };
    let check = if pos.in_check(p) { -w.check } else { 0 };
    w.shelter * shelter - w.attacked * attacked - w.near * near_enemies
        + escape_term * w.escape_pct / 100
        + check
}

/// The Pleasure Garden threat for `p` (RULES §11 step 2): only a player not in
/// an alliance wins there; a king one move from an unattacked, reachable 7g is
/// an immediate threat, and a decisive one when its owner is to move.
fn garden(
    w: &Weights,
    pos: &Position,
    attacked: &[Bitboard; 3],
    p: Player,
    king: Cell,
    promoted: bool,
) -> i32 {
    if pos.alliance().is_some_and(|(a, b)| a == p || b == p) {
        return 0;
    }
    let d = distance(king, Cell::GARDEN);
    let free = match pos.piece_at(Cell::GARDEN) {
        None => true,
        Some(x) => x.owner != p && x.role != Role::King,
    };
    let reach = free
        && if promoted {
            clear_line(pos, king, Cell::GARDEN)
        } else {
            d == 1
        };
    // Moving into check is illegal (RULES §10.3), so an attacked 7g is closed;
    // any other player's attack counts, an ally's too (§10.2).
    if reach
        && !pos
            .active_players()
            .any(|q| q != p && attacked[q.index()].contains(Cell::GARDEN))
    {
        return if pos.to_move() == Some(p) {
            5000
        } else {
            450 * w.garden_pct / 100
        };
    }
    let d = if promoted { (d + 1) / 2 } else { d };
    let table = match d {
        0 | 1 => 160,
        2 => 90,
        3 => 40,
        4 => 15,
        5 => 5,
        _ => 0,
    };
    table * w.garden_pct / 100
}

/// Scores of each player (indexed by `Player::index`); 0 for eliminated players.
pub fn player_scores(w: &Weights, pos: &Position) -> [i32; 3] {
    let mut score = [0i32; 3];
    let mut kings: [Option<(Cell, bool)>; 3] = [None; 3];
    for p in Player::ALL {
        let counts = pos.piece_counts(p);
        score[p.index()] = counts
            .iter()
            .zip(w.values)
            .map(|(&n, v)| n as i32 * v)
            .sum();
        if let Some(k) = pos.king(p) {
            kings[p.index()] = Some((k, counts[Role::King as usize + 8] > 0));
        }
    }
    // Each active player's attacked cells, computed once for every king.
    let mut attacked = [Bitboard::EMPTY; 3];
    for p in pos.active_players() {
        attacked[p.index()] = pos.attacked_cells(p);
    }
    for p in pos.active_players() {
        for r in Role::HAND {
            score[p.index()] += w.hand_value(r) * pos.hand(p, r) as i32;
        }
        let Some((king, promoted)) = kings[p.index()] else {
            continue;
        };
        // Enemy pieces within two steps, pawns and kings aside.
        let mut close = Bitboard::EMPTY;
        for q in Player::ALL.into_iter().filter(|&q| !same_side(pos, p, q)) {
            close |= pos.occupied_by(q);
        }
        close &= AROUND.within_two[king.index()];
        let near = close
            .iter()
            .filter(|&c| {
                pos.piece_at(c)
                    .is_some_and(|x| x.role != Role::Pawn && x.role != Role::King)
            })
            .count() as i32;
        score[p.index()] += king_safety(w, pos, &attacked, p, king, near)
            + garden(w, pos, &attacked, p, king, promoted);
    }
    if w.hanging_pct != 0 {
        // Pieces en prise: attacked by an enemy, not defended (an own
        // piece's attack covers the cell, RULES §10.1).
        let mut hanging = [[0i32; 2]; 3];
        for p in pos.active_players() {
            let mut foes = Bitboard::EMPTY;
            for e in enemy_players(pos, p) {
                foes |= attacked[e.index()];
            }
            let mut kingless = pos.occupied_by(p);
            if let Some((k, _)) = kings[p.index()] {
                kingless.clear(k);
            }
            for c in (kingless & foes & !attacked[p.index()]).iter() {
                let piece = pos.piece_at(c).expect("an occupied cell");
                let v = w.value(piece.role, piece.promoted);
                let h = &mut hanging[p.index()];
                if v > h[0] {
                    h[1] = h[0];
                    h[0] = v;
                } else {
                    h[1] = h[1].max(v);
                }
            }
        }
        for p in pos.active_players() {
            let h = hanging[p.index()];
            // The player to move saves its most valuable piece; the others
            // lose theirs to whoever moves first.
            let lost = if pos.to_move() == Some(p) { h[1] } else { h[0] };
            score[p.index()] -= lost * w.hanging_pct / 100;
        }
    }
    score
}

/// The evaluation of `pos` for `me` (paranoid: `me`'s side against the rest).
///
/// Free for all: `me`'s score minus the sum of the others' times
/// [`Weights::others_pct`] (an eliminated player scores 0, so eliminating an
/// opponent gains). While an
/// alliance stands the two allies are one team (RULES §12.5): the team's
/// average against the unallied player. Each eliminated opponent is worth
/// [`ELIMINATED`] on top of its pieces leaving the board. The halving keeps both sides on one
/// scale, so an alliance forming does not by itself swing the score.
pub fn evaluate(pos: &Position, me: Player) -> i32 {
    evaluate_with(&Weights::DEFAULT, pos, me)
}

/// [`evaluate`] with other weights.
pub fn evaluate_with(w: &Weights, pos: &Position, me: Player) -> i32 {
    let s = player_scores(w, pos);
    team_value(w, pos, me, &s)
}

/// Bonus per eliminated opponent in a free-for-all: mating a player is worth
/// more than any material it could cost.
const ELIMINATED: i32 = 6000;

pub fn team_value(w: &Weights, pos: &Position, me: Player, s: &[i32; 3]) -> i32 {
    match pos.alliance() {
        Some((a, b)) if pos.active_count() == 3 => {
            let team = (s[a.index()] + s[b.index()]) / 2;
            let un = Player::ALL
                .into_iter()
                .find(|&q| q != a && q != b)
                .expect("unallied");
            if me == un {
                s[un.index()] - team
            } else {
                team - s[un.index()]
            }
        }
        _ => {
            let others: i32 = Player::ALL
                .into_iter()
                .filter(|&q| q != me)
                .map(|q| s[q.index()])
                .sum();
            let out = 3 - pos.active_count() as i32;
            s[me.index()] - others * w.others_pct / 100 + ELIMINATED * out
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn start_is_balanced_and_symmetric() {
        let pos = Position::start();
        let s = player_scores(&Weights::DEFAULT, &pos);
        assert_eq!(s[0], s[1]);
        assert_eq!(s[1], s[2]);
        assert_eq!(distance("1d".parse().unwrap(), Cell::GARDEN), 6);
        assert_eq!(distance("7f".parse().unwrap(), Cell::GARDEN), 1);
        assert_eq!(neighbours(Cell::GARDEN).count(), 6);
        assert_eq!(neighbours("1a".parse().unwrap()).count(), 3);
    }
}
