//! Running one review: the stored game replayed position by position, each searched
//! on the blocking pool, the progress and the lease renewed as it goes, the result
//! stored as JSON.

use std::time::{Duration, Instant};

use anyhow::Context as _;
use sannin_bot::review::{judge, review_position, Judgement, PositionReview};
use sannin_protocol::Seat;
use sannin_rules::{Game, Player, Position};
use serde_json::{json, Value};
use tokio_util::sync::CancellationToken;
use tracing::info;

use super::{lease_until, store, Reviews};
use crate::history::apply_stored;
use crate::store::{ActionKind, StoredAction};

/// Progress is written at most this often (and after the last position).
const PROGRESS_EVERY: Duration = Duration::from_millis(500);

/// One ply of the reviewed game, as [`review_json`] writes it.
#[derive(Debug, Clone, PartialEq)]
pub struct Played {
    /// Who acted; None for an agreed draw.
    pub player: Option<Player>,
    /// As a history writes it: notation, or `resign`, `timeout`, `abandon`, `draw`.
    pub action: String,
    /// For a move of the board: the share of the game it gave away and its
    /// judgement; None for an ending outside play.
    pub judged: Option<(f64, Option<Judgement>)>,
}

/// Reviews `game`'s position, then judges and plays `next` (the stored action that
/// follows it, if any). Runs on the blocking pool.
fn review_ply(
    mut game: Game,
    next: Option<StoredAction>,
    nodes: u64,
) -> anyhow::Result<(Game, PositionReview, Option<Played>)> {
    let found = review_position(&game, nodes);
    let Some(a) = next else {
        return Ok((game, found, None));
    };
    let judged = match a.kind {
        ActionKind::Act => {
            let action = game
                .parse_action(&a.text)
                .map_err(|e| anyhow::anyhow!("action {} ({:?}): {e}", a.ply, a.text))?;
            Some(judge(&game, &found, action, nodes))
        }
        _ => None,
    };
    let (action, _) = apply_stored(&mut game, &a)?;
    let ply = Played {
        player: a.player,
        action,
        judged,
    };
    Ok((game, found, Some(ply)))
}

impl Reviews {
    /// Reviews `room` (leased by `node`) and stores the result. On `shutdown` the review
    /// goes back to the queue, for this node's next start or another node.
    pub(super) async fn run(
        &self,
        room: &str,
        node: &str,
        shutdown: &CancellationToken,
    ) -> anyhow::Result<()> {
        let started = Instant::now();
        let row = store::find(&self.store, room)
            .await?
            .context("the review's row went missing")?;
        let nodes = u64::try_from(row.nodes).unwrap_or(1).max(1);
        let stored = self
            .store
            .load_room(room)
            .await
            .map_err(|e| anyhow::anyhow!("{e}"))?
            .context("the reviewed room is gone")?;
        let start: Position = match &stored.start_position {
            None => Position::start(),
            Some(s) => s
                .parse()
                .map_err(|e| anyhow::anyhow!("start position: {e}"))?,
        };
        let mut game = Game::from_position(start);
        let mut positions = Vec::with_capacity(stored.actions.len() + 1);
        let mut played = Vec::with_capacity(stored.actions.len());
        let mut written = Instant::now();
        for k in 0..=stored.actions.len() {
            if shutdown.is_cancelled() {
                store::release(&self.store, Some(node)).await?;
                return Ok(());
            }
            let next = stored.actions.get(k).cloned();
            let (g, found, ply) =
                match tokio::task::spawn_blocking(move || review_ply(game, next, nodes)).await {
                    Ok(r) => r?,
                    // The runtime is going away (the server stops or dies) before the
                    // search ran: not the review's fault. It stays leased, as when the
                    // process dies mid-search, and is taken up again after the restart.
                    Err(e) if e.is_cancelled() => return Ok(()),
                    Err(e) => {
                        return Err(anyhow::Error::new(e).context("a review's search stopped"))
                    }
                };
            game = g;
            positions.push(found);
            played.extend(ply);
            if written.elapsed() >= PROGRESS_EVERY {
                written = Instant::now();
                let done = i64::try_from(positions.len()).unwrap_or(i64::MAX);
                if !store::progress(&self.store, room, node, done, lease_until()).await? {
                    // Taken over after a lease that ran out: the other node finishes it.
                    return Ok(());
                }
            }
        }
        let result = review_json(&positions, &played).to_string();
        let total = i64::try_from(positions.len()).unwrap_or(i64::MAX);
        if store::finish(&self.store, room, node, true, &result, total).await? {
            info!(
                room,
                positions = total,
                nodes,
                ms = started.elapsed().as_millis() as u64,
                "computer review done"
            );
        }
        Ok(())
    }
}

/// A player on the wire: `first`, `middle`, `last`.
fn seat(p: Player) -> Value {
    serde_json::to_value(Seat::from(p)).unwrap_or(Value::Null)
}

/// Three values by seat.
fn by_seat<T: Into<Value> + Copy>(v: [T; 3]) -> Value {
    Value::Object(
        Player::ALL
            .iter()
            .map(|p| {
                let key = seat(*p).as_str().unwrap_or_default().to_string();
                (key, v[p.index()].into())
            })
            .collect(),
    )
}

/// The result of a review (docs/protocol.md, "Computer review"): every position with
/// the search's findings and the players' shares, every ply with its judgement, and
/// each player's count of inaccuracies, mistakes and blunders. `positions` has one
/// more entry than `played` (the start).
pub fn review_json(positions: &[PositionReview], played: &[Played]) -> Value {
    let mut counts = [[0u32; 3]; 3];
    let moves: Vec<Value> = played
        .iter()
        .enumerate()
        .map(|(i, p)| {
            if let (Some(m), Some((_, Some(j)))) = (p.player, p.judged) {
                counts[m.index()][j as usize] += 1;
            }
            let best = p.judged.and(positions[i].best.clone());
            json!({
                "ply": i + 1,
                "player": p.player.map(seat),
                "action": p.action,
                "best": best,
                "loss": p.judged.map(|(loss, _)| (loss * 1000.0).round() / 1000.0),
                "judgement": p.judged.and_then(|(_, j)| j).map(Judgement::name),
            })
        })
        .collect();
    let positions: Vec<Value> = positions
        .iter()
        .enumerate()
        .map(|(k, r)| {
            json!({
                "ply": k,
                "player": r.player.map(seat),
                "best": r.best,
                "line": r.line,
                "score": r.score,
                "mate": r.mate,
                "evaluations": by_seat(r.evaluations),
                "shares": by_seat(r.shares.map(|s| (s * 1000.0).round() / 1000.0)),
            })
        })
        .collect();
    let counts = Value::Object(
        Player::ALL
            .iter()
            .map(|p| {
                let key = seat(*p).as_str().unwrap_or_default().to_string();
                let c = counts[p.index()];
                let named = Judgement::ALL
                    .iter()
                    .map(|j| (j.name().to_string(), c[*j as usize].into()))
                    .collect();
                (key, Value::Object(named))
            })
            .collect(),
    );
    json!({ "positions": positions, "moves": moves, "counts": counts })
}
