//! Perft from data files (docs/conventions.md, "Data files and a second
//! opinion for the rules"): `tests/perft.perft`, lines of
//! `position ; depth nodes ; depth nodes …`.

use sannin_rules::{perft, Position};

#[test]
fn perft_matches_data_file() {
    let data = include_str!("perft.perft");
    let mut checked = 0;
    for line in data.lines() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let mut parts = line.split(';');
        let pos: Position = parts.next().unwrap().trim().parse().unwrap();
        for case in parts {
            let mut it = case.split_whitespace();
            let depth: u32 = it.next().unwrap().parse().unwrap();
            let nodes: u64 = it.next().unwrap().parse().unwrap();
            assert_eq!(perft(&pos, depth), nodes, "perft {depth} of {pos}");
            checked += 1;
        }
    }
    assert!(checked >= 10);
}
