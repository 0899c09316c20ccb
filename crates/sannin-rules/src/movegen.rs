//! Generation of actions that follow RULES §5–§9, and the legality test of
//! §10.3. `pseudo_actions` + `is_legal_basic` is the one source of truth: the
//! checked `play` and the legal-action lists both go through it.

use std::ops::ControlFlow;

use crate::action::Action;
use crate::bitboard::Bitboard;
use crate::board::Board;
use crate::cell::{first_blocker, opposite, territory, Cell};
use crate::piece::{moves_of, Piece, Role};
use crate::player::{Player, Players};
use crate::position::{is_dead_cell, Core};

/// Promotion zone of `p` for a piece of kind `role` (RULES §7.1): both other
/// players' territories, and the Pleasure Garden except for a king.
#[inline]
pub(crate) fn promotion_zone(p: Player, role: Role) -> Bitboard {
    let z = territory(p.next()) | territory(p.next().next());
    if role == Role::King {
        z
    } else {
        z | Cell::GARDEN.bb()
    }
}

/// Whether a move of `piece` from `from` to `to` may promote (RULES §7.2, §7.4).
pub(crate) fn may_promote(core: &Core, piece: Piece, from: Cell, to: Cell) -> bool {
    piece.role.can_promote() && !piece.promoted && !core.alliance.contains(piece.owner) && {
        let z = promotion_zone(piece.owner, piece.role);
        z.contains(from) || z.contains(to)
    }
}

/// Cells a promoted king on `from` would capture by illuminating (RULES §9.1),
/// judged on `core` before the action.
pub(crate) fn illumination_targets(core: &Core, p: Player, from: Cell) -> Bitboard {
    let b = &core.board;
    let occ = b.occupied();
    let ally = core.ally(p);
    let mut candidates = Bitboard::EMPTY;
    for d in 0..12 {
        if let Some(c) = first_blocker(from, d, occ) {
            let piece = b.get(c).expect("blocker is occupied");
            if piece.owner != p && Some(piece.owner) != ally && piece.role != Role::King {
                candidates.set(c);
            }
        }
    }
    if candidates.is_empty() {
        return candidates;
    }
    let mut attacked = Bitboard::EMPTY;
    for q in Player::ALL {
        if q != p {
            attacked |= b.attack_map(q).all();
        }
    }
    candidates & !attacked
}

/// Every action of `p` that follows RULES §5–§9, ignoring §10.3 (king safety,
/// allies), repetition and the pawn-drop mate ban.
pub(crate) fn pseudo_actions(core: &Core, p: Player, out: &mut Vec<Action>) {
    pseudo_moves(core, p, out);
    pseudo_drops(core, p, !Bitboard::EMPTY, out);
}

/// The moves, castling and illumination among [`pseudo_actions`].
pub(crate) fn pseudo_moves(core: &Core, p: Player, out: &mut Vec<Action>) {
    let _ = visit_moves(core, p, core.board.of(p), !Bitboard::EMPTY, &mut |a| {
        out.push(a);
        ControlFlow::Continue(())
    });
}

/// The drops among [`pseudo_actions`] whose target lies in `cells`.
pub(crate) fn pseudo_drops(core: &Core, p: Player, cells: Bitboard, out: &mut Vec<Action>) {
    let _ = visit_drops(core, p, cells, &mut |a| {
        out.push(a);
        ControlFlow::Continue(())
    });
}

/// Calls `f` on each move, castling and illumination of `p`'s pieces on the
/// cells `pieces`, in the order of [`pseudo_moves`], keeping moves and
/// castling jumps whose target lies in `targets` (every illumination is
/// kept: it always captures). Stops as soon as `f` breaks, so a caller
/// looking for one action generates no more than it needs.
#[inline]
pub(crate) fn visit_moves<F: FnMut(Action) -> ControlFlow<()>>(
    core: &Core,
    p: Player,
    pieces: Bitboard,
    targets: Bitboard,
    f: &mut F,
) -> ControlFlow<()> {
    let b = &core.board;
    let occ = b.occupied();
    let blocked = b.of(p) | b.kings();
    for from in pieces.iter() {
        let code = b.code(from);
        let piece = Piece::from_code(code);
        let reach = b.attacks_of(code, from, occ) & !blocked;
        for to in (reach & targets).iter() {
            visit_move(core, piece, from, to, f)?;
        }
        if piece.role == Role::King {
            if piece.promoted {
                if illumination_targets(core, p, from).any() {
                    f(Action::Illuminate { from })?;
                }
            } else if core.castling.contains(p) && !core.in_check(p) {
                // RULES §8.1: any cell of the own territory, empty or holding
                // another player's piece other than a king; §8.3: a jump to a
                // neighbour is the ordinary step, generated above.
                let jumps = territory(p) & !blocked & !reach & targets;
                for to in jumps.iter() {
                    if to != from {
                        f(Action::Move {
                            from,
                            to,
                            promote: false,
                        })?;
                    }
                }
            }
        }
    }
    ControlFlow::Continue(())
}

/// Calls `f` on each drop of `p` onto a cell of `cells`, in the order of
/// [`pseudo_drops`]; stops as soon as `f` breaks.
#[inline]
pub(crate) fn visit_drops<F: FnMut(Action) -> ControlFlow<()>>(
    core: &Core,
    p: Player,
    cells: Bitboard,
    f: &mut F,
) -> ControlFlow<()> {
    let b = &core.board;
    let empty = !b.occupied() & cells;
    for role in Role::HAND {
        if b.hand(p, role) == 0 {
            continue;
        }
        for to in empty.iter() {
            if !is_dead_cell(p, role, to) {
                f(Action::Drop { role, to })?;
            }
        }
    }
    ControlFlow::Continue(())
}

#[inline]
fn visit_move<F: FnMut(Action) -> ControlFlow<()>>(
    core: &Core,
    piece: Piece,
    from: Cell,
    to: Cell,
    f: &mut F,
) -> ControlFlow<()> {
    let can = may_promote(core, piece, from, to);
    // RULES §7.3 / D1: a pawn or lance that would have no move must promote.
    let must = !piece.promoted && is_dead_cell(piece.owner, piece.role, to);
    if !must {
        f(Action::Move {
            from,
            to,
            promote: false,
        })?;
    }
    if can {
        f(Action::Move {
            from,
            to,
            promote: true,
        })?;
    }
    ControlFlow::Continue(())
}

/// What step 1 of RULES §11 did.
#[derive(Clone, Debug, Default)]
pub(crate) struct Applied {
    /// Pieces captured, with the cell they stood on, before demotion.
    pub captured: Vec<(Cell, Piece)>,
    /// The cell the moved piece left, for a move.
    pub vacated: Option<Cell>,
    pub moved_king: bool,
    pub promoted: Option<(Cell, Piece)>,
}

/// Step 1 of RULES §11 on `board` for a pseudo-legal action of `p`.
pub(crate) fn apply(core: &mut Core, p: Player, action: Action) -> Applied {
    let mut applied = Applied::default();
    match action {
        Action::Move { from, to, promote } => {
            let board = &mut core.board;
            let mut piece = board.take(from).expect("a piece on from");
            if let Some(victim) = board.take(to) {
                board.add_hand(p, victim.role);
                applied.captured.push((to, victim));
            }
            if promote {
                piece.promoted = true;
                applied.promoted = Some((to, piece));
            }
            applied.moved_king = piece.role == Role::King;
            applied.vacated = Some(from);
            board.put(to, piece);
        }
        Action::Drop { role, to } => {
            let board = &mut core.board;
            board.remove_hand(p, role);
            board.put(to, Piece::new(p, role, false));
        }
        Action::Illuminate { from } => {
            let targets = illumination_targets(core, p, from);
            let board = &mut core.board;
            for c in targets.iter() {
                let victim = board.take(c).expect("target occupied");
                board.add_hand(p, victim.role);
                applied.captured.push((c, victim));
            }
        }
    }
    applied
}

/// What a move or drop of `p` puts on the board (RULES §11 step 1): the
/// piece where it lands, promoted if the move promotes.
pub(crate) struct Landing {
    pub code: u8,
    /// The cell a move leaves; none for a drop.
    pub from: Option<Cell>,
    pub to: Cell,
    /// The occupied cells after the action.
    pub occ: Bitboard,
}

/// The [`Landing`] of a move or drop; `None` for an illumination.
pub(crate) fn landing(board: &Board, p: Player, action: Action) -> Option<Landing> {
    let mut occ = board.occupied();
    let (code, from, to) = match action {
        Action::Move { from, to, promote } => {
            let mut piece = board.get(from).expect("a piece on from");
            piece.promoted |= promote;
            occ.clear(from);
            (piece.code(), Some(from), to)
        }
        Action::Drop { role, to } => (Piece::new(p, role, false).code(), None, to),
        Action::Illuminate { .. } => return None,
    };
    occ.set(to);
    Some(Landing {
        code,
        from,
        to,
        occ,
    })
}

/// Step 1 on a board only, for the cheap legality test.
#[inline]
pub(crate) fn apply_board(board: &mut Board, p: Player, action: Action, illum: Bitboard) {
    match action {
        Action::Move { from, to, promote } => {
            let mut piece = board.take(from).expect("a piece on from");
            if let Some(victim) = board.take(to) {
                board.add_hand(p, victim.role);
            }
            piece.promoted |= promote;
            board.put(to, piece);
        }
        Action::Drop { role, to } => {
            board.remove_hand(p, role);
            board.put(to, Piece::new(p, role, false));
        }
        Action::Illuminate { .. } => {
            for c in illum.iter() {
                let victim = board.take(c).expect("target occupied");
                board.add_hand(p, victim.role);
            }
        }
    }
}

/// RULES §10.3 on the position after step 1: the mover's king is not in
/// check, and no piece of the mover attacks its ally's king.
pub(crate) fn is_safe_after(board: &Board, alliance: Players, p: Player) -> bool {
    let mut others = Players::ALL;
    others.remove(p);
    if let Some(k) = board.king(p) {
        if board.is_attacked(k, others) {
            return false;
        }
    }
    if alliance.contains(p) {
        for ally in alliance.iter().filter(|&q| q != p) {
            if let Some(k) = board.king(ally) {
                if board.is_attacked(k, Players::only(p)) {
                    return false;
                }
            }
        }
    }
    true
}

/// Whether `action` (pseudo-legal for `p`) passes RULES §10.3 (= §10.4's test).
pub(crate) fn is_legal_basic(core: &Core, p: Player, action: Action) -> bool {
    let mut board = core.board.clone();
    let illum = match action {
        Action::Illuminate { from } => illumination_targets(core, p, from),
        _ => Bitboard::EMPTY,
    };
    apply_board(&mut board, p, action, illum);
    is_safe_after(&board, core.alliance, p)
}

/// The §10.3 test for many actions of one player on one position, with
/// shortcuts that need no board copy. `p`'s own king, after a move or drop,
/// is attacked when some other player's piece (an ally's included), not
/// captured by the action, attacks its cell given the new occupancy; no such
/// piece moves. When `p` is moreover not in check, an action can break
/// that only by opening a line to its own king: a drop fills a cell and
/// opens none, and a move of another piece opens only the cell it leaves.
/// That matters only for a pinned piece: the first piece on one of the
/// king's twelve lines, when the next piece beyond it belongs to another
/// player and attacks along that line from a distance (RULES §10.1).
///
/// An allied player must also leave its ally's king unattacked by its own
/// pieces (§12.5): by the moved or dropped piece from where it lands, or by
/// another of its pieces, which can gain an attack only through the cell a
/// move leaves unless one attacks that king already. Illuminations, and a
/// capture of the ally's king, take the full test of [`is_legal_basic`].
pub(crate) struct SafetyTest {
    pub(crate) king: Option<Cell>,
    /// Not allied, with a king.
    alone: bool,
    /// `alone` and not in check (§10.2).
    pub(crate) quiet: bool,
    /// With a king and not in check, allied or not.
    unchecked: bool,
    /// Own pieces that may be pinned to the king.
    pub(crate) pinned: Bitboard,
    /// Pieces of the other players.
    enemies: Bitboard,
    occ: Bitboard,
    /// The ally's king, while `p` is allied.
    ally_king: Option<Cell>,
    /// No piece of `p` attacks `ally_king` now.
    ally_unattacked: bool,
}

impl SafetyTest {
    pub(crate) fn new(core: &Core, p: Player) -> SafetyTest {
        let king = core.board.king(p);
        let allied = core.alliance.contains(p);
        let alone = king.is_some() && !allied;
        let occ = core.board.occupied();
        let own = core.board.of(p);
        let enemies = occ & !own;
        let unchecked = king.is_some_and(|k| !core.board.is_attacked_in(k, enemies, occ));
        let ally_king = if allied {
            core.alliance
                .iter()
                .find(|&q| q != p)
                .and_then(|q| core.board.king(q))
        } else {
            None
        };
        SafetyTest {
            king,
            alone,
            quiet: alone && unchecked,
            unchecked,
            pinned: if unchecked {
                king.map_or(Bitboard::EMPTY, |k| pinned(&core.board, p, k))
            } else {
                Bitboard::EMPTY
            },
            enemies,
            occ,
            ally_king,
            ally_unattacked: ally_king.is_some_and(|kq| !core.board.is_attacked_in(kq, own, occ)),
        }
    }

    /// The same answer as [`is_legal_basic`] for a pseudo-legal action of `p`.
    #[inline]
    pub(crate) fn is_legal(&self, core: &Core, p: Player, action: Action) -> bool {
        if self.alone {
            let k = self.king.expect("alone means a king");
            match action {
                Action::Drop { to, .. } => {
                    return self.quiet
                        || !core
                            .board
                            .is_attacked_in(k, self.enemies, self.occ | to.bb());
                }
                Action::Move { from, to, .. } => return self.own_king_safe(core, k, from, to),
                Action::Illuminate { .. } => {}
            }
        } else if let (Some(k), Some(kq)) = (self.king, self.ally_king) {
            return self.is_legal_allied(core, p, action, k, kq);
        }
        is_legal_basic(core, p, action)
    }

    /// Whether `p`'s king on `k` is safe after `p`'s move from `from` to `to`.
    #[inline]
    fn own_king_safe(&self, core: &Core, k: Cell, from: Cell, to: Cell) -> bool {
        if self.unchecked && from != k && !self.pinned.contains(from) {
            return true;
        }
        let target = if from == k { to } else { k };
        let mut occ = self.occ;
        occ.clear(from);
        occ.set(to);
        let mut enemies = self.enemies;
        enemies.clear(to);
        !core.board.is_attacked_in(target, enemies, occ)
    }

    /// [`SafetyTest::is_legal`] for an allied `p` with its king on `k`, its
    /// ally's on `kq`.
    fn is_legal_allied(&self, core: &Core, p: Player, action: Action, k: Cell, kq: Cell) -> bool {
        match action {
            Action::Drop { to, .. } => {
                (self.unchecked
                    || !core
                        .board
                        .is_attacked_in(k, self.enemies, self.occ | to.bb()))
                    && !self.checks_ally(core, p, action, kq)
            }
            Action::Move { from, to, .. } if to != kq => {
                self.own_king_safe(core, k, from, to) && !self.checks_ally(core, p, action, kq)
            }
            _ => is_legal_basic(core, p, action),
        }
    }

    /// Whether a piece of `p` attacks the ally's king on `kq` after `p`'s
    /// move or drop `action` (which does not capture that king).
    fn checks_ally(&self, core: &Core, p: Player, action: Action, kq: Cell) -> bool {
        let board = &core.board;
        let l = landing(board, p, action).expect("illuminations take the full test");
        if board.attacks_of(l.code, l.to, l.occ).contains(kq) {
            return true;
        }
        if self.ally_unattacked && l.from.is_none_or(|f| !kq.lines().contains(f)) {
            return false;
        }
        let mut rest = board.of(p);
        if let Some(f) = l.from {
            rest.clear(f);
        }
        board.is_attacked_in(kq, rest, l.occ)
    }
}

/// The pieces of `p` pinned to its king on `k`: see [`SafetyTest`].
fn pinned(board: &Board, p: Player, k: Cell) -> Bitboard {
    let occ = board.occupied();
    let own = board.of(p);
    let mut out = Bitboard::EMPTY;
    for d in 0..12 {
        let Some(b) = first_blocker(k, d, occ) else {
            continue;
        };
        if !own.contains(b) {
            continue;
        }
        if let Some(x) = first_blocker(b, d, occ) {
            // An attack on the king runs from x in the opposite direction.
            if !own.contains(x) && moves_of(board.code(x)).1 & (1 << opposite(d)) != 0 {
                out.set(b);
            }
        }
    }
    out
}

/// Whether `p`'s move from `from` to `to`, of a piece other than its king on
/// `k`, lets a piece of another player attack that king along the line
/// through `from` (RULES §10.1: a range opened by the cell it leaves). Steps
/// do not depend on other pieces, and the moved piece is `p`'s own, so for a
/// king not in check before the move this is the only attack it can meet.
pub(crate) fn opens_line_to(board: &Board, p: Player, k: Cell, from: Cell, to: Cell) -> bool {
    let Some(d) = (0..12).find(|&d| k.ray(d).contains(from)) else {
        return false;
    };
    let mut occ = board.occupied();
    occ.clear(from);
    occ.set(to);
    match first_blocker(k, d, occ) {
        Some(b) if b != to => {
            !board.of(p).contains(b) && moves_of(board.code(b)).1 & (1 << opposite(d)) != 0
        }
        _ => false,
    }
}

/// Whether `p` has an action legal by RULES §10.4.
pub(crate) fn has_legal_action(core: &Core, p: Player) -> bool {
    let test = SafetyTest::new(core, p);
    any_action(core, p, &test, |a| test.is_legal(core, p, a))
}

/// Whether some pseudo-legal action of `p` satisfies `legal`, generating
/// actions one piece at a time and stopping at the first that does. Not in
/// check, a piece that is neither the king nor pinned goes first (any move
/// of it passes §10.3 without a board copy, see [`SafetyTest`]); in check,
/// the king goes first (its moves are the likeliest escapes). Drops come
/// last: a full hand makes hundreds of them.
pub(crate) fn any_action(
    core: &Core,
    p: Player,
    test: &SafetyTest,
    mut legal: impl FnMut(Action) -> bool,
) -> bool {
    let all = !Bitboard::EMPTY;
    let own = core.board.of(p);
    let king = test.king.map_or(Bitboard::EMPTY, Cell::bb);
    let first = if test.quiet {
        own & !king & !test.pinned
    } else {
        king
    };
    let mut f = |a| {
        if legal(a) {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    };
    visit_moves(core, p, first, all, &mut f).is_break()
        || visit_moves(core, p, own & !first, all, &mut f).is_break()
        || visit_drops(core, p, all, &mut f).is_break()
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::position::{Core, Position};

    /// The start of the `seed`th of a set of playouts that also reach
    /// alliances: one in three from the start, the others from the start
    /// with a voluntary alliance.
    pub(crate) fn mixed_start(seed: u64) -> Position {
        if seed % 3 == 0 {
            Position::start()
        } else {
            Position::voluntary_alliance_start()
        }
    }

    /// [`playout`]s of pseudo-legal actions from [`mixed_start`], seeds
    /// `0..seeds`: `visit` sees each position, the player to move and its
    /// pseudo-legal actions.
    pub(crate) fn mixed_playouts(
        seeds: u64,
        plies: usize,
        mut visit: impl FnMut(&Core, Player, &[Action]),
    ) {
        for seed in 0..seeds {
            playout(
                &mixed_start(seed),
                seed,
                plies,
                false,
                |core, p, actions, _| visit(core, p, actions),
            );
        }
    }

    /// A seeded playout from `start`: at each of up to `plies` positions,
    /// `visit` sees the position, the player to move, its pseudo-legal
    /// actions (with `legal`, only those passing §10.3) and the ply; one of
    /// them, picked by a xorshift generator, is then played (step 1 of
    /// RULES §11 and the turn).
    pub(crate) fn playout(
        start: &Position,
        seed: u64,
        plies: usize,
        legal: bool,
        mut visit: impl FnMut(&Core, Player, &[Action], usize),
    ) {
        let mut core = start.core.clone();
        let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        let mut actions = Vec::new();
        for ply in 0..plies {
            let Some(p) = core.to_move else { break };
            actions.clear();
            pseudo_actions(&core, p, &mut actions);
            if legal {
                actions.retain(|&a| is_legal_basic(&core, p, a));
            }
            if actions.is_empty() {
                break;
            }
            visit(&core, p, &actions, ply);
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let a = actions[(x % actions.len() as u64) as usize];
            let illum = match a {
                Action::Illuminate { from } => illumination_targets(&core, p, from),
                _ => Bitboard::EMPTY,
            };
            apply_board(&mut core.board, p, a, illum);
            core.to_move = core.next_active(p);
        }
    }

    /// [`SafetyTest::is_legal`]'s shortcuts give [`is_legal_basic`]'s answer
    /// for every pseudo-legal action, allied or not (RULES §10.3, §12.5), on
    /// the positions of seeded playouts of pseudo-legal actions: these reach
    /// what legal play rarely does, such as a player whose piece attacks its
    /// ally's king already, or a king that can be captured.
    #[test]
    fn safety_test_agrees_with_the_full_test() {
        let mut checked = [0usize; 2];
        mixed_playouts(60, 160, |core, p, actions| {
            let test = SafetyTest::new(core, p);
            for &a in actions {
                assert_eq!(
                    test.is_legal(core, p, a),
                    is_legal_basic(core, p, a),
                    "{p:?} {a:?} on {:?}",
                    core.board
                );
                checked[core.alliance.contains(p) as usize] += 1;
            }
        });
        assert!(checked[0] > 10_000 && checked[1] > 10_000, "{checked:?}");
    }

    /// An attack map updated for the cells a move or drop changed
    /// (`Board::attack_map_after`) is the map made from scratch, for every
    /// player and every legal move and drop, on every fourth position of
    /// seeded playouts.
    #[test]
    fn updated_attack_maps_are_the_maps_made_anew() {
        let mut checked = 0usize;
        for seed in 0..30u64 {
            playout(
                &Position::start(),
                seed,
                120,
                true,
                |core, p, actions, ply| {
                    if ply % 4 != 0 {
                        return;
                    }
                    let pre = Player::ALL.map(|q| core.board.attack_map(q));
                    for &a in actions {
                        let changed = crate::alliance::changed_cells(a);
                        if changed.is_empty() {
                            continue;
                        }
                        let mut board = core.board.clone();
                        apply_board(&mut board, p, a, Bitboard::EMPTY);
                        for q in Player::ALL {
                            assert_eq!(
                                board.attack_map_after(&pre[q as usize], q, changed),
                                board.attack_map(q),
                                "{q:?} after {p:?} {a:?} on {:?}",
                                core.board
                            );
                            checked += 1;
                        }
                    }
                },
            );
        }
        assert!(checked > 50_000, "{checked}");
    }
}
