//! The providers toolwire speaks to, each described in one place: read a wire's [`Provider`]
//! to learn everything toolwire knows of it.
//!
//! A [`Wire`] is a provider's identity (its name as JavaScript writes it). Its [`Provider`] is a
//! table that names each piece of the wire, kept in the module that owns that concern:
//! - `decoder`: the reader of its streamed responses' events (`crate::wire::<wire>`; the
//!   framing, the incremental JSON parser and the turn's rules are shared: [`StreamDecoder`]);
//! - `history`: its encoders of the calls and results it is sent back
//!   (`crate::wire::encode::<wire>`), the rules they share in [`crate::wire::encode`];
//! - `history_format` and `ids`: its message format as history repair reads it, and the rule its
//!   tool-call ids follow ([`crate::ids`]);
//! - `schema`, `strict_schema` and `definitions`: the dialect its tool schemas are normalized
//!   for ([`crate::schema`]) and the shape of its `tools` array;
//! - `request`: the shape of a model call's request body ([`request`]).
//!
//! The modules below know formats, dialects and rules, not wires: no `match` on a wire is
//! left in them, and none of them imports this one (the crate's module graph stays a set of
//! layers; `layers.rs` checks it). What takes a wire comes through here: `Provider::of(wire)`
//! and its methods ([`Provider::stream_decoder`], [`Provider::encode_tool_calls`],
//! [`Provider::encode_results`], [`Provider::repair_history`], and [`Provider::request`], the request body's shape).
//! Names a caller gives for tool definitions and name rules, a wire or a schema target, are
//! resolved by [`DefinitionTarget`]; an id target's name by [`id_target`].

pub mod request;

use serde_json::Value;

use crate::error::{Error, ErrorCode, Result};
use crate::ids::{repair_history, HistoryFormat, IdTarget, RepairReport};
use crate::json_text::{json_string, quoted_name};
use crate::schema::{validate_tool_name, SchemaTarget};
use crate::suggest::did_you_mean;
use crate::wire::decoder::{StreamDecoder, WireDecoder};
use crate::wire::encode::{
    self, encode_results, encode_tool_calls, DefinitionFormat, HistoryEncoder, HistoryTurn,
    ResultInput,
};
use crate::wire::turn::DecoderOptions;
use crate::wire::{anthropic, gemini, openai_chat, openai_responses};
pub use request::RequestShape;

/// The provider wire APIs toolwire decodes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Wire {
    /// OpenAI Chat Completions and compatible servers.
    OpenAiChat,
    /// OpenAI Responses.
    OpenAiResponses,
    /// Anthropic Messages.
    Anthropic,
    /// Google Gemini `streamGenerateContent`.
    Gemini,
    /// Mistral's chat API (Chat Completions shape, calls without `index`).
    Mistral,
}

impl Wire {
    /// Every wire.
    pub const ALL: [Wire; 5] = [
        Wire::OpenAiChat,
        Wire::OpenAiResponses,
        Wire::Anthropic,
        Wire::Gemini,
        Wire::Mistral,
    ];

    /// The wire's name as JavaScript writes it.
    pub fn as_str(self) -> &'static str {
        match self {
            Wire::OpenAiChat => "openai-chat",
            Wire::OpenAiResponses => "openai-responses",
            Wire::Anthropic => "anthropic",
            Wire::Gemini => "gemini",
            Wire::Mistral => "mistral",
        }
    }

    /// Parses a wire name as JavaScript passes it. An unknown name is refused naming it, the
    /// wires there are, and the closest of them (`"openai"`: did you mean `"openai-chat"`).
    pub fn parse(name: &str) -> Result<Wire> {
        if let Some(wire) = Wire::ALL.into_iter().find(|w| w.as_str() == name) {
            return Ok(wire);
        }
        let names = Wire::ALL.map(Wire::as_str);
        Err(Error::caller(
            ErrorCode::ValidationError,
            format!(
                "unknown wire {}: expected one of {}{}",
                quoted_name(name),
                names.map(json_string).join(", "),
                did_you_mean(name, names)
            ),
        ))
    }
}

/// What toolwire knows of one provider's wire API; see the module documentation.
pub struct Provider {
    /// The wire this describes.
    pub wire: Wire,
    /// A new reader of one streamed response's events.
    pub decoder: fn() -> Box<dyn WireDecoder + Send>,
    /// How the wire writes a tool turn (its calls, then their results) back into the history.
    pub history: HistoryEncoder,
    /// The message format of its histories, as [`repair_history`] reads and writes it.
    pub history_format: HistoryFormat,
    /// The rule its tool-call ids follow.
    pub ids: IdTarget,
    /// The schema dialect of its tool definitions.
    pub schema: SchemaTarget,
    /// The dialect its definitions use with the `strict` option (OpenAI's structured outputs);
    /// `None`: the wire has no strict form and the option changes nothing.
    pub strict_schema: Option<SchemaTarget>,
    /// The shape of its `tools` array, given whether the definitions are strict (their dialect
    /// is [`SchemaTarget::OpenaiStrict`]) and, for Gemini, whether schemas go as full JSON
    /// Schema (`parametersJsonSchema`).
    pub definitions: fn(strict: bool, json_schema: bool) -> DefinitionFormat,
    /// The shape of a model call's request body.
    pub request: RequestShape,
}

/// OpenAI Chat Completions and the servers compatible with it.
static OPENAI_CHAT: Provider = Provider {
    wire: Wire::OpenAiChat,
    decoder: || Box::new(openai_chat::ChatDecoder::new(false)),
    history: HistoryEncoder {
        calls: |turn| encode::openai_chat::tool_calls(turn, false),
        results: |results, out| encode::openai_chat::results(results, false, out),
        error_flag: false,
    },
    history_format: HistoryFormat::CHAT_COMPLETIONS,
    ids: IdTarget::Word,
    schema: SchemaTarget::Openai,
    strict_schema: Some(SchemaTarget::OpenaiStrict),
    definitions: |strict, _| DefinitionFormat::ChatCompletions { strict },
    request: RequestShape {
        history: "messages",
        tool_choice: "tool_choice",
        stream: true,
        // Chat Completions streams carry usage only when asked (a last chunk without choices).
        stream_usage: true,
    },
};

/// OpenAI Responses.
static OPENAI_RESPONSES: Provider = Provider {
    wire: Wire::OpenAiResponses,
    decoder: || Box::new(openai_responses::ResponsesDecoder::new()),
    history: HistoryEncoder {
        calls: encode::openai_responses::tool_calls,
        results: encode::openai_responses::results,
        error_flag: false,
    },
    history_format: HistoryFormat::RESPONSES,
    ids: IdTarget::WordOrItem,
    schema: SchemaTarget::Openai,
    strict_schema: Some(SchemaTarget::OpenaiStrict),
    definitions: |strict, _| DefinitionFormat::Responses { strict },
    request: RequestShape {
        history: "input",
        tool_choice: "tool_choice",
        stream: true,
        stream_usage: false,
    },
};

/// Anthropic Messages.
static ANTHROPIC: Provider = Provider {
    wire: Wire::Anthropic,
    decoder: || Box::new(anthropic::AnthropicDecoder::new()),
    history: HistoryEncoder {
        calls: encode::anthropic::tool_calls,
        results: encode::anthropic::results,
        error_flag: true,
    },
    history_format: HistoryFormat::ANTHROPIC,
    ids: IdTarget::Word,
    schema: SchemaTarget::Anthropic,
    strict_schema: None,
    definitions: |_, _| DefinitionFormat::Anthropic,
    request: RequestShape {
        history: "messages",
        tool_choice: "tool_choice",
        stream: true,
        stream_usage: false,
    },
};

/// Google Gemini `streamGenerateContent`.
static GEMINI: Provider = Provider {
    wire: Wire::Gemini,
    decoder: || Box::new(gemini::GeminiDecoder::new()),
    history: HistoryEncoder {
        calls: encode::gemini::tool_calls,
        results: encode::gemini::results,
        error_flag: true,
    },
    history_format: HistoryFormat::GEMINI,
    ids: IdTarget::Word,
    schema: SchemaTarget::Gemini,
    strict_schema: None,
    definitions: |_, json_schema| DefinitionFormat::Gemini { json_schema },
    request: RequestShape {
        history: "contents",
        tool_choice: "toolConfig",
        // Gemini streams by its endpoint (`streamGenerateContent`), not by a key of the body.
        stream: false,
        stream_usage: false,
    },
};

/// Mistral's chat API: the Chat Completions shape with its own differences (calls without
/// `index`, results naming their tool, nine-character ids).
static MISTRAL: Provider = Provider {
    wire: Wire::Mistral,
    decoder: || Box::new(openai_chat::ChatDecoder::new(true)),
    history: HistoryEncoder {
        calls: |turn| encode::openai_chat::tool_calls(turn, true),
        results: |results, out| encode::openai_chat::results(results, true, out),
        error_flag: false,
    },
    history_format: HistoryFormat::MISTRAL,
    ids: IdTarget::Strict9,
    schema: SchemaTarget::Mistral,
    strict_schema: None,
    definitions: |_, _| DefinitionFormat::ChatCompletions { strict: false },
    request: RequestShape {
        history: "messages",
        tool_choice: "tool_choice",
        stream: true,
        stream_usage: false,
    },
};

impl Provider {
    /// What toolwire knows of `wire`.
    pub fn of(wire: Wire) -> &'static Provider {
        match wire {
            Wire::OpenAiChat => &OPENAI_CHAT,
            Wire::OpenAiResponses => &OPENAI_RESPONSES,
            Wire::Anthropic => &ANTHROPIC,
            Wire::Gemini => &GEMINI,
            Wire::Mistral => &MISTRAL,
        }
    }

    /// A decoder of one streamed response of the wire.
    pub fn stream_decoder(&self, options: DecoderOptions) -> StreamDecoder {
        StreamDecoder::new(self.wire.as_str(), (self.decoder)(), options)
    }

    /// The assistant message (Responses: items) that carried the turn's calls, for the history;
    /// `[]` for a turn without calls. Ids are made valid for the wire ([`encode_tool_calls`]).
    pub fn encode_tool_calls(&self, turn: &HistoryTurn) -> Vec<Value> {
        encode_tool_calls(&self.history, self.ids, turn)
    }

    /// The messages (Responses: items) that hand `results` to the model; `[]` for none. Ids
    /// are made valid for the wire as [`Provider::encode_tool_calls`] makes them, and a failure
    /// is recognizable on every wire ([`encode_results`]).
    pub fn encode_results(&self, results: &[ResultInput]) -> Vec<Value> {
        encode_results(&self.history, self.ids, results)
    }

    /// [`Provider::encode_results`] as the JSON text of the array, written without a tree.
    pub fn encode_results_text(&self, results: &[ResultInput]) -> String {
        encode::encode_results_text(&self.history, self.ids, results)
    }

    /// Repairs a history in the wire's message format ([`repair_history`]): ids valid for the
    /// wire and unique, a synthetic result for each call without one, orphaned results removed.
    pub fn repair_history(&self, messages: Vec<Value>) -> Result<(Vec<Value>, RepairReport)> {
        repair_history(messages, self.history_format, self.ids)
    }

    /// The schema dialect of the wire's definitions, with or without the `strict` option.
    pub fn schema_target(&self, strict: bool) -> SchemaTarget {
        match self.strict_schema {
            Some(target) if strict => target,
            _ => self.schema,
        }
    }
}

/// The id rule named `"strict"`, `"strict9"` or by a wire (its provider's rule). An unknown name
/// is refused naming it, the names there are and the closest of them (`"openai"`: did you mean
/// `"openai-chat"`).
pub fn id_target(name: &str) -> Result<IdTarget> {
    match name {
        "strict" => return Ok(IdTarget::Strict),
        "strict9" => return Ok(IdTarget::Strict9),
        _ => {}
    }
    if let Ok(wire) = Wire::parse(name) {
        return Ok(Provider::of(wire).ids);
    }
    let wires = Wire::ALL.map(Wire::as_str);
    Err(Error::caller(
        ErrorCode::ValidationError,
        format!(
            "unknown id target {}: expected a wire name ({}), \"strict\" or \"strict9\"{}",
            quoted_name(name),
            wires.join(", "),
            did_you_mean(name, ["strict", "strict9"].into_iter().chain(wires))
        ),
    ))
}

/// Where tool definitions are sent, as a caller names it: a wire (its provider's dialect and
/// shape) or a schema target (a dialect by name, sent in the shape its provider reads).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DefinitionTarget {
    /// A wire: `"openai-chat"`, `"openai-responses"`, `"anthropic"`, `"gemini"`, `"mistral"`.
    Wire(Wire),
    /// A schema target that is not a wire's name: `"openai"`, `"openai-strict"`, `"xai"`,
    /// `"llamacpp"`, `"p0"`.
    Schema(SchemaTarget),
}

impl DefinitionTarget {
    /// A wire's name, else a schema target's (`"anthropic"`, `"gemini"` and `"mistral"` name
    /// both, to the same effect). An unknown name gives the reason: the name (bounded), both
    /// lists, and the closest name.
    pub fn parse(name: &str) -> std::result::Result<Self, String> {
        if let Ok(wire) = Wire::parse(name) {
            return Ok(DefinitionTarget::Wire(wire));
        }
        if let Some(target) = SchemaTarget::parse(name) {
            return Ok(DefinitionTarget::Schema(target));
        }
        let wires = Wire::ALL.map(Wire::as_str);
        let targets = SchemaTarget::ALL.map(SchemaTarget::as_str);
        Err(format!(
            "unknown target {}: expected a wire ({}) or a schema target ({}){}",
            quoted_name(name),
            wires.join(", "),
            targets.join(", "),
            did_you_mean(name, wires.into_iter().chain(targets))
        ))
    }

    /// The name the target was given by.
    pub fn name(self) -> &'static str {
        match self {
            DefinitionTarget::Wire(wire) => wire.as_str(),
            DefinitionTarget::Schema(target) => target.as_str(),
        }
    }

    /// The schema dialect of the definitions, with or without the `strict` option (which
    /// makes `"openai"` and the OpenAI wires `"openai-strict"`, and changes nothing elsewhere).
    pub fn schema_target(self, strict: bool) -> SchemaTarget {
        match self {
            DefinitionTarget::Wire(wire) => Provider::of(wire).schema_target(strict),
            DefinitionTarget::Schema(SchemaTarget::Openai) if strict => SchemaTarget::OpenaiStrict,
            DefinitionTarget::Schema(target) => target,
        }
    }

    /// The dialect and the shape of the definitions, with the `strict` and `jsonSchema`
    /// options. A schema target that is not a wire is sent in Chat Completions' shape, except
    /// `"anthropic"` and `"gemini"` (their wires' shapes).
    pub fn definitions(self, strict: bool, json_schema: bool) -> (SchemaTarget, DefinitionFormat) {
        let schema = self.schema_target(strict);
        let strict = schema == SchemaTarget::OpenaiStrict;
        let format = match self {
            DefinitionTarget::Wire(wire) => (Provider::of(wire).definitions)(strict, json_schema),
            DefinitionTarget::Schema(target) => match target {
                SchemaTarget::Anthropic => DefinitionFormat::Anthropic,
                SchemaTarget::Gemini => DefinitionFormat::Gemini { json_schema },
                SchemaTarget::Openai | SchemaTarget::OpenaiStrict => {
                    DefinitionFormat::ChatCompletions { strict }
                }
                SchemaTarget::Xai
                | SchemaTarget::Mistral
                | SchemaTarget::Llamacpp
                | SchemaTarget::P0 => DefinitionFormat::ChatCompletions { strict: false },
            },
        };
        (schema, format)
    }

    /// `Ok(())` when `name` is a valid tool name for the target, else the reason, naming the
    /// name, the target and its rule (the rule of its dialect: [`validate_tool_name`]).
    pub fn validate_tool_name(self, name: &str) -> std::result::Result<(), String> {
        validate_tool_name(name, self.schema_target(false), self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_wire_has_one_provider_describing_it() {
        for wire in Wire::ALL {
            let provider = Provider::of(wire);
            assert_eq!(provider.wire, wire);
            assert_eq!(Wire::parse(wire.as_str()), Ok(wire));
            // Its decoder reads its own wire: an empty body is "not a response of the <wire> wire".
            let mut decoder = provider.stream_decoder(DecoderOptions::default());
            assert!(decoder.finish().contains(wire.as_str()), "{wire:?}");
        }
    }

    #[test]
    fn unknown_wires_suggest_the_closest() {
        crate::suggest::assert_suggestions(
            |name| Wire::parse(name).unwrap_err().message,
            |name| format!("unknown wire \"{name}\": expected one of \"openai-chat\""),
            &[
                ("openai", Some("openai-chat")),
                ("OpenAI-Chat", Some("openai-chat")),
                ("responses", Some("openai-responses")),
                ("antropic", Some("anthropic")),
                ("gemeni", Some("gemini")),
                ("cohere", None),
            ],
        );
    }

    #[test]
    fn id_targets_are_named_by_rule_or_wire() {
        let cases = [
            ("strict", IdTarget::Strict),
            ("strict9", IdTarget::Strict9),
            ("openai-chat", IdTarget::Word),
            ("openai-responses", IdTarget::WordOrItem),
            ("anthropic", IdTarget::Word),
            ("gemini", IdTarget::Word),
            ("mistral", IdTarget::Strict9),
        ];
        for (name, expected) in cases {
            assert_eq!(id_target(name).unwrap(), expected, "{name:?}");
        }
        for name in ["Strict", "", "openai"] {
            assert!(id_target(name).is_err(), "{name:?}");
        }
    }

    #[test]
    fn unknown_id_targets_are_refused_naming_the_closest() {
        crate::suggest::assert_suggestions(
            |name| id_target(name).unwrap_err().message,
            |name| format!("unknown id target \"{name}\": expected a wire name (openai-chat, "),
            &[
                ("openai", Some("openai-chat")),
                ("strict8", Some("strict")),
                ("Anthropic", Some("anthropic")),
                ("cohere", None),
            ],
        );
    }

    #[test]
    fn unknown_wires_or_targets_are_named_with_the_closest_of_either() {
        crate::suggest::assert_suggestions(
            |name| DefinitionTarget::parse(name).unwrap_err(),
            |name| format!("unknown target \"{name}\": expected a wire (openai-chat, "),
            &[
                ("openai-response", Some("openai-responses")),
                ("claude", None),
                ("mistrall", Some("mistral")),
                ("p1", Some("p0")),
            ],
        );
    }

    #[test]
    fn definition_targets_map_to_a_dialect_and_a_shape() {
        use DefinitionFormat::*;
        use SchemaTarget as S;
        // (name, strict option, jsonSchema option, dialect, shape)
        let cases: &[(&str, bool, bool, S, DefinitionFormat)] = &[
            (
                "openai-chat",
                false,
                true,
                S::Openai,
                ChatCompletions { strict: false },
            ),
            // The strict option sends the strict form, `strict: true` included.
            (
                "openai-chat",
                true,
                false,
                S::OpenaiStrict,
                ChatCompletions { strict: true },
            ),
            (
                "openai-responses",
                true,
                false,
                S::OpenaiStrict,
                Responses { strict: true },
            ),
            (
                "openai-responses",
                false,
                false,
                S::Openai,
                Responses { strict: false },
            ),
            ("anthropic", true, true, S::Anthropic, Anthropic),
            (
                "gemini",
                false,
                true,
                S::Gemini,
                Gemini { json_schema: true },
            ),
            (
                "gemini",
                true,
                false,
                S::Gemini,
                Gemini { json_schema: false },
            ),
            (
                "mistral",
                true,
                false,
                S::Mistral,
                ChatCompletions { strict: false },
            ),
            (
                "openai",
                false,
                false,
                S::Openai,
                ChatCompletions { strict: false },
            ),
            (
                "openai",
                true,
                false,
                S::OpenaiStrict,
                ChatCompletions { strict: true },
            ),
            (
                "openai-strict",
                false,
                false,
                S::OpenaiStrict,
                ChatCompletions { strict: true },
            ),
            (
                "xai",
                true,
                false,
                S::Xai,
                ChatCompletions { strict: false },
            ),
            (
                "llamacpp",
                false,
                false,
                S::Llamacpp,
                ChatCompletions { strict: false },
            ),
            ("p0", false, false, S::P0, ChatCompletions { strict: false }),
        ];
        for (name, strict, json_schema, dialect, shape) in cases {
            let target = DefinitionTarget::parse(name).unwrap();
            assert_eq!(target.name(), *name);
            assert_eq!(
                target.definitions(*strict, *json_schema),
                (*dialect, *shape),
                "{name} strict={strict} jsonSchema={json_schema}"
            );
        }
        for name in ["OpenAI", "", "claude"] {
            assert!(DefinitionTarget::parse(name).is_err(), "{name:?}");
        }
    }

    #[test]
    fn tool_names_follow_the_rule_of_the_wires_dialect_named_as_the_caller_did() {
        let check = |name: &str, target: &str| {
            DefinitionTarget::parse(target)
                .unwrap()
                .validate_tool_name(name)
        };
        assert_eq!(check("2fa", "openai-chat"), Ok(()));
        assert_eq!(check("ns.get:weather", "gemini"), Ok(()));
        let reason = check("get.weather", "openai-responses").unwrap_err();
        assert_eq!(
            reason,
            r#""get.weather" breaks openai-responses's rule ^[a-zA-Z0-9_-]{1,64}$ (it contains ".")"#
        );
        let reason = check("2fa", "gemini").unwrap_err();
        assert!(reason.contains("gemini's rule"), "{reason}");
        assert!(check("abc", "mistral").is_ok());
    }
}
