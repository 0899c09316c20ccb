//! Games found by a greedy random search, for tests that need a mate, a check…

use sannin_protocol::RulesEvent;

/// The bots' seeded PRNG: the same seed finds the same game.
pub use sannin_bot::Rng;

/// A game from the start, found off the async runtime by [`search_game`], in which
/// `accept` likes the events seen (mates, checks…).
pub async fn find_game(what: &str, accept: fn(&[RulesEvent]) -> bool) -> Vec<String> {
    tokio::task::spawn_blocking(move || {
        search_game(sannin_rules::Position::start(), 400, 0..40, |events, _| {
            accept(events)
        })
    })
    .await
    .expect("the search ran")
    .unwrap_or_else(|| panic!("no game found with {what}"))
}

/// Whether the events hold a mate.
pub fn has_mate(events: &[RulesEvent]) -> bool {
    events.iter().any(|e| matches!(e, RulesEvent::Mated { .. }))
}

/// Plays a game with a greedy policy — take a mate if one is there, else a capture
/// or a check at random, else any action — and returns the actions if the game ended
/// and `accept` likes the events seen. Deterministic per seed.
pub fn search_game(
    start: sannin_rules::Position,
    max_plies: usize,
    seeds: std::ops::Range<u64>,
    accept: impl Fn(&[RulesEvent], &sannin_rules::Game) -> bool,
) -> Option<Vec<String>> {
    use sannin_rules::Game;
    for seed in seeds {
        let mut rng = Rng::new(seed);
        let mut game = Game::from_position(start.clone());
        let mut seen = Vec::new();
        let mut actions = Vec::new();
        while !game.is_over() && actions.len() < max_plies {
            let p = game.to_move().unwrap();
            let legal = game.legal_notation();
            if legal.is_empty() {
                break;
            }
            let mut best: Vec<(i32, String, Game, Vec<RulesEvent>)> = Vec::new();
            for a in &legal {
                let mut g = game.clone();
                let Ok(played) = g.play_notation(p, a) else {
                    continue;
                };
                let ev = played.events;
                let mut score = 0;
                for e in &ev {
                    match e {
                        RulesEvent::Mated { .. } | RulesEvent::GameOver { .. } => score += 100,
                        RulesEvent::Check { .. } => score += 3,
                        RulesEvent::Captured { .. } => score += 2,
                        _ => {}
                    }
                }
                best.push((score, a.clone(), g, ev));
            }
            let top = best.iter().map(|b| b.0).max().unwrap_or(0);
            let pool: Vec<usize> = if top < 100 && rng.below(3) == 0 {
                (0..best.len()).collect()
            } else {
                (0..best.len()).filter(|i| best[*i].0 == top).collect()
            };
            let choice = pool[rng.below(pool.len())];
            let (_, action, g, ev) = best.swap_remove(choice);
            actions.push(action);
            seen.extend(ev);
            game = g;
        }
        if game.is_over() && accept(&seen, &game) {
            return Some(actions);
        }
    }
    None
}
