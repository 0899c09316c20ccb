//! Rated rooms (docs/accounts.md): a seat goes only to a connection logged in to an
//! account, under the account's name, one seat per account. The rating itself is done
//! outside the room, once the finished game is stored (`Registry::rated_game_over`).

use super::*;

impl Room {
    /// The name `conn` sits under: `Ok(None)` in a casual room (the name it gives),
    /// its account's name in a rated room, or the error refusing the seat.
    pub(super) fn rated_name(&self, conn: ConnId) -> Result<Option<String>, (ErrorCode, String)> {
        if !self.settings.rated {
            return Ok(None);
        }
        let account = self
            .fanout
            .conns
            .get(&conn)
            .and_then(|c| c.out.account.clone());
        let Some(account) = account else {
            return Err((
                ErrorCode::LoginRequired,
                "this room is rated: log in to an account to take a seat".into(),
            ));
        };
        if self.seats.iter().flatten().any(|s| *s.name == *account) {
            return Err((
                ErrorCode::AlreadySeated,
                "your account already holds a seat in this room".into(),
            ));
        }
        Ok(Some(account.to_string()))
    }
}
