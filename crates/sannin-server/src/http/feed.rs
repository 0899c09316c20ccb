//! The lobby, live (`GET /api/lobby/events`, server-sent events): the open tables
//! with who sits where, the games under way, and the people waiting in each pool of
//! quick pairing — sent at once, then again whenever it changes, so that the lobby
//! needs no Refresh button.
//!
//! One task per node builds the lobby's picture twice a second and keeps the latest
//! as text; each stream sends it when it changed, so that a thousand lobbies cost one
//! picture, not a thousand.

use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::State;
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use futures_util::stream::{self, Stream};
use sannin_protocol::{RoomStatus, RoomSummary};
use serde::Serialize;
use tokio::sync::watch;

use super::ClientAddr;
use crate::app::Shared;
use crate::http::ApiError;
use crate::pairing::PoolInfo;

/// How often the lobby's picture is built.
const EVERY: Duration = Duration::from_millis(500);

/// Rooms of each list in the picture (the lobby pages through more with
/// `GET /api/rooms`).
const PER_LIST: usize = 100;

/// The lobby's picture.
#[derive(Debug, Serialize)]
struct Picture {
    /// Open tables: public rooms waiting for players.
    waiting: Vec<RoomSummary>,
    /// Public games under way.
    playing: Vec<RoomSummary>,
    /// The pools of quick pairing and the people waiting in each.
    pools: Vec<PoolInfo>,
}

/// Builds the lobby's picture every half second until shutdown; the latest, as the
/// text of a server-sent event, in `shared.lobby`.
pub fn start(shared: &Arc<Shared>) {
    let shared = shared.clone();
    tokio::spawn(async move {
        let mut every = tokio::time::interval(EVERY);
        every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tokio::select! {
                () = shared.shutdown.cancelled() => return,
                _ = every.tick() => {}
            }
            let pools = shared.pairing.pools().await.unwrap_or_default();
            let list = |status: RoomStatus| {
                // A waiting table of pairing has no free seat: not an open table.
                shared.summaries_after(None, PER_LIST, |s| {
                    !s.room.private
                        && s.room.status == status
                        && !(status == RoomStatus::Waiting && s.room.paired)
                })
            };
            let picture = Picture {
                waiting: list(RoomStatus::Waiting),
                playing: list(RoomStatus::Playing),
                pools,
            };
            let Ok(text) = serde_json::to_string(&picture) else {
                continue;
            };
            shared.lobby.send_if_modified(|old| {
                let changed = **old != *text;
                if changed {
                    *old = Arc::from(text);
                }
                changed
            });
        }
    });
}

/// `GET /api/lobby/events`: the lobby's picture now, then at each change. The stream
/// holds one of its client's places under `--max-ws-per-address`.
pub(super) async fn events(
    State(shared): State<Arc<Shared>>,
    client: ClientAddr,
) -> Result<Response, ApiError> {
    let held = shared.budgets.open_stream(client).await?;
    let rx = shared.lobby.subscribe();
    let stop = shared.shutdown.clone();
    Ok(Sse::new(pictures(rx, stop, held))
        .keep_alive(KeepAlive::default())
        .into_response())
}

/// The pictures of `rx`, the current one first, until `stop`; `held` lives as long.
fn pictures<H: Send + 'static>(
    rx: watch::Receiver<Arc<str>>,
    stop: tokio_util::sync::CancellationToken,
    held: H,
) -> impl Stream<Item = Result<Event, Infallible>> {
    stream::unfold(
        (rx, stop, held, true),
        |(mut rx, stop, held, first)| async move {
            if !first {
                tokio::select! {
                    () = stop.cancelled() => return None,
                    changed = rx.changed() => changed.ok()?,
                }
            }
            let mut text = rx.borrow_and_update().clone();
            while text.is_empty() {
                // Not built yet: the first picture comes within half a second.
                tokio::select! {
                    () = stop.cancelled() => return None,
                    changed = rx.changed() => changed.ok()?,
                }
                text = rx.borrow_and_update().clone();
            }
            let event = Event::default().event("lobby").data(&*text);
            Some((Ok(event), (rx, stop, held, false)))
        },
    )
}
