//! The attack maps of a position's board, computed when first asked for and
//! kept with the position.

use std::sync::OnceLock;

use crate::bitboard::Bitboard;
use crate::board::{AttackMap, Board};
use crate::cell::Cell;
use crate::player::Player;
use crate::position::{Core, LastAction, Position};

/// The attack maps of a position's board (RULES §10.1, §12.1), each
/// computed the first time it is asked for and shared by the position's
/// copies: searches resolve many actions from one position, and the board
/// of a position never changes.
///
/// It also keeps the answers of the mate-threat test (RULES §12.1) by pair
/// of players: the double attack (§12.3) asks about the position before an
/// action for each of its successors. A mate threat depends on the board,
/// the alliance and the castling rights, so each answer is kept with the
/// rights and alliance it was found under.
#[derive(Default)]
pub(crate) struct AttackCache {
    maps: [OnceLock<AttackMap>; 3],
    /// The cells on which this board differs from the board before the
    /// action that led here (the position's `last`), while it differs on
    /// nothing else: a map asked for is then updated from that board's map
    /// when it is known (`Board::attack_map_after`).
    changed: Bitboard,
    /// `(castling | alliance << 3, threat)` at `x * 3 + y`.
    mate: [OnceLock<(u8, bool)>; 9],
}

/// Derived data, left out of a position's `Debug` output.
impl std::fmt::Debug for AttackCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("AttackCache")
    }
}

impl AttackCache {
    /// `p`'s map if it was computed already.
    #[inline]
    pub(crate) fn known(&self, p: Player) -> Option<&AttackMap> {
        self.maps[p as usize].get()
    }
    /// Whether a piece of a player other than `p` attacks `cell`, when the maps
    /// of all those players are known.
    #[inline]
    pub(crate) fn others_attack(&self, p: Player, cell: Cell) -> Option<bool> {
        let mut hit = false;
        for q in Player::ALL {
            if q != p {
                hit |= self.known(q)?.all().contains(cell);
            }
        }
        Some(hit)
    }
    /// Whether `x` has a mate threat on `y` in `core` (whose board is the
    /// one of this cache), found by `test` unless known for the same
    /// castling rights and alliance.
    pub(crate) fn mate_threat(
        &self,
        core: &Core,
        x: Player,
        y: Player,
        test: impl FnOnce() -> bool,
    ) -> bool {
        let tag = core.castling.0 | core.alliance.0 << 3;
        let cell = &self.mate[x as usize * 3 + y as usize];
        match cell.get() {
            Some(&(t, v)) if t == tag => v,
            Some(_) => test(),
            None => cell.get_or_init(|| (tag, test())).1,
        }
    }
    /// The cache of the board after an action that changed the cells
    /// `changed` (none for an illumination) and nothing else.
    pub(crate) fn after(changed: Bitboard) -> AttackCache {
        AttackCache {
            changed,
            ..AttackCache::default()
        }
    }
    /// Whether this board is the board before the last action with that
    /// action's changes alone (see `changed`).
    pub(crate) fn derived(&self) -> bool {
        self.changed.any()
    }
    /// `p`'s map, made by `make` if not known yet.
    pub(crate) fn get_or(&self, p: Player, make: impl FnOnce() -> AttackMap) -> &AttackMap {
        self.maps[p as usize].get_or_init(make)
    }
    /// For a position whose last action is `last`: `p`'s map on `board`
    /// (this cache's), updated from the map of the board before that
    /// action (kept with that board) when this board differs from it on
    /// `changed` alone, else made anew.
    pub(crate) fn get_after(
        &self,
        board: &Board,
        last: Option<&LastAction>,
        p: Player,
    ) -> &AttackMap {
        self.get_or(p, || match last {
            Some(l) if self.changed.any() => {
                let pre = l.pre_attacks.get_or(p, || l.pre.board.attack_map(p));
                board.attack_map_after(pre, p, self.changed)
            }
            _ => board.attack_map(p),
        })
    }
}

impl Position {
    /// `p`'s attack map on this position's board, kept with the position;
    /// updated from the map of the board before the last action when it can.
    pub(crate) fn attack_map(&self, p: Player) -> &AttackMap {
        self.attacks
            .get_after(&self.core.board, self.last.as_deref(), p)
    }
}
