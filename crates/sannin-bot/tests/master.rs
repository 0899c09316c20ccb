//! The promises of the two searching levels at the top (Master and
//! Grandmaster): each takes a mate in one, does not walk into a
//! mate in one, wins by the Pleasure Garden when it can (RULES §11 step 2)
//! and does not leave its rook to a single capture (RULES §12.1's en prise
//! and unequal exchange).

use sannin_bot::{choose, Engine, Level, Limits};
use sannin_rules::{notation, Action, Game, Player, Position, Role, START};

/// The levels held to these promises.
const TOP: [Level; 2] = [Level::MASTER, Level::GRANDMASTER];

/// Each top level with each of three seeds.
fn tops_and_seeds() -> impl Iterator<Item = (Level, u64)> {
    TOP.into_iter()
        .flat_map(|level| (0..3).map(move |seed| (level, seed)))
}

/// The level's own budget (the search must see two of its own moves).
fn full() -> Limits {
    Limits::default()
}

/// Whether `p` would be eliminated by some action of the player to move in `pos`.
fn can_be_mated(pos: &Position, p: Player) -> bool {
    pos.legal_actions().into_iter().any(|b| {
        pos.play(b).is_ok_and(|s| {
            !s.position.is_active(p) || s.outcome.is_some_and(|o| !o.winners.contains(&p))
        })
    })
}

#[test]
fn is_the_highest_level_and_has_names() {
    assert_eq!(Level::MAX, Level::GRANDMASTER);
    assert_eq!(Level::GRANDMASTER.number(), 5);
    assert_eq!(Level::from_name("grandmaster"), Some(Level::GRANDMASTER));
    assert_eq!(Level::from_name("master"), Some(Level::MASTER));
    assert_eq!(Level::MASTER.number(), 4);
    assert_eq!(Level::from_name("Strong"), Level::from_number(3));
    assert_eq!(Level::from_name("Casual"), Level::from_number(2));
    assert_eq!(Level::from_name("Beginner"), Level::from_number(1));
    assert_eq!(Level::from_name("3"), Level::from_number(3));
    assert_eq!(Level::from_name("supergrandmaster"), None);
    assert_eq!(Level::from_number(6), None);
}

#[test]
fn finds_the_mate_in_one() {
    // Middle to move against First alone; of 246 legal actions only the gold
    // drop on 3d mates First's king on 2c (and wins).
    let s = "m+L2fP1fS1/1f+P2fP3/m+P2fPfR2fK1/mP4fP4/2f+L3fP1m+R2/9fS1m+L/5fP3mGm+S2/3mP3fP1fSfG1/mNm+PmP3f+LmP1fP1/1mPmP2mP4/7mN1/mL3mK3/3fG3 M -/BG/- FM - -";
    let pos: Position = s.parse().expect("valid position");
    let game = Game::from_position(pos.clone());
    for (level, seed) in tops_and_seeds() {
        let a = choose(&game, level, seed, full()).expect("an action");
        assert_eq!(notation::format(&pos, a).ok().as_deref(), Some("G*3d"));
    }
}

#[test]
fn takes_the_pleasure_garden() {
    // Middle's king on 8h, next to an empty and unattacked 7g.
    let s = START
        .replacen("mLmSmGmKmGmSmL", "mLmSmG1mGmSmL", 1)
        .replacen("1lP8fP1", "1lP3mK4fP1", 1)
        .replacen(" F -/-/- FML - FML", " M -/-/- FML - FL", 1);
    let pos: Position = s.parse().expect("valid position");
    let game = Game::from_position(pos.clone());
    let garden = "7g".parse().expect("cell");
    assert!(game.legal_actions().contains(&Action::Move {
        from: "8h".parse().expect("cell"),
        to: garden,
        promote: false
    }));
    for (level, seed) in tops_and_seeds() {
        let a = choose(&game, level, seed, full()).expect("an action");
        let after = pos.play(a).expect("legal");
        assert_eq!(
            after.outcome.map(|o| o.winners),
            Some(vec![Player::Middle]),
            "level {level} played {:?}",
            notation::format(&pos, a)
        );
    }
}

#[test]
fn does_not_leave_its_rook_to_one_capture() {
    // Middle's rook on 4e is attacked by First's pawn on 3d and defended by
    // nothing; Middle to move.
    let s = START
        .replacen("lG1lN5fN1fG", "lG1lN4mRfN1fG", 1)
        .replacen("1mB4mR1", "1mB6", 1)
        .replacen(" F -/-/- FML - FML", " M -/-/- FML - FML", 1);
    let pos: Position = s.parse().expect("valid position");
    let game = Game::from_position(pos.clone());
    for (level, seed) in tops_and_seeds() {
        let a = choose(&game, level, seed, full()).expect("an action");
        let after = pos.play(a).expect("legal").position;
        let Some(rook) = after
            .pieces()
            .into_iter()
            .find(|(_, x)| x.owner == Player::Middle && x.role == Role::Rook)
            .map(|(c, _)| c)
        else {
            // The rook was traded: fine only if it took something.
            assert!(pos
                .play(a)
                .is_ok_and(|s| s.position.hand(Player::Middle, Role::Rook) > 0
                    || s.position.pieces().len() < pos.pieces().len()));
            continue;
        };
        let attacked = [Player::First, Player::Last]
            .into_iter()
            .any(|e| after.is_attacked_by(rook, e));
        assert!(
            !attacked,
            "level {level} played {:?}: the rook on {rook} stands attacked",
            notation::format(&pos, a)
        );
    }
}

#[test]
fn does_not_walk_into_a_mate_in_one() {
    // Positions of level-1 games in which some action of the mover lets the
    // next player mate it at once, some other action does not, and the mover
    // has no win or mate of its own.
    let mut tested = 0;
    'games: for seed in 0..40u64 {
        let mut game = Game::new();
        for _ in 0..160 {
            if game.is_over() || tested >= 6 {
                break;
            }
            let pos = game.position().clone();
            let me = pos.to_move().expect("to move");
            let legal = game.legal_actions();
            let mut risky = false;
            let mut safe = false;
            let mut own_kill = false;
            for &a in &legal {
                let s = pos.play(a).expect("legal");
                if s.outcome.is_some() || s.position.active_count() < pos.active_count() {
                    own_kill = true;
                    break;
                }
                if s.position.to_move().is_some_and(|q| q != me) && can_be_mated(&s.position, me) {
                    risky = true;
                } else {
                    safe = true;
                }
            }
            if risky && safe && !own_kill {
                tested += 1;
                for level in TOP {
                    let a = choose(&game, level, seed, full()).expect("an action");
                    let s = pos.play(a).expect("legal");
                    assert!(
                        !can_be_mated(&s.position, me),
                        "in {pos} level {level} played {:?}, after which the next player mates",
                        notation::format(&pos, a)
                    );
                }
            }
            let a = choose(&game, Level::BEGINNER, seed, Limits::default()).expect("an action");
            if game.play(a).is_err() {
                continue 'games;
            }
        }
    }
    assert!(tested >= 3, "only {tested} test positions");
}

#[test]
fn answers_fast_with_little_time_left() {
    // A middle-game position; with 600 ms on its clock the top level spends
    // a thirtieth of it, so its search stops after the first iteration, far
    // short of its node budget, which it spends in full without a clock.
    let mut game = Game::new();
    for seed in 0..12 {
        let a = choose(&game, Level::BEGINNER, seed, Limits::default()).expect("an action");
        game.play(a).expect("legal");
    }
    let clock = sannin_bot::ClockTime {
        remaining: std::time::Duration::from_millis(600),
        ..Default::default()
    };
    for level in TOP {
        let budget = level.nodes().expect("a budget");
        let short = sannin_bot::choose_detailed(&game, level, 1, full().on_clock(clock))
            .expect("an action");
        assert!(
            short.nodes < budget / 4,
            "level {level}: {} nodes with 20 ms to spend",
            short.nodes
        );
        assert!(game.legal_actions().contains(&short.action));
        let long = sannin_bot::choose_detailed(&game, level, 1, full()).expect("an action");
        assert!(long.nodes >= budget, "level {level}: {} nodes", long.nodes);
    }
}

#[test]
fn grandmaster_looks_further_than_master_with_the_same_nodes() {
    // Positions of a level-1 game; both levels searching the same number of
    // actions (the clock plays no part). With one evaluation, level 5's null
    // windows, reductions and table move first must finish a deeper iteration
    // on some of them and never a shallower one. Level 5 itself, with its fitted
    // weights, searches other trees, so it may fall an iteration short now and
    // then, but finishes a deeper one more often.
    let limits = Limits {
        nodes: Some(60_000),
        time: None,
    };
    let same_weights = Engine {
        weights: Level::MASTER.engine().weights,
        ..Level::GRANDMASTER.engine()
    };
    let mut game = Game::new();
    let (mut deeper, mut compared) = (0, 0);
    let (mut fitted_deeper, mut fitted_shallower) = (0, 0);
    for ply in 0..60u64 {
        if game.is_over() {
            break;
        }
        if ply % 3 == 0 {
            let depth = |engine: &Engine| {
                sannin_bot::choose_with(&game, engine, 1, limits)
                    .expect("an action")
                    .depth
            };
            let master = depth(&Level::MASTER.engine());
            let grandmaster = depth(&same_weights);
            assert!(
                grandmaster >= master,
                "ply {ply}: depth {grandmaster} against Master's {master}"
            );
            deeper += usize::from(grandmaster > master);
            compared += 1;
            let fitted = depth(&Level::GRANDMASTER.engine());
            fitted_deeper += usize::from(fitted > master);
            fitted_shallower += usize::from(fitted < master);
        }
        let a = choose(&game, Level::BEGINNER, ply, Limits::default()).expect("an action");
        game.play(a).expect("legal");
    }
    assert!(compared >= 8, "{compared} positions");
    // Measured: deeper in 6 of 14 positions (an iteration costs several times
    // the one before, so a deeper one is finished only now and then); with the
    // fitted weights deeper in 5 and shallower in 1.
    assert!(deeper >= 3, "deeper in {deeper} of {compared} positions");
    assert!(
        fitted_deeper > fitted_shallower,
        "with its own weights deeper in {fitted_deeper}, shallower in {fitted_shallower} of {compared}"
    );
}
