//! The `state` message written straight into JSON text.
//!
//! A room writes a `state` after every action, and serde's serialiser spends most of
//! that time on the keys: each is escaped like any string, through a generic map
//! entry, about sixty of them a state. Here the keys are literals and the strings
//! that need no escaping (the usual case: ids, names, position strings) are copied as
//! they are. The text is byte for byte what serde writes for [`ServerMsg::State`]
//! (`tests/wire.rs` compares the two across states of every shape); the parts a state
//! seldom holds (an outcome, an alliance proposal) still go through serde.
//!
//! [`ServerMsg::State`]: crate::ServerMsg::State

use serde::Serialize;

use crate::seat::Seat;
use crate::state::{Clocks, PlayerClock, SeatInfo, State};

/// Appends `{"type":"state",…}` for `s` to `out`.
pub(crate) fn write_state_msg(s: &State, out: &mut String) {
    out.push_str(r#"{"type":"state","seq":"#);
    uint(out, s.seq);
    out.push_str(r#","room":"#);
    string(out, &s.room);
    out.push_str(r#","status":""#);
    out.push_str(s.status.as_str());
    out.push_str(r#"","position":"#);
    string(out, &s.position);
    out.push_str(r#","start_position":"#);
    string(out, &s.start_position);
    if let Some(moves) = &s.moves {
        out.push_str(r#","moves":"#);
        strings(out, moves);
    }
    out.push_str(r#","seats":{"first":"#);
    seat_info(out, s.seats.first.as_ref());
    out.push_str(r#","middle":"#);
    seat_info(out, s.seats.middle.as_ref());
    out.push_str(r#","last":"#);
    seat_info(out, s.seats.last.as_ref());
    out.push_str(r#"},"spectators":"#);
    uint(out, s.spectators);
    out.push_str(r#","to_move":"#);
    opt_seat(out, s.to_move);
    out.push_str(r#","legal":"#);
    strings(out, &s.legal);
    out.push_str(r#","illumination":"#);
    match &s.illumination {
        None => out.push_str("null"),
        Some(cells) => strings(out, cells),
    }
    out.push_str(r#","result":"#);
    opt_serde(out, s.result.as_ref());
    out.push_str(r#","outcome":"#);
    opt_serde(out, s.outcome.as_ref());
    out.push_str(r#","you":"#);
    opt_seat(out, s.you);
    out.push_str(r#","alliance":{"proposal":"#);
    opt_serde(out, s.alliance.proposal.as_ref());
    out.push_str(r#","agreed":"#);
    boolean(out, s.alliance.agreed);
    out.push_str(r#"},"draw_offers":"#);
    seats(out, &s.draw_offers);
    out.push_str(r#","takeback":"#);
    opt_serde(out, s.takeback.as_ref());
    out.push_str(r#","grace_seconds":"#);
    serde_value(out, &s.grace_seconds);
    out.push_str(r#","now_ms":"#);
    int(out, s.now_ms);
    if let Some(t) = s.first_move_by_ms {
        out.push_str(r#","first_move_by_ms":"#);
        int(out, t);
    }
    if let Some(players) = &s.move_players {
        out.push_str(r#","move_players":"#);
        seats(out, players);
    }
    out.push_str(r#","in_check":"#);
    seats(out, &s.in_check);
    out.push_str(r#","clocks":"#);
    match &s.clocks {
        None => out.push_str("null"),
        Some(c) => clocks(out, c),
    }
    out.push_str(r#","private":"#);
    boolean(out, s.private);
    out.push_str(r#","bot_takeover":"#);
    boolean(out, s.bot_takeover);
    out.push_str(r#","rated":"#);
    boolean(out, s.rated);
    out.push_str(r#","paired":"#);
    boolean(out, s.paired);
    out.push_str(r#","rematch":{"requested":"#);
    seats(out, &s.rematch.requested);
    out.push_str(r#","room":"#);
    opt_string(out, s.rematch.room.as_deref());
    out.push_str(r#","of":"#);
    opt_string(out, s.rematch.of.as_deref());
    out.push_str("}}");
}

fn seat_info(out: &mut String, info: Option<&SeatInfo>) {
    let Some(i) = info else {
        out.push_str("null");
        return;
    };
    out.push_str(r#"{"name":"#);
    string(out, &i.name);
    out.push_str(r#","connected":"#);
    boolean(out, i.connected);
    out.push_str(r#","ready":"#);
    boolean(out, i.ready);
    out.push_str(r#","abandon_at_ms":"#);
    match i.abandon_at_ms {
        None => out.push_str("null"),
        Some(t) => int(out, t),
    }
    out.push_str(r#","bot":"#);
    match i.bot {
        None => out.push_str("null"),
        Some(level) => uint(out, level.into()),
    }
    out.push_str(r#","taken_over":"#);
    boolean(out, i.taken_over);
    out.push_str(r#","account":"#);
    opt_string(out, i.account.as_deref());
    out.push('}');
}

fn clocks(out: &mut String, c: &Clocks) {
    let s = &c.settings;
    out.push_str(r#"{"kind":""#);
    out.push_str(s.kind.as_str());
    out.push_str(r#"","main_ms":"#);
    uint(out, s.main_ms);
    out.push_str(r#","increment_ms":"#);
    uint(out, s.increment_ms);
    out.push_str(r#","byoyomi_ms":"#);
    uint(out, s.byoyomi_ms);
    out.push_str(r#","periods":"#);
    uint(out, s.periods.into());
    out.push_str(r#","running":"#);
    opt_seat(out, c.running);
    for (key, clock) in [
        (r#","first":"#, &c.first),
        (r#","middle":"#, &c.middle),
        (r#","last":"#, &c.last),
    ] {
        out.push_str(key);
        player_clock(out, clock);
    }
    if let Some(d) = c.deadline_ms {
        out.push_str(r#","deadline_ms":"#);
        uint(out, d);
    }
    out.push('}');
}

fn player_clock(out: &mut String, c: &PlayerClock) {
    out.push_str(r#"{"remaining_ms":"#);
    uint(out, c.remaining_ms);
    out.push_str(r#","periods":"#);
    uint(out, c.periods.into());
    out.push_str(r#","period_ms":"#);
    match c.period_ms {
        None => out.push_str("null"),
        Some(ms) => uint(out, ms),
    }
    out.push('}');
}

fn uint(out: &mut String, n: u64) {
    out.push_str(itoa::Buffer::new().format(n));
}

fn int(out: &mut String, n: i64) {
    out.push_str(itoa::Buffer::new().format(n));
}

fn boolean(out: &mut String, b: bool) {
    out.push_str(if b { "true" } else { "false" });
}

fn opt_seat(out: &mut String, seat: Option<Seat>) {
    match seat {
        None => out.push_str("null"),
        Some(s) => {
            out.push('"');
            out.push_str(s.as_str());
            out.push('"');
        }
    }
}

fn seats(out: &mut String, list: &[Seat]) {
    array(out, list, |out, s| opt_seat(out, Some(*s)));
}

pub(crate) fn strings(out: &mut String, list: &[String]) {
    array(out, list, |out, s| string(out, s));
}

/// `list` as a JSON array, each item written by `item`.
fn array<T>(out: &mut String, list: &[T], item: impl Fn(&mut String, &T)) {
    out.push('[');
    for (i, x) in list.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        item(out, x);
    }
    out.push(']');
}

fn opt_string(out: &mut String, s: Option<&str>) {
    match s {
        None => out.push_str("null"),
        Some(s) => string(out, s),
    }
}

/// `s` as a JSON string. serde_json escapes the quote, the backslash and the control
/// characters below U+0020, and writes everything else as it is; a string without
/// any of them is copied, any other is left to serde_json.
pub(crate) fn string(out: &mut String, s: &str) {
    if is_plain(s) {
        out.push('"');
        out.push_str(s);
        out.push('"');
    } else {
        serde_value(out, s);
    }
}

/// Whether `s` holds none of the characters JSON escapes. Looked at eight bytes at a
/// time: a position string is a few hundred bytes, and every `state` carries two.
fn is_plain(s: &str) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    // Some byte of `w` is below `n` (exact for n <= 128), or is zero.
    let below = |w: u64, n: u8| w.wrapping_sub(ONES * u64::from(n)) & !w & HIGH != 0;
    let zero = |w: u64| below(w, 1);
    let bytes = s.as_bytes();
    let mut words = bytes.chunks_exact(8);
    for w in &mut words {
        let w = u64::from_le_bytes(w.try_into().expect("eight bytes"));
        if below(w, 0x20)
            || zero(w ^ (ONES * u64::from(b'"')))
            || zero(w ^ (ONES * u64::from(b'\\')))
        {
            return false;
        }
    }
    words
        .remainder()
        .iter()
        .all(|&b| b >= 0x20 && b != b'"' && b != b'\\')
}

/// `v` as serde_json writes it, `null` for `None`.
fn opt_serde<T: Serialize>(out: &mut String, v: Option<&T>) {
    match v {
        None => out.push_str("null"),
        Some(v) => serde_value(out, v),
    }
}

/// `v` as serde_json writes it.
fn serde_value<T: Serialize + ?Sized>(out: &mut String, v: &T) {
    out.push_str(
        &serde_json::to_string(v).unwrap_or_else(|e| unreachable!("protocol types serialize: {e}")),
    );
}
