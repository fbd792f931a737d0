//! The request body of one model call, in a wire's own shape: the history under the wire's key,
//! the tool definitions, the tool choice, and what asks for a stream. The shapes are declared
//! here, per wire in [`super::Provider`], and generated for the agent loop (`REQUEST_SHAPES` in
//! `ts/protocol.generated.ts`), which puts the body together around the very history objects it
//! holds: a history never crosses the boundary to be copied on every model call.

/// The shape of a model call's request body on one wire.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RequestShape {
    /// The key of the history: `messages`, `input` (Responses), `contents` (Gemini).
    pub history: &'static str,
    /// The key of the tool choice: `tool_choice`, `toolConfig` (Gemini).
    pub tool_choice: &'static str,
    /// Whether the body asks for a stream (`"stream": true`).
    pub stream: bool,
    /// Whether the body asks a stream to report the usage (`"stream_options": {"include_usage":
    /// true}`).
    pub stream_usage: bool,
}

#[cfg(test)]
mod tests {
    use crate::provider::{Provider, Wire};

    #[test]
    fn each_wire_names_its_history_and_tool_choice_and_what_asks_for_a_stream() {
        let shape = |wire| Provider::of(wire).request;
        let rows: Vec<_> = Wire::ALL
            .into_iter()
            .map(|wire| {
                let s = shape(wire);
                (wire, s.history, s.tool_choice, s.stream, s.stream_usage)
            })
            .collect();
        assert_eq!(
            rows,
            [
                (Wire::OpenAiChat, "messages", "tool_choice", true, true),
                (Wire::OpenAiResponses, "input", "tool_choice", true, false),
                (Wire::Anthropic, "messages", "tool_choice", true, false),
                (Wire::Gemini, "contents", "toolConfig", false, false),
                (Wire::Mistral, "messages", "tool_choice", true, false),
            ]
        );
    }
}
