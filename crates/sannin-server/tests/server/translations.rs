//! Every code the server sends a page has its words in every language of the client:
//! the WebSocket's error codes (`ErrorCode::ALL`), the HTTP API's (`ApiCode::all()`) and
//! the reasons of its close frames (`CloseReason::ALL`) each have a message
//! `error.ws.<code>`, `error.api.<code>` and `error.close.<reason>` in the tables of
//! static/js/i18n/ (`<lang>.js` and `<lang>-*.js`) of each of the five languages. The
//! page shows those words, never the server's English `message`: a code added without
//! them fails here.

use std::path::Path;

use sannin_protocol::{ApiCode, CloseReason, ErrorCode};

const LANGUAGES: [&str; 5] = ["en", "ja", "ru", "zh", "ko"];

/// The text of every message table of language `code`.
fn tables(code: &str) -> String {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../static/js/i18n");
    let mut text = String::new();
    let mut files = 0;
    for entry in std::fs::read_dir(&dir).expect("static/js/i18n") {
        let path = entry.expect("a file of static/js/i18n").path();
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default();
        if name == format!("{code}.js")
            || (name.starts_with(&format!("{code}-")) && name.ends_with(".js"))
        {
            text.push_str(&std::fs::read_to_string(&path).expect("a message table"));
            files += 1;
        }
    }
    assert!(files > 0, "no message table of {code}");
    text
}

/// Whether `tables` define `key` with a text that is not empty.
fn has(tables: &str, key: &str) -> bool {
    tables
        .split(&format!("'{key}':"))
        .nth(1)
        .map(str::trim_start)
        .is_some_and(|rest| {
            (rest.starts_with('\'') || rest.starts_with('{')) && !rest.starts_with("''")
        })
}

/// Every key the server's codes need.
fn keys() -> Vec<String> {
    let ws = ErrorCode::ALL
        .iter()
        .map(|c| format!("error.ws.{}", c.as_str()));
    let api = ApiCode::all().map(|c| format!("error.api.{}", c.as_str()));
    let close = CloseReason::ALL
        .iter()
        .map(|r| format!("error.close.{}", r.as_str()));
    ws.chain(api).chain(close).collect()
}

#[test]
fn every_error_code_the_server_sends_has_words_in_every_language() {
    let keys = keys();
    assert!(keys.len() > 80, "{} keys", keys.len());
    for code in LANGUAGES {
        let tables = tables(code);
        let missing: Vec<&String> = keys.iter().filter(|k| !has(&tables, k)).collect();
        assert!(
            missing.is_empty(),
            "static/js/i18n/{code}-errors.js lacks messages for {missing:?}"
        );
    }
}

#[test]
fn the_check_sees_a_missing_message() {
    let tables = "export default {\n  'error.ws.muted': 'Muted.',\n  'error.ws.banned': '',\n};\n";
    assert!(has(tables, "error.ws.muted"));
    assert!(!has(tables, "error.ws.banned"));
    assert!(!has(tables, "error.ws.replaced"));
}
