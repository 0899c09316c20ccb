//! Ratings of rated games (docs/ratings.md): the model — how a finished game becomes
//! teams with places, and the Weng–Lin update (`model.rs`) — and applying it — rating
//! a stored game exactly once, and the sweep that rates games no node got to
//! (`apply.rs`).

mod apply;
mod model;

pub use apply::{rate_room, sweep, Rated, RatingRules};
pub use model::*;
