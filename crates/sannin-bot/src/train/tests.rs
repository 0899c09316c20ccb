//! The trainer's data and fit, and the evaluation's symmetry on its positions.

use sannin_rules::Player;

use super::*;
use crate::eval::evaluate;
use crate::Level;

#[test]
fn the_same_seed_gives_the_same_samples_whatever_the_jobs() {
    let one = generate(2, 7, 1, &Level::CASUAL.engine());
    let two = generate(2, 7, 2, &Level::CASUAL.engine());
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
    // becomes First, First Last, Last Middle) changes no player's evaluation,
    // with the default weights or the fitted ones.
    let rot = |p: Player| match p {
        Player::Middle => Player::First,
        Player::First => Player::Last,
        Player::Last => Player::Middle,
    };
    let fitted = Weights::fitted();
    for s in generate(3, 11, 2, &Level::CASUAL.engine())
        .iter()
        .step_by(3)
    {
        let r = s.position.rotated();
        for p in Player::ALL {
            if s.position.is_active(p) {
                assert_eq!(
                    evaluate(&s.position, p),
                    evaluate(&r, rot(p)),
                    "{}",
                    s.position
                );
                assert_eq!(
                    evaluate_with(&fitted, &s.position, p),
                    evaluate_with(&fitted, &r, rot(p)),
                    "{}",
                    s.position
                );
            }
        }
    }
}

#[test]
fn fitting_lowers_the_loss() {
    let samples = generate(30, 3, 2, &Level::CASUAL.engine());
    let start = Weights::DEFAULT;
    let mut rounds = 0;
    let f = fit(&samples, start, 2, 0.0, |_, _, _, _| rounds += 1);
    assert_eq!(rounds, 2);
    assert!(f.after <= f.before, "{f:?}");
    assert!((100.0..=20_000.0).contains(&f.scale), "{f:?}");
    // The loss is the cross-entropy: even shares among the players still in the game
    // cost ln 3 a position (ln 2 with two left); the fitted evaluation knows more.
    let flat = loss(&samples, &start, 1e9);
    assert!(flat > 2f64.ln() && flat <= 3f64.ln() + 1e-9, "{flat}");
    assert!(f.after < flat, "{f:?} against {flat}");
    // A prior that outweighs anything the data could gain keeps the start.
    let held = fit(&samples, start, 1, 1e6, |_, _, _, _| {});
    assert_eq!(held.weights, start);
    assert!(f.weights != start, "{f:?}");
}

#[test]
fn weights_files_name_every_weight_and_read_back() {
    let w = Weights::parse("pawn=120,promoted_rook=1300,check=90").unwrap();
    assert_eq!(w.value(sannin_rules::Role::Pawn, false), 120);
    assert_eq!(w.value(sannin_rules::Role::Rook, true), 1300);
    assert_eq!(w.check, 90);
    // Written as a file with a header, read back the same; its display parses too.
    let text = w.file("a header\nof two lines");
    assert!(text.starts_with("# a header\n# of two lines\n"), "{text}");
    assert_eq!(Weights::read_file(&text), Ok(w));
    assert_eq!(Weights::parse(&w.to_string()), Ok(w));
    // A file that leaves a weight out is refused, naming it.
    let short: String = text
        .lines()
        .filter(|l| !l.starts_with("near="))
        .collect::<Vec<_>>()
        .join("\n");
    assert_eq!(
        Weights::read_file(&short),
        Err("near: not in the file".into())
    );
    assert_eq!(
        Weights::read_file("queen=9"),
        Err("queen: no such weight".into())
    );
    // The committed weights read, and level 5 plays with them.
    let fitted = Weights::fitted();
    assert_eq!(Level::GRANDMASTER.engine().weights, fitted);
    assert_eq!(Level::MASTER.engine().weights, Weights::DEFAULT);
}

#[test]
fn quiet_positions_offer_the_mover_no_capture_worth_making() {
    assert!(is_quiet(&Position::start()));
    let samples = generate(4, 5, 2, &Level::CASUAL.engine());
    let (quiet, busy): (Vec<_>, Vec<_>) = samples.iter().partition(|s| is_quiet(&s.position));
    assert!(
        !quiet.is_empty() && !busy.is_empty(),
        "{} / {}",
        quiet.len(),
        busy.len()
    );
    // In every other position the mover can take an enemy piece: one it wins outright
    // or one worth more than the piece that takes it (or illuminate).
    for s in busy {
        let pos = &s.position;
        let me = pos.to_move().unwrap();
        let worth = pos.legal_actions().into_iter().any(|a| match a {
            sannin_rules::Action::Move { from, to, .. } => {
                let (Some(x), Some(m)) = (pos.piece_at(to), pos.piece_at(from)) else {
                    return false;
                };
                x.owner != me
                    && (!pos.is_attacked_by(to, x.owner)
                        || crate::eval::piece_value(x.role, x.promoted)
                            > crate::eval::piece_value(m.role, m.promoted))
            }
            sannin_rules::Action::Illuminate { .. } => true,
            sannin_rules::Action::Drop { .. } => false,
        });
        assert!(worth, "{pos}");
    }
}

#[test]
fn a_played_position_evaluates_as_the_same_position_built_anew() {
    // The evaluation reads what a position keeps up to date as actions are played
    // (piece counts, occupancy, attacks); built from its position string, with
    // nothing carried over, every player's evaluation is the same.
    let fitted = Weights::fitted();
    for s in generate(3, 17, 2, &Level::CASUAL.engine()) {
        let anew: Position = s.position.to_string().parse().unwrap();
        for p in Player::ALL.into_iter().filter(|&p| s.position.is_active(p)) {
            for w in [&Weights::DEFAULT, &fitted] {
                assert_eq!(
                    evaluate_with(w, &s.position, p),
                    evaluate_with(w, &anew, p),
                    "{}",
                    s.position
                );
            }
        }
    }
}
