//! RULES §8: castling, the king's first-move jump within its own territory.

mod common;

use common::*;
use sannin_rules::{Event, Game, Player};
use std::collections::BTreeSet;

/// Middle's territory: ranks k–m (r ≥ 10).
fn middle_territory() -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for r in 10..13 {
        for f in 0..13 {
            if exists(r, f) {
                out.insert(name(r, f));
            }
        }
    }
    out
}

#[test]
fn rules_8_1_king_may_jump_to_any_empty_cell_of_its_territory() {
    // Own pieces on 11m, 9m, 10l, 11l surround nothing in particular; a jump is
    // not blocked by them (no path), but does not land on them.
    let own = ["11m", "9m", "10l", "11l"];
    let mut pieces = vec![("fK", "1d"), ("mK", "10m"), ("lK", "10d")];
    for c in own {
        pieces.push(("mG", c));
    }
    let g = game(&pieces, "M", "-/-/-", "FML", "-", "FML");
    let mut want = middle_territory();
    want.remove("10m");
    for c in own {
        want.remove(c);
    }
    assert_eq!(targets(&g, "10m"), want);
    // Each target is one action: the jump to a neighbour is the ordinary step (RULES §8.3).
    let king_moves: Vec<_> = g
        .legal_notation()
        .into_iter()
        .filter(|a| a.starts_with("K10m"))
        .collect();
    assert_eq!(king_moves.len(), want.len());
    // Castling never promotes (RULES §8.3).
    assert!(king_moves
        .iter()
        .all(|a| !a.ends_with('+') && !a.ends_with('=')));
    // The same for First and Last in the rotated positions (RULES §2).
    let g1 = Game::from_position(g.position().rotated());
    assert_eq!(
        targets(&g1, &rot("10m")),
        want.iter().map(|c| rot(c)).collect()
    );
    let g2 = Game::from_position(g1.position().rotated());
    assert_eq!(
        targets(&g2, &rot(&rot("10m"))),
        want.iter().map(|c| rot(&rot(c))).collect()
    );
}

#[test]
fn rules_8_1_castling_captures_an_enemy_piece_but_never_a_king() {
    // First's silver on 7k may be taken by the jump; First's king on 13k may not,
    // nor may the king land next to it (it would be in check, RULES §10.3).
    let mut g = game(
        &[("fK", "13k"), ("mK", "10m"), ("lK", "10d"), ("fS", "7k")],
        "M",
        "-/-/-",
        "FML",
        "-",
        "FML",
    );
    let t = targets(&g, "10m");
    assert!(t.contains("7k"));
    assert!(!t.contains("13k"));
    assert!(!t.contains("12k") && !t.contains("13l"));
    assert!(legal(&g, "K10mx7k"));
    let ev = play(&mut g, "K10mx7k");
    assert!(ev.iter().any(|e| matches!(
        e,
        Event::Captured {
            owner: Player::First,
            by: Player::Middle,
            ..
        }
    )));
    // The castled king has moved: its right is gone (RULES §8.2).
    assert!(!g.position().castling_rights().contains(&Player::Middle));
}

#[test]
fn rules_8_2_no_castling_while_in_check() {
    // Last's rook on 10g checks 10m along file 10 (Last hour 1 = (+1,0)).
    let g = game(
        &[("fK", "1d"), ("mK", "10m"), ("lK", "10d"), ("lR", "10g")],
        "M",
        "-/-/-",
        "FML",
        "-",
        "FML",
    );
    let t = targets(&g, "10m");
    // Only ordinary steps to the neighbours off file 10: 9m, 11m, 9l (10l is on the file).
    assert_eq!(t, set(&["9m", "11m", "9l"]));
    assert!(!t.contains("13m") && !t.contains("7m") && !t.contains("5k"));
}

#[test]
fn rules_8_2_right_lost_after_any_king_move() {
    let mut g = game(
        &[("fK", "1d"), ("mK", "10m"), ("lK", "10d")],
        "M",
        "-/-/-",
        "FML",
        "-",
        "FML",
    );
    play(&mut g, "K10m-10l");
    assert_eq!(
        g.position().castling_rights(),
        vec![Player::First, Player::Last]
    );
    play(&mut g, "K10d-10e");
    play(&mut g, "K1d-1c");
    // Back on Middle's turn: only steps from 10l (r11,f9).
    let t = targets(&g, "10l");
    assert!(t.len() <= 6);
    assert!(!t.contains("7m") && !t.contains("13m"));
}

#[test]
fn rules_8_2_right_lost_by_being_in_check() {
    // First's rook 9g → 10g checks Middle's king (First hour 9 = (+1,0)) and
    // Last's king (hour 3 = (−1,0)): both lose castling at once (RULES §11 step 4).
    let mut g = game(
        &[("fK", "1d"), ("mK", "10m"), ("lK", "10d"), ("fR", "9g")],
        "F",
        "-/-/-",
        "FML",
        "-",
        "FML",
    );
    play(&mut g, "R9g-10g");
    assert_eq!(g.position().castling_rights(), vec![Player::First]);
    // Middle's only way out is a step off the file; it cannot jump.
    assert!(!targets(&g, "10m").contains("13m"));
}

#[test]
fn rules_8_2_right_lost_by_check_even_when_escaped_without_the_king() {
    // Middle interposes a gold instead of moving the king: it was in check after
    // First's action, so its right is gone although its king never moved.
    let mut g = game(
        &[
            ("fK", "1d"),
            ("mK", "10m"),
            ("lK", "10d"),
            ("fR", "9g"),
            ("mG", "9l"),
        ],
        "F",
        "-/-/-",
        "FML",
        "-",
        "FML",
    );
    play(&mut g, "R9g-10g");
    // Middle gold 9l (r11,f8) hour 9 (0,+1) → 10l, between rook and king.
    play(&mut g, "G9l-10l");
    assert!(!g.position().castling_rights().contains(&Player::Middle));
    assert!(!g.position().castling_rights().contains(&Player::Last));
}
