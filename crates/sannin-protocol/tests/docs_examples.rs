//! The JSON examples of `docs/protocol.md` are messages of these types: each one
//! parses and serializes back to the same JSON value.

use sannin_protocol::{ClientMsg, ClockSettings, Clocks, Event, ServerMsg};
use serde_json::Value;

const DOC: &str = include_str!("../../../docs/protocol.md");

/// Every JSON object in the document that starts with `{"type":` or `{"kind":`, holds
/// no `…` placeholder and parses (examples with `|` alternatives in them do not).
fn examples() -> Vec<(String, Value)> {
    let mut out = Vec::new();
    for start in ["{\"type\":", "{\"kind\":"] {
        for (i, _) in DOC.match_indices(start) {
            let Some(text) = balanced(&DOC[i..]).filter(|t| !t.contains('…')) else {
                continue;
            };
            if let Ok(v) = serde_json::from_str::<Value>(text) {
                out.push((text.to_string(), v));
            }
        }
    }
    out
}

/// The text of the object that `s` starts with, up to its closing brace.
fn balanced(s: &str) -> Option<&str> {
    let (mut depth, mut in_str, mut escaped) = (0usize, false, false);
    for (i, c) in s.char_indices() {
        match c {
            _ if escaped => escaped = false,
            '\\' if in_str => escaped = true,
            '"' => in_str = !in_str,
            '{' if !in_str => depth += 1,
            '}' if !in_str => {
                depth -= 1;
                if depth == 0 {
                    return Some(&s[..=i]);
                }
            }
            _ => {}
        }
    }
    None
}

const SERVER_TYPES: [&str; 6] = ["seated", "state", "event", "error", "pong", "chat_history"];

/// Parses `v` as the type it is an example of and serializes it back.
fn round_trip(v: &Value) -> Result<(&'static str, Value), String> {
    let ty = v["type"].as_str().unwrap_or("");
    let back = if v.get("running").is_some() {
        let c: Clocks = serde_json::from_value(v.clone()).map_err(|e| e.to_string())?;
        ("clocks", serde_json::to_value(c))
    } else if v.get("main_ms").is_some() {
        let c: ClockSettings = serde_json::from_value(v.clone()).map_err(|e| e.to_string())?;
        ("clock settings", serde_json::to_value(c))
    } else if v.get("kind").is_some() {
        // A `clock` of `POST /api/rooms`, in seconds: not a WebSocket message.
        return Ok(("http", v.clone()));
    } else if SERVER_TYPES.contains(&ty) || (ty == "chat" && v.get("id").is_some()) {
        let m = ServerMsg::parse(&v.to_string()).map_err(|e| e.to_string())?;
        ("server", serde_json::from_str(&m.to_text()))
    } else if let Ok(m) = ClientMsg::parse(&v.to_string()) {
        ("client", serde_json::from_str(&m.to_text()))
    } else {
        let e: Event = serde_json::from_value(v.clone()).map_err(|e| e.to_string())?;
        ("event", serde_json::to_value(e))
    };
    Ok((back.0, back.1.map_err(|e| e.to_string())?))
}

#[test]
fn every_example_round_trips() {
    let examples = examples();
    let mut kinds = std::collections::BTreeMap::<&str, usize>::new();
    let mut failed = Vec::new();
    for (text, v) in &examples {
        match round_trip(v) {
            Ok((kind, back)) if back == *v => *kinds.entry(kind).or_default() += 1,
            Ok((kind, back)) => failed.push(format!("{kind} {text}\n  back as {back}")),
            Err(e) => failed.push(format!("{text}\n  {e}")),
        }
    }
    assert!(
        failed.is_empty(),
        "examples that do not round-trip:\n{}",
        failed.join("\n")
    );
    // The document's tables and worked example: most messages of each direction.
    assert!(kinds["client"] >= 20, "{kinds:?}");
    assert!(kinds["server"] >= 12, "{kinds:?}");
    assert!(kinds["event"] >= 25, "{kinds:?}");
    assert!(kinds["clocks"] >= 1, "{kinds:?}");
}

#[test]
fn the_full_state_example_is_covered() {
    let state = examples()
        .into_iter()
        .find(|(_, v)| v["type"] == "state" && v.get("rematch").is_some())
        .expect("the state example of §3.3 parses");
    let ServerMsg::State(s) = ServerMsg::parse(&state.0).expect("a state") else {
        panic!("not a state");
    };
    assert_eq!(s.moves(), ["P3c-4d", "P10k-10j"]);
    assert!(s.clocks.is_some());
}
