//! The trainer's data and fit, and the evaluation's symmetry on its positions.

use sannin_rules::Player;

use super::*;
use crate::eval::evaluate;

#[test]
fn the_same_seed_gives_the_same_samples_whatever_the_jobs() {
    let one = generate(2, 7, 1);
    let two = generate(2, 7, 2);
    assert!(one.len() > 10, "{}", one.len());
    assert_eq!(one, two);
    for s in &one {
        assert!((s.result.iter().sum::<f64>() - 1.0).abs() < 1e-9);
        assert!(!s.position.in_check(s.position.to_move().unwrap()));
    }
    // Written and read back, the same (results to four places).
    let back = read(&write(&one)).unwrap();
    assert_eq!(back.len(), one.len());
    for (a, b) in one.iter().zip(&back) {
        assert_eq!(a.position.to_string(), b.position.to_string());
        assert!((0..3).all(|i| (a.result[i] - b.result[i]).abs() < 1e-4));
    }
    assert_eq!(read("nonsense\n").unwrap_err(), "line 1: no tab");
}

#[test]
fn the_evaluation_turns_with_the_players() {
    // Rotating the board a third of a turn and relabelling the players (Middle
    // becomes First, First Last, Last Middle) changes no player's evaluation.
    let rot = |p: Player| match p {
        Player::Middle => Player::First,
        Player::First => Player::Last,
        Player::Last => Player::Middle,
    };
    for s in generate(3, 11, 2).iter().step_by(3) {
        let r = s.position.rotated();
        for p in Player::ALL {
            if s.position.is_active(p) {
                assert_eq!(
                    evaluate(&s.position, p),
                    evaluate(&r, rot(p)),
                    "{}",
                    s.position
                );
            }
        }
    }
}

#[test]
fn fitting_lowers_the_loss() {
    let samples = generate(30, 3, 2);
    let start = Weights::DEFAULT;
    let mut rounds = 0;
    let f = fit(&samples, start, 2, |_, _, _, _| rounds += 1);
    assert_eq!(rounds, 2);
    assert!(f.after <= f.before, "{f:?}");
    assert!((100.0..=20_000.0).contains(&f.scale), "{f:?}");
    // The loss is the cross-entropy: even shares among the players still in the game
    // cost ln 3 a position (ln 2 with two left); the fitted evaluation knows more.
    let flat = loss(&samples, &start, 1e9);
    assert!(flat > 2f64.ln() && flat <= 3f64.ln() + 1e-9, "{flat}");
    assert!(f.after < flat, "{f:?} against {flat}");
}
