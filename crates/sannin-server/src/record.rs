//! The game record a room serves (`GET /api/rooms/{id}/record`): the rules' record
//! (RULES §13.2: a `Position` header when not the standard start, `Result` once over,
//! the actions by rounds) behind the headers only the room knows — where and when it
//! was played, by whom, and under which time control.

use sannin_rules::{Game, Player};

use crate::clock::{ClockKind, ClockSettings};

/// What a room adds to its record.
#[derive(Debug, Clone)]
pub struct RecordHeaders {
    /// The room's link, e.g. `https://sannin.example/rooms/<id>`.
    pub site: String,
    /// When the room was made (unix ms).
    pub started_at_ms: i64,
    /// The name in each seat (First, Middle, Last); None for an empty seat.
    pub names: [Option<String>; 3],
    /// The time control; None: no clock.
    pub clock: Option<ClockSettings>,
}

/// `[Key "Value"]`; a `"` or `\` in the value (a player's name) becomes `'` or `/`, so
/// the header stays one readable line.
fn header(key: &str, value: &str) -> String {
    let value: String = value
        .chars()
        .map(|c| match c {
            '"' => '\'',
            '\\' => '/',
            c if c.is_control() => ' ',
            c => c,
        })
        .collect();
    format!("[{key} \"{value}\"]\n")
}

/// A time control as records usually write it, in seconds: `-` without a clock,
/// `300` sudden death, `300+5` Fischer, `600+3x30` byoyomi (main + periods × period).
pub fn time_control(clock: Option<&ClockSettings>) -> String {
    let Some(c) = clock else {
        return "-".into();
    };
    let s = |ms: u64| {
        if ms % 1000 == 0 {
            (ms / 1000).to_string()
        } else {
            format!("{:.1}", ms as f64 / 1000.0)
        }
    };
    match c.kind {
        ClockKind::SuddenDeath => s(c.main_ms),
        ClockKind::Fischer => format!("{}+{}", s(c.main_ms), s(c.increment_ms)),
        ClockKind::Byoyomi => format!("{}+{}x{}", s(c.main_ms), c.periods, s(c.byoyomi_ms)),
        // One move in so many seconds, as PGN writes a correspondence control.
        ClockKind::Correspondence => format!("1/{}", s(c.main_ms)),
    }
}

/// `YYYY.MM.DD` (UTC) of a unix time in ms, by the civil-from-days algorithm of
/// H. Hinnant's "chrono-Compatible Low-Level Date Algorithms".
pub fn date(unix_ms: i64) -> String {
    let z = unix_ms.div_euclid(86_400_000) + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}.{month:02}.{day:02}")
}

/// The record of `game` with the room's headers first, then the rules' own
/// (`Position`, `Result`); a game still running gets `[Result "*"]`.
pub fn write(game: &Game, h: &RecordHeaders) -> String {
    let mut out = header("Site", &h.site);
    out.push_str(&header("Date", &date(h.started_at_ms)));
    for (p, name) in Player::ALL.iter().zip(&h.names) {
        out.push_str(&header(&p.to_string(), name.as_deref().unwrap_or("?")));
    }
    out.push_str(&header("TimeControl", &time_control(h.clock.as_ref())));
    if !game.is_over() {
        out.push_str(&header("Result", "*"));
    }
    let rules = game.record();
    if !rules.starts_with('[') {
        out.push('\n');
    }
    out.push_str(&rules);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use sannin_rules::{Record, START};

    #[test]
    fn dates_are_utc_calendar_days() {
        assert_eq!(date(0), "1970.01.01");
        assert_eq!(date(951_782_400_000), "2000.02.29");
        assert_eq!(date(1_795_392_000_000 - 1), "2026.11.22");
        assert_eq!(date(1_795_392_000_000), "2026.11.23");
    }

    #[test]
    fn time_controls_in_seconds() {
        let c = |kind, main_ms, increment_ms, byoyomi_ms, periods| ClockSettings {
            kind,
            main_ms,
            increment_ms,
            byoyomi_ms,
            periods,
        };
        assert_eq!(time_control(None), "-");
        assert_eq!(
            time_control(Some(&c(ClockKind::SuddenDeath, 300_000, 0, 0, 0))),
            "300"
        );
        assert_eq!(
            time_control(Some(&c(ClockKind::Fischer, 300_000, 5_000, 0, 0))),
            "300+5"
        );
        assert_eq!(
            time_control(Some(&c(ClockKind::Byoyomi, 600_000, 0, 30_000, 3))),
            "600+3x30"
        );
        assert_eq!(
            time_control(Some(&c(ClockKind::Fischer, 60_000, 500, 0, 0))),
            "60+0.5"
        );
        assert_eq!(
            time_control(Some(&c(ClockKind::Correspondence, 86_400_000, 0, 0, 0))),
            "1/86400"
        );
    }

    #[test]
    fn the_record_reads_back_with_every_header() {
        let mut game = Game::new();
        for a in ["P3c-4d", "P10k-10j", "P11g-10g"] {
            let p = game.to_move().unwrap();
            game.play_notation(p, a).unwrap();
        }
        let h = RecordHeaders {
            site: "http://127.0.0.1:8080/rooms/abc".into(),
            started_at_ms: 1_795_392_000_000,
            names: [
                Some("Ann \"the\" First".into()),
                None,
                Some("Bot (Casual)".into()),
            ],
            clock: None,
        };
        let text = write(&game, &h);
        let rec = Record::parse(&text).unwrap();
        assert_eq!(rec.header("Site"), Some("http://127.0.0.1:8080/rooms/abc"));
        assert_eq!(rec.header("Date"), Some("2026.11.23"));
        assert_eq!(rec.header("First"), Some("Ann 'the' First"));
        assert_eq!(rec.header("Middle"), Some("?"));
        assert_eq!(rec.header("Last"), Some("Bot (Casual)"));
        assert_eq!(rec.header("TimeControl"), Some("-"));
        assert_eq!(rec.header("Result"), Some("*"));
        assert_eq!(rec.header("Position"), None);
        assert_eq!(rec.actions, ["P3c-4d", "P10k-10j", "P11g-10g"]);
        let replayed = sannin_rules::replay(&rec, None).unwrap();
        assert_eq!(replayed.position(), game.position());
        assert_ne!(game.position().to_string(), START);
    }
}
