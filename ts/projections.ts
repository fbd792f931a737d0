// A result seen as other libraries' shapes: a pi-agent-core tool result message, an invocation
// record, the legacy JSON error envelope.

import { own } from './common.js'
import { scrubSecrets } from './sanitize.js'
import type { ErrorEnvelope, ToolInvocationRecord, ToolResult, ToolResultMessage } from './types.js'

// A result is read by its own keys (see ownOptions in common.ts): an optional one it does not hold
// (`details`, `data`, `error`) is absent, whatever a polluted Object.prototype holds.

/** The result as a pi-agent-core tool result message. */
export function toToolResultMessage(result: ToolResult): ToolResultMessage {
  return {
    role: 'toolResult',
    toolCallId: result.callId,
    toolName: result.tool,
    content: result.content,
    details: own(result, 'details'),
    isError: !result.ok,
    timestamp: result.endedAt,
  }
}

/**
 * The result as an invocation record: what ran, what came back, when. The id, tool name and
 * arguments are the model's, as run: their secrets (keys included) are replaced by
 * `[redacted:<kind>]` (built-in kinds), as in events and the audit log.
 */
export function toInvocationRecord(result: ToolResult): ToolInvocationRecord {
  const data = own(result, 'data')
  const error = own(result, 'error') as ToolResult['error']
  return {
    toolCallId: scrubSecrets(result.callId, 'toInvocationRecord: result.callId') as string,
    name: scrubSecrets(result.tool, 'toInvocationRecord: result.tool') as string,
    args: scrubSecrets(result.args, 'toInvocationRecord: result.args'),
    result: result.ok ? (data !== undefined ? data : { content: result.content, details: own(result, 'details') }) : null,
    error: result.ok ? null : (error?.message ?? null),
    startedAtMs: result.startedAt,
    endedAtMs: result.endedAt,
  }
}

/** The legacy JSON error envelope of a failed result; `null` for a successful one. */
export function toErrorEnvelope(result: ToolResult): ErrorEnvelope | null {
  if (result.ok) return null
  const error = own(result, 'error') as ToolResult['error']
  const message = error ? error.message : 'failed'
  if (result.status === 'blocked') return { status: 'blocked', tool: result.tool, reason: message }
  if (result.status === 'pending') return { status: 'pending', tool: result.tool, message }
  return { status: 'error', tool: result.tool, error: message }
}
