//! Moderation's queries: roles, sanctions, reports, the log, and what a moderator sees
//! of a player. Portable SQL on the pool of [`Store`] (SQLite and PostgreSQL alike).

use ipnet::IpNet;
use serde::Serialize;
use sqlx::AnyPool;

use super::{ReportReason, Role, SanctionKind};
use crate::store::column::{read_opt, Named as _, Unreadable};
use crate::store::{unix_ms, Store};

fn decode(e: Unreadable) -> sqlx::Error {
    sqlx::Error::Decode(Box::new(e))
}

/// Whom a sanction is for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// An account: its id and name.
    Account {
        /// uuid.
        id: String,
        /// As registered.
        name: String,
    },
    /// Every client of an address range.
    Range(IpNet),
}

impl Target {
    /// As the log and the lists show it: the account's name, or the range.
    pub fn label(&self) -> String {
        match self {
            Target::Account { name, .. } => name.clone(),
            Target::Range(net) => net.to_string(),
        }
    }

    fn columns(&self) -> (Option<&str>, Option<String>) {
        match self {
            Target::Account { id, .. } => (Some(id), None),
            Target::Range(net) => (None, Some(net.to_string())),
        }
    }
}

/// A sanction in force, as every node keeps it in memory.
#[derive(Debug, Clone)]
pub struct ActiveSanction {
    /// Ban or mute.
    pub kind: SanctionKind,
    /// Its account, or
    pub account_id: Option<String>,
    /// its address range.
    pub range: Option<IpNet>,
    /// Why.
    pub reason: String,
    /// Unix ms it ends at; None: until lifted.
    pub until: Option<i64>,
}

/// A sanction as a moderator sees it.
#[derive(Debug, Clone, Serialize)]
pub struct SanctionView {
    /// uuid.
    pub id: String,
    /// Ban or mute.
    pub kind: SanctionKind,
    /// The address range, when not an account's.
    pub addr: Option<String>,
    /// Why.
    pub reason: String,
    /// Who gave it.
    pub by: String,
    /// Unix ms.
    pub created_at: i64,
    /// Unix ms it ends at; null: until lifted.
    pub until: Option<i64>,
    /// Unix ms it was lifted at.
    pub lifted_at: Option<i64>,
    /// Who lifted it.
    pub lifted_by: Option<String>,
}

/// One entry of the moderators' log.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct LogEntry {
    /// uuid.
    pub id: String,
    /// Unix ms.
    pub at: i64,
    /// The moderator's name, or `command line`.
    pub by: String,
    /// `ban`, `unban`, `mute`, `unmute`, `rename`, `delete`, `role`, `close_report`.
    pub action: String,
    /// The account's name or the address range (or the report's id).
    pub target: String,
    /// Why.
    pub reason: String,
    /// The action's other fields (minutes, new name, role, report).
    pub details: serde_json::Value,
}

/// A game of a player, for moderators.
#[derive(Debug, Clone, Serialize)]
pub struct PlayerGame {
    /// Room id.
    pub room: String,
    /// Its seat.
    pub seat: String,
    /// waiting, playing, finished.
    pub status: String,
    /// Unix ms.
    pub created_at: i64,
}

/// A chat line of a player, for moderators.
#[derive(Debug, Clone, Serialize)]
pub struct PlayerChat {
    /// Room id.
    pub room: String,
    /// The line's id in the room.
    pub id: i64,
    /// players or spectators.
    pub channel: String,
    /// What it said.
    pub text: String,
    /// Unix ms.
    pub at_ms: i64,
    /// The address it was written from.
    pub addr: Option<String>,
}

/// An address a player used, for moderators.
#[derive(Debug, Clone, Serialize)]
pub struct PlayerAddress {
    /// IPv4, or an IPv6 /64.
    pub addr: String,
    /// Unix ms.
    pub last_seen: i64,
}

type ActiveRow = (String, Option<String>, Option<String>, String, Option<i64>);

type SanctionRow = (
    String,
    String,
    Option<String>,
    String,
    String,
    i64,
    Option<i64>,
    Option<i64>,
    Option<String>,
);

/// Moderation's queries.
#[derive(Debug, Clone)]
pub struct ModDb {
    pool: AnyPool,
}

impl ModDb {
    /// On the store's pool.
    pub fn new(store: &Store) -> ModDb {
        ModDb {
            pool: store.pool().clone(),
        }
    }

    /// The pool, for the transactions of `actions`.
    pub fn pool(&self) -> &AnyPool {
        &self.pool
    }

    /// The role of account `id` (a player when there is no such account).
    pub async fn role(&self, id: &str) -> sqlx::Result<Role> {
        let role: Option<String> = sqlx::query_scalar("SELECT role FROM accounts WHERE id = $1")
            .bind(id)
            .fetch_optional(&self.pool)
            .await?;
        Ok(read_opt(role.as_deref())
            .map_err(decode)?
            .unwrap_or(Role::Player))
    }

    /// When account `id` was made (unix ms; 0 when there is no such account).
    pub async fn created_at(&self, id: &str) -> sqlx::Result<i64> {
        let at: Option<i64> = sqlx::query_scalar("SELECT created_at FROM accounts WHERE id = $1")
            .bind(id)
            .fetch_optional(&self.pool)
            .await?;
        Ok(at.unwrap_or(0))
    }

    /// The sanctions in force at `now`.
    pub async fn active_sanctions(&self, now: i64) -> sqlx::Result<Vec<ActiveSanction>> {
        let rows: Vec<ActiveRow> = sqlx::query_as(
            "SELECT kind, account_id, addr_range, reason, until FROM sanctions \
                 WHERE lifted_at IS NULL AND (until IS NULL OR until > $1)",
        )
        .bind(now)
        .fetch_all(&self.pool)
        .await?;
        rows.into_iter()
            .map(|(kind, account_id, range, reason, until)| {
                Ok(ActiveSanction {
                    kind: SanctionKind::from_column(&kind).map_err(decode)?,
                    account_id,
                    range: range.and_then(|r| r.parse().ok()),
                    reason,
                    until,
                })
            })
            .collect()
    }

    /// Records a sanction; returns its id.
    pub async fn add_sanction(
        &self,
        kind: SanctionKind,
        target: &Target,
        reason: &str,
        by: &str,
        until: Option<i64>,
    ) -> sqlx::Result<String> {
        let id = uuid::Uuid::new_v4().to_string();
        let (account, range) = target.columns();
        sqlx::query(
            "INSERT INTO sanctions (id, kind, account_id, addr_range, reason, by_name, created_at, until) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
        )
        .bind(&id)
        .bind(kind.to_column())
        .bind(account)
        .bind(range)
        .bind(reason)
        .bind(by)
        .bind(unix_ms())
        .bind(until)
        .execute(&self.pool)
        .await?;
        Ok(id)
    }

    /// Lifts the sanctions of `kind` in force for `target`; returns how many.
    pub async fn lift(&self, kind: SanctionKind, target: &Target, by: &str) -> sqlx::Result<u64> {
        let now = unix_ms();
        let (account, range) = target.columns();
        let r = sqlx::query(
            "UPDATE sanctions SET lifted_at = $1, lifted_by = $2 \
             WHERE kind = $3 AND lifted_at IS NULL AND (until IS NULL OR until > $1) \
             AND (account_id = $4 OR addr_range = $5)",
        )
        .bind(now)
        .bind(by)
        .bind(kind.to_column())
        .bind(account)
        .bind(range)
        .execute(&self.pool)
        .await?;
        Ok(r.rows_affected())
    }

    /// Every sanction of account `id`, or of address range `range`, newest first.
    pub async fn sanctions_of(
        &self,
        id: Option<&str>,
        range: Option<&str>,
    ) -> sqlx::Result<Vec<SanctionView>> {
        let rows: Vec<SanctionRow> = sqlx::query_as(
            "SELECT id, kind, addr_range, reason, by_name, created_at, until, lifted_at, lifted_by \
             FROM sanctions WHERE account_id = $1 OR addr_range = $2 ORDER BY created_at DESC LIMIT 100",
        )
        .bind(id)
        .bind(range)
        .fetch_all(&self.pool)
        .await?;
        rows.into_iter()
            .map(
                |(id, kind, addr, reason, by, created_at, until, lifted_at, lifted_by)| {
                    Ok(SanctionView {
                        id,
                        kind: SanctionKind::from_column(&kind).map_err(decode)?,
                        addr,
                        reason,
                        by,
                        created_at,
                        until,
                        lifted_at,
                        lifted_by,
                    })
                },
            )
            .collect()
    }

    /// Adds an entry to the log.
    pub async fn log(&self, e: &LogEntry) -> sqlx::Result<()> {
        sqlx::query(
            "INSERT INTO mod_log (id, at, by_name, action, target, reason, details) \
             VALUES ($1, $2, $3, $4, $5, $6, $7)",
        )
        .bind(&e.id)
        .bind(e.at)
        .bind(&e.by)
        .bind(&e.action)
        .bind(&e.target)
        .bind(&e.reason)
        .bind(e.details.to_string())
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    /// The log, newest first.
    pub async fn log_entries(&self, limit: i64) -> sqlx::Result<Vec<LogEntry>> {
        let rows: Vec<(String, i64, String, String, String, String, String)> = sqlx::query_as(
            "SELECT id, at, by_name, action, target, reason, details FROM mod_log \
             ORDER BY at DESC, id LIMIT $1",
        )
        .bind(limit)
        .fetch_all(&self.pool)
        .await?;
        Ok(rows
            .into_iter()
            .map(|(id, at, by, action, target, reason, details)| LogEntry {
                id,
                at,
                by,
                action,
                target,
                reason,
                details: serde_json::from_str(&details).unwrap_or(serde_json::Value::Null),
            })
            .collect())
    }

    /// Notes that account `id` came from `addr` (a log-in, a registration).
    pub async fn remember_address(&self, id: &str, addr: &str) -> sqlx::Result<()> {
        let now = unix_ms();
        sqlx::query(
            "INSERT INTO account_addresses (account_id, addr, first_seen, last_seen) \
             VALUES ($1, $2, $3, $3) \
             ON CONFLICT (account_id, addr) DO UPDATE SET last_seen = excluded.last_seen",
        )
        .bind(id)
        .bind(addr)
        .bind(now)
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    /// Account `id`'s latest games.
    pub async fn games_of(&self, id: &str, limit: i64) -> sqlx::Result<Vec<PlayerGame>> {
        let rows: Vec<(String, String, String, i64)> = sqlx::query_as(
            "SELECT s.room_id, s.seat, r.status, r.created_at FROM seats s \
             JOIN rooms r ON r.id = s.room_id WHERE s.account_id = $1 \
             ORDER BY r.created_at DESC LIMIT $2",
        )
        .bind(id)
        .bind(limit)
        .fetch_all(&self.pool)
        .await?;
        Ok(rows
            .into_iter()
            .map(|(room, seat, status, created_at)| PlayerGame {
                room,
                seat,
                status,
                created_at,
            })
            .collect())
    }

    /// Account `id`'s latest chat lines.
    pub async fn chat_of(&self, id: &str, limit: i64) -> sqlx::Result<Vec<PlayerChat>> {
        let rows: Vec<(String, i64, String, String, i64, Option<String>)> = sqlx::query_as(
            "SELECT room_id, id, channel, text, at_ms, addr FROM chat_messages \
             WHERE account_id = $1 ORDER BY at_ms DESC LIMIT $2",
        )
        .bind(id)
        .bind(limit)
        .fetch_all(&self.pool)
        .await?;
        Ok(rows
            .into_iter()
            .map(|(room, id, channel, text, at_ms, addr)| PlayerChat {
                room,
                id,
                channel,
                text,
                at_ms,
                addr,
            })
            .collect())
    }

    /// The addresses account `id` used, latest first.
    pub async fn addresses_of(&self, id: &str) -> sqlx::Result<Vec<PlayerAddress>> {
        let rows: Vec<(String, i64)> = sqlx::query_as(
            "SELECT addr, last_seen FROM account_addresses WHERE account_id = $1 \
             ORDER BY last_seen DESC LIMIT 50",
        )
        .bind(id)
        .fetch_all(&self.pool)
        .await?;
        Ok(rows
            .into_iter()
            .map(|(addr, last_seen)| PlayerAddress { addr, last_seen })
            .collect())
    }

    /// Sets account `id`'s role.
    pub async fn set_role(&self, id: &str, role: Role) -> sqlx::Result<()> {
        sqlx::query("UPDATE accounts SET role = $1 WHERE id = $2")
            .bind(role.to_column())
            .bind(id)
            .execute(&self.pool)
            .await?;
        Ok(())
    }
}

/// The reason of a stored report (for `reports`).
pub(super) fn reason_of(s: &str) -> sqlx::Result<ReportReason> {
    ReportReason::from_column(s).map_err(decode)
}
