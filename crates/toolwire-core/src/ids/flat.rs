//! Writing a repair back into a flat history, where every result is a message of its own
//! (OpenAI Chat and Mistral `tool` messages, Responses output items).
//!
//! Removed results drop their whole message; a synthetic result is a new message placed after
//! the batch of the call's message (the call message and the run of messages continuing it).

use serde_json::Value;

use super::history::{run_ends, Action, Entry, Plan, Synthetic};

/// How one flat wire lays out its batches.
pub(super) struct FlatLayout {
    /// Whether a message continues the batch of the message before it.
    pub continues_batch: fn(&Value) -> bool,
    /// Writes a new id into the call or result `entry` of `message`.
    pub set_id: fn(&mut Value, &Entry, String),
    /// The synthetic result message for an unanswered call of `message`.
    pub synthetic: fn(&Value, &Synthetic) -> Value,
}

/// Applies `plan` to `messages`.
pub(super) fn apply(
    mut messages: Vec<Value>,
    entries: &[Entry],
    plan: &Plan,
    layout: &FlatLayout,
) -> Vec<Value> {
    let mut removed = vec![false; messages.len()];
    for (entry, action) in entries.iter().zip(&plan.actions) {
        match action {
            Action::Keep => {}
            Action::SetId(id) => {
                if let Some(message) = messages.get_mut(entry.message) {
                    (layout.set_id)(message, entry, id.clone());
                }
            }
            Action::Remove => {
                if let Some(flag) = removed.get_mut(entry.message) {
                    *flag = true;
                }
            }
        }
    }

    let ends = run_ends(&messages, layout.continues_batch);
    let mut after: Vec<Vec<Value>> = vec![Vec::new(); messages.len()];
    for synthetic in &plan.synthetic {
        let Some(entry) = entries.get(synthetic.call) else {
            continue;
        };
        if let (Some(message), Some(&end)) = (messages.get(entry.message), ends.get(entry.message))
        {
            after[end].push((layout.synthetic)(message, synthetic));
        }
    }

    let mut out = Vec::with_capacity(messages.len() + plan.synthetic.len());
    for ((message, removed), extra) in messages.into_iter().zip(removed).zip(after) {
        if !removed {
            out.push(message);
        }
        out.extend(extra);
    }
    out
}
