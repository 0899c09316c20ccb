//! `sannin bot` end to end: the real server binary, a room made over HTTP, three
//! bot processes joining it over WebSockets and playing until the game ends.

use crate::common;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use common::{create_room, http, start_server, Guard, BIN};

fn wait_exit(child: &mut Child, deadline: Instant) -> Option<ExitStatus> {
    while Instant::now() < deadline {
        if let Some(st) = child.try_wait().expect("try_wait") {
            return Some(st);
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    None
}

#[test]
fn three_bots_play_a_room_to_the_end() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (_server, addr) = start_server(dir.path(), "warn", |cmd| {
        cmd.stdout(Stdio::null());
    });
    let id = create_room(&addr);

    // Levels 0, 1, 0; each resigns on its turn once 45 actions are played, so the
    // game ends by mate or by two resignations.
    let url = format!("ws://{addr}");
    let mut bots: Vec<Guard> = [("first", "0"), ("middle", "1"), ("last", "0")]
        .iter()
        .enumerate()
        .map(|(i, (seat, level))| {
            Guard(
                Command::new(BIN)
                    .args([
                        "bot", "--url", &url, "--room", &id, "--level", level, "--seat", seat,
                    ])
                    .args([
                        "--name",
                        &format!("test-{seat}"),
                        "--seed",
                        &i.to_string(),
                        "--resign-after",
                        "45",
                    ])
                    .stdout(Stdio::null())
                    .spawn()
                    .expect("start a bot"),
            )
        })
        .collect();
    let deadline = Instant::now() + Duration::from_secs(120);
    for (i, bot) in bots.iter_mut().enumerate() {
        let st =
            wait_exit(&mut bot.0, deadline).unwrap_or_else(|| panic!("bot {i} did not finish"));
        assert!(st.success(), "bot {i} exited with {st}");
    }

    let (status, body) = http(&addr, "GET", &format!("/api/rooms/{id}"), "").expect("room details");
    assert_eq!(status, 200, "{body}");
    let details: serde_json::Value = serde_json::from_str(&body).expect("JSON");
    assert_eq!(details["status"], "finished", "{details}");
    assert!(!details["result"].is_null(), "{details}");
    let moves = details["moves"].as_array().expect("moves").len();
    eprintln!("room {id}: {moves} actions, result {}", details["result"]);
    assert!((1..=47).contains(&moves), "{moves} moves");
}
