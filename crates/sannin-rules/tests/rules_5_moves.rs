//! RULES §3 (directions) and §5 (piece moves), per player, promoted and not.
//! Expected targets come from the step table of RULES §3 (tests/common).

mod common;

use common::*;
use sannin_rules::{perft, Position};
use std::collections::BTreeSet;

const STEP6: [u8; 6] = [1, 3, 5, 7, 9, 11];
const DIAG6: [u8; 6] = [2, 4, 6, 8, 10, 12];
const ALL12: [u8; 12] = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12];

/// (code, steps, ranges) of every piece state, straight from the table of §5.
fn move_table() -> Vec<(&'static str, Vec<u8>, Vec<u8>)> {
    vec![
        ("K", STEP6.to_vec(), vec![]),
        ("+K", vec![], ALL12.to_vec()),
        ("R", vec![], vec![1, 3, 9, 11, 6]),
        ("+R", vec![], STEP6.to_vec()),
        ("B", vec![], DIAG6.to_vec()),
        ("+B", STEP6.to_vec(), DIAG6.to_vec()),
        ("G", vec![1, 3, 6, 9, 11, 12], vec![]),
        ("N", vec![2, 3, 4, 8, 9, 10], vec![]),
        ("S", vec![1, 2, 5, 7, 10, 11], vec![]),
        ("+S", vec![1, 2, 5, 7, 10, 11], vec![6, 12]),
        ("L", vec![], vec![1, 11]),
        ("+L", vec![], vec![1, 5, 7, 11]),
        ("P", vec![1, 11], vec![]),
        ("+P", vec![1, 3, 6, 9, 11, 12], vec![]),
    ]
}

/// Relabels owners Middle → First → Last → Middle and rotates cells (RULES §2).
fn rotate_pieces(pieces: &[(String, String)]) -> Vec<(String, String)> {
    pieces
        .iter()
        .map(|(p, c)| {
            let owner = match &p[..1] {
                "m" => "f",
                "f" => "l",
                _ => "m",
            };
            (format!("{owner}{}", &p[1..]), rot(c))
        })
        .collect()
}

fn borrowed(v: &[(String, String)]) -> Vec<(&str, &str)> {
    v.iter().map(|(a, b)| (a.as_str(), b.as_str())).collect()
}

/// Puts Middle's `code` piece on `from` among `extra` pieces, checks its legal
/// targets, then checks the same for First and Last in the rotated positions.
fn check_piece(code: &str, steps: &[u8], ranges: &[u8], from: &str, extra: &[(&str, &str)]) {
    let mut pieces: Vec<(String, String)> =
        vec![("fK".into(), "1d".into()), ("lK".into(), "10d".into())];
    if code.ends_with('K') {
        pieces.push((format!("m{code}"), from.into()));
    } else {
        pieces.push(("mK".into(), "10m".into()));
        pieces.push((format!("m{code}"), from.into()));
    }
    pieces.extend(extra.iter().map(|(a, b)| (a.to_string(), b.to_string())));
    let mut from = from.to_string();
    let mut mover = 'm';
    let mut to_move = "M";
    let mut position: Option<Position> = None;
    for _ in 0..3 {
        let b = borrowed(&pieces);
        let mut want = expected(&b, mover, &from, steps, ranges);
        if code.ends_with('K') {
            // A king may not move next to an enemy king (RULES §10.3: it would be in check).
            for (p, c) in &b {
                if p.ends_with('K') && !p.starts_with(mover) {
                    for h in STEP6 {
                        if let Some(n) = shift('m', c, h) {
                            want.remove(&n);
                        }
                    }
                }
            }
        }
        let g = game(&b, to_move, "-/-/-", "FML", "-", "-");
        let got = targets(&g, &from);
        assert_eq!(got, want, "{mover}{code} on {from} in {}", g.position());
        if let Some(p) = &position {
            // The crate's own rotation gives the same position (RULES §2).
            assert_eq!(p.to_string(), g.position().to_string());
        }
        position = Some(g.position().rotated());
        pieces = rotate_pieces(&pieces);
        from = rot(&from);
        (mover, to_move) = match mover {
            'm' => ('f', "F"),
            'f' => ('l', "L"),
            _ => ('m', "M"),
        };
    }
}

/// Blockers around 7g: captures on 7f, 6f, 5g, 9i; own pieces on 8f, 7i; the
/// diagonal to 6e passes between the occupied 7f and 6f (RULES §3).
const CROWDED: [(&str, &str); 6] = [
    ("fP", "7f"),
    ("lP", "6f"),
    ("mP", "8f"),
    ("fS", "5g"),
    ("lG", "9i"),
    ("mG", "7i"),
];
/// A few pieces further out, so the ranges run long.
const SPARSE: [(&str, &str); 3] = [("fP", "7c"), ("mP", "10g"), ("lS", "4j")];

#[test]
fn rules_5_every_piece_moves_per_table_for_each_player_on_empty_board() {
    for (code, steps, ranges) in move_table() {
        check_piece(code, &steps, &ranges, "7g", &[]);
        check_piece(code, &steps, &ranges, "8h", &[]);
    }
}

#[test]
fn rules_5_every_piece_moves_per_table_for_each_player_among_blockers() {
    for (code, steps, ranges) in move_table() {
        if code.ends_with('K') {
            // A king may not step next to enemy pieces' attacks; keep kings to own blockers.
            check_piece(
                code,
                &steps,
                &ranges,
                "7g",
                &[("mP", "8f"), ("mG", "7i"), ("mS", "5e")],
            );
            continue;
        }
        check_piece(code, &steps, &ranges, "7g", &CROWDED);
        check_piece(code, &steps, &ranges, "7g", &SPARSE);
        check_piece(code, &steps, &ranges, "6f", &SPARSE);
    }
}

#[test]
fn rules_3_step_table_literal_pawn_targets_for_each_player() {
    // RULES §3 table, hours 1 and 11, from 7g.
    let kings = [("fK", "1d"), ("mK", "10m"), ("lK", "10d")];
    for (p, to_move, want) in [
        ("mP", "M", ["6f", "7f"]),
        ("fP", "F", ["8g", "8h"]),
        ("lP", "L", ["7h", "6g"]),
    ] {
        let mut pieces = kings.to_vec();
        pieces.push((p, "7g"));
        let g = game(&pieces, to_move, "-/-/-", "FML", "-", "-");
        assert_eq!(targets(&g, "7g"), set(&want), "{p}");
    }
}

#[test]
fn rules_3_knight_literal_targets_for_middle() {
    // Middle's hours 2 3 4 8 9 10 from 7g: (−1,−2) 5f, (0,−1) 6g, (+1,−1) 6h,
    // (+1,+2) 9h, (0,+1) 8g, (−1,+1) 8f.
    let g = game(
        &[("fK", "1d"), ("mK", "10m"), ("lK", "10d"), ("mN", "7g")],
        "M",
        "-/-/-",
        "FML",
        "-",
        "-",
    );
    assert_eq!(
        targets(&g, "7g"),
        set(&["5f", "6g", "6h", "9h", "8g", "8f"])
    );
}

#[test]
fn rules_3_diagonal_passes_between_two_occupied_cells() {
    // Middle's hour 12 is (−2,−1) = hour 11 + hour 1; from 7g it passes between
    // 7f and 6f. Own pieces on both do not block it (RULES §3).
    let g = game(
        &[
            ("fK", "1d"),
            ("mK", "10m"),
            ("lK", "10d"),
            ("mB", "7g"),
            ("mP", "7f"),
            ("mG", "6f"),
        ],
        "M",
        "-/-/-",
        "FML",
        "-",
        "-",
    );
    let t = targets(&g, "7g");
    assert!(
        t.contains("6e") && t.contains("5c") && t.contains("4a"),
        "{t:?}"
    );
    // A piece standing ON the ray blocks it.
    let g = game(
        &[
            ("fK", "1d"),
            ("mK", "10m"),
            ("lK", "10d"),
            ("mB", "7g"),
            ("mP", "6e"),
        ],
        "M",
        "-/-/-",
        "FML",
        "-",
        "-",
    );
    let t = targets(&g, "7g");
    assert!(!t.contains("6e") && !t.contains("5c"), "{t:?}");
}

#[test]
fn rules_4_first_bishop_takes_10k_between_the_pawns() {
    // RULES §4: B2gx10k+ is legal on move 1; First's hour 12 is (+1,+2).
    let mut g = sannin_rules::Game::new();
    assert!(legal(&g, "B2gx10k+"));
    assert!(legal(&g, "B2gx10k="));
    play(&mut g, "B2gx10k+");
    assert!(g.position().to_string().starts_with(
        "lL1lP1fP1fL/lSlBlP2fPfRfS/lG1lP3fP1fG/lK1lP4fP1fK/lG1lN5fN1fG/lS1lP6fP1fS/lLlRlP7fP1fL/1lP8fP1/lP9fP/10/mPmPmPf+BmNmPmPmPmP/"
    ));
}

#[test]
fn rules_4_start_position_string_and_perft() {
    let s = Position::start().to_string();
    assert_eq!(
        s,
        "lL1lP1fP1fL/lSlBlP2fPfRfS/lG1lP3fP1fG/lK1lP4fP1fK/lG1lN5fN1fG/lS1lP6fP1fS/lLlRlP7fPfBfL/1lP8fP1/lP9fP/10/mPmPmPmPmNmPmPmPmP/1mB4mR1/mLmSmGmKmGmSmL F -/-/- FML - FML"
    );
    // The setup is symmetric under the rotation of RULES §2; only the player to move changes.
    assert_eq!(
        Position::start().rotated().to_string(),
        s.replace(" F -/", " L -/")
    );
    assert_eq!(perft(&Position::start(), 1), 48);
    assert_eq!(perft(&Position::start(), 2), 2302);
}

#[test]
fn rules_5_promoted_rook_loses_its_hour_6_range() {
    // "The promoted column is the piece's complete move set (a +R no longer ranges 6)."
    let base = [("fK", "1d"), ("mK", "10m"), ("lK", "10d")];
    let mut p = base.to_vec();
    p.push(("mR", "7g"));
    let t = targets(&game(&p, "M", "-/-/-", "FML", "-", "-"), "7g");
    assert!(t.contains("8i") && t.contains("9k"));
    let mut p = base.to_vec();
    p.push(("m+R", "7g"));
    let t = targets(&game(&p, "M", "-/-/-", "FML", "-", "-"), "7g");
    assert!(!t.contains("8i") && !t.contains("9k"));
    assert!(t.contains("7h") && t.contains("7l") && t.contains("8h"));
}

#[test]
fn rules_6_1_no_move_captures_a_king() {
    // A Middle rook on 7g with First's king on its hour 11 ray at 7c: 7d is
    // reachable, 7c is not (RULES §6.1).
    let g = game(
        &[("fK", "7c"), ("mK", "10m"), ("lK", "10d"), ("mR", "7g")],
        "M",
        "-/-/-",
        "FML",
        "-",
        "-",
    );
    let t = targets(&g, "7g");
    assert!(t.contains("7d"));
    assert!(!t.contains("7c"));
    let mut g = g;
    assert!(g
        .play_notation(sannin_rules::Player::Middle, "R7gx7c")
        .is_err());
}

#[test]
fn rules_5_gold_and_knight_never_promote() {
    // Middle knight 4e (r4,f3) hour 2 (−1,−2) → 2d, in First's territory (files 1–3);
    // Middle gold 4f (r5,f3) hour 3 (0,−1) → 3f, also First's territory. Neither
    // kind promotes (RULES §5), so no "+" or "=" form exists.
    let g = game(
        &[
            ("fK", "1g"),
            ("mK", "10m"),
            ("lK", "10d"),
            ("mN", "4e"),
            ("mG", "4f"),
        ],
        "M",
        "-/-/-",
        "FML",
        "-",
        "-",
    );
    let n = actions_from(&g, "4e");
    assert!(n.contains("N4e-2d"), "{n:?}");
    assert!(
        n.iter().all(|a| !a.ends_with('+') && !a.ends_with('=')),
        "{n:?}"
    );
    // Gold 4f (5,3) hour 3 (0,−1) → 3f (5,2), First's territory.
    let gd = actions_from(&g, "4f");
    assert!(gd.contains("G4f-3f"), "{gd:?}");
    assert!(
        gd.iter().all(|a| !a.ends_with('+') && !a.ends_with('=')),
        "{gd:?}"
    );
}

#[test]
fn rules_5_ranges_stop_at_the_first_occupied_cell() {
    // Middle lance on 7k: hour 11 ray 7j, 7i, then an own pawn on 7h blocks.
    let g = game(
        &[
            ("fK", "1d"),
            ("mK", "10m"),
            ("lK", "10d"),
            ("mL", "7k"),
            ("mP", "7h"),
            ("fG", "6j"),
        ],
        "M",
        "-/-/-",
        "FML",
        "-",
        "-",
    );
    // Hour 1 (−1,−1) from 7k (10,6): 6j (9,5) holds First's gold: capture, stop.
    let want: BTreeSet<String> = set(&["7j", "7i", "6j"]);
    assert_eq!(targets(&g, "7k"), want);
}
