//! The bots' promises: legal actions only, mates in one always taken at level
//! 1 and up, hanging pieces taken, the same seed giving the same choice; and the
//! weaker levels vary their play from game to game (a seeded pick among the
//! actions scoring near the best) without that costing a free piece or a mate.

use std::collections::HashSet;

use sannin_bot::{choose, choose_detailed, Level, Limits};
use sannin_rules::{notation, Action, Game, Player, Position, START};

fn level(n: u8) -> Level {
    Level::from_number(n).expect("a level")
}

/// Small budgets keep the tests quick (they run unoptimised).
fn small() -> Limits {
    Limits {
        nodes: Some(1_500),
        ..Limits::default()
    }
}

/// Whether `a` wins the game for the mover, and whether it mates (eliminates) an opponent.
fn mates(pos: &Position, a: Action) -> (bool, bool) {
    let me = pos.to_move().expect("to move");
    let succ = pos.play(a).expect("legal");
    let wins = succ.outcome.as_ref().is_some_and(|o| o.winners == vec![me]);
    // An opponent out, and the game not lost by it (mating one's ally loses).
    let eliminates = succ.position.active().len() < pos.active().len()
        && succ
            .outcome
            .as_ref()
            .is_none_or(|o| o.winners.contains(&me));
    (wins, eliminates)
}

/// The actions of a game from the start with every seat at level `n`, each
/// bot seeded from `seed` and its seat.
fn record(n: u8, seed: u64, plies: usize) -> Vec<Action> {
    let mut game = Game::new();
    let mut out = Vec::new();
    for _ in 0..plies {
        let Some(p) = game.to_move() else { break };
        let a = choose(&game, level(n), seed * 3 + p.index() as u64, small()).expect("an action");
        game.play(a).expect("legal");
        out.push(a);
    }
    out
}

#[test]
fn games_of_the_weaker_levels_differ() {
    for n in [1, 2] {
        let records: Vec<Vec<Action>> = (0..5).map(|seed| record(n, seed, 15)).collect();
        let distinct: HashSet<&Vec<Action>> = records.iter().collect();
        assert_eq!(distinct.len(), records.len(), "level {n}: a game repeated");
        // Not only the first move: the games keep differing.
        let openings: HashSet<&[Action]> = records.iter().map(|r| &r[..3]).collect();
        assert!(openings.len() > 1, "level {n}: every game opened alike");
    }
    // The same seeds replay the same game.
    assert_eq!(record(2, 3, 9), record(2, 3, 9));
}

/// Seeds to try at level `n`: levels 1 and 2 pick by seed among near-best actions,
/// so they get more.
fn seeds(n: u8) -> std::ops::Range<u64> {
    if n <= 2 {
        0..12
    } else {
        0..3
    }
}

/// Positions of random games (level 0) with the game that reached them.
fn random_games(seeds: std::ops::Range<u64>, max_plies: usize) -> Vec<Game> {
    let mut out = Vec::new();
    for seed in seeds {
        let mut game = Game::new();
        for _ in 0..max_plies {
            if game.is_over() {
                break;
            }
            out.push(game.clone());
            let a = choose(&game, Level::RANDOM, seed, Limits::default()).expect("an action");
            game.play(a).expect("level 0 plays legal actions");
        }
    }
    out
}

#[test]
fn levels_parse() {
    assert_eq!(Level::from_number(0), Some(Level::RANDOM));
    assert_eq!(Level::from_number(4), Some(Level::MASTER));
    assert_eq!(Level::from_number(5), Some(Level::MAX));
    assert_eq!(Level::from_number(6), None);
    assert!(level(2).nodes() < level(3).nodes());
}

#[test]
fn finds_mates_in_one() {
    // Every position of some random games in which the player to move can end
    // the game or mate someone at once.
    let mut winning = 0;
    let mut mating = 0;
    for game in random_games(0..12, 200) {
        let pos = game.position();
        let legal = game.legal_actions();
        let results: Vec<(bool, bool)> = legal.iter().map(|&a| mates(pos, a)).collect();
        let can_win = results.iter().any(|r| r.0);
        let can_mate = results.iter().any(|r| r.1);
        if !can_win && !can_mate {
            continue;
        }
        winning += can_win as usize;
        mating += can_mate as usize;
        for n in 1..=4 {
            let a = choose(&game, level(n), 7, small()).expect("an action");
            let (wins, eliminates) = mates(pos, a);
            if can_win {
                assert!(
                    wins,
                    "level {n} missed a win in one in {pos}: played {:?}",
                    notation::format(pos, a)
                );
            } else {
                assert!(
                    eliminates,
                    "level {n} missed a mate in one in {pos}: played {:?}",
                    notation::format(pos, a)
                );
            }
        }
    }
    assert!(
        winning >= 3 && mating >= 3,
        "too few test positions: {winning} wins, {mating} mates"
    );
}

#[test]
fn mate_in_one_in_a_fixed_position() {
    // From a random game: Middle to move against First alone; of 246 legal
    // actions only the gold drop on 3d mates First's king on 2c (and wins).
    let s = "m+L2fP1fS1/1f+P2fP3/m+P2fPfR2fK1/mP4fP4/2f+L3fP1m+R2/9fS1m+L/5fP3mGm+S2/3mP3fP1fSfG1/mNm+PmP3f+LmP1fP1/1mPmP2mP4/7mN1/mL3mK3/3fG3 M -/BG/- FM - -";
    let pos: Position = s.parse().expect("valid position");
    let game = Game::from_position(pos.clone());
    assert_eq!(game.legal_actions().len(), 246);
    for n in 1..=4 {
        for seed in seeds(n) {
            let a = choose(&game, level(n), seed, small()).expect("an action");
            assert_eq!(
                notation::format(&pos, a).ok().as_deref(),
                Some("G*3d"),
                "level {n} seed {seed}"
            );
            assert_eq!(mates(&pos, a), (true, true));
        }
    }
}

#[test]
fn takes_a_hanging_rook() {
    // Middle's rook stands on 4e, attacked by First's pawn on 3d and defended by
    // nothing; First to move.
    let s = START
        .replacen("lG1lN5fN1fG", "lG1lN4mRfN1fG", 1)
        .replacen("1mB4mR1", "1mB6", 1);
    let pos: Position = s.parse().expect("valid position");
    let game = Game::from_position(pos.clone());
    let rook_cell = "4e".parse().expect("cell");
    for n in 1..=4 {
        for seed in seeds(n) {
            let a = choose(&game, level(n), seed, small()).expect("an action");
            assert!(
                matches!(a, Action::Move { to, .. } if to == rook_cell),
                "level {n} seed {seed} played {:?} instead of taking the rook",
                notation::format(&pos, a)
            );
        }
    }
}

#[test]
fn never_returns_an_illegal_action() {
    // Games between mixed levels, every choice checked against the game's own
    // legal list (repetition included) and played.
    for seed in 0..4u64 {
        let mut game = Game::new();
        for ply in 0..120u64 {
            let Some(p) = game.to_move() else { break };
            let n = ((seed + ply + p.index() as u64) % 5) as u8;
            let a = choose(&game, level(n), seed * 1000 + ply, small())
                .expect("an action while the game runs");
            assert!(
                game.legal_actions().contains(&a),
                "level {n} chose an illegal action"
            );
            game.play(a).expect("legal");
        }
        if game.is_over() {
            assert!(choose(&game, level(2), seed, small()).is_none());
        }
    }
}

#[test]
fn same_seed_same_choice() {
    for game in random_games(40..42, 40).into_iter().step_by(7) {
        for n in 0..=Level::MAX.number() {
            let a = choose_detailed(&game, level(n), 99, small()).expect("an action");
            let b = choose_detailed(&game, level(n), 99, small()).expect("an action");
            assert_eq!(a.action, b.action, "level {n}");
            assert_eq!(
                (a.score, a.depth, a.nodes),
                (b.score, b.depth, b.nodes),
                "level {n}"
            );
        }
    }
    // Level 0 does depend on the seed.
    let game = Game::new();
    let picks: std::collections::HashSet<_> = (0..20)
        .map(|s| choose(&game, Level::RANDOM, s, Limits::default()))
        .collect();
    assert!(picks.len() > 5);
}

#[test]
fn callable_from_other_threads() {
    fn is_send<T: Send + 'static>(_: &T) {}
    let game = Game::new();
    is_send(&game);
    let handles: Vec<_> = (0..2)
        .map(|s| {
            let g = game.clone();
            std::thread::spawn(move || choose(&g, level(2), s, small()))
        })
        .collect();
    for h in handles {
        let a = h.join().expect("no panic").expect("an action");
        assert!(game.legal_actions().contains(&a));
    }
    assert_eq!(game.to_move(), Some(Player::First));
}
