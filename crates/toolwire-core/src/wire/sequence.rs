//! The sequence numbers a stream's events carried, to tell a repeated event (the same number
//! again) from a new one. Numbers are expected to count up by one, as every recorded Responses
//! stream does: then this holds two numbers whatever the stream's length. A number that jumps
//! ahead leaves the ones it skipped as gaps, which an event arriving late fills, so an event
//! delivered out of order is never taken for a repeat.

/// The numbers seen so far.
#[derive(Debug, Default)]
pub struct SequenceNumbers {
    /// One past the highest number seen (0: none seen; past `u64::MAX` once that was seen).
    next: u128,
    /// The numbers below `next` not seen yet, as sorted, disjoint, inclusive ranges.
    gaps: Vec<(u64, u64)>,
}

impl SequenceNumbers {
    /// No number seen.
    pub fn new() -> Self {
        Self::default()
    }

    /// Records `number`; `false` when it was seen before (the event is a repeat).
    pub fn insert(&mut self, number: u64) -> bool {
        if u128::from(number) >= self.next {
            if u128::from(number) > self.next {
                // (`next` is at most `number` here, so it fits)
                self.gaps.push((self.next as u64, number - 1));
            }
            self.next = u128::from(number) + 1;
            return true;
        }
        // The last gap starting at or before `number`.
        let at = self.gaps.partition_point(|&(start, _)| start <= number);
        let Some(at) = at.checked_sub(1) else {
            return false;
        };
        let (start, end) = self.gaps[at];
        if number > end {
            return false;
        }
        match (start < number, number < end) {
            (false, false) => {
                self.gaps.remove(at);
            }
            (true, false) => self.gaps[at] = (start, number - 1),
            (false, true) => self.gaps[at] = (number + 1, end),
            (true, true) => {
                self.gaps[at] = (start, number - 1);
                self.gaps.insert(at + 1, (number + 1, end));
            }
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use super::SequenceNumbers;

    #[test]
    fn counting_up_by_one_keeps_no_gaps_and_a_repeat_is_found() {
        let mut seen = SequenceNumbers::new();
        for n in 0..1000 {
            assert!(seen.insert(n));
        }
        assert!(seen.gaps.is_empty());
        assert!(!seen.insert(999));
        assert!(!seen.insert(0));
        assert!(!seen.insert(500));
        assert!(seen.insert(1000));
    }

    #[test]
    fn numbers_out_of_order_are_each_new_once() {
        // As a stream whose parallel calls' events were interleaved by a relay keeps them.
        let order = [0, 1, 5, 2, 7, 3, 4, 6, 9, 8, 5, 2, 9, 12, 10, 11];
        let mut seen = SequenceNumbers::new();
        let mut reference = HashSet::new();
        for n in order {
            assert_eq!(seen.insert(n), reference.insert(n), "{n}");
        }
        assert!(seen.gaps.is_empty(), "{:?}", seen.gaps);
    }

    #[test]
    fn agrees_with_a_set_on_a_pseudo_random_order() {
        let mut seen = SequenceNumbers::new();
        let mut reference = HashSet::new();
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        for _ in 0..5000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let n = x % 700;
            assert_eq!(seen.insert(n), reference.insert(n), "{n}");
        }
        let edges = [u64::MAX - 1, u64::MAX, u64::MAX, 3];
        for n in edges {
            assert_eq!(seen.insert(n), reference.insert(n), "{n}");
        }
    }
}
