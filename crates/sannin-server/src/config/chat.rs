//! The flags of the rooms' chat: message length, rates, history, mutes.

/// Chat: message length, the players' and the spectators' rates, history, mutes.
#[derive(Debug, Clone, PartialEq, clap::Args)]
pub struct ChatArgs {
    /// Longest chat message, in characters.
    #[arg(long, env = "SANNIN_CHAT_MAX_CHARS", default_value_t = 500)]
    pub chat_max_chars: usize,

    /// Chat messages a connection may send per minute on average.
    #[arg(long, env = "SANNIN_CHAT_PER_MINUTE", default_value_t = 20.0)]
    pub chat_per_minute: f64,

    /// Chat messages a connection may send in a burst.
    #[arg(long, env = "SANNIN_CHAT_BURST", default_value_t = 5)]
    pub chat_burst: u32,

    /// Chat messages of each channel a room keeps for late joiners (every message is
    /// stored; a restored room reads back this many).
    #[arg(long, env = "SANNIN_CHAT_HISTORY", default_value_t = 100)]
    pub chat_history: usize,

    /// Messages the spectators' chat of one room carries per minute on average, all
    /// spectators together; more are refused (`rate_limited`), neither sent nor stored.
    #[arg(long, env = "SANNIN_SPECTATOR_CHAT_PER_MINUTE", default_value_t = 30.0)]
    pub spectator_chat_per_minute: f64,

    /// Messages the spectators' chat of one room carries in a burst.
    #[arg(long, env = "SANNIN_SPECTATOR_CHAT_BURST", default_value_t = 10)]
    pub spectator_chat_burst: u32,

    /// Seconds a spectator that runs past its own chat rate limit stays muted
    /// (its chat refused with `muted`).
    #[arg(long, env = "SANNIN_CHAT_MUTE_SECONDS", default_value_t = 60.0)]
    pub chat_mute_seconds: f64,
}
