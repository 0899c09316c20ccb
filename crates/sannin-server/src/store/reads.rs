//! Reading rooms back: a whole room with its seats, actions and chat, the ids of the
//! rooms to restore, and the lobby's list of finished rooms. Every column is read by
//! the conversion that wrote it (`column.rs`); a value that does not read back is a
//! [`LoadError::Unreadable`] naming the room, never a default.

use sannin_bot::Level;
use sannin_protocol::RoomStatus;
use sannin_rules::Player;

use super::column::{level_from_column, read_opt, Named as _, Unreadable};
use super::{ActionKind, Store, StoredAction, StoredChat, StoredRoom, StoredSeat};

/// An `actions` row: ply, kind, player, text, clocks.
type ActionRow = (i64, String, Option<String>, String, Option<String>);

/// A `chat_messages` row.
type ChatRow = (
    i64,
    String,
    Option<String>,
    String,
    Option<String>,
    String,
    i64,
);

impl Store {
    /// Ids of every room not finished and awake (not asleep: `wake_at` unset),
    /// oldest first: what a start restores.
    pub async fn awake_room_ids(&self) -> sqlx::Result<Vec<String>> {
        sqlx::query_scalar(
            "SELECT id FROM rooms WHERE status <> 'finished' AND wake_at IS NULL \
             ORDER BY created_at, id",
        )
        .fetch_all(&self.pool)
        .await
    }

    /// Up to `limit` sleeping rooms whose `wake_at` is at or before `by` (unix ms),
    /// the soonest first.
    pub async fn due_rooms(&self, by: i64, limit: i64) -> sqlx::Result<Vec<String>> {
        sqlx::query_scalar(
            "SELECT id FROM rooms WHERE wake_at IS NOT NULL AND wake_at <= $1 \
             AND status <> 'finished' AND broken IS NULL ORDER BY wake_at LIMIT $2",
        )
        .bind(by)
        .bind(limit)
        .fetch_all(&self.pool)
        .await
    }

    /// The stored summaries (JSON) of the waiting rooms that sleep, by room id: the
    /// lobby lists them while they are out of memory.
    pub async fn sleeping_waiting_rooms(&self, limit: i64) -> sqlx::Result<Vec<(String, String)>> {
        sqlx::query_as(
            "SELECT id, sleep_summary FROM rooms WHERE wake_at IS NOT NULL \
             AND sleep_summary IS NOT NULL AND status = 'waiting' AND broken IS NULL \
             ORDER BY id LIMIT $1",
        )
        .bind(limit)
        .fetch_all(&self.pool)
        .await
    }

    /// The seats of rooms not finished that these token hashes or `account` hold:
    /// (room id, seat, token hash), the newest rooms first, at most `limit`.
    pub async fn seats_held(
        &self,
        hashes: &[String],
        account: Option<&str>,
        limit: i64,
    ) -> sqlx::Result<Vec<(String, String, String)>> {
        if hashes.is_empty() && account.is_none() {
            return Ok(Vec::new());
        }
        let marks: Vec<String> = (0..hashes.len()).map(|i| format!("${}", i + 3)).collect();
        let by_token = match marks.is_empty() {
            true => "FALSE".to_string(),
            false => format!("s.token_hash IN ({})", marks.join(", ")),
        };
        let sql = format!(
            "SELECT s.room_id, s.seat, s.token_hash FROM seats s JOIN rooms r ON r.id = s.room_id \
             WHERE r.status <> 'finished' AND r.broken IS NULL \
               AND ({by_token} OR (s.account_id IS NOT NULL AND s.account_id = $2)) \
             ORDER BY r.updated_at DESC LIMIT $1"
        );
        let mut q = sqlx::query_as(&sql).bind(limit).bind(account);
        for h in hashes {
            q = q.bind(h);
        }
        q.fetch_all(&self.pool).await
    }

    /// Loads one room with its seats, actions and chat. Every column is read back by
    /// the conversion that wrote it (`column`).
    ///
    /// # Errors
    /// [`LoadError::Db`] when the database fails; [`LoadError::Unreadable`] when a
    /// stored value of the room does not read back.
    pub async fn load_room(&self, id: &str) -> Result<Option<StoredRoom>, LoadError> {
        type RoomRow = (
            String,
            String,
            Option<String>,
            Option<String>,
            i64,
            i64,
            Option<String>,
            Option<i64>,
            Option<i64>,
            Option<i64>,
        );
        let row: Option<RoomRow> = sqlx::query_as(
            "SELECT id, status, start_position, settings, created_at, updated_at, broken, \
             started_at, wake_at, sleep_alone_since FROM rooms WHERE id = $1",
        )
        .bind(id)
        .fetch_optional(&self.pool)
        .await?;
        let Some((
            id,
            status,
            start_position,
            settings,
            created_at_ms,
            updated_at_ms,
            broken,
            started_at_ms,
            wake_at_ms,
            alone_since_ms,
        )) = row
        else {
            return Ok(None);
        };
        let seat_rows: Vec<SeatRow> = sqlx::query_as(
            "SELECT seat, token_hash, name, bot, rematch, account_id FROM seats \
             WHERE room_id = $1 ORDER BY seat",
        )
        .bind(&id)
        .fetch_all(&self.pool)
        .await?;
        let action_rows: Vec<ActionRow> = sqlx::query_as(
            "SELECT ply, kind, player, text, clocks FROM actions WHERE room_id = $1 ORDER BY ply",
        )
        .bind(&id)
        .fetch_all(&self.pool)
        .await?;
        let chat_rows: Vec<ChatRow> = sqlx::query_as(
            "SELECT c.id, c.channel, c.seat, c.name, a.name, c.text, c.at_ms \
             FROM chat_messages c LEFT JOIN accounts a ON a.id = c.account_id \
             WHERE c.room_id = $1 ORDER BY c.id",
        )
        .bind(&id)
        .fetch_all(&self.pool)
        .await?;
        let unreadable = |e: Unreadable| LoadError::Unreadable {
            room: id.clone(),
            error: e,
        };
        let status = RoomStatus::from_column(&status).map_err(unreadable)?;
        let mut seats = Vec::with_capacity(seat_rows.len());
        let mut rematch = Vec::new();
        for row in seat_rows {
            let (seat, asked) = read_seat(row).map_err(unreadable)?;
            if asked {
                rematch.push(seat.seat);
            }
            seats.push(seat);
        }
        let actions = action_rows
            .into_iter()
            .map(read_action)
            .collect::<Result<Vec<_>, _>>()
            .map_err(unreadable)?;
        let chat = chat_rows
            .into_iter()
            .map(read_chat)
            .collect::<Result<Vec<_>, _>>()
            .map_err(unreadable)?;
        Ok(Some(StoredRoom {
            id,
            status,
            start_position,
            settings,
            seats,
            actions,
            rematch,
            chat,
            created_at_ms,
            updated_at_ms,
            started_at_ms,
            asleep: wake_at_ms.is_some(),
            alone_since_ms: alone_since_ms.filter(|_| wake_at_ms.is_some()),
            marked_broken: broken.is_some(),
        }))
    }

    /// Marks a room that cannot be restored (`reason`), so that the lobby's lists
    /// and the cluster's sweep pass it over; `None` clears the mark (it was read
    /// again). A room is marked whatever its lease: the mark changes no play.
    pub async fn mark_broken(&self, id: &str, reason: Option<&str>) -> sqlx::Result<()> {
        sqlx::query("UPDATE rooms SET broken = $1 WHERE id = $2")
            .bind(reason)
            .bind(id)
            .execute(&self.pool)
            .await?;
        Ok(())
    }
}

/// Why a stored room could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// The database failed (unreachable, a query error): nothing is known of the room.
    #[error(transparent)]
    Db(#[from] sqlx::Error),
    /// A value stored for the room does not read back.
    #[error("room {room}: {error}")]
    Unreadable {
        /// The room's id.
        room: String,
        /// What does not read.
        error: Unreadable,
    },
}

/// A `seats` row: seat, token hash, name, bot level, rematch asked.
type SeatRow = (String, String, String, Option<i64>, i64, Option<String>);

/// A seat as stored, and whether its player asked for a rematch.
fn read_seat(
    (seat, token_hash, name, bot, asked, account_id): SeatRow,
) -> Result<(StoredSeat, bool), Unreadable> {
    Ok((
        StoredSeat {
            seat: Player::from_column(&seat)?,
            token_hash,
            name,
            bot: bot.map(level_from_column).transpose()?,
            account_id,
        },
        asked != 0,
    ))
}

fn read_action((ply, kind, player, text, clocks): ActionRow) -> Result<StoredAction, Unreadable> {
    Ok(StoredAction {
        ply,
        kind: ActionKind::from_column(&kind)?,
        player: read_opt(player.as_deref())?,
        text,
        clocks,
    })
}

fn read_chat(
    (id, channel, seat, name, account, text, at_ms): ChatRow,
) -> Result<StoredChat, Unreadable> {
    Ok(StoredChat {
        id,
        channel: sannin_protocol::Channel::from_column(&channel)?,
        seat: read_opt(seat.as_deref())?,
        name,
        account,
        text,
        at_ms,
    })
}

/// A seat of a finished room.
#[derive(Clone, Debug)]
pub struct FinishedSeat {
    /// Which.
    pub seat: Player,
    /// Its player's name.
    pub name: String,
    /// The bot's level, for a computer player.
    pub bot: Option<Level>,
    /// The account it was played under: a logged-in player plays under its account's
    /// name, so this is the seat's name when the seat has an account.
    pub account: Option<String>,
}

/// A finished room as the lobby lists it (`GET /api/rooms?status=finished`).
#[derive(Clone, Debug)]
pub struct FinishedRoom {
    /// Room id (uuid).
    pub id: String,
    /// The outcome JSON.
    pub result: Option<String>,
    /// Unix ms.
    pub created_at: i64,
    /// Unix ms of the last change (the end of the game).
    pub updated_at: i64,
    /// Moves played (resignations and other endings not counted).
    pub plies: i64,
    /// Seats: seat, name, bot level, the account it was played under (its name then);
    /// an error when a seat row does not read back.
    pub seats: Result<Vec<FinishedSeat>, Unreadable>,
    /// The start position; `None` for the standard start.
    pub start_position: Option<String>,
    /// The room's settings (JSON), as stored.
    pub settings: Option<String>,
}

impl Store {
    /// Public finished rooms, the most recently ended first, `limit` of them after the
    /// cursor `(updated_at, id)` of the last room of the page before. Rooms marked
    /// broken ([`Store::mark_broken`]) are left out.
    pub async fn finished_rooms(
        &self,
        limit: usize,
        after: Option<(i64, &str)>,
    ) -> anyhow::Result<Vec<FinishedRoom>> {
        let (at, after_id) = after.unwrap_or((i64::MAX, ""));
        let rows: Vec<FinishedRow> = sqlx::query_as(&format!(
            "SELECT {FINISHED_COLUMNS} \
             FROM rooms r \
             WHERE r.status = 'finished' AND r.broken IS NULL \
               AND (r.settings IS NULL OR r.settings NOT LIKE '%\"private\":true%') \
               AND (r.updated_at < $1 OR (r.updated_at = $1 AND r.id < $2)) \
             ORDER BY r.updated_at DESC, r.id DESC LIMIT $3"
        ))
        .bind(at)
        .bind(after_id)
        .bind(i64::try_from(limit).unwrap_or(i64::MAX))
        .fetch_all(&self.pool)
        .await?;
        let mut out = Vec::with_capacity(rows.len());
        for row in rows {
            out.push(self.finished_room(row).await?);
        }
        Ok(out)
    }

    /// A finished room of its row (`FINISHED_COLUMNS`), its seats read.
    async fn finished_room(&self, row: FinishedRow) -> sqlx::Result<FinishedRoom> {
        let (id, result, created_at, updated_at, plies, start_position, settings) = row;
        let seat_rows: Vec<(String, String, Option<i64>, Option<String>)> =
            sqlx::query_as("SELECT seat, name, bot, account_id FROM seats WHERE room_id = $1")
                .bind(&id)
                .fetch_all(&self.pool)
                .await?;
        let seats = seat_rows
            .into_iter()
            .map(|(seat, name, bot, account_id)| {
                Ok(FinishedSeat {
                    seat: Player::from_column(&seat)?,
                    account: account_id.map(|_| name.clone()),
                    name,
                    bot: bot.map(level_from_column).transpose()?,
                })
            })
            .collect();
        Ok(FinishedRoom {
            id,
            result,
            created_at,
            updated_at,
            plies,
            seats,
            start_position,
            settings,
        })
    }

    /// The finished games of a holder, the most recently ended first, `limit` of them
    /// ended before `before_ms`: the rooms with a seat of one of `token_hashes` or of
    /// `account`, each with that seat (its first, if it held two). `public_only` leaves
    /// private rooms out (a profile's list, seen by everyone). Broken rooms are left
    /// out.
    pub async fn finished_games_of(
        &self,
        token_hashes: &[String],
        account: Option<&str>,
        public_only: bool,
        limit: usize,
        before_ms: Option<i64>,
    ) -> anyhow::Result<Vec<(FinishedRoom, Player)>> {
        if token_hashes.is_empty() && account.is_none() {
            return Ok(Vec::new());
        }
        let marks: Vec<String> = (0..token_hashes.len())
            .map(|i| format!("${}", i + 4))
            .collect();
        let by_token = match marks.is_empty() {
            true => "FALSE".to_string(),
            false => format!("s.token_hash IN ({})", marks.join(", ")),
        };
        let private = match public_only {
            true => "AND (r.settings IS NULL OR r.settings NOT LIKE '%\"private\":true%')",
            false => "",
        };
        let sql = format!(
            "SELECT {FINISHED_COLUMNS}, s.seat FROM rooms r JOIN seats s ON s.room_id = r.id \
             WHERE r.status = 'finished' AND r.broken IS NULL {private} AND r.updated_at < $1 \
               AND ({by_token} OR (s.account_id IS NOT NULL AND s.account_id = $2)) \
             ORDER BY r.updated_at DESC, r.id DESC, s.seat LIMIT $3"
        );
        let mut q = sqlx::query_as::<
            _,
            (
                String,
                Option<String>,
                i64,
                i64,
                i64,
                Option<String>,
                Option<String>,
                String,
            ),
        >(&sql)
        .bind(before_ms.unwrap_or(i64::MAX))
        .bind(account)
        .bind(i64::try_from(limit).unwrap_or(i64::MAX));
        for h in token_hashes {
            q = q.bind(h);
        }
        let rows = q.fetch_all(&self.pool).await?;
        let mut out: Vec<(FinishedRoom, Player)> = Vec::with_capacity(rows.len());
        for (id, result, created_at, updated_at, plies, start, settings, seat) in rows {
            if out.iter().any(|(r, _)| r.id == id) {
                continue;
            }
            let seat = Player::from_column(&seat)?;
            let row = (id, result, created_at, updated_at, plies, start, settings);
            out.push((self.finished_room(row).await?, seat));
        }
        Ok(out)
    }
}

/// The columns of a finished room's row, of `rooms r`.
const FINISHED_COLUMNS: &str = "r.id, r.result, r.created_at, r.updated_at, \
     (SELECT COUNT(*) FROM actions a WHERE a.room_id = r.id AND a.kind = 'act'), \
     r.start_position, r.settings";

/// A row of [`FINISHED_COLUMNS`].
type FinishedRow = (
    String,
    Option<String>,
    i64,
    i64,
    i64,
    Option<String>,
    Option<String>,
);
