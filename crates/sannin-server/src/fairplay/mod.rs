//! Fair play (docs/moderation.md, "Fair play"): the engine locked for games in play
//! ([`live`]), the figures colluding pairs leave behind and the pairs kept apart
//! ([`pairs`], stored by [`store`]), and each account's agreement with the computer
//! reviews ([`engine`]). Figures only: nothing here sanctions anyone by itself.

pub mod engine;
pub mod live;
pub mod pairs;
pub mod store;

pub use live::LivePositions;
