//! `json_input` (the engine's gate for JSON text from outside) on any text (the body decoded
//! lossily as UTF-8):
//! - no panic, and `prepare` agrees with `repair_surrogates` on the text it returns;
//! - what it returns holds no escaped lone surrogate any more (preparing it again borrows), and
//!   it is borrowed exactly when the text held none;
//! - when serde_json parses the original text (so it held no lone surrogate), `prepare`
//!   refuses it exactly when its value nests deeper than `MAX_VALUE_DEPTH`, and otherwise
//!   parses to the same value;
//! - when `prepare` accepts the text and serde_json parses the result, the value nests at most
//!   `MAX_VALUE_DEPTH` levels.
#![no_main]

use std::borrow::Cow;

use libfuzzer_sys::fuzz_target;
use serde_json::Value;
use toolwire_core::json_input::{parse, prepare, repair_surrogates, MAX_VALUE_DEPTH};

/// Levels of arrays and objects (a scalar is 0), without recursion.
fn depth(value: &Value) -> usize {
    let mut deepest = 0;
    let mut stack = vec![(value, 0usize)];
    while let Some((value, level)) = stack.pop() {
        let children: Box<dyn Iterator<Item = &Value>> = match value {
            Value::Array(items) => Box::new(items.iter()),
            Value::Object(map) => Box::new(map.values()),
            _ => continue,
        };
        deepest = deepest.max(level + 1);
        stack.extend(children.map(|child| (child, level + 1)));
    }
    deepest
}

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let repaired = repair_surrogates(&text);
    assert!(matches!(repair_surrogates(&repaired), Cow::Borrowed(_)));
    let prepared = prepare(&text);
    if let Ok(prepared) = &prepared {
        assert_eq!(prepared.as_ref(), repaired.as_ref());
        assert_eq!(
            matches!(prepared, Cow::Borrowed(_)),
            matches!(repaired, Cow::Borrowed(_))
        );
        if let Ok(value) = serde_json::from_str::<Value>(prepared) {
            assert!(depth(&value) <= MAX_VALUE_DEPTH);
        }
    }
    if let Ok(original) = serde_json::from_str::<Value>(&text) {
        assert!(
            matches!(repaired, Cow::Borrowed(_)),
            "valid JSON held a lone surrogate"
        );
        match parse(&text) {
            Ok(parsed) => {
                assert!(depth(&original) <= MAX_VALUE_DEPTH);
                assert_eq!(parsed.value, original);
                assert!(!parsed.repaired);
            }
            Err(_) => assert!(depth(&original) > MAX_VALUE_DEPTH),
        }
    }
});
