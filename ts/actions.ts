// The actions the engine hands the driver, each a JSON array whose first element is its code
// (toolwire_core::dispatch::protocol, whose module documentation is the table these follow).

import type { Action, OutputShape } from './protocol.generated.js'
import type { ApprovalRequest, SanitizeReport, ToolCall, ToolResult } from './types.js'

/** What events carry instead of a result where they differ (toolwire_core::dispatch::view). */
export interface ResultView {
  content?: ToolResult['content']
  details?: unknown
  detailsWithheld?: true
  data?: unknown
  dataWithheld?: true
  args?: unknown
}

type Batch = number
type Slot = number
type Token = number

/** Emit `tool_execution_start`; `repeats`: the slot of the earlier call with this id. */
export type StartEvent = [code: typeof Action.START_EVENT, batch: Batch, slot: Slot, args?: unknown, id?: string | null, name?: string | null, repeats?: Slot]
/** Run `beforeToolCall`. */
export type BeforeHook = [code: typeof Action.BEFORE_HOOK, batch: Batch, slot: Slot, token: Token, args: unknown, call: ToolCall]
/** Compute `concurrencyKey(args)`. */
export type ConcurrencyKey = [code: typeof Action.CONCURRENCY_KEY, batch: Batch, slot: Slot, token: Token, args: unknown]
/** Run the tool registered as `tool`; `args` only when they are not the call's own. */
export type RunTool = [code: typeof Action.RUN_TOOL, batch: Batch, slot: Slot, token: Token, tool: number, args?: unknown]
/** Abort the tool's signal. */
export type Abort = [code: typeof Action.ABORT, batch: Batch, slot: Slot, reason: 'timeout' | 'cancelled']
/** Run `afterToolCall`. */
export type AfterHook = [code: typeof Action.AFTER_HOOK, batch: Batch, slot: Slot, token: Token, result: ToolResult]
/** Run `onPersist`. */
export type PersistHook = [code: typeof Action.PERSIST_HOOK, batch: Batch, slot: Slot, token: Token, result: ToolResult]
/** The call ended; `view`: what its events show instead. */
export type End = [code: typeof Action.END, batch: Batch, slot: Slot, result: ToolResult, view?: ResultView | null, repeats?: Slot]
/** The batch ended. */
export type BatchDone = [code: typeof Action.BATCH_DONE, batch: Batch]
/** Arm the timer (`-1`: disarm). */
export type Timer = [code: typeof Action.TIMER, delayMs: number]
/** The call ended with its value as returned: the driver rebuilds the result from the value it holds. */
export type EndAsReturned = [
  code: typeof Action.END_AS_RETURNED,
  batch: Batch,
  slot: Slot,
  startedAt: number,
  endedAt: number,
  durationMs: number,
  shape: (typeof OutputShape)[keyof typeof OutputShape],
  text: string | null,
  view?: ResultView,
]
/** Emit `redaction_failed`. */
export type RedactionFailed = [code: typeof Action.REDACTION_FAILED, batch: Batch, slot: Slot]
/** Cut the batch's text further (`maxBatchChars`): these blocks of the result become these texts. */
export type Trim = [code: typeof Action.TRIM, batch: Batch, slot: Slot, blocks: [index: number, text: string][], truncations: SanitizeReport['truncated']]
/** Emit `loop_warning`. */
export type LoopWarning = [code: typeof Action.LOOP_WARNING, batch: Batch, slot: Slot, count: number]
/** Ask `onApproval(request)`. */
export type Approval = [code: typeof Action.APPROVAL, batch: Batch, slot: Slot, token: Token, request: ApprovalRequest]
/** Warn (`process.emitWarning`). */
export type Warning = [code: typeof Action.WARNING, batch: Batch, slot: Slot, message: string]

/** An action of the engine. */
export type EngineAction =
  | StartEvent
  | BeforeHook
  | ConcurrencyKey
  | RunTool
  | Abort
  | AfterHook
  | PersistHook
  | End
  | BatchDone
  | Timer
  | EndAsReturned
  | RedactionFailed
  | Trim
  | LoopWarning
  | Approval
  | Warning

/** An action that waits for its completion: its `[code, batch, slot, token]` head. */
export type Awaited = BeforeHook | ConcurrencyKey | RunTool | AfterHook | PersistHook | Approval
