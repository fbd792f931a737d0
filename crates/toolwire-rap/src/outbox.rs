//! What a binding sends across to JavaScript: ready messages (JSON texts) joined into JSON
//! arrays of bounded size, so one crossing never builds a string past what the JavaScript
//! engine can hold, nor one giant `JSON.parse` on its thread; and the room events may take
//! while they wait for JavaScript ([`EventRoom`], [`forward_events`]), so a flood of events
//! while JavaScript is busy backs up to the callback server (which answers 503) instead of
//! piling up in memory. Results are never held back: they are bounded by the calls in flight.

use std::sync::Arc;

use tokio::sync::{mpsc, Semaphore};
use toolwire_core::rap_message::RapMessage;

use crate::event::RapEvent;

/// Default byte budget of one batch: 4 MiB.
pub const BATCH_BYTES: usize = 4 << 20;

/// Default room of events waiting for JavaScript: 16 MiB (of their JSON text, plus
/// [`EVENT_OVERHEAD`] each).
pub const EVENT_ROOM_BYTES: u32 = 16 << 20;

/// What each event counts for beyond its text, so many tiny events are bounded too.
pub const EVENT_OVERHEAD: u32 = 256;

/// A message (JSON text) on its way to JavaScript, holding `room` of the [`EventRoom`] until
/// JavaScript has taken it (0 for results and other answers).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Parcel {
    /// The message's JSON text.
    pub text: String,
    /// Event room it holds.
    pub room: u32,
}

impl Parcel {
    /// A message that holds no room (a call's result, an answer).
    pub fn answer(text: String) -> Self {
        Parcel { text, room: 0 }
    }
}

/// One crossing: a JSON array of messages, and the event room its messages hold (to give back
/// with [`EventRoom::give_back`] once JavaScript has taken it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Batch {
    /// `[a,b,...]`.
    pub text: String,
    /// Event room held by its messages.
    pub room: u32,
}

/// Joins `first` and the messages `next` yields into one JSON array (`[a,b,...]`). The batch
/// is closed once adding the next message would take it past `budget` bytes; that message is
/// returned, to open the next batch. A single message larger than the budget goes alone.
/// `next` is not called again once it returned `None` or a message that did not fit.
pub fn join_batch(
    first: Parcel,
    budget: usize,
    mut next: impl FnMut() -> Option<Parcel>,
) -> (Batch, Option<Parcel>) {
    let mut text = String::with_capacity(first.text.len() + 2);
    let mut room = first.room;
    text.push('[');
    text.push_str(&first.text);
    drop(first);
    while let Some(message) = next() {
        // The message, its comma and the closing bracket.
        if text.len() + message.text.len() + 2 > budget {
            text.push(']');
            return (Batch { text, room }, Some(message));
        }
        text.push(',');
        text.push_str(&message.text);
        room = room.saturating_add(message.room);
    }
    text.push(']');
    (Batch { text, room }, None)
}

/// The room events may take while they wait for JavaScript. Clones share it.
#[derive(Debug, Clone)]
pub struct EventRoom {
    free: Arc<Semaphore>,
    size: u32,
}

impl EventRoom {
    /// Room for `size` bytes of events (at least 1).
    pub fn new(size: u32) -> Self {
        let size = size.max(1);
        EventRoom {
            free: Arc::new(Semaphore::new(size as usize)),
            size,
        }
    }

    /// Waits until an event of `len` bytes fits, and takes its room (returned). An event
    /// larger than the whole room waits until the room is empty.
    pub async fn take(&self, len: usize) -> u32 {
        let need = u32::try_from(len)
            .unwrap_or(u32::MAX)
            .saturating_add(EVENT_OVERHEAD)
            .min(self.size);
        match self.free.acquire_many(need).await {
            Ok(permit) => permit.forget(),
            // Never closed; should it be, nothing is held.
            Err(_) => return 0,
        }
        need
    }

    /// Gives back room taken by [`Self::take`] (JavaScript has taken the events).
    pub fn give_back(&self, room: u32) {
        if room > 0 {
            self.free.add_permits(room as usize);
        }
    }

    /// Room free now.
    pub fn free(&self) -> usize {
        self.free.available_permits()
    }
}

/// Moves events into `outbox` as `[code, event]` messages
/// ([`RapMessage::Event`](toolwire_core::rap_message::RapMessage::Event)), each only once it has
/// room: while the room is full, events wait in `events` (bounded), and when that is full the
/// callback server answers 503. Ends when either side is gone.
pub async fn forward_events(
    mut events: mpsc::Receiver<RapEvent>,
    room: EventRoom,
    outbox: mpsc::UnboundedSender<Parcel>,
) {
    while let Some(event) = events.recv().await {
        let text = RapMessage::Event(event.to_json()).into_json();
        drop(event);
        let held = room.take(text.len()).await;
        if outbox.send(Parcel { text, room: held }).is_err() {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;
    use std::collections::VecDeque;

    /// Every batch `join_batch` makes of `messages`, in order.
    fn batches(messages: &[String], budget: usize) -> Vec<String> {
        let mut queue: VecDeque<Parcel> = messages.iter().cloned().map(Parcel::answer).collect();
        let mut out = Vec::new();
        let mut carried = None;
        while let Some(first) = carried.take().or_else(|| queue.pop_front()) {
            let (batch, rest) = join_batch(first, budget, || queue.pop_front());
            out.push(batch.text);
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

    #[test]
    fn a_batch_carries_the_room_its_events_hold() {
        let mut queue: VecDeque<Parcel> = [
            Parcel {
                text: "1".into(),
                room: 10,
            },
            Parcel::answer("2".into()),
            Parcel {
                text: "3".into(),
                room: 5,
            },
        ]
        .into();
        let first = queue.pop_front().unwrap();
        let (batch, rest) = join_batch(first, BATCH_BYTES, || queue.pop_front());
        assert_eq!(
            batch,
            Batch {
                text: "[1,2,3]".into(),
                room: 15
            }
        );
        assert_eq!(rest, None);
    }

    /// A flood of events while JavaScript takes none: the room fills, the hub's channel fills,
    /// and the callback server answers 503; results of calls still get through.
    #[tokio::test]
    async fn a_flood_of_events_nobody_takes_ends_in_503_and_results_still_flow() {
        use crate::hub::{HubOptions, RapHub};
        use crate::server::ServerOptions;
        use crate::test_support::post;
        use serde_json::json;
        use std::time::Duration;

        let hub = RapHub::new(HubOptions {
            server: ServerOptions {
                read_timeout: Duration::from_millis(100),
                ..ServerOptions::default()
            },
            event_capacity: 4,
            ..HubOptions::default()
        })
        .unwrap();
        let (outbox, mut inbox) = mpsc::unbounded_channel();
        let room = EventRoom::new(8 * 1024);
        tokio::spawn(forward_events(
            hub.take_events().unwrap(),
            room.clone(),
            outbox,
        ));
        let server = hub.server().await.unwrap();
        let mut reg = server.register("g", "c").unwrap();
        let url = reg.callback_url().to_owned();
        // Each its own (an event repeating the one before is a repeated delivery, not new).
        let event = |n: usize| {
            json!({"type": "subscription_event", "group_id": "g", "tool_call_id": "c",
                   "text": format!("{n:04}{}", "x".repeat(996))})
        };
        let mut accepted = 0;
        let refused = loop {
            let status = post(&url, &event(accepted)).await;
            if status != 200 {
                break status;
            }
            accepted += 1;
            assert!(accepted < 10_000, "never refused: the events pile up");
        };
        assert_eq!(refused, 503);
        // The room is what holds them: at most a room's worth went on to JavaScript.
        let mut waiting = Vec::new();
        while let Ok(parcel) = inbox.try_recv() {
            waiting.push(parcel);
        }
        let held: u32 = waiting.iter().map(|p| p.room).sum();
        assert!(held <= 8 * 1024, "{held}");
        assert!(!waiting.is_empty());
        // Each an event message as its layout declares it (what ts/rap.ts reads).
        for parcel in &waiting {
            let message: Value = serde_json::from_str(&parcel.text).unwrap();
            assert_eq!(toolwire_core::rap_message::layout::misfit(&message), None);
            assert_eq!(message[1]["type"], "rap_subscription_event");
        }
        // JavaScript takes them: room again, and events are accepted again.
        room.give_back(held);
        let mut tries = 0;
        while post(&url, &event(accepted)).await != 200 {
            tries += 1;
            assert!(
                tries < 1000,
                "events stay refused after the room was given back"
            );
        }
        // A result is never held back by the room.
        let result = json!({"type": "tool_result", "group_id": "g", "id": "c", "text": "r"});
        assert_eq!(post(&url, &result).await, 200);
        assert_eq!(reg.result().await.unwrap().text.as_deref(), Some("r"));
    }
}
