//! The flags of the bots that play in rooms: time per move, pacing, searches at
//! once, takeovers, rooms of bots alone.

/// Bots: time per move, pacing, searches at once, takeovers, rooms of bots alone.
#[derive(Debug, Clone, PartialEq, clap::Args)]
pub struct BotArgs {
    /// Hard limit on one bot move, in seconds (fractions allowed): a search that has
    /// not answered by then is abandoned and a random legal action is played instead,
    /// so a bot never stalls its room. 0: no search at all, every bot move is that
    /// random action (for tests).
    #[arg(long, env = "SANNIN_BOT_MOVE_SECONDS", default_value_t = 10.0)]
    pub bot_move_seconds: f64,

    /// A bot never answers sooner than this many milliseconds after its turn began
    /// (pacing, so that people see the bots' moves come one by one).
    #[arg(long, env = "SANNIN_BOT_MIN_MOVE_MS", default_value_t = 300)]
    pub bot_min_move_ms: u64,

    /// In a room where no human is seated, a bot never answers sooner than this many
    /// milliseconds after its turn began (at least `--bot-min-move-ms`), so that rooms
    /// of bots alone play at watching speed instead of filling the database.
    #[arg(long, env = "SANNIN_BOT_ONLY_MIN_MOVE_MS", default_value_t = 1000)]
    pub bot_only_min_move_ms: u64,

    /// Most bot searches running at once (on the blocking thread pool); further bots
    /// wait their turn, round robin among rooms, rooms with a person seated before
    /// rooms of bots alone. 0: every core but one (at least 1), so that bots cannot
    /// take the CPU from the human players' actions.
    #[arg(long, env = "SANNIN_BOT_CONCURRENCY", default_value_t = 0)]
    pub bot_concurrency: usize,

    /// Level (0–5) of the bot that replaces a player who abandons, in rooms created
    /// with `bot_takeover` and no `bot_takeover_level` of their own.
    #[arg(long, env = "SANNIN_BOT_TAKEOVER_LEVEL", default_value_t = 2,
          value_parser = clap::value_parser!(u8).range(0..=5))]
    pub bot_takeover_level: u8,

    /// Most rooms where only bots play (three bot seats, bots standing in for players
    /// who left, or bots playing on once the person is out of the game) not finished
    /// at once; creating one more gives `429 too_many_bot_only_rooms`. 0: no room of
    /// bots alone can be created.
    #[arg(long, env = "SANNIN_MAX_BOT_ONLY_ROOMS", default_value_t = 20)]
    pub max_bot_only_rooms: usize,

    /// Most rooms where only bots play that one client address may run at once (of
    /// `--max-bot-only-rooms`), counting the rooms with bots it made or was seated at
    /// by quick pairing that bots alone play now; one more room with bots gives `429
    /// too_many_bot_only_rooms`. 0: no limit per address.
    #[arg(
        long,
        env = "SANNIN_MAX_BOT_ONLY_ROOMS_PER_ADDRESS",
        default_value_t = 3
    )]
    pub max_bot_only_rooms_per_address: usize,
}
