//! The layout of every [`RapMessage`](super::RapMessage) as it crosses (see [`crate::layout`]):
//! `crate::contract` generates the link's tuple types from it (`ts/protocol.generated.ts`), and
//! in this crate's tests every message written is checked against it.

use super::RapMessageCode;
use crate::layout::{el, opt, Element, Holds, Layout};

const TICKET: Element = el("ticket", "number", Holds::Index);

/// The layout of every RAP message, in the order of their codes.
pub const RAP_MESSAGE_LAYOUTS: &[Layout] = &[
    Layout {
        code: RapMessageCode::Loaded as u8,
        name: "Loaded",
        doc: "The toolset loaded: its name and its tools (their names as registered, the toolset's prefix included).",
        elements: &[
            TICKET,
            el("toolset", "string", Holds::Text),
            el("tools", "RemoteToolDef[]", Holds::Array),
        ],
    },
    Layout {
        code: RapMessageCode::Result as u8,
        name: "Result",
        doc: "The call's `tool_result` as received; `error` when its text starts with `Error:`; `refused`: why, when it stands for a callback the server refused.",
        elements: &[
            TICKET,
            el("error", "boolean", Holds::Bool),
            el("result", "RapToolResult", Holds::Object),
            opt(
                "refused",
                "'LIMIT_EXCEEDED' | 'EXECUTION_ERROR'",
                Holds::OneOf(&["LIMIT_EXCEEDED", "EXECUTION_ERROR"]),
            ),
        ],
    },
    Layout {
        code: RapMessageCode::Failed as u8,
        name: "Failed",
        doc: "The load, call or request failed; `status`: the HTTP status that rejected an invocation or a manifest.",
        elements: &[
            TICKET,
            el("errorCode", "ErrorCode", Holds::Text),
            el("message", "string", Holds::Text),
            opt("status", "number", Holds::Index),
        ],
    },
    Layout {
        code: RapMessageCode::Timeout as u8,
        name: "Timeout",
        doc: "The call sent no result by its deadline (a cancel was sent).",
        elements: &[TICKET],
    },
    Layout {
        code: RapMessageCode::Cancelled as u8,
        name: "Cancelled",
        doc: "The call was aborted before its result came (a cancel was sent).",
        elements: &[TICKET],
    },
    Layout {
        code: RapMessageCode::Done as u8,
        name: "Done",
        doc: "The `closeThread` or `answerUserChoice` finished.",
        elements: &[TICKET],
    },
    Layout {
        code: RapMessageCode::Event as u8,
        name: "Event",
        doc: "A RAP event, as the runtime's `onEvent` gets it once scrubbed of secrets.",
        elements: &[el("event", "RapEvent", Holds::Object)],
    },
];

/// Why the serialized `message` does not fit its layout, if it does not.
pub fn misfit(message: &serde_json::Value) -> Option<String> {
    crate::layout::misfit(RAP_MESSAGE_LAYOUTS, message)
}

#[cfg(test)]
mod tests {
    use super::super::{RapMessage, RemoteTool};
    use super::*;
    use crate::error::ErrorCode;
    use serde_json::{json, Value};

    #[test]
    fn every_rap_message_code_has_one_layout_in_code_order() {
        crate::layout::check_codes::<RapMessageCode>(RAP_MESSAGE_LAYOUTS);
    }

    /// One message of every variant (with and without its optional tail), written as the
    /// binding and the event forwarder write them, fits its layout; together they cover every
    /// code.
    #[test]
    fn a_message_of_every_variant_fits_its_layout() {
        let messages = [
            RapMessage::Loaded {
                ticket: 1,
                toolset: "files".into(),
                tools: vec![RemoteTool {
                    name: "fs_read".into(),
                    description: "Reads a file.".into(),
                    parameters: json!({ "type": "object" }),
                }],
            },
            RapMessage::Loaded {
                ticket: 2,
                toolset: "empty".into(),
                tools: Vec::new(),
            },
            RapMessage::Result {
                ticket: 3,
                error: false,
                result: json!({ "group_id": "g", "id": "c", "text": "ok" }),
                refused: None,
            },
            RapMessage::Result {
                ticket: 4,
                error: true,
                result: json!({ "group_id": "g", "id": "c", "text": "Error: too large" }),
                refused: Some(ErrorCode::LimitExceeded),
            },
            RapMessage::Failed {
                ticket: 5,
                code: ErrorCode::NotFound,
                message: "no tool".into(),
                status: None,
            },
            RapMessage::Failed {
                ticket: 6,
                code: ErrorCode::ExecutionError,
                message: "rejected".into(),
                status: Some(503),
            },
            RapMessage::Timeout { ticket: 7 },
            RapMessage::Cancelled { ticket: 8 },
            RapMessage::Done { ticket: 9 },
            RapMessage::Event(
                json!({ "type": "rap_view_update", "callId": "c", "groupId": "g", "message": {} })
                    .to_string(),
            ),
        ];
        // A crossing: the messages' texts joined into one array (toolwire_rap::outbox).
        let texts: Vec<String> = messages.into_iter().map(RapMessage::into_json).collect();
        let crossing: Value = serde_json::from_str(&format!("[{}]", texts.join(","))).unwrap();
        let crossing = crossing.as_array().unwrap();
        crate::layout::check_every_code(RAP_MESSAGE_LAYOUTS, crossing);
        assert_eq!(crossing[3][4], "LIMIT_EXCEEDED");
        assert_eq!(
            crossing[5],
            json!([2, 6, "EXECUTION_ERROR", "rejected", 503])
        );
        assert_eq!(crossing[9][1]["type"], "rap_view_update");
    }

    #[test]
    fn a_message_off_its_layout_is_named() {
        assert!(misfit(&json!([0, 1, "files"])).unwrap().contains("Loaded"));
        assert!(misfit(&json!([1, 1, false, {}, "TIMEOUT"]))
            .unwrap()
            .contains("`refused`"));
        assert!(misfit(&json!([5, -1])).unwrap().contains("`ticket`"));
        assert!(misfit(&json!({ "kind": "done", "ticket": 1 }))
            .unwrap()
            .contains("not an array"));
    }
}
