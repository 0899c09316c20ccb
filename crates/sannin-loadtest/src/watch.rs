//! Connections that do not play: spectators of the first room (`--spectators`) and
//! idle seated connections (`--idle`).

use std::net::IpAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{bail, Context as _};
use futures_util::SinkExt;
use sannin_protocol::{ClientMsg, RoomStatus, Seat};
use tokio::sync::Semaphore;
use tokio_tungstenite::tungstenite::Message;

use crate::client::{connect, next_text, read};
use crate::player::Gate;
use crate::report::{self, IdleReport, Latency, SpectatorReport};
use crate::target::{rss_kib, Target};
use crate::{wire, Rooms};

/// `--idle`: seats three silent connections in every room, then measures the memory.
pub(super) async fn idle_connections(
    target: &Target,
    rooms: &Rooms,
    sem: &Arc<Semaphore>,
) -> anyhow::Result<IdleReport> {
    let (addr, ids) = (target.addr, &rooms.ids);
    let t = Instant::now();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(300);
    let mut tasks = Vec::with_capacity(ids.len() * 3);
    for id in ids {
        for seat in Seat::ALL {
            let url = format!("ws://{addr}/api/rooms/{id}/ws");
            let sem = sem.clone();
            tasks.push(tokio::spawn(async move {
                let mut ws = connect(&url, None, &sem).await?;
                let join = ClientMsg::Join {
                    seat: Some(seat),
                    name: Some(format!("idle-{seat}")),
                };
                ws.send(Message::Text(join.to_text().into())).await?;
                loop {
                    let Some(text) = next_text(&mut ws, deadline).await? else {
                        bail!("closed before seated");
                    };
                    let m = read(&text)?;
                    match &*m.kind {
                        "seated" => return Ok(ws),
                        "error" => bail!(m.error_text()),
                        _ => {}
                    }
                }
            }));
        }
    }
    let mut open = Vec::with_capacity(tasks.len());
    for task in tasks {
        open.push(task.await??);
    }
    tokio::time::sleep(Duration::from_millis(500)).await;
    let rss_conn = rss_kib(target.pid);
    println!(
        "idle: {} connections seated (three per room, silent) in {:.2} s",
        open.len(),
        t.elapsed().as_secs_f64()
    );
    let mut report = IdleReport {
        connections: open.len(),
        ..IdleReport::default()
    };
    if let (Some(b), Some(r), Some(c)) = (rooms.rss_before, rooms.rss_idle, rss_conn) {
        report = IdleReport {
            rss_before_kib: b,
            rss_rooms_kib: r,
            rss_connections_kib: c,
            kib_per_room: r.saturating_sub(b) as f64 / ids.len().max(1) as f64,
            kib_per_connection: c.saturating_sub(r) as f64 / open.len().max(1) as f64,
            connections: open.len(),
        };
        println!(
            "idle memory: RSS {:.1} MiB before, {:.1} MiB with {} rooms, {:.1} MiB with {} \
             seated connections → {}, {}",
            b as f64 / 1024.0,
            r as f64 / 1024.0,
            ids.len(),
            c as f64 / 1024.0,
            open.len(),
            report::kib_each(b, r, ids.len(), "idle room"),
            report::kib_each(r, c, open.len(), "idle connection")
        );
    } else {
        println!("idle memory: unknown (pass --server-pid)");
    }
    for mut ws in open {
        let _ = ws.close(None).await;
    }
    Ok(report)
}

/// What one spectator received: the `seq` of the `state` that answered its `watch`,
/// then every event's `seq` with the moment it arrived.
pub(super) struct Watched {
    from_seq: u64,
    events: Vec<(u64, Instant)>,
}

/// A spectator of one room: `watch`, then record every event until the room's game
/// ends or reaches `plies` actions.
pub(super) async fn spectate(
    url: String,
    source: Option<IpAddr>,
    sem: Arc<Semaphore>,
    gate: Arc<Gate>,
    plies: usize,
    deadline: tokio::time::Instant,
) -> anyhow::Result<Watched> {
    let mut ws = match connect(&url, source, &sem).await {
        Ok(ws) => ws,
        Err(e) => {
            gate.wait().await;
            return Err(e);
        }
    };
    let watch = ClientMsg::Watch {
        name: Some("load".into()),
    };
    let mut watched = None;
    let result = async {
        ws.send(Message::Text(watch.to_text().into())).await?;
        // The `state` answering `watch`; events before it are already in it.
        let mut plies_seen = wire::Plies::default();
        let from_seq = loop {
            let Some(text) = next_text(&mut ws, deadline).await? else {
                bail!("closed before watching");
            };
            let m = read(&text)?;
            plies_seen.see(&m);
            match &*m.kind {
                "state" => break m.seq.unwrap_or_default(),
                "error" => bail!(m.error_text()),
                _ => {}
            }
        };
        gate.wait().await;
        let w = watched.insert(Watched {
            from_seq,
            events: Vec::new(),
        });
        loop {
            let Some(text) = next_text(&mut ws, deadline).await? else {
                bail!("closed while watching");
            };
            let m = read(&text)?;
            plies_seen.see(&m);
            match &*m.kind {
                "event" => w.events.push((m.seq.unwrap_or_default(), Instant::now())),
                "state" => {
                    let status = m.status.unwrap_or_default();
                    if status == RoomStatus::Finished
                        || (status == RoomStatus::Playing && plies_seen.0 >= plies)
                    {
                        return Ok(());
                    }
                }
                "error" => bail!(m.error_text()),
                _ => {}
            }
        }
    }
    .await;
    if watched.is_none() {
        gate.wait().await;
    }
    let _ = ws.close(None).await;
    result?;
    watched.context("no state")
}

pub(super) fn spectator_report(
    acted: &[(u64, Instant)],
    watchers: &[Watched],
    n: usize,
) -> SpectatorReport {
    // Per action: how many spectators received its event, and the last receipt.
    let mut last: std::collections::HashMap<u64, (usize, Option<Instant>)> =
        acted.iter().map(|(seq, _)| (*seq, (0, None))).collect();
    let mut complete = 0;
    for w in watchers {
        let mut expected = w.from_seq + 1;
        let mut gapless = true;
        let mut received = 0;
        for (seq, at) in &w.events {
            gapless &= *seq == expected;
            expected = seq + 1;
            if let Some((count, l)) = last.get_mut(seq) {
                *count += 1;
                received += 1;
                *l = Some(l.map_or(*at, |l| l.max(*at)));
            }
        }
        complete += usize::from(gapless && received == acted.len());
    }
    // Only actions every spectator received count towards the latency.
    let latencies = acted
        .iter()
        .filter_map(|(seq, sent)| {
            let (count, at) = last.get(seq).copied()?;
            let at = at.filter(|_| count == n)?;
            Some(
                at.saturating_duration_since(*sent)
                    .as_micros()
                    .min(u32::MAX as u128) as u32,
            )
        })
        .collect();
    SpectatorReport {
        watching: watchers.len(),
        actions: acted.len(),
        complete,
        latency: Latency::of(latencies),
    }
}
