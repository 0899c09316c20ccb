//! RULES §7: promotion zones, optional and forced promotion, allied players.
//! Territories (RULES §1): First files 1–3 (f ≤ 2), Middle ranks k–m (r ≥ 10),
//! Last the cells with f − r ≥ 4.

mod common;

use common::*;
use sannin_rules::{Game, IllegalAction, PlayError, Player};
use std::collections::BTreeSet;

const KINGS: [(&str, &str); 3] = [("fK", "1g"), ("mK", "10m"), ("lK", "10d")];

fn with(extra: &[(&'static str, &'static str)]) -> Vec<(&'static str, &'static str)> {
    let mut v = KINGS.to_vec();
    v.extend_from_slice(extra);
    v
}

/// Checks `want` as the full set of actions of the piece on `from` for Middle,
/// then the rotated sets for First and Last in the rotated positions (RULES §2).
fn check_rotated(g: Game, from: &str, want: &[&str]) {
    let mut g = g;
    let mut from = from.to_string();
    let mut want: BTreeSet<String> = set(want);
    for _ in 0..3 {
        assert_eq!(actions_from(&g, &from), want, "{from} in {}", g.position());
        g = Game::from_position(g.position().rotated());
        from = rot(&from);
        want = want.iter().map(|a| rot_action(a)).collect();
    }
}

fn illegal(g: &mut Game, text: &str) -> IllegalAction {
    let p = g.to_move().unwrap();
    match g.play_notation(p, text) {
        Err(PlayError::Illegal(e)) => e,
        other => panic!("{text}: expected an illegal action, got {other:?}"),
    }
}

#[test]
fn rules_7_2_may_promote_moving_into_another_players_territory() {
    // Middle silver 9f (r5,f8; f−r = 3, arena). Hour 10 → 10e (f−r = 5) and hour 11
    // → 9e (f−r = 4) end in Last's territory; hour 1 → 8e (f−r = 3) does not.
    let g = game(&with(&[("mS", "9f")]), "M", "-/-/-", "FML", "-", "-");
    check_rotated(
        g,
        "9f",
        &[
            "S9f-10e+", "S9f-10e=", "S9f-9e+", "S9f-9e=", "S9f-8e", "S9f-7e", "S9f-9g", "S9f-10g",
        ],
    );
}

#[test]
fn rules_7_2_may_promote_moving_out_of_another_players_territory() {
    // Middle silver on 3e (First's territory): every move starts in a zone.
    let g = game(&with(&[("mS", "3e")]), "M", "-/-/-", "FML", "-", "-");
    // Hours 1 2 5 7 10 11: 2d, 1d, 3f, 4f, 4d, 3d.
    check_rotated(
        g,
        "3e",
        &[
            "S3e-2d+", "S3e-2d=", "S3e-1d+", "S3e-1d=", "S3e-3f+", "S3e-3f=", "S3e-4f+", "S3e-4f=",
            "S3e-4d+", "S3e-4d=", "S3e-3d+", "S3e-3d=",
        ],
    );
}

#[test]
fn rules_7_1_own_territory_is_not_a_promotion_zone() {
    // Middle silver on 7k (Middle's own territory) to 7j/6j (arena) or 8l/7l: no promotion.
    let g = game(&with(&[("mS", "7k")]), "M", "-/-/-", "FML", "-", "-");
    assert!(actions_from(&g, "7k")
        .iter()
        .all(|a| !a.ends_with('+') && !a.ends_with('=')));
    assert!(actions_from(&g, "7k").contains("S7k-7j"));
}

#[test]
fn rules_7_2_into_and_out_of_the_pleasure_garden() {
    let g = game(&with(&[("mS", "7h")]), "M", "-/-/-", "FML", "-", "-");
    let a = actions_from(&g, "7h");
    assert!(a.contains("S7h-7g+") && a.contains("S7h-7g="), "{a:?}");
    assert!(a.contains("S7h-6g") && !a.contains("S7h-6g+"), "{a:?}");
    let g = game(&with(&[("mS", "7g")]), "M", "-/-/-", "FML", "-", "-");
    let a = actions_from(&g, "7g");
    assert!(
        a.contains("S7g-7f+") && a.contains("S7g-8h+") && a.contains("S7g-5f+"),
        "{a:?}"
    );
}

#[test]
fn rules_7_2_passing_through_the_garden_does_not_count() {
    // Middle rook 7i, hour 11 ray 7h 7g 7f 7e 7d 7c 7b 7a. 7f..7d are arena;
    // 7c..7a are Last's territory (f − r ≥ 4).
    let g = game(&with(&[("mR", "7i")]), "M", "-/-/-", "FML", "-", "-");
    let a = actions_from(&g, "7i");
    assert!(a.contains("R7i-7g+"), "{a:?}");
    assert!(
        a.contains("R7i-7f") && !a.contains("R7i-7f+") && !a.contains("R7i-7f="),
        "{a:?}"
    );
    assert!(a.contains("R7i-7d") && !a.contains("R7i-7d+"), "{a:?}");
    assert!(a.contains("R7i-7c+") && a.contains("R7i-7a+"), "{a:?}");
}

#[test]
fn rules_7_2_territory_of_an_eliminated_player_still_counts() {
    // "in the territory of either other player (eliminated or not)"
    let g = game(
        &[("fK", "1g"), ("mK", "10m"), ("mS", "9f")],
        "M",
        "-/-/-",
        "FM",
        "-",
        "-",
    );
    let a = actions_from(&g, "9f");
    assert!(a.contains("S9f-10e+"), "{a:?}");
}

#[test]
fn rules_7_1_king_does_not_promote_via_the_pleasure_garden() {
    // A Middle king standing on 7g moves out: all neighbours are arena cells, and
    // the Garden is not a zone for a king.
    let g = game(
        &[("fK", "1g"), ("mK", "7g"), ("lK", "10d")],
        "M",
        "-/-/-",
        "FML",
        "-",
        "-",
    );
    let a = actions_from(&g, "7g");
    assert_eq!(a.len(), 6, "{a:?}");
    assert!(
        a.iter().all(|x| !x.ends_with('+') && !x.ends_with('=')),
        "{a:?}"
    );
    // Into the Garden: no promotion offered either.
    let g = game(
        &[("fK", "1g"), ("mK", "7h"), ("lK", "10d")],
        "M",
        "-/-/-",
        "FML",
        "-",
        "-",
    );
    let a = actions_from(&g, "7h");
    assert!(a.contains("K7h-7g"), "{a:?}");
    assert!(!a.contains("K7h-7g+") && !a.contains("K7h-7g="), "{a:?}");
}

#[test]
fn rules_7_2_king_may_promote_in_enemy_territory() {
    // Middle king 7c (f−r = 4, Last's territory) to 7b: may promote.
    let mut g = game(
        &[("fK", "1g"), ("mK", "7c"), ("lK", "13m")],
        "M",
        "-/-/-",
        "FML",
        "-",
        "-",
    );
    let a = actions_from(&g, "7c");
    assert!(a.contains("K7c-7b+") && a.contains("K7c-7b="), "{a:?}");
    play(&mut g, "K7c-7b+");
    assert_eq!(
        g.position()
            .piece_at("7b".parse().unwrap())
            .map(|p| p.promoted),
        Some(true)
    );
}

#[test]
fn rules_7_3_pawn_must_promote_on_last_rank() {
    // Middle pawn 3b: hour 11 → 3a, hour 1 → 2a, both rank a (no further move) and
    // in First's territory: promotion is forced.
    let g = game(&with(&[("mP", "3b")]), "M", "-/-/-", "FML", "-", "-");
    check_rotated(g, "3b", &["P3b-3a+", "P3b-2a+"]);
    let mut g = game(&with(&[("mP", "3b")]), "M", "-/-/-", "FML", "-", "-");
    assert!(matches!(
        illegal(&mut g, "P3b-3a="),
        IllegalAction::MustPromote { .. }
    ));
    assert!(matches!(
        illegal(&mut g, "P3b-3a"),
        IllegalAction::MustPromote { .. }
    ));
}

#[test]
fn rules_7_3_middle_pawn_and_lance_can_never_reach_4a_unpromoted() {
    // 4a (r0,f3): depth_First 3, depth_Last 3 — outside every zone, and dead for Middle.
    let g = game(&with(&[("mP", "4b")]), "M", "-/-/-", "FML", "-", "-");
    check_rotated(g, "4b", &["P4b-3a+"]);
    let mut g = game(&with(&[("mP", "4b")]), "M", "-/-/-", "FML", "-", "-");
    assert!(g.play_notation(Player::Middle, "P4b-4a").is_err());
    assert!(g.play_notation(Player::Middle, "P4b-4a+").is_err());
    // Lance 4c: hour 11 ray 4b (allowed, no zone), 4a (never); hour 1 ray 3b
    // (First's territory, optional), 2a (forced).
    let g = game(&with(&[("mL", "4c")]), "M", "-/-/-", "FML", "-", "-");
    check_rotated(g, "4c", &["L4c-4b", "L4c-3b+", "L4c-3b=", "L4c-2a+"]);
}

#[test]
fn rules_7_3_lance_forced_promotion_for_first_on_file_13() {
    // First lance on 12i (r8,f11, f−r = 3: arena): hour 1 (0,+1) → 13i, hour 11
    // (+1,+1) → 13j. File 13 is First's dead edge. 13i is Last's territory
    // (f−r = 4): forced promotion. 13j (r9, f−r = 3) is in no zone: the lance
    // can never go there (RULES §7.3, D1).
    let g = game(
        &[("fK", "1d"), ("mK", "10m"), ("lK", "10d"), ("fL", "12i")],
        "F",
        "-/-/-",
        "FML",
        "-",
        "-",
    );
    assert_eq!(actions_from(&g, "12i"), set(&["L12i-13i+"]));
}

#[test]
fn rules_7_4_allied_players_cannot_promote() {
    // Alliance ML; Middle's silver into Last's territory, pawn to rank a.
    let g = game(
        // Last's king far away: a Middle silver on 10e/9e would attack 10d, and
        // an ally may not check an ally (RULES §10.3).
        &[
            ("f+K", "1g"),
            ("mK", "10m"),
            ("lK", "13m"),
            ("mS", "9f"),
            ("mP", "3b"),
        ],
        "M",
        "-/-/-",
        "FML",
        "ML",
        "-",
    );
    let s = actions_from(&g, "9f");
    assert!(s.contains("S9f-10e"), "{s:?}");
    assert!(s.iter().all(|a| !a.ends_with('+')), "{s:?}");
    // The pawn would have to promote on 3a/2a and cannot: it has no move (RULES §7.3).
    assert!(actions_from(&g, "3b").is_empty());
    let mut g = g;
    assert!(matches!(
        illegal(&mut g, "S9f-10e+"),
        IllegalAction::AlliedCannotPromote
    ));
}

#[test]
fn rules_7_4_unallied_player_still_promotes_and_allied_promoted_pieces_stay() {
    // Alliance ML; First is unallied.
    let g = game(
        &[
            ("f+K", "1g"),
            ("mK", "10m"),
            ("lK", "10d"),
            ("fS", "8j"),
            ("m+R", "9l"),
        ],
        "F",
        "-/-/-",
        "FML",
        "ML",
        "-",
    );
    // First silver 8j (r9,f7): hour 11 (+1,+1) → 9k (r10): Middle's territory.
    let a = actions_from(&g, "8j");
    assert!(a.contains("S8j-9k+") && a.contains("S8j-9k="), "{a:?}");
    // The allied m+R on 9l may be captured and promotion is offered (start r9, end r11).
    assert!(a.contains("S8jx9l+"), "{a:?}");
    assert!(g.position().to_string().contains("m+R"));
}
