//! Resolving an action, step by step as RULES §11 lists them.

use std::sync::Arc;

use crate::action::Action;
use crate::alliance::{changed_cells, checkers, forced};
use crate::attack_cache::AttackCache;
use crate::bitboard::Bitboard;
use crate::cell::Cell;
use crate::error::IllegalAction;
use crate::event::{AllianceCause, EndReason, Event, LossReason, Outcome};
use crate::history::{History, Keys, With};
use crate::legal::{check_safety, has_fully_legal_action, legal_action_exists, stays_safe};
use crate::movegen::{apply, has_legal_action, illumination_targets, Applied};
use crate::piece::{Piece, Role};
use crate::player::{Player, Players};
use crate::position::{Core, LastAction, Position};

/// The result of a legal action.
#[derive(Clone, Debug)]
pub(crate) struct Resolved {
    pub position: Position,
    pub events: Vec<Event>,
    pub outcome: Option<Outcome>,
    /// Players eliminated by this action, in order.
    pub eliminated: Vec<Player>,
}

/// The partial state of a resolution, shared by §11 steps 6, 7 and 9 and by
/// resignation (§12.10).
struct Resolution {
    core: Core,
    events: Vec<Event>,
    outcome: Option<Outcome>,
    eliminated: Vec<Player>,
}

impl Resolution {
    /// RULES §11 step 6 for players leaving the game together.
    fn eliminate(&mut self, losers: &[(Player, Option<Player>, LossReason)]) {
        for &(p, by, reason) in losers {
            if reason == LossReason::Mated {
                self.events.push(Event::Mated { player: p, by });
            }
            self.core.board.remove_player(p);
            self.core.active.remove(p);
            self.core.castling.remove(p);
            self.events.push(Event::Eliminated { player: p, reason });
            self.eliminated.push(p);
        }
        if let Some(un) = self.core.unallied() {
            let allies = self.core.alliance;
            if losers.iter().any(|l| l.0 == un) {
                // The unallied player's loss dissolves the alliance first (D13).
                let mut it = allies.iter();
                let pair = [it.next().expect("ally"), it.next().expect("ally")];
                self.core.alliance = Players::NONE;
                self.events.push(Event::AllianceDissolved { allies: pair });
            } else if losers.iter().any(|l| allies.contains(l.0)) {
                // RULES §12.5: both allies lose; the unallied player wins.
                self.finish(vec![un], EndReason::AllianceDefeated);
                return;
            }
        }
        if self.core.active.len() == 1 {
            let winner = self.core.active.iter().next().expect("one active");
            self.finish(vec![winner], EndReason::LastPlayer);
        }
    }

    fn finish(&mut self, winners: Vec<Player>, reason: EndReason) {
        self.core.to_move = None;
        self.events.push(Event::GameOver {
            winners: winners.clone(),
            reason,
        });
        self.outcome = Some(Outcome {
            winners,
            reason,
            ranking: Vec::new(),
        });
    }

    /// Step 9, judged against `history` plus the position just reached.
    /// `attacks`: the attack maps of the board reached, as far as known.
    /// `checked`: who is in check on this board, when known.
    fn settle(
        &mut self,
        last: Option<&Arc<LastAction>>,
        history: &dyn History,
        actor: Player,
        attacks: Arc<AttackCache>,
        checked: Option<Players>,
    ) {
        let position = Position {
            core: self.core.clone(),
            last: last.cloned(),
            attacks,
        };
        let with = With {
            base: history,
            key: position.core.key(),
            core: &position.core,
        };
        // The usual case first, on the position already made.
        if let (None, Some(p)) = (&self.outcome, position.core.to_move) {
            let in_check = checked.map(|c| c.contains(p));
            debug_assert!(in_check.is_none_or(|c| c == position.in_check(p)));
            if legal_action_exists(&position, &with, p, in_check) {
                return;
            }
        }
        self.no_legal_action(last, &with, actor);
    }

    /// RULES §11 step 9 (and §14 D5): while the player to move has no legal
    /// action, it loses, and the turn passes on.
    fn no_legal_action(
        &mut self,
        last: Option<&Arc<LastAction>>,
        history: &dyn History,
        actor: Player,
    ) {
        while self.outcome.is_none() {
            let Some(p) = self.core.to_move else { return };
            let position = Position::new(self.core.clone(), last.cloned());
            if has_fully_legal_action(&position, history) {
                return;
            }
            if self.core.in_check(p) {
                let by = mating_player(&self.core, p, actor);
                self.eliminate(&[(p, Some(by), LossReason::Mated)]);
                if self.outcome.is_none() {
                    self.core.to_move = Some(by);
                }
            } else {
                self.eliminate(&[(p, None, LossReason::NoLegalAction)]);
                if self.outcome.is_none() {
                    self.core.to_move = self.core.next_active(p);
                }
            }
        }
    }
}

/// RULES §11 step 6: the owner of the piece giving check; the actor if
/// pieces of two players give check. Where two players check and neither is
/// the actor (only possible in step 9), the first of them in play order after
/// the mated player (docs/rules-notes.md).
fn mating_player(core: &Core, mated: Player, actor: Player) -> Player {
    let by = checkers(&core.board, mated);
    if by.len() == 1 {
        return by.iter().next().expect("one checker");
    }
    if by.contains(actor) {
        return actor;
    }
    let mut q = mated.next();
    while !by.contains(q) {
        q = q.next();
    }
    q
}

/// Resolves a pseudo-legal `action` of the player to move (RULES §11).
/// Step 9 runs only when `settle` is set: legality never needs it.
pub(crate) fn resolve(
    pos: &Position,
    action: Action,
    history: &dyn History,
    settle: bool,
) -> Result<Resolved, IllegalAction> {
    let pre = &pos.core;
    let a = pre.to_move.ok_or(IllegalAction::GameOver)?;

    // Step 1: board, then the legality test of §10.3.
    let mut core = pre.clone();
    let applied = apply(&mut core, a, action);
    if !stays_safe(pos, a, action) {
        check_safety(&core, a)?;
    }
    let mut res = Resolution::new(core);
    res.board_events(a, action, &applied);
    // Made only for an action that stands (its `pre` is a copy of the position).
    let last = || {
        Arc::new(LastAction {
            actor: a,
            action,
            pre: pre.clone(),
            pre_attacks: pos.attacks.clone(),
        })
    };

    // Step 2: the Pleasure Garden.
    if let Action::Move { to, .. } = action {
        if applied.moved_king && to == Cell::GARDEN && !pre.alliance.contains(a) {
            res.finish(vec![a], EndReason::PleasureGarden);
            return Ok(res.done(last(), Arc::default()));
        }
    }

    // Step 3: forced alliance, and who is in check after it.
    let after = res.forced_alliance(pos, a, action);

    // Step 4: castling rights.
    res.castling_rights(a, applied.moved_king, &after);

    // Step 5: mates, all at once.
    let mated = res.mates(a, action, after.checked)?;

    // Step 6: elimination.
    let mating = res.eliminate_mated(a, &mated);

    // Step 7: the turn.
    if res.outcome.is_none() {
        res.core.to_move = match mating {
            Some(by) => Some(by),
            None => res.core.next_active(a),
        };
    }

    // Step 8: repetition.
    if res.outcome.is_none() && history.seen(res.core.key(), &res.core) {
        return Err(IllegalAction::Repetition);
    }

    // Step 9: no legal action.
    let last = last();
    if settle {
        let attacks = after.attacks_if_valid(&res);
        let checked = after.valid(&res).then_some(after.checked);
        res.settle(Some(&last), history, a, attacks, checked);
    }
    let attacks = after.attacks_if_valid(&res);
    Ok(res.done(last, attacks))
}

/// The board after step 3 of RULES §11, as the later steps see it.
struct AfterAlliance {
    /// The attack maps of that board, as far as computed.
    attacks: Arc<AttackCache>,
    /// Whether an alliance formed (it promotes a king, so it changed the board).
    formed: bool,
    /// The players other than the actor in check on that board (RULES §10.2).
    checked: Players,
}

impl AfterAlliance {
    /// The maps of step 3 and who is in check (steps 4 and 5) stay valid
    /// while the board has not changed since.
    fn valid(&self, res: &Resolution) -> bool {
        !self.formed && res.eliminated.is_empty()
    }

    /// The maps of step 3 while they are valid; else none known.
    fn attacks_if_valid(&self, res: &Resolution) -> Arc<AttackCache> {
        if self.valid(res) {
            self.attacks.clone()
        } else {
            Arc::default()
        }
    }
}

impl Resolution {
    fn new(core: Core) -> Resolution {
        Resolution {
            core,
            events: Vec::new(),
            outcome: None,
            eliminated: Vec::new(),
        }
    }

    /// The events of step 1: captures, the illumination, the promotion.
    fn board_events(&mut self, a: Player, action: Action, applied: &Applied) {
        for &(cell, victim) in &applied.captured {
            self.events.push(Event::Captured {
                cell,
                piece: victim.role,
                promoted: victim.promoted,
                owner: victim.owner,
                by: a,
            });
        }
        if let Action::Illuminate { .. } = action {
            self.events.push(Event::Illuminated {
                player: a,
                cells: applied.captured.iter().map(|c| c.0).collect(),
            });
        }
        if let Some((cell, piece)) = applied.promoted {
            self.events.push(Event::Promoted {
                cell,
                piece: piece.role,
                player: a,
            });
        }
    }

    /// Step 3: forced alliance; then who is in check on the board it leaves
    /// ([`Resolution::checked`]). The attack maps it computes on the board
    /// after step 1 stay with the resulting position if nothing changes that
    /// board later (an alliance promotes a king, an elimination removes pieces).
    /// Its maps are updated from those of the board before the action.
    fn forced_alliance(&mut self, pos: &Position, a: Player, action: Action) -> AfterAlliance {
        let changed = changed_cells(action);
        let post_attacks = Arc::new(AttackCache::after(changed));
        let mut formed = false;
        if self.core.alliance.is_empty() && self.core.active.len() == 3 {
            if let Some((pair, cause)) = forced(pos, &self.core, &post_attacks, a, action) {
                form_alliance(&mut self.core, &mut self.events, pair, cause);
                formed = true;
            }
        }
        let checked = self.checked(pos, a, &post_attacks, changed, formed);
        AfterAlliance {
            attacks: post_attacks,
            formed,
            checked,
        }
    }

    /// Who is in check now (RULES §10.2), for steps 4 and 5: from the
    /// attack maps of step 3 where it made them all.
    fn checked(
        &self,
        pos: &Position,
        a: Player,
        post_attacks: &AttackCache,
        changed: Bitboard,
        formed: bool,
    ) -> Players {
        let mut checked = Players::NONE;
        for p in Player::ALL {
            // Not the mover: its king passed step 1's test of the same attacks,
            // step 5 looks at the others alone, and an alliance formed since
            // ends every castling right.
            if p == a {
                continue;
            }
            let Some(k) = self.core.board.king(p) else {
                continue;
            };
            // From the maps of the board after the action when step 3 made
            // them all; else, for a king with no changed cell on its lines (the
            // only cells its attackers can stand on, RULES §10.1), from the maps
            // of the board before when they are known.
            let known = if formed {
                None
            } else {
                post_attacks.others_attack(p, k).or_else(|| {
                    let untouched = changed.any() && (changed & (k.lines() | k.bb())).is_empty();
                    untouched.then(|| pos.attacks.others_attack(p, k)).flatten()
                })
            };
            let in_check = match known {
                Some(h) => h,
                None => self.core.board.is_attacked(k, self.core.others(p)),
            };
            if in_check {
                checked.insert(p);
            }
        }
        checked
    }

    /// Step 4: castling rights.
    fn castling_rights(&mut self, a: Player, moved_king: bool, after: &AfterAlliance) {
        for p in after.checked.iter() {
            self.core.castling.remove(p);
        }
        if moved_king || after.formed {
            self.core.castling.remove(a);
        }
        if after.formed {
            self.core.castling = Players::NONE;
        }
    }

    /// Step 5: the players mated, all at once; a pawn drop that mates is
    /// turned down (§6.5).
    fn mates(
        &mut self,
        a: Player,
        action: Action,
        checked: Players,
    ) -> Result<Vec<Player>, IllegalAction> {
        let mut mated = Vec::new();
        for p in self.core.active.iter().filter(|&p| p != a) {
            if !checked.contains(p) {
                continue;
            }
            let by = checkers(&self.core.board, p);
            self.events.push(Event::Check {
                player: p,
                by: by.iter().collect(),
            });
            if !has_legal_action(&self.core, p) {
                mated.push(p);
            }
        }
        if let Action::Drop {
            role: Role::Pawn,
            to,
        } = action
        {
            for &m in &mated {
                let king = self.core.board.king(m).expect("active king");
                if self.core.board.attacks_from(to).contains(king) {
                    return Err(IllegalAction::PawnDropMate(m));
                }
            }
        }
        Ok(mated)
    }

    /// Step 6: elimination of the `mated`; returns the mating player, if any.
    fn eliminate_mated(&mut self, a: Player, mated: &[Player]) -> Option<Player> {
        let mut mating = None;
        if !mated.is_empty() {
            let losers: Vec<_> = mated
                .iter()
                .map(|&m| {
                    let by = mating_player(&self.core, m, a);
                    mating = Some(by);
                    (m, Some(by), LossReason::Mated)
                })
                .collect();
            self.eliminate(&losers);
        }
        mating
    }

    fn done(self, last: Arc<LastAction>, attacks: Arc<AttackCache>) -> Resolved {
        Resolved {
            position: Position {
                core: self.core,
                last: Some(last),
                attacks,
            },
            events: self.events,
            outcome: self.outcome,
            eliminated: self.eliminated,
        }
    }
}

/// RULES §12.5 applied when an alliance forms: the unallied king promotes;
/// castling ends for everyone (the caller clears the rights).
pub(crate) fn form_alliance(
    core: &mut Core,
    events: &mut Vec<Event>,
    pair: Players,
    cause: AllianceCause,
) {
    core.alliance = pair;
    let mut it = pair.iter();
    let allies = [it.next().expect("ally"), it.next().expect("ally")];
    events.push(Event::AllianceFormed { allies, cause });
    if let Some(un) = core.unallied() {
        if let Some(k) = core.board.king(un) {
            let king = core.board.get(k).expect("king");
            if !king.promoted {
                core.board.take(k);
                core.board.put(
                    k,
                    Piece {
                        promoted: true,
                        ..king
                    },
                );
                events.push(Event::Promoted {
                    cell: k,
                    piece: Role::King,
                    player: un,
                });
            }
        }
    }
}

/// Removes `p` as if mated with no mating player (RULES §12.10), then settles
/// the turn (§11 steps 6, 7 and 9).
pub(crate) fn lose(
    pos: &Position,
    p: Player,
    reason: LossReason,
    history: &dyn History,
) -> Resolved {
    let mut res = Resolution::new(pos.core.clone());
    let was_to_move = res.core.to_move == Some(p);
    res.eliminate(&[(p, None, reason)]);
    if res.outcome.is_none() && was_to_move {
        res.core.to_move = res.core.next_active(p);
    }
    let actor = res.core.to_move.unwrap_or(p);
    res.settle(pos.last.as_ref(), history, actor, Arc::default(), None);
    Resolved {
        position: Position::new(res.core, pos.last.clone()),
        events: res.events,
        outcome: res.outcome,
        eliminated: res.eliminated,
    }
}

/// Cells a promoted king on `from` would take now.
pub(crate) fn illumination(pos: &Position, from: Cell) -> Bitboard {
    match pos.core.to_move {
        Some(p) => illumination_targets(&pos.core, p, from),
        None => Bitboard::EMPTY,
    }
}

/// What one action did: who played what, the position it led to (after
/// every step of RULES §11), the events in order, and the outcome when it
/// ended the game. Returned by [`Position::play`], [`Position::play_unchecked`],
/// [`crate::Game::play`] and [`crate::Game::play_notation`].
#[derive(Clone, Debug)]
pub struct Played {
    pub player: Player,
    pub action: Action,
    pub position: Position,
    pub events: Vec<Event>,
    /// `Some` when the action ended the game. Its `ranking` is complete only
    /// from a [`crate::Game`], which knows the order of earlier eliminations;
    /// from a [`Position`] it is empty.
    pub outcome: Option<Outcome>,
}

impl Played {
    fn new(player: Player, action: Action, r: Resolved) -> Played {
        Played {
            player,
            action,
            position: r.position,
            events: r.events,
            outcome: r.outcome,
        }
    }
}

impl Position {
    /// Plays `action` for the player to move (RULES §11, steps 1–9; no earlier
    /// positions, so no repetition).
    ///
    /// # Errors
    /// [`IllegalAction::GameOver`] when no one is to move, otherwise the rule
    /// the action breaks; `self` is unchanged.
    pub fn play(&self, action: Action) -> Result<Played, IllegalAction> {
        let p = self.core.to_move.ok_or(IllegalAction::GameOver)?;
        if let Some(why) = crate::notation::diagnose(&self.core, p, action) {
            return Err(why);
        }
        resolve(self, action, &Vec::new(), true).map(|r| Played::new(p, action, r))
    }

    /// Plays an action taken from [`Position::legal_actions`] without
    /// checking that it follows the pieces' moves (for search and perft).
    /// `earlier` holds the [`Position::repetition_key`]s of the line so far;
    /// an action that would repeat one of them returns `None`, as does an
    /// action that leaves the king in check, checks an ally or mates with a
    /// dropped pawn. An action not generated by `legal_actions` may panic.
    pub fn play_unchecked(&self, action: Action, earlier: &[u64]) -> Option<Played> {
        let p = self.core.to_move?;
        resolve(self, action, &Keys(earlier), true)
            .ok()
            .map(|r| Played::new(p, action, r))
    }

    /// A 64-bit hash of everything repetition compares (RULES §11 step 8):
    /// board, hands, player to move, active players, alliance, castling.
    #[inline]
    pub fn repetition_key(&self) -> u64 {
        self.core.key()
    }

    /// Whether a piece of `by` attacks `cell` (RULES §10.1).
    #[inline]
    pub fn is_attacked_by(&self, cell: Cell, by: Player) -> bool {
        match self.attacks.known(by) {
            Some(m) => m.all().contains(cell),
            None => self.core.board.is_attacked(cell, Players::only(by)),
        }
    }

    /// Cells attacked by the pieces of `by` (RULES §10.1).
    pub fn attacks(&self, by: Player) -> Vec<Cell> {
        self.core.board.attack_map(by).all().iter().collect()
    }

    /// The player whose action led to this position, if it came from one.
    pub fn last_actor(&self) -> Option<Player> {
        self.last.as_ref().map(|l| l.actor)
    }

    /// The action that led to this position and who played it, if the
    /// position came from one (see [`Position`] on why it is kept).
    pub fn last_action(&self) -> Option<(Player, Action)> {
        self.last.as_ref().map(|l| (l.actor, l.action))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::history::NoHistory;
    use crate::movegen::is_legal_basic;
    use crate::movegen::tests::mixed_playouts;

    /// The resolution turns down exactly the actions that fail RULES §10.3
    /// (judged on the board after step 1), its shortcut for quiet moves and
    /// drops included, for every pseudo-legal action on the positions of
    /// seeded playouts in which every king is still on the board (pinned
    /// pieces and kings in check are common there).
    #[test]
    fn resolution_turns_down_exactly_the_unsafe_actions() {
        let mut checked = [0usize; 2];
        mixed_playouts(90, 200, |core, p, actions| {
            if Player::ALL.iter().any(|&q| core.board.king(q).is_none()) {
                return;
            }
            let pos = Position::new(core.clone(), None);
            for &a in actions {
                let unsafe_action = matches!(
                    resolve(&pos, a, &NoHistory, false),
                    Err(IllegalAction::LeavesKingInCheck { .. } | IllegalAction::ChecksAlly(_))
                );
                let legal = is_legal_basic(core, p, a);
                assert_eq!(unsafe_action, !legal, "{p:?} {a:?} on {:?}", core.board);
                checked[legal as usize] += 1;
            }
        });
        assert!(checked[0] >= 1_000 && checked[1] >= 10_000, "{checked:?}");
    }
}
