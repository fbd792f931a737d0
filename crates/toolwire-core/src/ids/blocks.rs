//! Writing a repair back into a history of block messages, where calls and results are blocks
//! inside a message's array (Anthropic `content`, Gemini `parts`).
//!
//! Removed results drop their block, and a message whose array they emptied is dropped. The
//! synthetic results of a message's calls go into the next message when it carries results
//! (after its leading result blocks), else into a new result message right after the calls.

use serde_json::Value;

use super::history::{Action, Entry, Plan, Role, Synthetic};

/// How one block wire lays out its messages.
pub(super) struct BlockLayout {
    /// The key of the block array in a message: `content` or `parts`.
    pub key: &'static str,
    /// Whether a message is one that carries results (a user message).
    pub carries_results: fn(&Value) -> bool,
    /// Whether a block is a result block.
    pub is_result: fn(&Value) -> bool,
    /// Writes a new id into a call or result block.
    pub set_id: fn(&mut Value, Role, String),
    /// The synthetic result block for an unanswered call.
    pub synthetic: fn(&Synthetic) -> Value,
    /// The blocks of a result message's field when it is not an array (absent is null).
    pub blocks_of: fn(Value) -> Vec<Value>,
    /// A new result message holding `blocks`.
    pub new_message: fn(Vec<Value>) -> Value,
}

/// Applies `plan` to `messages`.
pub(super) fn apply(
    mut messages: Vec<Value>,
    entries: &[Entry],
    plan: &Plan,
    layout: &BlockLayout,
) -> Vec<Value> {
    let count = messages.len();
    let mut removals: Vec<Vec<usize>> = vec![Vec::new(); count];
    for (entry, action) in entries.iter().zip(&plan.actions) {
        match action {
            Action::Keep => {}
            Action::SetId(id) => {
                let block = messages
                    .get_mut(entry.message)
                    .and_then(|m| m.get_mut(layout.key))
                    .and_then(|blocks| blocks.get_mut(entry.part));
                if let Some(block) = block {
                    (layout.set_id)(block, entry.role, id.clone());
                }
            }
            Action::Remove => {
                if let Some(parts) = removals.get_mut(entry.message) {
                    parts.push(entry.part);
                }
            }
        }
    }

    let mut owed: Vec<Vec<Value>> = vec![Vec::new(); count];
    for synthetic in &plan.synthetic {
        if let Some(blocks) = entries
            .get(synthetic.call)
            .and_then(|entry| owed.get_mut(entry.message))
        {
            blocks.push((layout.synthetic)(synthetic));
        }
    }

    let mut out = Vec::with_capacity(count + plan.synthetic.len());
    let mut pending: Vec<Value> = Vec::new();
    for ((mut message, removal), next_owed) in messages.into_iter().zip(removals).zip(owed) {
        let mut emptied = !removal.is_empty() && remove_blocks(&mut message, layout.key, &removal);
        if !pending.is_empty() {
            let results = std::mem::take(&mut pending);
            if (layout.carries_results)(&message) {
                insert_results(&mut message, results, layout);
                emptied = false;
            } else {
                out.push((layout.new_message)(results));
            }
        }
        if !emptied {
            out.push(message);
        }
        pending = next_owed;
    }
    if !pending.is_empty() {
        out.push((layout.new_message)(pending));
    }
    out
}

/// Removes the blocks at `parts` (ascending) from `message[key]`; whether the array is now empty.
fn remove_blocks(message: &mut Value, key: &str, parts: &[usize]) -> bool {
    let Some(blocks) = message.get_mut(key).and_then(Value::as_array_mut) else {
        return false;
    };
    let mut doomed = parts.iter().copied().peekable();
    let mut position = 0;
    blocks.retain(|_| {
        let drop = doomed.peek() == Some(&position);
        if drop {
            doomed.next();
        }
        position += 1;
        !drop
    });
    blocks.is_empty()
}

/// Inserts `results` into `message[key]` after its leading result blocks.
fn insert_results(message: &mut Value, results: Vec<Value>, layout: &BlockLayout) {
    let Some(object) = message.as_object_mut() else {
        return;
    };
    let field = object.entry(layout.key).or_insert(Value::Null);
    if !field.is_array() {
        *field = Value::Array((layout.blocks_of)(field.take()));
    }
    if let Value::Array(blocks) = field {
        let at = blocks.iter().take_while(|b| (layout.is_result)(b)).count();
        blocks.splice(at..at, results);
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn removes_exactly_the_listed_blocks() {
        // (blocks, parts, expected blocks, expected emptied)
        let cases = [
            (json!([0, 1, 2, 3]), vec![1, 3], json!([0, 2]), false),
            (json!([0, 1]), vec![0, 1], json!([]), true),
            (json!([0]), vec![], json!([0]), false),
        ];
        for (blocks, parts, expected, emptied) in cases {
            let mut message = json!({ "parts": blocks });
            assert_eq!(remove_blocks(&mut message, "parts", &parts), emptied);
            assert_eq!(message["parts"], expected);
        }
        let mut no_array = json!({"parts": "text"});
        assert!(!remove_blocks(&mut no_array, "parts", &[0]));
    }
}
