//! The store's own tests: SQLite URLs, and writes through the group commit.

use super::*;
use crate::accounts::rating::{Kind, Result3};
use crate::accounts::store::Db;
use crate::clock::GameClock;
use crate::room::RoomSettings;
use column::{Json as _, Named as _};
use sannin_bot::Level;
use sannin_protocol::{Channel, ClockKind, ClockSettings, ForfeitReason, RoomStatus};
use sannin_rules::Player;
use strum::IntoEnumIterator as _;

#[test]
fn sqlite_urls_get_their_directory_and_create_mode() {
    let dir = std::env::temp_dir().join(format!("sannin-url-{}", uuid::Uuid::new_v4()));
    let url = format!("sqlite://{}/a/b.db", dir.display());
    assert_eq!(prepare_sqlite_url(&url).unwrap(), format!("{url}?mode=rwc"));
    assert!(dir.join("a").is_dir());
    let ro = format!("sqlite://{}/a/b.db?mode=ro", dir.display());
    assert_eq!(prepare_sqlite_url(&ro).unwrap(), ro);
    assert_eq!(
        prepare_sqlite_url("sqlite::memory:").unwrap(),
        "sqlite::memory:"
    );
    std::fs::remove_dir_all(dir).unwrap();
    assert!(is_sqlite("sqlite://x.db") && !is_sqlite("postgres://h/db"));
    assert_eq!(
        sqlite_file("sqlite:///tmp/x.db?mode=rwc"),
        Some("/tmp/x.db")
    );
    assert_eq!(sqlite_file("sqlite:x.db"), Some("x.db"));
    assert_eq!(sqlite_file("sqlite::memory:"), None);
    assert_eq!(sqlite_file("sqlite:///tmp/x.db?mode=ro"), None);
}

fn act(ply: i64, text: &str) -> StoredAction {
    StoredAction::first_moves(ply, text)
}

/// Actions go through the writer's own SQLite connection; while another connection
/// holds the write lock they go through the pool instead, which waits for it: nothing
/// is lost either way, and a row the database refuses gets its own error.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlite_actions_are_written_directly_or_wait_for_a_busy_database() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.db");
    let store = Store::connect(&format!("sqlite://{}", path.display()), 4)
        .await
        .unwrap();
    store.create_room("r", None, "{}", &[]).await.unwrap();
    store
        .append_action("r", &act(1, "P3c-4c"), None, None)
        .await
        .unwrap();

    // Another process of SQLite holds the write lock for a while.
    let blocker = rusqlite::Connection::open(&path).unwrap();
    blocker.execute_batch("BEGIN IMMEDIATE").unwrap();
    let writing = {
        let store = store.clone();
        tokio::spawn(async move {
            store
                .append_action("r", &act(2, "P10k-10j"), None, None)
                .await
        })
    };
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    assert!(!writing.is_finished(), "the action waits for the lock");
    blocker.execute_batch("COMMIT").unwrap();
    writing.await.unwrap().unwrap();

    // The same ply again: refused, and the rows stored stay as they are.
    let again = store
        .append_action("r", &act(2, "P11g-10g"), None, None)
        .await;
    assert!(again.is_err());
    store
        .append_action("r", &act(3, "P11g-10g"), Some("{}"), None)
        .await
        .unwrap();
    let room = store.load_room("r").await.unwrap().unwrap();
    let texts: Vec<&str> = room.actions.iter().map(|a| a.text.as_str()).collect();
    assert_eq!(texts, ["P3c-4c", "P10k-10j", "P11g-10g"]);
    assert_eq!(room.status, sannin_protocol::RoomStatus::Finished);
    store.close().await;
}

/// No commit cuts the write-ahead log file back (that would hold the actions behind
/// it): the checkpointer empties a large one once nothing has been written for a
/// while (five seconds).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_large_log_file_is_cut_back_by_the_checkpointer_at_a_quiet_moment() {
    // 80 MiB of log, left for the store's checkpointer to copy.
    let (_dir, store, path, wal) = store_with_a_long_log("wal").await;
    let wal_len = || std::fs::metadata(&wal).map_or(0, |m| m.len());
    let written = wal_len();
    assert!(
        written > 80 << 20,
        "the log holds the commit: {written} bytes"
    );
    let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(30);
    while wal_len() > 64 << 20 {
        assert!(
            tokio::time::Instant::now() < deadline,
            "the log file stayed at {} bytes",
            wal_len()
        );
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    // Nothing was lost on the way, and the store writes on.
    let c = rusqlite::Connection::open(&path).unwrap();
    let rows: i64 = c
        .query_row("SELECT count(*) FROM scratch", [], |r| r.get(0))
        .unwrap();
    assert_eq!(rows, 80);
    store.create_room("r", None, "{}", &[]).await.unwrap();
    store
        .append_action("r", &act(1, "P3c-4c"), None, None)
        .await
        .unwrap();
    assert_eq!(
        store.load_room("r").await.unwrap().unwrap().actions.len(),
        1
    );
    store.close().await;
}

/// A store on a fresh SQLite file, `name`.db, whose log another connection (leaving
/// the checkpoints to others) filled with 80 MiB in one commit: the directory (to keep
/// for the test's length), the store, the file and its log.
async fn store_with_a_long_log(
    name: &str,
) -> (
    tempfile::TempDir,
    Store,
    std::path::PathBuf,
    std::path::PathBuf,
) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(format!("{name}.db"));
    let store = Store::connect(&format!("sqlite://{}", path.display()), 4)
        .await
        .unwrap();
    rusqlite::Connection::open(&path)
        .unwrap()
        .execute_batch(
            "PRAGMA wal_autocheckpoint=0; CREATE TABLE scratch (b BLOB); BEGIN; \
             WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 80) \
             INSERT INTO scratch SELECT zeroblob(1048576) FROM n; COMMIT;",
        )
        .unwrap();
    let wal = dir.path().join(format!("{name}.db-wal"));
    (dir, store, path, wal)
}

/// Under a steady stream of actions, with no quiet moment, a long log starts over (the
/// checkpointer copies it, the writer copies the end of it between two of its commits),
/// and no action is lost on the way.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_long_log_starts_over_while_actions_keep_coming() {
    // 80 MiB of log, longer than the mark at which the log restarts.
    let (_dir, store, _, wal) = store_with_a_long_log("restart").await;
    let before = sqlite::log_restarts(&wal);
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let mut rooms = Vec::new();
    // Enough rooms that some always wait for the writer.
    for r in 0..64 {
        let id = format!("r{r}");
        store.create_room(&id, None, "{}", &[]).await.unwrap();
        let (store, stop) = (store.clone(), stop.clone());
        rooms.push(tokio::spawn(async move {
            let mut ply = 0;
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                ply += 1;
                store
                    .append_action(&id, &act(ply, "P3c-4c"), None, None)
                    .await
                    .unwrap();
            }
            (id, ply)
        }));
    }
    let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(30);
    while sqlite::log_restarts(&wal) == before {
        assert!(
            tokio::time::Instant::now() < deadline,
            "the log never started over ({} bytes)",
            std::fs::metadata(&wal).map_or(0, |m| m.len())
        );
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    for room in rooms {
        let (id, plies) = room.await.unwrap();
        let stored = store.load_room(&id).await.unwrap().unwrap().actions;
        assert_eq!(stored.len() as i64, plies, "every action of {id} kept");
    }
    store.close().await;
}

/// Rooms that store their actions all at once have them written in batches of every
/// size, cut into runs (the writer's statements are of eight sizes), some of them with
/// a game's end: every row is stored once, in its room, and every ended game is marked,
/// on SQLite (the writer's own connection) and on PostgreSQL.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn batches_of_every_size_store_every_row_on_sqlite_and_postgres() {
    on_sqlite_and_postgres("batches_of_every_size", |s| Box::pin(rooms_act_at_once(s))).await;
}

/// A store on a fresh SQLite file, then one on a throwaway PostgreSQL database (where
/// one is reachable), each given to `check`, then closed.
async fn on_sqlite_and_postgres(
    name: &str,
    check: impl for<'a> Fn(&'a Store) -> futures_util::future::BoxFuture<'a, ()>,
) {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}/{name}.db", dir.path().display());
    let sqlite = Store::connect(&url, 4).await.unwrap();
    check(&sqlite).await;
    sqlite.close().await;
    let Some(pg) = crate::testing::TestPg::new(name).await else {
        return;
    };
    let store = Store::connect(&pg.url, 4).await.unwrap();
    check(&store).await;
    store.close().await;
    pg.drop_it().await;
}

async fn rooms_act_at_once(store: &Store) {
    const ROOMS: usize = 300;
    for r in 0..ROOMS {
        store
            .create_room(&format!("b{r}"), None, "{}", &[])
            .await
            .unwrap();
    }
    let texts = ["P3c-4c", "P10k-10j", "P11g-10g"];
    for (i, text) in texts.iter().enumerate() {
        let ply = i as i64 + 1;
        let writes = (0..ROOMS).map(|r| {
            let store = store.clone();
            // Every seventh room's game ends with its last action.
            let ends = ply == 3 && r % 7 == 0;
            async move {
                store
                    .append_action(
                        &format!("b{r}"),
                        &act(ply, text),
                        ends.then_some("{}"),
                        None,
                    )
                    .await
            }
        });
        for written in futures_util::future::join_all(writes).await {
            written.unwrap();
        }
    }
    for r in 0..ROOMS {
        let room = store.load_room(&format!("b{r}")).await.unwrap().unwrap();
        let stored: Vec<&str> = room.actions.iter().map(|a| a.text.as_str()).collect();
        assert_eq!(stored, texts, "room b{r}");
        let finished = room.status == sannin_protocol::RoomStatus::Finished;
        assert_eq!(finished, r % 7 == 0, "room b{r}");
    }
}

/// Every value the server stores reads back as it was written: each variant of each
/// stored enum walked through the real store, on SQLite and on PostgreSQL. The
/// variants come from the types themselves (`Level::all`, the enums' iterators), so
/// a level or a clock kind added later is walked too, and fails here until it is
/// stored and read back.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_stored_value_reads_back_on_sqlite_and_postgres() {
    on_sqlite_and_postgres("every_stored_value_reads_back", |s| {
        Box::pin(every_value_reads_back(s))
    })
    .await;
}

async fn every_value_reads_back(store: &Store) {
    levels_read_back(store).await;
    clocks_read_back(store).await;
    statuses_and_results_read_back(store).await;
    actions_read_back(store).await;
    chat_reads_back(store).await;
    rating_rows_read_back(store).await;
    moderation_reads_back(store).await;
}

fn human(seat: Player, name: &str) -> StoredSeat {
    StoredSeat {
        seat,
        token_hash: "ab".repeat(32),
        name: name.into(),
        bot: None,
        account_id: Some(format!("account-of-{name}")),
    }
}

fn sorted(mut seats: Vec<StoredSeat>) -> Vec<StoredSeat> {
    seats.sort_by_key(|s| s.seat.index());
    seats
}

async fn levels_read_back(store: &Store) {
    // Every bot level: as a bot's seat, as a bot that took over a player's seat, and
    // as the level of a room's takeovers.
    for level in Level::all() {
        let id = format!("level-{}", level.number());
        let settings = RoomSettings {
            bot_takeover: true,
            bot_takeover_level: Some(level),
            ..RoomSettings::default()
        };
        let bot = StoredSeat {
            seat: Player::First,
            token_hash: BOT_TOKEN_HASH.into(),
            name: format!("Bot ({})", level.name()),
            bot: Some(level),
            account_id: None,
        };
        store
            .create_room(
                &id,
                None,
                &settings.to_json(),
                &[bot.clone(), human(Player::Middle, "Ann")],
            )
            .await
            .unwrap();
        store
            .set_seat_bot(&id, Player::Middle, Some(level))
            .await
            .unwrap();
        let back = store.load_room(&id).await.unwrap().unwrap();
        assert_eq!(
            RoomSettings::from_stored(back.settings.as_deref()),
            Ok(settings)
        );
        let taken_over = StoredSeat {
            bot: Some(level),
            ..human(Player::Middle, "Ann")
        };
        assert_eq!(sorted(back.seats), [bot, taken_over], "level {level}");
    }
}

async fn clocks_read_back(store: &Store) {
    // Every clock kind: the room's settings, and the clocks stored with an action.
    for kind in ClockKind::iter() {
        let clock = match kind {
            ClockKind::SuddenDeath => ClockSettings {
                kind,
                main_ms: 300_000,
                increment_ms: 0,
                byoyomi_ms: 0,
                periods: 0,
            },
            ClockKind::Fischer => ClockSettings {
                kind,
                main_ms: 180_000,
                increment_ms: 2_000,
                byoyomi_ms: 0,
                periods: 0,
            },
            ClockKind::Byoyomi => ClockSettings {
                kind,
                main_ms: 60_000,
                increment_ms: 0,
                byoyomi_ms: 10_000,
                periods: 3,
            },
            ClockKind::Correspondence => ClockSettings {
                kind,
                main_ms: 86_400_000,
                increment_ms: 0,
                byoyomi_ms: 0,
                periods: 0,
            },
        };
        let id = format!("clock-{}", kind.as_str());
        let settings = RoomSettings {
            clock: Some(clock),
            private: true,
            rated: true,
            rematch_of: Some(uuid::Uuid::new_v4()),
            rematch: Some(uuid::Uuid::new_v4()),
            ..RoomSettings::default()
        };
        store
            .create_room(&id, None, &settings.to_json(), &[])
            .await
            .unwrap();
        let mut clocks = GameClock::new(clock);
        clocks.start(Player::First, 1_000);
        clocks.stop(71_500, 0, true);
        clocks.start(Player::Middle, 71_500);
        let unix = 1_735_689_600_000;
        let action = StoredAction {
            clocks: Some(clocks.saved(71_500, unix)),
            ..act(1, "P3c-4c")
        };
        store.append_action(&id, &action, None, None).await.unwrap();
        let back = store.load_room(&id).await.unwrap().unwrap();
        let read = RoomSettings::from_stored(back.settings.as_deref()).unwrap();
        assert_eq!(read, settings, "{kind:?}");
        let saved = back.actions[0].clocks.as_deref().expect("clocks stored");
        let deadline = (kind == ClockKind::Correspondence).then_some(unix + 86_400_000);
        let (mut read, d) = GameClock::restore(clock, saved).unwrap();
        assert_eq!(d, deadline, "{kind:?}");
        read.start(Player::Middle, 71_500);
        assert_eq!(read, clocks, "{kind:?}");
    }
}

async fn statuses_and_results_read_back(store: &Store) {
    // Every room status; a finished room's result with every way a game ends.
    for status in RoomStatus::iter() {
        let id = format!("status-{}", status.as_str());
        store.create_room(&id, None, "{}", &[]).await.unwrap();
        store.set_status(&id, status, None).await.unwrap();
        let back = store.load_room(&id).await.unwrap().unwrap();
        assert_eq!(back.status, status);
    }
    for reason in every_end_reason() {
        let id = format!("end-{reason:?}");
        let outcome = sannin_rules::Outcome {
            winners: vec![Player::Middle],
            reason,
            ranking: vec![Player::Middle, Player::Last, Player::First],
        };
        store.create_room(&id, None, "{}", &[]).await.unwrap();
        store
            .set_status(&id, RoomStatus::Finished, Some(&outcome.to_json()))
            .await
            .unwrap();
        let listed = store.finished_rooms(200, None).await.unwrap();
        let row = listed.iter().find(|r| r.id == id).expect("listed");
        let result = row.result.as_deref().expect("a result");
        assert_eq!(sannin_rules::Outcome::from_json(result), Ok(outcome));
    }
}

async fn actions_read_back(store: &Store) {
    // Every action kind by every player (a draw by nobody), every forfeit reason.
    let id = "actions";
    store.create_room(id, None, "{}", &[]).await.unwrap();
    let mut written = Vec::new();
    for kind in ActionKind::iter() {
        let rows: Vec<(Option<Player>, String)> = match kind {
            ActionKind::Act => Player::ALL.map(|p| (Some(p), "P3c-4c".into())).to_vec(),
            ActionKind::Resign => Player::ALL.map(|p| (Some(p), "resign".into())).to_vec(),
            ActionKind::Forfeit => ForfeitReason::iter()
                .flat_map(|r| Player::ALL.map(|p| (Some(p), r.to_column().to_string())))
                .collect(),
            ActionKind::Draw => vec![(None, "draw".into())],
        };
        for (player, text) in rows {
            let a = StoredAction {
                ply: written.len() as i64 + 1,
                kind,
                player,
                text,
                clocks: None,
            };
            store.append_action(id, &a, None, None).await.unwrap();
            written.push(a);
        }
    }
    let back = store.load_room(id).await.unwrap().unwrap();
    assert_eq!(back.actions, written);
    for a in back
        .actions
        .iter()
        .filter(|a| a.kind == ActionKind::Forfeit)
    {
        ForfeitReason::from_column(&a.text).expect("a forfeit's reason reads back");
    }
}

async fn chat_reads_back(store: &Store) {
    // Every chat channel, from every seat and from a spectator.
    let id = "chat";
    store.create_room(id, None, "{}", &[]).await.unwrap();
    let mut said = Vec::new();
    for channel in Channel::iter() {
        for seat in Player::ALL.map(Some).into_iter().chain([None]) {
            let m = StoredChat {
                id: said.len() as i64 + 1,
                channel,
                seat,
                name: "Zed".into(),
                account: None,
                text: "good luck".into(),
                at_ms: 1_700_000_000_000 + said.len() as i64,
            };
            store
                .append_chat(id, &m, &ChatAuthor::default())
                .await
                .unwrap();
            said.push(m);
        }
    }
    assert_eq!(store.load_room(id).await.unwrap().unwrap().chat, said);
}

async fn rating_rows_read_back(store: &Store) {
    // Rating rows: every way a game is rated, every result of a player.
    let db = Db::new(store);
    for (i, kind) in Kind::iter().enumerate() {
        let room = format!("rated-{i}");
        store.create_room(&room, None, "{}", &[]).await.unwrap();
        sqlx::query("INSERT INTO rated_games (room_id, rated_at, kind) VALUES ($1, 0, $2)")
            .bind(&room)
            .bind(kind.to_column())
            .execute(store.pool())
            .await
            .unwrap();
        let stored: String = sqlx::query_scalar("SELECT kind FROM rated_games WHERE room_id = $1")
            .bind(&room)
            .fetch_one(store.pool())
            .await
            .unwrap();
        assert_eq!(Kind::from_column(&stored), Ok(kind));
    }
    let names = ["Ann", "Bob", "Cy"];
    for name in names {
        assert_eq!(
            db.create(name, "hash", (25.0, 8.3)).await.unwrap(),
            crate::accounts::store::Created::Created
        );
    }
    let accounts: Vec<_> = futures_util::future::join_all(names.map(|n| db.by_name(n)))
        .await
        .into_iter()
        .map(|a| a.unwrap().unwrap())
        .collect();
    for (i, result) in Result3::iter().enumerate() {
        let room = format!("history-{i}");
        store.create_room(&room, None, "{}", &[]).await.unwrap();
        for (seat, a) in Player::ALL.into_iter().zip(&accounts) {
            sqlx::query(
                "INSERT INTO rating_history (room_id, account_id, seat, place, result, \
                 mu_before, sigma_before, mu_after, sigma_after, rated_at) \
                 VALUES ($1, $2, $3, 1, $4, 25, 8, 26, 7, $5)",
            )
            .bind(&room)
            .bind(&a.id)
            .bind(seat.to_column())
            .bind(result.to_column())
            .bind(i as i64)
            .execute(store.pool())
            .await
            .unwrap();
        }
    }
    let history = db.history(&accounts[0].id, 10).await.unwrap();
    let results: Vec<Result3> = history.iter().rev().map(|g| g.result).collect();
    assert_eq!(results, Result3::iter().collect::<Vec<_>>());
    for g in &history {
        assert_eq!(g.seat, sannin_protocol::Seat::First);
        let seats: Vec<_> = g.opponents.iter().map(|o| (o.seat, o.result)).collect();
        assert_eq!(seats.len(), 2);
        assert!(seats.iter().all(|(_, r)| *r == g.result));
    }
}

/// Every way a game ends. The match below stops compiling when a reason is added,
/// until it is listed here too.
fn every_end_reason() -> Vec<sannin_rules::EndReason> {
    use sannin_rules::EndReason;
    let all = [
        EndReason::PleasureGarden,
        EndReason::LastPlayer,
        EndReason::AllianceDefeated,
        EndReason::DrawAgreed,
    ];
    for r in all {
        match r {
            EndReason::PleasureGarden
            | EndReason::LastPlayer
            | EndReason::AllianceDefeated
            | EndReason::DrawAgreed => {}
        }
    }
    all.to_vec()
}

/// A room whose stored rows do not read back is an error that names the room and
/// the value; the database itself is fine.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unreadable_value_names_the_room_and_the_value() {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}/bad.db", dir.path().display());
    let store = Store::connect(&url, 4).await.unwrap();
    store.create_room("r", None, "{}", &[]).await.unwrap();
    sqlx::query(
        "INSERT INTO seats (room_id, seat, token_hash, name, created_at, bot) \
         VALUES ('r', 'first', 'bot', 'Bot', 0, 9)",
    )
    .execute(store.pool())
    .await
    .unwrap();
    match store.load_room("r").await {
        Err(LoadError::Unreadable { room, error }) => {
            assert_eq!(room, "r");
            assert_eq!(error.what, "bot level");
            assert_eq!(error.value, "9");
        }
        other => panic!("expected an unreadable bot level, got {other:?}"),
    }
    store.close().await;
}

/// Roles, sanctions and report reasons: every variant written by moderation's own
/// code reads back through it.
async fn moderation_reads_back(store: &Store) {
    use crate::moderation::reports::{self, NewReport};
    use crate::moderation::store::{ModDb, Target};
    use crate::moderation::{ReportReason, Role, SanctionKind};
    let (db, m) = (Db::new(store), ModDb::new(store));
    db.create("Mod", "hash", (25.0, 8.3)).await.unwrap();
    let account = db.by_name("Mod").await.unwrap().unwrap();
    for role in Role::iter() {
        m.set_role(&account.id, role).await.unwrap();
        assert_eq!(m.role(&account.id).await.unwrap(), role);
    }
    let target = Target::Account {
        id: account.id.clone(),
        name: account.name.clone(),
    };
    for kind in SanctionKind::iter() {
        m.add_sanction(kind, &target, "why", "me", None)
            .await
            .unwrap();
    }
    let kinds: Vec<SanctionKind> = m
        .active_sanctions(0)
        .await
        .unwrap()
        .into_iter()
        .map(|a| a.kind)
        .collect();
    assert_eq!(kinds.len(), SanctionKind::iter().count());
    assert!(SanctionKind::iter().all(|k| kinds.contains(&k)));
    for reason in ReportReason::iter() {
        let r = NewReport {
            room: None,
            chat_id: None,
            seat: None,
            name: Some("Mod".into()),
            reason,
            text: String::new(),
        };
        reports::file(&m, &db, r, None, "192.0.2.1").await.unwrap();
    }
    let listed: Vec<ReportReason> = reports::list(&m, true, 100)
        .await
        .unwrap()
        .into_iter()
        .map(|r| r.reason)
        .collect();
    assert!(
        ReportReason::iter().all(|r| listed.contains(&r)),
        "{listed:?}"
    );
}
