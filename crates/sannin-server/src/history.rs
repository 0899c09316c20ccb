//! A game's history, ply by ply, for replay viewers (`GET /api/rooms/{id}/history`)
//! and for any record pasted into the analysis board (`POST /api/replay`).
//!
//! Each ply has the shape of a `sannin replay --json` line (docs/cli.md, "Rules"): `ply`,
//! `player`, `action`, `events` and the `position` after it, so a client steps through
//! a game without a rules engine of its own.

use sannin_rules::{Entry, Event, Game, LossReason, PlayError, Player, Position, Record};
use serde::Serialize;

use sannin_protocol::ForfeitReason;

use crate::store::column::Named as _;
use crate::store::{ActionKind, StoredAction};

/// A game from its start position, one entry per action.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct History {
    /// The position before the first ply (RULES §13.3).
    pub start: String,
    /// The actions in order.
    pub plies: Vec<Ply>,
    /// The legal actions of the player to move after the last ply (canonical
    /// notation); empty once the game is over.
    pub legal: Vec<String>,
}

/// One action of a [`History`].
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct Ply {
    /// 1-based.
    pub ply: usize,
    /// Who acted; null for an agreed draw.
    pub player: Option<Player>,
    /// Canonical notation (RULES §13.1); `resign`, `timeout`, `abandon` or `draw` for
    /// an ending that is not a move.
    pub action: String,
    /// What the action did, in order.
    pub events: Vec<Event>,
    /// The position after it.
    pub position: String,
}

/// Why a record could not be replayed: the ply (0 for the start position or the
/// record as a whole), the token and the reason.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("ply {ply}: `{token}`: {reason}")]
pub struct ReplayError {
    /// 1-based; 0 when the start position or the record itself is at fault.
    pub ply: usize,
    /// The token (or position string) at fault.
    pub token: String,
    /// The error code: `bad_position`, `bad_record` or `illegal_action`.
    pub code: sannin_protocol::ApiCode,
    /// What is wrong, for people.
    pub reason: String,
}

/// The rules' loss of a forfeit (stored with the reason as the action's text).
pub fn forfeit_loss(reason: ForfeitReason) -> LossReason {
    match reason {
        ForfeitReason::Abandoned => LossReason::Abandoned,
        ForfeitReason::Timeout => LossReason::Timeout,
    }
}

/// Plays one stored action on `game`: what restoring a room and its history both do.
/// Returns the action as written in a history and its events.
///
/// # Errors
/// An action the rules no longer accept, or one stored without its player.
pub fn apply_stored(game: &mut Game, a: &StoredAction) -> anyhow::Result<(String, Vec<Event>)> {
    let prepared = match (a.kind, a.player) {
        (ActionKind::Act, Some(p)) => game.prepare_notation(p, &a.text),
        (ActionKind::Resign, Some(p)) => game.prepare_forfeit(p, LossReason::Resigned),
        (ActionKind::Forfeit, Some(p)) => {
            game.prepare_forfeit(p, forfeit_loss(ForfeitReason::from_column(&a.text)?))
        }
        (ActionKind::Draw, _) => game.prepare_draw(),
        (_, None) => anyhow::bail!("action {} has no player", a.ply),
    };
    let fail = |e: PlayError| anyhow::anyhow!("replaying action {} ({:?}): {e}", a.ply, a.text);
    let prepared = prepared.map_err(fail)?;
    let written = written(prepared.entry());
    let events = game.commit(prepared).map_err(fail)?;
    Ok((written, events))
}

/// An entry as a history writes it: the action's notation, or `resign`, `timeout`,
/// `abandon`, `draw` for an ending that is not a move.
fn written(entry: &Entry) -> String {
    match entry {
        Entry::Action { notation, .. } => notation.clone(),
        Entry::Loss { reason, .. } => match reason {
            LossReason::Timeout => "timeout",
            LossReason::Resigned => "resign",
            _ => "abandon",
        }
        .to_string(),
        Entry::Draw => "draw".to_string(),
    }
}

/// Who an entry is by: the mover, the player who lost outside play; None for a draw.
fn by(entry: &Entry) -> Option<Player> {
    match entry {
        Entry::Action { player, .. } | Entry::Loss { player, .. } => Some(*player),
        Entry::Draw => None,
    }
}

/// The history of a stored room: its start position and stored actions.
///
/// # Errors
/// A stored position or action the rules no longer accept.
pub fn of_stored(start: Option<&str>, actions: &[StoredAction]) -> anyhow::Result<History> {
    let start: Position = match start {
        None => Position::start(),
        Some(s) => s
            .parse()
            .map_err(|e| anyhow::anyhow!("stored start position: {e}"))?,
    };
    let mut h = Replay::new(start);
    for a in actions {
        let (action, events) = apply_stored(&mut h.game, a)?;
        h.played(a.player, action, events);
    }
    Ok(h.finish())
}

/// The position a replay or an analysis starts from: `written` (a position string,
/// RULES §13.3), else the standard start.
///
/// # Errors
/// `bad_position` at ply 0, the string as its token.
pub fn start_position(written: Option<&str>) -> Result<Position, ReplayError> {
    match written {
        None => Ok(Position::start()),
        Some(s) => s
            .parse()
            .map_err(|e: sannin_rules::PositionError| ReplayError {
                ply: 0,
                token: s.to_string(),
                code: sannin_protocol::ApiCode::BadPosition,
                reason: e.to_string(),
            }),
    }
}

/// Replays a game record (RULES §13.2) from `position`, else its `Position` header,
/// else the start position, stopping at the first action that cannot be played.
///
/// # Errors
/// The ply, token and reason of the first thing that could not be read or played.
pub fn of_record(record: &str, position: Option<&str>) -> Result<History, ReplayError> {
    let record = Record::parse(record).map_err(|e| ReplayError {
        ply: 0,
        token: String::new(),
        code: sannin_protocol::ApiCode::BadRecord,
        reason: e.to_string(),
    })?;
    let start = start_position(position.or_else(|| record.header("Position")))?;
    let mut h = Replay::new(start);
    for (i, token) in record.actions.iter().enumerate() {
        let (player, action, events) = play_token(&mut h.game, i + 1, token)?;
        h.played(player, action, events);
    }
    Ok(h.finish())
}

/// Plays the written token `token`, ply `ply` (1-based) of a record, on `game`: an
/// action of the player to move, or an ending that is not a move (`First:resign`,
/// `draw`…: `sannin_rules::ending_token`). Who it is by (None: a draw), how a history
/// writes it, and its events.
///
/// # Errors
/// `illegal_action` with the ply, the token and the reason.
pub fn play_token(
    game: &mut Game,
    ply: usize,
    token: &str,
) -> Result<(Option<Player>, String, Vec<Event>), ReplayError> {
    let illegal = |reason: String| ReplayError {
        ply,
        token: token.to_string(),
        code: sannin_protocol::ApiCode::IllegalAction,
        reason,
    };
    if game.is_over() {
        return Err(illegal("the game is already over".into()));
    }
    let prepared = game
        .prepare_record_token(token)
        .map_err(|e| illegal(e.to_string()))?;
    let (player, action) = (by(prepared.entry()), written(prepared.entry()));
    let events = game.commit(prepared).map_err(|e| illegal(e.to_string()))?;
    Ok((player, action, events))
}

/// A [`History`] being built by playing its actions on a game.
struct Replay {
    start: String,
    game: Game,
    plies: Vec<Ply>,
}

impl Replay {
    fn new(start: Position) -> Replay {
        Replay {
            start: start.to_string(),
            game: Game::from_position(start),
            plies: Vec::new(),
        }
    }

    /// Records the action just played on `self.game`.
    fn played(&mut self, player: Option<Player>, action: String, events: Vec<Event>) {
        self.plies.push(Ply {
            ply: self.plies.len() + 1,
            player,
            action,
            events,
            position: self.game.position().position_string(),
        });
    }

    fn finish(self) -> History {
        History {
            legal: self.game.legal_notation(),
            start: self.start,
            plies: self.plies,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_record_replays_ply_by_ply() {
        let h = of_record("1. P3c-4d P10k-10j P11g-10g", None).unwrap();
        assert_eq!(h.start, Position::start().to_string());
        assert_eq!(h.plies.len(), 3);
        assert_eq!(h.plies[0].player, Some(Player::First));
        assert_eq!(h.plies[2].player, Some(Player::Last));
        assert_eq!(h.plies[1].action, "P10k-10j");
        let mut game = Game::new();
        for p in &h.plies {
            game.play_notation(p.player.unwrap(), &p.action).unwrap();
            assert_eq!(game.position().to_string(), p.position);
        }
    }

    #[test]
    fn endings_in_a_record_are_plies_and_the_legal_actions_follow_the_last() {
        let h = of_record("1. P3c-4d Middle:resign P11g-10g", None).unwrap();
        let seen: Vec<(Option<Player>, &str)> = h
            .plies
            .iter()
            .map(|p| (p.player, p.action.as_str()))
            .collect();
        assert_eq!(
            seen,
            [
                (Some(Player::First), "P3c-4d"),
                (Some(Player::Middle), "resign"),
                (Some(Player::Last), "P11g-10g"),
            ]
        );
        let mut game = Game::new();
        game.play_notation(Player::First, "P3c-4d").unwrap();
        game.resign(Player::Middle).unwrap();
        game.play_notation(Player::Last, "P11g-10g").unwrap();
        assert_eq!(h.legal, game.legal_notation());
        assert!(!h.legal.is_empty());
        let over = of_record("draw", None).unwrap();
        assert_eq!((over.plies[0].player, over.legal.len()), (None, 0));
    }

    #[test]
    fn a_bad_token_names_its_ply() {
        let e = of_record("P3c-4d P10k-10j Zq9", None).unwrap_err();
        assert_eq!(
            (e.ply, e.token.as_str(), e.code.as_str()),
            (3, "Zq9", "illegal_action")
        );
        let e = of_record("P3c-4d", Some("nonsense")).unwrap_err();
        assert_eq!((e.ply, e.code.as_str()), (0, "bad_position"));
        let e = of_record("P3c-4d {open", None).unwrap_err();
        assert_eq!((e.ply, e.code.as_str()), (0, "bad_record"));
    }

    #[test]
    fn stored_endings_are_named() {
        let act = |ply, player, text: &str| StoredAction {
            ply,
            kind: ActionKind::Act,
            player: Some(player),
            text: text.into(),
            clocks: None,
        };
        let actions = vec![
            act(1, Player::First, "P3c-4d"),
            StoredAction {
                ply: 2,
                kind: ActionKind::Resign,
                player: Some(Player::Middle),
                text: String::new(),
                clocks: None,
            },
        ];
        let h = of_stored(None, &actions).unwrap();
        assert_eq!(h.plies[1].action, "resign");
        assert!(h.plies[1].events.iter().any(|e| matches!(
            e,
            Event::Eliminated {
                player: Player::Middle,
                ..
            }
        )));
    }
}
