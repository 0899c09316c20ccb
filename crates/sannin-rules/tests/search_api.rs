//! The allocation-free search API ([`Position::legal_actions_into`],
//! [`Position::legal_captures_into`], [`Position::has_legal_action`],
//! [`Position::is_active`], [`Position::piece_counts`],
//! [`Position::occupied_by`]) against the plain one
//! ([`Position::legal_actions`], [`Position::play`], [`Position::active`],
//! [`Position::pieces`]) on positions from seeded random
//! playouts, and the results of playing every legal action (position strings
//! and events, RULES §11) against digests recorded in `search_api.digest`;
//! perft's count of the last ply against the number of legal actions.
//!
//! `SANNIN_WRITE_DIGEST=1 cargo test -p sannin-rules --test search_api`
//! rewrites the digest file; do that only for a deliberate change of the rules.

use sannin_rules::{perft, Action, AllianceCause, Event, Game, Player, Position};

/// SplitMix64, so the playouts are the same on every machine.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: usize) -> usize {
        ((self.next() as u128 * n as u128) >> 64) as usize
    }
}

/// FNV-1a, a digest that does not change between Rust releases.
#[derive(Clone, Copy)]
struct Fnv(u64);

impl Fnv {
    fn new() -> Fnv {
        Fnv(0xCBF2_9CE4_8422_2325)
    }
    fn add(&mut self, s: &str) {
        for b in s.bytes().chain([0xFF]) {
            self.0 ^= b as u64;
            self.0 = self.0.wrapping_mul(0x0100_0000_01B3);
        }
    }
}

const GAMES: u64 = 100;
const PLIES: usize = 110;

/// Positions of one seeded random playout, each with the position it came from
/// through its last action (so the double attack, RULES §12.3, is exercised).
fn playout(seed: u64) -> Vec<Position> {
    let mut rng = Rng(seed);
    let mut pos = if seed % 5 == 4 {
        Position::voluntary_alliance_start()
    } else {
        Position::start()
    };
    let mut out = Vec::with_capacity(PLIES);
    for _ in 0..PLIES {
        out.push(pos.clone());
        let actions = pos.legal_actions();
        if actions.is_empty() {
            break;
        }
        // Captures a little more often than chance, so that hands fill up,
        // drops multiply and eliminations happen.
        let captures: Vec<Action> = actions
            .iter()
            .copied()
            .filter(|&a| match a {
                Action::Move { to, .. } => pos.piece_at(to).is_some(),
                Action::Illuminate { .. } => true,
                Action::Drop { .. } => false,
            })
            .collect();
        let a = if !captures.is_empty() && rng.below(3) == 0 {
            captures[rng.below(captures.len())]
        } else {
            actions[rng.below(actions.len())]
        };
        pos = pos.play(a).expect("a legal action plays").position;
    }
    out
}

fn is_capture(pos: &Position, a: Action) -> bool {
    match a {
        Action::Move { to, .. } => pos
            .piece_at(to)
            .is_some_and(|x| Some(x.owner) != pos.to_move()),
        Action::Illuminate { .. } => true,
        Action::Drop { .. } => false,
    }
}

#[test]
fn search_api_agrees_with_play_and_legal_actions() {
    let write = std::env::var_os("SANNIN_WRITE_DIGEST").is_some();
    let mut digests = Vec::new();
    let mut positions = 0;
    let mut buf = Vec::new();
    let mut caps = Vec::new();
    let (mut doubles, mut discovered) = (0, 0);
    for game in 0..GAMES {
        let mut digest = Fnv::new();
        for pos in playout(game) {
            positions += 1;
            let legal = pos.legal_actions();
            pos.legal_actions_into(&mut buf);
            assert_eq!(buf, legal, "legal_actions_into on {pos}");
            pos.legal_captures_into(&mut caps);
            let expected: Vec<Action> = legal
                .iter()
                .copied()
                .filter(|&a| is_capture(&pos, a))
                .collect();
            assert_eq!(caps, expected, "legal_captures_into on {pos}");
            assert_eq!(pos.has_legal_action(), !legal.is_empty(), "{pos}");
            // Perft counts the last ply without playing it where it can.
            assert_eq!(perft(&pos, 1), legal.len() as u64, "perft 1 of {pos}");
            for p in Player::ALL {
                assert_eq!(pos.is_active(p), pos.active().contains(&p), "{pos}");
                let mut counts = [0u8; 16];
                let mut cells = Vec::new();
                for (c, x) in pos.pieces().into_iter().filter(|(_, x)| x.owner == p) {
                    counts[x.role as usize + 8 * x.promoted as usize] += 1;
                    cells.push(c);
                }
                assert_eq!(pos.piece_counts(p), counts, "{p:?} on {pos}");
                assert!(pos.occupied_by(p).iter().eq(cells), "{p:?} on {pos}");
            }
            assert_eq!(pos.occupied().count() as usize, pos.pieces().len(), "{pos}");
            assert_eq!(pos.active_count(), pos.active().len(), "{pos}");
            assert!(pos.active_players().eq(pos.active()), "{pos}");

            digest.add(&pos.to_string());
            for &a in &legal {
                let played = pos.play(a).expect("legal");
                for e in &played.events {
                    if let Event::AllianceFormed { cause, .. } = e {
                        match cause {
                            AllianceCause::Double => doubles += 1,
                            AllianceCause::Discovered => discovered += 1,
                            _ => {}
                        }
                    }
                }
                digest.add(&format!("{a:?}"));
                digest.add(&played.position.to_string());
                digest.add(&format!("{:?}", played.events));
            }
        }
        digests.push(format!("{:016x}", digest.0));
    }
    assert!(positions >= 10_000, "only {positions} positions");
    // The digests cover forced alliances of both kinds (RULES §12.2, §12.3).
    assert!(
        doubles > 100 && discovered > 10,
        "{doubles} double and {discovered} discovered attacks"
    );
    let text = digests.join("\n") + "\n";
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/search_api.digest");
    if write {
        std::fs::write(path, &text).expect("digest file written");
    }
    let recorded = std::fs::read_to_string(path).expect("tests/search_api.digest");
    for (game, (got, want)) in text.lines().zip(recorded.lines()).enumerate() {
        assert_eq!(
            got, want,
            "playout {game}: a legal action resolved differently"
        );
    }
    assert_eq!(text.lines().count(), recorded.lines().count());
}

/// [`Position::with_turn_passed`]: the same board, hands, active players,
/// alliance and castling rights with the next active player to move — the
/// position string with field 2 changed — and no last action.
#[test]
fn a_passed_turn_is_the_position_string_with_the_next_player() {
    let mut checked = 0;
    for seed in 0..20 {
        for pos in playout(1000 + seed).into_iter().step_by(5) {
            let Some(p) = pos.to_move() else { continue };
            let passed = pos.with_turn_passed().expect("a running game");
            let next = pos
                .active_players()
                .cycle()
                .skip_while(|&q| q != p)
                .nth(1)
                .expect("an active player");
            assert_eq!(passed.to_move(), Some(next));
            let mut fields: Vec<String> = pos.to_string().split(' ').map(String::from).collect();
            fields[1] = next.letter().to_string();
            let expected: Position = fields.join(" ").parse().expect("a valid position");
            assert_eq!(passed, expected, "{pos}");
            assert_eq!(passed.repetition_key(), expected.repetition_key());
            assert_eq!(passed.last_action(), None);
            let mut actions = Vec::new();
            passed.legal_actions_into(&mut actions);
            assert_eq!(actions, expected.legal_actions());
            checked += 1;
        }
    }
    assert!(checked >= 100, "only {checked} positions");
    let over: Position = "lL1lP1fP1fL/lSlBlP2fPfRfS/lG1lP3fP1fG/lK1lP4fP1fK/lG1lN5fN1fG/lS1lP6fP1fS/lLlRlP7fPfBfL/1lP8fP1/lP9fP/10/mPmPmPmPmNmPmPmPmP/1mB4mR1/mLmSmGmKmGmSmL - -/-/- FML - FML"
        .parse()
        .expect("a finished game's position");
    assert!(over.with_turn_passed().is_none());
}

/// [`Position::play_unchecked`] with the repetition keys of a game
/// (RULES §12.7, as a search passes its line) against [`Game`]: an action
/// plays exactly when the game lists it as legal, and then resolves as
/// [`Position::play`] does (position string, events). The playouts undo
/// their players' last moves half of the time, so repetitions come up.
#[test]
fn play_unchecked_with_earlier_keys_agrees_with_the_game() {
    let (mut positions, mut repeats) = (0, 0);
    for seed in 0..40 {
        let mut rng = Rng(5000 + seed);
        let mut game = Game::new();
        let mut last: [Option<Action>; 3] = [None; 3];
        for _ in 0..120 {
            let Some(p) = game.to_move() else { break };
            let pos = game.position().clone();
            let keys = game.repetition_keys();
            let legal = game.legal_actions();
            for a in pos.legal_actions() {
                let unchecked = pos.play_unchecked(a, &keys);
                assert_eq!(unchecked.is_some(), legal.contains(&a), "{a:?} on {pos}");
                match unchecked {
                    Some(u) => {
                        let played = pos.play(a).expect("legal");
                        assert_eq!(u.position.to_string(), played.position.to_string());
                        assert_eq!(u.events, played.events, "{a:?} on {pos}");
                    }
                    None => repeats += 1,
                }
            }
            positions += 1;
            if legal.is_empty() {
                break;
            }
            let back = last[p.index()].and_then(|a| match a {
                Action::Move {
                    from,
                    to,
                    promote: false,
                } => Some(Action::Move {
                    from: to,
                    to: from,
                    promote: false,
                }),
                _ => None,
            });
            let a = match back {
                Some(b) if legal.contains(&b) && rng.below(2) == 0 => b,
                _ => legal[rng.below(legal.len())],
            };
            last[p.index()] = Some(a);
            game.play(a).expect("a legal action plays");
        }
    }
    assert!(positions >= 2_000, "only {positions} positions");
    assert!(repeats >= 20, "only {repeats} repetitions");
}
