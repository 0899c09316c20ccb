//! The flags of rooms: grace periods, how many rooms and spectators, how long
//! rooms stay in memory or live unstarted, names, lag credit.

/// Rooms: grace periods, sizes, lifetimes in memory and unstarted.
#[derive(Debug, Clone, PartialEq, clap::Args)]
pub struct RoomArgs {
    /// Seconds a seated player may stay disconnected while it is to move before it
    /// loses by abandonment (fractions allowed). Before the game starts, a seat taken
    /// for a player who has not come yet (a rematch) is freed after this long.
    #[arg(long, env = "SANNIN_GRACE_SECONDS", default_value_t = 120.0)]
    pub grace_seconds: f64,

    /// Before the game starts, seconds after which the seat of a player who left is
    /// freed, so that the lobby's open tables tell the truth (fractions allowed).
    #[arg(long, env = "SANNIN_WAITING_GRACE_SECONDS", default_value_t = 10.0)]
    pub waiting_grace_seconds: f64,

    /// Most rooms not yet finished at once; creating one more gives `too_many_rooms`.
    #[arg(long, env = "SANNIN_MAX_ROOMS", default_value_t = 10_000)]
    pub max_rooms: usize,

    /// Most spectators per room: connections that hold no seat. A seated player's
    /// connection is never counted, nor refused for lack of room; a spectator beyond
    /// it gets `room_full` (close code 1013).
    #[arg(long, env = "SANNIN_MAX_CONNECTIONS_PER_ROOM", default_value_t = 200)]
    pub max_connections_per_room: usize,

    /// Watchers (`watch`) one client address may have in one room; one more is
    /// refused with `room_full`. A room full of spectators lets a newcomer in in place
    /// of the longest-silent watcher of the address holding the most places. 0: no
    /// cap.
    #[arg(long, env = "SANNIN_SPECTATORS_PER_ADDRESS", default_value_t = 8)]
    pub spectators_per_address: usize,

    /// Seconds a connection arriving at a room full of spectators has to `resume` its
    /// seat (or `join` a free one) before it is refused with `room_full`; a connection
    /// that has sent none of `join`, `resume`, `watch` for this long gives its place up
    /// to a newcomer in a full room.
    #[arg(long, env = "SANNIN_HELLO_SECONDS", default_value_t = 5.0)]
    pub hello_seconds: f64,

    /// Seconds a finished room with no connection stays in memory; it is then
    /// unloaded (and loaded again from the database when someone asks for it).
    #[arg(long, env = "SANNIN_FINISHED_IDLE_SECONDS", default_value_t = 600.0)]
    pub finished_idle_seconds: f64,

    /// Seconds a playing room with nobody connected and no timer due within a minute
    /// (a correspondence game) stays in memory; it then sleeps: unloaded, loaded
    /// again on demand or when its next deadline nears. 0: rooms never sleep.
    #[arg(long, env = "SANNIN_SLEEP_AFTER_SECONDS", default_value_t = 60.0)]
    pub sleep_after_seconds: f64,

    /// Seconds a waiting room with no human seated and nobody connected lives; it is
    /// then deleted (and not restored after a restart). 0: such rooms never expire.
    #[arg(long, env = "SANNIN_WAITING_ROOM_TTL_SECONDS", default_value_t = 600.0)]
    pub waiting_room_ttl_seconds: f64,

    /// Days a correspondence room that has not started lives with nobody connected
    /// (its seats taken, its players away); it is then deleted. 0: never.
    #[arg(
        long,
        env = "SANNIN_CORRESPONDENCE_WAITING_DAYS",
        default_value_t = 7.0
    )]
    pub correspondence_waiting_days: f64,

    /// Longest player name, in characters.
    #[arg(long, env = "SANNIN_MAX_NAME_CHARS", default_value_t = 32)]
    pub max_name_chars: usize,

    /// Most milliseconds of measured network round trip credited back to a player's
    /// clock per move (lag fairness; 0 turns it off).
    #[arg(long, env = "SANNIN_LAG_CREDIT_MAX_MS", default_value_t = 1000)]
    pub lag_credit_max_ms: u64,
}
