//! Concurrency keys: calls whose tool returns the same `concurrencyKey` never overlap and run in
//! the order they were admitted.

use std::collections::{HashMap, VecDeque};

use super::protocol::CallRef;

/// One FIFO per key; the call at the front holds the key.
#[derive(Debug, Default)]
pub(crate) struct KeyLocks {
    queues: HashMap<String, VecDeque<CallRef>>,
}

impl KeyLocks {
    /// Queues `call` behind the key; returns whether it holds the key now.
    pub fn acquire(&mut self, key: &str, call: CallRef) -> bool {
        let queue = self.queues.entry(key.to_owned()).or_default();
        queue.push_back(call);
        queue.len() == 1
    }

    /// Releases the key held by `holder` and hands it to the next waiter that is still waiting
    /// (others ended meanwhile and are dropped). Returns the new holder.
    pub fn release(
        &mut self,
        key: &str,
        holder: CallRef,
        mut still_waiting: impl FnMut(CallRef) -> bool,
    ) -> Option<CallRef> {
        let queue = self.queues.get_mut(key)?;
        debug_assert_eq!(queue.front(), Some(&holder));
        queue.pop_front();
        while let Some(&next) = queue.front() {
            if still_waiting(next) {
                return Some(next);
            }
            queue.pop_front();
        }
        self.queues.remove(key);
        None
    }

    /// How many keys are held.
    #[cfg(test)]
    pub fn held(&self) -> usize {
        self.queues.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(slot: u32) -> CallRef {
        CallRef { batch: 1, slot }
    }

    #[test]
    fn the_first_call_holds_and_waiters_follow_in_order() {
        let mut locks = KeyLocks::default();
        assert!(locks.acquire("a.txt", call(0)));
        assert!(!locks.acquire("a.txt", call(1)));
        assert!(!locks.acquire("a.txt", call(2)));
        assert!(locks.acquire("b.txt", call(3)));
        assert_eq!(locks.release("a.txt", call(0), |_| true), Some(call(1)));
        assert_eq!(locks.release("a.txt", call(1), |_| true), Some(call(2)));
        assert_eq!(locks.release("a.txt", call(2), |_| true), None);
        assert_eq!(locks.held(), 1);
    }

    #[test]
    fn waiters_that_ended_are_skipped() {
        let mut locks = KeyLocks::default();
        locks.acquire("k", call(0));
        locks.acquire("k", call(1));
        locks.acquire("k", call(2));
        assert_eq!(locks.release("k", call(0), |c| c != call(1)), Some(call(2)));
        assert_eq!(locks.release("k", call(2), |_| true), None);
        assert_eq!(locks.held(), 0);
    }
}
