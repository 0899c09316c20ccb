//! The order in which a search visits the children of a node.

/// The indices of children by their score, highest first and ties in their
/// order (what a stable sort by score gives), leaving the children where
/// they are (a played child holds a whole position, too large to move about
/// in a sort). The first few are picked one at a time, the rest sorted only
/// if asked for: a cutoff usually comes after one or two.
pub(crate) struct BestFirst {
    /// `(-score, index)`, the picked ones first.
    keys: Vec<(i32, u32)>,
    picked: usize,
}

impl BestFirst {
    /// Picks made before the rest are sorted.
    const PICKS: usize = 3;

    pub(crate) fn new<T>(children: &[T], score: impl Fn(&T) -> i32) -> BestFirst {
        BestFirst {
            keys: (0..).zip(children).map(|(i, c)| (-score(c), i)).collect(),
            picked: 0,
        }
    }
}

impl Iterator for BestFirst {
    type Item = usize;

    fn next(&mut self) -> Option<usize> {
        let rest = self.keys.get_mut(self.picked..)?;
        if self.picked < Self::PICKS {
            let (j, _) = rest.iter().enumerate().min_by_key(|(_, k)| **k)?;
            rest.swap(0, j);
        } else if self.picked == Self::PICKS {
            rest.sort_unstable();
        }
        let (_, i) = *rest.first()?;
        self.picked += 1;
        Some(i as usize)
    }
}
