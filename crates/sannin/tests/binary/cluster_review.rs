//! Computer review in a cluster: a node that reviews nothing queues the review, a node
//! with a free worker runs it, and every node answers the result from the shared
//! database.

use crate::{cluster_support, common};
use std::time::{Duration, Instant};

use cluster_support::{prefix, Node, Pg};
use sannin_protocol::{ClientMsg, RoomStatus};
use sannin_testkit::Table;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_review_asked_on_one_node_runs_on_another_and_is_shared() {
    let dir = tempfile::tempdir().unwrap();
    let Some(pg) = Pg::for_cluster() else { return };
    let p = prefix();
    let asking = Node::start_with(&pg, &p, 4.0, dir.path(), &["--review-workers", "0"]);
    let reviewing = Node::start_with(
        &pg,
        &p,
        4.0,
        dir.path(),
        &["--review-workers", "1", "--review-nodes", "1500"],
    );
    let room = asking.create_room();
    let url = asking.ws(&room);
    let mut t = Table::start(room.clone(), [&url, &url, &url], &url).await;
    for _ in 0..4 {
        let action = t.mover().state().legal[0].clone();
        t.play(&action).await;
    }
    for i in [1, 2] {
        t.players[i].send(ClientMsg::Resign).await;
    }
    t.spectator
        .until_state("finished", |s| s.status == RoomStatus::Finished)
        .await;

    let path = format!("/api/rooms/{room}/review");
    let (status, body) = common::http(&asking.addr, "POST", &path, "{}").unwrap();
    assert_eq!(status, 200, "{body}");
    let end = Instant::now() + Duration::from_secs(60);
    let done = loop {
        let r = asking.get_json(&path);
        if r["state"] == "done" {
            break r;
        }
        assert_ne!(r["state"], "failed", "{r}");
        assert!(Instant::now() < end, "the review did not finish: {r}");
        std::thread::sleep(Duration::from_millis(200));
    };
    // Four moves and two resignations: seven positions with the start.
    assert_eq!(done["positions"].as_array().unwrap().len(), 7, "{done}");
    assert_eq!(done["moves"][4]["action"], "resign");
    assert_eq!(
        reviewing.get_json(&path),
        done,
        "every node answers the same"
    );
    assert!(reviewing.log_text().contains("computer review done"));
    assert!(!asking.log_text().contains("computer review done"));
}
