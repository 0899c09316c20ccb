//! How a table is seated: the seats drawn at random, and the level of the computer
//! players that fill it.

use sannin_bot::Level;
use sannin_rules::Player;
use uuid::Uuid;

/// The level of the computer players of a table: near the people's rating (Casual for
/// guests; 1000, where everyone starts, is Casual).
pub fn bot_level(ratings: &[Option<i64>]) -> Level {
    let known: Vec<i64> = ratings.iter().flatten().copied().collect();
    if known.is_empty() {
        return Level::CASUAL;
    }
    let mean = known.iter().sum::<i64>() / i64::try_from(known.len()).unwrap_or(1);
    match mean {
        ..900 => Level::BEGINNER,
        900..1150 => Level::CASUAL,
        1150..1400 => Level::STRONG,
        _ => Level::MASTER,
    }
}

/// Shuffles the seats (First moves first: nobody always gets it).
pub fn shuffle(seats: &mut [Player]) {
    let mut bits = u128::from_le_bytes(*Uuid::new_v4().as_bytes());
    for i in (1..seats.len()).rev() {
        let j = (bits % (i as u128 + 1)) as usize;
        bits /= i as u128 + 1;
        seats.swap(i, j);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn computer_players_come_near_the_peoples_rating() {
        assert_eq!(bot_level(&[None]), Level::CASUAL);
        assert_eq!(bot_level(&[Some(1000), None]), Level::CASUAL);
        assert_eq!(bot_level(&[Some(800)]), Level::BEGINNER);
        assert_eq!(bot_level(&[Some(1200), Some(1300)]), Level::STRONG);
        assert_eq!(bot_level(&[Some(1600)]), Level::MASTER);
    }

    #[test]
    fn seats_are_drawn_at_random() {
        let mut firsts = std::collections::HashSet::new();
        for _ in 0..200 {
            let mut s = Player::ALL.to_vec();
            shuffle(&mut s);
            let mut sorted = s.clone();
            sorted.sort_by_key(|p| p.index());
            assert_eq!(sorted, Player::ALL.to_vec());
            firsts.insert(s[0]);
        }
        assert_eq!(firsts.len(), 3, "each seat comes first sometimes");
    }
}
