//! The flags of computer reviews and the settings they resolve to.

/// How reviews run on this server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReviewConfig {
    /// Reviews running at once on this node (0: this node reviews nothing; with no
    /// node reviewing, requests are refused `reviews_off`).
    pub workers: usize,
    /// Search budget of each position, in actions played.
    pub nodes: u64,
    /// Reviews an address, and an account, may ask for in a day.
    pub per_day: u32,
    /// Most reviews waiting on the site; one more is refused `review_busy`.
    pub max_waiting: u32,
}

impl Default for ReviewConfig {
    /// The settings of the flags' defaults.
    fn default() -> ReviewConfig {
        ReviewConfig::from_args(&ReviewArgs::default())
    }
}

/// Computer review flags.
#[derive(Debug, Clone, PartialEq, clap::Args)]
pub struct ReviewArgs {
    /// Computer reviews of finished games run at once on this node, each searching one
    /// position at a time on one core. 0: this node reviews nothing (a single node
    /// then refuses requests `503 reviews_off`; a cluster's other nodes review them).
    #[arg(long, env = "SANNIN_REVIEW_WORKERS", default_value_t = 1)]
    pub review_workers: usize,

    /// Search budget of each position of a review, in actions played (the same review
    /// on every machine; about 0.1 s a position on one core).
    #[arg(long, env = "SANNIN_REVIEW_NODES", default_value_t = 60_000)]
    pub review_nodes: u64,

    /// Reviews one client address, and one account, may ask for in a day (that many at
    /// once, then one more every day / this); over it, `429 rate_limited`. A game
    /// reviewed already costs nothing. 0: no limit.
    #[arg(long, env = "SANNIN_REVIEWS_PER_DAY", default_value_t = 20)]
    pub reviews_per_day: u32,

    /// Most reviews waiting on the whole site; one more is refused `503 review_busy`.
    #[arg(long, env = "SANNIN_MAX_REVIEWS_WAITING", default_value_t = 100)]
    pub max_reviews_waiting: u32,
}

impl ReviewConfig {
    /// The settings of the flags.
    pub fn from_args(a: &ReviewArgs) -> ReviewConfig {
        ReviewConfig {
            workers: a.review_workers,
            nodes: a.review_nodes.max(1),
            per_day: a.reviews_per_day,
            max_waiting: a.max_reviews_waiting,
        }
    }
}
