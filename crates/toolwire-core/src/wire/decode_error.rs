//! What a decoder reports about a stream it copes with or cannot read, by a stable kind: the
//! turn's `errorKinds` and each `error` event's `kind` carry it next to the message, so the CLI
//! and event consumers name a problem without reading its prose (generated for JavaScript as
//! `DecodeErrorKind`).

crate::named! {
    /// The kind of a decoder error; its name is stable.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
    pub enum DecodeErrorKind {
        /// The body is not a response of the wire (empty, an HTML page, plain text, another API).
        NotTheWire => "not-the-wire",
        /// The stop reason says the turn holds tool calls, but none arrived.
        ToolCallsLost => "tool-calls-lost",
        /// Two generations were spliced into one stream; the rest was ignored.
        SplicedStream => "spliced-stream",
        /// The stream ended before its terminal event (or a JSON array body before its `]`).
        StreamTruncated => "stream-truncated",
        /// The provider reported an error mid-stream.
        ProviderError => "provider-error",
        /// The provider's content filter stopped the response.
        ContentFilter => "content-filter",
        /// The response failed (`response.failed`).
        ResponseFailed => "response-failed",
        /// The prompt was blocked.
        PromptBlocked => "prompt-blocked",
        /// The model stopped abnormally (a finish reason that is an error).
        AbnormalFinish => "abnormal-finish",
        /// A tool call fragment arrived after the turn finished (Anthropic: after its block's
        /// `content_block_stop`); ignored.
        FragmentAfterFinish => "fragment-after-finish",
        /// A second response followed the finished one in the same body; ignored.
        SeveralResponses => "several-responses",
        /// The response holds more than one choice; only the first was read.
        SeveralChoices => "several-choices",
        /// Arguments arrived for an output item (Anthropic: a block) never announced; ignored.
        /// The call they belong to was lost: before the turn's end it breaks the turn (stop
        /// reason `error`, no call complete after it).
        ArgumentsForUnknownItem => "arguments-for-unknown-item",
        /// Anthropic: a block event without `index` that could belong to several open blocks, or
        /// to none; what it carried was ignored, and every open call it could have been part of
        /// was cut (none runs with arguments it may not have received).
        MissingBlockIndex => "missing-block-index",
        /// Another block (Anthropic) or call item (Responses) began at the index of one still
        /// open; the open one's call was cut.
        BlockIndexReused => "block-index-reused",
        /// A function call part without a name (and no call streaming); ignored.
        NamelessFunctionCall => "nameless-function-call",
        /// Streamed partial arguments that contradict each other; the later value won or was ignored.
        BadPartialArguments => "bad-partial-arguments",
        /// An event or line too large; dropped. Before the turn's end it breaks the turn (stop
        /// reason `error`, no call complete after it).
        OversizedEvent => "oversized-event",
        /// An event that is not valid JSON or has the wrong shape (call data under a type not
        /// known too); skipped. Before the turn's end it breaks the turn (stop reason `error`,
        /// no call complete after it): what it held is lost.
        UnreadableEvent => "unreadable-event",
        /// Input after `finish()`; ignored.
        InputAfterFinish => "input-after-finish",
    }
}

/// A corpus with one response per kind, on the wire that reports it: each decodes to an error
/// of exactly its kind, in the turn's `errorKinds` and its `error` event's `kind`; the corpus
/// covers every kind. (The messages are prose: nothing here reads them.)
#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use serde_json::{json, Value};

    use super::DecodeErrorKind as K;
    use crate::boundary_enums::Named;
    use crate::provider::{Provider, Wire};
    use crate::wire::test_support::{decode_body, decode_values, Decoded};
    use crate::wire::turn::DecoderOptions;

    fn values(wire: Wire, chunks: &[Value]) -> Decoded {
        decode_values(wire, DecoderOptions::default(), chunks)
    }

    fn chat(id: &str, choice: Value) -> Value {
        json!({"id": id, "object": "chat.completion.chunk", "choices": [choice]})
    }

    fn gemini(parts: Value) -> Value {
        json!({"candidates": [{"content": {"role": "model", "parts": parts}}]})
    }

    fn created(id: &str) -> Value {
        json!({"type": "response.created", "response": {"id": id, "status": "in_progress", "output": []}})
    }

    fn anthropic_start() -> Value {
        json!({"type": "message_start", "message": {"id": "m", "content": []}})
    }

    /// A `tool_use` block start at `index`.
    fn anthropic_tool(index: u64, id: &str) -> Value {
        json!({"type": "content_block_start", "index": index, "content_block":
            {"type": "tool_use", "id": id, "name": "f", "input": {}}})
    }

    fn corpus() -> Vec<(K, Decoded)> {
        let text = |content: &str| json!({"index": 0, "delta": {"content": content}});
        let finished = json!({"index": 0, "delta": {}, "finish_reason": "stop"});
        let oversized = format!("data: {}\n\n", "x".repeat((16 << 20) + 1));
        vec![
            (
                K::NotTheWire,
                decode_body(Wire::OpenAiChat, &[b"<html>Sign in</html>"]),
            ),
            (
                K::ToolCallsLost,
                values(
                    Wire::OpenAiChat,
                    &[chat(
                        "c",
                        json!({"index": 0, "delta": {"content": "ok"}, "finish_reason": "tool_calls"}),
                    )],
                ),
            ),
            (
                K::SplicedStream,
                values(Wire::OpenAiResponses, &[created("r1"), created("r2")]),
            ),
            (
                K::StreamTruncated,
                decode_body(
                    Wire::OpenAiChat,
                    &[
                        br#"data: {"id":"c","choices":[{"index":0,"delta":{"content":"x"}}]}"#,
                        b"\n\n",
                    ],
                ),
            ),
            (
                K::StreamTruncated,
                decode_body(Wire::Gemini, &[br#"[{"candidates":[]}"#]),
            ),
            (
                K::ProviderError,
                values(
                    Wire::OpenAiChat,
                    &[json!({"error": {"message": "overloaded"}})],
                ),
            ),
            (
                K::ContentFilter,
                values(
                    Wire::OpenAiResponses,
                    &[
                        created("r"),
                        json!({"type": "response.incomplete", "response": {"id": "r",
                            "incomplete_details": {"reason": "content_filter"}}}),
                    ],
                ),
            ),
            (
                K::ResponseFailed,
                values(
                    Wire::OpenAiResponses,
                    &[
                        created("r"),
                        json!({"type": "response.failed", "response": {"id": "r", "status": "failed",
                            "error": {"code": "server_error", "message": "crashed"}}}),
                    ],
                ),
            ),
            (
                K::PromptBlocked,
                values(
                    Wire::Gemini,
                    &[json!({"promptFeedback": {"blockReason": "SAFETY"}})],
                ),
            ),
            (
                K::AbnormalFinish,
                values(
                    Wire::Gemini,
                    &[
                        json!({"candidates": [{"content": {"parts": []}, "finishReason": "SAFETY"}]}),
                    ],
                ),
            ),
            (
                K::FragmentAfterFinish,
                values(
                    Wire::Gemini,
                    &[
                        json!({"candidates": [{"content": {"parts": [{"text": "x"}]}, "finishReason": "STOP"}]}),
                        gemini(json!([{"functionCall": {"name": "f", "args": {}}}])),
                    ],
                ),
            ),
            (
                K::SeveralResponses,
                values(
                    Wire::OpenAiChat,
                    &[
                        chat("a", text("x")),
                        chat("a", finished.clone()),
                        chat("b", text("y")),
                    ],
                ),
            ),
            (
                K::SeveralChoices,
                values(
                    Wire::OpenAiChat,
                    &[
                        chat("a", json!({"index": 1, "delta": {"content": "x"}})),
                        chat("a", finished),
                    ],
                ),
            ),
            (
                K::ArgumentsForUnknownItem,
                values(
                    Wire::OpenAiResponses,
                    &[
                        created("r"),
                        json!({"type": "response.function_call_arguments.delta", "item_id": "fc_x",
                            "output_index": 0, "delta": "{}"}),
                    ],
                ),
            ),
            (
                K::MissingBlockIndex,
                values(
                    Wire::Anthropic,
                    &[
                        anthropic_start(),
                        anthropic_tool(0, "toolu_a"),
                        anthropic_tool(1, "toolu_b"),
                        json!({"type": "content_block_delta",
                            "delta": {"type": "input_json_delta", "partial_json": "{}"}}),
                    ],
                ),
            ),
            (
                K::BlockIndexReused,
                values(
                    Wire::Anthropic,
                    &[
                        anthropic_start(),
                        anthropic_tool(0, "toolu_a"),
                        anthropic_tool(0, "toolu_b"),
                    ],
                ),
            ),
            (
                K::NamelessFunctionCall,
                values(
                    Wire::Gemini,
                    &[gemini(json!([{"functionCall": {"args": {}}}]))],
                ),
            ),
            (
                K::BadPartialArguments,
                values(
                    Wire::Gemini,
                    &[
                        gemini(json!([{"functionCall": {"name": "f", "willContinue": true}}])),
                        gemini(
                            json!([{"functionCall": {"partialArgs": [{"stringValue": "x"}], "willContinue": true}}]),
                        ),
                    ],
                ),
            ),
            (
                K::OversizedEvent,
                decode_body(Wire::OpenAiChat, &[oversized.as_bytes()]),
            ),
            (
                K::UnreadableEvent,
                decode_body(Wire::OpenAiChat, &[b"data: {not json\n\n"]),
            ),
        ]
    }

    #[test]
    fn every_kind_is_reported_as_data() {
        let mut seen = HashSet::new();
        for (kind, decoded) in corpus() {
            let errors = decoded.turn["errors"].as_array().unwrap();
            let listed: Vec<&str> = decoded.turn["errorKinds"]
                .as_array()
                .expect("errorKinds")
                .iter()
                .map(|k| k.as_str().unwrap())
                .collect();
            assert_eq!(listed.len(), errors.len(), "{kind:?}: {}", decoded.turn);
            assert!(
                listed.contains(&kind.as_str()),
                "{kind:?}: {}",
                decoded.turn
            );
            let from_events: Vec<&str> = decoded
                .of_type("error")
                .iter()
                .map(|e| e["kind"].as_str().unwrap_or("?"))
                .collect();
            assert!(
                from_events.contains(&kind.as_str()),
                "{kind:?}: {from_events:?}"
            );
            seen.insert(kind);
        }
        let mut decoder = Provider::of(Wire::OpenAiChat).stream_decoder(DecoderOptions::default());
        decoder.finish();
        let events: Value = serde_json::from_str(&decoder.push(b"data: {}\n\n")).unwrap();
        let after: Vec<&Value> = events.as_array().unwrap().iter().collect();
        assert!(
            after
                .iter()
                .any(|e| e["kind"] == K::InputAfterFinish.as_str()),
            "{events}"
        );
        seen.insert(K::InputAfterFinish);
        let missing: Vec<_> = K::ALL.iter().filter(|k| !seen.contains(k)).collect();
        assert!(
            missing.is_empty(),
            "no response of the corpus reports {missing:?}"
        );
    }

    #[test]
    fn kinds_serialize_as_their_names() {
        crate::boundary_enums::assert_names_distinct_and_serialized::<K>();
    }
}
