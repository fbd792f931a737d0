// Generated from crates/toolwire-core/src/contract.rs by `npm run contract`: do not edit.
'use strict'

/** Actions from the engine: `[code, ...]`, what the driver must do, in order. (toolwire_core::dispatch::protocol::ActionCode) */
const Action = Object.freeze({
  /** Emit `tool_execution_start`: batch, slot, args?, id?, name?, repeats?. */
  START_EVENT: 0,
  /** Run `beforeToolCall`: batch, slot, token, args, call. */
  BEFORE_HOOK: 1,
  /** Compute `concurrencyKey(args)`: batch, slot, token, args. */
  CONCURRENCY_KEY: 2,
  /** Run the tool: batch, slot, token, tool id, args?. */
  RUN_TOOL: 3,
  /** Abort the tool's signal: batch, slot, reason (`"timeout"` or `"cancelled"`). */
  ABORT: 4,
  /** Run `afterToolCall`: batch, slot, token, result. */
  AFTER_HOOK: 5,
  /** Run `onPersist`: batch, slot, token, result. */
  PERSIST_HOOK: 6,
  /** The call ended: batch, slot, result, view?, repeats?. */
  END: 7,
  /** The batch ended: batch. */
  BATCH_DONE: 8,
  /** Arm the timer: delay in ms, or -1 to disarm. */
  TIMER: 9,
  /** The call ended with its value as returned: batch, slot, startedAt, endedAt, durationMs, shape, text?, view?. */
  END_AS_RETURNED: 10,
  /** Emit `redaction_failed`: batch, slot. */
  REDACTION_FAILED: 11,
  /** Cut the batch's text further (`maxBatchChars`): batch, slot, blocks, truncations. */
  TRIM: 12,
  /** Emit `loop_warning`: batch, slot, count. */
  LOOP_WARNING: 13,
  /** Ask `onApproval(request)`: batch, slot, token, request. */
  APPROVAL: 14,
  /** Warn (`process.emitWarning`): batch, slot, message. */
  WARNING: 15,
})

/** Completions to the engine: `[batch, slot, token, kind]`, what a tool or hook did. (toolwire_core::dispatch::protocol::CompletionCode) */
const Completion = Object.freeze({
  /** `beforeToolCall` returned this (`null` for nothing). */
  BEFORE_ANSWERED: 0,
  /** `beforeToolCall` threw or rejected: its message. */
  BEFORE_FAILED: 1,
  /** `concurrencyKey` returned this key (`null` for none). */
  KEY: 2,
  /** `concurrencyKey` threw: its message. */
  KEY_FAILED: 3,
  /** The tool returned this value. */
  RETURNED: 4,
  /** The tool returned `undefined`. */
  RETURNED_NOTHING: 5,
  /** The tool threw or rejected: its message. */
  THREW: 6,
  /** The tool's value has no JSON form: why. */
  UNSERIALIZABLE: 7,
  /** The tool is no longer registered in the driver. */
  MISSING: 8,
  /** `afterToolCall` returned this. */
  AFTER_ANSWERED: 9,
  /** `afterToolCall` threw or rejected: its message. */
  AFTER_FAILED: 10,
  /** `onPersist` returned this. */
  PERSIST_ANSWERED: 11,
  /** `onPersist` threw or rejected: its message. */
  PERSIST_FAILED: 12,
  /** The tool returned a value the driver had sanitized off the JavaScript thread: `[value, report]`. */
  RETURNED_SANITIZED: 13,
  /** `onApproval` answered this. */
  APPROVAL_ANSWERED: 14,
  /** `onApproval` threw or rejected: its message. */
  APPROVAL_FAILED: 15,
  /** The tool threw an error marked `retryable = false`: its message. */
  THREW_NOT_RETRYABLE: 16,
  /** The tool's value nests deeper than the engine takes. */
  TOO_DEEP: 17,
  /** `beforeToolCall` answered params holding a number JSON cannot carry: `[pointer, number]`. */
  BEFORE_PARAMS_NOT_FINITE: 18,
  /** What the tool sent was refused over a limit on the way: the message. */
  OVER_LIMIT: 19,
})

/** How a result as returned is rebuilt from the tool's value. (toolwire_core::output::OutputShape) */
const OutputShape = Object.freeze({
  /** An AgentToolResult: `content` and `details` as returned. */
  AGENT_RESULT: 0,
  /** A string: one text block. */
  TEXT: 1,
  /** Another JSON value: its JSON text as one text block, and the value as `data`. */
  JSON: 2,
  /** `undefined`: the text `(no output)`. */
  NOTHING: 3,
})

/** How a call's arguments text is to be read: `[id, name, kind]`. (toolwire_core::dispatch::protocol::ArgumentKind) */
const ArgumentKind = Object.freeze({
  /** The model's JSON text, crossing unescaped. */
  TEXT: 0,
  /** The JSON text of an object the caller passed. */
  OBJECT: 1,
  /** Why an object the caller passed could not be serialized. */
  UNSERIALIZABLE: 2,
  /** A call a StreamDecoder marked incomplete: refused with INCOMPLETE_ARGUMENTS, never run. */
  INCOMPLETE: 3,
  /** An object holding a number JSON cannot carry: `[pointer, number]`, refused at that path. */
  NOT_FINITE: 4,
})

/** The audit log file a record goes to. (toolwire_core::audit::LogFile) */
const LogFile = Object.freeze({
  /** `calls.jsonl`: one line per call attempt. */
  CALLS: 0,
  /** `results.jsonl`: one line per result. */
  RESULTS: 1,
  /** `events.jsonl`: everything else that happened during the run. */
  EVENTS: 2,
})

/** What a decoder error is about: an `error` event's `kind`, an AssembledTurn's `errorKinds`. (toolwire_core::wire::decode_error::DecodeErrorKind) */
const DecodeErrorKind = Object.freeze({
  /** The body is not a response of the wire (empty, an HTML page, plain text, another API). */
  NOT_THE_WIRE: "not-the-wire",
  /** The stop reason says the turn holds tool calls, but none arrived. */
  TOOL_CALLS_LOST: "tool-calls-lost",
  /** Two generations were spliced into one stream; the rest was ignored. */
  SPLICED_STREAM: "spliced-stream",
  /** The stream ended before its terminal event (or a JSON array body before its `]`). */
  STREAM_TRUNCATED: "stream-truncated",
  /** The provider reported an error mid-stream. */
  PROVIDER_ERROR: "provider-error",
  /** The provider's content filter stopped the response. */
  CONTENT_FILTER: "content-filter",
  /** The response failed (`response.failed`). */
  RESPONSE_FAILED: "response-failed",
  /** The prompt was blocked. */
  PROMPT_BLOCKED: "prompt-blocked",
  /** The model stopped abnormally (a finish reason that is an error). */
  ABNORMAL_FINISH: "abnormal-finish",
  /** A tool call fragment arrived after the turn finished; ignored. */
  FRAGMENT_AFTER_FINISH: "fragment-after-finish",
  /** A second response followed the finished one in the same body; ignored. */
  SEVERAL_RESPONSES: "several-responses",
  /** The response holds more than one choice; only the first was read. */
  SEVERAL_CHOICES: "several-choices",
  /** Arguments arrived for an output item never announced; ignored. */
  ARGUMENTS_FOR_UNKNOWN_ITEM: "arguments-for-unknown-item",
  /** A function call part without a name (and no call streaming); ignored. */
  NAMELESS_FUNCTION_CALL: "nameless-function-call",
  /** Streamed partial arguments that contradict each other; the later value won or was ignored. */
  BAD_PARTIAL_ARGUMENTS: "bad-partial-arguments",
  /** An event or line too large; dropped. */
  OVERSIZED_EVENT: "oversized-event",
  /** An event that is not valid JSON or has the wrong shape; skipped. */
  UNREADABLE_EVENT: "unreadable-event",
  /** Input after `finish()`; ignored. */
  INPUT_AFTER_FINISH: "input-after-finish",
})

/** The codes a thrown ToolwireError and a failed result carry (toolwire_core::ErrorCode). */
const ERROR_CODES = Object.freeze([
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
])

/** The largest batch id a driver may choose (batch ids cross as 32-bit numbers). */
const MAX_BATCH_ID = 4294967295
/** How deep a value handed to the engine may nest (deeper ones are refused). */
const MAX_VALUE_DEPTH = 64
/** The most of a value a message quotes. */
const MAX_QUOTED_BYTES = 1024
/** How far past a cut secrets are searched for, in characters. */
const SECRET_WINDOW = 4096
/** The per-result budget of characters when none is given. */
const DEFAULT_MAX_RESULT_CHARS = 32768
/** The text of a tool that returned nothing. */
const NO_OUTPUT = "(no output)"
/** The most retries a plan step may ask for. */
const PLAN_MAX_RETRIES = 100
/** The retries a plan step may take when `maxRetries` is not given. */
const PLAN_DEFAULT_MAX_RETRIES = 5
/** How many plan steps run at once when `maxConcurrency` is not given. */
const PLAN_DEFAULT_MAX_CONCURRENCY = 4

module.exports = { Action, Completion, OutputShape, ArgumentKind, LogFile, DecodeErrorKind, ERROR_CODES, MAX_BATCH_ID, MAX_VALUE_DEPTH, MAX_QUOTED_BYTES, SECRET_WINDOW, DEFAULT_MAX_RESULT_CHARS, NO_OUTPUT, PLAN_MAX_RETRIES, PLAN_DEFAULT_MAX_RETRIES, PLAN_DEFAULT_MAX_CONCURRENCY }
