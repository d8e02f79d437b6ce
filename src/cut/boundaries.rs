//! Record boundaries (`--format diff` and `csv`): the rule that moves a
//! cut to where a record starts. The head ends at the last boundary within
//! its budget and the tail starts at the first one within its budget; with
//! none there, the core's rules decide. What a record is, and so where the
//! boundaries are, is the format's to say ([`format`](crate::format)).

/// The boundaries the cuts may move to: record starts after the first
/// byte, sorted.
pub(crate) struct Boundaries<'a> {
    pub(crate) sorted: &'a [u64],
}

impl Boundaries<'_> {
    /// The head cut: the last boundary b with 0 < b <= `limit`.
    pub(crate) fn head(&self, limit: u64) -> Option<u64> {
        let end = self.sorted.partition_point(|&b| b <= limit);
        self.sorted[..end].last().copied().filter(|&b| b > 0)
    }

    /// The tail cut: the first boundary b with `limit` <= b < n.
    pub(crate) fn tail(&self, limit: u64, n: u64) -> Option<u64> {
        let start = self.sorted.partition_point(|&b| b < limit);
        self.sorted.get(start).copied().filter(|&b| b < n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cuts_move_to_the_nearest_boundary_within_the_budget() {
        let boundaries = Boundaries {
            sorted: &[0, 10, 20, 30],
        };
        assert_eq!(boundaries.head(25), Some(20));
        assert_eq!(boundaries.head(20), Some(20));
        assert_eq!(boundaries.head(9), None);
        assert_eq!(boundaries.tail(11, 40), Some(20));
        assert_eq!(boundaries.tail(31, 40), None);
        assert_eq!(boundaries.tail(21, 30), None);
    }
}
