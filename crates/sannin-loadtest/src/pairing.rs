//! Quick pairing under load (`--pairing N`): N people ask for a game in one casual
//! pool (10+5), arriving at an even pace over `--pairing-seconds`, each with a ticket
//! of its own (`POST /api/pairing`) and a long poll of its status until it is matched
//! (`GET /api/pairing/{ticket}?wait=25`). Reported: how many were matched, the time
//! from the third ticket of a table to each of its people learning the table
//! (p50/p95/p99), and the server's CPU per ticket. The tickets are taken out at the
//! end, so that the tables, which nobody joins, are given up with nobody to send back.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::client::http;
use crate::report::{Latency, PairingReport};
use crate::target::{cpu_us, Target};

/// The pool's clock, as a ticket asks for it.
const CLOCK: &str = r#"{"kind": "fischer", "main_seconds": 600, "increment_seconds": 5}"#;

/// One person's ticket and what became of it.
struct Outcome {
    ticket: String,
    made: Instant,
    matched: Option<(Instant, String)>,
}

/// Runs the pairing load against `target` and prints its report.
///
/// # Errors
/// None of its own: failed requests are counted.
pub(super) async fn run(target: &Target, tickets: usize, over: Duration) -> PairingReport {
    let addr = target.addr;
    let cpu_before = cpu_us(target.pid);
    let t0 = Instant::now();
    let mut tasks = Vec::with_capacity(tickets);
    for i in 0..tickets {
        let start = t0 + over.mul_f64(i as f64 / tickets.max(1) as f64);
        tasks.push(tokio::spawn(async move {
            tokio::time::sleep_until(start.into()).await;
            person(addr, i).await
        }));
    }
    let mut outcomes = Vec::with_capacity(tickets);
    let mut errors = 0;
    for t in tasks {
        match t.await {
            Ok(Ok(o)) => outcomes.push(o),
            _ => errors += 1,
        }
    }
    let elapsed = t0.elapsed();
    let cpu_after = cpu_us(target.pid);
    let report = measure(&outcomes, errors, tickets, cpu_before.zip(cpu_after));
    print(&report, over, elapsed, target.in_process());
    let outcomes = Arc::new(outcomes);
    for o in outcomes.iter() {
        let _ = http(addr, "DELETE", &format!("/api/pairing/{}", o.ticket), "").await;
    }
    report
}

/// One person: a ticket, then long polls until matched (or a minute passes).
async fn person(addr: SocketAddr, i: usize) -> anyhow::Result<Outcome> {
    let body = format!(r#"{{"clock": {CLOCK}, "name": "p{i}"}}"#);
    let (status, text) = http(addr, "POST", "/api/pairing", &body).await?;
    anyhow::ensure!(status == 201, "POST /api/pairing: {status} {text}");
    let made = Instant::now();
    let v: Value = serde_json::from_str(&text)?;
    let ticket = v["ticket"].as_str().unwrap_or_default().to_string();
    let give_up = made + Duration::from_secs(60);
    while Instant::now() < give_up {
        let path = format!("/api/pairing/{ticket}?wait=25");
        let (status, text) = http(addr, "GET", &path, "").await?;
        anyhow::ensure!(status == 200, "GET {path}: {status} {text}");
        let v: Value = serde_json::from_str(&text)?;
        if v["status"] == "matched" {
            let room = v["room"].as_str().unwrap_or_default().to_string();
            return Ok(Outcome {
                ticket,
                made,
                matched: Some((Instant::now(), room)),
            });
        }
    }
    Ok(Outcome {
        ticket,
        made,
        matched: None,
    })
}

fn measure(
    outcomes: &[Outcome],
    errors: usize,
    tickets: usize,
    cpu: Option<(u64, u64)>,
) -> PairingReport {
    let mut third: HashMap<&str, Instant> = HashMap::new();
    for o in outcomes {
        if let Some((_, room)) = &o.matched {
            let t = third.entry(room).or_insert(o.made);
            *t = (*t).max(o.made);
        }
    }
    let waits: Vec<u32> = outcomes
        .iter()
        .filter_map(|o| {
            let (seen, room) = o.matched.as_ref()?;
            let us = seen
                .saturating_duration_since(third[room.as_str()])
                .as_micros();
            Some(u32::try_from(us).unwrap_or(u32::MAX))
        })
        .collect();
    let matched = waits.len();
    PairingReport {
        tickets,
        matched,
        tables: third.len(),
        errors,
        third_to_matched: Latency::of(waits),
        cpu_us_per_ticket: cpu.map(|(b, a)| a.saturating_sub(b) as f64 / tickets.max(1) as f64),
    }
}

fn print(r: &PairingReport, over: Duration, elapsed: Duration, in_process: bool) {
    println!(
        "pairing: {} tickets over {:.1} s, done in {:.1} s: {} matched at {} tables, {} errors",
        r.tickets,
        over.as_secs_f64(),
        elapsed.as_secs_f64(),
        r.matched,
        r.tables,
        r.errors
    );
    let l = &r.third_to_matched;
    println!(
        "pairing: third ticket of a table → each of its people told: p50 {:.1} ms, p95 {:.1} ms, p99 {:.1} ms, max {:.1} ms",
        l.p50_ms, l.p95_ms, l.p99_ms, l.max_ms
    );
    if let Some(us) = r.cpu_us_per_ticket {
        println!(
            "pairing: {} CPU {us:.0} µs per ticket (made, long polled, matched, its share of the room)",
            if in_process { "process (server and load generator)" } else { "server" }
        );
    }
}
