//! What a binding sends across to JavaScript: ready messages (JSON texts) joined into JSON
//! arrays of bounded size, so one crossing never builds a string past what the JavaScript
//! engine can hold, nor one giant `JSON.parse` on its thread.

/// Default byte budget of one batch: 4 MiB.
pub const BATCH_BYTES: usize = 4 << 20;

/// Joins `first` and the messages `next` yields into one JSON array (`[a,b,...]`). The batch
/// is closed once adding the next message would take it past `budget` bytes; that message is
/// returned, to open the next batch. A single message larger than the budget goes alone.
/// `next` is not called again once it returned `None` or a message that did not fit.
pub fn join_batch(
    first: String,
    budget: usize,
    mut next: impl FnMut() -> Option<String>,
) -> (String, Option<String>) {
    let mut batch = String::with_capacity(first.len() + 2);
    batch.push('[');
    batch.push_str(&first);
    drop(first);
    while let Some(message) = next() {
        // The message, its comma and the closing bracket.
        if batch.len() + message.len() + 2 > budget {
            batch.push(']');
            return (batch, Some(message));
        }
        batch.push(',');
        batch.push_str(&message);
    }
    batch.push(']');
    (batch, None)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;
    use std::collections::VecDeque;

    /// Every batch `join_batch` makes of `messages`, in order.
    fn batches(messages: &[String], budget: usize) -> Vec<String> {
        let mut queue: VecDeque<String> = messages.iter().cloned().collect();
        let mut out = Vec::new();
        let mut carried = None;
        while let Some(first) = carried.take().or_else(|| queue.pop_front()) {
            let (batch, rest) = join_batch(first, budget, || queue.pop_front());
            out.push(batch);
            carried = rest;
        }
        out
    }

    fn message(n: usize, size: usize) -> String {
        let text = format!("{n}:");
        format!(
            "\"{text}{}\"",
            "x".repeat(size.saturating_sub(text.len() + 2))
        )
    }

    #[test]
    fn small_messages_share_one_batch() {
        let messages: Vec<String> = (0..5).map(|n| message(n, 10)).collect();
        let out = batches(&messages, BATCH_BYTES);
        assert_eq!(out, [format!("[{}]", messages.join(","))]);
    }

    #[test]
    fn batches_stay_within_the_budget_and_keep_every_message_in_order() {
        let messages: Vec<String> = (0..5).map(|n| message(n, 3 << 20)).collect();
        let out = batches(&messages, BATCH_BYTES);
        assert_eq!(
            out.len(),
            5,
            "3 MiB messages under a 4 MiB budget go one by one"
        );
        for batch in &out {
            assert!(batch.len() <= BATCH_BYTES, "{}", batch.len());
        }
        let mut seen = Vec::new();
        for batch in &out {
            let items: Vec<String> = serde_json::from_str(batch).unwrap();
            seen.extend(items);
        }
        let expected: Vec<String> = messages
            .iter()
            .map(|m| serde_json::from_str(m).unwrap())
            .collect();
        assert_eq!(seen, expected);

        let small: Vec<String> = (0..100).map(|n| message(n, 100)).collect();
        let out = batches(&small, 1000);
        assert!(out.len() > 1);
        assert!(out.iter().all(|b| b.len() <= 1000));
        let joined: Vec<Value> = out
            .iter()
            .flat_map(|b| serde_json::from_str::<Vec<Value>>(b).unwrap())
            .collect();
        assert_eq!(joined.len(), 100);
    }

    #[test]
    fn a_message_over_the_budget_goes_alone() {
        let messages = vec![message(0, 10), message(1, 5000), message(2, 10)];
        let out = batches(&messages, 1000);
        assert_eq!(
            out,
            [
                format!("[{}]", messages[0]),
                format!("[{}]", messages[1]),
                format!("[{}]", messages[2])
            ]
        );
    }
}
