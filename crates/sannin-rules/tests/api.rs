//! The crate as a bot or another server uses it: positions built from a
//! `Setup`, notation on a position, prepare then commit on a game, typed
//! replay errors, and what position equality compares.

mod common;

use common::*;
use sannin_rules::{
    notation, replay, Action, ByPlayer, Entry, Game, IllegalAction, LossReason, NotationError,
    Piece, PlayError, Player, Position, PositionError, Record, ReplayFailure, Role, Setup,
};

use Player::{First, Last, Middle};

fn kings() -> Setup {
    setup(
        First,
        &[
            (First, Role::King, "1d"),
            (Middle, Role::King, "10m"),
            (Last, Role::King, "10d"),
        ],
    )
}

#[test]
fn rules_13_3_setup_round_trips_through_position() {
    for pos in [Position::start(), Position::voluntary_alliance_start()] {
        let setup = pos.to_setup();
        assert_eq!(setup.board.len(), 54);
        let back = Position::from_setup(setup.clone()).unwrap();
        assert_eq!(back, pos);
        assert_eq!(back.to_string(), pos.to_string());
        assert_eq!(Setup::from(&back), setup);
    }
    let start = Position::start().to_setup();
    assert_eq!(start.to_move, Some(First));
    assert_eq!(start.active, ByPlayer::new_with(|_| true));
    assert_eq!(start.castling, ByPlayer::new_with(|_| true));
    assert_eq!(start.alliance, None);
    assert!(start.hands.iter().all(|h| h.is_empty()));
}

#[test]
fn rules_13_3_setup_is_checked_like_a_position_string() {
    let mut s = kings();
    s.board.insert(
        "10l".parse().unwrap(),
        Piece::new(Middle, Role::King, false),
    );
    assert_eq!(
        Position::from_setup(s),
        Err(PositionError::TwoKings(Middle))
    );

    let mut s = kings();
    s.board
        .insert("7g".parse().unwrap(), Piece::new(First, Role::Gold, true));
    assert!(matches!(
        Position::from_setup(s),
        Err(PositionError::CannotPromote {
            role: Role::Gold,
            ..
        })
    ));

    let mut s = kings();
    s.board.remove(&"10d".parse().unwrap());
    assert_eq!(
        Position::from_setup(s),
        Err(PositionError::MissingKing(Last))
    );

    let mut s = kings();
    s.alliance = Some((Middle, Middle));
    assert!(matches!(
        Position::from_setup(s),
        Err(PositionError::BadAlliance(_))
    ));

    let mut s = kings();
    s.alliance = Some((Middle, Last));
    s.castling.first = true;
    assert_eq!(
        Position::from_setup(s),
        Err(PositionError::CastlingWithAlliance)
    );

    let mut s = kings();
    s.hands.last.rook = 4;
    assert!(matches!(
        Position::from_setup(s),
        Err(PositionError::TooManyPieces { role: 'R', .. })
    ));

    // RULES §6.4: a First pawn at depth 12 (file 13) has no move.
    let mut s = kings();
    s.board
        .insert("13g".parse().unwrap(), Piece::new(First, Role::Pawn, false));
    assert!(matches!(
        Position::from_setup(s),
        Err(PositionError::DeadPiece { .. })
    ));

    let mut s = kings();
    s.hands.first.pawn = 3;
    let pos = Position::from_setup(s).unwrap();
    assert_eq!(pos.hand(First, Role::Pawn), 3);
    assert_eq!(pos.to_string().parse::<Position>().unwrap(), pos);
    // A hand of ten or more pawns writes its count in two digits.
    let mut s = kings();
    s.hands.middle.pawn = 12;
    let pos = Position::from_setup(s).unwrap();
    assert!(pos.to_string().contains(" -/12P/- "), "{pos}");
    assert_eq!(pos.to_string().parse::<Position>().unwrap(), pos);
    // A game keeps its start position's string.
    let game = Game::from_position(pos.clone());
    assert_eq!(game.start_position_text(), pos.to_string());
}

#[test]
fn rules_13_1_notation_reads_and_writes_against_a_position() {
    let pos = Position::start();
    // Only First's silver 1b reaches 2d.
    let a = notation::parse(&pos, "S-2d").unwrap();
    assert_eq!(
        a,
        Action::Move {
            from: "1b".parse().unwrap(),
            to: "2d".parse().unwrap(),
            promote: false
        }
    );
    assert_eq!(notation::format(&pos, a).unwrap(), "S1b-2d");
    assert!(matches!(
        notation::parse(&pos, "P-4d"),
        Err(NotationError::Ambiguous { .. })
    ));
    // An action that the pieces cannot make has no notation, and says why.
    let bad = Action::Move {
        from: "3c".parse().unwrap(),
        to: "5e".parse().unwrap(),
        promote: false,
    };
    assert!(matches!(
        notation::format(&pos, bad),
        Err(IllegalAction::CannotReach { .. })
    ));
    assert!(matches!(
        notation::parse(&pos, "Q9z"),
        Err(NotationError::Syntax { .. })
    ));
    // The game's strings are the notation of its actions.
    let game = Game::new();
    let written: Vec<String> = game
        .legal_actions()
        .into_iter()
        .map(|a| notation::format(game.position(), a).unwrap())
        .collect();
    assert_eq!(written, game.legal_notation());
    assert_eq!(
        pos.legal_actions(),
        game.legal_actions(),
        "no history yet: the same list"
    );
}

#[test]
fn prepare_changes_nothing_until_commit() {
    let mut game = Game::new();
    let before = game.position().clone();
    let prepared = game.prepare_notation(First, "B2gx10k+").unwrap();
    assert_eq!(game.position(), &before);
    assert!(game.moves().is_empty());
    assert_eq!(prepared.entry().notation(), Some("B2gx10k+"));
    assert_eq!(prepared.to_move(), Some(Middle));
    assert!(prepared.outcome().is_none());
    let expected: Vec<_> = prepared.events().to_vec();
    assert_eq!(game.commit(prepared).unwrap(), expected);
    assert_eq!(game.moves(), ["B2gx10k+"]);

    // The same action played directly gives the same game.
    let mut direct = Game::new();
    let played = direct.play_notation(First, "B2gx10k+").unwrap();
    assert_eq!(played.player, First);
    assert_eq!(&played.position, direct.position());
    assert_eq!(played.events, expected);
    assert_eq!(direct.position(), game.position());

    // Refusals name the rule and change nothing.
    assert_eq!(
        game.prepare_notation(First, "P3c-4d").unwrap_err(),
        PlayError::NotYourTurn {
            expected: Middle,
            got: First
        }
    );
    assert!(matches!(
        game.prepare_notation(Middle, "K10m-7g"),
        Err(PlayError::Illegal(_))
    ));
}

#[test]
fn commit_refuses_what_was_prepared_on_an_older_game() {
    let mut game = Game::new();
    let stale = game.prepare_notation(First, "P3c-4d").unwrap();
    let other = game.prepare_notation(First, "P3c-4d").unwrap();
    game.commit(other).unwrap();
    let snapshot = game.position().to_string();
    assert_eq!(game.commit(stale), Err(PlayError::Outdated));
    assert_eq!(game.position().to_string(), snapshot);
    assert_eq!(game.moves().len(), 1);
}

#[test]
fn rules_12_10_losses_and_draws_are_prepared_too() {
    let mut game = Game::new();
    game.play_notation(First, "P3c-4d").unwrap();
    let prepared = game.prepare_forfeit(Last, LossReason::Timeout).unwrap();
    assert_eq!(
        prepared.entry(),
        &Entry::Loss {
            player: Last,
            reason: LossReason::Timeout
        }
    );
    assert_eq!(game.position().active().len(), 3);
    game.commit(prepared).unwrap();
    assert_eq!(game.position().active(), vec![First, Middle]);
    assert_eq!(
        game.prepare_forfeit(Last, LossReason::Resigned)
            .unwrap_err(),
        PlayError::NotActive { got: Last }
    );

    let draw = game.prepare_draw().unwrap();
    let outcome = draw.outcome().cloned().unwrap();
    assert!(outcome.winners.is_empty());
    assert_eq!(outcome.ranking, vec![First, Middle, Last]);
    assert!(!game.is_over());
    game.commit(draw).unwrap();
    assert_eq!(game.outcome(), Some(&outcome));
    assert_eq!(game.prepare_draw().unwrap_err(), PlayError::GameOver);
}

#[test]
fn rules_13_2_replay_errors_name_ply_token_and_reason() {
    let rec = Record::parse("1. P3c-4d P10k-10j P9z").unwrap();
    let e = replay(&rec, None).unwrap_err();
    assert_eq!((e.ply, e.token.as_str()), (3, "P9z"));
    assert!(matches!(
        e.reason,
        ReplayFailure::Play(PlayError::Notation(NotationError::Syntax { .. }))
    ));
    assert!(e.to_string().starts_with("ply 3: `P9z`: "), "{e}");

    let rec = Record::parse("[Position \"nonsense\"]\n1. P3c-4d").unwrap();
    let e = replay(&rec, None).unwrap_err();
    assert_eq!(e.ply, 0);
    assert!(matches!(e.reason, ReplayFailure::Position(_)));

    // A finished game (no one to move) takes no further action.
    let over = Position::from_setup(Setup {
        to_move: None,
        ..kings()
    })
    .unwrap();
    let rec = Record::parse("K10m-10l").unwrap();
    let e = replay(&rec, Some(over)).unwrap_err();
    assert_eq!((e.ply, e.reason.clone()), (1, ReplayFailure::GameOver));
    assert_eq!(e.to_string(), "ply 1: `K10m-10l`: the game is already over");
}

#[test]
fn rules_12_3_equal_positions_may_differ_in_their_last_action() {
    // The same position reached by a game, and read from its string: equal
    // (board, hands, turn, players, alliance, castling), but only the first
    // carries the action that led to it, which the double attack looks back on.
    let mut game = Game::new();
    game.play_notation(First, "P3c-4d").unwrap();
    let played = game.position().clone();
    let read: Position = played.to_string().parse().unwrap();
    assert_eq!(played, read);
    assert_eq!(played.repetition_key(), read.repetition_key());
    assert_eq!(played.last_actor(), Some(First));
    assert!(matches!(
        played.last_action(),
        Some((First, Action::Move { .. }))
    ));
    assert_eq!(read.last_action(), None);
}

#[test]
fn position_play_agrees_with_the_game() {
    let pos = Position::start();
    for a in pos.legal_actions() {
        let played = pos.play(a).unwrap();
        let fast = pos.play_unchecked(a, &[]).unwrap();
        assert_eq!(played.position, fast.position);
        assert_eq!(played.events, fast.events);
        assert_eq!((played.player, played.action), (First, a));
        let mut g = Game::new();
        assert_eq!(g.play(a).unwrap().position, played.position);
    }
    let over = Position::from_setup(Setup {
        to_move: None,
        ..kings()
    })
    .unwrap();
    assert!(over.legal_actions().is_empty());
    assert!(matches!(
        over.play(Action::Drop {
            role: Role::Pawn,
            to: "7g".parse().unwrap()
        }),
        Err(IllegalAction::GameOver)
    ));
}
