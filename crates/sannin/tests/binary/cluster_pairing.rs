//! Quick pairing across a cluster of real `sannin serve` nodes (a throwaway
//! PostgreSQL database, the NATS on 127.0.0.1:4222): the pools are site-wide — people
//! on different nodes meet at one table — and when the node running the matcher is
//! killed with -9, another takes it over and no ticket is lost.

use std::time::{Duration, Instant};

use crate::cluster_support;

use cluster_support::{prefix, Node, Pg};
use sannin_testkit::http::http;
use serde_json::Value;

/// Short leases, so that a failover comes quickly.
const LEASE: f64 = 2.0;

const CLOCK: &str = r#"{"kind": "fischer", "main_seconds": 600, "increment_seconds": 5}"#;

/// A ticket of the 10+5 pool made on `node`; its secret.
fn ticket(node: &Node) -> String {
    let body = format!(r#"{{"clock": {CLOCK}}}"#);
    let end = Instant::now() + Duration::from_secs(30);
    loop {
        let (status, text) = http(&node.addr, "POST", "/api/pairing", &body).expect("POST");
        if status == 201 {
            let v: Value = serde_json::from_str(&text).unwrap();
            return v["ticket"].as_str().unwrap().to_string();
        }
        // 503 while no node holds the matcher's lease (at start, after a failover).
        assert_eq!(status, 503, "{text}");
        assert!(Instant::now() < end, "no matcher came");
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// The status of `ticket`, asked of `node`, waiting up to `wait` seconds for a change.
fn status(node: &Node, ticket: &str, wait: u32) -> (u16, Value) {
    let (code, text) = http(
        &node.addr,
        "GET",
        &format!("/api/pairing/{ticket}?wait={wait}"),
        "",
    )
    .expect("GET");
    (code, serde_json::from_str(&text).unwrap_or(Value::Null))
}

/// The room `ticket` is matched to, asked of `node`.
fn room_of(node: &Node, ticket: &str) -> String {
    let end = Instant::now() + Duration::from_secs(30);
    loop {
        let (code, v) = status(node, ticket, 2);
        if code == 200 && v["status"] == "matched" {
            return v["room"].as_str().unwrap().to_string();
        }
        assert!(code == 200 || code == 503, "{code} {v}");
        assert!(Instant::now() < end, "not matched: {v}");
    }
}

/// The id of the node that runs the matcher, from the database.
fn matcher_node(pg: &Pg) -> String {
    let end = Instant::now() + Duration::from_secs(30);
    loop {
        let node = pg.value(
            "SELECT node FROM room_leases WHERE room_id = '00000000-0000-0000-0000-000000000000' \
             AND expires_at > (EXTRACT(EPOCH FROM clock_timestamp()) * 1000)::BIGINT",
        );
        if !node.is_empty() {
            return node;
        }
        assert!(Instant::now() < end, "no node holds the matcher's lease");
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn people_on_two_nodes_meet_and_a_dead_matcher_loses_no_ticket() {
    let Some(pg) = Pg::for_cluster() else { return };
    let dir = tempfile::tempdir().unwrap();
    let p = prefix();
    let mut nodes = vec![
        Node::start(&pg, &p, LEASE, dir.path()),
        Node::start(&pg, &p, LEASE, dir.path()),
    ];
    // Three people on two nodes: one table.
    let tickets = [ticket(&nodes[0]), ticket(&nodes[1]), ticket(&nodes[0])];
    let rooms: Vec<String> = tickets
        .iter()
        .enumerate()
        .map(|(i, t)| room_of(&nodes[(i + 1) % 2], t))
        .collect();
    assert!(rooms.iter().all(|r| *r == rooms[0]), "{rooms:?}");
    let room = nodes[1].get_json(&format!("/api/rooms/{}", rooms[0]));
    assert_eq!(room["paired"], true);

    // Two wait, one ticket made through each node; then the matcher's node dies.
    let waiting = [ticket(&nodes[0]), ticket(&nodes[1])];
    let matcher = matcher_node(&pg);
    let dead = nodes
        .iter()
        .position(|n| n.log_text().contains(&matcher))
        .expect("the matcher's node by its log");
    nodes[dead].signal("KILL");
    nodes[dead].wait_exit(Duration::from_secs(10));
    let alive = nodes.remove(1 - dead);
    // The other node takes the matcher over, with both tickets.
    for t in &waiting {
        let end = Instant::now() + Duration::from_secs(30);
        loop {
            let (code, v) = status(&alive, t, 0);
            if code == 200 {
                assert_eq!(v["status"], "waiting", "{v}");
                break;
            }
            assert_eq!(code, 503, "{v}");
            assert!(Instant::now() < end, "no matcher after the failover");
            std::thread::sleep(Duration::from_millis(200));
        }
    }
    assert_ne!(matcher_node(&pg), matcher);
    let pools = alive.get_json("/api/pairing");
    let ten = pools
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "10+5" && p["rated"] == false)
        .unwrap();
    assert_eq!(ten["waiting"], 2);
    // A third comes: the table of the two who waited through the failover.
    let third = ticket(&alive);
    let room = room_of(&alive, &third);
    for t in &waiting {
        assert_eq!(room_of(&alive, t), room);
    }
}
