//! RULES §9: the promoted king's illumination.

mod common;

use common::*;
use sannin_rules::{Event, IllegalAction, PlayError, Player, Role};

/// Middle's +K on 7h with one piece on most of its twelve rays:
/// - hour 2: First's +P on 3f, undefended → captured (into hand as a P);
/// - hour 5: First's gold on 7j, undefended, with First's pawn 7k behind it →
///   only the gold (first piece per ray);
/// - hour 7: First's lance on 8i, attacked by Last's gold 9h → not eligible
///   (attacked by a player other than the illuminator, RULES §9.1);
/// - hour 9: Last's gold on 9h, defended by Last's pawn 9g → not eligible;
/// - hour 11: First's silver on 7e, undefended → captured;
/// - hour 12: Middle's own pawn on 6f blocks the ray; First's silver 5d behind
///   it is not reached.
fn board() -> Vec<(&'static str, &'static str)> {
    vec![
        ("m+K", "7h"),
        ("fK", "1d"),
        ("lK", "13m"),
        ("fS", "7e"),
        ("lG", "9h"),
        ("lP", "9g"),
        ("fG", "7j"),
        ("fP", "7k"),
        ("mP", "6f"),
        ("fS", "5d"),
        ("fL", "8i"),
        ("f+P", "3f"),
    ]
}

#[test]
fn rules_9_1_captures_first_undefended_piece_of_each_ray() {
    let mut g = game(&board(), "M", "-/-/-", "FML", "-", "-");
    let mut t: Vec<String> = g
        .illumination_targets()
        .expect("illumination is legal")
        .iter()
        .map(|c| c.to_string())
        .collect();
    t.sort();
    assert_eq!(t, vec!["3f", "7e", "7j"]);
    assert!(legal(&g, "+K7h!"));
    let ev = play(&mut g, "+K!");
    let mut cells: Vec<String> = ev
        .iter()
        .find_map(|e| match e {
            Event::Illuminated {
                player: Player::Middle,
                cells,
            } => Some(cells.iter().map(|c| c.to_string()).collect()),
            _ => None,
        })
        .expect("Illuminated event");
    cells.sort();
    assert_eq!(cells, vec!["3f", "7e", "7j"]);
    // RULES §9.2: all go to the illuminator's hand, demoted (the +P is a P).
    let p = g.position();
    assert_eq!(p.hand(Player::Middle, Role::Gold), 1);
    assert_eq!(p.hand(Player::Middle, Role::Silver), 1);
    assert_eq!(p.hand(Player::Middle, Role::Pawn), 1);
    for c in ["3f", "7e", "7j"] {
        assert!(p.piece_at(c.parse().unwrap()).is_none(), "{c}");
    }
    for c in ["7k", "8i", "9h", "5d", "6f", "7h"] {
        assert!(p.piece_at(c.parse().unwrap()).is_some(), "{c}");
    }
    assert!(p.to_string().contains(" -/GSP/- "), "{p}");
    assert_eq!(g.to_move(), Some(Player::Last));
}

#[test]
fn rules_9_1_kings_are_never_illuminated() {
    // First's king on 7d is the first piece of the hour 11 ray (7g 7f 7e empty).
    let v: Vec<_> = board()
        .into_iter()
        .filter(|(p, c)| *p != "fK" && *c != "7e")
        .chain([("fK", "7d")])
        .collect();
    let g = game(&v, "M", "-/-/-", "FML", "-", "-");
    let t: Vec<String> = g
        .illumination_targets()
        .expect("others remain")
        .iter()
        .map(|c| c.to_string())
        .collect();
    assert!(!t.contains(&"7d".to_string()), "{t:?}");
}

#[test]
fn rules_9_2_not_available_when_nothing_is_eligible() {
    let v: Vec<_> = board()
        .into_iter()
        // 7k too: with the gold on 7j gone, First's pawn on 7k would be first on its ray.
        .filter(|(_, c)| !["3f", "7e", "7j", "7k"].contains(c))
        .collect();
    let mut g = game(&v, "M", "-/-/-", "FML", "-", "-");
    assert_eq!(g.illumination_targets(), None);
    assert!(g.legal_notation().iter().all(|a| !a.ends_with('!')));
    match g.play_notation(Player::Middle, "+K!") {
        Err(PlayError::Illegal(IllegalAction::NothingToIlluminate(_))) => {}
        other => panic!("{other:?}"),
    }
}

#[test]
fn rules_9_1_allys_pieces_and_pieces_attacked_by_the_ally_are_not_eligible() {
    // Alliance ML. Last's silver on 7e (undefended) is an ally's piece: never.
    // First's gold 7j is attacked by Last's lance on 8j (Last hour 11 = (0,−1)):
    // attacked by the illuminator's ally, so not eligible. First's silver 9h is.
    let v = vec![
        ("m+K", "7h"),
        ("fK", "1d"),
        ("lK", "13m"),
        ("lS", "7e"),
        ("fG", "7j"),
        ("lL", "8j"),
        ("fS", "9h"),
    ];
    let g = game(&v, "M", "-/-/-", "FML", "ML", "-");
    let t: Vec<String> = g
        .illumination_targets()
        .expect("9h remains")
        .iter()
        .map(|c| c.to_string())
        .collect();
    assert_eq!(t, vec!["9h"]);
}

#[test]
fn rules_9_2_illumination_may_answer_a_check() {
    // First's rook on 7c checks the +K on 7h along the hour 11 line (First hour 9
    // = (+1,0)); it is undefended, so illumination takes it and ends the check.
    let v = vec![("m+K", "7h"), ("fK", "1d"), ("lK", "13m"), ("fR", "7c")];
    let mut g = game(&v, "M", "-/-/-", "FML", "-", "-");
    assert!(g.position().in_check(Player::Middle));
    assert!(legal(&g, "+K7h!"));
    play(&mut g, "+K7h!");
    assert_eq!(g.position().hand(Player::Middle, Role::Rook), 1);
}

#[test]
fn rules_9_2_illumination_that_leaves_the_king_in_check_is_illegal() {
    // Same, but First's gold on 6c defends the rook (First hour 1 = (0,+1)); the
    // only eligible piece is First's silver on 9h. After illuminating, the rook
    // still checks: illegal (RULES §9.2, §10.3).
    let v = vec![
        ("m+K", "7h"),
        ("fK", "1d"),
        ("lK", "13m"),
        ("fR", "7c"),
        ("fG", "6c"),
        ("fS", "9h"),
    ];
    let mut g = game(&v, "M", "-/-/-", "FML", "-", "-");
    assert!(!g.legal_notation().iter().any(|a| a.ends_with('!')));
    match g.play_notation(Player::Middle, "+K!") {
        Err(PlayError::Illegal(IllegalAction::LeavesKingInCheck { .. })) => {}
        other => panic!("{other:?}"),
    }
}

#[test]
fn rules_9_2_illumination_that_would_check_the_ally_is_illegal() {
    // Alliance ML. First's silver on 7d is eligible; behind it Last's king on 7a.
    // Removing the silver opens the +K's own hour 11 ray onto its ally's king.
    let v = vec![("m+K", "7h"), ("fK", "1d"), ("lK", "7a"), ("fS", "7d")];
    let mut g = game(&v, "M", "-/-/-", "FML", "ML", "-");
    assert_eq!(g.illumination_targets(), None);
    match g.play_notation(Player::Middle, "+K!") {
        Err(PlayError::Illegal(IllegalAction::ChecksAlly(Player::Last))) => {}
        other => panic!("{other:?}"),
    }
}
