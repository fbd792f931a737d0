//! The scheduler, driven by a fake driver that records every action.

use serde_json::{json, Value};

use super::*;
use crate::dispatch::protocol::parse_calls;
use crate::output::ToolOutcome;
use crate::registry::ToolDeclaration;

/// The wall clock's reading when a harness starts (2023-11-14), in milliseconds since 1970.
const START_EPOCH_MS: u64 = 1_700_000_000_000;

pub(super) struct Harness {
    pub(super) registry: Registry,
    pub(super) dispatcher: Dispatcher,
    pub(super) now: Now,
    pub(super) log: Vec<Action>,
}

impl Harness {
    pub(super) fn new(concurrency: usize) -> Self {
        Harness::with_gate(concurrency, PolicyGate::default())
    }

    /// A harness whose dispatcher consults this policy.
    pub(super) fn with_gate(concurrency: usize, gate: PolicyGate) -> Self {
        Harness {
            registry: Registry::new(),
            dispatcher: Dispatcher::new(
                DispatchConfig {
                    concurrency,
                    timeout_ms: 1_000,
                },
                crate::sanitize::ResultRules::default(),
                Arc::new(gate),
                crate::policy::approvals::ApprovalStore::in_memory(),
            ),
            now: Now::from_millis(0.0, START_EPOCH_MS as f64),
            log: Vec::new(),
        }
    }

    pub(super) fn tool(&mut self, name: &str, extra: Value) -> u64 {
        let mut raw = json!({
            "name": name,
            "parameters": {"type": "object", "properties": {"path": {"type": "string"}}, "additionalProperties": false}
        });
        for (key, value) in extra.as_object().unwrap() {
            raw[key] = value.clone();
        }
        let declaration: ToolDeclaration = serde_json::from_value(raw).unwrap();
        self.registry.register(declaration).unwrap().id
    }

    pub(super) fn open(
        &mut self,
        batch: u32,
        calls: &[(&str, &str, &str)],
        options: BatchOptions,
    ) -> Vec<Action> {
        let requests = calls
            .iter()
            .map(|(id, name, args)| CallRequest {
                id: id.to_string(),
                name: name.to_string(),
                arguments: RawArguments::Text(args.to_string()),
                stamp: None,
                exact_id: None,
            })
            .collect();
        self.open_requests(batch, requests, options)
    }

    /// Opens a batch of calls as parsed (see `protocol::parse_calls`).
    pub(super) fn open_requests(
        &mut self,
        batch: u32,
        requests: Vec<CallRequest>,
        options: BatchOptions,
    ) -> Vec<Action> {
        let actions = self
            .dispatcher
            .open(&self.registry, batch, requests, options, self.now)
            .unwrap();
        self.log.extend(actions.clone());
        actions
    }

    pub(super) fn complete(&mut self, completions: Vec<Completion>) -> Vec<Action> {
        let actions = self
            .dispatcher
            .complete(&self.registry, completions, self.now);
        self.log.extend(actions.clone());
        actions
    }

    /// Settles a started call with a value.
    pub(super) fn settle(&mut self, call: CallRef, outcome: ToolOutcome) -> Vec<Action> {
        let token = self.token_of_start(call);
        self.complete(vec![Completion {
            call,
            token,
            kind: CompletionKind::Tool(outcome),
            ran: None,
        }])
    }

    pub(super) fn answer(&mut self, call: CallRef, kind: CompletionKind) -> Vec<Action> {
        let token = self.last_token(call);
        self.complete(vec![Completion {
            call,
            token,
            kind,
            ran: None,
        }])
    }

    pub(super) fn advance(&mut self, ms: u64) -> Vec<Action> {
        self.now = self.now.plus_ms(ms);
        let actions = self.dispatcher.tick(&self.registry, self.now);
        self.log.extend(actions.clone());
        actions
    }

    pub(super) fn token_of_start(&self, call: CallRef) -> u32 {
        self.log
            .iter()
            .rev()
            .find_map(|a| match a {
                Action::Start { call: c, token, .. } if *c == call => Some(*token),
                _ => None,
            })
            .expect("the call was started")
    }

    pub(super) fn last_token(&self, call: CallRef) -> u32 {
        self.log
            .iter()
            .rev()
            .find_map(|a| match a {
                Action::BeforeHook { call: c, token, .. }
                | Action::ConcurrencyKey { call: c, token, .. }
                | Action::Start { call: c, token, .. }
                | Action::AfterHook { call: c, token, .. }
                | Action::Persist { call: c, token, .. }
                    if *c == call =>
                {
                    Some(*token)
                }
                _ => None,
            })
            .expect("the call has a pending action")
    }

    /// Every end of the batch; a compact end (the value as returned) shows as an ok result
    /// with no content, since the driver builds its content.
    pub(super) fn ends(&self, batch: u32) -> Vec<(u32, ToolResult)> {
        self.log
            .iter()
            .filter_map(|a| match a {
                Action::End { call, result, .. } if call.batch == batch => {
                    Some((call.slot, (**result).clone()))
                }
                Action::EndAsReturned {
                    call,
                    started_at,
                    ended_at,
                    duration_ms,
                    ..
                } if call.batch == batch => Some((
                    call.slot,
                    ToolResult {
                        started_at: *started_at,
                        ended_at: *ended_at,
                        duration_ms: *duration_ms,
                        ..ToolResult::ok(String::new(), String::new(), Value::Null)
                    },
                )),
                _ => None,
            })
            .collect()
    }

    /// The shape and text of a compact end, if the call ended with one.
    pub(super) fn as_returned(
        &self,
        call: CallRef,
    ) -> Option<(crate::output::OutputShape, Option<String>)> {
        self.log.iter().find_map(|a| match a {
            Action::EndAsReturned {
                call: c,
                shape,
                text,
                ..
            } if *c == call => Some((*shape, text.clone())),
            _ => None,
        })
    }

    pub(super) fn result(&self, call: CallRef) -> ToolResult {
        let ends: Vec<ToolResult> = self
            .ends(call.batch)
            .into_iter()
            .filter(|(slot, _)| *slot == call.slot)
            .map(|(_, r)| r)
            .collect();
        assert_eq!(ends.len(), 1, "exactly one result for {call:?}");
        ends.into_iter().next().unwrap()
    }

    /// What the driver is asked to do for `call`, in order: `start` (its start event), `run`,
    /// `before` (its hook) and `end`.
    pub(super) fn event_types(&self, call: CallRef) -> Vec<&'static str> {
        self.log
            .iter()
            .filter_map(|a| match a {
                Action::StartEvent { call: c, .. } if *c == call => Some("start"),
                Action::Start { call: c, .. } if *c == call => Some("run"),
                Action::BeforeHook { call: c, .. } if *c == call => Some("before"),
                Action::End { call: c, .. } | Action::EndAsReturned { call: c, .. }
                    if *c == call =>
                {
                    Some("end")
                }
                _ => None,
            })
            .collect()
    }

    pub(super) fn batch_done(&self, batch: u32) -> bool {
        self.log.contains(&Action::BatchDone { batch })
    }
}

pub(super) fn started(actions: &[Action]) -> Vec<CallRef> {
    actions
        .iter()
        .filter_map(|a| match a {
            Action::Start { call, .. } => Some(*call),
            _ => None,
        })
        .collect()
}

pub(super) fn at(batch: u32, slot: u32) -> CallRef {
    CallRef { batch, slot }
}

pub(super) fn events() -> BatchOptions {
    BatchOptions {
        events: true,
        ..BatchOptions::default()
    }
}

pub(super) fn text(result: &ToolResult) -> String {
    match &result.content[0] {
        crate::ContentBlock::Text { text } => text.clone(),
        other => panic!("not text: {other:?}"),
    }
}

#[test]
fn calls_that_cannot_run_end_at_once_with_their_errors() {
    let mut h = Harness::new(16);
    h.tool("read", json!({}));
    let actions = h.open(
        1,
        &[
            ("a", "read", "{\"path\": "),
            ("b", "raed", "{}"),
            ("c", "read", "{\"path\": 3}"),
            ("d", "read", "  "),
        ],
        events(),
    );
    assert_eq!(
        started(&actions),
        vec![at(1, 3)],
        "only the valid call runs"
    );
    assert_eq!(
        h.result(at(1, 0)).error.unwrap().code,
        ErrorCode::InvalidJson
    );
    assert_eq!(h.result(at(1, 0)).args, Value::Null);
    let not_found = h.result(at(1, 1));
    assert_eq!(not_found.error.as_ref().unwrap().code, ErrorCode::NotFound);
    assert!(
        text(&not_found).contains("Did you mean \"read\"?"),
        "{}",
        text(&not_found)
    );
    let invalid = h.result(at(1, 2));
    assert_eq!(invalid.error.unwrap().code, ErrorCode::ValidationError);
    assert_eq!(invalid.args, json!({"path": 3}));
    // Every call got its start event before its end.
    for slot in 0..3 {
        let start = h
            .log
            .iter()
            .position(|a| matches!(a, Action::StartEvent { call, .. } if *call == at(1, slot)));
        let end = h
            .log
            .iter()
            .position(|a| matches!(a, Action::End { call, .. } if *call == at(1, slot)));
        assert!(start.unwrap() < end.unwrap());
    }
    h.settle(at(1, 3), ToolOutcome::Returned(json!("ok")));
    assert!(h.batch_done(1));
    assert!(h.result(at(1, 3)).ok);
}

#[test]
fn a_call_repeating_an_id_of_its_batch_is_refused_before_it_runs() {
    // Seen by a new user (issue 19): two calls with one id both ran and both results came back
    // under it, and verifyRun then reported duplicate_call for a run that lost nothing.
    let policy = json!({ "deny": ["denied"] });
    let gate = PolicyGate::from_options(&policy, &Value::Null, &Value::Null, &Value::Null).unwrap();
    let mut h = Harness::with_gate(16, gate);
    h.tool("t", json!({}));
    h.tool("denied", json!({}));
    // (calls as (id, tool), the slots that run, the slot each refused one repeats); a repeat is
    // refused as one whatever else is wrong with it (an unknown or denied tool, bad arguments)
    type Case<'a> = (&'a [(&'a str, &'a str)], &'a [u32], &'a [(u32, u32)]);
    let cases: &[Case<'_>] = &[
        (&[("a", "t"), ("a", "t")], &[0], &[(1, 0)]),
        (
            &[("a", "t"), ("a", "t"), ("a", "t")],
            &[0],
            &[(1, 0), (2, 0)],
        ),
        (
            &[("a", "t"), ("b", "t"), ("a", "t"), ("b", "t"), ("a", "t")],
            &[0, 1],
            &[(2, 0), (3, 1), (4, 0)],
        ),
        (&[("x", "t"), ("y", "t"), ("z", "t")], &[0, 1, 2], &[]),
        (&[("", "t"), ("", "t")], &[0], &[(1, 0)]),
        (
            &[("a", "t"), ("a", "nope"), ("a", "denied")],
            &[0],
            &[(1, 0), (2, 0)],
        ),
        (&[("a", "nope"), ("a", "t")], &[], &[(1, 0)]),
        (
            &[("a", "denied"), ("a", "t"), ("a", "t")],
            &[],
            &[(1, 0), (2, 0)],
        ),
    ];
    for (batch, (calls, run, refused)) in cases.iter().enumerate() {
        let batch = batch as u32 + 1;
        let ids: Vec<&str> = calls.iter().map(|(id, _)| *id).collect();
        // a refused repeat's arguments are not even JSON: that is not what refuses it
        let calls: Vec<(&str, &str, &str)> = calls
            .iter()
            .enumerate()
            .map(|(slot, (id, name))| {
                let repeat = refused.iter().any(|(s, _)| *s as usize == slot);
                (*id, *name, if repeat { "{" } else { "{}" })
            })
            .collect();
        let actions = h.open(batch, &calls, events());
        let expected: Vec<CallRef> = run.iter().map(|slot| at(batch, *slot)).collect();
        assert_eq!(started(&actions), expected, "{ids:?}");
        for (slot, first) in *refused {
            let error = h.result(at(batch, *slot)).error.unwrap();
            assert_eq!(
                error.code,
                ErrorCode::ValidationError,
                "{ids:?} slot {slot}"
            );
            let id = ids[*slot as usize];
            assert!(
                error
                    .message
                    .contains(&format!("\"{id}\" is already the id of call {first}")),
                "{}",
                error.message
            );
            assert_eq!(error.details, Some(json!({ "duplicateOf": first })));
        }
        for slot in *run {
            h.settle(at(batch, *slot), ToolOutcome::Returned(json!("ok")));
        }
        assert!(h.batch_done(batch), "{ids:?}");
        // The engine alone marks the repeats, on the start event and the end of each call, so
        // the driver records one call and one result per id.
        let repeats = |slot: u32| refused.iter().find(|(s, _)| *s == slot).map(|(_, f)| *f);
        for slot in 0..ids.len() as u32 {
            let marks: Vec<Option<u32>> = h
                .log
                .iter()
                .filter_map(|a| match a {
                    Action::StartEvent { call, repeats, .. }
                    | Action::End { call, repeats, .. }
                        if *call == at(batch, slot) =>
                    {
                        Some(*repeats)
                    }
                    Action::EndAsReturned { call, .. } if *call == at(batch, slot) => Some(None),
                    _ => None,
                })
                .collect();
            assert_eq!(marks, vec![repeats(slot); 2], "{ids:?} slot {slot}");
        }
    }
}

/// The ids events and the audit log show for the calls of `batch`, by slot (`None`: the id
/// as sent).
fn shown_ids(actions: &[Action]) -> Vec<Option<String>> {
    actions
        .iter()
        .filter_map(|a| match a {
            Action::StartEvent { ids, .. } => Some(ids.as_ref().map(|ids| ids.0.clone())),
            _ => None,
        })
        .collect()
}

/// Seen in the issue 19 round 9 attack review (13.mjs): the ids `a\ud800` and `a\ufffd` read
/// alike once the lone surrogate was U+FFFD, so the second call was refused as a repeat and
/// never ran. Ids are compared as the driver wrote them (JSON.stringify's literal: one text per
/// JavaScript string); an id with a lone surrogate is shown with U+FFFD and a digest of the id
/// as written, so the audit log keeps two calls two.
#[test]
fn ids_are_compared_as_written_before_lone_surrogates_are_replaced() {
    let mut h = Harness::new(16);
    h.tool("t", json!({}));
    // (the ids as the driver's JSON literals, the refused slots and the slot each repeats)
    type Case<'a> = (&'a [&'a str], &'a [(u32, u32)]);
    let cases: &[Case<'_>] = &[
        (&[r#""a\ud800""#, "\"a\u{fffd}\""], &[]),
        (&[r#""a\ud800""#, r#""a\udc00""#], &[]),
        (&[r#""\udfff""#, r#""\udfffx""#, r#""x\udfff""#], &[]),
        (&[r#""a\ud800""#, r#""a\ud800""#], &[(1, 0)]),
        (&["\"a\u{fffd}\"", "\"a\u{fffd}\""], &[(1, 0)]),
        (
            &[r#""a\ud800""#, "\"a\u{fffd}\"", r#""a\ud800""#],
            &[(2, 0)],
        ),
    ];
    for (batch, (literals, refused)) in cases.iter().enumerate() {
        let batch = batch as u32 + 1;
        let rows: Vec<String> = literals.iter().map(|l| format!("[{l},\"t\",0]")).collect();
        let meta = format!("[{}]", rows.join(","));
        let requests = parse_calls(&meta, vec!["{}".to_owned(); literals.len()]).unwrap();
        let ids: Vec<String> = requests.iter().map(|r| r.id.clone()).collect();
        let actions = h.open_requests(batch, requests, events());
        let run: Vec<CallRef> = (0..literals.len() as u32)
            .filter(|slot| !refused.iter().any(|(s, _)| s == slot))
            .map(|slot| at(batch, slot))
            .collect();
        assert_eq!(started(&actions), run, "{literals:?}");
        for slot in &run {
            h.settle(*slot, ToolOutcome::Returned(json!("ok")));
        }
        assert!(h.batch_done(batch), "{literals:?}");
        for (slot, first) in *refused {
            let error = h.result(at(batch, *slot)).error.unwrap();
            assert_eq!(error.details, Some(json!({ "duplicateOf": first })));
        }
        // Shown ids: U+FFFD and the digest for a lone surrogate, the id itself otherwise; the
        // digest tells two such ids apart and reads the same for one id twice.
        let shown = shown_ids(&actions);
        for (slot, literal) in literals.iter().enumerate() {
            let lone = literal.contains("\\u");
            let id = &ids[slot];
            match &shown[slot] {
                Some(shown) if lone => {
                    let (head, digest) = shown.split_once('~').unwrap();
                    assert_eq!(head, id, "{literal}");
                    assert_eq!(digest.len(), 16, "{shown}");
                }
                other => assert_eq!(other, &None, "{literal}"),
            }
        }
        for (a, b) in [(0, 1), (0, 2), (1, 2)] {
            if b < literals.len() && literals[a] != literals[b] {
                assert_ne!(shown[a], shown[b], "{literals:?}");
            } else if b < literals.len() {
                assert_eq!(shown[a], shown[b], "{literals:?}");
            }
        }
    }
}

/// Seen in the issue 19 round 9 attack review (13.mjs): two call ids holding different tokens
/// were shown alike once their secrets were redacted, so the audit log held one id for two
/// calls and verifyRun reported duplicate_call on a clean run. A scrubbed id keeps a keyed
/// digest of the id as written: distinct, stable for one id, and without the secret.
#[test]
fn ids_holding_secrets_are_scrubbed_and_stay_distinct() {
    let mut h = Harness::new(16);
    h.tool("t", json!({}));
    let token = |c: char| format!("call_ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r{c}");
    let (one, two) = (token('1'), token('2'));
    let calls = [
        (one.as_str(), "t", "{}"),
        (two.as_str(), "t", "{}"),
        ("plain", "t", "{}"),
    ];
    let shown = shown_ids(&h.open(1, &calls, events()));
    let again = shown_ids(&h.open(2, &calls[..1], events()));
    let (a, b) = (shown[0].clone().unwrap(), shown[1].clone().unwrap());
    for id in [&a, &b] {
        assert!(id.starts_with("call_[redacted:github-token]~"), "{id}");
        assert!(!id.contains("ghp_") && !id.contains("A1b2C3"), "{id}");
    }
    assert_ne!(a, b, "two calls, two ids");
    assert_eq!(again[0].as_ref(), Some(&a), "one id reads the same twice");
    assert_eq!(shown[2], None, "an id without a secret is shown as sent");
}

#[test]
fn an_empty_batch_is_done_at_once() {
    let mut h = Harness::new(16);
    let actions = h.open(1, &[], events());
    assert_eq!(actions, vec![Action::BatchDone { batch: 1 }]);
}

#[test]
fn at_most_concurrency_calls_run_and_the_next_starts_as_one_ends() {
    let mut h = Harness::new(2);
    h.tool("t", json!({}));
    let actions = h.open(
        1,
        &[("a", "t", "{}"), ("b", "t", "{}"), ("c", "t", "{}")],
        events(),
    );
    assert_eq!(started(&actions), vec![at(1, 0), at(1, 1)]);
    let actions = h.settle(at(1, 1), ToolOutcome::Returned(json!(1)));
    assert_eq!(started(&actions), vec![at(1, 2)]);
    h.settle(at(1, 0), ToolOutcome::Returned(json!(0)));
    h.settle(at(1, 2), ToolOutcome::Returned(json!(2)));
    assert!(h.batch_done(1));
    assert_eq!(
        h.as_returned(at(1, 2)),
        Some((crate::output::OutputShape::Json, Some("2".to_owned())))
    );
}

#[test]
fn the_concurrency_cap_is_shared_by_batches() {
    let mut h = Harness::new(1);
    h.tool("t", json!({}));
    let first = h.open(1, &[("a", "t", "{}")], events());
    let second = h.open(2, &[("b", "t", "{}")], events());
    assert_eq!(started(&first), vec![at(1, 0)]);
    assert!(started(&second).is_empty());
    let after = h.settle(at(1, 0), ToolOutcome::ReturnedNothing);
    assert_eq!(started(&after), vec![at(2, 0)]);
}

#[test]
fn a_sequential_tool_makes_the_batch_run_in_source_order() {
    let mut h = Harness::new(16);
    h.tool("t", json!({}));
    h.tool("seq", json!({"executionMode": "sequential"}));
    let actions = h.open(
        1,
        &[("a", "t", "{}"), ("b", "seq", "{}"), ("c", "t", "{}")],
        events(),
    );
    assert_eq!(started(&actions), vec![at(1, 0)]);
    assert!(
        !actions
            .iter()
            .any(|a| matches!(a, Action::StartEvent { call, .. } if call.slot > 0)),
        "later calls have not begun"
    );
    let actions = h.settle(at(1, 0), ToolOutcome::ReturnedNothing);
    assert_eq!(started(&actions), vec![at(1, 1)]);
    let actions = h.settle(at(1, 1), ToolOutcome::ReturnedNothing);
    assert_eq!(started(&actions), vec![at(1, 2)]);
}

#[test]
fn calls_with_one_concurrency_key_never_overlap_and_keep_source_order() {
    let mut h = Harness::new(16);
    h.tool("edit", json!({"hasConcurrencyKey": true}));
    let hooks = BatchOptions {
        hooks: Hooks {
            before: true,
            ..Hooks::default()
        },
        ..events()
    };
    h.open(
        1,
        &[
            ("a", "edit", "{\"path\":\"x\"}"),
            ("b", "edit", "{\"path\":\"y\"}"),
            ("c", "edit", "{\"path\":\"x\"}"),
        ],
        hooks,
    );
    // Hooks answer in reverse order; the key of "c" is known before that of "a".
    h.answer(at(1, 2), CompletionKind::BeforeAnswered(Value::Null));
    let actions = h.answer(at(1, 2), CompletionKind::Key(Some("x".into())));
    assert!(
        started(&actions).is_empty(),
        "c waits for a, which comes first"
    );
    h.answer(at(1, 1), CompletionKind::BeforeAnswered(Value::Null));
    h.answer(at(1, 1), CompletionKind::Key(Some("y".into())));
    h.answer(at(1, 0), CompletionKind::BeforeAnswered(Value::Null));
    let actions = h.answer(at(1, 0), CompletionKind::Key(Some("x".into())));
    assert_eq!(
        started(&actions),
        vec![at(1, 0), at(1, 1)],
        "a and b run; c waits for a"
    );
    let actions = h.settle(at(1, 1), ToolOutcome::ReturnedNothing);
    assert!(started(&actions).is_empty());
    let actions = h.settle(at(1, 0), ToolOutcome::ReturnedNothing);
    assert_eq!(started(&actions), vec![at(1, 2)]);
}

#[test]
fn keys_are_shared_across_batches() {
    let mut h = Harness::new(16);
    h.tool("edit", json!({"hasConcurrencyKey": true}));
    h.open(1, &[("a", "edit", "{}")], events());
    let actions = h.answer(at(1, 0), CompletionKind::Key(Some("f".into())));
    assert_eq!(started(&actions), vec![at(1, 0)]);
    h.open(2, &[("b", "edit", "{}")], events());
    let actions = h.answer(at(2, 0), CompletionKind::Key(Some("f".into())));
    assert!(started(&actions).is_empty());
    let actions = h.settle(at(1, 0), ToolOutcome::ReturnedNothing);
    assert_eq!(started(&actions), vec![at(2, 0)]);
}

#[test]
fn a_key_function_that_throws_fails_only_its_call() {
    let mut h = Harness::new(16);
    h.tool("edit", json!({"hasConcurrencyKey": true}));
    h.open(1, &[("a", "edit", "{}"), ("b", "edit", "{}")], events());
    h.answer(at(1, 0), CompletionKind::KeyFailed("bad key".into()));
    let actions = h.answer(at(1, 1), CompletionKind::Key(None));
    assert_eq!(started(&actions), vec![at(1, 1)]);
    let failed = h.result(at(1, 0));
    assert_eq!(failed.error.unwrap().code, ErrorCode::ExecutionError);
    assert!(text(&h.result(at(1, 0))).contains("bad key"));
}

#[test]
fn a_call_past_its_deadline_times_out_and_its_late_value_is_ignored() {
    let mut h = Harness::new(16);
    h.tool("slow", json!({"timeoutMs": 50}));
    let actions = h.open(1, &[("a", "slow", "{}")], events());
    assert!(actions.contains(&Action::Timer { delay_ms: Some(50) }));
    assert!(h
        .advance(49)
        .iter()
        .all(|a| !matches!(a, Action::End { .. })));
    let actions = h.advance(1);
    assert!(actions.contains(&Action::Abort {
        call: at(1, 0),
        reason: AbortReason::Timeout
    }));
    assert!(
        actions.contains(&Action::Timer { delay_ms: None }),
        "nothing left to wait for"
    );
    let result = h.result(at(1, 0));
    assert_eq!(result.status, ToolStatus::Timeout);
    assert_eq!(result.error.as_ref().unwrap().code, ErrorCode::Timeout);
    assert!(result.duration_ms >= 50.0);
    let late = h.settle(at(1, 0), ToolOutcome::Returned(json!("late")));
    assert!(late.is_empty());
    assert_eq!(h.ends(1).len(), 1);
}

#[test]
fn a_flat_tools_arguments_stay_text_until_a_result_needs_them() {
    // The harness's tool has a flat schema: a call sending what it asks is checked as text
    // (crate::flat_args) and runs with the driver's own copy; the engine parses the text only
    // when it builds a result holding the arguments (here, a timeout's).
    let mut h = Harness::new(16);
    h.tool("read", json!({"timeoutMs": 50}));
    let unparsed = |h: &Harness, call: CallRef| {
        h.dispatcher.batches[&call.batch].calls[call.slot as usize]
            .args
            .unparsed()
    };
    let actions = h.open(
        1,
        &[
            ("a", "read", r#"{"path":"a.txt"}"#),
            ("b", "read", r#" {"path" : "b.txt"} "#),
        ],
        BatchOptions::default(),
    );
    let starts = actions
        .iter()
        .filter(|a| matches!(a, Action::Start { args: None, .. }))
        .count();
    assert_eq!(starts, 2, "both ran with their own arguments: {actions:?}");
    assert!(unparsed(&h, at(1, 0)) && unparsed(&h, at(1, 1)));
    h.settle(at(1, 0), ToolOutcome::Returned(json!("ok")));
    assert!(unparsed(&h, at(1, 1)));
    h.advance(50);
    let result = h.result(at(1, 1));
    assert_eq!(result.status, ToolStatus::Timeout);
    assert_eq!(result.args, json!({"path": "b.txt"}));
}

#[test]
fn deadlines_follow_the_drivers_monotonic_clock_and_never_its_wall_clock() {
    let mut h = Harness::new(16);
    h.tool("slow", json!({"timeoutMs": 50}));
    h.open(1, &[("a", "slow", "{}")], events());
    // The wall clock set a day ahead (`vi.setSystemTime`) expires nothing.
    h.now.epoch_ms += 86_400_000;
    let actions = h.dispatcher.tick(&h.registry, h.now);
    assert!(!actions.iter().any(|a| matches!(a, Action::Abort { .. })));
    // A timer that fires early (the driver's clock has not reached the deadline) re-arms for the
    // time left on that clock.
    h.now.monotonic += Duration::from_millis(20);
    let actions = h.dispatcher.tick(&h.registry, h.now);
    assert!(actions.contains(&Action::Timer { delay_ms: Some(30) }));
    assert!(h.ends(1).is_empty());
    h.advance(30);
    assert_eq!(h.result(at(1, 0)).status, ToolStatus::Timeout);
}

#[test]
fn results_are_stamped_by_the_drivers_wall_clock_and_timed_by_its_monotonic_one() {
    let mut h = Harness::new(16);
    h.tool("t", json!({}));
    h.open(1, &[("a", "t", "{}")], events());
    // The wall clock moves back an hour while the tool runs: timestamps say so, the duration
    // does not.
    h.now.epoch_ms -= 3_600_000;
    h.now.monotonic += Duration::from_micros(30_250);
    h.settle(at(1, 0), ToolOutcome::Returned(json!("ok")));
    let result = h.result(at(1, 0));
    assert_eq!(result.started_at, START_EPOCH_MS);
    assert_eq!(result.ended_at, START_EPOCH_MS - 3_600_000);
    assert_eq!(result.duration_ms, 30.25);
}

/// Settles a started call with its value and the driver's readings of when it ran.
fn settle_ran(h: &mut Harness, call: CallRef, started_ms: f64, settled_ms: f64) {
    let token = h.token_of_start(call);
    h.complete(vec![Completion {
        call,
        token,
        kind: CompletionKind::Tool(ToolOutcome::Returned(json!("ok"))),
        ran: Some(Ran {
            started_ms,
            settled_ms,
        }),
    }]);
}

#[test]
fn a_results_times_are_the_tools_own_not_the_crossings() {
    let mut h = Harness::new(16);
    h.tool("t", json!({}));
    h.open(1, &[("a", "t", "{}"), ("b", "t", "{}")], events());
    // Call a worked synchronously for 60 ms: b started after it, settled 1.5 ms later, and the
    // crossing carrying both came at 100 ms.
    h.now = h.now.plus_ms(100);
    settle_ran(&mut h, at(1, 1), 60.0, 61.5);
    let b = h.result(at(1, 1));
    assert_eq!(b.duration_ms, 1.5);
    assert_eq!(b.started_at, START_EPOCH_MS + 60);
    // (the wall clock goes back whole milliseconds: 38.5 ms back from 100 is 62)
    assert_eq!(b.ended_at, START_EPOCH_MS + 62);
    settle_ran(&mut h, at(1, 0), 0.25, 60.0);
    assert_eq!(h.result(at(1, 0)).duration_ms, 59.75);
}

#[test]
fn readings_out_of_order_never_make_a_result_end_before_it_started() {
    let mut h = Harness::new(16);
    h.tool("t", json!({}));
    h.open(
        1,
        &[("a", "t", "{}"), ("b", "t", "{}"), ("c", "t", "{}")],
        events(),
    );
    h.now = h.now.plus_ms(10);
    // settled before it started (a clock that went back): no time at all
    settle_ran(&mut h, at(1, 0), 8.0, 5.0);
    assert_eq!(h.result(at(1, 0)).duration_ms, 0.0);
    // readings after the crossing's, or no time: the crossing's moment
    settle_ran(&mut h, at(1, 1), 50.0, f64::NAN);
    assert_eq!(h.result(at(1, 1)).duration_ms, 10.0);
    // a start read before the answer that started the call counts from that answer
    h.open(2, &[("d", "t", "{}")], events());
    h.now = h.now.plus_ms(10);
    settle_ran(&mut h, at(2, 0), 5.0, 15.0);
    assert_eq!(h.result(at(2, 0)).duration_ms, 5.0);
}

#[test]
fn a_clock_reading_that_is_no_time_counts_as_zero() {
    for (monotonic, epoch) in [
        (f64::NAN, f64::NAN),
        (-5.0, -1.0),
        (f64::NEG_INFINITY, f64::INFINITY),
    ] {
        let now = Now::from_millis(monotonic, epoch);
        assert_eq!(
            (now.monotonic, now.epoch_ms),
            (Duration::ZERO, 0),
            "{monotonic} {epoch}"
        );
    }
    let now = Now::from_millis(1.5, 1_700_000_000_000.9);
    assert_eq!(now.monotonic, Duration::from_micros(1_500));
    assert_eq!(now.epoch_ms, 1_700_000_000_000);
    let far = Now::from_millis(1e300, 1e300);
    assert_eq!((far.monotonic, far.epoch_ms), (Duration::MAX, u64::MAX));
    assert_eq!(far.plus_ms(5).epoch_ms, u64::MAX, "saturates");
}

#[test]
fn the_tool_timeout_wins_over_the_dispatch_and_runtime_timeouts() {
    let mut h = Harness::new(16);
    h.tool("own", json!({"timeoutMs": 30}));
    h.tool("plain", json!({}));
    let options = BatchOptions {
        timeout_ms: Some(70),
        ..events()
    };
    h.open(1, &[("a", "own", "{}"), ("b", "plain", "{}")], options);
    h.advance(30);
    assert_eq!(h.result(at(1, 0)).status, ToolStatus::Timeout);
    assert_eq!(h.ends(1).len(), 1);
    h.advance(40);
    assert_eq!(h.result(at(1, 1)).status, ToolStatus::Timeout);
}

#[test]
fn a_timeout_frees_the_slot_for_the_next_call() {
    let mut h = Harness::new(1);
    h.tool("t", json!({"timeoutMs": 10}));
    h.open(1, &[("a", "t", "{}"), ("b", "t", "{}")], events());
    let actions = h.advance(10);
    assert_eq!(started(&actions), vec![at(1, 1)]);
    assert!(actions
        .iter()
        .any(|a| matches!(a, Action::Timer { delay_ms: Some(10) })));
}

#[test]
fn cancelling_aborts_running_calls_and_ends_queued_ones_without_running() {
    let mut h = Harness::new(1);
    h.tool("t", json!({}));
    h.open(1, &[("a", "t", "{}"), ("b", "t", "{}")], events());
    let actions = h.dispatcher.cancel(&h.registry, 1, h.now);
    h.log.extend(actions.clone());
    assert!(actions.contains(&Action::Abort {
        call: at(1, 0),
        reason: AbortReason::Cancelled
    }));
    assert!(started(&actions).is_empty(), "the queued call never runs");
    assert_eq!(h.result(at(1, 0)).status, ToolStatus::Cancelled);
    assert_eq!(h.result(at(1, 1)).status, ToolStatus::Cancelled);
    assert!(text(&h.result(at(1, 1))).contains("before it started"));
    assert!(h.batch_done(1));
    assert!(h.settle(at(1, 0), ToolOutcome::ReturnedNothing).is_empty());
    assert_eq!(h.dispatcher.open_batches(), 0);
}

#[test]
fn an_already_aborted_dispatch_runs_nothing_but_answers_every_call() {
    let mut h = Harness::new(16);
    h.tool("t", json!({}));
    let options = BatchOptions {
        cancelled: true,
        ..events()
    };
    let actions = h.open(
        1,
        &[("a", "t", "{\"path\":\"p\"}"), ("b", "nope", "{")],
        options,
    );
    assert!(started(&actions).is_empty());
    assert_eq!(h.ends(1).len(), 2);
    assert_eq!(h.result(at(1, 0)).args, json!({"path": "p"}));
    assert_eq!(h.result(at(1, 1)).args, Value::Null);
    let start_events = actions
        .iter()
        .filter(|a| matches!(a, Action::StartEvent { .. }))
        .count();
    assert_eq!(start_events, 2);
    assert!(h.batch_done(1));
}

#[test]
fn a_before_hook_can_block_replace_or_fail_closed() {
    let mut h = Harness::new(16);
    h.tool("t", json!({}));
    let options = BatchOptions {
        hooks: Hooks {
            before: true,
            ..Hooks::default()
        },
        ..events()
    };
    let actions = h.open(
        1,
        &[
            ("a", "t", "{}"),
            ("b", "t", "{}"),
            ("c", "t", "{}"),
            ("d", "t", "{}"),
            ("e", "t", "{}"),
        ],
        options,
    );
    let hook_calls = actions
        .iter()
        .filter(|a| matches!(a, Action::BeforeHook { .. }))
        .count();
    assert_eq!(hook_calls, 5);
    h.answer(
        at(1, 0),
        CompletionKind::BeforeAnswered(json!({"block": true, "reason": "not today"})),
    );
    let actions = h.answer(
        at(1, 1),
        CompletionKind::BeforeAnswered(json!({"params": {"path": "new"}})),
    );
    assert!(actions.iter().any(
        |a| matches!(a, Action::Start { args: Some(args), .. } if *args == json!({"path": "new"}))
    ));
    h.answer(
        at(1, 2),
        CompletionKind::BeforeAnswered(json!({"params": {"path": 1}})),
    );
    h.answer(
        at(1, 3),
        CompletionKind::BeforeFailed("hook crashed".into()),
    );
    let blocked = h.result(at(1, 0));
    assert_eq!(blocked.status, ToolStatus::Blocked);
    assert_eq!(blocked.error.as_ref().unwrap().code, ErrorCode::Blocked);
    assert!(text(&blocked).contains("not today"));
    assert_eq!(
        h.result(at(1, 2)).error.unwrap().code,
        ErrorCode::ValidationError
    );
    let failed = h.result(at(1, 3));
    assert_eq!(failed.status, ToolStatus::Blocked);
    assert!(text(&failed).contains("hook crashed"));
    // The fifth hook never answers: it is blocked at the deadline.
    h.advance(1_000);
    let silent = h.result(at(1, 4));
    assert_eq!(silent.status, ToolStatus::Blocked);
    assert!(text(&silent).contains("did not answer"));
}

#[test]
fn the_before_hook_sees_the_call_envelope() {
    let mut h = Harness::new(16);
    h.tool("t", json!({"riskLevel": "high", "category": "fs"}));
    let options = BatchOptions {
        hooks: Hooks {
            before: true,
            ..Hooks::default()
        },
        run_id: Some("run-1".into()),
        ..events()
    };
    let actions = h.open(1, &[("a", "t", "{\"path\":\"p\"}")], options);
    let envelope = actions
        .iter()
        .find_map(|a| match a {
            Action::BeforeHook { envelope, .. } => Some(envelope.clone()),
            _ => None,
        })
        .unwrap();
    assert_eq!(envelope.call_id, "a");
    assert_eq!(envelope.run_id.as_deref(), Some("run-1"));
    assert_eq!(envelope.risk_level, Some(crate::envelope::RiskLevel::High));
    assert_eq!(
        envelope.args_hash,
        crate::canonical::args_sha256(&json!({"path": "p"}))
    );
    assert_eq!(envelope.timeout_ms, 1_000);
}

#[test]
fn after_and_persist_hooks_rewrite_the_result_in_order() {
    let mut h = Harness::new(16);
    h.tool("t", json!({}));
    let options = BatchOptions {
        hooks: Hooks {
            before: false,
            after: true,
            persist: true,
        },
        ..events()
    };
    h.open(1, &[("a", "t", "{}")], options);
    let actions = h.settle(
        at(1, 0),
        ToolOutcome::Returned(
            json!({"content": [{"type": "text", "text": "raw"}], "details": {"k": 1}}),
        ),
    );
    assert!(actions
        .iter()
        .any(|a| matches!(a, Action::AfterHook { .. })));
    let actions = h.answer(
        at(1, 0),
        CompletionKind::AfterAnswered(json!({"details": {"k": 2}})),
    );
    let persisted = actions
        .iter()
        .find_map(|a| match a {
            Action::Persist { result, .. } => Some(result.clone()),
            _ => None,
        })
        .unwrap();
    assert_eq!(persisted.details, Some(json!({"k": 2})));
    h.answer(
        at(1, 0),
        CompletionKind::PersistAnswered(json!({"content": [{"type": "text", "text": "kept"}]})),
    );
    let result = h.result(at(1, 0));
    assert_eq!(text(&result), "kept");
    assert_eq!(result.details, Some(json!({"k": 2})));
    assert!(result.ok);
}

#[test]
fn hook_failures_after_the_tool_withhold_its_output() {
    let mut h = Harness::new(16);
    h.tool("t", json!({}));
    let options = BatchOptions {
        hooks: Hooks {
            after: true,
            ..Hooks::default()
        },
        ..events()
    };
    h.open(1, &[("a", "t", "{}"), ("b", "t", "{}")], options);
    h.settle(
        at(1, 0),
        ToolOutcome::Returned(
            json!({"content": [{"type": "text", "text": "secret"}], "details": {"s": 1}}),
        ),
    );
    h.answer(
        at(1, 0),
        CompletionKind::AfterFailed("redactor down".into()),
    );
    let failed = h.result(at(1, 0));
    assert_eq!(failed.status, ToolStatus::Error);
    assert!(!text(&failed).contains("secret"));
    assert_eq!(failed.details, None);
    h.settle(at(1, 1), ToolOutcome::Returned(json!("secret")));
    h.advance(1_000);
    let silent = h.result(at(1, 1));
    assert!(text(&silent).contains("afterToolCall hook did not answer"));
}

#[test]
fn persist_runs_for_refused_calls_too_but_not_for_cancelled_ones() {
    let mut h = Harness::new(16);
    let options = BatchOptions {
        hooks: Hooks {
            persist: true,
            ..Hooks::default()
        },
        ..events()
    };
    let actions = h.open(1, &[("a", "missing", "{}")], options.clone());
    assert!(actions.iter().any(|a| matches!(a, Action::Persist { .. })));
    let cancelled = BatchOptions {
        cancelled: true,
        ..options
    };
    let actions = h.open(2, &[("b", "missing", "{}")], cancelled);
    assert!(!actions.iter().any(|a| matches!(a, Action::Persist { .. })));
    assert!(h.batch_done(2));
}

#[test]
fn a_tool_unregistered_before_its_call_starts_ends_not_found() {
    let mut h = Harness::new(1);
    h.tool("t", json!({}));
    h.open(1, &[("a", "t", "{}"), ("b", "t", "{}")], events());
    assert!(h.registry.unregister("t"));
    let actions = h.settle(at(1, 0), ToolOutcome::Returned(json!("fine")));
    assert!(started(&actions).is_empty());
    assert!(
        h.result(at(1, 0)).ok,
        "the call in flight finishes normally"
    );
    let gone = h.result(at(1, 1));
    assert_eq!(gone.error.unwrap().code, ErrorCode::NotFound);
    assert!(h.batch_done(1));
}

#[test]
fn answers_with_a_stale_token_are_ignored() {
    let mut h = Harness::new(16);
    h.tool("t", json!({}));
    h.open(1, &[("a", "t", "{}")], events());
    let token = h.token_of_start(at(1, 0));
    let actions = h.complete(vec![Completion {
        call: at(1, 0),
        token: token + 7,
        kind: CompletionKind::Tool(ToolOutcome::ReturnedNothing),
        ran: None,
    }]);
    assert!(actions.is_empty());
    assert!(h.ends(1).is_empty());
}

/// A small deterministic generator, so the shuffled runs below are repeatable.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self, bound: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 33) as usize) % bound
    }
}

#[test]
fn every_call_ends_exactly_once_whatever_the_order_of_events() {
    for seed in 0..200u64 {
        let mut rng = Lcg(seed);
        let mut h = Harness::new(1 + rng.next(4));
        h.tool("t", json!({"timeoutMs": 40}));
        h.tool("k", json!({"hasConcurrencyKey": true}));
        h.tool(
            "s",
            json!({"executionMode": if seed % 5 == 0 { "sequential" } else { "parallel" }}),
        );
        let names = ["t", "k", "s", "missing"];
        let calls: Vec<(String, &str, &str)> = (0..8)
            .map(|i| {
                (
                    format!("c{i}"),
                    names[rng.next(4)],
                    if rng.next(6) == 0 { "{" } else { "{}" },
                )
            })
            .collect();
        let refs: Vec<(&str, &str, &str)> =
            calls.iter().map(|(a, b, c)| (a.as_str(), *b, *c)).collect();
        let hooks = Hooks {
            before: rng.next(2) == 0,
            after: rng.next(2) == 0,
            persist: rng.next(2) == 0,
        };
        let mut pending: Vec<Action> = h.open(1, &refs, BatchOptions { hooks, ..events() });
        let mut steps = 0;
        while !h.batch_done(1) {
            steps += 1;
            assert!(steps < 10_000, "seed {seed} does not terminate");
            let answerable: Vec<Action> = pending
                .iter()
                .filter(|a| {
                    matches!(
                        a,
                        Action::BeforeHook { .. }
                            | Action::ConcurrencyKey { .. }
                            | Action::Start { .. }
                            | Action::AfterHook { .. }
                            | Action::Persist { .. }
                    )
                })
                .cloned()
                .collect();
            let choice = rng.next(10);
            if answerable.is_empty() || choice == 0 {
                let more = h.advance(20);
                pending.extend(more);
                if choice == 0 && rng.next(8) == 0 {
                    let more = h.dispatcher.cancel(&h.registry, 1, h.now);
                    h.log.extend(more.clone());
                    pending.extend(more);
                }
                continue;
            }
            let action = answerable[rng.next(answerable.len())].clone();
            pending.retain(|a| *a != action);
            let (call, token, kind) = match action {
                Action::BeforeHook { call, token, .. } => {
                    (call, token, CompletionKind::BeforeAnswered(Value::Null))
                }
                Action::ConcurrencyKey { call, token, .. } => (
                    call,
                    token,
                    CompletionKind::Key(Some(format!("k{}", rng.next(2)))),
                ),
                Action::Start { call, token, .. } => (
                    call,
                    token,
                    CompletionKind::Tool(ToolOutcome::Returned(json!("v"))),
                ),
                Action::AfterHook { call, token, .. } => {
                    (call, token, CompletionKind::AfterAnswered(Value::Null))
                }
                Action::Persist { call, token, .. } => {
                    (call, token, CompletionKind::PersistAnswered(Value::Null))
                }
                _ => unreachable!(),
            };
            let more = h.complete(vec![Completion {
                call,
                token,
                kind,
                ran: None,
            }]);
            pending.extend(more);
        }
        for slot in 0..8 {
            let ends = h.ends(1).iter().filter(|(s, _)| *s == slot).count();
            assert_eq!(ends, 1, "seed {seed} slot {slot}");
            let starts = h
                .log
                .iter()
                .filter(|a| matches!(a, Action::StartEvent { call, .. } if call.slot == slot))
                .count();
            assert_eq!(starts, 1, "seed {seed} slot {slot} start events");
        }
        assert_eq!(h.dispatcher.in_flight, 0, "seed {seed}");
        assert_eq!(h.dispatcher.keys.held(), 0, "seed {seed}");
        assert_eq!(h.dispatcher.open_batches(), 0, "seed {seed}");
        // Never more running than the cap, and never two holders of one key at once.
        let mut running = std::collections::HashSet::new();
        let cap = h.dispatcher.config().concurrency;
        for action in &h.log {
            match action {
                Action::Start { call, .. } => {
                    running.insert(*call);
                    assert!(running.len() <= cap, "seed {seed}: over the cap");
                }
                Action::Abort { call, .. }
                | Action::End { call, .. }
                | Action::EndAsReturned { call, .. } => {
                    running.remove(call);
                }
                Action::AfterHook { call, .. } | Action::Persist { call, .. } => {
                    running.remove(call);
                }
                _ => {}
            }
        }
    }
}

#[test]
fn a_big_batch_is_prechecked_in_parallel_with_the_same_outcomes() {
    let mut h = Harness::new(10_000);
    h.tool("t", json!({}));
    let texts = ["{\"path\":\"ok\"}", "{\"path\":", "{\"path\":1}", " "];
    let calls: Vec<(String, &str, &str)> = (0..1_000)
        .map(|i| {
            (
                format!("c{i}"),
                if i % 8 == 7 { "nope" } else { "t" },
                texts[i % 4],
            )
        })
        .collect();
    let refs: Vec<(&str, &str, &str)> =
        calls.iter().map(|(a, b, c)| (a.as_str(), *b, *c)).collect();
    let actions = h.open(1, &refs, events());
    let code = |slot: u32| h.result(at(1, slot)).error.map(|e| e.code);
    assert_eq!(code(1), Some(ErrorCode::InvalidJson));
    assert_eq!(code(2), Some(ErrorCode::ValidationError));
    assert_eq!(code(7), Some(ErrorCode::NotFound));
    assert!(
        h.ends(1).iter().all(|(slot, _)| *slot != 0),
        "slot 0 is still running"
    );
    // Slots 0 mod 4 and 3 mod 4 are valid, except those naming an unknown tool (7 mod 8).
    assert_eq!(started(&actions).len(), 250 + 125);
}

#[test]
fn a_call_the_decoder_marked_incomplete_is_never_run() {
    // A response cut by the output limit: `{"action":"delete_all"` must not run as `{}`.
    let mut h = Harness::new(16);
    h.tool("wipe", json!({}));
    let requests = vec![CallRequest {
        id: "cut".into(),
        name: "wipe".into(),
        arguments: RawArguments::Incomplete,
        stamp: None,
        exact_id: None,
    }];
    let actions = h
        .dispatcher
        .open(&h.registry, 1, requests, events(), h.now)
        .unwrap();
    h.log.extend(actions.clone());
    assert!(started(&actions).is_empty(), "the tool was started");
    let result = h.result(at(1, 0));
    assert_eq!(result.error.unwrap().code, ErrorCode::IncompleteArguments);
    assert!(
        text(&h.result(at(1, 0))).contains("Call the tool again with complete arguments"),
        "{}",
        text(&h.result(at(1, 0)))
    );
}

#[test]
fn own_arguments_are_not_sent_back_but_others_are() {
    let mut h = Harness::new(16);
    h.tool("t", json!({}));
    let actions = h.open(
        1,
        &[
            ("a", "t", "{\"path\":\"p\"}"),
            ("b", "t", " "),
            ("c", "t", "{"),
        ],
        events(),
    );
    let event_args: Vec<Option<Value>> = actions
        .iter()
        .filter_map(|a| match a {
            Action::StartEvent { args, .. } => Some(args.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(event_args, vec![None, Some(json!({})), Some(Value::Null)]);
    let start_args: Vec<Option<Value>> = actions
        .iter()
        .filter_map(|a| match a {
            Action::Start { args, .. } => Some(args.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(start_args, vec![None, Some(json!({}))]);
}

#[test]
fn results_end_compactly_only_when_they_are_the_value_as_returned_and_no_hook_follows() {
    use crate::output::OutputShape;
    let mut h = Harness::new(16);
    h.tool("t", json!({}));
    h.open(
        1,
        &[
            ("a", "t", "{}"),
            ("b", "t", "{}"),
            ("c", "t", "{}"),
            ("d", "t", "{}"),
            ("e", "t", "{}"),
        ],
        events(),
    );
    h.settle(at(1, 0), ToolOutcome::Returned(json!("out")));
    h.settle(
        at(1, 1),
        ToolOutcome::Returned(json!({"content": [], "details": 1})),
    );
    h.settle(at(1, 2), ToolOutcome::ReturnedNothing);
    h.settle(
        at(1, 3),
        ToolOutcome::Returned(json!({"content": [], "isError": true})),
    );
    h.settle(at(1, 4), ToolOutcome::Threw("no".into()));
    assert_eq!(h.as_returned(at(1, 0)), Some((OutputShape::Text, None)));
    assert_eq!(
        h.as_returned(at(1, 1)),
        Some((OutputShape::AgentResult, None))
    );
    assert_eq!(h.as_returned(at(1, 2)), Some((OutputShape::Nothing, None)));
    assert_eq!(
        h.as_returned(at(1, 3)),
        None,
        "an error result is sent whole"
    );
    assert_eq!(h.as_returned(at(1, 4)), None);
    assert_eq!(h.result(at(1, 3)).status, ToolStatus::Error);

    let options = BatchOptions {
        hooks: Hooks {
            after: true,
            ..Hooks::default()
        },
        ..events()
    };
    h.open(2, &[("f", "t", "{}")], options);
    h.settle(at(2, 0), ToolOutcome::Returned(json!("out")));
    h.answer(at(2, 0), CompletionKind::AfterAnswered(Value::Null));
    assert_eq!(
        h.as_returned(at(2, 0)),
        None,
        "after a hook the result is sent whole"
    );
    assert_eq!(text(&h.result(at(2, 0))), "out");
}

#[test]
fn stale_deadlines_do_not_pile_up_behind_a_long_one() {
    let mut h = Harness::new(16);
    h.tool("slow", json!({"timeoutMs": 100_000}));
    h.tool("quick", json!({}));
    h.open(1, &[("long", "slow", "{}")], events());
    for batch in 2..2_000 {
        h.open(batch, &[("q", "quick", "{}")], events());
        h.settle(at(batch, 0), ToolOutcome::ReturnedNothing);
    }
    assert!(
        h.dispatcher.deadlines.len() <= 2 * h.dispatcher.open_calls + 64,
        "{} deadlines kept for {} open calls",
        h.dispatcher.deadlines.len(),
        h.dispatcher.open_calls
    );
    assert_eq!(h.dispatcher.open_calls, 1);
    // The long call still times out on time.
    h.advance(100_000);
    assert_eq!(h.result(at(1, 0)).status, ToolStatus::Timeout);
}

#[test]
fn a_plan_stamp_reaches_the_result_and_the_envelope() {
    let calls = parse_calls(
        r#"[["a", "t", 0, {"stepId": "s1", "attempt": 2, "loopId": "r:s1", "confirmationId": "k"}], ["b", "t", 0]]"#,
        vec!["{}".into(), "{}".into()],
    )
    .unwrap();
    assert_eq!(calls[0].stamp.as_ref().unwrap().attempt, Some(2));
    assert_eq!(calls[1].stamp, None);
    let bad = parse_calls(r#"[["a", "t", 0, {"step": "s1"}]]"#, vec!["{}".into()]);
    assert!(bad.is_err(), "unknown stamp keys are refused");
    let mut h = Harness::new(16);
    h.tool("t", json!({}));
    let options = BatchOptions {
        hooks: Hooks {
            before: true,
            ..Hooks::default()
        },
        ..events()
    };
    let actions = h
        .dispatcher
        .open(&h.registry, 1, calls, options, h.now)
        .unwrap();
    let envelope = actions
        .iter()
        .find_map(|a| match a {
            Action::BeforeHook { call, envelope, .. } if call.slot == 0 => Some(envelope.clone()),
            _ => None,
        })
        .unwrap();
    assert_eq!(
        (envelope.step_id.as_deref(), envelope.attempt),
        (Some("s1"), 2)
    );
    h.log.extend(actions);
    h.answer(
        at(1, 0),
        CompletionKind::BeforeAnswered(json!({"block": true, "reason": "no"})),
    );
    let result = h.result(at(1, 0));
    assert_eq!(result.step_id.as_deref(), Some("s1"));
    assert_eq!(result.attempt, 2);
    assert_eq!(result.loop_id.as_deref(), Some("r:s1"));
    assert_eq!(result.confirmation_id.as_deref(), Some("k"));
}

/// The `tools` option of a dispatch: the names of the registered tools it may run.
fn only(names: &[&str]) -> BatchOptions {
    BatchOptions {
        tools: Some(AllowedTools::new(
            names.iter().map(|n| n.to_string()).collect(),
        )),
        ..events()
    }
}

#[test]
fn a_dispatch_limited_to_some_tools_ends_calls_to_the_others_not_found_naming_only_the_allowed() {
    let mut limited = Harness::new(16);
    for name in ["read", "reader", "secret_admin", "secret_admin2"] {
        limited.tool(name, json!({}));
    }
    // What a runtime holding the allowed tools only answers: the limited one answers the same.
    let mut plain = Harness::new(16);
    for name in ["read", "reader"] {
        plain.tool(name, json!({}));
    }
    let calls = [
        ("a", "read", "{}"),
        ("b", "secret_admin", "{}"),
        ("c", "secret_admn", "{}"),
        ("d", "raed", "{}"),
        ("e", "nope", "{}"),
    ];
    let actions = limited.open(1, &calls, only(&["read", "reader"]));
    plain.open(1, &calls, events());
    assert_eq!(
        started(&actions),
        vec![at(1, 0)],
        "only the allowed call runs"
    );
    let expected = [
        (
            1,
            "Tool \"secret_admin\" not found. Available tools: read, reader.",
        ),
        (
            2,
            "Tool \"secret_admn\" not found. Available tools: read, reader.",
        ),
        (
            3,
            "Tool \"raed\" not found. Did you mean \"read\"? Available tools: read, reader.",
        ),
        (4, "Tool \"nope\" not found. Available tools: read, reader."),
    ];
    for (slot, message) in expected {
        let refused = limited.result(at(1, slot));
        let error = refused.error.as_ref().unwrap();
        assert_eq!(error.code, ErrorCode::NotFound, "{slot}");
        assert_eq!(text(&refused), message);
        // The tools left out are never named: not suggested, not listed.
        let (_, told) = message.split_once(" not found.").unwrap();
        assert!(!told.contains("secret_admin"), "{told}");
        assert!(!format!("{:?}", error.details).contains("secret_admin"));
        let other = plain.result(at(1, slot));
        assert_eq!(refused.content, other.content, "{slot}");
        assert_eq!(refused.error, other.error, "{slot}");
        assert_eq!(refused.status, other.status, "{slot}");
        // Its events are those of any call that ends before it runs: a start, then the end.
        assert_eq!(
            limited.event_types(at(1, slot)),
            plain.event_types(at(1, slot)),
            "{slot}"
        );
    }
}

#[test]
fn a_dispatch_limited_to_no_tools_runs_none_and_says_none_are_available() {
    let mut h = Harness::new(16);
    h.tool("read", json!({}));
    let actions = h.open(1, &[("a", "read", "{}")], only(&[]));
    assert!(started(&actions).is_empty());
    assert_eq!(
        text(&h.result(at(1, 0))),
        "Tool \"read\" not found. No tools are available."
    );
}

#[test]
fn a_tools_option_naming_unregistered_tools_is_the_callers_error_naming_them() {
    let cases: [(&[&str], &str); 4] = [
        (
            &["read", "raed"],
            "dispatch: options.tools names a tool that is not registered: \"raed\"; did you mean \"read\"?",
        ),
        (
            &["zz", "qq"],
            "dispatch: options.tools names tools that are not registered: \"qq\", \"zz\"",
        ),
        (
            &["a1", "a2", "a3", "a4", "a5", "a6", "a7"],
            "dispatch: options.tools names tools that are not registered: \"a1\", \"a2\", \"a3\", \"a4\", \"a5\", and 2 more",
        ),
        (&[""], "dispatch: options.tools names a tool that is not registered: \"\""),
    ];
    for (names, message) in cases {
        let mut h = Harness::new(16);
        h.tool("read", json!({}));
        let request = CallRequest {
            id: "a".into(),
            name: "read".into(),
            arguments: RawArguments::Text("{}".into()),
            stamp: None,
            exact_id: None,
        };
        let error = h
            .dispatcher
            .open(&h.registry, 1, vec![request], only(names), h.now)
            .unwrap_err();
        assert_eq!(error.code, ErrorCode::ValidationError, "{names:?}");
        assert_eq!(error.fault, crate::error::Fault::Caller, "{names:?}");
        assert_eq!(error.message, message);
        assert_eq!(h.dispatcher.open_batches(), 0, "nothing stays open");
    }
    // A megabyte name is quoted bounded.
    let mut h = Harness::new(16);
    h.tool("read", json!({}));
    let long = "x".repeat(1 << 20);
    let error = h
        .dispatcher
        .open(&h.registry, 1, Vec::new(), only(&[long.as_str()]), h.now)
        .unwrap_err();
    assert!(error.message.len() < 400, "{}", error.message.len());
}
