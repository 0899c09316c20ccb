//! `sannin selfplay` (docs/cli.md, "Bots"), run as the real binary: the rating
//! ladder, and the JSON summary as the last line.

use crate::common;
use common::{sannin, stderr, stdout};

#[test]
fn selfplay_rates_the_levels_and_ends_with_the_json_summary() {
    let o = sannin(
        &[
            "selfplay",
            "--levels",
            "Beginner,0,0",
            "--games",
            "3",
            "--seed",
            "5",
            "--jobs",
            "2",
        ],
        None,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("rating ladder"), "{out}");
    assert!(out.lines().any(|l| l.contains("Beginner")), "{out}");
    let last: serde_json::Value =
        serde_json::from_str(out.lines().last().expect("a last line")).expect("JSON");
    assert_eq!(last["games"], 3);
    assert_eq!(last["levels"], serde_json::json!([1, 0, 0]));
    let share: Vec<f64> = last["share"]
        .as_array()
        .expect("shares")
        .iter()
        .map(|v| v.as_f64().expect("a number"))
        .collect();
    assert_eq!(share.len(), 3);
    assert!((share.iter().sum::<f64>() - 1.0).abs() < 1e-9, "{share:?}");
    assert_eq!(last["ms_per_move"].as_array().map(Vec::len), Some(3));
    assert_eq!(last["movetime_ms"], serde_json::Value::Null);
}

#[test]
fn selfplay_at_equal_time_gives_every_level_the_same_time_a_move() {
    let o = sannin(
        &[
            "selfplay",
            "--levels",
            "Master,Strong,Casual",
            "--games",
            "1",
            "--max-plies",
            "6",
            "--movetime",
            "20",
        ],
        None,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    let last: serde_json::Value =
        serde_json::from_str(out.lines().last().expect("a last line")).expect("JSON");
    assert_eq!(last["movetime_ms"], 20, "{last}");
    assert_eq!(last["levels"], serde_json::json!([4, 3, 2]));
}

#[test]
fn selfplay_refuses_bad_levels_and_counts() {
    for args in [
        &["selfplay", "--levels", "9,0,0"][..],
        &["selfplay", "--levels", "Supergrandmaster,0,0"][..],
        &["selfplay", "--levels", "1,0"][..],
        &["selfplay", "--levels", "1,0,0", "--games", "0"][..],
    ] {
        let o = sannin(args, None);
        assert!(!o.status.success(), "{args:?}");
        assert!(!stderr(&o).is_empty(), "{args:?}");
        assert!(!stderr(&o).contains("panicked"), "{args:?}: {}", stderr(&o));
    }
}
