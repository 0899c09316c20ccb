//! `sannin analyse` (docs/cli.md, "Bots"), run as the real binary.

use crate::common;
use common::{sannin, stderr, stdout};

use serde_json::Value;

/// Middle to move against First alone (Last is out); of 246 legal actions only
/// the gold drop on 3d mates First's king on 2c, which wins the game.
const MATE_IN_ONE: &str = "m+L2fP1fS1/1f+P2fP3/m+P2fPfR2fK1/mP4fP4/2f+L3fP1m+R2/9fS1m+L/5fP3mGm+S2/3mP3fP1fSfG1/mNm+PmP3f+LmP1fP1/1mPmP2mP4/7mN1/mL3mK3/3fG3 M -/BG/- FM - -";

const OPENING: &str = "1. P3c-4d P10k-10j P11g-10g 2. S1b-2d S8m-9l S12f-10e {a quiet start}\n";

#[test]
fn analyse_finds_a_mate_in_one_and_prints_it_last() {
    let o = sannin(
        &["analyse", "--position", MATE_IN_ONE, "--movetime", "200"],
        None,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert_eq!(out.lines().last(), Some("G*3d"), "{out}");
    assert!(out.contains("wins in 1 ply"), "{out}");
    assert!(out.contains("line: G*3d"), "{out}");
    assert!(out.contains("First lost, Middle won, Last lost"), "{out}");
}

#[test]
fn analyse_json_shape() {
    let o = sannin(
        &[
            "analyse",
            "--position",
            MATE_IN_ONE,
            "--nodes",
            "3000",
            "--json",
        ],
        None,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let v: Value = serde_json::from_str(stdout(&o).trim()).expect("one JSON object");
    assert_eq!(v["best"], "G*3d");
    assert_eq!(v["line"], serde_json::json!(["G*3d"]));
    assert_eq!(v["player"], "Middle");
    assert_eq!(v["mate"], 1);
    assert_eq!(v["position"], MATE_IN_ONE);
    assert_eq!(v["evaluations"]["Middle"], 1_000_000);
    assert_eq!(v["evaluations"]["First"], -1_000_000);
    assert_eq!(v["evaluations"]["Last"], -1_000_000);
    assert!(v["score"].as_i64().unwrap() > 990_000, "{v}");
    assert!(v["depth"].as_i64().unwrap() >= 1, "{v}");
    assert!(v["nodes"].as_u64().unwrap() >= 246, "{v}");
    assert!(v["ms"].is_u64(), "{v}");

    // From the start, on a node budget: a legal best action heading a line of
    // legal actions, and an evaluation for every player.
    let o = sannin(&["analyse", "--nodes", "4000", "--json"], None);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: Value = serde_json::from_str(stdout(&o).trim()).unwrap();
    let legal = stdout(&sannin(&["moves"], None));
    let best = v["best"].as_str().unwrap();
    assert!(legal.lines().any(|l| l == best), "{v}");
    let line = v["line"].as_array().unwrap();
    assert_eq!(line[0], v["best"]);
    assert!(
        line.len() >= 2,
        "depth {} gives a longer line: {v}",
        v["depth"]
    );
    assert_eq!(v["mate"], Value::Null);
    assert_eq!(v["player"], "First");
    for p in ["First", "Middle", "Last"] {
        assert!(v["evaluations"][p].as_i64().unwrap().abs() < 10_000, "{v}");
    }
    // The same budget gives the same answer.
    let again = sannin(&["analyse", "--nodes", "4000", "--json"], None);
    let w: Value = serde_json::from_str(stdout(&again).trim()).unwrap();
    assert_eq!((&v["best"], &v["line"]), (&w["best"], &w["line"]));
}

#[test]
fn analyse_reads_the_end_of_a_record() {
    let dir = tempfile_dir();
    let file = dir.join("opening.txt");
    std::fs::write(&file, OPENING).unwrap();
    let replayed = stdout(&sannin(&["replay", file.to_str().unwrap()], None));
    let end = replayed.lines().last().unwrap();
    let o = sannin(
        &[
            "analyse",
            "--record",
            file.to_str().unwrap(),
            "--nodes",
            "2000",
            "--json",
        ],
        None,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let v: Value = serde_json::from_str(stdout(&o).trim()).unwrap();
    assert_eq!(v["position"], end);
    assert_eq!(v["player"], "First");
    // Standard input works the same.
    let o = sannin(
        &["analyse", "--record", "-", "--nodes", "2000", "--json"],
        Some(OPENING),
    );
    let w: Value = serde_json::from_str(stdout(&o).trim()).unwrap();
    assert_eq!(w["position"], end);
    assert_eq!(w["best"], v["best"]);
    std::fs::remove_dir_all(dir).ok();
}

fn tempfile_dir() -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("sannin-analyse-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn analyse_errors_are_clear() {
    let fails = |args: &[&str], stdin: Option<&str>, want: &str| {
        let o = sannin(args, stdin);
        assert!(!o.status.success(), "{args:?} succeeded");
        let err = stderr(&o);
        assert!(err.contains(want), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{err}");
        assert_eq!(err.trim().lines().count(), 1, "{err}");
        assert!(stdout(&o).is_empty(), "{}", stdout(&o));
    };
    fails(
        &["analyse", "--position", "not a position"],
        None,
        "bad --position",
    );
    fails(
        &["analyse", "--record", "-"],
        Some("1. P3c-4d P3c-4d\n"),
        "ply 2: `P3c-4d`",
    );
    // The mate ends the game: nothing is left to analyse.
    fails(
        &["analyse", "--position", MATE_IN_ONE, "--record", "-"],
        Some("G*3d\n"),
        "the game is over: nothing to analyse",
    );
    fails(
        &["analyse", "--record", "/nonexistent/record.txt"],
        None,
        "reading /nonexistent/record.txt",
    );
    let o = sannin(&["analyse", "--movetime", "soon"], None);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("--movetime"), "{}", stderr(&o));
}
