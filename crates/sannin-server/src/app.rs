//! The application: the rooms of this node (`registry`) with the features plugged in —
//! accounts and ratings, per-client budgets, and in a cluster the node's membership.
//! The web layer (`http`) serves it; the rooms see only what they need ([`RoomDeps`])
//! and ask the application for the rest through the [`Registry`] trait.
//!
//! [`RoomDeps`]: crate::room::RoomDeps

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::Ordering;
use std::sync::Arc;

use sannin_protocol::{ClockKind, RoomSummary};
use sannin_rules::{Player, Position};
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;
use tracing::info;
use uuid::Uuid;

use crate::accounts::mail::Mailer;
use crate::accounts::Accounts;
use crate::bots::{is_bot_only_room, BotOnlyPlace, Bots};
use crate::cluster::Cluster;
use crate::config::Config;
use crate::limits::{Budgets, ClientAddr, Refused};
use crate::metrics::Metrics;
use crate::moderation::store::ModDb;
use crate::moderation::Sanctions;
use crate::pairing::{NoShow, Pairing, PairingApi, PoolId, TableOpener};
use crate::push::Push;
use crate::registry::{Registry, RegistryParts};
use crate::room::{Host, Notice, NoticeKind, Room, RoomError, RoomHandle, RoomSettings};
use crate::store::column::Json as _;
use crate::store::{Store, StoredSeat};
use futures_util::future::BoxFuture;

/// The application's state, shared by the web handlers and the rooms.
#[derive(Debug)]
pub struct Shared {
    /// Configuration.
    pub config: Arc<Config>,
    /// Database.
    pub store: Store,
    /// Counters.
    pub metrics: Arc<Metrics>,
    /// Runs the bots' searches of every room (bounded concurrency).
    pub bots: Arc<Bots>,
    /// The rooms of this node.
    pub rooms: Arc<Registry>,
    /// Cancelled on shutdown (the rooms' token); rooms then close their connections
    /// and stop.
    pub shutdown: CancellationToken,
    /// Tracks room tasks so shutdown can wait for them.
    pub tracker: TaskTracker,
    /// Per-client-address budgets (rooms created, WebSockets open).
    pub budgets: Arc<Budgets>,
    /// Accounts, sessions and ratings.
    pub accounts: Arc<Accounts>,
    /// Cluster mode: this node's membership (`cluster`); None for a single node.
    pub cluster: Option<Arc<Cluster>>,
    /// Quick pairing: the matcher of this node (a single node, or the cluster's
    /// matcher when this node holds its lease).
    pub matcher: Arc<Pairing>,
    /// Quick pairing, wherever the matcher runs.
    pub pairing: Arc<dyn PairingApi>,
    /// The lobby's latest picture, as the text of a server-sent event (`http/feed.rs`).
    pub lobby: tokio::sync::watch::Sender<Arc<str>>,
    /// `GET /api/tv`'s last answer and when it was chosen: every request within a few
    /// seconds of it gets it without a walk over the rooms (`http/lobby.rs`).
    pub tv: std::sync::Mutex<Option<(std::time::Instant, Option<String>)>>,
    /// Web Push notifications.
    pub push: Arc<Push>,
    /// Moderation's queries (the sanctions in force are `rooms.sanctions`).
    pub moderation: ModDb,
    /// Computer reviews of finished games.
    pub reviews: Arc<crate::review::Reviews>,
}

impl Shared {
    /// New state; no rooms yet. `mailer` sends the mail of account recovery.
    pub fn new(
        config: Config,
        store: Store,
        cluster: Option<Arc<Cluster>>,
        mailer: Option<Mailer>,
    ) -> Arc<Shared> {
        let metrics = Arc::new(Metrics::default());
        let bots = Arc::new(Bots::new(config.bots));
        // In a cluster the budgets are the site's, counted in the shared database.
        let site = cluster.as_ref().map(|c| crate::limits::Site {
            store: store.clone(),
            node: c.node.clone(),
        });
        Arc::new_cyclic(|me: &std::sync::Weak<Shared>| {
            let host: std::sync::Weak<dyn Host> = me.clone();
            let rooms = Arc::new(Registry::new(
                RegistryParts {
                    config: Arc::new(config.room_config()),
                    store: store.clone(),
                    metrics: metrics.clone(),
                    bots: bots.clone(),
                    max_open: config.max_rooms,
                    sanctions: Arc::new(Sanctions::default()),
                },
                host,
            ));
            let matcher = Arc::new(Pairing::new(
                store.clone(),
                config.time.clone(),
                Arc::new(PairedTables(me.clone())),
            ));
            let pairing: Arc<dyn PairingApi> = match &cluster {
                Some(c) => c.pairing(matcher.clone()),
                None => matcher.clone(),
            };
            Shared {
                moderation: ModDb::new(&store),
                reviews: Arc::new(crate::review::Reviews::new(
                    store.clone(),
                    config.review,
                    cluster.as_ref().map(|c| c.node.clone()),
                    site.as_ref().map(|s| &s.store),
                )),
                lobby: tokio::sync::watch::channel(Arc::<str>::from("")).0,
                tv: std::sync::Mutex::new(None),
                push: Arc::new(Push::new(config.push.clone(), metrics.clone())),
                matcher,
                pairing,
                budgets: Arc::new(Budgets::new(&config.clients, site.as_ref())),
                accounts: Arc::new(Accounts::new(
                    &store,
                    config.accounts.clone(),
                    mailer,
                    site.as_ref().map(|s| &s.store),
                )),
                shutdown: rooms.shutdown.clone(),
                tracker: rooms.tracker.clone(),
                rooms,
                cluster,
                config: Arc::new(config),
                store,
                metrics,
                bots,
            }
        })
    }

    /// Creates and starts a room (from a position string, if given) with `settings`
    /// and, for a rematch, its seats already taken.
    ///
    /// # Errors
    /// `TooManyRooms`, `BadPosition`, `ShuttingDown`, database errors.
    pub async fn create_room(
        self: &Arc<Self>,
        position: Option<String>,
        settings: RoomSettings,
        seats: Vec<StoredSeat>,
    ) -> Result<Uuid, RoomError> {
        if self.shutdown.is_cancelled() {
            return Err(RoomError::ShuttingDown);
        }
        let start = start_position(position.as_deref())?;
        // Cluster mode: a rematch is written only while its room still holds its lease.
        let store = match (&self.cluster, settings.rematch_of) {
            (Some(c), Some(parent)) => c.store_for_child_of(parent)?,
            _ => self.store.clone(),
        };
        self.rooms.claim_open()?;
        let id = Uuid::new_v4();
        let start_text = start.as_ref().map(|p| p.to_string());
        // Cluster mode: the lease first, so that no other node takes the new room.
        let claimed = match &self.cluster {
            None => self.rooms.local_deps().map(|d| (d, None)),
            Some(c) => c
                .claim_new(&self.rooms, id)
                .await
                .map(|(deps, epoch, cancel)| (deps, Some((c, epoch, cancel)))),
        };
        let (deps, lease) = match claimed {
            Ok(c) => c,
            Err(e) => {
                self.rooms.room_closed();
                return Err(e);
            }
        };
        if let Err(e) = store
            .create_room(
                &id.to_string(),
                start_text.as_deref(),
                &settings.to_json(),
                &seats,
            )
            .await
        {
            self.rooms.room_closed();
            if let Some((c, epoch, _)) = lease {
                c.unclaim(id, epoch).await;
            }
            return Err(e.into());
        }
        let private = settings.private;
        let handle = self
            .rooms
            .start_claimed(Room::new(deps, id, start, settings, seats));
        if let Some((c, epoch, cancel)) = lease {
            c.adopt(&self.rooms, handle, epoch, cancel);
        }
        self.metrics.rooms_created.fetch_add(1, Ordering::Relaxed);
        info!(room = %id, custom = start_text.is_some(), private, "room created");
        Ok(id)
    }

    /// The room with this id, wherever it runs: in memory here, loaded from the
    /// database (a finished room after a restart), or in a cluster on another node.
    ///
    /// # Errors
    /// Database errors; `RoomBroken` for a room that cannot be restored.
    pub async fn room(self: &Arc<Self>, id: Uuid) -> Result<Option<RoomHandle>, RoomError> {
        if let Some(h) = self.rooms.local(id) {
            return Ok(Some(h));
        }
        if self.rooms.broken.reason(id).is_some() {
            return Err(RoomError::Broken(id.to_string()));
        }
        match &self.cluster {
            // Owned here, proxied to its owner, or taken over (`cluster`).
            Some(c) => c.room(&self.rooms, id).await,
            None => self.rooms.load(id).await,
        }
    }

    /// Up to `n` summaries of rooms (the site's in a cluster) that `keep` accepts, in
    /// id order from the first id after `after`.
    pub fn summaries_after(
        &self,
        after: Option<Uuid>,
        n: usize,
        keep: impl Fn(&RoomSummary) -> bool,
    ) -> Vec<RoomSummary> {
        let awake = match &self.cluster {
            Some(c) => c.summaries_after(after, n, &keep),
            None => self.rooms.summaries_after(after, n, &keep),
        };
        // The waiting rooms that sleep are listed too.
        crate::registry::merge_summaries(awake, self.rooms.dormant.after(after, n, &keep), n)
    }

    /// Whether room `id` runs on this node (or sleeps) and has not started.
    pub fn is_waiting_here(&self, id: Uuid) -> bool {
        self.rooms.dormant.contains(id)
            || self.rooms.local(id).is_some_and(|h| {
                h.summary.borrow().room.status == sannin_protocol::RoomStatus::Waiting
            })
    }

    /// A room with bots as the per-address count of rooms of bots alone sees it:
    /// `None` once it is finished or gone, else whether bots alone play it now.
    pub fn bot_room_state(&self, id: Uuid) -> Option<bool> {
        let h = self.rooms.local(id)?;
        let s = h.summary.borrow();
        (s.room.status != sannin_protocol::RoomStatus::Finished).then(|| is_bot_only_room(&s))
    }

    /// Asked before creating a room with the seats `seats` (`POST /api/rooms`): when
    /// all three are bots, a place under `--max-bot-only-rooms`, to keep until the
    /// room is created; `None` for any other room.
    ///
    /// # Errors
    /// `TooManyBotOnlyRooms` (429) when as many rooms of bots alone as allowed are
    /// running or being created.
    pub fn reserve_bot_only_room(
        &self,
        seats: &[StoredSeat],
    ) -> Result<Option<BotOnlyPlace>, Refused> {
        let bots_only = seats.len() == 3 && seats.iter().all(|s| s.bot.is_some());
        if !bots_only {
            return Ok(None);
        }
        let running = || {
            self.rooms
                .handles()
                .iter()
                .filter(|h| is_bot_only_room(&h.summary.borrow()))
                .count()
        };
        match self.bots.reserve_bot_only(running) {
            Some(place) => Ok(Some(place)),
            None => Err(Refused::BotOnlyRooms(
                self.bots.settings().max_bot_only_rooms,
            )),
        }
    }
}

/// The start position of a new room: `written` (a position string) or the standard
/// start (None).
///
/// # Errors
/// `BadPosition`: not a position, or one where the game is already over.
fn start_position(written: Option<&str>) -> Result<Option<Position>, RoomError> {
    let Some(s) = written.map(str::trim).filter(|s| !s.is_empty()) else {
        return Ok(None);
    };
    let p: Position = s
        .parse()
        .map_err(|e| RoomError::BadPosition(format!("{e}")))?;
    if p.to_move().is_none() {
        return Err(RoomError::BadPosition(
            "the game is already over in that position".into(),
        ));
    }
    Ok(Some(p))
}

impl Host for Shared {
    fn room_closed(&self) {
        self.rooms.room_closed();
    }

    fn unload_room(&self, id: Uuid) {
        self.rooms.unload(id);
    }

    fn waiting_room_asleep(&self, id: Uuid, summary: RoomSummary) {
        self.rooms.dormant.put(id, summary);
    }

    fn create_room(
        self: Arc<Self>,
        position: Option<String>,
        settings: RoomSettings,
        seats: Vec<StoredSeat>,
    ) -> Pin<Box<dyn Future<Output = Result<Uuid, RoomError>> + Send>> {
        Box::pin(async move { Shared::create_room(&self, position, settings, seats).await })
    }

    fn rated_game_over(&self, id: Uuid) {
        self.accounts.game_over(&self.tracker, id.to_string());
    }

    fn notify(&self, notice: Notice) {
        self.push.notify(notice);
    }

    fn table_aborted(
        self: Arc<Self>,
        id: Uuid,
        seat: Player,
        why: NoShow,
    ) -> Pin<Box<dyn Future<Output = ()> + Send>> {
        Box::pin(async move { self.pairing.table_aborted(id, seat, why).await })
    }
}

/// The matcher's tables: rooms of the pool's clock, their seats taken, created as
/// any room is (in a cluster, leased by this node).
#[derive(Debug)]
struct PairedTables(std::sync::Weak<Shared>);

impl TableOpener for PairedTables {
    fn open(
        &self,
        pool: PoolId,
        seats: Vec<StoredSeat>,
        requester: Option<std::net::IpAddr>,
    ) -> BoxFuture<'_, Result<Uuid, RoomError>> {
        Box::pin(async move {
            let shared = self.0.upgrade().ok_or(RoomError::ShuttingDown)?;
            let settings = RoomSettings {
                clock: Some(pool.preset().clock),
                rated: pool.rated,
                paired: true,
                // Its bots search in the lane of the address that asked, as a room's
                // made by that address do.
                created_by: requester.map(ClientAddr::of),
                ..RoomSettings::default()
            };
            let live = !matches!(
                settings.clock.as_ref().map(|c| c.kind),
                Some(ClockKind::Correspondence)
            );
            let id = Shared::create_room(&shared, None, settings, seats.clone()).await?;
            // A table with bots counts among its requester's rooms with bots (of bots
            // alone once the person is out).
            if let Some(addr) = requester {
                if seats.iter().any(|s| s.bot.is_some()) {
                    shared.budgets.note_bot_room(ClientAddr::of(addr), id);
                }
            }
            // Each person learns that its ticket found a table.
            for s in seats.iter().filter(|s| s.bot.is_none()) {
                shared.push.notify(Notice {
                    kind: NoticeKind::Matched,
                    room: id,
                    seat: s.seat,
                    token_hash: s.token_hash.clone(),
                    account_id: s.account_id.clone(),
                    others: seats
                        .iter()
                        .filter(|o| o.seat != s.seat)
                        .map(|o| o.name.clone())
                        .collect(),
                    deadline_ms: None,
                    live,
                });
            }
            Ok(id)
        })
    }
}
