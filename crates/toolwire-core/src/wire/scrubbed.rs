//! [`EventScrubber`]: a decoder's events with their secrets replaced, for the agent loop's
//! `onEvent` (the turn the decoder assembles stays as the model wrote it: the tool gets its
//! arguments, and the history the model gets back its own calls, exactly).
//!
//! An event that is whole when it happens (a call's start and end, an error, the turn's end) is
//! scrubbed as every value that leaves the engine is, by the audit log's [`RecordScrubber`]. The
//! deltas of a text arriving in pieces (the answer's text, its thinking, each call's arguments)
//! go through a [`StreamScrubber`] per text, so a secret split across deltas is never handed on in
//! part: a delta carries what may be sent of its text so far (deltas with nothing to send are
//! left out), and the rest of a text is sent when it ends, as one more delta: a call's before
//! its `toolcall_end`, the answer's and the thinking's when other content starts (a call, the
//! thinking or the answer) and at the turn's end (`done`, or the end of the events when the
//! stream ended without one).

use std::collections::BTreeMap;
use std::sync::Arc;

use serde_json::{json, Value};

use crate::audit::RecordScrubber;
use crate::sanitize::stream::StreamScrubber;
use crate::sanitize::Sanitizer;
use crate::secrets::SecretScanner;

/// Scrubs one decoder's events, keeping the state of its texts across pushes.
#[derive(Debug)]
pub struct EventScrubber {
    records: RecordScrubber,
    scanner: Arc<SecretScanner>,
    text: StreamScrubber,
    thinking: StreamScrubber,
    /// Each open call's arguments, by the call's index.
    calls: BTreeMap<u64, CallStreams>,
}

/// What is streamed of one call: its arguments' text (`delta`) and the string growing in them
/// (`partial.append`), at its path.
#[derive(Debug)]
struct CallStreams {
    args: StreamScrubber,
    string: Option<(Value, StreamScrubber)>,
}

impl EventScrubber {
    /// A scrubber with `sanitizer`'s secret patterns; `None` when its secret scrubbing is off.
    pub fn new(sanitizer: Arc<Sanitizer>) -> Option<EventScrubber> {
        let scanner = sanitizer.shared_scanner()?;
        Some(EventScrubber {
            records: RecordScrubber::new(sanitizer),
            text: StreamScrubber::new(scanner.clone()),
            thinking: StreamScrubber::new(scanner.clone()),
            scanner,
            calls: BTreeMap::new(),
        })
    }

    /// The events a push caused, as the decoder hands them out (a JSON array text), scrubbed.
    pub fn events(&mut self, events: &str) -> String {
        let mut out = Vec::new();
        self.scrub_into(events, &mut out);
        Value::Array(out).to_string()
    }

    /// The events the end of the body caused, scrubbed, then the rest of every text not sent.
    pub fn last_events(&mut self, events: &str) -> String {
        let mut out = Vec::new();
        self.scrub_into(events, &mut out);
        self.flush_all(&mut out);
        Value::Array(out).to_string()
    }

    fn scrub_into(&mut self, events: &str, out: &mut Vec<Value>) {
        if events == "[]" {
            return;
        }
        match serde_json::from_str::<Value>(events) {
            Ok(Value::Array(events)) => {
                for event in events {
                    self.event(event, out);
                }
            }
            // (the decoder writes a JSON array: anything else is handed on scrubbed whole)
            Ok(other) => out.push(self.records.scrub(&other).into_owned()),
            Err(_) => {}
        }
    }

    fn event(&mut self, event: Value, out: &mut Vec<Value>) {
        match event.get("type").and_then(Value::as_str) {
            Some("text_delta") => {
                flush(&mut self.thinking, "thinking_delta", out);
                let sent = self.text.push(delta_of(&event));
                if !sent.is_empty() {
                    out.push(json!({"type": "text_delta", "delta": sent}));
                }
            }
            Some("thinking_delta") => {
                flush(&mut self.text, "text_delta", out);
                let sent = self.thinking.push(delta_of(&event));
                if !sent.is_empty() {
                    out.push(json!({"type": "thinking_delta", "delta": sent}));
                }
            }
            Some("toolcall_delta") => self.call_delta(&event, out),
            Some("toolcall_start") => {
                self.flush_texts(out);
                out.push(self.records.scrub(&event).into_owned());
            }
            Some("toolcall_end") => {
                let index = index_of(&event);
                if let Some(call) = self.calls.remove(&index) {
                    self.end_call(index, call, out);
                }
                out.push(self.records.scrub(&event).into_owned());
            }
            Some("done") => {
                self.flush_all(out);
                out.push(self.records.scrub(&event).into_owned());
            }
            _ => out.push(self.records.scrub(&event).into_owned()),
        }
    }

    /// A `toolcall_delta`: its fragment of the arguments' text goes on that text's stream; a
    /// string appended to (`partial.append`) on a stream of its own, read after the name it is
    /// under; a value set whole (`partial.value`) is scrubbed under that name. The event is
    /// handed on when it has anything to send.
    fn call_delta(&mut self, event: &Value, out: &mut Vec<Value>) {
        let index = index_of(event);
        let scanner = &self.scanner;
        let call = self.calls.entry(index).or_insert_with(|| CallStreams {
            args: StreamScrubber::new(scanner.clone()),
            string: None,
        });
        let sent = call.args.push(delta_of(event));
        let mut shown = None;
        if let Some(partial) = event.get("partial") {
            let path = partial.get("path").cloned().unwrap_or(Value::Null);
            let shown_path = self.records.scrub(&path).into_owned();
            match partial.get("append").and_then(Value::as_str) {
                Some(append) => {
                    if call.string.as_ref().map(|(at, _)| at) != Some(&path) {
                        end_string(&self.records, index, &mut call.string, out);
                        let context = format!("{}: ", name_of(&path));
                        let stream = StreamScrubber::with_context(scanner.clone(), &context);
                        call.string = Some((path, stream));
                    }
                    if let Some((_, stream)) = &mut call.string {
                        let text = stream.push(append);
                        if !text.is_empty() {
                            shown = Some(json!({"path": shown_path, "append": text}));
                        }
                    }
                }
                None => {
                    end_string(&self.records, index, &mut call.string, out);
                    let value = partial.get("value").cloned().unwrap_or(Value::Null);
                    let value = scrub_under(&self.records, &name_of(&path), value);
                    shown = Some(json!({"path": shown_path, "value": value}));
                }
            }
        }
        if !sent.is_empty() || shown.is_some() {
            let mut event = json!({"type": "toolcall_delta", "index": index, "delta": sent});
            if let Some(partial) = shown {
                event["partial"] = partial;
            }
            out.push(event);
        }
    }

    /// Sends the rest of a call's string and of its arguments' text.
    fn end_call(&self, index: u64, mut call: CallStreams, out: &mut Vec<Value>) {
        end_string(&self.records, index, &mut call.string, out);
        let rest = call.args.flush();
        if !rest.is_empty() {
            out.push(json!({"type": "toolcall_delta", "index": index, "delta": rest}));
        }
    }

    /// Sends the rest of the answer's text and of the thinking.
    fn flush_texts(&mut self, out: &mut Vec<Value>) {
        flush(&mut self.thinking, "thinking_delta", out);
        flush(&mut self.text, "text_delta", out);
    }

    /// Sends the rest of every text: the texts', then each open call's arguments.
    fn flush_all(&mut self, out: &mut Vec<Value>) {
        self.flush_texts(out);
        for (index, call) in std::mem::take(&mut self.calls) {
            self.end_call(index, call, out);
        }
    }
}

/// Sends the rest of the string a call's arguments were appending to, if any, as a
/// `partial.append` of its own (with an empty `delta`).
fn end_string(
    records: &RecordScrubber,
    index: u64,
    string: &mut Option<(Value, StreamScrubber)>,
    out: &mut Vec<Value>,
) {
    let Some((path, mut stream)) = string.take() else {
        return;
    };
    let rest = stream.flush();
    if !rest.is_empty() {
        let path = records.scrub(&path).into_owned();
        out.push(json!({"type": "toolcall_delta", "index": index, "delta": "", "partial": {"path": path, "append": rest}}));
    }
}

/// The name a value at `path` is under: the path's last key (`password` of `["auth",
/// "password"]`, also of `["password", 0]`), or nothing.
fn name_of(path: &Value) -> String {
    let keys = path.as_array().map(Vec::as_slice).unwrap_or_default();
    keys.iter()
        .rev()
        .find_map(Value::as_str)
        .unwrap_or_default()
        .to_owned()
}

/// `value` scrubbed as it reads under the name `name` (`{"password": "..."}`).
fn scrub_under(records: &RecordScrubber, name: &str, value: Value) -> Value {
    let wrapped = Value::Object([(name.to_owned(), value)].into_iter().collect());
    match records.scrub(&wrapped).into_owned() {
        Value::Object(map) => map.into_iter().next().map_or(Value::Null, |(_, v)| v),
        other => other,
    }
}

/// Sends the rest of `stream` as one `kind` event.
fn flush(stream: &mut StreamScrubber, kind: &str, out: &mut Vec<Value>) {
    let rest = stream.flush();
    if !rest.is_empty() {
        out.push(json!({"type": kind, "delta": rest}));
    }
}

fn delta_of(event: &Value) -> &str {
    event.get("delta").and_then(Value::as_str).unwrap_or("")
}

fn index_of(event: &Value) -> u64 {
    event.get("index").and_then(Value::as_u64).unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::provider::{Provider, Wire};
    use crate::sanitize::SanitizeOptions;
    use crate::wire::decoder::parse_decoder_options;

    const KEY: &str = "sk-proj-A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8S9t0";

    fn scrubber() -> EventScrubber {
        let sanitizer = Sanitizer::new(SanitizeOptions::default()).unwrap();
        EventScrubber::new(Arc::new(sanitizer)).unwrap()
    }

    /// An OpenAI Chat stream whose text and call arguments are cut into pieces of `size` bytes.
    fn chat_body(text: &str, args: &str, size: usize) -> String {
        let chunk = |delta: Value| {
            format!(
                "data: {}\n\n",
                json!({"id": "x", "object": "chat.completion.chunk", "choices": [{"index": 0, "delta": delta}]})
            )
        };
        let mut body = String::new();
        for piece in text.as_bytes().chunks(size) {
            body.push_str(&chunk(
                json!({"content": std::str::from_utf8(piece).unwrap()}),
            ));
        }
        body.push_str(&chunk(json!({"tool_calls": [{"index": 0, "id": "c1", "type": "function", "function": {"name": "login", "arguments": ""}}]})));
        for piece in args.as_bytes().chunks(size) {
            body.push_str(&chunk(json!({"tool_calls": [{"index": 0, "function": {"arguments": std::str::from_utf8(piece).unwrap()}}]})));
        }
        body.push_str("data: {\"id\":\"x\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"tool_calls\"}]}\n\ndata: [DONE]\n\n");
        body
    }

    /// The events of `body` decoded and scrubbed, pushed in pieces of `size` bytes.
    fn scrubbed_events(body: &str, size: usize) -> (Vec<Value>, Value) {
        let mut decoder =
            Provider::of(Wire::OpenAiChat).stream_decoder(parse_decoder_options("").unwrap());
        let mut scrubber = scrubber();
        let mut events: Vec<Value> = Vec::new();
        for piece in body.as_bytes().chunks(size) {
            let out = scrubber.events(&decoder.push(piece));
            events.extend(serde_json::from_str::<Vec<Value>>(&out).unwrap());
        }
        let turn: Value = serde_json::from_str(&decoder.finish()).unwrap();
        let out = scrubber.last_events(&decoder.take_events());
        events.extend(serde_json::from_str::<Vec<Value>>(&out).unwrap());
        (events, turn)
    }

    fn deltas(events: &[Value], kind: &str) -> String {
        events
            .iter()
            .filter(|e| e["type"] == kind)
            .map(|e| e["delta"].as_str().unwrap())
            .collect()
    }

    #[test]
    fn no_event_carries_a_secret_split_across_deltas_and_the_turn_keeps_it() {
        let text = format!(
            "Using key {KEY} to log in. {}",
            "Then I check the answer. ".repeat(20)
        );
        let args = format!("{{\"key\":\"{KEY}\",\"note\":\"{}\"}}", "x ".repeat(300));
        for size in [1, 5, 16, 40] {
            let body = chat_body(&text, &args, size);
            let (events, turn) = scrubbed_events(&body, 7);
            for event in &events {
                let shown = event.to_string();
                for at in 0..KEY.len() - 8 {
                    assert!(!shown.contains(&KEY[at..at + 8]), "{size}: {shown}");
                }
            }
            assert_eq!(
                deltas(&events, "text_delta"),
                text.replace(KEY, "[redacted:openai-key]"),
                "{size}"
            );
            assert_eq!(
                deltas(&events, "toolcall_delta"),
                args.replace(KEY, "[redacted:openai-key]"),
                "{size}"
            );
            // the text ends before the call starts, and the arguments before the call's end
            let kinds: Vec<&str> = events.iter().map(|e| e["type"].as_str().unwrap()).collect();
            let start = kinds.iter().position(|k| *k == "toolcall_start").unwrap();
            let end = kinds.iter().position(|k| *k == "toolcall_end").unwrap();
            assert!(
                kinds[start..].iter().all(|k| *k != "text_delta"),
                "{kinds:?}"
            );
            assert!(
                kinds[end..].iter().all(|k| *k != "toolcall_delta"),
                "{kinds:?}"
            );
            // the string appended to at `key`, as its partial changes show it
            let appended: String = events
                .iter()
                .filter(|e| e["partial"]["path"] == json!(["key"]))
                .filter_map(|e| e["partial"]["append"].as_str())
                .collect();
            assert_eq!(appended, "[redacted:openai-key]", "{size}");
            let ended = &events[end]["toolCall"]["arguments"];
            assert!(
                ended.as_str().unwrap().contains("[redacted:openai-key]"),
                "{ended}"
            );
            // the turn is the model's own
            assert_eq!(turn["text"], text.as_str());
            assert_eq!(turn["toolCalls"][0]["arguments"], args.as_str());
        }
    }

    #[test]
    fn a_password_in_the_arguments_is_read_under_its_name() {
        let password = "Zx9Qw3Er7Ty1Ui5Op8As2Df";
        let args = format!("{{\"user\":\"me\",\"password\":\"{password}\",\"n\":1}}");
        for size in [1, 3, 8] {
            let (events, turn) = scrubbed_events(&chat_body("", &args, size), 5);
            for event in &events {
                let shown = event.to_string();
                assert!(
                    !shown.contains(&password[..8]) && !shown.contains(&password[8..16]),
                    "{size}: {shown}"
                );
            }
            assert_eq!(turn["toolCalls"][0]["arguments"], args.as_str());
        }
    }

    #[test]
    fn whole_events_are_scrubbed_as_records_are() {
        let mut scrubber = scrubber();
        let events = json!([
            {"type": "error", "kind": "provider_error", "message": format!("invalid key {KEY}")},
            {"type": "toolcall_start", "index": 0, "id": format!("call_{KEY}"), "name": "login"},
        ]);
        let out = scrubber.events(&events.to_string());
        assert!(!out.contains(KEY), "{out}");
        assert!(out.contains("invalid key [redacted:openai-key]"), "{out}");
    }

    #[test]
    fn an_open_call_and_text_are_sent_at_the_end_without_done() {
        let mut scrubber = scrubber();
        let events = json!([
            {"type": "text_delta", "delta": "Hello"},
            {"type": "toolcall_delta", "index": 2, "delta": "{\"a\":"},
        ]);
        assert_eq!(scrubber.events(&events.to_string()), "[]");
        let out: Value = serde_json::from_str(&scrubber.last_events("[]")).unwrap();
        assert_eq!(
            out,
            json!([
                {"type": "text_delta", "delta": "Hello"},
                {"type": "toolcall_delta", "index": 2, "delta": "{\"a\":"},
            ])
        );
    }

    #[test]
    fn nothing_is_built_when_secret_scrubbing_is_off() {
        let options = SanitizeOptions::default()
            .with(&json!({"secrets": {"enabled": false}}), "sanitize")
            .unwrap();
        assert!(EventScrubber::new(Arc::new(Sanitizer::new(options).unwrap())).is_none());
    }
}
