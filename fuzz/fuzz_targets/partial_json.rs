//! `PartialJson` on any text (the body decoded lossily as UTF-8), fed in pieces chosen by the
//! header `[seed, shape]`:
//! - no panic;
//! - the final `state()` (and `is_object()`) is the same as when the text is fed whole, before
//!   and after a trailing space;
//! - the parser agrees with the JSON grammar (serde_json's syntax pass): `Complete` exactly when
//!   the text is one JSON value, except for nesting deeper than `MAX_DEPTH`, which it refuses;
//! - when the text is valid per serde_json (as a `Value`, no duplicated keys) and the state is
//!   `Complete`, applying the ops (of the split feed and of the whole feed) rebuilds that value,
//!   and no push gave one string two `Append`s (a duplicated key reports both values at the same
//!   path, so texts with one are not compared);
//! - no `Append` is empty.
#![no_main]

use libfuzzer_sys::fuzz_target;
use serde_json::Value;
use toolwire_core::wire::partial_json::{
    ParseState, PartialJson, PartialOp, PartialValue, PathSegment,
};
use toolwire_fuzz::{header, is_json, parse_without_duplicate_keys, str_pieces};

/// Feeds `pieces`; returns the parser, the ops, and the path of a string that got two
/// `Append`s in one push (which only a duplicated key may cause), if any.
fn feed(pieces: &[&str]) -> (PartialJson, Vec<PartialOp>, Option<Vec<PathSegment>>) {
    let mut parser = PartialJson::new();
    let mut ops = Vec::new();
    let mut twice = None;
    for piece in pieces {
        let before = ops.len();
        parser.push(piece, &mut ops);
        let mut append_paths = Vec::new();
        for op in &ops[before..] {
            if let PartialOp::Append { path, text } = op {
                assert!(!text.is_empty(), "empty Append at {path:?}");
                if append_paths.contains(&path) {
                    twice.get_or_insert_with(|| path.clone());
                }
                append_paths.push(path);
            }
        }
    }
    (parser, ops, twice)
}

/// Builds the value the ops describe.
fn build(ops: &[PartialOp]) -> Option<Value> {
    let mut value = PartialValue::new();
    for op in ops {
        value.apply(op).unwrap_or_else(|e| panic!("{e}"));
    }
    value.into_value()
}

fuzz_target!(|data: &[u8]| {
    let ([seed, shape], body) = header::<2>(data);
    let text = String::from_utf8_lossy(body);
    let (mut whole, mut whole_ops, _) = feed(&[&text]);
    let (mut split, mut split_ops, twice) = feed(&str_pieces(&text, seed, shape));
    assert_eq!(
        whole.state(),
        split.state(),
        "state depends on the split points"
    );

    // A bare top-level number completes only at the whitespace after it.
    whole.push(" ", &mut whole_ops);
    split.push(" ", &mut split_ops);
    assert_eq!(
        whole.state(),
        split.state(),
        "state depends on the split points"
    );
    assert_eq!(whole.is_object(), split.is_object());

    let state = split.state();
    let grammatical = is_json(&text);
    match state {
        ParseState::Complete => assert!(grammatical, "Complete, but not JSON: {text:?}"),
        ParseState::InProgress => assert!(!grammatical, "JSON, but still InProgress: {text:?}"),
        ParseState::Invalid { reason, .. } => assert!(
            !grammatical || reason.starts_with("nesting deeper than"),
            "JSON, but Invalid ({reason}): {text:?}"
        ),
    }

    if *state == ParseState::Complete {
        if let Some((expected, true)) = parse_without_duplicate_keys(&text) {
            assert_eq!(twice, None, "two Appends for one string in one push");
            assert_eq!(split.is_object(), expected.is_object());
            assert_eq!(build(&split_ops).as_ref(), Some(&expected), "split ops");
            assert_eq!(build(&whole_ops).as_ref(), Some(&expected), "whole ops");
        }
    }
});
