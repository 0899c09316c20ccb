//! RULES §11: resolving an action — immediate mate (steps 5–7) and the loss
//! with no legal action (step 9, D5).

mod common;

use common::*;
use sannin_rules::{EndReason, Event, Game, LossReason, Player};

use Player::{First, Last, Middle};

/// Middle's king in the corner 7m (neighbours 8m, 7l, 6l), boxed by its own
/// pawns on 8m and 7l; First's gold 6k covers 6l (First hour 9 = (+1,0)).
/// First's gold dropped on 6l checks 7m (First hour 11 = (+1,+1)): mate.
fn corner() -> Vec<(&'static str, &'static str)> {
    vec![
        ("mK", "7m"),
        ("mP", "8m"),
        ("mP", "7l"),
        ("fG", "6k"),
        ("fK", "1d"),
        ("lK", "10d"),
    ]
}

#[test]
fn rules_11_5_mate_is_immediate_and_the_mating_player_moves_next() {
    let mut g = game(&corner(), "F", "G/-/-", "FML", "-", "-");
    let ev = play(&mut g, "G*6l");
    assert!(
        ev.contains(&Event::Mated {
            player: Middle,
            by: Some(First)
        }),
        "{ev:?}"
    );
    assert!(
        ev.contains(&Event::Eliminated {
            player: Middle,
            reason: LossReason::Mated
        }),
        "{ev:?}"
    );
    // Step 6: the mated player's pieces, on the board and in hand, leave the game.
    let p = g.position();
    assert!(p.pieces().iter().all(|(_, piece)| piece.owner != Middle));
    assert_eq!(p.active(), vec![First, Last]);
    // Step 7: the mating player (First, who just acted) moves again.
    assert_eq!(g.to_move(), Some(First));
}

#[test]
fn rules_11_7_turn_passes_to_the_mating_player_in_rotated_position() {
    // Rotated: Last mates First. Without the mate, First would come next;
    // with First gone Middle would; but the mating player Last moves again.
    let s = pos(&corner(), "F", "G/-/-", "FML", "-", "-");
    let rotated = s.parse::<sannin_rules::Position>().unwrap().rotated();
    let mut g = Game::from_position(rotated);
    assert_eq!(g.to_move(), Some(Last));
    let ev = play(&mut g, &rot_action("G*6l"));
    assert!(
        ev.contains(&Event::Mated {
            player: First,
            by: Some(Last)
        }),
        "{ev:?}"
    );
    assert_eq!(g.to_move(), Some(Last));
    assert_eq!(g.position().active(), vec![Middle, Last]);
}

#[test]
fn rules_11_6_last_player_left_wins() {
    // Last already out: mating Middle leaves First alone.
    let v: Vec<_> = corner()
        .into_iter()
        .filter(|(p, _)| !p.starts_with('l'))
        .collect();
    let mut g = game(&v, "F", "G/-/-", "FM", "-", "-");
    let ev = play(&mut g, "G*6l");
    assert!(
        ev.iter().any(|e| matches!(
            e,
            Event::GameOver {
                reason: EndReason::LastPlayer,
                ..
            }
        )),
        "{ev:?}"
    );
    let o = g.outcome().unwrap();
    assert_eq!(o.winners, vec![First]);
    assert_eq!(o.ranking, vec![First, Middle, Last]);
    assert_eq!(g.to_move(), None);
    assert!(g.legal_notation().is_empty());
    assert!(
        g.position().to_string().contains(" - G/-/- F - -")
            || g.position().to_string().contains(" - -/-/- F - -")
    );
}

#[test]
fn rules_11_9_no_legal_action_without_check_loses() {
    // Middle has only its king on 7m. First's silver 8l → 9m (First hour 11)
    // covers 8m (First hour 7 = (0,−1)); First's gold 6k covers 6l and 7l. 7m
    // itself is not attacked: Middle is not in check but has no legal action.
    let mut g = game(
        &[
            ("mK", "7m"),
            ("fG", "6k"),
            ("fS", "8l"),
            ("fK", "1d"),
            ("lK", "10d"),
        ],
        "F",
        "-/-/-",
        "FML",
        "-",
        "-",
    );
    let ev = play(&mut g, "S8l-9m=");
    assert!(
        !ev.iter()
            .any(|e| matches!(e, Event::Check { player: Middle, .. })),
        "{ev:?}"
    );
    assert!(
        ev.contains(&Event::Eliminated {
            player: Middle,
            reason: LossReason::NoLegalAction
        }),
        "{ev:?}"
    );
    // No mating player: play passes on in order, to Last (D5).
    assert!(
        !ev.contains(&Event::Mated {
            player: Middle,
            by: Some(First)
        }),
        "{ev:?}"
    );
    assert_eq!(g.to_move(), Some(Last));
    assert_eq!(g.position().active(), vec![First, Last]);
}

#[test]
fn rules_10_3_no_action_may_leave_the_movers_king_in_check() {
    // Middle's gold 10l shields the king 10m from Last's rook on 10g (Last hour 1).
    let g = game(
        &[
            ("fK", "1d"),
            ("mK", "10m"),
            ("lK", "10d"),
            ("lR", "10g"),
            ("mG", "10l"),
        ],
        "M",
        "-/-/-",
        "FML",
        "-",
        "-",
    );
    // The gold may only move along the file (hours 11 → 10k, …): Middle gold
    // hours 1 (−1,−1) 9k, 3 (0,−1) 9l, 9 (0,+1) 11l, 11 (−1,0) 10k, 6, 12.
    let t = targets(&g, "10l");
    assert_eq!(t, set(&["10k"]), "{t:?}");
}
