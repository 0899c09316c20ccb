//! The quick-pairing pools: one per time-control preset, casual and rated.
//!
//! A ticket names its pool by the clock it asks for (`clock` of `POST /api/pairing`,
//! as `POST /api/rooms` takes it) and whether it is rated; a clock that is no preset's
//! is refused (`unknown_pool`), so that players meet in a few full pools rather than
//! in many empty ones.

use std::fmt;

use sannin_protocol::{ClockKind, ClockSettings};
use serde::Serialize;

/// A time-control preset of the pools.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Preset {
    /// Its short name (`3+2`, `10|30`…), as the lobby shows it.
    pub name: &'static str,
    /// The clock of the rooms it makes.
    pub clock: ClockSettings,
}

const fn fischer(name: &'static str, main_s: u64, inc_s: u64) -> Preset {
    Preset {
        name,
        clock: ClockSettings {
            kind: ClockKind::Fischer,
            main_ms: main_s * 1000,
            increment_ms: inc_s * 1000,
            byoyomi_ms: 0,
            periods: 0,
        },
    }
}

const fn byoyomi(name: &'static str, main_s: u64, period_s: u64, periods: u32) -> Preset {
    Preset {
        name,
        clock: ClockSettings {
            kind: ClockKind::Byoyomi,
            main_ms: main_s * 1000,
            increment_ms: 0,
            byoyomi_ms: period_s * 1000,
            periods,
        },
    }
}

const fn days(name: &'static str, days: u64) -> Preset {
    Preset {
        name,
        clock: ClockSettings {
            kind: ClockKind::Correspondence,
            main_ms: days * 86_400_000,
            increment_ms: 0,
            byoyomi_ms: 0,
            periods: 0,
        },
    }
}

/// The presets, the quickest first; the lobby's "Play now" is the first of the most
/// popular live ones. The last are correspondence pools: days for each move.
pub const PRESETS: &[Preset] = &[
    fischer("3+2", 180, 2),
    fischer("5+3", 300, 3),
    fischer("10+5", 600, 5),
    fischer("15+10", 900, 10),
    byoyomi("10|30", 600, 30, 1),
    days("1d", 1),
    days("3d", 3),
    days("7d", 7),
];

/// The preset "Play now" picks when no pool has anyone waiting.
pub const DEFAULT_PRESET: usize = 2;

/// A pool: a preset, casual or rated.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PoolId {
    /// Index into [`PRESETS`].
    pub preset: usize,
    /// Rated games, between logged-in players only.
    pub rated: bool,
}

impl PoolId {
    /// Every pool.
    pub fn all() -> impl Iterator<Item = PoolId> {
        (0..PRESETS.len()).flat_map(|preset| {
            [false, true]
                .into_iter()
                .map(move |rated| PoolId { preset, rated })
        })
    }

    /// The pool of `clock` and `rated`, if a preset has that clock.
    pub fn of(clock: &ClockSettings, rated: bool) -> Option<PoolId> {
        PRESETS
            .iter()
            .position(|p| p.clock == *clock)
            .map(|preset| PoolId { preset, rated })
    }

    /// Its preset.
    pub fn preset(self) -> &'static Preset {
        &PRESETS[self.preset]
    }

    /// A correspondence pool: its tickets wait however long it takes, whether their
    /// holders ask after them or not, and its tables start at once.
    pub fn is_correspondence(self) -> bool {
        self.preset().clock.kind == ClockKind::Correspondence
    }

    /// The pool of a preset's name and `rated`.
    pub fn named(name: &str, rated: bool) -> Option<PoolId> {
        PRESETS
            .iter()
            .position(|p| p.name == name)
            .map(|preset| PoolId { preset, rated })
    }

    /// As stored (`pairing_tickets.pool`) and logged: `10+5`, `10+5 rated`.
    pub fn key(self) -> String {
        self.to_string()
    }

    /// The pool stored as `key`.
    pub fn from_key(key: &str) -> Option<PoolId> {
        match key.strip_suffix(" rated") {
            Some(name) => PoolId::named(name, true),
            None => PoolId::named(key, false),
        }
    }
}

impl Serialize for PoolId {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.key())
    }
}

impl<'de> serde::Deserialize<'de> for PoolId {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<PoolId, D::Error> {
        let key = String::deserialize(d)?;
        PoolId::from_key(&key)
            .ok_or_else(|| serde::de::Error::custom(format_args!("no pool {key:?}")))
    }
}

impl fmt::Display for PoolId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.preset().name)?;
        if self.rated {
            f.write_str(" rated")?;
        }
        Ok(())
    }
}

/// An entry of `GET /api/pairing`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PoolInfo {
    /// The preset's name.
    pub name: &'static str,
    /// Its clock, as rooms show it.
    pub clock: ClockSettings,
    /// Rated or casual.
    pub rated: bool,
    /// People waiting in it now.
    pub waiting: usize,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_pool_is_found_by_its_clock_and_by_its_key() {
        let pools: Vec<PoolId> = PoolId::all().collect();
        assert_eq!(pools.len(), PRESETS.len() * 2);
        for p in pools {
            assert_eq!(PoolId::of(&p.preset().clock, p.rated), Some(p));
            assert_eq!(PoolId::from_key(&p.key()), Some(p));
        }
        let odd = ClockSettings {
            main_ms: 61_000,
            ..PRESETS[0].clock
        };
        assert_eq!(PoolId::of(&odd, false), None);
        assert_eq!(PoolId::from_key("7+7"), None);
    }
}
