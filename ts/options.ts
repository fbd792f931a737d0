// What the engine reads of a tool (its functions stay in JavaScript) and of the runtime's and a
// dispatch's options, checked here so that a bad value is refused naming it.

import { ToolwireError, describe, messageOf, CONTEXT_KEYS } from './common.js'
import { jsonSchemaOf } from './schema.js'
import type { ApprovalCallback, ApprovalsOptions, PolicyContext, ToolDefinition, ToolExecutionEvent } from './types.js'

/** A number option must be a finite number when given: JSON would turn NaN into null silently. */
export function finiteOption(where: string, value: unknown): number | undefined {
  if (value !== undefined && (typeof value !== 'number' || !Number.isFinite(value))) {
    throw new ToolwireError('VALIDATION_ERROR', `${where} must be a finite number, got ${describe(value)}`)
  }
  return value
}

/** A tool as registered: a ToolDefinition, or one of toolwire's own tools, whose `execute` takes more. */
export type Registrable = Omit<ToolDefinition, 'execute'> & { execute: (...args: never[]) => unknown }

/** What the engine needs of a tool (its functions stay here); `where` names the caller in errors. */
export function declarationOf(tool: Registrable, where: string): Record<string, unknown> {
  if (tool === null || typeof tool !== 'object') {
    throw new TypeError(`${where}: tool must be an object, got ${describe(tool)}`)
  }
  const name: unknown = tool.name
  if (typeof name !== 'string') {
    throw new ToolwireError('VALIDATION_ERROR', `${where}: tool name must be a string, got ${describe(name)}`)
  }
  if (typeof tool.execute !== 'function') {
    throw new ToolwireError('VALIDATION_ERROR', `${where}: tool "${name}" has no execute function`)
  }
  if (tool.concurrencyKey !== undefined && typeof tool.concurrencyKey !== 'function') {
    throw new ToolwireError('VALIDATION_ERROR', `${where}: tool "${name}": concurrencyKey must be a function`)
  }
  if (tool.signal !== undefined && typeof tool.signal !== 'boolean') {
    throw new ToolwireError('VALIDATION_ERROR', `${where}: tool "${name}": signal must be a boolean (false opts out of the AbortSignal), got ${describe(tool.signal)}`)
  }
  const declaration = {
    name,
    label: tool.label,
    description: tool.description,
    parameters: jsonSchemaOf(tool.parameters, 'input', `${where}: tool "${name}": parameters`),
    outputSchema: jsonSchemaOf(tool.outputSchema, 'output', `${where}: tool "${name}": outputSchema`),
    timeoutMs: finiteOption(`${where}: tool "${name}": timeoutMs`, tool.timeoutMs),
    executionMode: tool.executionMode,
    hasConcurrencyKey: typeof tool.concurrencyKey === 'function',
    riskLevel: tool.riskLevel,
    category: tool.category,
    aliases: tool.aliases,
    requiredGroups: tool.requiredGroups,
    coerce: tool.coerce,
    redaction: tool.redaction,
    trustedMedia: tool.trustedMedia,
    ownerOnly: tool.ownerOnly,
    workspaceOnly: tool.workspaceOnly,
    pathParams: tool.pathParams,
    command: tool.command,
    approval: tool.approval,
    signal: tool.signal,
  }
  try {
    JSON.stringify(declaration)
  } catch (error) {
    throw new ToolwireError('VALIDATION_ERROR', `${where}: tool "${name}" cannot be serialized: ${messageOf(error)}`)
  }
  return declaration
}

/** The keys of the options of `definitions(target, options)`. */
export const DEFINITION_OPTIONS: readonly string[] = ['jsonSchema', 'strict', 'tools', ...CONTEXT_KEYS]

/** The policy context of dispatch options (or of definitions' options), as the engine reads it. */
export function contextOf(options: PolicyContext): PolicyContext | undefined {
  const { provider, agentId, sender } = options
  if (provider === undefined && agentId === undefined && sender === undefined) return undefined
  return { provider, agentId, sender }
}

/** An `onEvent` listener. */
export type EventListener = (event: ToolExecutionEvent) => void

/** One listener calling both: a dispatch's own `onEvent` and the runtime's. */
export function bothListeners(own: EventListener | undefined, runtime: EventListener | undefined): EventListener | undefined {
  if (own === undefined) return runtime
  if (runtime === undefined) return own
  return (event) => {
    try {
      own(event)
    } finally {
      runtime(event)
    }
  }
}

/** Splits `approvals` into what the engine reads (`hasCallback` for the function) and `onApproval`. */
export function approvalsOption(approvals: ApprovalsOptions | null | undefined): {
  engine: Record<string, unknown> | undefined
  onApproval: ApprovalCallback | undefined
} {
  if (approvals === undefined || approvals === null) return { engine: undefined, onApproval: undefined }
  if (typeof approvals !== 'object' || Array.isArray(approvals)) {
    throw new TypeError(`ToolRuntime: options.approvals must be an object, got ${describe(approvals)}`)
  }
  const { onApproval, ...rest } = approvals as { onApproval?: unknown } & Record<string, unknown>
  if (onApproval !== undefined && typeof onApproval !== 'function') {
    throw new TypeError(`ToolRuntime: options.approvals.onApproval must be a function, got ${describe(onApproval)}`)
  }
  const engine: Record<string, unknown> = rest
  engine.timeoutMs = finiteOption('ToolRuntime: options.approvals.timeoutMs', engine.timeoutMs)
  engine.hasCallback = onApproval !== undefined
  return { engine, onApproval: onApproval as ApprovalCallback | undefined }
}

/** `options[key]`, a function or absent; anything else is a TypeError naming it. */
export function optionalFunction<O extends object, K extends keyof O & string>(options: O, key: K): O[K] | undefined {
  const value = options[key]
  if (value !== undefined && typeof value !== 'function') {
    throw new TypeError(`dispatch: options.${key} must be a function, got ${describe(value)}`)
  }
  return value
}
