// Results the driver builds or changes itself: a successful result rebuilt from the value the
// tool returned (the engine sends only what it decided), the view events show, a cut further.

import { recordArgs, type Batch } from './batch.js'
import { wallNow } from './clock.js'
import { own, ownOptions } from './common.js'
import type { ReadCall } from './encode-calls.js'
import { NO_OUTPUT, OutputShape, type EndAsReturnedAction, type TrimAction } from './protocol.generated.js'
import type { AgentToolResult, ContentBlock, ShownToolResult, ToolCall, ToolResult } from './types.js'
import type { ResultView } from './view.js'

/** The head of a result or a call record. */
type Marked = Pick<ToolResult, 'callId' | 'runId' | 'stepId' | 'loopId' | 'confirmationId' | 'tool'>

/** `{ callId, runId?, stepId?, loopId?, confirmationId?, tool }`: the head of a result or a call record, in the engine's key order. */
function markedRecord(batch: Batch, call: ReadCall): Marked {
  const record: Partial<Marked> = { callId: call.id }
  if (batch.runId !== undefined) record.runId = batch.runId
  if (call.stepId !== undefined) record.stepId = call.stepId
  if (call.loopId !== undefined) record.loopId = call.loopId
  if (call.confirmationId !== undefined) record.confirmationId = call.confirmationId
  record.tool = call.name
  return record as Marked
}

/** The audit record of a call as it starts (see {@link callRecord}). */
export type CallRecord = Marked & Pick<ToolCall, 'attempt' | 'args' | 'createdAt'>

/**
 * The audit record of a call as it starts: its marks, its id and arguments as events show them
 * (`shownId`: a secret replaced, a lone surrogate too, each marked by a digest of the exact id).
 */
export function callRecord(batch: Batch, call: ReadCall, args: unknown, shownId: string): CallRecord {
  const record = markedRecord(batch, call) as CallRecord
  record.callId = shownId
  record.attempt = call.attempt ?? 1
  record.args = args
  record.createdAt = wallNow()
  return record
}

/** Builds a successful result from the value the tool returned ([10, b, s, t0, t1, ms, shape, text?]). */
export function resultAsReturned(batch: Batch, call: ReadCall, action: EndAsReturnedAction): ToolResult {
  const slot = action[2]
  const value = batch.values[slot]
  let content: ContentBlock[]
  let details: unknown
  let data: unknown
  // (the value as the engine read it, its JSON parsed again: its own keys only, never a key a
  // polluted Object.prototype holds)
  switch (action[6]) {
    case OutputShape.AGENT_RESULT:
      content = own(value as object, 'content') as AgentToolResult<unknown>['content']
      details = own(value as object, 'details')
      break
    case OutputShape.TEXT:
      content = [{ type: 'text', text: value as string }]
      break
    case OutputShape.JSON:
      content = [{ type: 'text', text: action[7] as string }]
      data = value
      break
    default:
      content = [{ type: 'text', text: NO_OUTPUT }]
  }
  const result = markedRecord(batch, call) as ToolResult
  result.args = recordArgs(batch, slot)
  result.attempt = call.attempt ?? 1
  result.status = 'ok'
  result.ok = true
  result.content = content
  if (details !== undefined) result.details = details
  if (data !== undefined) result.data = data
  if (action[6] === OutputShape.AGENT_RESULT) {
    const effects = own(value as object, 'effects') as ToolResult['effects'] | null | undefined
    if (effects !== undefined && effects !== null) result.effects = effects
    if (own(value as object, 'terminate') === true) result.terminate = true
  }
  result.startedAt = action[3]
  result.endedAt = action[4]
  result.durationMs = action[5]
  return result
}

/** The result as events carry it: `view` holds the fields that differ (see the engine's protocol). */
export function viewOf(result: ToolResult, view: ResultView): ShownToolResult {
  // (the engine sends a view's content for any result holding an image)
  const shown = { ...result } as ShownToolResult
  // (the view's own keys: one it does not hold is not read from a polluted Object.prototype)
  const { content, details, detailsWithheld, data, dataWithheld, args } = ownOptions(view)
  if (content !== undefined) shown.content = content
  if (details !== undefined) shown.details = details
  if (detailsWithheld) delete shown.details
  if (data !== undefined) shown.data = data
  if (dataWithheld) delete shown.data
  if (args !== undefined) shown.args = args
  return shown
}

/** The batch's text is over maxBatchChars: these blocks of the result are cut further. */
export function trimResult(result: ToolResult | undefined, blocks: TrimAction[3], truncations: TrimAction[4]): void {
  if (result === undefined) return
  const content = result.content.slice()
  for (const [index, text] of blocks) content[index] = { type: 'text', text }
  result.content = content
  const report = result.sanitization ?? (result.sanitization = { truncated: [], scrubbed: {}, images: [] })
  report.truncated = report.truncated.concat(truncations)
}
