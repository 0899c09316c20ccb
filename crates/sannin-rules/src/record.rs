//! Game records (RULES §13.2): headers, then actions in play order.

use crate::event::{EndReason, LossReason};
use crate::game::{Entry, Game, PlayError, Prepared};
use crate::player::Player;
use crate::position::{Position, PositionError, START};

/// A parsed game record.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Record {
    /// `[Key "Value"]` headers in order.
    pub headers: Vec<(String, String)>,
    /// Tokens in play order, as written: actions, and the endings that are not
    /// moves (`First:resign`, `Middle:timeout`, `Last:abandon`, `draw`; see
    /// [`ending_token`]).
    pub actions: Vec<String>,
}

/// Why a record could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RecordError {
    #[error("line {line}: a header is written [Key \"Value\"]")]
    BadHeader { line: usize },
    #[error("a comment opened with {{ is never closed")]
    UnclosedComment,
}

impl Record {
    /// Reads a record: headers, then white-space separated actions; round
    /// numbers (`12.`) and `{…}` comments are ignored.
    ///
    /// # Errors
    /// A malformed header or an unclosed comment.
    pub fn parse(text: &str) -> Result<Record, RecordError> {
        let mut rec = Record::default();
        let mut body = String::new();
        let mut in_headers = true;
        for (i, line) in text.lines().enumerate() {
            let trimmed = line.trim();
            if in_headers && trimmed.starts_with('[') {
                let inner = trimmed
                    .strip_prefix('[')
                    .and_then(|s| s.strip_suffix(']'))
                    .ok_or(RecordError::BadHeader { line: i + 1 })?;
                let (key, value) = inner
                    .split_once(' ')
                    .ok_or(RecordError::BadHeader { line: i + 1 })?;
                let value = value
                    .trim()
                    .strip_prefix('"')
                    .and_then(|v| v.strip_suffix('"'))
                    .ok_or(RecordError::BadHeader { line: i + 1 })?;
                rec.headers
                    .push((key.to_string(), value.replace("\\\"", "\"")));
                continue;
            }
            if !trimmed.is_empty() {
                in_headers = false;
            }
            body.push_str(line);
            body.push('\n');
        }
        let mut clean = String::new();
        let mut depth = 0;
        for ch in body.chars() {
            match ch {
                '{' => depth += 1,
                '}' if depth > 0 => depth -= 1,
                _ if depth > 0 => {}
                _ => clean.push(ch),
            }
        }
        if depth > 0 {
            return Err(RecordError::UnclosedComment);
        }
        for token in clean.split_whitespace() {
            let mut t = token;
            // "12." or "12.P3c-4d"
            if let Some(dot) = t.find('.') {
                if t[..dot].bytes().all(|b| b.is_ascii_digit()) && dot > 0 {
                    t = t[dot..].trim_start_matches('.');
                }
            }
            if !t.is_empty() {
                rec.actions.push(t.to_string());
            }
        }
        Ok(rec)
    }

    /// The value of header `key`.
    pub fn header(&self, key: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }
}

fn result_text(game: &Game) -> Option<String> {
    let o = game.outcome()?;
    let reason = match o.reason {
        EndReason::PleasureGarden => "Pleasure Garden",
        EndReason::LastPlayer => "last player standing",
        EndReason::AllianceDefeated => "alliance defeated",
        EndReason::DrawAgreed => "draw by agreement",
    };
    if o.winners.is_empty() {
        return Some(format!("draw ({reason})"));
    }
    let w: Vec<String> = o.winners.iter().map(Player::to_string).collect();
    Some(format!("{} wins ({reason})", w.join(" and ")))
}

/// The record token of an ending that is not a move: `First:resign`,
/// `Middle:timeout`, `Last:abandon` for a loss outside play (RULES §12.10), `draw`
/// for an agreed draw (§12.11). None for a move, and for a loss play itself brings
/// (mate, no legal action: a replay finds it again).
pub fn ending_token(entry: &Entry) -> Option<String> {
    match entry {
        Entry::Action { .. } => None,
        Entry::Draw => Some("draw".into()),
        Entry::Loss { player, reason } => {
            let what = match reason {
                LossReason::Resigned => "resign",
                LossReason::Timeout => "timeout",
                LossReason::Abandoned => "abandon",
                LossReason::NoLegalAction | LossReason::Mated => return None,
            };
            Some(format!("{player}:{what}"))
        }
    }
}

/// The ending a record token names, if it is one ([`ending_token`]'s forms).
fn read_ending(token: &str) -> Option<Option<(Player, LossReason)>> {
    if token == "draw" {
        return Some(None);
    }
    let (who, what) = token.split_once(':')?;
    let player = Player::ALL.into_iter().find(|p| p.to_string() == who)?;
    let reason = match what {
        "resign" => LossReason::Resigned,
        "timeout" => LossReason::Timeout,
        "abandon" => LossReason::Abandoned,
        _ => return None,
    };
    Some(Some((player, reason)))
}

impl Game {
    /// Prepares one token of a record: an action of the player to move, or an ending
    /// that is not a move ([`ending_token`]), whoever it names.
    ///
    /// # Errors
    /// As [`Game::prepare_notation`], [`Game::prepare_forfeit`] and
    /// [`Game::prepare_draw`].
    pub fn prepare_record_token(&self, token: &str) -> Result<Prepared, PlayError> {
        match read_ending(token) {
            Some(None) => self.prepare_draw(),
            Some(Some((player, reason))) => self.prepare_forfeit(player, reason),
            None => {
                let player = self.to_move().ok_or(PlayError::GameOver)?;
                self.prepare_notation(player, token)
            }
        }
    }
}

/// Writes `game` as a record: a `Position` header when it did not start from
/// the start position, a `Result` header once it is over, actions numbered
/// by rounds of three, endings that are not moves as their tokens
/// ([`ending_token`]), and losses play brought about as comments.
pub(crate) fn write(game: &Game) -> String {
    let mut out = String::new();
    let start = game.start_position().to_string();
    if start != START {
        out.push_str(&format!("[Position \"{start}\"]\n"));
    }
    if let Some(r) = result_text(game) {
        out.push_str(&format!("[Result \"{r}\"]\n"));
    }
    if !out.is_empty() {
        out.push('\n');
    }
    let mut n = 0;
    let mut line = String::new();
    for e in game.log() {
        match e {
            Entry::Action { notation, .. } => {
                if n % 3 == 0 {
                    if !line.is_empty() {
                        line.push(' ');
                    }
                    line.push_str(&format!("{}.", n / 3 + 1));
                }
                line.push(' ');
                line.push_str(notation);
                n += 1;
            }
            Entry::Loss { player, reason } => match ending_token(e) {
                Some(token) => {
                    line.push(' ');
                    line.push_str(&token);
                }
                None => {
                    let what = match reason {
                        LossReason::NoLegalAction => "has no legal action",
                        _ => "is mated",
                    };
                    line.push_str(&format!(" {{{player} {what}}}"));
                }
            },
            Entry::Draw => line.push_str(" draw"),
        }
    }
    out.push_str(line.trim_start());
    out.push('\n');
    out
}

/// Why a record could not be replayed: the ply (1-based; 0 for the
/// `Position` header), the token as written, and the reason.
///
/// `Display` is one line: ``ply 3: `P9z-9y`: <reason>``.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("ply {ply}: `{token}`: {reason}")]
pub struct ReplayError {
    pub ply: usize,
    pub token: String,
    pub reason: ReplayFailure,
}

/// The reason in a [`ReplayError`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ReplayFailure {
    /// The `Position` header is not a valid position string.
    #[error("bad Position header: {0}")]
    Position(#[from] PositionError),
    /// The record goes on after the game ended.
    #[error("the game is already over")]
    GameOver,
    /// The action cannot be read or played.
    #[error(transparent)]
    Play(#[from] PlayError),
}

/// Replays a record's actions from `start`, else its `Position` header, else
/// the start position, stopping at the first action that cannot be played.
///
/// ```
/// use sannin_rules::{replay, Record, ReplayFailure};
/// let record = Record::parse("1. P3c-4d P3c-4d")?;
/// let err = replay(&record, None).unwrap_err();
/// assert_eq!((err.ply, err.token.as_str()), (2, "P3c-4d"));
/// assert!(matches!(err.reason, ReplayFailure::Play(_)));
/// assert!(err.to_string().starts_with("ply 2: `P3c-4d`: "));
/// # Ok::<(), sannin_rules::RecordError>(())
/// ```
///
/// # Errors
/// A [`ReplayError`] naming the ply, the token and the reason.
pub fn replay(record: &Record, start: Option<Position>) -> Result<Game, ReplayError> {
    let start = match (start, record.header("Position")) {
        (Some(p), _) => p,
        (None, Some(s)) => s.parse().map_err(|e: PositionError| ReplayError {
            ply: 0,
            token: s.to_string(),
            reason: e.into(),
        })?,
        (None, None) => Position::start(),
    };
    let mut game = Game::from_position(start);
    for (i, token) in record.actions.iter().enumerate() {
        let fail = |reason: ReplayFailure| ReplayError {
            ply: i + 1,
            token: token.clone(),
            reason,
        };
        if game.is_over() {
            return Err(fail(ReplayFailure::GameOver));
        }
        let prepared = game
            .prepare_record_token(token)
            .map_err(|e| fail(ReplayFailure::Play(e)))?;
        game.commit(prepared)
            .map_err(|e| fail(ReplayFailure::Play(e)))?;
    }
    Ok(game)
}
