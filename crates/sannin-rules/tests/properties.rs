//! Property tests over random playouts (proptest): no panics, generated
//! actions are accepted, round trips hold, and the 120° rotation (RULES §2)
//! preserves the number of legal actions.

use proptest::prelude::*;
use sannin_rules::{Action, Cell, Event, Game, Player, Position, Role};

/// Cases per property: `PROPTEST_CASES` if set (for long runs), else `default`.
fn cases(default: u32) -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Plays `choices` as indices into the legal-action list, checking every
/// property along the way.
fn playout(start: Position, choices: &[u16]) {
    let mut game = Game::from_position(start);
    for &c in choices {
        let Some(mover) = game.to_move() else { break };
        let pos = game.position().clone();
        // Position strings round-trip (RULES §13.3).
        let text = pos.to_string();
        assert_eq!(text.parse::<Position>().unwrap().to_string(), text);
        // So does the plain data of a `Setup`.
        // The same position built afresh has the same repetition key, however
        // the game reached it (RULES §11 step 8).
        let back = Position::from_setup(pos.to_setup()).unwrap();
        assert_eq!(back.repetition_key(), pos.repetition_key(), "{text}");
        assert_eq!(back, pos, "{text}");
        let legal = game.legal_actions();
        let names = game.legal_notation();
        assert_eq!(legal.len(), names.len());
        // Notation round-trips: canonical text reads back as the same action.
        for (a, name) in legal.iter().zip(&names) {
            assert_eq!(game.parse_action(name).unwrap(), *a, "{name} in {text}");
        }
        // Rotation by 120° keeps the number of legal actions (no history in either).
        let fresh = Game::from_position(pos.clone()).legal_actions().len();
        assert_eq!(
            Game::from_position(pos.rotated()).legal_actions().len(),
            fresh,
            "{text}"
        );
        if legal.is_empty() {
            break;
        }
        let a = legal[c as usize % legal.len()];
        // Preparing resolves exactly what playing does.
        let prepared = game.prepare(mover, a).unwrap();
        let played = game
            .play(a)
            .unwrap_or_else(|e| panic!("generated {a:?} rejected: {e} in {text}"));
        assert_eq!(played.player, mover);
        assert_eq!(prepared.position(), game.position());
        assert_eq!(prepared.events(), played.events.as_slice());
        // RULES §10.3 judges the mover's king after step 1 of §11, where it is
        // never in check. Two later steps can still leave it in check: an
        // alliance forming promotes the unallied king, which may give check
        // (§12.5, D11), and a mated player's pieces leave the board (§11 step 6),
        // which may open a line. Nothing else may.
        if game.position().in_check(mover) {
            assert!(
                played
                    .events
                    .iter()
                    .any(|e| matches!(e, Event::AllianceFormed { .. } | Event::Eliminated { .. })),
                "{:?} left {mover} in check in {text}",
                played.action
            );
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(24), ..ProptestConfig::default() })]

    #[test]
    fn random_playouts_keep_every_invariant(choices in prop::collection::vec(any::<u16>(), 1..90)) {
        playout(Position::start(), &choices);
    }

    #[test]
    fn random_allied_playouts_keep_every_invariant(choices in prop::collection::vec(any::<u16>(), 1..60)) {
        playout(Position::voluntary_alliance_start(), &choices);
    }
}

fn arb_cell() -> impl Strategy<Value = Cell> {
    (0usize..127).prop_map(|i| Cell::from_index(i).unwrap())
}

fn arb_action() -> impl Strategy<Value = Action> {
    prop_oneof![
        (arb_cell(), arb_cell(), any::<bool>()).prop_map(|(from, to, promote)| Action::Move {
            from,
            to,
            promote
        }),
        (0usize..8, arb_cell()).prop_map(|(r, to)| Action::Drop {
            role: Role::ALL[r],
            to
        }),
        arb_cell().prop_map(|from| Action::Illuminate { from }),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(400), ..ProptestConfig::default() })]

    /// Fuzz: arbitrary text never panics the position parser.
    #[test]
    fn position_parser_never_panics(s in "\\PC{0,200}") {
        let _ = s.parse::<Position>();
    }

    /// Fuzz: mutations of a real position string never panic and, when
    /// accepted, round-trip.
    #[test]
    fn mutated_position_strings_never_panic(i in 0usize..300, ch in "[fml+KRBGSNLP0-9/ FML-]") {
        let start = Position::start().to_string();
        let mut s: Vec<char> = start.chars().collect();
        let i = i % s.len();
        s[i] = ch.chars().next().unwrap();
        let s: String = s.into_iter().collect();
        if let Ok(p) = s.parse::<Position>() {
            prop_assert_eq!(p.to_string().parse::<Position>().unwrap().to_string(), p.to_string());
        }
    }

    /// Fuzz: arbitrary text never panics the notation parser.
    #[test]
    fn notation_parser_never_panics(s in "\\PC{0,24}", t in "[+]?[KRBGSNLPX][0-9]{0,2}[a-n]?[-x*!]?[0-9]{0,2}[a-n]?[+=!]?") {
        let game = Game::new();
        let _ = game.parse_action(&s);
        let _ = game.parse_action(&t);
    }

    /// Fuzz: arbitrary actions after an arbitrary opening: `play` accepts
    /// exactly the generated actions (the legals-are-legal property).
    #[test]
    fn play_accepts_exactly_the_generated_actions(opening in prop::collection::vec(any::<u16>(), 0..40), tries in prop::collection::vec(arb_action(), 1..40)) {
        let mut game = Game::new();
        for c in opening {
            let legal = game.legal_actions();
            if legal.is_empty() { break; }
            game.play(legal[c as usize % legal.len()]).unwrap();
        }
        let legal = game.legal_actions();
        for a in tries {
            let mut g = game.clone();
            let accepted = g.play(a).is_ok();
            prop_assert_eq!(accepted, legal.contains(&a), "{:?} in {}", a, game.position());
            if !accepted {
                prop_assert_eq!(g.position().to_string(), game.position().to_string());
            }
        }
    }
}

/// A playout found by the property test: First's `L1a-2a` forms a First–Last
/// alliance by double attack, and Middle's king, promoted by it, checks First
/// (D11) — legal, since §10.3 judges the position after step 1.
#[test]
fn alliance_promotion_may_check_the_mover() {
    let choices = [
        33260, 22285, 15104, 61739, 44974, 36436, 42303, 50771, 24986, 20199, 9903, 35177, 13070,
        45352, 49034, 16507, 47091, 47461, 13864, 37716, 30833, 30176, 34133, 41437, 62130, 61179,
        4254, 33172, 1845, 17101, 18509, 50712, 9111, 50599, 8521, 61025, 17655, 45742, 53322,
        50052, 24123,
    ];
    playout(Position::start(), &choices);
    let mut game = Game::new();
    let mut seen = false;
    for c in choices {
        let legal = game.legal_actions();
        let Some(mover) = game.to_move() else { break };
        let played = game.play(legal[c as usize % legal.len()]).unwrap();
        if game.position().in_check(mover) {
            assert!(played
                .events
                .iter()
                .any(|e| matches!(e, Event::AllianceFormed { .. })));
            seen = true;
            break;
        }
    }
    assert!(seen, "the playout no longer reaches the case");
}

#[test]
fn every_player_sees_the_same_start() {
    let g = Game::new();
    assert_eq!(g.to_move(), Some(Player::First));
    assert_eq!(g.legal_actions().len(), 48);
}

/// Found by `notation_parser_never_panics`: a multi-byte character where the
/// rank letter belongs once cut a character in half.
#[test]
fn notation_with_multibyte_text_is_an_error_not_a_panic() {
    let game = Game::new();
    for text in ["68𝈓o", "P3𝈓-4d", "P3c-4𝈓", "+K7𝈓!", "P*5é", "é"] {
        assert!(game.parse_action(text).is_err(), "{text}");
    }
}
