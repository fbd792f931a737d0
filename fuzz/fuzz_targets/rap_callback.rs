//! `parse_callback` (the RAP callback body parser of `toolwire-rap`) on any bytes:
//! - no panic;
//! - on `Ok`, a `tool_result` has `text` or `content`, and the message serializes to JSON that
//!   parses again to a message of the same type, group and call id (strings round-trip
//!   exactly; floats inside pass-through payloads are not compared).
#![no_main]

use libfuzzer_sys::fuzz_target;
use toolwire_rap::{parse_callback, Callback};

fn tag(callback: &Callback) -> &'static str {
    match callback {
        Callback::ToolResult(_) => "tool_result",
        Callback::SubscriptionEvent(_) => "subscription_event",
        Callback::OAuth(_) => "oauth",
        Callback::UserChoice(_) => "user_choice",
        Callback::ViewUpdate(_) => "view_update",
    }
}

fuzz_target!(|data: &[u8]| {
    let Ok(callback) = parse_callback(data) else {
        return;
    };
    if let Callback::ToolResult(result) = &callback {
        assert!(result.text.is_some() || result.content.is_some());
        let _ = result.is_error();
    }
    let text = serde_json::to_string(&callback).expect("a parsed callback serializes");
    let again = parse_callback(text.as_bytes()).expect("a serialized callback parses");
    assert_eq!(tag(&callback), tag(&again));
    assert_eq!(callback.group_id(), again.group_id());
    assert_eq!(callback.call_id(), again.call_id());
});
