//! The board and hands: a mailbox, per-player occupancy, king cells, Zobrist
//! hash, and the attack queries of RULES §10.1.

use crate::bitboard::Bitboard;
use crate::cell::{first_blocker, opposite, ray_attacks, step_set, Cell, NUM_CELLS};
use crate::piece::{moves_of, Piece, Role, MOVES};
use crate::player::{Player, Players};

const fn splitmix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

const fn build_piece_keys() -> [[u64; NUM_CELLS]; 49] {
    let mut t = [[0u64; NUM_CELLS]; 49];
    let mut p = 1;
    while p < 49 {
        let mut c = 0;
        while c < NUM_CELLS {
            t[p][c] = splitmix((p * 1000 + c) as u64);
            c += 1;
        }
        p += 1;
    }
    t
}

const fn build_hand_keys() -> [[u64; 7]; 3] {
    let mut t = [[0u64; 7]; 3];
    let mut p = 0;
    while p < 3 {
        let mut r = 0;
        while r < 7 {
            t[p][r] = splitmix((900_000 + p * 10 + r) as u64);
            r += 1;
        }
        p += 1;
    }
    t
}

const fn build_step_attacks() -> [[u128; NUM_CELLS]; 49] {
    let mut t = [[0u128; NUM_CELLS]; 49];
    let mut code = 1;
    while code < 49 {
        let mut c = 0;
        while c < NUM_CELLS {
            t[code][c] = step_set(c, MOVES[code].0);
            c += 1;
        }
        code += 1;
    }
    t
}

/// `STEP_ATTACKS[code][c]`: the cells a piece with `code` on `c` attacks by
/// its steps (RULES §5, §10.1); one lookup instead of a loop over directions.
static STEP_ATTACKS: [[u128; NUM_CELLS]; 49] = build_step_attacks();

static PIECE_KEYS: [[u64; NUM_CELLS]; 49] = build_piece_keys();
/// A hand's count `n` contributes `n × key` (wrapping) to a sum kept apart
/// from the pieces' XOR, so a count change is one add and the hash does not
/// depend on the order in which pieces and hands changed.
const HAND_KEYS: [[u64; 7]; 3] = build_hand_keys();

/// Pieces on the board and in hand. Cheap to copy.
#[derive(Clone, PartialEq, Eq)]
pub(crate) struct Board {
    cells: [u8; NUM_CELLS],
    // Per-player arrays indexed by `Player as usize`, not `ByPlayer`: these
    // are read in the innermost loops of move generation, where indexing a
    // `ByPlayer` (a branch per access) costs about 3% of perft's instructions.
    occ: [Bitboard; 3],
    kings: [Option<Cell>; 3],
    /// How many pieces of each kind stand on the board, by owner, at
    /// `promoted * 8 + role` (`Piece::code` less one, less `owner * 16`).
    counts: [[u8; 16]; 3],
    /// Counts in `Role::HAND` order.
    hands: [[u8; 7]; 3],
    /// XOR of the keys of the pieces on the board.
    piece_hash: u64,
    /// Sum of `count × key` over the hands.
    hand_hash: u64,
}

impl std::fmt::Debug for Board {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Board")
            .field("kings", &self.kings)
            .field("hands", &self.hands)
            .finish()
    }
}

impl Board {
    pub(crate) fn empty() -> Board {
        Board {
            cells: [0; NUM_CELLS],
            occ: [Bitboard::EMPTY; 3],
            kings: [None; 3],
            counts: [[0; 16]; 3],
            hands: [[0; 7]; 3],
            piece_hash: 0,
            hand_hash: 0,
        }
    }

    #[inline]
    pub(crate) fn get(&self, c: Cell) -> Option<Piece> {
        let code = self.cells[c.index()];
        if code == 0 {
            None
        } else {
            Some(Piece::decode(code))
        }
    }

    #[inline]
    pub(crate) fn code(&self, c: Cell) -> u8 {
        self.cells[c.index()]
    }

    pub(crate) fn put(&mut self, c: Cell, p: Piece) {
        debug_assert_eq!(self.cells[c.index()], 0, "put on occupied {c}");
        let code = p.code();
        self.cells[c.index()] = code;
        self.occ[p.owner as usize].set(c);
        self.counts[p.owner as usize][(code as usize - 1) % 16] += 1;
        if p.role == Role::King {
            self.kings[p.owner as usize] = Some(c);
        }
        self.piece_hash ^= PIECE_KEYS[code as usize][c.index()];
    }

    pub(crate) fn take(&mut self, c: Cell) -> Option<Piece> {
        let code = self.cells[c.index()];
        if code == 0 {
            return None;
        }
        let p = Piece::decode(code);
        self.cells[c.index()] = 0;
        self.occ[p.owner as usize].clear(c);
        self.counts[p.owner as usize][(code as usize - 1) % 16] -= 1;
        if p.role == Role::King && self.kings[p.owner as usize] == Some(c) {
            self.kings[p.owner as usize] = None;
        }
        self.piece_hash ^= PIECE_KEYS[code as usize][c.index()];
        Some(p)
    }

    #[inline]
    pub(crate) fn occupied(&self) -> Bitboard {
        self.occ[0] | self.occ[1] | self.occ[2]
    }

    #[inline]
    pub(crate) fn of(&self, p: Player) -> Bitboard {
        self.occ[p as usize]
    }

    pub(crate) fn of_players(&self, ps: Players) -> Bitboard {
        let mut b = Bitboard::EMPTY;
        for p in ps.iter() {
            b |= self.occ[p as usize];
        }
        b
    }

    #[inline]
    pub(crate) fn king(&self, p: Player) -> Option<Cell> {
        self.kings[p as usize]
    }

    pub(crate) fn kings(&self) -> Bitboard {
        let mut b = Bitboard::EMPTY;
        for c in self.kings.iter().flatten() {
            b.set(*c);
        }
        b
    }

    /// How many pieces of `p` stand on the board, by kind, at `promoted * 8 + role`.
    #[inline]
    pub(crate) fn counts(&self, p: Player) -> [u8; 16] {
        self.counts[p as usize]
    }

    pub(crate) fn hand(&self, p: Player, r: Role) -> u8 {
        self.hands[p as usize][r.hand_index()]
    }

    pub(crate) fn add_hand(&mut self, p: Player, r: Role) {
        self.hands[p as usize][r.hand_index()] += 1;
        self.hand_hash = self
            .hand_hash
            .wrapping_add(HAND_KEYS[p as usize][r.hand_index()]);
    }

    pub(crate) fn remove_hand(&mut self, p: Player, r: Role) {
        self.hands[p as usize][r.hand_index()] -= 1;
        self.hand_hash = self
            .hand_hash
            .wrapping_sub(HAND_KEYS[p as usize][r.hand_index()]);
    }

    /// Removes every piece of `p`, on the board and in hand (RULES §11 step 6).
    pub(crate) fn remove_player(&mut self, p: Player) {
        for c in self.occ[p as usize].iter() {
            self.take(c);
        }
        for r in Role::HAND {
            while self.hand(p, r) > 0 {
                self.remove_hand(p, r);
            }
        }
    }

    /// A hash of the pieces on the board and in hand, the same however the
    /// board was reached.
    #[inline]
    pub(crate) fn hash(&self) -> u64 {
        self.piece_hash ^ self.hand_hash
    }

    /// The board hash after a move or drop of `p` (step 1 of RULES §11),
    /// without making it; `None` for an illumination.
    pub(crate) fn hash_after(&self, p: Player, action: crate::action::Action) -> Option<u64> {
        use crate::action::Action;
        match action {
            Action::Move { from, to, promote } => {
                let code = self.cells[from.index()];
                let mut moved = Piece::decode(code);
                moved.promoted |= promote;
                let mut h = self.piece_hash ^ PIECE_KEYS[code as usize][from.index()];
                h ^= PIECE_KEYS[moved.code() as usize][to.index()];
                let mut hands = self.hand_hash;
                let victim = self.cells[to.index()];
                if victim != 0 {
                    h ^= PIECE_KEYS[victim as usize][to.index()];
                    let role = Piece::decode(victim).role;
                    hands = hands.wrapping_add(HAND_KEYS[p as usize][role.hand_index()]);
                }
                Some(h ^ hands)
            }
            Action::Drop { role, to } => {
                let hands = self
                    .hand_hash
                    .wrapping_sub(HAND_KEYS[p as usize][role.hand_index()]);
                let pieces = self.piece_hash
                    ^ PIECE_KEYS[Piece::new(p, role, false).code() as usize][to.index()];
                Some(pieces ^ hands)
            }
            Action::Illuminate { .. } => None,
        }
    }

    /// Cells attacked by the piece standing on `c` (RULES §10.1).
    pub(crate) fn attacks_from(&self, c: Cell) -> Bitboard {
        let code = self.cells[c.index()];
        debug_assert!(code != 0);
        self.attacks_of(code, c, self.occupied())
    }

    /// Cells a piece with `code` on `c` attacks given occupancy `occ`.
    #[inline]
    pub(crate) fn attacks_of(&self, code: u8, c: Cell, occ: Bitboard) -> Bitboard {
        let mut att = Bitboard(STEP_ATTACKS[code as usize][c.index()]);
        let mut r = moves_of(code).1;
        while r != 0 {
            let d = r.trailing_zeros() as usize;
            r &= r - 1;
            att |= ray_attacks(c, d, occ);
        }
        att
    }

    /// Whether any piece of a player in `by` attacks `target` (RULES §10.1).
    pub(crate) fn is_attacked(&self, target: Cell, by: Players) -> bool {
        self.is_attacked_in(target, self.of_players(by), self.occupied())
    }

    /// Whether a piece on one of the cells `attackers` attacks `target` when
    /// the occupied cells are `occ`: the attack test on the board after an
    /// action, without making it, as long as every attacker still stands
    /// where this board has it (RULES §10.1).
    #[inline]
    pub(crate) fn is_attacked_in(&self, target: Cell, attackers: Bitboard, occ: Bitboard) -> bool {
        if (attackers & target.lines()).is_empty() {
            return false;
        }
        for d in 0..12 {
            let back = opposite(d);
            if (attackers & target.ray(back)).is_empty() {
                continue;
            }
            // A step of direction d that lands on target starts one step back.
            if let Some(n) = target.step(back) {
                if attackers.contains(n) && moves_of(self.cells[n.index()]).0 & (1 << d) != 0 {
                    return true;
                }
            }
            if let Some(b) = first_blocker(target, back, occ) {
                if attackers.contains(b) && moves_of(self.cells[b.index()]).1 & (1 << d) != 0 {
                    return true;
                }
            }
        }
        false
    }

    /// The cells of pieces of players in `by` that attack `target`.
    pub(crate) fn attackers_of(&self, target: Cell, by: Players) -> Bitboard {
        let occ = self.occupied();
        let attackers = self.of_players(by);
        let mut out = Bitboard::EMPTY;
        for d in 0..12 {
            let back = opposite(d);
            if let Some(n) = target.step(back) {
                if attackers.contains(n) && moves_of(self.cells[n.index()]).0 & (1 << d) != 0 {
                    out.set(n);
                }
            }
            if let Some(b) = first_blocker(target, back, occ) {
                if attackers.contains(b) && moves_of(self.cells[b.index()]).1 & (1 << d) != 0 {
                    out.set(b);
                }
            }
        }
        out
    }

    /// Every cell attacked by `p`'s pieces, split by the attacker's value class
    /// (RULES §12.1: index 0 pawns, 1 G S N L, 2 R B, 3 kings), with `p`'s
    /// pieces by the same classes.
    pub(crate) fn attack_map(&self, p: Player) -> AttackMap {
        let occ = self.occupied();
        let mut by_value = [Bitboard::EMPTY; 4];
        let mut pieces = [Bitboard::EMPTY; 4];
        for c in self.occ[p as usize].iter() {
            let code = self.cells[c.index()];
            let v = Piece::decode(code).role.value() as usize;
            by_value[v] |= self.attacks_of(code, c, occ);
            pieces[v].set(c);
        }
        AttackMap {
            all: by_value[0] | by_value[1] | by_value[2] | by_value[3],
            by_value,
            pieces,
        }
    }

    /// [`Board::attack_map`] of `p` on this board, reached from a board
    /// where `p`'s map was `pre` by changes on the cells `changed` alone
    /// (pieces taken, put or replaced there). Only the value classes the
    /// change can reach are built again: those with a piece on a changed
    /// cell before or after, and those whose attacks reached a changed cell
    /// before — a range that the change lengthens or shortens ended on one
    /// of those cells (RULES §10.1), and steps do not depend on other pieces.
    pub(crate) fn attack_map_after(
        &self,
        pre: &AttackMap,
        p: Player,
        changed: Bitboard,
    ) -> AttackMap {
        let mut pieces = pre.pieces;
        let mut dirty = [false; 4];
        for ((d, kept), &attacked) in dirty.iter_mut().zip(&mut pieces).zip(&pre.by_value) {
            *d = (attacked & changed).any() || (*kept & changed).any();
            *kept &= !changed;
        }
        for c in (self.occ[p as usize] & changed).iter() {
            let v = Piece::decode(self.cells[c.index()]).role.value() as usize;
            pieces[v].set(c);
            dirty[v] = true;
        }
        let occ = self.occupied();
        let mut by_value = pre.by_value;
        for ((attacked, class), d) in by_value.iter_mut().zip(&pieces).zip(dirty) {
            if d {
                *attacked = Bitboard::EMPTY;
                for c in class.iter() {
                    *attacked |= self.attacks_of(self.cells[c.index()], c, occ);
                }
            }
        }
        AttackMap {
            all: by_value[0] | by_value[1] | by_value[2] | by_value[3],
            by_value,
            pieces,
        }
    }

    pub(crate) fn pieces(&self) -> impl Iterator<Item = (Cell, Piece)> + '_ {
        self.occupied()
            .iter()
            .map(move |c| (c, Piece::decode(self.cells[c.index()])))
    }
}

/// Cells attacked by one player, by attacker value class, and that player's
/// pieces by value class.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct AttackMap {
    pub by_value: [Bitboard; 4],
    /// The union of `by_value`.
    pub all: Bitboard,
    /// The player's own pieces whose kind has value `v` (RULES §12.1), at index `v`.
    pub pieces: [Bitboard; 4],
}

impl AttackMap {
    pub(crate) fn all(&self) -> Bitboard {
        self.all
    }
    /// Cells attacked by a piece worth less than `v`.
    pub(crate) fn below(&self, v: u8) -> Bitboard {
        let mut b = Bitboard::EMPTY;
        for i in 0..v as usize {
            b |= self.by_value[i];
        }
        b
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RULES §11 step 8 compares positions, not the ways they were reached:
    /// the hash of a board must not depend on the order of its changes.
    #[test]
    fn hash_does_not_depend_on_the_order_of_changes() {
        let c = |s: &str| s.parse::<Cell>().unwrap();
        let rook = Piece::new(Player::Middle, Role::Rook, false);
        let mut a = Board::empty();
        a.put(c("7g"), rook);
        a.add_hand(Player::First, Role::Pawn);
        let mut b = Board::empty();
        b.add_hand(Player::First, Role::Pawn);
        b.put(c("5e"), rook);
        b.take(c("5e"));
        b.put(c("7g"), rook);
        assert_eq!(a.hash(), b.hash());
        assert!(a == b);
        let drop = crate::action::Action::Drop {
            role: Role::Pawn,
            to: c("3c"),
        };
        let predicted = a.hash_after(Player::First, drop).unwrap();
        a.remove_hand(Player::First, Role::Pawn);
        a.put(c("3c"), Piece::new(Player::First, Role::Pawn, false));
        assert_eq!(a.hash(), predicted);
    }
}
