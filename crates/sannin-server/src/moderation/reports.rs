//! Reports of chat lines and players (docs/moderation.md, "Reports"). A report of a
//! chat line copies that line and the lines around it of its channel into the report
//! when it is made, so the context stays whatever happens to the room.

use serde::{Deserialize, Serialize};

use super::store::{reason_of, ModDb};
use super::ModError;
use super::ReportReason;
use crate::store::column::Named as _;
use crate::store::unix_ms;

/// Lines kept on each side of a reported chat line.
pub const CONTEXT_LINES: i64 = 5;

/// The longest report text, in characters.
pub const MAX_TEXT: usize = 500;

/// The body of `POST /api/reports`: a chat line (`room`, `chat_id`), a seat (`room`,
/// `seat`), or an account (`name`).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NewReport {
    /// The room of the line or the seat.
    #[serde(default)]
    pub room: Option<String>,
    /// A chat line's id in the room.
    #[serde(default)]
    pub chat_id: Option<i64>,
    /// A seat of the room.
    #[serde(default)]
    pub seat: Option<sannin_protocol::Seat>,
    /// An account's name.
    #[serde(default)]
    pub name: Option<String>,
    /// Why.
    pub reason: ReportReason,
    /// More, in the reporter's words.
    #[serde(default)]
    pub text: String,
}

/// One chat line of a report's context.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct ContextLine {
    /// Its id in the room.
    pub id: i64,
    /// players or spectators.
    pub channel: String,
    /// Its writer's name.
    pub name: String,
    /// What it said.
    pub text: String,
    /// Unix ms.
    pub at_ms: i64,
    /// The reported line.
    pub reported: bool,
}

/// Who is reported.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct ReportTarget {
    /// The name it was seen under.
    pub name: String,
    /// Its account's name, when it has one.
    pub account: Option<String>,
    /// The address its line came from, when known.
    pub addr: Option<String>,
}

/// A report as moderators see it.
#[derive(Debug, Clone, Serialize)]
pub struct ReportView {
    /// uuid.
    pub id: String,
    /// Unix ms.
    pub created_at: i64,
    /// Why.
    pub reason: ReportReason,
    /// The reporter's words.
    pub text: String,
    /// The reporter's account name; null: a guest.
    pub reporter: Option<String>,
    /// Who is reported.
    pub target: ReportTarget,
    /// The room.
    pub room: Option<String>,
    /// The reported chat line.
    pub chat_id: Option<i64>,
    /// The reported seat.
    pub seat: Option<String>,
    /// The lines around the reported one.
    pub context: Vec<ContextLine>,
    /// Unix ms it was closed.
    pub closed_at: Option<i64>,
    /// Who closed it.
    pub closed_by: Option<String>,
    /// What was done.
    pub resolution: Option<String>,
}

fn bad(message: impl Into<String>) -> ModError {
    ModError::BadReport(message.into())
}

fn not_found(message: impl Into<String>) -> ModError {
    ModError::NotFound(message.into())
}

/// Who the report is about, with its account id, and the context.
struct Found {
    target: ReportTarget,
    target_id: Option<String>,
    context: Vec<ContextLine>,
}

type ChatRow = (
    i64,
    String,
    String,
    String,
    i64,
    Option<String>,
    Option<String>,
);

async fn chat_line(m: &ModDb, room: &str, chat_id: i64) -> Result<Found, ModError> {
    let line: Option<ChatRow> = sqlx::query_as(
        "SELECT c.id, c.channel, c.name, c.text, c.at_ms, c.account_id, c.addr FROM chat_messages c \
         WHERE c.room_id = $1 AND c.id = $2",
    )
    .bind(room)
    .bind(chat_id)
    .fetch_optional(m.pool())
    .await?;
    let Some((_, channel, name, _, _, account_id, addr)) = line else {
        return Err(not_found(format!("room {room} has no chat line {chat_id}")));
    };
    let around: Vec<(i64, String, String, String, i64)> = sqlx::query_as(
        "SELECT id, channel, name, text, at_ms FROM chat_messages \
         WHERE room_id = $1 AND channel = $2 AND id >= $3 AND id <= $4 ORDER BY id",
    )
    .bind(room)
    .bind(&channel)
    .bind(chat_id - 4 * CONTEXT_LINES)
    .bind(chat_id + 4 * CONTEXT_LINES)
    .fetch_all(m.pool())
    .await?;
    // The lines of its channel, ids counting both channels: the nearest on each side.
    let at = around.iter().position(|l| l.0 == chat_id).unwrap_or(0);
    let from = at.saturating_sub(CONTEXT_LINES as usize);
    let context = around
        .into_iter()
        .skip(from)
        .take(2 * CONTEXT_LINES as usize + 1)
        .map(|(id, channel, name, text, at_ms)| ContextLine {
            reported: id == chat_id,
            id,
            channel,
            name,
            text,
            at_ms,
        })
        .collect();
    let account = account_name(m, account_id.as_deref()).await?;
    Ok(Found {
        target: ReportTarget {
            name,
            account,
            addr,
        },
        target_id: account_id,
        context,
    })
}

async fn account_name(m: &ModDb, id: Option<&str>) -> sqlx::Result<Option<String>> {
    let Some(id) = id else { return Ok(None) };
    sqlx::query_scalar("SELECT name FROM accounts WHERE id = $1")
        .bind(id)
        .fetch_optional(m.pool())
        .await
}

async fn seat(m: &ModDb, room: &str, seat: sannin_protocol::Seat) -> Result<Found, ModError> {
    let player = seat.player();
    let row: Option<(String, Option<String>, Option<i64>)> =
        sqlx::query_as("SELECT name, account_id, bot FROM seats WHERE room_id = $1 AND seat = $2")
            .bind(room)
            .bind(player.to_column())
            .fetch_optional(m.pool())
            .await?;
    let Some((name, account_id, bot)) = row else {
        return Err(not_found(format!(
            "nobody sits at the {} seat of room {room}",
            player.lower()
        )));
    };
    if bot.is_some() && account_id.is_none() {
        return Err(bad("a bot plays that seat: there is nobody to report"));
    }
    let account = account_name(m, account_id.as_deref()).await?;
    // The address the seat was taken from (by whoever sits there now).
    let addr: Option<String> =
        sqlx::query_scalar("SELECT addr FROM seats WHERE room_id = $1 AND seat = $2")
            .bind(room)
            .bind(player.to_column())
            .fetch_optional(m.pool())
            .await?
            .flatten();
    Ok(Found {
        target: ReportTarget {
            name,
            account,
            addr,
        },
        target_id: account_id,
        context: Vec::new(),
    })
}

async fn named(accounts: &crate::accounts::store::Db, name: &str) -> Result<Found, ModError> {
    let a = accounts
        .by_name(name)
        .await?
        .ok_or_else(|| not_found(format!("no account is named {name:?}")))?;
    Ok(Found {
        target: ReportTarget {
            name: a.name.clone(),
            account: Some(a.name),
            addr: None,
        },
        target_id: Some(a.id),
        context: Vec::new(),
    })
}

/// Files a report by `reporter` (an account id; None: a guest) from `addr`; returns
/// its id.
///
/// # Errors
/// `400 bad_report`, `404 not_found`; database errors.
pub async fn file(
    m: &ModDb,
    accounts: &crate::accounts::store::Db,
    r: NewReport,
    reporter: Option<&str>,
    addr: &str,
) -> Result<String, ModError> {
    let text = r.text.trim().to_string();
    if text.chars().count() > MAX_TEXT {
        return Err(bad(format!("a report says at most {MAX_TEXT} characters")));
    }
    let found = match (&r.room, r.chat_id, r.seat, &r.name) {
        (Some(room), Some(id), None, None) => chat_line(m, room, id).await?,
        (Some(room), None, Some(s), None) => seat(m, room, s).await?,
        (None, None, None, Some(name)) => named(accounts, name).await?,
        _ => return Err(bad(
            "report a chat line (room and chat_id), a seat (room and seat) or an account (name)",
        )),
    };
    if reporter.is_some() && found.target_id.as_deref() == reporter {
        return Err(bad("you cannot report yourself"));
    }
    let id = uuid::Uuid::new_v4().to_string();
    sqlx::query(
        "INSERT INTO reports (id, created_at, reason, text, reporter_id, reporter_addr, \
         target_name, target_id, target_addr, room_id, chat_id, seat, context) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)",
    )
    .bind(&id)
    .bind(unix_ms())
    .bind(r.reason.to_column())
    .bind(&text)
    .bind(reporter)
    .bind(addr)
    .bind(&found.target.name)
    .bind(found.target_id.as_deref())
    .bind(found.target.addr.as_deref())
    .bind(r.room.as_deref())
    .bind(r.chat_id)
    .bind(r.seat.map(|s| s.player().to_column()))
    .bind(serde_json::to_string(&found.context).unwrap_or_else(|_| "[]".into()))
    .execute(m.pool())
    .await?;
    Ok(id)
}

type ReportRow = (
    String,
    i64,
    String,
    String,
    Option<String>,
    String,
    Option<String>,
    Option<String>,
    Option<String>,
    Option<i64>,
    Option<String>,
    String,
    Option<i64>,
    Option<String>,
    Option<String>,
);

/// The open reports (`open`) or the closed ones, newest first.
///
/// # Errors
/// Database errors.
pub async fn list(m: &ModDb, open: bool, limit: i64) -> sqlx::Result<Vec<ReportView>> {
    let rows: Vec<ReportRow> = sqlx::query_as(&format!(
        "SELECT r.id, r.created_at, r.reason, r.text, rep.name, r.target_name, t.name, \
         r.target_addr, r.room_id, r.chat_id, r.seat, r.context, r.closed_at, r.closed_by, \
         r.resolution FROM reports r \
         LEFT JOIN accounts rep ON rep.id = r.reporter_id \
         LEFT JOIN accounts t ON t.id = r.target_id \
         WHERE r.closed_at IS {} NULL ORDER BY r.created_at DESC LIMIT $1",
        if open { "" } else { "NOT" }
    ))
    .bind(limit)
    .fetch_all(m.pool())
    .await?;
    rows.into_iter().map(view).collect()
}

fn view(row: ReportRow) -> sqlx::Result<ReportView> {
    let (id, created_at, reason, text, reporter, name, account, addr, room, chat_id, seat) = (
        row.0, row.1, row.2, row.3, row.4, row.5, row.6, row.7, row.8, row.9, row.10,
    );
    Ok(ReportView {
        id,
        created_at,
        reason: reason_of(&reason)?,
        text,
        reporter,
        target: ReportTarget {
            name,
            account,
            addr,
        },
        room,
        chat_id,
        seat,
        context: serde_json::from_str(&row.11).unwrap_or_default(),
        closed_at: row.12,
        closed_by: row.13,
        resolution: row.14,
    })
}

/// Closes report `id` as `by` with `resolution`.
///
/// # Errors
/// `404 not_found` (no such report, or closed already); database errors.
pub async fn close(m: &ModDb, id: &str, by: &str, resolution: &str) -> Result<(), ModError> {
    let r = sqlx::query(
        "UPDATE reports SET closed_at = $1, closed_by = $2, resolution = $3 \
         WHERE id = $4 AND closed_at IS NULL",
    )
    .bind(unix_ms())
    .bind(by)
    .bind(resolution)
    .bind(id)
    .execute(m.pool())
    .await?;
    if r.rows_affected() == 0 {
        return Err(not_found(format!("no open report {id}")));
    }
    Ok(())
}
