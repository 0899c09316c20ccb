//! Perft: the number of legal action sequences of a given length (RULES §4
//! gives 48, 2,302 and 110,365 for depths 1–3 from the start).

use crate::action::Action;
use crate::movegen::{pseudo_actions, SafetyTest};
use crate::notation::canonical;
use crate::play::{is_fully_legal, resolve};
use crate::position::{Core, Position};

/// Counts legal action sequences of length `depth` from `pos`.
pub fn perft(pos: &Position, depth: u32) -> u64 {
    let mut history = vec![(pos.core.key(), pos.core.clone())];
    count(pos, depth, &mut history)
}

/// Perft split by first action: `(canonical action, count)`.
pub fn perft_divide(pos: &Position, depth: u32) -> Vec<(String, u64)> {
    let Some(p) = pos.core.to_move else {
        return Vec::new();
    };
    let mut history = vec![(pos.core.key(), pos.core.clone())];
    let mut out = Vec::new();
    for a in root_actions(pos) {
        let n = if depth <= 1 {
            u64::from(is_fully_legal(
                pos,
                a,
                &history as &dyn crate::play::History,
            ))
        } else {
            child(pos, a, depth, &mut history)
        };
        if depth == 0 {
            continue;
        }
        if n > 0 || is_fully_legal(pos, a, &history as &dyn crate::play::History) {
            out.push((canonical(&pos.core, p, a), n));
        }
    }
    out
}

fn root_actions(pos: &Position) -> Vec<Action> {
    let Some(p) = pos.core.to_move else {
        return Vec::new();
    };
    let mut v = Vec::with_capacity(128);
    pseudo_actions(&pos.core, p, &mut v);
    let test = SafetyTest::new(&pos.core, p);
    v.retain(|&a| test.is_legal(&pos.core, p, a));
    v
}

fn child(pos: &Position, a: Action, depth: u32, history: &mut Vec<(u64, Core)>) -> u64 {
    match resolve(pos, a, &*history as &dyn crate::play::History, true) {
        Ok(r) => {
            history.push((r.position.core.key(), r.position.core.clone()));
            let n = count(&r.position, depth - 1, history);
            history.pop();
            n
        }
        Err(_) => 0,
    }
}

fn count(pos: &Position, depth: u32, history: &mut Vec<(u64, Core)>) -> u64 {
    if depth == 0 {
        return 1;
    }
    let mut n = 0;
    for a in root_actions(pos) {
        n += if depth == 1 {
            u64::from(is_fully_legal(
                pos,
                a,
                &*history as &dyn crate::play::History,
            ))
        } else {
            child(pos, a, depth, history)
        };
    }
    n
}
