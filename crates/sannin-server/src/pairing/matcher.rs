//! Matching triples: which waiting tickets of one pool sit down at one table, as a
//! pure function of the queue and the time (`wave`), so that every rule is tested
//! without a server.
//!
//! - The queue is in order of priority: the longest waiting first, and tickets sent
//!   back after a no-show at the very front.
//! - **Casual pools** take the longest waiting first: each table is the first ticket
//!   left and the next two of other people.
//! - **Rated pools** group players whose ratings fit a window that widens with waiting
//!   time (the way lichess's pools do): a table is three players each within the
//!   smallest window of the three of each other, the longest waiting served first.
//! - **Short tables** (casual only): a ticket that asked for bots after a wait, once
//!   that wait has passed, sits down with at most one more person who accepts bots too,
//!   and computer players fill the rest.
//! - One person (an account, or a browser for guests) never sits twice at one table,
//!   and two accounts a moderator keeps apart ([`Apart`]) never sit at one together.

use std::fmt;
use std::time::Duration;

use crate::time::Moment;

/// Who holds a ticket, for the rules that speak of a person. Written `account:ID`,
/// `browser:ID` or `ticket:KEY` (stored, and sent between nodes).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Person {
    /// A logged-in account (its id).
    Account(String),
    /// A guest's browser (its browser cookie).
    Browser(String),
    /// A client that keeps no cookie: the ticket alone.
    Ticket(String),
}

impl fmt::Display for Person {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Person::Account(id) => write!(f, "account:{id}"),
            Person::Browser(id) => write!(f, "browser:{id}"),
            Person::Ticket(key) => write!(f, "ticket:{key}"),
        }
    }
}

impl std::str::FromStr for Person {
    type Err = String;
    fn from_str(s: &str) -> Result<Person, String> {
        match s.split_once(':') {
            Some(("account", id)) => Ok(Person::Account(id.into())),
            Some(("browser", id)) => Ok(Person::Browser(id.into())),
            Some(("ticket", key)) => Ok(Person::Ticket(key.into())),
            _ => Err(format!("not a person: {s:?}")),
        }
    }
}

impl serde::Serialize for Person {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> serde::Deserialize<'de> for Person {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Person, D::Error> {
        let s = <String as serde::Deserialize>::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

/// Pairs of accounts (ids, the lesser first) that never sit at one table.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Apart(pub std::collections::BTreeSet<(String, String)>);

impl Apart {
    /// Whether `a` and `b` may sit at one table: two people, not kept apart.
    pub fn together(&self, a: &Person, b: &Person) -> bool {
        if a == b {
            return false;
        }
        match (a, b) {
            (Person::Account(x), Person::Account(y)) => {
                let pair = if x <= y { (x, y) } else { (y, x) };
                !self.0.contains(&(pair.0.clone(), pair.1.clone()))
            }
            _ => true,
        }
    }
}

/// A waiting ticket as the matcher sees it.
#[derive(Debug, Clone, PartialEq)]
pub struct Waiting {
    /// Its holder.
    pub person: Person,
    /// Its holder's display rating (rated pools).
    pub rating: Option<i64>,
    /// Bots may fill its table once it waited this long (casual pools).
    pub bots_after: Option<Duration>,
    /// When it joined the queue.
    pub since: Moment,
}

/// A table found by a wave: indices into the queue, and computer players to add.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Table {
    /// The tickets seated, in queue order.
    pub tickets: Vec<usize>,
    /// Seats left for computer players.
    pub bots: usize,
}

/// The rating window of a ticket that waited `waited`: ±100 at first, 15 points
/// wider each second, at most ±700.
pub fn rating_window(waited: Duration) -> i64 {
    let secs = i64::try_from(waited.as_secs()).unwrap_or(i64::MAX);
    100_i64.saturating_add(secs.saturating_mul(15)).min(700)
}

/// The tables one wave makes of `queue` (one pool's waiting tickets, in priority
/// order) at `now`, never seating together two accounts of `apart`.
pub fn wave(queue: &[Waiting], rated: bool, now: Moment, apart: &Apart) -> Vec<Table> {
    let mut taken = vec![false; queue.len()];
    let mut tables = if rated {
        rated_triples(queue, now, &mut taken, apart)
    } else {
        casual_triples(queue, &mut taken, apart)
    };
    if !rated {
        tables.extend(short_tables(queue, now, &mut taken, apart));
    }
    tables
}

/// The next tickets after `first` (not taken, of other people than those in
/// `group`), until the group has `size`.
fn fill(queue: &[Waiting], taken: &[bool], group: &mut Vec<usize>, size: usize, apart: &Apart) {
    for j in group[0] + 1..queue.len() {
        if group.len() >= size {
            break;
        }
        if taken[j]
            || group
                .iter()
                .any(|&g| !apart.together(&queue[g].person, &queue[j].person))
        {
            continue;
        }
        group.push(j);
    }
}

fn casual_triples(queue: &[Waiting], taken: &mut [bool], apart: &Apart) -> Vec<Table> {
    let mut tables = Vec::new();
    for i in 0..queue.len() {
        if taken[i] {
            continue;
        }
        let mut group = vec![i];
        fill(queue, taken, &mut group, 3, apart);
        if group.len() == 3 {
            for &g in &group {
                taken[g] = true;
            }
            tables.push(Table {
                tickets: group,
                bots: 0,
            });
        }
    }
    tables
}

/// Candidates per ticket considered for a rated table (the nearest in rating).
const RATED_CANDIDATES: usize = 24;

fn rated_triples(queue: &[Waiting], now: Moment, taken: &mut [bool], apart: &Apart) -> Vec<Table> {
    let together = |a: usize, b: usize| apart.together(&queue[a].person, &queue[b].person);
    let rating = |i: usize| queue[i].rating.unwrap_or(1000);
    let window = |i: usize| rating_window(now.since(queue[i].since));
    let fits = |a: usize, b: usize| (rating(a) - rating(b)).abs() <= window(a).min(window(b));
    let mut tables = Vec::new();
    for i in 0..queue.len() {
        if taken[i] {
            continue;
        }
        let mut near: Vec<usize> = (0..queue.len())
            .filter(|&j| j != i && !taken[j] && together(i, j) && fits(i, j))
            .collect();
        near.sort_by_key(|&j| ((rating(j) - rating(i)).abs(), j));
        near.truncate(RATED_CANDIDATES);
        let pair = near.iter().enumerate().find_map(|(x, &j)| {
            near[x + 1..]
                .iter()
                .find(|&&k| together(j, k) && fits(j, k))
                .map(|&k| (j, k))
        });
        if let Some((j, k)) = pair {
            let mut group = vec![i, j, k];
            group.sort_unstable();
            for &g in &group {
                taken[g] = true;
            }
            tables.push(Table {
                tickets: group,
                bots: 0,
            });
        }
    }
    tables
}

fn short_tables(queue: &[Waiting], now: Moment, taken: &mut [bool], apart: &Apart) -> Vec<Table> {
    let due = |i: usize| {
        queue[i]
            .bots_after
            .is_some_and(|d| now.since(queue[i].since) >= d)
    };
    let mut tables = Vec::new();
    for i in 0..queue.len() {
        if taken[i] || !due(i) {
            continue;
        }
        let mut group = vec![i];
        // Another person who accepts bots may join; nobody who wants people only.
        let mut others: Vec<usize> = (0..queue.len())
            .filter(|&j| j != i && !taken[j] && queue[j].bots_after.is_some())
            .filter(|&j| apart.together(&queue[i].person, &queue[j].person))
            .collect();
        others.truncate(1);
        group.extend(others);
        group.sort_unstable();
        for &g in &group {
            taken[g] = true;
        }
        tables.push(Table {
            bots: 3 - group.len(),
            tickets: group,
        });
    }
    tables
}

#[cfg(test)]
mod tests {
    use super::*;

    fn guest(n: u32, since: u64) -> Waiting {
        Waiting {
            person: Person::Browser(format!("b{n}")),
            rating: None,
            bots_after: None,
            since: Moment(since),
        }
    }

    fn rated(n: u32, rating: i64, since: u64) -> Waiting {
        Waiting {
            person: Person::Account(format!("a{n}")),
            rating: Some(rating),
            ..guest(n, since)
        }
    }

    fn seated(tables: &[Table]) -> Vec<Vec<usize>> {
        tables.iter().map(|t| t.tickets.clone()).collect()
    }

    #[test]
    fn casual_pools_seat_the_longest_waiting_first_in_threes() {
        let q: Vec<Waiting> = (0..7).map(|n| guest(n, u64::from(n))).collect();
        let t = wave(&q, false, Moment(100), &Apart::default());
        assert_eq!(seated(&t), [vec![0, 1, 2], vec![3, 4, 5]]);
        assert!(t.iter().all(|t| t.bots == 0));
    }

    #[test]
    fn one_person_never_sits_twice_at_a_table() {
        let mut q = vec![guest(1, 0), guest(1, 1), guest(2, 2), guest(3, 3)];
        let t = wave(&q, false, Moment(10), &Apart::default());
        assert_eq!(seated(&t), [vec![0, 2, 3]], "the second ticket of b1 waits");
        q.truncate(3);
        assert!(
            wave(&q, false, Moment(10), &Apart::default()).is_empty(),
            "two people are not a table"
        );
    }

    #[test]
    fn bots_fill_a_short_table_once_its_wait_passed() {
        let mut lone = guest(1, 0);
        lone.bots_after = Some(Duration::from_secs(30));
        assert!(wave(&[lone.clone()], false, Moment(29_999), &Apart::default()).is_empty());
        let t = wave(&[lone.clone()], false, Moment(30_000), &Apart::default());
        assert_eq!(
            t,
            [Table {
                tickets: vec![0],
                bots: 2
            }],
            "one person, two bots"
        );

        // A second person who accepts bots joins it; one who wants people only does not.
        let mut willing = guest(2, 1_000);
        willing.bots_after = Some(Duration::from_secs(600));
        let unwilling = guest(3, 500);
        let q = [lone.clone(), willing];
        let t = wave(&q, false, Moment(30_000), &Apart::default());
        assert_eq!(
            t,
            [Table {
                tickets: vec![0, 1],
                bots: 1
            }]
        );
        let q = [lone.clone(), unwilling.clone()];
        let t = wave(&q, false, Moment(30_000), &Apart::default());
        assert_eq!(
            t,
            [Table {
                tickets: vec![0],
                bots: 2
            }],
            "people only: it waits for people"
        );

        // Three people are a table of people, whatever they accept.
        let q = [lone, unwilling, guest(4, 2_000)];
        assert_eq!(
            wave(&q, false, Moment(30_000), &Apart::default())[0].bots,
            0
        );
    }

    #[test]
    fn rated_pools_never_seat_bots() {
        let mut lone = rated(1, 1000, 0);
        lone.bots_after = Some(Duration::ZERO);
        assert!(wave(&[lone], true, Moment(3_600_000), &Apart::default()).is_empty());
    }

    #[test]
    fn rated_pools_group_close_ratings_and_the_window_widens_with_the_wait() {
        let q = [
            rated(1, 1000, 0),
            rated(2, 1400, 0),
            rated(3, 1050, 0),
            rated(4, 1080, 0),
        ];
        // At once: ±100, so 1400 waits.
        assert_eq!(
            seated(&wave(&q, true, Moment(0), &Apart::default())),
            [vec![0, 2, 3]]
        );
        let q = [rated(1, 1000, 0), rated(2, 1400, 0), rated(3, 1050, 0)];
        assert!(
            wave(&q, true, Moment(0), &Apart::default()).is_empty(),
            "1400 is too far at first"
        );
        // After 20 s each window is ±400: one table.
        assert_eq!(
            seated(&wave(&q, true, Moment(20_000), &Apart::default())),
            [vec![0, 1, 2]]
        );
        // Every pair of a table fits: 1000 and 1400 both need the wider window.
        let q = [rated(1, 1000, 0), rated(2, 1400, 20_000), rated(3, 1200, 0)];
        assert!(
            wave(&q, true, Moment(20_000), &Apart::default()).is_empty(),
            "the newcomer's window is ±100"
        );
    }

    #[test]
    fn the_rating_window_grows_to_a_cap() {
        assert_eq!(rating_window(Duration::ZERO), 100);
        assert_eq!(rating_window(Duration::from_secs(10)), 250);
        assert_eq!(rating_window(Duration::from_secs(3600)), 700);
    }

    #[test]
    fn a_pair_kept_apart_never_sits_together() {
        let apart = Apart([("a1".to_string(), "a2".to_string())].into_iter().collect());
        let q = vec![
            rated(1, 1000, 0),
            rated(2, 1000, 1),
            rated(3, 1000, 2),
            rated(4, 1000, 3),
        ];
        let t = wave(&q, true, Moment(0), &apart);
        assert_eq!(seated(&t), [vec![0, 2, 3]], "a1 sits without a2");
        let casual: Vec<Waiting> = q
            .iter()
            .map(|w| Waiting {
                rating: None,
                ..w.clone()
            })
            .collect();
        assert_eq!(
            seated(&wave(&casual, false, Moment(0), &apart)),
            [vec![0, 2, 3]]
        );
        // The two alone with a third never make a table.
        assert!(wave(&q[..3], true, Moment(0), &apart).is_empty());
        assert!(apart.together(&Person::Account("a3".into()), &Person::Account("a1".into())));
        assert!(!apart.together(&Person::Account("a2".into()), &Person::Account("a1".into())));
    }
}
