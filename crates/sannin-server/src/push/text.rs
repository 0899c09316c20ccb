//! What a notification says, in the subscription's language. The payload names the
//! room and the seat, never a token.

use sannin_protocol::Seat;
use serde::Serialize;

use super::store::Lang;
use crate::room::{Notice, NoticeKind};

/// The decrypted body of a push.
#[derive(Debug, Serialize)]
pub struct Payload {
    /// The notice's kind (`your_turn`…).
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// The room's id.
    pub room: String,
    /// The seat (`first`, `middle`, `last`).
    pub seat: &'static str,
    /// The notification's title.
    pub title: String,
    /// Its text.
    pub body: String,
    /// The page a click opens.
    pub url: String,
}

/// The payload of `n` in `lang`, `now_ms` being the unix time.
pub fn payload(n: &Notice, lang: Lang, now_ms: i64) -> Payload {
    let others = join(&n.others, lang);
    let left = n.deadline_ms.map(|d| duration(d - now_ms, lang));
    let (title, body) = match lang {
        Lang::En => english(n.kind, &others, left),
        Lang::Ja => japanese(n.kind, &others, left),
    };
    Payload {
        kind: n.kind.as_str(),
        room: n.room.to_string(),
        seat: Seat::from(n.seat).as_str(),
        title: title.to_string(),
        body,
        url: format!("/rooms/{}", n.room),
    }
}

fn english(kind: NoticeKind, others: &str, left: Option<String>) -> (&'static str, String) {
    match kind {
        NoticeKind::YourTurn => (
            "Your move",
            match left {
                Some(l) => format!("Against {others} — {l} left"),
                None => format!("Against {others}"),
            },
        ),
        NoticeKind::Matched => ("Table found", format!("You play {others}.")),
        NoticeKind::GameStarted => ("Game started", format!("You play {others}.")),
        NoticeKind::GameOver => ("Game over", format!("Your game with {others} has ended.")),
        NoticeKind::DrawOffered => (
            "Draw offered",
            format!("A draw is offered in your game with {others}."),
        ),
    }
}

fn japanese(kind: NoticeKind, others: &str, left: Option<String>) -> (&'static str, String) {
    match kind {
        NoticeKind::YourTurn => (
            "あなたの手番です",
            match left {
                Some(l) => format!("{others}との対局 — 残り{l}"),
                None => format!("{others}との対局"),
            },
        ),
        NoticeKind::Matched => (
            "対局相手が見つかりました",
            format!("{others}と対局します。"),
        ),
        NoticeKind::GameStarted => ("対局が始まりました", format!("{others}と対局します。")),
        NoticeKind::GameOver => (
            "対局が終わりました",
            format!("{others}との対局が終わりました。"),
        ),
        NoticeKind::DrawOffered => (
            "引き分けの提案",
            format!("{others}との対局で引き分けが提案されました。"),
        ),
    }
}

/// The other players' names as a sentence joins them.
fn join(names: &[String], lang: Lang) -> String {
    match (names, lang) {
        ([], Lang::En) => "your opponents".to_string(),
        ([], Lang::Ja) => "相手".to_string(),
        ([a], _) => a.clone(),
        ([a, b], Lang::En) => format!("{a} and {b}"),
        (names, Lang::En) => names.join(", "),
        (names, Lang::Ja) => names.join("、"),
    }
}

/// A time left, to the minute: "2 days 23 hours", "5 hours 3 minutes", "12 minutes".
fn duration(ms: i64, lang: Lang) -> String {
    let minutes = (ms.max(0) + 59_999) / 60_000;
    let (d, h, m) = (minutes / 1440, minutes / 60 % 24, minutes % 60);
    let parts: Vec<(i64, &str, &str, &str)> = vec![
        (d, "day", "days", "日"),
        (h, "hour", "hours", "時間"),
        (m, "minute", "minutes", "分"),
    ];
    // The two largest units, the first of them not zero.
    let first = parts.iter().position(|p| p.0 > 0).unwrap_or(2);
    let shown = parts[first..]
        .iter()
        .take(2)
        .filter(|p| p.0 > 0 || first == 2);
    let words: Vec<String> = shown
        .map(|(n, one, many, ja)| match lang {
            Lang::En => format!("{n} {}", if *n == 1 { one } else { many }),
            Lang::Ja => format!("{n}{ja}"),
        })
        .collect();
    match lang {
        Lang::En => words.join(" "),
        Lang::Ja => words.concat(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sannin_rules::Player;

    #[test]
    fn times_left_read_as_people_say_them() {
        let h = 3_600_000;
        assert_eq!(
            duration(2 * 24 * h + 23 * h + 5, Lang::En),
            "2 days 23 hours"
        );
        assert_eq!(duration(24 * h, Lang::En), "1 day");
        assert_eq!(duration(5 * h + 3 * 60_000, Lang::En), "5 hours 3 minutes");
        assert_eq!(duration(12 * 60_000, Lang::En), "12 minutes");
        assert_eq!(duration(1, Lang::En), "1 minute");
        assert_eq!(duration(-5, Lang::En), "0 minutes");
        assert_eq!(duration(2 * 24 * h + 23 * h, Lang::Ja), "2日23時間");
    }

    #[test]
    fn a_payload_names_the_room_and_seat_and_no_token() {
        let n = Notice {
            kind: NoticeKind::YourTurn,
            room: uuid::Uuid::nil(),
            seat: Player::Middle,
            token_hash: "secret-hash".into(),
            account_id: None,
            others: vec!["Ann".into(), "Bob".into()],
            deadline_ms: Some(1_000 + 3 * 3_600_000),
            live: false,
        };
        let p = payload(&n, Lang::En, 1_000);
        assert_eq!(p.title, "Your move");
        assert_eq!(p.body, "Against Ann and Bob — 3 hours left");
        assert_eq!(p.url, format!("/rooms/{}", uuid::Uuid::nil()));
        let json = serde_json::to_string(&p).unwrap();
        assert!(!json.contains("secret"), "{json}");
        assert!(payload(&n, Lang::Ja, 1_000)
            .body
            .contains("Ann、Bobとの対局"));
    }
}
