// Generated from crates/toolwire-core/src/contract.rs by `npm run contract`: do not edit.

/** Actions from the engine: `[code, ...]`, what the driver must do, in order. (toolwire_core::dispatch::protocol::ActionCode) */
export declare const Action: {
  /** Emit `tool_execution_start`: batch, slot, args?, id?, name?, repeats?. */
  readonly START_EVENT: 0
  /** Run `beforeToolCall`: batch, slot, token, args, call. */
  readonly BEFORE_HOOK: 1
  /** Compute `concurrencyKey(args)`: batch, slot, token, args. */
  readonly CONCURRENCY_KEY: 2
  /** Run the tool: batch, slot, token, tool id, args?. */
  readonly RUN_TOOL: 3
  /** Abort the tool's signal: batch, slot, reason (`"timeout"` or `"cancelled"`). */
  readonly ABORT: 4
  /** Run `afterToolCall`: batch, slot, token, result. */
  readonly AFTER_HOOK: 5
  /** Run `onPersist`: batch, slot, token, result. */
  readonly PERSIST_HOOK: 6
  /** The call ended: batch, slot, result, view?, repeats?. */
  readonly END: 7
  /** The batch ended: batch. */
  readonly BATCH_DONE: 8
  /** Arm the timer: delay in ms, or -1 to disarm. */
  readonly TIMER: 9
  /** The call ended with its value as returned: batch, slot, startedAt, endedAt, durationMs, shape, text?, view?. */
  readonly END_AS_RETURNED: 10
  /** Emit `redaction_failed`: batch, slot. */
  readonly REDACTION_FAILED: 11
  /** Cut the batch's text further (`maxBatchChars`): batch, slot, blocks, truncations. */
  readonly TRIM: 12
  /** Emit `loop_warning`: batch, slot, count. */
  readonly LOOP_WARNING: 13
  /** Ask `onApproval(request)`: batch, slot, token, request. */
  readonly APPROVAL: 14
  /** Warn (`process.emitWarning`): batch, slot, message. */
  readonly WARNING: 15
}

/** Completions to the engine: `[batch, slot, token, kind]`, what a tool or hook did. (toolwire_core::dispatch::protocol::CompletionCode) */
export declare const Completion: {
  /** `beforeToolCall` returned this (`null` for nothing). */
  readonly BEFORE_ANSWERED: 0
  /** `beforeToolCall` threw or rejected: its message. */
  readonly BEFORE_FAILED: 1
  /** `concurrencyKey` returned this key (`null` for none). */
  readonly KEY: 2
  /** `concurrencyKey` threw: its message. */
  readonly KEY_FAILED: 3
  /** The tool returned this value. */
  readonly RETURNED: 4
  /** The tool returned `undefined`. */
  readonly RETURNED_NOTHING: 5
  /** The tool threw or rejected: its message. */
  readonly THREW: 6
  /** The tool's value has no JSON form: why. */
  readonly UNSERIALIZABLE: 7
  /** The tool is no longer registered in the driver. */
  readonly MISSING: 8
  /** `afterToolCall` returned this. */
  readonly AFTER_ANSWERED: 9
  /** `afterToolCall` threw or rejected: its message. */
  readonly AFTER_FAILED: 10
  /** `onPersist` returned this. */
  readonly PERSIST_ANSWERED: 11
  /** `onPersist` threw or rejected: its message. */
  readonly PERSIST_FAILED: 12
  /** The tool returned a value the driver had sanitized off the JavaScript thread: `[value, report]`. */
  readonly RETURNED_SANITIZED: 13
  /** `onApproval` answered this. */
  readonly APPROVAL_ANSWERED: 14
  /** `onApproval` threw or rejected: its message. */
  readonly APPROVAL_FAILED: 15
  /** The tool threw an error marked `retryable = false`: its message. */
  readonly THREW_NOT_RETRYABLE: 16
  /** The tool's value nests deeper than the engine takes. */
  readonly TOO_DEEP: 17
  /** `beforeToolCall` answered params holding a number JSON cannot carry: `[pointer, number]`. */
  readonly BEFORE_PARAMS_NOT_FINITE: 18
  /** What the tool sent was refused over a limit on the way: the message. */
  readonly OVER_LIMIT: 19
}

/** How a result as returned is rebuilt from the tool's value. (toolwire_core::output::OutputShape) */
export declare const OutputShape: {
  /** An AgentToolResult: `content` and `details` as returned. */
  readonly AGENT_RESULT: 0
  /** A string: one text block. */
  readonly TEXT: 1
  /** Another JSON value: its JSON text as one text block, and the value as `data`. */
  readonly JSON: 2
  /** `undefined`: the text `(no output)`. */
  readonly NOTHING: 3
}

/** How a call's arguments text is to be read: `[id, name, kind]`. (toolwire_core::dispatch::protocol::ArgumentKind) */
export declare const ArgumentKind: {
  /** The model's JSON text, crossing unescaped. */
  readonly TEXT: 0
  /** The JSON text of an object the caller passed. */
  readonly OBJECT: 1
  /** Why an object the caller passed could not be serialized. */
  readonly UNSERIALIZABLE: 2
  /** A call a StreamDecoder marked incomplete: refused with INCOMPLETE_ARGUMENTS, never run. */
  readonly INCOMPLETE: 3
  /** An object holding a number JSON cannot carry: `[pointer, number]`, refused at that path. */
  readonly NOT_FINITE: 4
}

/** The audit log file a record goes to. (toolwire_core::audit::LogFile) */
export declare const LogFile: {
  /** `calls.jsonl`: one line per call attempt. */
  readonly CALLS: 0
  /** `results.jsonl`: one line per result. */
  readonly RESULTS: 1
  /** `events.jsonl`: everything else that happened during the run. */
  readonly EVENTS: 2
}

/** What a decoder error is about: an `error` event's `kind`, an AssembledTurn's `errorKinds`. (toolwire_core::wire::decode_error::DecodeErrorKind) */
export declare const DecodeErrorKind: {
  /** The body is not a response of the wire (empty, an HTML page, plain text, another API). */
  readonly NOT_THE_WIRE: "not-the-wire"
  /** The stop reason says the turn holds tool calls, but none arrived. */
  readonly TOOL_CALLS_LOST: "tool-calls-lost"
  /** Two generations were spliced into one stream; the rest was ignored. */
  readonly SPLICED_STREAM: "spliced-stream"
  /** The stream ended before its terminal event (or a JSON array body before its `]`). */
  readonly STREAM_TRUNCATED: "stream-truncated"
  /** The provider reported an error mid-stream. */
  readonly PROVIDER_ERROR: "provider-error"
  /** The provider's content filter stopped the response. */
  readonly CONTENT_FILTER: "content-filter"
  /** The response failed (`response.failed`). */
  readonly RESPONSE_FAILED: "response-failed"
  /** The prompt was blocked. */
  readonly PROMPT_BLOCKED: "prompt-blocked"
  /** The model stopped abnormally (a finish reason that is an error). */
  readonly ABNORMAL_FINISH: "abnormal-finish"
  /** A tool call fragment arrived after the turn finished; ignored. */
  readonly FRAGMENT_AFTER_FINISH: "fragment-after-finish"
  /** A second response followed the finished one in the same body; ignored. */
  readonly SEVERAL_RESPONSES: "several-responses"
  /** The response holds more than one choice; only the first was read. */
  readonly SEVERAL_CHOICES: "several-choices"
  /** Arguments arrived for an output item never announced; ignored. */
  readonly ARGUMENTS_FOR_UNKNOWN_ITEM: "arguments-for-unknown-item"
  /** A function call part without a name (and no call streaming); ignored. */
  readonly NAMELESS_FUNCTION_CALL: "nameless-function-call"
  /** Streamed partial arguments that contradict each other; the later value won or was ignored. */
  readonly BAD_PARTIAL_ARGUMENTS: "bad-partial-arguments"
  /** An event or line too large; dropped. */
  readonly OVERSIZED_EVENT: "oversized-event"
  /** An event that is not valid JSON or has the wrong shape; skipped. */
  readonly UNREADABLE_EVENT: "unreadable-event"
  /** Input after `finish()`; ignored. */
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
/** The most retries a plan step may ask for. */
export declare const PLAN_MAX_RETRIES: 100
/** The retries a plan step may take when `maxRetries` is not given. */
export declare const PLAN_DEFAULT_MAX_RETRIES: 5
/** How many plan steps run at once when `maxConcurrency` is not given. */
export declare const PLAN_DEFAULT_MAX_CONCURRENCY: 4
