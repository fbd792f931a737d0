//! One named test per repair each decoder makes ([`RepairKind`]): a small stream written here
//! that needs the repair, the repair it reports (kind and call), and per wire a clean stream that
//! reports none. The streams of every wire together name every kind, and each reports the same
//! repairs however its body is split.

mod anthropic;
mod gemini;
mod openai_chat;
mod openai_responses;

use serde_json::Value;

use super::repair::RepairKind;
use super::test_support::{decode_body, Decoded};
use crate::boundary_enums::Named;
use crate::provider::Wire;

/// A stream written to need one repair, and every repair it must report: `(kind, callIndex)`.
pub struct Case {
    /// The repair the stream is written for.
    pub kind: RepairKind,
    pub wire: Wire,
    pub body: String,
    pub expected: Vec<(RepairKind, Option<u64>)>,
}

/// An SSE body: each value as a `data:` event.
pub fn sse(events: &[Value]) -> String {
    events.iter().map(|e| format!("data: {e}\n\n")).collect()
}

/// An SSE body whose events are named by their `type` (Anthropic, Responses).
pub fn named_sse(events: &[Value]) -> String {
    events
        .iter()
        .map(|e| format!("event: {}\ndata: {e}\n\n", e["type"].as_str().unwrap_or("")))
        .collect()
}

/// A repair as the turn reports it: `(kind, callIndex, detail)`.
type Reported = (String, Option<u64>, Option<String>);

fn reported(value: &Value) -> Reported {
    (
        value["kind"].as_str().expect("kind").to_owned(),
        value["callIndex"].as_u64(),
        value["detail"].as_str().map(str::to_owned),
    )
}

/// The turn's repairs, checked equal to its `repair` events (the same ones, in the same order).
fn repairs_of(decoded: &Decoded) -> Vec<Reported> {
    let from_turn: Vec<Reported> = decoded.turn["repairs"]
        .as_array()
        .expect("repairs")
        .iter()
        .map(reported)
        .collect();
    let from_events: Vec<Reported> = decoded
        .of_type("repair")
        .into_iter()
        .map(reported)
        .collect();
    assert_eq!(from_turn, from_events, "{}", decoded.turn);
    from_turn
}

/// Decodes the case's body whole and checks the repairs it reports; returns them.
pub fn check(case: &Case) -> Vec<Reported> {
    let decoded = decode_body(case.wire, &[case.body.as_bytes()]);
    let got = repairs_of(&decoded);
    let kinds: Vec<(&str, Option<u64>)> = got.iter().map(|r| (r.0.as_str(), r.1)).collect();
    let want: Vec<(&str, Option<u64>)> = case
        .expected
        .iter()
        .map(|(kind, call)| (kind.as_str(), *call))
        .collect();
    assert_eq!(kinds, want, "{:?}: {}", case.kind, decoded.turn);
    assert!(
        case.expected.iter().any(|(kind, _)| *kind == case.kind),
        "{:?}: the case must expect its own kind",
        case.kind
    );
    got
}

/// A clean stream of the wire: no repair reported, no error.
pub fn check_clean(wire: Wire, body: &str) {
    let decoded = decode_body(wire, &[body.as_bytes()]);
    assert_eq!(repairs_of(&decoded), vec![], "{}", decoded.turn);
    assert_eq!(
        decoded.turn["errors"],
        serde_json::json!([]),
        "{}",
        decoded.turn
    );
    assert!(decoded.calls().iter().all(|c| c["complete"] == true));
}

fn all_cases() -> Vec<Case> {
    let mut cases = openai_chat::cases();
    cases.extend(openai_responses::cases());
    cases.extend(anthropic::cases());
    cases.extend(gemini::cases());
    cases
}

#[test]
fn every_kind_has_a_stream_that_needs_it() {
    let cases = all_cases();
    let missing: Vec<&RepairKind> = RepairKind::ALL
        .iter()
        .filter(|kind| !cases.iter().any(|case| case.kind == **kind))
        .collect();
    assert!(missing.is_empty(), "no stream here needs {missing:?}");
}

#[test]
fn a_body_split_at_every_byte_reports_the_same_repairs() {
    for case in all_cases() {
        let whole = check(&case);
        let bytes = case.body.as_bytes();
        let one_by_one: Vec<&[u8]> = bytes.chunks(1).collect();
        assert_eq!(
            repairs_of(&decode_body(case.wire, &one_by_one)),
            whole,
            "{:?} byte by byte",
            case.kind
        );
        for at in 1..bytes.len() {
            let (head, tail) = bytes.split_at(at);
            assert_eq!(
                repairs_of(&decode_body(case.wire, &[head, tail])),
                whole,
                "{:?} split at byte {at}",
                case.kind
            );
        }
    }
}
