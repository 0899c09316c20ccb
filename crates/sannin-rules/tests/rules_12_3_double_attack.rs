//! RULES §12.3 double attack built on a mate threat (§12.1), and the defence
//! exception (§12.4) for a double attack.
//!
//! Expectations are derived from RULES.md; the geometry is worked out from the
//! step table of RULES §3 in the comments. Cell (r, f): r = rank index
//! (a = 0), f = file − 1 (RULES §1).

mod common;

use common::*;
use sannin_rules::{AllianceCause, Event, Player, Role};

use Player::{First, Last, Middle};

/// Last's king in the corner 7a (neighbours 6a, 7b, 8b) with its pawn 6a and
/// knight 8b; Last's piece `p1` on 11h. Middle's knight on 7c, a lance in
/// Middle's hand. First's pawn on 9g.
///
/// B1 = First plays P9g-10h (First hour 11 = (+1,+1)): from 10h (r7,f9) the
/// pawn attacks 11h (hour 1 = (0,+1)) and 11i. Against a gold or a rook that
/// is an unequal exchange (P < G, P < R): the threat (First, p1) is created.
///
/// A = Middle plays N7c-6c (Middle hour 3 = (0,−1)). From 6c (r2,f5) the
/// knight attacks 4b, 5c, 5d, 8d, 7c and 7b (hour 10 = (−1,+1)); it gives no
/// check. It creates a mate threat (Middle, Last's king): L*7b — a Middle
/// lance on 7b attacks 7a (hour 11 = (−1,0)); the king cannot take it (the
/// knight defends 7b), cannot go to 6a or 8b (its own pieces), and no Last
/// piece reaches 7b (pawn 6a → 6b, 5a; knight 8b → 9d, 9c; p1 is far). With
/// the knight on 7c there was no such mate: 7b was undefended (the knight on
/// 7c attacks 5b, 6c, 6d, 9d, 8c, 8b), so the king would take a lance on 7b,
/// and a lance lower on file 7 was blocked by the knight itself.
///
/// No discovered attack is involved: neither side has a ranged piece on a line
/// through 9g or 7c. No piece of First or Middle attacks the other's king.
///
/// Built as a [`sannin_rules::Setup`], without a position string.
fn double_attack(p1: Role, extra: &[(Player, Role, &str)]) -> sannin_rules::Game {
    let mut v = vec![
        (First, Role::King, "1d"),
        (First, Role::Pawn, "9g"),
        (Middle, Role::King, "10m"),
        (Middle, Role::Knight, "7c"),
        (Last, Role::King, "7a"),
        (Last, Role::Pawn, "6a"),
        (Last, Role::Knight, "8b"),
        (Last, p1, "11h"),
    ];
    v.extend_from_slice(extra);
    let mut s = setup(First, &v);
    s.hands.middle.lance = 1;
    game_from(s)
}

#[test]
fn rules_12_3_double_attack_with_a_mate_threat_forms_an_alliance() {
    let mut g = double_attack(Role::Gold, &[]);
    let ev = play(&mut g, "P9g-10h");
    assert_eq!(alliance_formed(&ev), None, "{ev:?}");
    let ev = play(&mut g, "N7c-6c");
    assert!(
        !ev.iter().any(|e| matches!(e, Event::Check { .. })),
        "the mate threat is no check: {ev:?}"
    );
    // (First, gold 11h) was created by B1 and still exists; (Middle, Last's
    // king) is a mate threat created by A. Can Last meet both (judged on the
    // position after step 1 of A's action, i.e. before any alliance effect)?
    // Last's legal actions:
    // - king: none (6a, 8b own; 7b attacked by the knight);
    // - gold 11h (Last steps 1 → 11i, 3 → 12i, 6 → 12g, 9 → 10g, 11 → 10h,
    //   12 → 10i): to 11i it stays attacked by the pawn; to 12i, 12g, 10g, 10i
    //   or taking the pawn on 10h it escapes (a pawn in hand cannot block an
    //   adjacent lance), but L*7b still mates;
    // - pawn 6a → 6b/5a or knight 8b → 9d/9c: frees 6a or 8b (neither
    //   attacked by Middle), which answers the mate threat, but the gold stays
    //   attacked by the pawn.
    // No action meets both: First (B1) and Middle (A) qualify (§12.3).
    assert_eq!(
        alliance_formed(&ev),
        Some(([First, Middle], AllianceCause::Double)),
        "{ev:?}"
    );
    assert_eq!(g.position().alliance(), Some((First, Middle)));
    // §12.5: the unallied king promotes at once.
    assert!(
        ev.iter().any(|e| matches!(
            e,
            Event::Promoted {
                piece: Role::King,
                player: Last,
                ..
            }
        )),
        "{ev:?}"
    );
    assert!(
        g.position()
            .piece_at("7a".parse().unwrap())
            .unwrap()
            .promoted
    );
    assert_eq!(g.to_move(), Some(Last));
}

#[test]
fn rules_12_3_mate_threat_double_attack_that_c_can_meet_forms_nothing() {
    // The same actions, but p1 is a rook. From 11h Last's rook ranges hour 9
    // (−1,−1) through 10g, 9f, 8e, 7d onto 6c and can take the knight: R11hx6c
    // leaves the pawn's attack (no First piece attacks 6c) and ends the mate
    // threat — the knight no longer defends 7b (the king takes a lance
    // dropped there), and against L*7c the rook on 6c covers 7b (hour 6 =
    // (−1,+1)) and Last now holds a knight to drop on 7b. One action meets
    // both threats: no alliance (§12.3).
    let mut g = double_attack(Role::Rook, &[]);
    play(&mut g, "P9g-10h");
    let ev = play(&mut g, "N7c-6c");
    assert_eq!(alliance_formed(&ev), None, "{ev:?}");
    assert_eq!(g.position().alliance(), None);
    assert!(legal(&g, "R11hx6c"));
    assert_eq!(g.to_move(), Some(Last));
}

#[test]
fn rules_12_4_double_attack_whose_first_action_was_a_direct_defence_forms_nothing() {
    // As in the first test, plus a Middle gold on 8g (r6,f7). It attacks 9g
    // (Middle hour 9 = (0,+1)) but not 10h (its targets are 7f, 7g, 9i, 9g,
    // 8f, 7e). Before B1's action First's pawn on 9g was en prise to Middle
    // (attacked, no First piece defends it); after P9g-10h, (Middle, pawn) no
    // longer exists. B1's action was a direct defence: the pair First+Middle
    // does not qualify (§12.4), though the double attack itself is exactly as
    // in the first test (the gold on 8g changes none of Last's answers, and
    // Middle's knight was under no threat before A's action).
    let mut g = double_attack(Role::Gold, &[(Middle, Role::Gold, "8g")]);
    let ev = play(&mut g, "P9g-10h");
    assert_eq!(alliance_formed(&ev), None, "{ev:?}");
    let ev = play(&mut g, "N7c-6c");
    assert_eq!(alliance_formed(&ev), None, "{ev:?}");
    assert_eq!(g.position().alliance(), None);
    assert!(
        !g.position()
            .piece_at("7a".parse().unwrap())
            .unwrap()
            .promoted
    );
    assert_eq!(g.to_move(), Some(Last));
}
