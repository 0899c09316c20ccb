//! The action writer: what storing an action costs, by the number of rooms that send
//! a row at once. As under load, rooms are tasks of their own on the runtime's
//! threads: each sends its row to the writer and waits for its commit
//! (`store/writer.rs`), and a commit takes every row waiting (the rows a commit
//! actually took are printed after each size). The time measured is the CPU time of
//! the whole process (the writer's thread, the runtime's threads that run the rooms
//! and are woken for them), not the time a room waits.
//!
//! `cargo bench -p sannin-server --bench store`

use std::time::Duration;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use sannin_rules::Player;
use sannin_server::{ActionKind, Store, StoredAction};
use tokio::sync::{mpsc, oneshot};

/// Rooms playing at once: a load test's 10,002 connections.
const ROOMS: usize = 3334;

/// The most rooms sending a row at once: as many room tasks.
const MOST: usize = 32;

fn bench(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}", dir.path().join("bench.db").display());
    let (store, rooms) = runtime.block_on(async {
        let store = Store::connect(&url, 4).await.unwrap();
        let mut rooms = Vec::with_capacity(ROOMS);
        for _ in 0..ROOMS {
            let id = uuid::Uuid::new_v4().to_string();
            store.create_room(&id, None, "{}", &[]).await.unwrap();
            rooms.push(id);
        }
        (store, rooms)
    });
    let tasks = Tasks::spawn(&runtime, &store);
    let mut plies = vec![0i64; ROOMS];
    // The rooms take turns all over the primary key's index, as players do.
    let mut turns = (0..ROOMS).cycle().step_by(7);

    let mut g = c.benchmark_group("action_writer");
    g.measurement_time(Duration::from_secs(8));
    for rows in [1usize, 2, 8, MOST] {
        g.throughput(Throughput::Elements(rows as u64));
        let before = store.action_commits();
        g.bench_with_input(BenchmarkId::new("rows_at_once", rows), &rows, |b, &rows| {
            b.iter_custom(|iters| {
                // Every row of the sample, made before the clock starts.
                let work: Vec<Vec<Row>> = (0..iters)
                    .map(|_| {
                        (0..rows)
                            .map(|_| {
                                let r = turns.next().unwrap_or(0);
                                plies[r] += 1;
                                (rooms[r].clone(), action(plies[r]))
                            })
                            .collect()
                    })
                    .collect();
                let started = cpu_time();
                runtime.block_on(tasks.play(work));
                cpu_time().saturating_sub(started)
            })
        });
        let after = store.action_commits();
        let (commits, stored) = (after.0 - before.0, after.1 - before.1);
        println!(
            "{rows} rows at once: {stored} rows in {commits} commits, {:.2} rows a commit",
            stored as f64 / commits.max(1) as f64
        );
    }
    g.finish();
}

/// A room's row: its id and the action.
type Row = (String, StoredAction);

/// A sample's rows, turn by turn, and where to say they are stored.
type Work = (Vec<Vec<Row>>, oneshot::Sender<()>);

/// [`MOST`] room tasks, each storing the rows it is given, and the task that gives
/// them out: the bench's thread wakes it once a sample.
struct Tasks {
    driver: mpsc::UnboundedSender<Work>,
}

impl Tasks {
    fn spawn(runtime: &tokio::runtime::Runtime, store: &Store) -> Tasks {
        let (stored_tx, mut stored_rx) = mpsc::unbounded_channel::<()>();
        let rooms: Vec<mpsc::UnboundedSender<Row>> = (0..MOST)
            .map(|_| {
                let (tx, mut rx) = mpsc::unbounded_channel::<Row>();
                let (store, stored) = (store.clone(), stored_tx.clone());
                runtime.spawn(async move {
                    while let Some((room, a)) = rx.recv().await {
                        store.append_action(&room, &a, None, None).await.unwrap();
                        let _ = stored.send(());
                    }
                });
                tx
            })
            .collect();
        let (driver, mut work_rx) = mpsc::unbounded_channel::<Work>();
        runtime.spawn(async move {
            while let Some((work, done)) = work_rx.recv().await {
                for turn in work {
                    let n = turn.len();
                    for (room, row) in rooms.iter().zip(turn) {
                        let _ = room.send(row);
                    }
                    for _ in 0..n {
                        stored_rx.recv().await;
                    }
                }
                let _ = done.send(());
            }
        });
        Tasks { driver }
    }

    /// Stores `work`: for each turn, its rows at once, one a room task, and waits for
    /// all of them before the next turn.
    async fn play(&self, work: Vec<Vec<Row>>) {
        let (done, finished) = oneshot::channel();
        let _ = self.driver.send((work, done));
        let _ = finished.await;
    }
}

/// The CPU time of the process so far, all its threads.
fn cpu_time() -> Duration {
    let t = rustix::time::clock_gettime(rustix::time::ClockId::ProcessCPUTime);
    Duration::new(t.tv_sec as u64, t.tv_nsec as u32)
}

/// A move of a game without a clock, as the load test's games store them.
fn action(ply: i64) -> StoredAction {
    StoredAction {
        ply,
        kind: ActionKind::Act,
        player: Some(Player::ALL[(ply as usize - 1) % 3]),
        text: "S1f-2e".into(),
        clocks: None,
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
