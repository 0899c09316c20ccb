//! What a room runs with: its part of the server's settings (`crate::config` builds
//! it from the flags), and the time source every timer of the room reads.

use std::sync::Arc;
use std::time::Duration;

use sannin_bot::Level;

use crate::time::TimeSource;

/// A room's settings, the same for every room of the server.
#[derive(Debug, Clone)]
pub struct RoomConfig {
    /// How long a seat stays held after its connection went (`--grace-seconds`).
    pub grace: Duration,
    /// Before the start, how long the seat of a player who left stays held
    /// (`--waiting-grace-seconds`).
    pub waiting_grace: Duration,
    /// Time a newcomer to a full room has to take its seat.
    pub hello: Duration,
    /// Most spectators (connections without a seat) in one room.
    pub max_connections_per_room: usize,
    /// Most watchers from one client address in one room (0: no cap).
    pub spectators_per_address: usize,
    /// Longest name in characters.
    pub max_name_chars: usize,
    /// How long an idle finished room stays in memory.
    pub finished_idle: Duration,
    /// How long a quiet playing room stays in memory before it sleeps (None: never;
    /// `room/sleep.rs`).
    pub sleep_after: Option<Duration>,
    /// How long a waiting room with no human and no connection lives (None: forever).
    pub waiting_room_ttl: Option<Duration>,
    /// How long a correspondence room not started lives with nobody connected, its
    /// seats taken or not (None: forever).
    pub correspondence_waiting_ttl: Option<Duration>,
    /// Cap of the per-move lag credit, ms.
    pub lag_credit_max_ms: u64,
    /// A connection's message budget: tokens per second, and its burst.
    pub rate_per_second: f64,
    /// See `rate_per_second`.
    pub rate_burst: u32,
    /// Longest chat message (characters).
    pub chat_max_chars: usize,
    /// Chat rate per connection: messages per minute, and the burst.
    pub chat_per_minute: f64,
    /// See `chat_per_minute`.
    pub chat_burst: u32,
    /// Chat messages kept per channel.
    pub chat_history: usize,
    /// Room-wide budget of the spectators' chat: messages per minute, and the burst.
    pub spectator_chat_per_minute: f64,
    /// See `spectator_chat_per_minute`.
    pub spectator_chat_burst: u32,
    /// How long a spectator that floods the chat is muted.
    pub chat_mute: Duration,
    /// Default level of a bot taking over from a player who abandons.
    pub bot_takeover_level: Level,
    /// Where every timer of the room reads the time (tests inject one they advance).
    pub time: Arc<dyn TimeSource>,
}

impl RoomConfig {
    /// A connection's (or a seat's) chat budget: full, on the room's clock.
    pub fn chat_bucket(&self) -> crate::limits::Bucket {
        crate::limits::Bucket::new(self.chat_per_minute / 60.0, self.chat_burst, &self.time)
    }
}
