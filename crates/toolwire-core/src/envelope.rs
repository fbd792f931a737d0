//! The canonical envelopes: the call given to a tool, the result that comes back, and the events
//! of a call's execution. Everything else (provider messages, invocation records) is a projection
//! of these.

use std::borrow::Cow;

use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::{Deserialize, Serialize};
use serde_json::Value;

pub use crate::content::{ContentBlock, ShownBlock};
use crate::error::ErrorCode;
pub use crate::error::ToolError;
use crate::params::Normalization;
use crate::sanitize::SanitizeReport;

/// How a call ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum ToolStatus {
    /// The tool ran and succeeded.
    Ok,
    /// The call failed: bad arguments, unknown tool, or the tool failed.
    Error,
    /// The call passed its deadline.
    Timeout,
    /// The call was cancelled.
    Cancelled,
    /// The call was skipped (plans).
    Skipped,
    /// A hook or policy blocked the call.
    Blocked,
    /// The call waits for an approval.
    Pending,
}

/// How risky a tool is, as declared at registration.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum RiskLevel {
    /// Reads only, no side effects.
    Low,
    /// Side effects that are easy to undo.
    Medium,
    /// Side effects that are hard to undo.
    High,
    /// Irreversible or security-relevant.
    Critical,
}

/// The call as the executor hands it to a tool and to hooks: the arguments as they will run,
/// their hash, the deadline and what the tool declared about itself.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ToolCall {
    /// The model's id for this call.
    pub call_id: String,
    /// The run this call belongs to, when the caller named one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run_id: Option<String>,
    /// The plan step this call executes, for plans.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub step_id: Option<String>,
    /// The `foreach` loop of a plan step the call is an iteration of.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub loop_id: Option<String>,
    /// The confirmation the plan ran under.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub confirmation_id: Option<String>,
    /// The tool's registered name.
    pub tool: String,
    /// 1 for the first attempt.
    pub attempt: u32,
    /// The validated arguments.
    pub args: Value,
    /// A stable hash of the arguments: the SHA-256 of their canonical JSON (keys sorted, no
    /// whitespace), as 64 lowercase hex digits; the audit log's `argsHash` is the same.
    pub args_hash: String,
    /// The deadline of each stage of this call, in milliseconds.
    pub timeout_ms: u64,
    /// Whether the call can be cancelled (its tool receives an AbortSignal).
    pub cancellable: bool,
    /// When the call was created, in milliseconds since the Unix epoch.
    pub created_at: u64,
    /// The tool's declared risk level.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub risk_level: Option<RiskLevel>,
    /// The tool's declared category.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub category: Option<String>,
}

/// The result of one call: exactly one per call, whatever happened.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ToolResult {
    /// The model's id for the call.
    pub call_id: String,
    /// The run this call belongs to, when the caller named one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run_id: Option<String>,
    /// The plan step, for plans.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub step_id: Option<String>,
    /// The `foreach` loop of a plan step the call is an iteration of.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub loop_id: Option<String>,
    /// The confirmation the plan ran under.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub confirmation_id: Option<String>,
    /// The tool name the model asked for.
    pub tool: String,
    /// The arguments as run (after any hook replaced them); `null` when they were not valid JSON.
    pub args: Value,
    /// 1 for the first attempt.
    pub attempt: u32,
    /// How the call ended.
    pub status: ToolStatus,
    /// `status == ok`.
    pub ok: bool,
    /// What the model reads. Every error result carries a text block saying what went wrong.
    pub content: Vec<ContentBlock>,
    /// Structured output for the UI and logs (an AgentToolResult's `details`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub details: Option<Value>,
    /// The JSON value a tool returned, when it returned a plain value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
    /// Why the call failed, when it did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<ToolError>,
    /// When the call started (or was refused), in milliseconds since the Unix epoch.
    pub started_at: u64,
    /// When the call ended, in milliseconds since the Unix epoch.
    pub ended_at: u64,
    /// How long the tool ran, in milliseconds rounded to whole microseconds (0 for calls that
    /// never ran).
    pub duration_ms: f64,
    /// What parameter normalization changed in the model's arguments (renamed or coerced
    /// parameters), when it changed anything.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub normalization: Option<Normalization>,
    /// What sanitization changed: text cut, secrets scrubbed, images fitted. Absent when it
    /// changed nothing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sanitization: Option<SanitizeReport>,
    /// The paths the tool reports it created, modified, deleted or renamed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub effects: Option<Effects>,
    /// The tool asked the agent loop to stop after this batch (`{ content, terminate: true }`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub terminate: Option<bool>,
    /// Why the audit log this result belongs to could not be written (its directory could not
    /// be opened, or a write failed), when it could not; an `audit_failed` event says so too.
    /// Set by the driver, which writes the log.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub audit_failed: Option<String>,
}

/// What a tool changed on disk (or elsewhere), as it reports it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Effects {
    /// Paths created.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub created: Vec<String>,
    /// Paths modified.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub modified: Vec<String>,
    /// Paths deleted.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub deleted: Vec<String>,
    /// Paths renamed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub renamed: Vec<Renamed>,
}

/// One renamed path.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Renamed {
    /// The old path.
    pub from: String,
    /// The new path.
    pub to: String,
}

impl ToolResult {
    /// A successful first attempt with no output yet; the pipeline fills it in.
    pub fn ok(call_id: String, tool: String, args: Value) -> Self {
        ToolResult {
            call_id,
            run_id: None,
            step_id: None,
            loop_id: None,
            confirmation_id: None,
            tool,
            args,
            attempt: 1,
            status: ToolStatus::Ok,
            ok: true,
            content: Vec::new(),
            details: None,
            data: None,
            error: None,
            started_at: 0,
            ended_at: 0,
            duration_ms: 0.0,
            normalization: None,
            sanitization: None,
            effects: None,
            terminate: None,
            audit_failed: None,
        }
    }

    /// Turns this result into a failure: status, error and a content text saying what went wrong.
    pub fn fail(&mut self, status: ToolStatus, error: ToolError) {
        self.status = status;
        self.ok = false;
        self.content = vec![ContentBlock::text(error.message.clone())];
        self.error = Some(error);
    }
}

/// The events of a call's execution, in the shape pi-agent-core emits them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(
    tag = "type",
    rename_all = "snake_case",
    rename_all_fields = "camelCase"
)]
pub enum ToolExecutionEvent {
    /// A call begins; `args` is `null` when the arguments were not valid JSON.
    ToolExecutionStart {
        /// The model's id for the call.
        tool_call_id: String,
        /// The tool name the model asked for.
        tool_name: String,
        /// The parsed arguments.
        args: Value,
    },
    /// A running tool reported progress.
    ToolExecutionUpdate {
        /// The model's id for the call.
        tool_call_id: String,
        /// The tool name.
        tool_name: String,
        /// What the tool passed to `onUpdate`.
        partial_result: Value,
    },
    /// A call ended; exactly one per call, after its start.
    ToolExecutionEnd {
        /// The model's id for the call.
        tool_call_id: String,
        /// The tool name the model asked for.
        tool_name: String,
        /// The final result, as events show it ([`ShownResult`]).
        #[schemars(with = "ShownResult")]
        result: Box<ToolResult>,
        /// `!result.ok`.
        is_error: bool,
    },
    /// Strict redaction withheld a result's details from the events and the audit log because
    /// its tool declares no `redaction` allowlist; the call itself is unaffected.
    RedactionFailed {
        /// The model's id for the call.
        tool_call_id: String,
        /// The tool name.
        tool_name: String,
        /// Always `REDACTION_FAILED`.
        #[schemars(schema_with = "redaction_failed_code")]
        code: ErrorCode,
    },
    /// The dispatch's audit log could not be written: once per dispatch, with the first call
    /// whose record did not reach it (every such result carries `auditFailed`). Emitted by the
    /// driver, which writes the log.
    AuditFailed {
        /// The model's id for the call.
        tool_call_id: String,
        /// The tool name.
        tool_name: String,
        /// The dispatch's run id (`null` when it has none).
        run_id: Option<String>,
        /// Why the log could not be written.
        message: String,
    },
    /// The run made this call (same tool, same canonical arguments) `count` times; at the
    /// `loopDetection.blockAt` count it is blocked.
    LoopWarning {
        /// The model's id for the call.
        tool_call_id: String,
        /// The tool name.
        tool_name: String,
        /// How many times the run made the call, this one included.
        count: u32,
    },
}

/// The schema of a `redaction_failed` event's `code`: always `REDACTION_FAILED`.
fn redaction_failed_code(_: &mut SchemaGenerator) -> Schema {
    schemars::json_schema!({
        "type": "string",
        "const": ErrorCode::RedactionFailed.to_string(),
        "description": "Always `REDACTION_FAILED`.",
    })
}

/// A result as events and audit records show it (see [`crate::dispatch::view`]): a
/// [`ToolResult`] whose content is [`ShownBlock`]s (text cut at `eventTextChars`, an image's
/// metadata in place of its data), with details and data reduced to the tool's redaction
/// allowlist or left out. Declares the schema of a `tool_execution_end` event's `result`.
pub struct ShownResult;

impl JsonSchema for ShownResult {
    fn schema_name() -> Cow<'static, str> {
        "ShownToolResult".into()
    }

    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        let mut schema = ToolResult::json_schema(generator);
        let items = generator.subschema_for::<ShownBlock>();
        if let Some(content) = schema
            .get_mut("properties")
            .and_then(|properties| properties.get_mut("content"))
        {
            *content = serde_json::json!({
                "type": "array",
                "items": items,
                "description": "What the model reads, as events show it: text cut at `eventTextChars`, an image's metadata in place of its data.",
            });
        }
        schema.insert(
            "description".into(),
            "A result as events show it: its content as ShownBlocks, details and data reduced to the tool's redaction allowlist or left out.".into(),
        );
        schema
    }
}

/// `argsHash`: the SHA-256 of a value's canonical JSON (object keys sorted at every level, no
/// whitespace), as 64 lowercase hex digits. The one algorithm of every `argsHash`, on a
/// [`ToolCall`] and in the audit log (see [`crate::canonical::args_sha256`]).
pub fn args_hash(args: &Value) -> String {
    crate::canonical::args_sha256(args)
}

/// A duration in milliseconds, rounded to whole microseconds (`1.234`, never
/// `1.2340000000000002`): the `durationMs` of a result.
pub fn duration_ms(duration: std::time::Duration) -> f64 {
    // u128 microseconds fit an f64 exactly for any duration shorter than 285 years.
    duration.as_micros() as f64 / 1000.0
}

/// What opens the text of an error result on a wire without an error flag, so the model reads
/// a failure as one: `Error: ` as the OpenAI Agents SDK, LangChain's `ToolNode` and OpenAI's own
/// examples write a failed call's output.
pub const ERROR_TEXT_PREFIX: &str = "Error: ";

/// An error result's text as a wire without an error flag carries it: `text` after
/// [`ERROR_TEXT_PREFIX`], unless it already starts with `Error:` (a thrown `Error: x` is not
/// written `Error: Error: x`); an empty text is `Error: the tool failed without a message`.
pub fn marked_error_text(text: &str) -> String {
    if text.starts_with(ERROR_TEXT_PREFIX.trim_end()) {
        text.to_owned()
    } else if text.is_empty() {
        format!("{ERROR_TEXT_PREFIX}the tool failed without a message")
    } else {
        format!("{ERROR_TEXT_PREFIX}{text}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn args_hash_ignores_key_order_but_not_values() {
        let a = args_hash(&json!({"a": 1, "b": [1, {"c": "x"}]}));
        let b = args_hash(&json!({"b": [1, {"c": "x"}], "a": 1}));
        let c = args_hash(&json!({"a": 1, "b": [1, {"c": "y"}]}));
        assert_eq!(a, b);
        assert_ne!(a, c);
    }

    #[test]
    fn args_hash_separates_structure_from_strings() {
        assert_ne!(args_hash(&json!(["a,b"])), args_hash(&json!(["a", "b"])));
        assert_ne!(args_hash(&json!({"a": "1"})), args_hash(&json!({"a": 1})));
    }

    #[test]
    fn args_hash_is_the_audit_logs_argshash() {
        // The digests themselves are checked against sha256sum in crate::canonical.
        for args in [
            json!({}),
            json!({"b": 1, "a": [true, null, "x"]}),
            json!([1.5, "é"]),
        ] {
            let hash = args_hash(&args);
            assert_eq!(hash, crate::canonical::args_sha256(&args), "{args}");
            assert_eq!(hash.len(), 64);
            let call = json!({"callId": "c", "args": args});
            let line =
                crate::audit::record::stamp(crate::audit::LogFile::Calls, &call, 1, 1).unwrap();
            assert_eq!(line["argsHash"], hash, "the audit log's argsHash of {args}");
        }
    }

    #[test]
    fn durations_are_rounded_to_microseconds() {
        use std::time::Duration;
        let cases = [
            (Duration::from_nanos(0), 0.0, "0"),
            (Duration::from_nanos(999), 0.0, "0"),
            (Duration::from_nanos(1_234_567), 1.234, "1.234"),
            (Duration::from_nanos(7_100_000), 7.1, "7.1"),
            (Duration::from_nanos(2_000_001_999), 2000.001, "2000.001"),
            (Duration::from_secs(86_400), 86_400_000.0, "86400000"),
        ];
        for (duration, expected, json) in cases {
            let ms = duration_ms(duration);
            assert_eq!(ms, expected, "{duration:?}");
            // The JSON form (what JavaScript reads) carries no float noise.
            let text = serde_json::to_string(&ms).unwrap();
            assert_eq!(text.trim_end_matches(".0"), json, "{duration:?}");
        }
        // What the old `as_secs_f64() * 1000.0` gave, for the record.
        let noisy = Duration::from_nanos(7_100_000).as_secs_f64() * 1000.0;
        assert_eq!(serde_json::to_string(&noisy).unwrap(), "7.1000000000000005");
    }

    #[test]
    fn events_use_pi_field_names() {
        let event = ToolExecutionEvent::ToolExecutionStart {
            tool_call_id: "c1".into(),
            tool_name: "read".into(),
            args: json!({"path": "a"}),
        };
        assert_eq!(
            serde_json::to_value(&event).unwrap(),
            json!({"type": "tool_execution_start", "toolCallId": "c1", "toolName": "read", "args": {"path": "a"}})
        );
    }

    #[test]
    fn content_blocks_use_pi_shapes() {
        let image = ContentBlock::Image {
            data: "AAAA".into(),
            mime_type: "image/png".into(),
        };
        assert_eq!(
            serde_json::to_value(&image).unwrap(),
            json!({"type": "image", "data": "AAAA", "mimeType": "image/png"})
        );
        assert_eq!(
            serde_json::to_value(ContentBlock::text("hi")).unwrap(),
            json!({"type": "text", "text": "hi"})
        );
    }

    #[test]
    fn fail_replaces_content_with_the_message() {
        let mut result = ToolResult::ok("c".into(), "t".into(), json!({}));
        result.content = vec![ContentBlock::text("secret output")];
        result.fail(
            ToolStatus::Timeout,
            ToolError::new(ErrorCode::Timeout, "too slow"),
        );
        assert!(!result.ok);
        assert_eq!(result.content, vec![ContentBlock::text("too slow")]);
        assert_eq!(result.error.as_ref().unwrap().retryable, Some(true));
    }
}
