//! Engine agreement (docs/moderation.md, "Engine agreement"): from the computer reviews
//! the site already makes, how often an account's moves were the review's best move
//! and how much they lost on average, over its last reviewed rated games, beside the
//! same share for the site's other accounts. A player who plays the engine's move far
//! more often than the site's strongest is worth a look; it proves nothing alone (a
//! forced reply, an opening everyone knows), so it is a flag, never a sanction.

use serde_json::Value;

use super::store::FairPlayDb;

/// The reviewed rated games of an account that its figure covers.
pub const GAMES: i64 = 30;

/// Judged moves an account needs before it counts in the site's distribution.
pub const MIN_MOVES: u64 = 20;

/// Reviews read into agreement rows at most in one request (the rest wait for the
/// next one): a review's JSON is tens of kilobytes.
const READ_AT_ONCE: i64 = 200;

/// One account's moves set against the reviews.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Agreement {
    /// Moves the reviews judged.
    pub moves: u64,
    /// Of those, the review's best move.
    pub matches: u64,
    /// The sum of their losses (each a share of the game, 0 to 1).
    pub loss_sum: f64,
}

impl Agreement {
    /// The share of judged moves that were the best move.
    pub fn match_share(&self) -> Option<f64> {
        (self.moves > 0).then(|| self.matches as f64 / self.moves as f64)
    }

    /// The average loss of a judged move.
    pub fn average_loss(&self) -> Option<f64> {
        (self.moves > 0).then(|| self.loss_sum / self.moves as f64)
    }

    /// The agreement of the moves of `seat` (`first`, `middle`, `last`) in a review's
    /// JSON (`moves`: `player`, `action`, `best`, `loss`; a move with no loss was not
    /// judged).
    pub fn of_review(review: &Value, seat: &str) -> Agreement {
        let mut a = Agreement::default();
        for m in review["moves"].as_array().into_iter().flatten() {
            let Some(loss) = m["loss"].as_f64() else {
                continue;
            };
            if m["player"].as_str() != Some(seat) {
                continue;
            }
            a.moves += 1;
            a.loss_sum += loss;
            if m["best"].is_string() && m["best"] == m["action"] {
                a.matches += 1;
            }
        }
        a
    }
}

/// The site's distribution of the match share over accounts.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct SiteAgreement {
    /// Accounts with at least [`MIN_MOVES`] judged moves.
    pub accounts: usize,
    /// The tenth percentile of their match shares.
    pub match_p10: Option<f64>,
    /// The median.
    pub match_p50: Option<f64>,
    /// The ninetieth percentile.
    pub match_p90: Option<f64>,
    /// The median of their average losses.
    pub loss_p50: Option<f64>,
}

/// The `q`-quantile (0 to 1) of sorted `v` by the nearest rank.
fn quantile(v: &[f64], q: f64) -> Option<f64> {
    if v.is_empty() {
        return None;
    }
    let rank = ((q * v.len() as f64).ceil() as usize).clamp(1, v.len());
    Some(v[rank - 1])
}

impl SiteAgreement {
    /// The distribution of `accounts`' agreements.
    pub fn of<'a>(accounts: impl IntoIterator<Item = &'a Agreement>) -> SiteAgreement {
        let counted: Vec<&Agreement> = accounts
            .into_iter()
            .filter(|a| a.moves >= MIN_MOVES)
            .collect();
        let mut shares: Vec<f64> = counted.iter().filter_map(|a| a.match_share()).collect();
        let mut losses: Vec<f64> = counted.iter().filter_map(|a| a.average_loss()).collect();
        shares.sort_by(f64::total_cmp);
        losses.sort_by(f64::total_cmp);
        SiteAgreement {
            accounts: counted.len(),
            match_p10: quantile(&shares, 0.1),
            match_p50: quantile(&shares, 0.5),
            match_p90: quantile(&shares, 0.9),
            loss_p50: quantile(&losses, 0.5),
        }
    }
}

/// What a moderator's record of an account shows.
#[derive(Debug, Clone, serde::Serialize)]
pub struct EngineRecord {
    /// Reviewed rated games counted.
    pub games: u64,
    /// Judged moves in them.
    pub moves: u64,
    /// [`Agreement::match_share`].
    pub match_share: Option<f64>,
    /// [`Agreement::average_loss`].
    pub average_loss: Option<f64>,
    /// The site beside it.
    pub site: SiteAgreement,
}

/// Reads the reviews not read yet (of `account` first, then anyone's) into agreement
/// rows.
///
/// # Errors
/// Database errors; a review that does not read as JSON is passed over.
async fn read_reviews(db: &FairPlayDb, account: Option<&str>) -> sqlx::Result<()> {
    for (room, account, seat, rated_at) in db.reviews_to_read(account, READ_AT_ONCE).await? {
        let Some(json) = db.review_result(&room).await? else {
            continue;
        };
        let Ok(review) = serde_json::from_str::<Value>(&json) else {
            tracing::warn!(%room, "a finished review that is not JSON");
            continue;
        };
        let a = Agreement::of_review(&review, &seat);
        db.record_agreement(&room, &account, rated_at, &a).await?;
    }
    Ok(())
}

/// The engine agreement of `account` (an id) and of the site (accounts with rated
/// games reviewed in the last 90 days).
///
/// # Errors
/// Database errors.
pub async fn record_of(db: &FairPlayDb, account: &str) -> sqlx::Result<EngineRecord> {
    read_reviews(db, Some(account)).await?;
    read_reviews(db, None).await?;
    let (games, mine) = db.agreement_of(account, GAMES).await?;
    let since = crate::store::unix_ms() - 90 * 86_400_000;
    let site = db.agreement_by_account(since).await?;
    Ok(EngineRecord {
        games,
        moves: mine.moves,
        match_share: mine.match_share(),
        average_loss: mine.average_loss(),
        site: SiteAgreement::of(site.values()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_review_counts_the_seats_judged_moves() {
        let review = json!({"moves": [
            {"ply": 1, "player": "first", "action": "P3c-4d", "best": "P3c-4d", "loss": 0.0},
            {"ply": 2, "player": "middle", "action": "P1a-1b", "best": "P2b-2c", "loss": 0.2},
            {"ply": 3, "player": "first", "action": "G1a-2b", "best": "P5c-5d", "loss": 0.1},
            {"ply": 4, "player": "first", "action": "resign", "best": null, "loss": null},
        ]});
        let a = Agreement::of_review(&review, "first");
        assert_eq!((a.moves, a.matches), (2, 1));
        assert!((a.loss_sum - 0.1).abs() < 1e-9);
        assert_eq!(a.match_share(), Some(0.5));
        assert_eq!(Agreement::of_review(&review, "last").moves, 0);
    }

    #[test]
    fn the_site_counts_accounts_with_enough_moves() {
        let many = |matches| Agreement {
            moves: 100,
            matches,
            loss_sum: 5.0,
        };
        let few = Agreement {
            moves: 3,
            matches: 3,
            loss_sum: 0.0,
        };
        let all = [many(30), many(40), many(50), few];
        let s = SiteAgreement::of(all.iter());
        assert_eq!(s.accounts, 3);
        assert_eq!(s.match_p10, Some(0.3));
        assert_eq!(s.match_p50, Some(0.4));
        assert_eq!(s.match_p90, Some(0.5));
        assert_eq!(s.loss_p50, Some(0.05));
    }
}
