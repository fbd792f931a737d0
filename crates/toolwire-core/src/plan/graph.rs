//! The dependency graph of a plan's steps: who waits for whom, and cycles. Steps are plan
//! indexes; `deps[i]` lists the steps step `i` depends on.

use std::collections::VecDeque;

/// For each step, the steps that depend on it, in plan order.
pub fn dependents(deps: &[&[usize]]) -> Vec<Vec<usize>> {
    let mut out = vec![Vec::new(); deps.len()];
    for (step, list) in deps.iter().enumerate() {
        for &dep in list.iter() {
            if let Some(slot) = out.get_mut(dep) {
                slot.push(step);
            }
        }
    }
    out
}

/// A dependency cycle, when there is one: its steps in order, each depending on the next, the
/// first repeated at the end, starting from the cycle's earliest step in plan order. Linear:
/// Kahn's algorithm, then one walk through what it could not order.
pub fn find_cycle(deps: &[&[usize]]) -> Option<Vec<usize>> {
    let count = deps.len();
    let mut waiting: Vec<usize> = deps.iter().map(|list| list.len()).collect();
    let dependents = dependents(deps);
    let mut ready: VecDeque<usize> = (0..count).filter(|&i| waiting[i] == 0).collect();
    let mut ordered = vec![false; count];
    while let Some(step) = ready.pop_front() {
        ordered[step] = true;
        for &dependent in &dependents[step] {
            waiting[dependent] -= 1;
            if waiting[dependent] == 0 {
                ready.push_back(dependent);
            }
        }
    }
    // Every step left depends on at least one other step left: walking from one always meets a
    // step it already saw.
    let start = (0..count).find(|&i| !ordered[i])?;
    let mut seen_at = vec![usize::MAX; count];
    let mut walk = Vec::new();
    let mut step = start;
    while seen_at[step] == usize::MAX {
        seen_at[step] = walk.len();
        walk.push(step);
        step = *deps[step]
            .iter()
            .find(|&&dep| dep < count && !ordered[dep])?;
    }
    let mut cycle = walk.split_off(seen_at[step]);
    let first = cycle
        .iter()
        .enumerate()
        .min_by_key(|(_, &step)| step)
        .map_or(0, |(at, _)| at);
    cycle.rotate_left(first);
    cycle.push(cycle[0]);
    Some(cycle)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cycle_of(deps: &[Vec<usize>]) -> Option<Vec<usize>> {
        let slices: Vec<&[usize]> = deps.iter().map(Vec::as_slice).collect();
        find_cycle(&slices)
    }

    #[test]
    fn finds_cycles_in_order_from_their_earliest_step() {
        type Case<'a> = (&'a [&'a [usize]], Option<&'a [usize]>);
        let cases: &[Case] = &[
            (&[], None),
            (&[&[], &[0], &[0, 1]], None),
            (&[&[1], &[2], &[0]], Some(&[0, 1, 2, 0])),
            (&[&[], &[3], &[1], &[2]], Some(&[1, 3, 2, 1])),
            (&[&[0]], Some(&[0, 0])),
            // A step hanging off a cycle is not part of it.
            (&[&[1], &[2], &[1]], Some(&[1, 2, 1])),
        ];
        for (deps, expected) in cases {
            let deps: Vec<Vec<usize>> = deps.iter().map(|d| d.to_vec()).collect();
            assert_eq!(cycle_of(&deps).as_deref(), *expected, "deps {deps:?}");
        }
    }

    #[test]
    fn dependents_invert_dependencies() {
        let deps: Vec<&[usize]> = vec![&[], &[0], &[0, 1]];
        assert_eq!(dependents(&deps), vec![vec![1, 2], vec![2], vec![]]);
    }

    #[test]
    fn a_long_chain_is_handled_without_recursion() {
        let deps: Vec<Vec<usize>> = (0..100_000)
            .map(|i| if i == 0 { vec![99_999] } else { vec![i - 1] })
            .collect();
        let cycle = cycle_of(&deps).unwrap();
        assert_eq!(cycle.len(), 100_001);
        assert_eq!(cycle[0], 0);
        assert_eq!(cycle[1], 99_999);
    }
}
