//! The `sannin perft`, `moves`, `replay` and `admin` commands (docs/cli.md), run as
//! the real binary.

use crate::common;
use common::{sannin, stderr, stdout};

const OPENING: &str =
    "[First \"Akira\"]\n1. P3c-4d P10k-10j P11g-10g 2. S1b-2d S8m-9l S12f-10e {a quiet start}\n";

#[test]
fn perft_prints_the_total_last() {
    let o = sannin(&["perft", "2"], None);
    assert!(o.status.success());
    assert_eq!(stdout(&o).lines().last(), Some("2302"));
    let o = sannin(&["perft", "1", "--divide"], None);
    let out = stdout(&o);
    assert_eq!(out.lines().count(), 49);
    assert_eq!(out.lines().last(), Some("48"));
    assert!(out.lines().any(|l| l == "B2gx10k+ 1"), "{out}");
}

#[test]
fn moves_lists_canonical_actions() {
    let o = sannin(&["moves"], None);
    let out = stdout(&o);
    assert_eq!(out.lines().count(), 48);
    // RULES §4: the bishop takes through the gap between two pawns, promotion
    // possible both ways.
    assert!(out.lines().any(|l| l == "B2gx10k+"));
    assert!(out.lines().any(|l| l == "B2gx10k="));
}

#[test]
fn replay_prints_each_action_and_the_final_position() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("game.txt");
    std::fs::write(&path, OPENING).unwrap();
    let o = sannin(&["replay", path.to_str().unwrap()], None);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 7);
    assert_eq!(lines[0], "1. First P3c-4d");
    assert!(lines[6].ends_with(" F -/-/- FML - FML"), "{}", lines[6]);
    // The final position string feeds `moves`.
    let o = sannin(&["moves", "--position", lines[6]], None);
    assert!(o.status.success());
}

#[test]
fn replay_json_gives_one_object_per_action() {
    let o = sannin(&["replay", "--json", "-"], Some("B2gx10k+ N9kx10k"));
    assert!(o.status.success(), "{}", stderr(&o));
    let rows: Vec<serde_json::Value> = stdout(&o)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[0]["ply"], 1);
    assert_eq!(rows[0]["player"], "First");
    assert_eq!(rows[0]["action"], "B2gx10k+");
    let events = rows[0]["events"].as_array().unwrap();
    assert_eq!(events[0]["type"], "captured");
    assert_eq!(events[1]["type"], "promoted");
    assert_eq!(rows[1]["player"], "Middle");
    assert!(rows[1]["position"].as_str().unwrap().contains(" L "));
}

#[test]
fn replay_stops_at_an_illegal_action_with_a_one_line_reason() {
    let o = sannin(&["replay", "-"], Some("P3c-4d P3c-4d P11g-10g"));
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("ply 2") && err.contains("P3c-4d") && err.contains("no piece on 3c"),
        "{err}"
    );
    // The actions before it were printed.
    assert_eq!(stdout(&o).lines().next(), Some("1. First P3c-4d"));

    let o = sannin(&["replay", "-"], Some("P3c-4d Zz9"));
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("ply 2") && stderr(&o).contains("not an action"));
}

#[test]
fn bad_input_is_a_clear_error_never_a_panic() {
    let cases: &[&[&str]] = &[
        &["perft", "2", "--position", "not a position"],
        &["perft", "x"],
        &["moves", "--position", "1/2/3 F -/-/- FML - FML"],
        &["replay", "/nonexistent/game.txt"],
        &["replay", "--position", "nope", "-"],
    ];
    for args in cases {
        let o = sannin(args, Some(""));
        assert!(!o.status.success(), "{args:?} succeeded");
        let err = stderr(&o);
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        assert!(!err.trim().is_empty(), "{args:?} gave no message");
    }
}

/// A variable set but empty (`SANNIN_GRACE_SECONDS=` in an env file) means the
/// default, for numbers, paths, choices and the database alike; a bad value that is
/// not empty is still refused, naming its option.
#[test]
fn empty_environment_values_mean_the_defaults() {
    let dir = tempfile::tempdir().unwrap();
    let (_server, addr) = common::start_server(dir.path(), "warn", |c| {
        for var in [
            "DATABASE_URL",
            "SANNIN_GRACE_SECONDS",
            "SANNIN_STATIC_DIR",
            "SANNIN_COOKIE_SECURE",
            "SANNIN_ROOMS_PER_MINUTE",
            "NATS_URL",
        ] {
            c.env(var, "");
        }
    });
    let room = common::create_room(&addr);
    assert_eq!(room.len(), 36, "{room}");
    let (status, page) = sannin_testkit::http::http(&addr, "GET", "/", "").unwrap();
    assert_eq!(status, 200);
    assert!(
        page.contains("<html"),
        "the client is served from the default place"
    );
    assert!(
        dir.path().join("data/sannin.db").exists(),
        "the default database"
    );

    let o = std::process::Command::new(env!("CARGO_BIN_EXE_sannin"))
        .args(["serve", "--addr", "127.0.0.1:0"])
        .env("SANNIN_GRACE_SECONDS", "soon")
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert!(!o.status.success());
    assert!(stderr(&o).contains("--grace-seconds"), "{}", stderr(&o));
}

/// `sannin admin reset-password` (docs/accounts.md, "E-mail and a forgotten password"):
/// against the database of a running server, a link that sets the account's password
/// once; an unknown name exits 1.
#[test]
fn admin_prints_a_link_that_resets_a_password_once() {
    use common::{http, start_server};
    let dir = tempfile::tempdir().unwrap();
    let (_server, addr) = start_server(dir.path(), "warn", |_| {});
    let account = r#"{"name": "ann", "password": "the first password"}"#;
    assert_eq!(
        http(&addr, "POST", "/api/accounts", account).unwrap().0,
        201
    );
    let db = format!("sqlite://{}/data/sannin.db", dir.path().display());
    let admin = |name: &str| {
        sannin(
            &[
                "admin",
                "--database-url",
                &db,
                "reset-password",
                name,
                "--public-url",
                "https://shogi.example.org/",
            ],
            None,
        )
    };
    let o = admin("nobody");
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("no account is named \"nobody\""),
        "{}",
        stderr(&o)
    );
    let o = admin("ANN");
    assert!(o.status.success(), "{}", stderr(&o));
    let link = stdout(&o).trim().to_string();
    let token = link
        .strip_prefix("https://shogi.example.org/account/reset?token=")
        .unwrap_or_else(|| panic!("{link}"));
    let reset = format!(r#"{{"token": "{token}", "new": "the new password"}}"#);
    assert_eq!(
        http(&addr, "POST", "/api/password/reset", &reset)
            .unwrap()
            .0,
        204
    );
    assert_eq!(
        http(&addr, "POST", "/api/password/reset", &reset)
            .unwrap()
            .0,
        400
    );
    let login = r#"{"name": "ann", "password": "the new password"}"#;
    assert_eq!(http(&addr, "POST", "/api/session", login).unwrap().0, 200);
}

#[test]
fn admin_commands_moderate_a_running_site() {
    use common::{http, start_server};
    use sannin_testkit::http::http_with;
    let dir = tempfile::tempdir().unwrap();
    let (_server, addr) = start_server(dir.path(), "warn", |_| {});
    let account = r#"{"name": "troll", "password": "the first password"}"#;
    let made = http_with(&addr, "POST", "/api/accounts", account, &[]).unwrap();
    assert_eq!(made.status, 201);
    let cookie = made.cookie().expect("a session cookie");
    let db = format!("sqlite://{}/data/sannin.db", dir.path().display());
    let admin = |args: &[&str]| {
        let mut all = vec!["admin", "--database-url", &db];
        all.extend_from_slice(args);
        sannin(&all, None)
    };
    let o = admin(&["ban", "troll", "--minutes", "60", "--reason", "abuse"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(stdout(&o).trim(), "ban troll: abuse");
    // The running server learns it within seconds: no room for the banned.
    let create = || {
        http_with(
            &addr,
            "POST",
            "/api/rooms",
            "{}",
            &[&format!("Cookie: {cookie}")],
        )
        .unwrap()
        .status
    };
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while create() != 403 {
        assert!(
            std::time::Instant::now() < deadline,
            "the ban did not reach the server"
        );
        std::thread::sleep(std::time::Duration::from_millis(200));
    }
    for (args, err) in [
        (&["ban", "nobody"][..], "no account is named \"nobody\""),
        (
            &["ban", "--addr", "not-an-address"][..],
            "neither an IP address nor a CIDR range",
        ),
        (&["rename", "troll", "a\u{0430}b"][..], "one script"),
        (&["unmute", "troll"][..], "no mute is in force for troll"),
    ] {
        let o = admin(args);
        assert_eq!(o.status.code(), Some(1), "{args:?}");
        assert!(stderr(&o).contains(err), "{args:?}: {}", stderr(&o));
    }
    assert!(admin(&["role", "troll", "moderator"]).status.success());
    let o = admin(&["role", "troll", "king"]);
    assert_eq!(o.status.code(), Some(2), "clap refuses an unknown role");
    assert!(admin(&["unban", "troll", "--reason", "appeal"])
        .status
        .success());
    assert!(admin(&["delete-account", "troll"]).status.success());
    assert_eq!(http(&addr, "GET", "/api/players/troll", "").unwrap().0, 404);
    let o = admin(&["log"]);
    let actions: Vec<String> = stdout(&o)
        .lines()
        .map(|l| {
            serde_json::from_str::<serde_json::Value>(l).unwrap()["action"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    assert_eq!(actions, ["delete", "unban", "role", "ban"]);
    let o = admin(&["reports"]);
    assert!(
        o.status.success() && stdout(&o).is_empty(),
        "{}",
        stdout(&o)
    );
}
