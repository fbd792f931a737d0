// What the engine reads of a tool (its functions stay in JavaScript) and of the runtime's and a
// dispatch's options, checked here so that a bad value is refused naming it.

import { ToolwireError, describe, messageOf, ownOrClass, own, ownOptions, CONTEXT_KEYS } from './common.js'
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

/**
 * The keys of a tool toolwire reads besides its methods (`execute`, `concurrencyKey`, see
 * {@link declarationOf}): what the engine is told of it, and `signal`.
 */
export const TOOL_KEYS: readonly string[] = [
  'name', 'label', 'description', 'parameters', 'outputSchema', 'timeoutMs', 'executionMode', 'riskLevel', 'category',
  'aliases', 'requiredGroups', 'coerce', 'redaction', 'trustedMedia', 'ownerOnly', 'workspaceOnly', 'pathParams', 'command',
  'approval', 'signal',
]

/** A tool's declaration for the engine (see {@link declarationOf}), keyed by {@link TOOL_KEYS}. */
export type Declaration = Record<string, unknown> & { name: string }

/**
 * What the engine needs of a tool (its functions stay here); `where` names the caller in errors.
 * Read as {@link ownOptions} reads options: the tool's own keys only, each once, so a key
 * inherited from a polluted `Object.prototype` (`ownerOnly`, `approval`, `trustedMedia`) is
 * never the tool's; its methods may be declared by its class ({@link ownOrClass}).
 */
export function declarationOf(tool: Registrable, where: string): Declaration {
  if (tool === null || typeof tool !== 'object') {
    throw new TypeError(`${where}: tool must be an object, got ${describe(tool)}`)
  }
  const given = ownOptions(tool) as Record<string, unknown>
  const name = given.name
  if (typeof name !== 'string') {
    throw new ToolwireError('VALIDATION_ERROR', `${where}: tool name must be a string, got ${describe(name)}`)
  }
  if (typeof ownOrClass(tool, 'execute') !== 'function') {
    throw new ToolwireError('VALIDATION_ERROR', `${where}: tool "${name}" has no execute function`)
  }
  const concurrencyKey = ownOrClass(tool, 'concurrencyKey')
  if (concurrencyKey !== undefined && typeof concurrencyKey !== 'function') {
    throw new ToolwireError('VALIDATION_ERROR', `${where}: tool "${name}": concurrencyKey must be a function`)
  }
  if (given.signal !== undefined && typeof given.signal !== 'boolean') {
    throw new ToolwireError('VALIDATION_ERROR', `${where}: tool "${name}": signal must be a boolean (false opts out of the AbortSignal), got ${describe(given.signal)}`)
  }
  const declaration: Declaration = { name }
  for (const key of TOOL_KEYS) if (key !== 'name') declaration[key] = given[key]
  declaration.parameters = jsonSchemaOf(given.parameters, 'input', `${where}: tool "${name}": parameters`)
  declaration.outputSchema = jsonSchemaOf(given.outputSchema, 'output', `${where}: tool "${name}": outputSchema`)
  declaration.timeoutMs = finiteOption(`${where}: tool "${name}": timeoutMs`, given.timeoutMs)
  declaration.hasConcurrencyKey = typeof concurrencyKey === 'function'
  try {
    JSON.stringify(declaration)
  } catch (error) {
    throw new ToolwireError('VALIDATION_ERROR', `${where}: tool "${name}" cannot be serialized: ${messageOf(error)}`)
  }
  return declaration
}

/** The keys of the options of `definitions(target, options)`. */
export const DEFINITION_OPTIONS: readonly string[] = ['jsonSchema', 'strict', 'tools', ...CONTEXT_KEYS]

/** The policy context of dispatch options (or of definitions' options), as the engine reads it: their own keys only. */
export function contextOf(options: PolicyContext): PolicyContext | undefined {
  const provider = own(options, 'provider') as PolicyContext['provider']
  const agentId = own(options, 'agentId') as PolicyContext['agentId']
  const sender = own(options, 'sender') as PolicyContext['sender']
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
  // (its own keys only, each read once: see ownOptions)
  const { onApproval, ...rest } = ownOptions(approvals) as { onApproval?: unknown } & Record<string, unknown>
  if (onApproval !== undefined && typeof onApproval !== 'function') {
    throw new TypeError(`ToolRuntime: options.approvals.onApproval must be a function, got ${describe(onApproval)}`)
  }
  const engine: Record<string, unknown> = rest
  engine.timeoutMs = finiteOption('ToolRuntime: options.approvals.timeoutMs', own(rest, 'timeoutMs'))
  engine.hasCallback = onApproval !== undefined
  return { engine, onApproval: onApproval as ApprovalCallback | undefined }
}

/** `options[key]` (an own key: see ownOptions), a function or absent; anything else is a TypeError naming it. */
export function optionalFunction<O extends object, K extends keyof O & string>(options: O, key: K): O[K] | undefined {
  const value = own(options, key) as O[K] | undefined
  if (value !== undefined && typeof value !== 'function') {
    throw new TypeError(`dispatch: options.${key} must be a function, got ${describe(value)}`)
  }
  return value
}
