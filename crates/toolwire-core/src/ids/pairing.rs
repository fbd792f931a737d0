//! Pairs the calls of a history with its results and decides every id, independent of the wire.
//!
//! One pass in history order, with hash maps of queues: a call gets its final id (kept when valid
//! and first of its raw id, otherwise a normalized id free of every id in use) and joins the
//! queues of its raw id and name; a result takes the oldest unanswered call of its raw id that came
//! before it, or is removed. Gemini ids are optional, so names stand in: a response without an id
//! takes the oldest unanswered call of its name without an id, else with one; a response whose id
//! answers no call falls back to a call of its name without an id. Calls left unanswered are owed
//! a synthetic result.

use std::collections::{HashMap, HashSet, VecDeque};

use super::history::{Action, Entry, Plan, Role, Synthetic};
use super::normalize::{normalize_tool_call_id, IdTarget};
use super::repair::{IdRename, RepairReport};
use crate::error::{Error, Result};

/// Extra attempts allowed beyond the number of ids in use when looking for a free id; only hash
/// collisions could use them.
const SPARE_ATTEMPTS: usize = 64;

/// Calls waiting for a result, oldest first, per key; answered calls are skipped lazily.
type Waiting<'a> = HashMap<&'a str, VecDeque<usize>>;

/// Decides the repair of `entries` (in history order) for ids of `target`.
pub(super) fn plan(entries: &[Entry], target: IdTarget) -> Result<(Plan, RepairReport)> {
    let mut ids = IdAssigner::new(entries, target);
    let mut by_id: Waiting = HashMap::new();
    let mut by_name: Waiting = HashMap::new();
    let mut idless_by_name: Waiting = HashMap::new();
    let mut answered = vec![false; entries.len()];
    let mut final_ids: Vec<Option<String>> = vec![None; entries.len()];
    let mut plan = Plan::default();
    let mut report = RepairReport::default();

    for (index, entry) in entries.iter().enumerate() {
        let action = match entry.role {
            Role::Call => {
                let mut action = Action::Keep;
                if let Some(raw) = entry.id.as_deref() {
                    let id = ids.assign(raw)?;
                    if id != raw {
                        report.renamed.push(IdRename {
                            from: raw.to_owned(),
                            to: id.clone(),
                        });
                        action = Action::SetId(id.clone());
                    }
                    final_ids[index] = Some(id);
                    by_id.entry(raw).or_default().push_back(index);
                } else if let Some(name) = entry.name.as_deref() {
                    idless_by_name.entry(name).or_default().push_back(index);
                }
                if let Some(name) = entry.name.as_deref() {
                    by_name.entry(name).or_default().push_back(index);
                }
                action
            }
            Role::Result => {
                let call = match entry.id.as_deref() {
                    Some(raw) => take_oldest(&mut by_id, raw, &answered).or_else(|| {
                        let name = entry.name.as_deref()?;
                        take_oldest(&mut idless_by_name, name, &answered)
                    }),
                    None => entry.name.as_deref().and_then(|name| {
                        take_oldest(&mut idless_by_name, name, &answered)
                            .or_else(|| take_oldest(&mut by_name, name, &answered))
                    }),
                };
                match call {
                    Some(call) => {
                        answered[call] = true;
                        match (entry.id.as_deref(), final_ids[call].as_deref()) {
                            (Some(raw), Some(id)) if raw != id => Action::SetId(id.to_owned()),
                            _ => Action::Keep,
                        }
                    }
                    None => {
                        let label = entry.id.as_deref().or(entry.name.as_deref());
                        report.removed.push(label.unwrap_or_default().to_owned());
                        Action::Remove
                    }
                }
            }
        };
        plan.actions.push(action);
    }

    for (index, entry) in entries.iter().enumerate() {
        if entry.role == Role::Call && !answered[index] {
            let id = final_ids[index].take();
            let label = id.as_deref().or(entry.name.as_deref());
            report
                .synthesized
                .push(label.unwrap_or_default().to_owned());
            plan.synthetic.push(Synthetic {
                call: index,
                id,
                name: entry.name.clone(),
            });
        }
    }
    Ok((plan, report))
}

/// Pops the oldest unanswered call waiting under `key`.
fn take_oldest(waiting: &mut Waiting, key: &str, answered: &[bool]) -> Option<usize> {
    let queue = waiting.get_mut(key)?;
    while let Some(call) = queue.pop_front() {
        if !answered[call] {
            return Some(call);
        }
    }
    None
}

/// Gives every call a final id, unique across the history.
struct IdAssigner<'a> {
    target: IdTarget,
    /// Every raw call id of the history: a rewritten id never takes one of them.
    raw: HashSet<&'a str>,
    /// Ids already given out.
    given: HashSet<String>,
    /// Per raw id, the next `n` to try in `raw#n`, which only grows (so a raw id shared by many
    /// calls never retries an attempt): absent until its first call.
    next_attempt: HashMap<&'a str, usize>,
}

impl<'a> IdAssigner<'a> {
    fn new(entries: &'a [Entry], target: IdTarget) -> Self {
        let raw = entries
            .iter()
            .filter(|e| e.role == Role::Call)
            .filter_map(|e| e.id.as_deref())
            .collect();
        IdAssigner {
            target,
            raw,
            given: HashSet::new(),
            next_attempt: HashMap::new(),
        }
    }

    /// The final id of the next call with raw id `raw`: for its first call, `raw` itself when
    /// valid, else its normalized form when free; otherwise the normalized form of `raw#n` for the
    /// next free `n` (2 for the second call of a raw id, unless taken).
    fn assign(&mut self, raw: &'a str) -> Result<String> {
        if !self.next_attempt.contains_key(raw) {
            self.next_attempt.insert(raw, 2);
            let id = normalize_tool_call_id(raw, self.target);
            let free = if id == raw {
                !self.given.contains(raw)
            } else {
                self.is_free(&id)
            };
            if free {
                self.given.insert(id.clone());
                return Ok(id);
            }
        }
        let first = self.next_attempt.get(raw).copied().unwrap_or(2);
        let limit = first + self.raw.len() + self.given.len() + SPARE_ATTEMPTS;
        for n in first..limit {
            let id = normalize_tool_call_id(&format!("{raw}#{n}"), self.target);
            if self.is_free(&id) {
                self.next_attempt.insert(raw, n + 1);
                self.given.insert(id.clone());
                return Ok(id);
            }
        }
        Err(Error::internal(format!(
            "no free tool-call id found for {raw:?} after {} attempts",
            limit - first
        )))
    }

    fn is_free(&self, id: &str) -> bool {
        !self.raw.contains(id) && !self.given.contains(id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(message: usize, id: Option<&str>, name: Option<&str>) -> Entry {
        Entry {
            role: Role::Call,
            message,
            part: 0,
            id: id.map(str::to_owned),
            name: name.map(str::to_owned),
        }
    }

    fn result(message: usize, id: Option<&str>, name: Option<&str>) -> Entry {
        Entry {
            role: Role::Result,
            ..call(message, id, name)
        }
    }

    const CHAT: IdTarget = IdTarget::Word;

    fn norm(id: &str) -> String {
        normalize_tool_call_id(id, CHAT)
    }

    /// (name, entries, expected actions, expected synthetic call indices)
    type PairingCase = (&'static str, Vec<Entry>, Vec<Action>, Vec<usize>);

    #[test]
    fn pairs_and_renames() {
        let a = Some("a");
        let f = Some("f");
        let g = Some("g");
        let cases: Vec<PairingCase> = vec![
            (
                "valid ids answered in order are untouched",
                vec![
                    call(0, a, f),
                    call(0, Some("b"), f),
                    result(1, Some("b"), None),
                    result(2, a, None),
                ],
                vec![Action::Keep; 4],
                vec![],
            ),
            (
                "an invalid id is rewritten in the call and its result",
                vec![call(0, Some("a.b"), f), result(1, Some("a.b"), None)],
                vec![Action::SetId(norm("a.b")), Action::SetId(norm("a.b"))],
                vec![],
            ),
            (
                "a duplicate raw id gets a second id, results matched in order",
                vec![
                    call(0, a, f),
                    call(0, a, g),
                    result(1, a, None),
                    result(2, a, None),
                ],
                vec![
                    Action::Keep,
                    Action::SetId(norm("a#2")),
                    Action::Keep,
                    Action::SetId(norm("a#2")),
                ],
                vec![],
            ),
            (
                "a result before its call is removed and the call is owed one",
                vec![result(0, a, None), call(1, a, f)],
                vec![Action::Remove, Action::Keep],
                vec![1],
            ),
            (
                "a second result for an answered call is removed",
                vec![
                    call(0, a, f),
                    result(1, a, None),
                    result(2, a, None),
                    call(3, a, f),
                ],
                vec![
                    Action::Keep,
                    Action::Keep,
                    Action::Remove,
                    Action::SetId(norm("a#2")),
                ],
                vec![3],
            ),
            (
                "id-less calls pair with responses by name, in order",
                vec![
                    call(0, None, f),
                    call(0, None, f),
                    call(0, None, g),
                    result(1, None, f),
                    result(1, None, g),
                ],
                vec![Action::Keep; 5],
                vec![1],
            ),
            (
                "a response without id takes a call of its name with an id when no id-less one waits",
                vec![call(0, a, f), result(1, None, f), result(1, a, f)],
                vec![Action::Keep, Action::Keep, Action::Remove],
                vec![],
            ),
            (
                "a response without id prefers the oldest id-less call of its name",
                vec![call(0, a, f), call(0, None, f), result(1, None, f), result(1, a, f)],
                vec![Action::Keep; 4],
                vec![],
            ),
            (
                "a response with an id falls back to an id-less call of its name",
                vec![call(0, None, f), result(1, Some("x"), f)],
                vec![Action::Keep, Action::Keep],
                vec![],
            ),
        ];
        for (name, entries, actions, synthetic) in cases {
            let (plan, _) = plan(&entries, CHAT).unwrap();
            assert_eq!(plan.actions, actions, "{name}");
            let calls: Vec<usize> = plan.synthetic.iter().map(|s| s.call).collect();
            assert_eq!(calls, synthetic, "{name}");
        }
    }

    #[test]
    fn reports_renames_once_per_call_and_labels() {
        let entries = vec![
            call(0, Some("a.b"), Some("f")),
            result(1, Some("a.b"), None),
            call(2, None, Some("g")),
            result(3, Some("zz"), None),
            result(3, None, Some("h")),
        ];
        let (_, report) = plan(&entries, CHAT).unwrap();
        assert_eq!(
            report.renamed,
            vec![IdRename {
                from: "a.b".into(),
                to: norm("a.b")
            }]
        );
        assert_eq!(report.synthesized, vec!["g".to_owned()]);
        assert_eq!(report.removed, vec!["zz".to_owned(), "h".to_owned()]);
    }

    #[test]
    fn rewritten_ids_avoid_every_raw_id() {
        // The second call's normalized id is taken literally by a later call.
        let taken = norm("a.b");
        let entries = vec![
            call(0, Some("x"), None),
            call(0, Some("a.b"), None),
            call(0, Some(&taken), None),
        ];
        let (plan, _) = plan(&entries, CHAT).unwrap();
        assert_eq!(
            plan.actions,
            vec![Action::Keep, Action::SetId(norm("a.b#2")), Action::Keep]
        );
    }

    #[test]
    fn attempts_taken_by_raw_ids_are_skipped_once() {
        // The ids `0#2` and `0#3` would normalize to are taken literally; the duplicates of `0`
        // take `0#4` and `0#5`, in order.
        let (two, three) = (norm("0#2"), norm("0#3"));
        let entries = vec![
            call(0, Some(&two), None),
            call(0, Some(&three), None),
            call(0, Some("0"), None),
            call(0, Some("0"), None),
            call(0, Some("0"), None),
        ];
        let (plan, _) = plan(&entries, CHAT).unwrap();
        assert_eq!(
            plan.actions,
            vec![
                Action::Keep,
                Action::Keep,
                Action::Keep,
                Action::SetId(norm("0#4")),
                Action::SetId(norm("0#5")),
            ]
        );
    }

    #[test]
    fn many_duplicates_stay_unique_for_nine_character_ids() {
        let entries: Vec<Entry> = (0..500).map(|i| call(i, Some("0"), None)).collect();
        let (plan, report) = plan(&entries, IdTarget::Strict9).unwrap();
        let ids: HashSet<&String> = plan
            .actions
            .iter()
            .filter_map(|a| match a {
                Action::SetId(id) => Some(id),
                _ => None,
            })
            .collect();
        assert_eq!(ids.len(), 500);
        assert_eq!(report.renamed.len(), 500);
    }
}
