//! Material threats (RULES §12.1), and the forced alliances they cause: the
//! discovered attack (§12.2), the double attack (§12.3) and the defence
//! exception (§12.4).
//!
//! Everything here is judged on positions after step 1 of §11 (board and
//! hands); threats are geometric (§10.1, D10), and only the mate threat and
//! the "cannot meet both" test look at legal actions, by §10.4 alone.

use std::cell::OnceCell;
use std::ops::ControlFlow;

use crate::action::Action;
use crate::attack_cache::AttackCache;
use crate::bitboard::Bitboard;
use crate::board::{AttackMap, Board};
use crate::by_player::ByPlayer;
use crate::cell::{first_blocker, opposite, Cell};
use crate::event::AllianceCause;
use crate::movegen::{
    apply_board, has_legal_action, illumination_targets, is_safe_after, landing, pseudo_actions,
    visit_drops, visit_moves, SafetyTest,
};
use crate::piece::{moves_of, Piece, Role};
use crate::player::{Player, Players};
use crate::position::{Core, LastAction, Position};

/// The attack maps of the three players on one board, each computed the
/// first time it is asked for (a threat test often needs only some of them),
/// updated from the map of a board that differs from this one on a few cells
/// where there is one (see [`Board::attack_map_after`]).
pub(crate) struct Maps<'a> {
    board: &'a Board,
    maps: ByPlayer<OnceCell<AttackMap>>,
    /// The maps of a board that differs from this one on the cells `.1`
    /// alone (none: no such board).
    base: Option<(&'a Maps<'a>, Bitboard)>,
    /// The maps of a position, kept with it.
    cache: Option<&'a AttackCache>,
    /// Without `base`, the last action of the position whose maps `cache`
    /// holds (see [`AttackCache::get_after`]).
    last: Option<&'a LastAction>,
}

impl<'a> Maps<'a> {
    pub(crate) fn of(board: &'a Board) -> Maps<'a> {
        Maps {
            board,
            maps: ByPlayer::new_with(|_| OnceCell::new()),
            base: None,
            cache: None,
            last: None,
        }
    }
    /// The maps of a board whose maps `cache` keeps, updated from `base`,
    /// the maps of a board that differs from it on the cells `changed`
    /// alone (none: no such board).
    fn cached(
        board: &'a Board,
        cache: &'a AttackCache,
        base: &'a Maps<'a>,
        changed: Bitboard,
    ) -> Maps<'a> {
        Maps {
            cache: Some(cache),
            base: Some((base, changed)),
            ..Maps::of(board)
        }
    }
    /// The maps of a position, kept with it.
    fn of_position(pos: &'a Position) -> Maps<'a> {
        Maps {
            cache: Some(&pos.attacks),
            last: pos.last.as_deref(),
            ..Maps::of(&pos.core.board)
        }
    }
    /// The maps of `board`, reached from the board of `base` by `action`.
    fn after(board: &'a Board, base: &'a Maps<'a>, action: Action) -> Maps<'a> {
        Maps {
            base: Some((base, changed_cells(action))),
            ..Maps::of(board)
        }
    }
    fn get(&self, p: Player) -> &AttackMap {
        if let (Some(cache), None) = (self.cache, self.base) {
            return cache.get_after(self.board, self.last, p);
        }
        let make = || match self.base {
            Some((base, changed)) if changed.any() => {
                self.board.attack_map_after(base.get(p), p, changed)
            }
            _ => self.board.attack_map(p),
        };
        match self.cache {
            Some(cache) => cache.get_or(p, make),
            None => self.maps[p].get_or_init(make),
        }
    }
}

/// The cells whose contents step 1 of a move or drop changes (RULES §11):
/// none for an illumination, which no map is updated for.
pub(crate) fn changed_cells(action: Action) -> Bitboard {
    match action {
        Action::Move { from, to, .. } => from.bb() | to.bb(),
        Action::Drop { to, .. } => to.bb(),
        Action::Illuminate { .. } => Bitboard::EMPTY,
    }
}

/// The pieces of `y` under a check, en prise or unequal-exchange threat by `x`
/// (RULES §12.1, the three geometric kinds).
pub(crate) fn cheap_threats(board: &Board, maps: &Maps<'_>, x: Player, y: Player) -> Bitboard {
    let ax = maps.get(x);
    let attacked = ax.all();
    let mine = board.of(y) & attacked;
    if mine.is_empty() {
        return Bitboard::EMPTY;
    }
    let mut t = Bitboard::EMPTY;
    if let Some(k) = board.king(y) {
        if attacked.contains(k) {
            t.set(k);
        }
    }
    let ay = maps.get(y);
    t |= mine & !ay.all();
    for v in 1..=2u8 {
        t |= ay.pieces[v as usize] & ax.below(v);
    }
    t
}

/// RULES §12.1, mate threat: `x` has an action (legal by §10.4 as if it were
/// `x`'s turn) after which `y` is in check and has no legal action.
pub(crate) fn mate_threat(core: &Core, x: Player, y: Player) -> bool {
    if core.board.king(y).is_none() || core.board.king(x).is_none() {
        return false;
    }
    let ky = core.board.king(y).expect("checked above");
    // Unless y is in check already, only an action whose piece then attacks
    // y's king, or that empties a cell on a line from it, can give check.
    let already = core.in_check(y);
    // A drop gives check only from a cell on one of the king's lines.
    let drop_cells = if already {
        !Bitboard::EMPTY
    } else {
        ky.lines()
    };
    // Empty cells y's king can move to that no piece of another player
    // attacks with the king gone from its cell (a range through it reaches
    // beyond): a move or drop that does not land on such a cell, does not
    // attack it from where it lands and leaves no cell on one of its lines
    // (RULES §10.1) leaves it an escape, so y has a legal action. Not for an
    // allied y, whose king's move must also leave its ally unchecked.
    let escapes = OnceCell::new();
    let escapes = || {
        *escapes.get_or_init(|| {
            if core.alliance.contains(y) {
                return Bitboard::EMPTY;
            }
            let occ = core.board.occupied();
            let others = occ & !core.board.of(y);
            let mut open = occ;
            open.clear(ky);
            let mut safe = Bitboard::EMPTY;
            for e in (core.board.attacks_from(ky) & !occ).iter() {
                if !core.board.is_attacked_in(e, others, open) {
                    safe.set(e);
                }
            }
            safe
        })
    };
    let escape_kept = |a: Action| {
        let Some(l) = landing(&core.board, x, a) else {
            return false;
        };
        let mut open = l.occ;
        open.clear(ky);
        let left = l.from.map_or(Bitboard::EMPTY, Cell::lines);
        let kept = escapes() & !l.to.bb() & !left;
        kept.any() && (kept & !core.board.attacks_of(l.code, l.to, open)).any()
    };

    // Actions are generated one at a time, stopping at the first mate.
    let mut after = core.clone();
    let mut mates = |a: Action| {
        if !already && !could_check(&core.board, x, a, ky) || escape_kept(a) {
            return ControlFlow::Continue(());
        }
        let illum = match a {
            Action::Illuminate { from } => illumination_targets(core, x, from),
            _ => Bitboard::EMPTY,
        };
        after.board.clone_from(&core.board);
        apply_board(&mut after.board, x, a, illum);
        // Not in check before, a move or drop checks exactly when
        // `could_check` says so.
        let checks = match a {
            Action::Illuminate { .. } => after.in_check(y),
            _ => !already || after.in_check(y),
        };
        if checks && is_safe_after(&after.board, after.alliance, x) && !has_legal_action(&after, y)
        {
            return ControlFlow::Break(());
        }
        ControlFlow::Continue(())
    };
    // Every attack on a cell comes from one of its lines (RULES §10.1): a
    // piece off the king's lines gives check only by moving onto one.
    let all = !Bitboard::EMPTY;
    let (near, far) = if already {
        (core.board.of(x), Bitboard::EMPTY)
    } else {
        let own = core.board.of(x);
        (own & ky.lines(), own & !ky.lines())
    };
    visit_moves(core, x, near, all, &mut mates).is_break()
        || visit_moves(core, x, far, ky.lines(), &mut mates).is_break()
        || visit_drops(core, x, drop_cells, &mut mates).is_break()
}

/// Whether `x`'s action can put the king on `ky` (not in check before) in
/// check; for a move or drop, whether it does: the moved or dropped piece
/// attacks it afterwards, or the move opens a line to it from a piece of
/// someone else that ranges along that line (RULES §10.1; a move changes no
/// cell but the two it names, castling included, §8).
fn could_check(board: &Board, x: Player, action: Action, ky: Cell) -> bool {
    let Some(l) = landing(board, x, action) else {
        return true;
    };
    if board.attacks_of(l.code, l.to, l.occ).contains(ky) {
        return true;
    }
    let Some(from) = l.from.filter(|&f| ky.lines().contains(f)) else {
        return false;
    };
    let Some(d) = (0..12).find(|&d| ky.ray(d).contains(from)) else {
        return false;
    };
    let y = board.get(ky).expect("a king on ky").owner;
    first_blocker(ky, d, l.occ).is_some_and(|b| {
        b != l.to
            && board
                .get(b)
                .is_some_and(|q| q.owner != y && moves_of(q.code()).1 & (1 << opposite(d)) != 0)
    })
}

/// Whether the threat `(x, p)` exists, all four kinds (RULES §12.1).
fn threat_exists(core: &Core, maps: &Maps<'_>, x: Player, p: crate::cell::Cell) -> bool {
    let Some(piece) = core.board.get(p) else {
        return false;
    };
    if cheap_threats(&core.board, maps, x, piece.owner).contains(p) {
        return true;
    }
    piece.role == Role::King && mate_threat(core, x, piece.owner)
}

/// The threats of `x` on the pieces of `y` on one board ([`threat_exists`]
/// for a piece of `y`), each kind worked out once, when first asked for.
struct Threats<'a> {
    core: &'a Core,
    maps: &'a Maps<'a>,
    x: Player,
    y: Player,
    cheap: OnceCell<Bitboard>,
    mate: OnceCell<bool>,
}

impl<'a> Threats<'a> {
    fn new(core: &'a Core, maps: &'a Maps<'a>, x: Player, y: Player) -> Threats<'a> {
        Threats {
            core,
            maps,
            x,
            y,
            cheap: OnceCell::new(),
            mate: OnceCell::new(),
        }
    }
    /// Whether the piece on `p` is under a check, en prise or
    /// unequal-exchange threat by `x`.
    fn cheap(&self, p: crate::cell::Cell) -> bool {
        match self.core.board.get(p) {
            Some(piece) if piece.owner == self.y => self
                .cheap
                .get_or_init(|| cheap_threats(&self.core.board, self.maps, self.x, self.y))
                .contains(p),
            _ => threat_exists(self.core, self.maps, self.x, p),
        }
    }
    /// Whether the piece on `p` is `y`'s king under a mate threat by `x`.
    fn mate(&self, p: crate::cell::Cell) -> bool {
        match self.core.board.get(p) {
            Some(piece) if piece.owner == self.y => {
                piece.role == Role::King
                    && *self
                        .mate
                        .get_or_init(|| mate_threat(self.core, self.x, self.y))
            }
            _ => threat_exists(self.core, self.maps, self.x, p),
        }
    }
}

/// Where a piece on `p` stands after `action` (a threat follows its piece).
fn follow(p: crate::cell::Cell, action: Action) -> crate::cell::Cell {
    match action {
        Action::Move { from, to, .. } if from == p => to,
        _ => p,
    }
}

/// RULES §12.4: the action of `actor` was a direct defence — before it, a
/// piece of `actor` was under a check, en prise or unequal-exchange threat by
/// another player, and after it that threat no longer exists.
fn direct_defence(
    pre: &Board,
    pre_maps: &Maps<'_>,
    post: &Board,
    post_maps: &Maps<'_>,
    actor: Player,
    action: Action,
) -> bool {
    for y in Player::ALL {
        if y == actor || pre.king(y).is_none() {
            continue;
        }
        let before = cheap_threats(pre, pre_maps, y, actor);
        let after = cheap_threats(post, post_maps, y, actor);
        for p in before.iter() {
            if !after.contains(follow(p, action)) {
                return true;
            }
        }
    }
    false
}

/// RULES §12.4, second sentence: a piece of either would-be ally attacks the
/// other's king.
fn allies_in_check(board: &Board, a: Player, b: Player) -> bool {
    let hits = |x: Player, y: Player| {
        board
            .king(y)
            .is_some_and(|k| board.is_attacked(k, Players::only(x)))
    };
    hits(a, b) || hits(b, a)
}

/// The pair that a discovered attack (RULES §12.2) makes qualify with `a`:
/// every `b` whose piece, on a ray through the vacated cell, now makes a new
/// check, en prise or unequal-exchange threat on a piece of the third player.
fn discovered(
    pre: &Core,
    pre_maps: &Maps<'_>,
    post: &Core,
    post_maps: &Maps<'_>,
    a: Player,
    s: crate::cell::Cell,
) -> Players {
    let board = &post.board;
    let occ = board.occupied();
    let mut found = Players::NONE;
    for e in 0..12 {
        let (Some(q), Some(p)) = (first_blocker(s, opposite(e), occ), first_blocker(s, e, occ))
        else {
            continue;
        };
        let qp = board.get(q).expect("occupied");
        let pp = board.get(p).expect("occupied");
        let (b, c) = (qp.owner, pp.owner);
        if b == a || c == a || b == c || moves_of(qp.code()).1 & (1 << e) == 0 {
            continue;
        }
        // The attack of q qualifies p as a check, en prise or unequal exchange.
        let qualifies = pp.role == Role::King
            || !post_maps.get(c).all().contains(p)
            || qp.role.value() < pp.role.value();
        if !qualifies {
            continue;
        }
        // ... and the threat (b, p) did not exist before the action.
        if cheap_threats(&pre.board, pre_maps, b, c).contains(p) {
            continue;
        }
        found.insert(b);
    }
    found
}

/// King threats of `x` on `y`'s king: check, or (for the double attack) a mate threat.
fn king_threat(core: &Core, maps: &Maps<'_>, x: Player, y: Player) -> bool {
    gives_check(core, maps, x, y) || mate_threat_in(core, maps, x, y)
}

/// [`mate_threat`] on the board of `maps`, remembered with a position's
/// attack maps when `maps` are those.
fn mate_threat_in(core: &Core, maps: &Maps<'_>, x: Player, y: Player) -> bool {
    match maps.cache {
        Some(cache) => cache.mate_threat(core, x, y, || mate_threat(core, x, y)),
        None => mate_threat(core, x, y),
    }
}

/// Whether a piece of `x` attacks `y`'s king: the check among the threats
/// of RULES §12.1 (on a king, en prise and unequal exchange add nothing).
fn gives_check(core: &Core, maps: &Maps<'_>, x: Player, y: Player) -> bool {
    let k = core.board.king(y).expect("active king");
    maps.get(x).all().contains(k)
}

/// RULES §12.3: whether `b1` (who made the previous action) and `a` qualify.
fn double_attack(
    last: &LastAction,
    pre: &Core,
    pre_maps: &Maps<'_>,
    post: &Core,
    post_maps: &Maps<'_>,
    a: Player,
    action: Action,
) -> bool {
    let b1 = last.actor;
    let c = Player::third(a, b1);
    let Some(kc) = post.board.king(c) else {
        return false;
    };
    let not_king = !kc.bb();

    // Threats (a, p2) created by a's action.
    // Each second set of threats only when the first is not empty: most
    // actions threaten nothing, and an attack map costs a pass over a side.
    let mut p2_plain = cheap_threats(&post.board, post_maps, a, c) & not_king;
    if p2_plain.any() {
        p2_plain &= !cheap_threats(&pre.board, pre_maps, a, c);
    }
    // Threats (b1, p1) that exist before and after a's action; of them, b1's
    // action must have created the ones that count.
    let mut p1_kept = cheap_threats(&post.board, post_maps, b1, c) & not_king;
    if p1_kept.any() {
        p1_kept &= cheap_threats(&pre.board, pre_maps, b1, c);
    }
    if p1_kept.is_empty() && p2_plain.is_empty() {
        // p1 ≠ p2, so at least one of them is not the king.
        return false;
    }
    // Only now the board before b1's action. When `pre` is that board after
    // b1's action and nothing else (no elimination, no alliance between; a
    // position that keeps the cells its last action changed is such a
    // board), its maps are updated from those of `pre`.
    let b1_pre = &last.pre;
    let related = match last.action {
        Action::Illuminate { .. } => false,
        _ if pre_maps.last.is_some() && pre_maps.cache.is_some_and(AttackCache::derived) => true,
        action => {
            let mut board = b1_pre.board.clone();
            apply_board(&mut board, b1, action, Bitboard::EMPTY);
            board == pre.board
        }
    };
    let changed = if related {
        changed_cells(last.action)
    } else {
        Bitboard::EMPTY
    };
    let b1_pre_maps = Maps::cached(&b1_pre.board, &last.pre_attacks, pre_maps, changed);
    let p1_plain = p1_kept & !cheap_threats(&b1_pre.board, &b1_pre_maps, b1, c);
    if p1_plain.is_empty() && p2_plain.is_empty() {
        return false;
    }
    // RULES §12.4 before any mate-threat search: it excludes the pair
    // whatever the pieces turn out to be.
    if direct_defence(
        &b1_pre.board,
        &b1_pre_maps,
        &pre.board,
        pre_maps,
        b1,
        last.action,
    ) || direct_defence(&pre.board, pre_maps, &post.board, post_maps, a, action)
        || allies_in_check(&post.board, a, b1)
    {
        return false;
    }
    // A king threat is a check or a mate threat; the checks, cheap, are
    // looked at before any mate-threat search.
    // The earlier positions' answers are kept with them (the siblings of
    // this action ask the same), so they are looked at before this one's.
    let mut p1 = p1_plain;
    if p2_plain.any()
        && !gives_check(b1_pre, &b1_pre_maps, b1, c)
        && king_threat(pre, pre_maps, b1, c)
        && !mate_threat_in(b1_pre, &b1_pre_maps, b1, c)
        && king_threat(post, post_maps, b1, c)
    {
        p1.set(kc);
    }
    let mut p2 = p2_plain;
    if p1_plain.any()
        && !gives_check(pre, pre_maps, a, c)
        && !mate_threat_in(pre, pre_maps, a, c)
        && king_threat(post, post_maps, a, c)
    {
        p2.set(kc);
    }
    let mut pairs: Vec<(crate::cell::Cell, crate::cell::Cell)> = Vec::new();
    for x in p1.iter() {
        for y in p2.iter() {
            if x != y {
                pairs.push((x, y));
            }
        }
    }
    if pairs.is_empty() {
        return false;
    }
    cannot_meet_both(post, post_maps, b1, a, c, pairs)
}

/// RULES §12.3: after each legal action of `c` (§10.4) on the position after
/// a's action, one of the two threats still exists (for some pair).
fn cannot_meet_both(
    post: &Core,
    post_maps: &Maps<'_>,
    b1: Player,
    a: Player,
    c: Player,
    mut pairs: Vec<(crate::cell::Cell, crate::cell::Cell)>,
) -> bool {
    let mut actions = Vec::with_capacity(128);
    pseudo_actions(post, c, &mut actions);
    let test = SafetyTest::new(post, c);
    let mut after = post.clone();
    for act in actions {
        if !test.is_legal(post, c, act) {
            continue;
        }
        let illum = match act {
            Action::Illuminate { from } => illumination_targets(post, c, from),
            _ => Bitboard::EMPTY,
        };
        after.board.clone_from(&post.board);
        apply_board(&mut after.board, c, act, illum);
        let maps = Maps::after(&after.board, post_maps, act);
        let b1_threats = Threats::new(&after, &maps, b1, c);
        let a_threats = Threats::new(&after, &maps, a, c);
        // The geometric threats of both first: a mate-threat search only
        // where neither threat of a pair is one of those.
        pairs.retain(|&(p1, p2)| {
            let (p1, p2) = (follow(p1, act), follow(p2, act));
            b1_threats.cheap(p1) || a_threats.cheap(p2) || b1_threats.mate(p1) || a_threats.mate(p2)
        });
        if pairs.is_empty() {
            return false;
        }
    }
    true
}

/// Step 3 of RULES §11: the pair forced into an alliance by `a`'s action, if
/// exactly one pair qualifies. `pre` is the position before the action,
/// `post` after its step 1.
/// `post_attacks` keeps the attack maps of `post` computed here.
pub(crate) fn forced(
    pos: &Position,
    post: &Core,
    post_attacks: &AttackCache,
    a: Player,
    action: Action,
) -> Option<(Players, AllianceCause)> {
    let (last, pre) = (pos.last.as_deref(), &pos.core);
    let pre_maps = Maps::of_position(pos);
    let post_maps = Maps::cached(&post.board, post_attacks, &pre_maps, changed_cells(action));
    let mut pairs: Vec<(Players, AllianceCause)> = Vec::new();
    let mut defence: Option<bool> = None;
    let mut a_defended = || {
        *defence.get_or_insert_with(|| {
            direct_defence(&pre.board, &pre_maps, &post.board, &post_maps, a, action)
        })
    };

    if let Action::Move { from, .. } = action {
        let bs = discovered(pre, &pre_maps, post, &post_maps, a, from);
        for b in bs.iter() {
            if !a_defended() && !allies_in_check(&post.board, a, b) {
                let mut pair = Players::only(a);
                pair.insert(b);
                pairs.push((pair, AllianceCause::Discovered));
            }
        }
    }
    if let Some(last) = last.filter(|l| l.actor != a && post.active.contains(l.actor)) {
        if double_attack(last, pre, &pre_maps, post, &post_maps, a, action) {
            let mut pair = Players::only(a);
            pair.insert(last.actor);
            if !pairs.iter().any(|(p, _)| *p == pair) {
                pairs.push((pair, AllianceCause::Double));
            }
        }
    }
    match pairs.as_slice() {
        [one] => Some(*one),
        _ => None,
    }
}

/// The pieces giving check to `p`'s king, by owner.
pub(crate) fn checkers(board: &Board, p: Player) -> Players {
    let mut out = Players::NONE;
    if let Some(k) = board.king(p) {
        let mut others = Players::ALL;
        others.remove(p);
        for c in board.attackers_of(k, others).iter() {
            out.insert(board.get(c).map(|x: Piece| x.owner).expect("attacker"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::movegen::tests::{mixed_start, playout};

    /// RULES §12.1's mate threat tried on every pseudo-legal action of `x`:
    /// one that passes §10.3 after which `y` is in check and has no legal
    /// action.
    fn mate_threat_by_every_action(core: &Core, x: Player, y: Player) -> bool {
        if core.board.king(x).is_none() || core.board.king(y).is_none() {
            return false;
        }
        let mut actions = Vec::new();
        pseudo_actions(core, x, &mut actions);
        actions.into_iter().any(|a| {
            let illum = match a {
                Action::Illuminate { from } => illumination_targets(core, x, from),
                _ => Bitboard::EMPTY,
            };
            let mut after = core.clone();
            apply_board(&mut after.board, x, a, illum);
            after.in_check(y)
                && is_safe_after(&after.board, after.alliance, x)
                && !has_legal_action(&after, y)
        })
    }

    /// The mate-threat search, which tries only the actions that can give
    /// check and tells a move's check without making it, finds a threat
    /// exactly where trying every action does, for every ordered pair of
    /// players on the positions of seeded playouts of pseudo-legal actions
    /// (these threaten mates far more often than play does).
    #[test]
    fn mate_threat_agrees_with_trying_every_action() {
        let mut found = [0usize; 2];
        for seed in 0..24u64 {
            playout(&mixed_start(seed), seed, 150, false, |core, _, _, ply| {
                if ply % 3 != 0 {
                    return;
                }
                for x in Player::ALL {
                    for y in Player::ALL.into_iter().filter(|&y| y != x) {
                        let expected = mate_threat_by_every_action(core, x, y);
                        assert_eq!(
                            mate_threat(core, x, y),
                            expected,
                            "{x:?} on {y:?}, {:?}",
                            core.board
                        );
                        found[expected as usize] += 1;
                    }
                }
            });
        }
        assert!(found[1] >= 50 && found[0] >= 1_000, "{found:?}");
    }
}
