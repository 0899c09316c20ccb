//! A game: a start position plus the actions played, with the history that
//! repetition (RULES §12.7) and the double attack (§12.3) look back on.

use crate::action::Action;
use crate::cell::Cell;
use crate::error::IllegalAction;
use crate::event::{EndReason, Event, LossReason, Outcome};
use crate::notation::{canonical, diagnose, parse_written, resolve_written, NotationError};
use crate::play::{illumination, legal_actions, lose, resolve, Resolved};
use crate::player::Player;
use crate::position::{Core, Position};

/// Why an attempt to act was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PlayError {
    #[error("the game is over")]
    GameOver,
    #[error("it is {expected}'s turn, not {got}'s")]
    NotYourTurn { expected: Player, got: Player },
    #[error("{got} is no longer in the game")]
    NotActive { got: Player },
    #[error(transparent)]
    Notation(#[from] NotationError),
    #[error("illegal action: {0}")]
    Illegal(#[from] IllegalAction),
}

impl PlayError {
    /// The protocol error code (CONTRACT §3).
    pub fn code(&self) -> &'static str {
        match self {
            PlayError::GameOver => "game_not_running",
            PlayError::NotYourTurn { .. } | PlayError::NotActive { .. } => "not_your_turn",
            PlayError::Notation(_) | PlayError::Illegal(_) => "illegal_action",
        }
    }
}

/// What a played action was and did.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Played {
    pub player: Player,
    /// Canonical notation (RULES §13.1).
    pub action: String,
    pub events: Vec<Event>,
}

/// One entry of a game's log.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Entry {
    Action {
        player: Player,
        action: Action,
        notation: String,
    },
    Loss {
        player: Player,
        reason: LossReason,
    },
    Draw,
}

/// A game in progress or finished.
///
/// ```
/// use sannin_rules::{Game, Player};
/// let mut game = Game::new();
/// assert_eq!(game.legal_actions().len(), 48);
/// let played = game.play_notation(Player::First, "P3c-4d").unwrap();
/// assert_eq!(played.action, "P3c-4d");
/// assert_eq!(game.to_move(), Some(Player::Middle));
/// ```
#[derive(Clone, Debug)]
pub struct Game {
    start: Position,
    position: Position,
    history: Vec<(u64, Core)>,
    log: Vec<Entry>,
    outcome: Option<Outcome>,
    eliminated: Vec<Player>,
}

impl Default for Game {
    fn default() -> Game {
        Game::new()
    }
}

impl Game {
    /// A game from the start position (RULES §4).
    pub fn new() -> Game {
        Game::from_position(Position::start())
    }

    /// A game from any position; it has no history before it.
    pub fn from_position(start: Position) -> Game {
        let start = Position {
            core: start.core,
            last: None,
        };
        let history = vec![(start.core.key(), start.core.clone())];
        let mut game = Game {
            position: start.clone(),
            start,
            history,
            log: Vec::new(),
            outcome: None,
            eliminated: Vec::new(),
        };
        if game.position.core.to_move.is_some() {
            // A player to move with no legal action loses at once (RULES §11 step 9).
            if !crate::play::has_fully_legal_action(
                &game.position,
                &game.history as &dyn crate::play::History,
            ) {
                let p = game.position.core.to_move.expect("to move");
                let r = lose(
                    &game.position,
                    p,
                    LossReason::NoLegalAction,
                    &game.history as &dyn crate::play::History,
                );
                game.apply_loss(r);
            }
        }
        game
    }

    pub fn start_position(&self) -> &Position {
        &self.start
    }
    pub fn position(&self) -> &Position {
        &self.position
    }
    pub fn to_move(&self) -> Option<Player> {
        self.position.core.to_move
    }
    pub fn is_over(&self) -> bool {
        self.position.core.to_move.is_none()
    }
    pub fn outcome(&self) -> Option<&Outcome> {
        self.outcome.as_ref()
    }
    /// The log: actions, losses by resignation/time/abandonment, draws.
    pub fn log(&self) -> &[Entry] {
        &self.log
    }

    /// Canonical notation of every action played, in order.
    pub fn moves(&self) -> Vec<String> {
        self.log
            .iter()
            .filter_map(|e| match e {
                Entry::Action { notation, .. } => Some(notation.clone()),
                _ => None,
            })
            .collect()
    }

    /// [`Position::repetition_key`] of every position of the game so far,
    /// oldest first (for searches that must avoid repeating one, RULES §12.7).
    pub fn repetition_keys(&self) -> Vec<u64> {
        self.history.iter().map(|(k, _)| *k).collect()
    }

    /// The legal actions of the player to move (empty once the game is over).
    pub fn legal(&self) -> Vec<Action> {
        legal_actions(&self.position, &self.history as &dyn crate::play::History)
    }

    /// The legal actions of the player to move, in canonical notation.
    pub fn legal_actions(&self) -> Vec<String> {
        let Some(p) = self.to_move() else {
            return Vec::new();
        };
        self.legal()
            .into_iter()
            .map(|a| canonical(&self.position.core, p, a))
            .collect()
    }

    /// Canonical notation of `action` in the current position.
    pub fn notation(&self, action: Action) -> Option<String> {
        let p = self.to_move()?;
        diagnose(&self.position.core, p, action)
            .is_none()
            .then(|| canonical(&self.position.core, p, action))
    }

    /// Cells an illumination would capture now, if it is legal.
    pub fn illumination_targets(&self) -> Option<Vec<Cell>> {
        let p = self.to_move()?;
        let king = self.position.core.board.king(p)?;
        let action = Action::Illuminate { from: king };
        if self.legal().contains(&action) {
            Some(illumination(&self.position, king).iter().collect())
        } else {
            None
        }
    }

    /// Reads `text` (RULES §13.1, short forms accepted) as an action of the player to move.
    ///
    /// # Errors
    /// [`PlayError::Notation`] when the text is not an action or is ambiguous.
    pub fn parse_action(&self, text: &str) -> Result<Action, PlayError> {
        let p = self.to_move().ok_or(PlayError::GameOver)?;
        let written = parse_written(text)?;
        resolve_written(&self.position, p, text, &written, &|| self.legal())
    }

    /// Plays `action` for the player to move.
    ///
    /// # Errors
    /// [`PlayError::Illegal`] with the rule the action breaks; the game is unchanged.
    pub fn play(&mut self, action: Action) -> Result<Played, PlayError> {
        let p = self.to_move().ok_or(PlayError::GameOver)?;
        if let Some(why) = diagnose(&self.position.core, p, action) {
            return Err(why.into());
        }
        let notation = canonical(&self.position.core, p, action);
        let r = resolve(
            &self.position,
            action,
            &self.history as &dyn crate::play::History,
            true,
        )?;
        self.log.push(Entry::Action {
            player: p,
            action,
            notation: notation.clone(),
        });
        let events = r.events.clone();
        self.commit(r);
        Ok(Played {
            player: p,
            action: notation,
            events,
        })
    }

    /// Plays an action written in RULES §13.1 notation for `player`.
    ///
    /// # Errors
    /// `GameOver`, `NotYourTurn`, a notation error or the rule the action breaks.
    pub fn play_notation(&mut self, player: Player, text: &str) -> Result<Played, PlayError> {
        let to_move = self.to_move().ok_or(PlayError::GameOver)?;
        if to_move != player {
            return Err(PlayError::NotYourTurn {
                expected: to_move,
                got: player,
            });
        }
        let action = self.parse_action(text)?;
        self.play(action)
    }

    /// `player` resigns (RULES §12.10).
    ///
    /// # Errors
    /// `GameOver`, or `NotActive` for a player already out.
    pub fn resign(&mut self, player: Player) -> Result<Vec<Event>, PlayError> {
        self.forfeit(player, LossReason::Resigned)
    }

    /// `player` loses by resignation, time or abandonment (RULES §12.10).
    ///
    /// # Errors
    /// `GameOver`, or `NotActive` for a player already out.
    pub fn forfeit(&mut self, player: Player, reason: LossReason) -> Result<Vec<Event>, PlayError> {
        if self.is_over() {
            return Err(PlayError::GameOver);
        }
        if !self.position.core.active.contains(player) {
            return Err(PlayError::NotActive { got: player });
        }
        let r = lose(
            &self.position,
            player,
            reason,
            &self.history as &dyn crate::play::History,
        );
        self.log.push(Entry::Loss { player, reason });
        let events = r.events.clone();
        self.apply_loss(r);
        Ok(events)
    }

    /// Every remaining player agreed to a draw (RULES §12.11).
    ///
    /// # Errors
    /// `GameOver`.
    pub fn agree_draw(&mut self) -> Result<Vec<Event>, PlayError> {
        if self.is_over() {
            return Err(PlayError::GameOver);
        }
        self.position.core.to_move = None;
        self.log.push(Entry::Draw);
        let ev = Event::GameOver {
            winners: Vec::new(),
            reason: EndReason::DrawAgreed,
        };
        self.set_outcome(Vec::new(), EndReason::DrawAgreed);
        Ok(vec![ev])
    }

    fn apply_loss(&mut self, r: Resolved) {
        self.commit(r);
    }

    fn commit(&mut self, r: Resolved) {
        self.eliminated.extend(r.eliminated.iter().copied());
        self.position = r.position;
        self.history
            .push((self.position.core.key(), self.position.core.clone()));
        if let Some(o) = r.outcome {
            self.set_outcome(o.winners, o.reason);
        }
    }

    fn set_outcome(&mut self, winners: Vec<Player>, reason: EndReason) {
        let mut ranking = winners.clone();
        for p in self.position.core.active.iter() {
            if !ranking.contains(&p) {
                ranking.push(p);
            }
        }
        for &p in self.eliminated.iter().rev() {
            if !ranking.contains(&p) {
                ranking.push(p);
            }
        }
        for p in Player::ALL {
            if !ranking.contains(&p) {
                ranking.push(p);
            }
        }
        self.outcome = Some(Outcome {
            winners,
            reason,
            ranking,
        });
    }

    /// The game record (RULES §13.2).
    pub fn record(&self) -> String {
        crate::record::write(self)
    }
}
