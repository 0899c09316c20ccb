//! The budgets and places of the requests that cost CPU: replays of records and
//! stored games (`POST /api/replay`, `GET /api/rooms/{id}/history`), analyses
//! (`POST /api/analyse`), and look-ups of players by name.
//!
//! Every such request takes its place and its budget *before* any work: a refused
//! request costs the server a map look-up. The work itself runs on the blocking pool,
//! never on the async threads that serve the games, and no more of it at once than
//! its places allow; a request that finds them taken waits a little in line (first
//! come, first served), then is answered `503`.
//!
//! Analysis is shared per address: one address has at most
//! `--analyses-per-address` requests running or waiting, and the waiting line is
//! first come, first served, so a few addresses asking again and again cannot keep a
//! newcomer out: it waits behind at most one request of each of them.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use governor::Quota;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use super::{Budgets, ClientAddr, Refused};

/// How long a replay waits for a place before `503 busy`.
pub const REPLAY_WAIT: Duration = Duration::from_secs(2);

/// The resolved settings of the CPU work of requests.
#[derive(Debug, Clone, Default)]
pub struct WorkLimits {
    /// Replays and histories per address (`None`: unlimited).
    pub replays: Option<Quota>,
    /// Look-ups of players by name per address (`None`: unlimited).
    pub lookups: Option<Quota>,
    /// Reports per address (`None`: unlimited).
    pub reports: Option<Quota>,
    /// Replays and histories at once (server-wide).
    pub replay_concurrency: usize,
    /// Analyses running or waiting per address (0: unlimited).
    pub analyses_per_address: usize,
    /// How long an analysis waits in line for a place.
    pub analysis_wait: Duration,
}

/// Half the cores, at least one: the rest stay with the games.
pub fn default_replay_concurrency() -> usize {
    (std::thread::available_parallelism().map_or(1, usize::from) / 2).max(1)
}

/// The places of [`WorkLimits`], kept in [`Budgets`].
#[derive(Debug)]
pub struct Work {
    limits: WorkLimits,
    replay_places: Arc<Semaphore>,
    /// Replays run so far (`sannin_replays_total`).
    replays_run: std::sync::atomic::AtomicU64,
    /// Analyses running or waiting, per address; an address leaves with its last.
    analysers: Arc<Mutex<HashMap<ClientAddr, usize>>>,
}

impl Work {
    /// Full budgets and free places.
    pub fn new(l: &WorkLimits) -> Work {
        Work {
            limits: l.clone(),
            replay_places: Arc::new(Semaphore::new(l.replay_concurrency.max(1))),
            replays_run: std::sync::atomic::AtomicU64::new(0),
            analysers: Arc::new(Mutex::new(HashMap::new())),
        }
    }
}

/// One of an address's analyses, running or waiting; its count drops with it.
#[derive(Debug)]
pub struct AnalysisTurn {
    addr: ClientAddr,
    analysers: Arc<Mutex<HashMap<ClientAddr, usize>>>,
}

impl Drop for AnalysisTurn {
    fn drop(&mut self) {
        let mut m = self
            .analysers
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(n) = m.get_mut(&self.addr) {
            *n -= 1;
            if *n == 0 {
                m.remove(&self.addr);
            }
        }
    }
}

impl Budgets {
    /// Analyses running now.
    pub fn analyses_running(&self) -> usize {
        self.analysis_concurrency
            .saturating_sub(self.analysis_slots.available_permits())
    }

    /// Replays run so far, each in one of the `--replay-concurrency` places.
    pub fn replays_run(&self) -> u64 {
        self.work
            .replays_run
            .load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Runs the replay `f` on the blocking pool once a place is free.
    ///
    /// # Errors
    /// `busy` when no place frees within [`REPLAY_WAIT`].
    pub async fn replay<T: Send + 'static>(
        &self,
        f: impl FnOnce() -> T + Send + 'static,
    ) -> Result<T, Refused> {
        let place =
            tokio::time::timeout(REPLAY_WAIT, self.work.replay_places.clone().acquire_owned())
                .await
                .map_err(|_| Refused::Busy("replaying games"))?
                .map_err(|_| Refused::ShuttingDown)?;
        self.work
            .replays_run
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        tokio::task::spawn_blocking(move || {
            let out = f();
            drop(place);
            out
        })
        .await
        .map_err(|e| Refused::Internal(e.into()))
    }

    /// `addr`'s turn at analysis: refused at once when the address already has
    /// `--analyses-per-address` analyses running or waiting.
    ///
    /// # Errors
    /// `AnalysisBusy`.
    pub fn analysis_turn(&self, addr: ClientAddr) -> Result<AnalysisTurn, Refused> {
        let max = self.work.limits.analyses_per_address;
        let mut m = self
            .work
            .analysers
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let n = m.entry(addr).or_insert(0);
        if max > 0 && *n >= max {
            return Err(Refused::AnalysisBusy);
        }
        *n += 1;
        Ok(AnalysisTurn {
            addr,
            analysers: self.work.analysers.clone(),
        })
    }

    /// A slot for one analysis: at once, or after waiting in line (first come, first
    /// served) at most the analysis wait.
    ///
    /// # Errors
    /// `AnalysisBusy` when none frees in time, or analysis is off.
    pub async fn analysis_slot(&self) -> Result<OwnedSemaphorePermit, Refused> {
        if self.analysis_concurrency == 0 {
            return Err(Refused::AnalysisBusy);
        }
        tokio::time::timeout(
            self.work.limits.analysis_wait,
            self.analysis_slots.clone().acquire_owned(),
        )
        .await
        .map_err(|_| Refused::AnalysisBusy)?
        .map_err(|_| Refused::AnalysisBusy)
    }
}
