// Generated from crates/toolwire-core/src/contract.rs by `npm run contract`: do not edit.

/** Actions from the engine: `[code, ...]`, what the driver must do, in order. (toolwire_core::dispatch::protocol::ActionCode) */
export declare const Action: {
  readonly START_EVENT: 0
  readonly BEFORE_HOOK: 1
  readonly CONCURRENCY_KEY: 2
  readonly RUN_TOOL: 3
  readonly ABORT: 4
  readonly AFTER_HOOK: 5
  readonly PERSIST_HOOK: 6
  readonly END: 7
  readonly BATCH_DONE: 8
  readonly TIMER: 9
  readonly END_AS_RETURNED: 10
  readonly REDACTION_FAILED: 11
  readonly TRIM: 12
  readonly LOOP_WARNING: 13
  readonly APPROVAL: 14
  readonly WARNING: 15
}

/** Completions to the engine: `[batch, slot, token, kind]`, what a tool or hook did. (toolwire_core::dispatch::protocol::CompletionCode) */
export declare const Completion: {
  readonly BEFORE_ANSWERED: 0
  readonly BEFORE_FAILED: 1
  readonly KEY: 2
  readonly KEY_FAILED: 3
  readonly RETURNED: 4
  readonly RETURNED_NOTHING: 5
  readonly THREW: 6
  readonly UNSERIALIZABLE: 7
  readonly MISSING: 8
  readonly AFTER_ANSWERED: 9
  readonly AFTER_FAILED: 10
  readonly PERSIST_ANSWERED: 11
  readonly PERSIST_FAILED: 12
  readonly RETURNED_SANITIZED: 13
  readonly APPROVAL_ANSWERED: 14
  readonly APPROVAL_FAILED: 15
  readonly THREW_NOT_RETRYABLE: 16
  readonly TOO_DEEP: 17
  readonly BEFORE_PARAMS_NOT_FINITE: 18
  readonly OVER_LIMIT: 19
}

/** How a result as returned is rebuilt from the tool's value. (toolwire_core::output::OutputShape) */
export declare const OutputShape: {
  readonly AGENT_RESULT: 0
  readonly TEXT: 1
  readonly JSON: 2
  readonly NOTHING: 3
}

/** How a call's arguments text is to be read: `[id, name, kind]`. (toolwire_core::dispatch::protocol::ArgumentKind) */
export declare const ArgumentKind: {
  readonly TEXT: 0
  readonly OBJECT: 1
  readonly UNSERIALIZABLE: 2
  readonly INCOMPLETE: 3
  readonly NOT_FINITE: 4
}

/** The audit log file a record goes to. (toolwire_core::audit::LogFile) */
export declare const LogFile: {
  readonly CALLS: 0
  readonly RESULTS: 1
  readonly EVENTS: 2
}

/** What a decoder error is about: an `error` event's `kind`, an AssembledTurn's `errorKinds`. (toolwire_core::wire::decode_error::DecodeErrorKind) */
export declare const DecodeErrorKind: {
  readonly NOT_THE_WIRE: "not-the-wire"
  readonly TOOL_CALLS_LOST: "tool-calls-lost"
  readonly SPLICED_STREAM: "spliced-stream"
  readonly STREAM_TRUNCATED: "stream-truncated"
  readonly PROVIDER_ERROR: "provider-error"
  readonly CONTENT_FILTER: "content-filter"
  readonly RESPONSE_FAILED: "response-failed"
  readonly PROMPT_BLOCKED: "prompt-blocked"
  readonly ABNORMAL_FINISH: "abnormal-finish"
  readonly FRAGMENT_AFTER_FINISH: "fragment-after-finish"
  readonly SEVERAL_RESPONSES: "several-responses"
  readonly SEVERAL_CHOICES: "several-choices"
  readonly ARGUMENTS_FOR_UNKNOWN_ITEM: "arguments-for-unknown-item"
  readonly NAMELESS_FUNCTION_CALL: "nameless-function-call"
  readonly BAD_PARTIAL_ARGUMENTS: "bad-partial-arguments"
  readonly OVERSIZED_EVENT: "oversized-event"
  readonly UNREADABLE_EVENT: "unreadable-event"
  readonly INPUT_AFTER_FINISH: "input-after-finish"
}

/** The codes a thrown ToolwireError and a failed result carry (toolwire_core::ErrorCode). */
export declare const ERROR_CODES: readonly [
  'VALIDATION_ERROR',
  'INVALID_JSON',
  'INCOMPLETE_ARGUMENTS',
  'NOT_FOUND',
  'POLICY_DENIED',
  'APPROVAL_REQUIRED',
  'BLOCKED',
  'TIMEOUT',
  'CANCELLED',
  'EXECUTION_ERROR',
  'REDACTION_FAILED',
  'LIMIT_EXCEEDED',
  'CONFLICT',
  'PRECONDITION_FAILED',
  'PLAN_INVALID',
  'INTERNAL_ERROR',
]

/** The largest batch id a driver may choose (batch ids cross as 32-bit numbers). */
export declare const MAX_BATCH_ID: 4294967295
/** How deep a value handed to the engine may nest (deeper ones are refused). */
export declare const MAX_VALUE_DEPTH: 64
/** The most of a value a message quotes. */
export declare const MAX_QUOTED_BYTES: 1024
/** How far past a cut secrets are searched for, in characters. */
export declare const SECRET_WINDOW: 4096
/** The per-result budget of characters when none is given. */
export declare const DEFAULT_MAX_RESULT_CHARS: 32768
/** The text of a tool that returned nothing. */
export declare const NO_OUTPUT: "(no output)"
/** The keys of a result that encodeResults reads; the driver sends only these. */
export declare const ENCODED_RESULT_KEYS: readonly ["callId","toolCallId","tool","toolName","isError","ok","status","content","error"]
/** The most retries a plan step may ask for. */
export declare const PLAN_MAX_RETRIES: 100
/** The retries a plan step may take when `maxRetries` is not given. */
export declare const PLAN_DEFAULT_MAX_RETRIES: 5
/** How many plan steps run at once when `maxConcurrency` is not given. */
export declare const PLAN_DEFAULT_MAX_CONCURRENCY: 4
