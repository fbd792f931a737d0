//! Choosing secrets among overlapping candidates, in one pass from left to right.
//!
//! Candidates arrive in the order of the position where their kind's match starts; the part to
//! replace may start later (a bearer token after its header name) or, for a PEM END line, earlier.
//! The rule: the earlier start wins, on a tie the longer range, then the kind listed first. A
//! candidate is settled once nothing that could still arrive can start before it.

use std::cmp::Reverse;

/// A possible secret: the byte range to replace and the index of its kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Candidate {
    /// Start of the range to replace.
    pub start: usize,
    /// End of the range to replace.
    pub end: usize,
    /// Index of the kind in the scanner's list.
    pub kind: usize,
}

impl Candidate {
    /// The ordering key: earlier start, then longer, then the kind listed first.
    fn rank(&self) -> (usize, Reverse<usize>, usize) {
        (self.start, Reverse(self.end), self.kind)
    }
}

/// The secrets taken so far and the candidates not yet settled.
#[derive(Debug, Default)]
pub(super) struct Sweep {
    /// Secrets taken, sorted by start, non-overlapping.
    taken: Vec<Candidate>,
    /// Candidates not yet settled; each starts at or after `taken_until`.
    pending: Vec<Candidate>,
    /// The end of the last secret taken: nothing may start before it.
    taken_until: usize,
}

impl Sweep {
    /// The end of the last secret taken.
    pub(super) fn taken_until(&self) -> usize {
        self.taken_until
    }

    /// The last secret taken.
    pub(super) fn last_taken(&self) -> Option<Candidate> {
        self.taken.last().copied()
    }

    /// Extends the last secret taken to `end` when it ends before (a token starting inside it
    /// reaches past it); drops the pending candidates it then overlaps.
    pub(super) fn extend_last(&mut self, end: usize) {
        let Some(last) = self.taken.last_mut() else {
            return;
        };
        if end > last.end {
            last.end = end;
            self.taken_until = end;
            self.pending.retain(|pending| pending.start >= end);
        }
    }

    /// The secrets taken, sorted by start.
    pub(super) fn into_taken(self) -> Vec<Candidate> {
        self.taken
    }

    /// Adds a candidate (ignored when it overlaps a secret already taken).
    pub(super) fn offer(&mut self, candidate: Candidate) {
        if candidate.start >= self.taken_until {
            self.pending.push(candidate);
        }
    }

    /// Settles every pending candidate that starts before `limit`, best first.
    pub(super) fn settle_before(&mut self, limit: usize) {
        while let Some(best) = self
            .best_pending()
            .filter(|&best| self.pending[best].start < limit)
        {
            let candidate = self.pending.swap_remove(best);
            self.take(candidate);
        }
    }

    /// Takes the best pending candidate if it starts at or before `at` (nothing arriving later
    /// can start that early).
    pub(super) fn take_if_first(&mut self, at: usize) {
        if let Some(best) = self
            .best_pending()
            .filter(|&best| self.pending[best].start <= at)
        {
            let candidate = self.pending.swap_remove(best);
            self.take(candidate);
        }
    }

    /// Takes a candidate whose range reaches back from `candidate.start` to `reach`, before
    /// secrets already taken (a PEM body before its END line). Secrets taken that start inside
    /// the reach give way (the candidate starts earlier); one that straddles `reach` keeps its
    /// range and the candidate starts after it. `confirm` gets that start and returns the final
    /// one, or `None` when the candidate is no secret from there.
    pub(super) fn take_reaching_back(
        &mut self,
        reach: usize,
        candidate: Candidate,
        confirm: impl FnOnce(usize) -> Option<usize>,
    ) {
        let mut kept = self.taken.len();
        while kept > 0 && self.taken[kept - 1].start >= reach {
            kept -= 1;
        }
        let start = match kept.checked_sub(1) {
            Some(last) => reach.max(self.taken[last].end),
            None => reach,
        };
        let Some(start) = confirm(start) else {
            return;
        };
        self.taken.truncate(kept);
        self.taken_until = kept.checked_sub(1).map_or(0, |last| self.taken[last].end);
        self.take(Candidate { start, ..candidate });
    }

    /// The index of the best pending candidate.
    fn best_pending(&self) -> Option<usize> {
        (0..self.pending.len()).min_by_key(|&index| self.pending[index].rank())
    }

    /// Takes `candidate` unless it overlaps a secret taken; drops the pending candidates it
    /// overlaps.
    fn take(&mut self, candidate: Candidate) {
        if candidate.start < self.taken_until {
            return;
        }
        self.taken.push(candidate);
        self.taken_until = candidate.end;
        let taken_until = self.taken_until;
        self.pending.retain(|pending| pending.start >= taken_until);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn candidate(start: usize, end: usize, kind: usize) -> Candidate {
        Candidate { start, end, kind }
    }

    #[test]
    fn earlier_start_then_longer_then_first_kind_wins() {
        let cases: &[(&[Candidate], &[Candidate])] = &[
            // (offered, taken)
            (
                &[candidate(0, 5, 1), candidate(0, 9, 2)],
                &[candidate(0, 9, 2)],
            ),
            (
                &[candidate(3, 20, 0), candidate(2, 6, 1)],
                &[candidate(2, 6, 1)],
            ),
            (
                &[candidate(4, 8, 3), candidate(4, 8, 1)],
                &[candidate(4, 8, 1)],
            ),
            (
                &[candidate(0, 4, 0), candidate(4, 8, 1), candidate(6, 9, 2)],
                &[candidate(0, 4, 0), candidate(4, 8, 1)],
            ),
        ];
        for (offered, taken) in cases {
            let mut sweep = Sweep::default();
            for &offer in *offered {
                sweep.offer(offer);
            }
            sweep.settle_before(usize::MAX);
            assert_eq!(sweep.into_taken(), *taken, "offered {offered:?}");
        }
    }

    #[test]
    fn a_candidate_reaching_back_displaces_secrets_inside_its_reach() {
        let mut sweep = Sweep::default();
        sweep.offer(candidate(0, 4, 0));
        sweep.offer(candidate(10, 14, 1));
        sweep.settle_before(20);
        // Reaches back to 2: the secret at 10 gives way, the one straddling 2 stays.
        sweep.take_reaching_back(2, candidate(20, 30, 2), Some);
        assert_eq!(
            sweep.into_taken(),
            [candidate(0, 4, 0), candidate(4, 30, 2)]
        );
        let mut sweep = Sweep::default();
        sweep.offer(candidate(10, 14, 1));
        sweep.settle_before(20);
        sweep.take_reaching_back(12, candidate(20, 30, 2), |_| None);
        assert_eq!(sweep.into_taken(), [candidate(10, 14, 1)]);
    }
}
