//! The check extension's rule (`Searcher::extends_check`) and futility
//! pruning (`Searcher::futile`).

use sannin_rules::{Event, Played, Position};

use super::{Searcher, FUTILITY_MARGIN, MAX_EXTENDED_PLY};
use crate::Rng;

/// A successor whose player to move stands in check, and one where
/// nobody does, from random play.
fn check_and_quiet() -> (Played, Played) {
    let mut rng = Rng::new(3);
    let mut pos = Position::start();
    let (mut check, mut quiet) = (None, None);
    for _ in 0..400 {
        for a in pos.legal_actions() {
            let succ = pos.play(a).expect("legal");
            let to_move = succ.position.to_move();
            let checks = succ
                .events
                .iter()
                .any(|e| matches!(e, Event::Check { player, .. } if Some(*player) == to_move));
            if to_move.is_none() {
                continue;
            } else if checks {
                check.get_or_insert(succ);
            } else if succ.events.is_empty() {
                quiet.get_or_insert(succ);
            }
        }
        if let (Some(c), Some(q)) = (&check, &quiet) {
            return (c.clone(), q.clone());
        }
        let actions = pos.legal_actions();
        let next = pos.play(actions[rng.below(actions.len())]).expect("legal");
        if next.outcome.is_some() {
            pos = Position::start();
        } else {
            pos = next.position;
        }
    }
    panic!("no check in 400 plies of random play");
}

#[test]
fn a_check_at_the_horizon_is_searched_one_ply_more_at_level_5_only() {
    let (check, quiet) = check_and_quiet();
    let me = check.position.to_move().expect("to move");
    let searcher = |reductions: bool, may_stop: bool| {
        let mut s = Searcher::new(me, Vec::new(), 1_000, None);
        s.reductions = reductions;
        s.may_stop = may_stop;
        s
    };
    let level5 = searcher(true, true);
    assert!(level5.extends_check(&check, 0, 3));
    assert!(level5.extends_check(&check, -1, MAX_EXTENDED_PLY - 1));
    // Not before the horizon, not past the last extended ply, not
    // without a check, not in the first iteration, not at level 4.
    assert!(!level5.extends_check(&check, 1, 3));
    assert!(!level5.extends_check(&check, 0, MAX_EXTENDED_PLY));
    assert!(!level5.extends_check(&quiet, 0, 3));
    assert!(!searcher(true, false).extends_check(&check, 0, 3));
    assert!(!searcher(false, true).extends_check(&check, 0, 3));
}

#[test]
fn a_hopeless_node_at_the_horizon_skips_its_quiet_actions_at_level_5_only() {
    let pos = Position::start();
    let me = pos.to_move().expect("to move");
    let key = pos.repetition_key();
    let legal = pos.legal_actions().len() as u64;
    let nodes = |reductions: bool, above: i32| {
        let mut s = Searcher::new(me, vec![key], 1_000_000, None);
        s.reductions = reductions;
        let alpha = s.eval(&pos) + above;
        let v = s.search(&pos, 1, 1, alpha, alpha + 1);
        assert!(above < FUTILITY_MARGIN || v <= alpha, "fails low");
        s.nodes
    };
    // Far below the window: level 5 plays only the few actions that are not
    // quiet (the start has no capture); level 4 plays them all.
    assert!(nodes(true, FUTILITY_MARGIN) < legal / 10);
    assert!(nodes(false, FUTILITY_MARGIN) >= legal);
    // Within the margin every action is played.
    assert!(nodes(true, FUTILITY_MARGIN - 200) >= legal);
}
