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
    let w = words(lang);
    let others = join(&n.others, w);
    let (title, body) = match n.kind {
        NoticeKind::YourTurn => w.your_turn,
        NoticeKind::Matched => w.matched,
        NoticeKind::GameStarted => w.game_started,
        NoticeKind::GameOver => w.game_over,
        NoticeKind::DrawOffered => w.draw_offered,
    };
    let body = match (n.kind, n.deadline_ms) {
        (NoticeKind::YourTurn, Some(d)) => {
            w.your_turn_left.replace("{left}", &duration(d - now_ms, w))
        }
        _ => body.to_string(),
    };
    Payload {
        kind: n.kind.as_str(),
        room: n.room.to_string(),
        seat: Seat::from(n.seat).as_str(),
        title: title.to_string(),
        body: body.replace("{others}", &others),
        url: format!("/rooms/{}", n.room),
    }
}

/// The words of one language: each notice's title and text (`{others}`: the other
/// players; `{left}`: the time left to move), and how names and times are put together.
#[derive(Debug)]
struct Words {
    your_turn: (&'static str, &'static str),
    your_turn_left: &'static str,
    matched: (&'static str, &'static str),
    game_started: (&'static str, &'static str),
    game_over: (&'static str, &'static str),
    draw_offered: (&'static str, &'static str),
    /// The other players when none has a name.
    nobody: &'static str,
    /// Two names joined ("{a} and {b}").
    two: &'static str,
    /// Between names of a longer list.
    comma: &'static str,
    /// Days, hours and minutes: the forms of each, chosen by [`Words::plural`].
    units: [[&'static str; 3]; 3],
    /// Between a number and its unit, and between two units.
    number_gap: &'static str,
    unit_gap: &'static str,
    /// Which of a unit's forms a number takes.
    plural: fn(i64) -> usize,
}

/// One form for every number.
fn one_form(_: i64) -> usize {
    0
}

/// English: one, many.
fn english_plural(n: i64) -> usize {
    usize::from(n != 1)
}

/// Russian: one (1, 21, 31…), few (2–4, 22–24…), many (0, 5–20, 25–30…).
fn russian_plural(n: i64) -> usize {
    match (n % 10, n % 100) {
        (1, r) if r != 11 => 0,
        (2..=4, r) if !(12..=14).contains(&r) => 1,
        _ => 2,
    }
}

const ENGLISH: Words = Words {
    your_turn: ("Your move", "Against {others}"),
    your_turn_left: "Against {others} — {left} left",
    matched: ("Table found", "You play {others}."),
    game_started: ("Game started", "You play {others}."),
    game_over: ("Game over", "Your game with {others} has ended."),
    draw_offered: (
        "Draw offered",
        "A draw is offered in your game with {others}.",
    ),
    nobody: "your opponents",
    two: "{a} and {b}",
    comma: ", ",
    units: [
        ["day", "days", "days"],
        ["hour", "hours", "hours"],
        ["minute", "minutes", "minutes"],
    ],
    number_gap: " ",
    unit_gap: " ",
    plural: english_plural,
};

const JAPANESE: Words = Words {
    your_turn: ("あなたの手番です", "{others}との対局"),
    your_turn_left: "{others}との対局 — 残り{left}",
    matched: ("対局相手が見つかりました", "{others}と対局します。"),
    game_started: ("対局が始まりました", "{others}と対局します。"),
    game_over: ("対局が終わりました", "{others}との対局が終わりました。"),
    draw_offered: (
        "引き分けの提案",
        "{others}との対局で引き分けが提案されました。",
    ),
    nobody: "相手",
    two: "{a}、{b}",
    comma: "、",
    units: [["日"; 3], ["時間"; 3], ["分"; 3]],
    number_gap: "",
    unit_gap: "",
    plural: one_form,
};

const RUSSIAN: Words = Words {
    your_turn: ("Ваш ход", "Соперники: {others}"),
    your_turn_left: "Соперники: {others} — осталось {left}",
    matched: ("Стол найден", "Ваши соперники: {others}."),
    game_started: ("Партия началась", "Ваши соперники: {others}."),
    game_over: ("Партия окончена", "Партия окончена. Соперники: {others}."),
    draw_offered: (
        "Предложена ничья",
        "Вам предлагают ничью. Соперники: {others}.",
    ),
    nobody: "без имени",
    two: "{a} и {b}",
    comma: ", ",
    units: [
        ["день", "дня", "дней"],
        ["час", "часа", "часов"],
        ["минута", "минуты", "минут"],
    ],
    number_gap: " ",
    unit_gap: " ",
    plural: russian_plural,
};

const CHINESE: Words = Words {
    your_turn: ("轮到你走棋", "对手：{others}"),
    your_turn_left: "对手：{others} — 剩余{left}",
    matched: ("已找到对局", "你的对手：{others}。"),
    game_started: ("对局开始", "你的对手：{others}。"),
    game_over: ("对局结束", "你与{others}的对局已结束。"),
    draw_offered: ("和棋提议", "你与{others}的对局中有人提议和棋。"),
    nobody: "对手",
    two: "{a}和{b}",
    comma: "、",
    units: [["天"; 3], ["小时"; 3], ["分钟"; 3]],
    number_gap: "",
    unit_gap: "",
    plural: one_form,
};

const KOREAN: Words = Words {
    your_turn: ("당신의 차례입니다", "상대: {others}"),
    your_turn_left: "상대: {others} — {left} 남음",
    matched: ("대국 상대를 찾았습니다", "상대: {others}."),
    game_started: ("대국이 시작되었습니다", "상대: {others}."),
    game_over: ("대국이 끝났습니다", "대국이 끝났습니다. 상대: {others}."),
    draw_offered: ("무승부 제안", "무승부가 제안되었습니다. 상대: {others}."),
    nobody: "이름 없음",
    two: "{a}, {b}",
    comma: ", ",
    units: [["일"; 3], ["시간"; 3], ["분"; 3]],
    number_gap: "",
    unit_gap: " ",
    plural: one_form,
};

fn words(lang: Lang) -> &'static Words {
    match lang {
        Lang::En => &ENGLISH,
        Lang::Ja => &JAPANESE,
        Lang::Ru => &RUSSIAN,
        Lang::Zh => &CHINESE,
        Lang::Ko => &KOREAN,
    }
}

/// The other players' names as a sentence joins them.
fn join(names: &[String], w: &Words) -> String {
    match names {
        [] => w.nobody.to_string(),
        [a] => a.clone(),
        [a, b] => w.two.replace("{a}", a).replace("{b}", b),
        names => names.join(w.comma),
    }
}

/// A time left, to the minute, in its two largest units: "2 days 23 hours",
/// "5 hours 3 minutes", "12 minutes".
fn duration(ms: i64, w: &Words) -> String {
    let minutes = (ms.max(0) + 59_999) / 60_000;
    let amounts = [minutes / 1440, minutes / 60 % 24, minutes % 60];
    // The two largest units, the first of them not zero.
    let first = amounts.iter().position(|&n| n > 0).unwrap_or(2);
    let shown: Vec<String> = (first..3)
        .take(2)
        .filter(|&u| amounts[u] > 0 || first == 2)
        .map(|u| {
            let n = amounts[u];
            format!("{n}{}{}", w.number_gap, w.units[u][(w.plural)(n)])
        })
        .collect();
    shown.join(w.unit_gap)
}

#[cfg(test)]
mod tests {
    use super::*;
    use sannin_rules::Player;

    #[test]
    fn times_left_read_as_people_say_them() {
        let h = 3_600_000;
        assert_eq!(
            duration(2 * 24 * h + 23 * h + 5, &ENGLISH),
            "2 days 23 hours"
        );
        assert_eq!(duration(24 * h, &ENGLISH), "1 day");
        assert_eq!(duration(5 * h + 3 * 60_000, &ENGLISH), "5 hours 3 minutes");
        assert_eq!(duration(12 * 60_000, &ENGLISH), "12 minutes");
        assert_eq!(duration(1, &ENGLISH), "1 minute");
        assert_eq!(duration(-5, &ENGLISH), "0 minutes");
        assert_eq!(duration(2 * 24 * h + 23 * h, &JAPANESE), "2日23時間");
        assert_eq!(duration(21 * h + 2 * 60_000, &RUSSIAN), "21 час 2 минуты");
        assert_eq!(duration(5 * 24 * h + 12 * h, &RUSSIAN), "5 дней 12 часов");
        assert_eq!(duration(11 * 60_000, &RUSSIAN), "11 минут");
        assert_eq!(duration(24 * h + 3 * h, &CHINESE), "1天3小时");
        assert_eq!(duration(3 * h + 5 * 60_000, &KOREAN), "3시간 5분");
    }

    #[test]
    fn russian_numbers_take_their_forms() {
        let forms: Vec<usize> = [0, 1, 2, 4, 5, 11, 12, 14, 21, 22, 25, 101, 111, 122]
            .into_iter()
            .map(russian_plural)
            .collect();
        assert_eq!(forms, [2, 0, 1, 1, 2, 2, 2, 2, 0, 1, 2, 0, 2, 1]);
    }

    #[test]
    fn every_notice_reads_in_every_language_and_names_the_others() {
        use strum::IntoEnumIterator;
        for lang in Lang::iter() {
            assert_eq!(Lang::parse(lang.as_str()), Some(lang));
            let mut titles = std::collections::BTreeSet::new();
            for kind in NoticeKind::iter() {
                let n = Notice {
                    kind,
                    room: uuid::Uuid::nil(),
                    seat: Player::First,
                    token_hash: String::new(),
                    account_id: None,
                    others: vec!["Ann".into(), "Bob".into()],
                    deadline_ms: Some(3_600_000),
                    live: false,
                };
                let p = payload(&n, lang, 0);
                assert!(
                    p.body.contains("Ann") && p.body.contains("Bob"),
                    "{lang:?} {kind:?}: {}",
                    p.body
                );
                assert!(!p.body.contains('{'), "{lang:?} {kind:?}: {}", p.body);
                if lang != Lang::En {
                    assert_ne!(p.title, payload(&n, Lang::En, 0).title, "{lang:?} {kind:?}");
                }
                titles.insert(p.title);
            }
            assert_eq!(
                titles.len(),
                NoticeKind::iter().count(),
                "{lang:?}: a title per notice"
            );
        }
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
