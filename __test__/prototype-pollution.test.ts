// Prototype pollution elsewhere in the process (a vulnerable deep merge of JSON leaves
// `Object.prototype.sanitize = { secrets: { enabled: false } }`, `Object.prototype.approval = {
// security: 'full', ask: 'off' }`, `Object.prototype.sender = { isOwner: true }`) must change
// nothing toolwire does: every object a user hands over is read by its own keys only (attack
// review finding 05, prototype-pollution gadgets). For every key toolwire reads (its own option
// key lists, so a key added later is covered, and the keys of the objects inside), Object.prototype
// and Array.prototype are polluted with hostile values, one key at a time and all at once, and
// every scenario (a secret in a result, an approval, ownerOnly, a policy deny, a hook's block, a
// call's own arguments, run(), executePlan(), the adapters...) must answer exactly as unpolluted.
// The pollution is removed in `finally`; this file runs in a process of its own (vitest forks).

import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'

import { beforeAll, describe, expect, it } from 'vitest'

import { StreamDecoder, ToolRuntime, analyzeCommand, encodeToolCalls, sanitizeResult, toInvocationRecord } from '../dist/index.js'
import type { BeforeToolCallResult, DispatchCall, ToolDefinition, ToolResult } from '../dist/index.js'
import { AUDIT_OPTIONS } from '../dist/audit.js'
import { ARGUMENT_KEYS, CALL_KEYS, NESTED_FIELDS, NESTED_KEYS } from '../dist/calls.js'
import { CONTEXT_KEYS, DISPATCH_OPTIONS, RUNTIME_OPTIONS } from '../dist/common.js'
import { DEFINITION_OPTIONS, TOOL_KEYS } from '../dist/options.js'
import { PLAN_OPTIONS } from '../dist/plan.js'
import { TOOLSET_OPTIONS, toolsetOptions } from '../dist/rap.js'
import { RUN_OPTIONS } from '../dist/run.js'
import { toPiTools } from 'toolwire/pi'
import { body } from './scripted.js'

const SECRET = 'sk-proj-' + 'A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8S9t0'
const EMPTY = { type: 'object', properties: {} }

/**
 * The keys of the objects inside the options, calls and answers that toolwire or its engine
 * reads (sanitize, approvals, policy, sender, hook answers, tool values, result views, stream
 * events, Zod internals, what a RAP or MCP server sends): no list of them exists in the code.
 */
const INNER_KEYS = [
  'maxResultChars', 'maxBatchChars', 'stripAnsi', 'secrets', 'enabled', 'patterns', 'kinds',
  'security', 'ask', 'allowTools', 'allowlist', 'file', 'onApproval', 'askFallback', 'timeoutMs',
  'profile', 'allow', 'deny', 'byProvider', 'senders', 'agents', 'groups', 'profiles',
  'id', 'isOwner',
  'block', 'reason', 'params', 'content', 'details', 'data', 'isError', 'effects', 'terminate',
  'detailsWithheld', 'dataWithheld', 'args', 'runId', 'approvalId', 'code', 'error',
  'partial', 'append', 'value', 'object', 'contentType', 'usage', 'inputTokens', 'outputTokens', 'layer', 'rule',
  'type', 'text', 'mimeType', 'steps', 'tool', 'cwd', 'env', 'PATH', 'safeBins', 'trustedDirs',
  'toolCalls', '_zod', '_def', 'def', 'subscription', 'display_as', 'final', 'structuredContent',
]

/** Every key toolwire reads of what it is handed, from its own lists where it has them. */
const KEYS = [
  ...new Set([
    ...RUNTIME_OPTIONS, ...DISPATCH_OPTIONS, ...CONTEXT_KEYS, ...DEFINITION_OPTIONS, ...RUN_OPTIONS, ...PLAN_OPTIONS,
    ...AUDIT_OPTIONS, ...TOOLSET_OPTIONS, ...TOOL_KEYS, 'execute', 'concurrencyKey',
    ...CALL_KEYS, ...ARGUMENT_KEYS, ...NESTED_KEYS, ...Object.values(NESTED_FIELDS).flat(),
    'dispatch', 'serverOptions', 'instructions', 'version', 'plugin',
    ...INNER_KEYS,
  ]),
].sort()

const pollutedAudit = path.join(mkdtempSync(path.join(tmpdir(), 'toolwire-pollution-')), 'audit')

/**
 * What a polluting merge would plant, by key: values that would switch a protection off (or
 * on, where that changes an answer), and functions, for keys whose values are functions (a
 * deep merge plants none, code can). Other keys get DEFAULT_HOSTILE.
 */
const HOSTILE: Record<string, unknown[]> = {
  sanitize: [{ secrets: { enabled: false } }, { maxResultChars: 5 }],
  secrets: [{ enabled: false }],
  enabled: [false],
  maxResultChars: [5],
  approvals: [{ security: 'full', ask: 'off' }, { security: 'deny' }],
  approval: [{ security: 'full', ask: 'off' }, { security: 'deny' }],
  security: ['full', 'deny'],
  ask: ['off', 'always'],
  onApproval: [async () => 'allow-once'],
  sender: [{ id: 'x', isOwner: true }],
  isOwner: [true],
  ownerOnly: [false, true],
  workspaceOnly: [true],
  policy: [{ deny: ['*'] }],
  deny: [[], ['*']],
  allow: [['*'], ['nothing']],
  redaction: ['permissive', { allow: ['*'] }],
  trustedMedia: [true],
  block: [false, true],
  reason: ['polluted reason'],
  params: [{ x: 99 }],
  arguments: ['{"x":99}', { x: 99 }],
  input: [{ x: 99 }],
  args: [{ x: 99 }],
  function: [{ name: 'env', arguments: '{}' }],
  functionCall: [{ name: 'env', args: {} }],
  complete: [false],
  tools: [[], ['echo']],
  audit: [{ dir: pollutedAudit }],
  dir: [pollutedAudit],
  signal: [AbortSignal.abort(), false],
  beforeToolCall: [() => ({ block: true, reason: 'polluted hook' })],
  afterToolCall: [() => ({ content: [{ type: 'text', text: 'polluted' }] })],
  onPersist: [() => ({ content: [{ type: 'text', text: 'polluted' }] })],
  onEvent: [() => {}],
  concurrencyKey: [() => 'polluted'],
  execute: [async () => 'polluted execute'],
  terminate: [true],
  details: [{ polluted: true }],
  partial: ['object'],
  env: [{ PATH: '/nonexistent' }],
  cwd: ['/'],
  _zod: [{ def: {} }],
}
const DEFAULT_HOSTILE: unknown[] = ['polluted', true]

// The model's answers, written before any pollution (the script's helpers read plain objects too).
const RUN_ANSWERS = [
  body('openai-chat', { calls: [{ id: 'run-env', name: 'env', args: '{}' }, { id: 'run-admin', name: 'admin', args: '{}' }] }),
  body('openai-chat', { text: 'done' }),
]
const DECODED = body('openai-chat', { calls: [{ id: 'd1', name: 'echo', args: '{"x":7}' }] })

/** A model answering each call with the next of RUN_ANSWERS, as an async iterable of its text in pieces. */
function scriptedModel() {
  let calls = 0
  return async () => {
    const text = RUN_ANSWERS[calls++]
    return (async function* () {
      for (let i = 0; i < text.length; i += 23) yield text.slice(i, i + 23)
    })()
  }
}

/** A tool `name` that records in `ran` that it ran (the scenarios refuse it: it never must). */
function mustNotRun(name: string, ran: string[]): ToolDefinition {
  return {
    name,
    parameters: EMPTY,
    execute: async () => {
      ran.push(name)
      return `${name} ran`
    },
  }
}

/** The tools of a scenario's runtime; `ran` records tools that must never run. */
function toolsOf(ran: string[]): ToolDefinition[] {
  return [
    { name: 'env', description: 'Prints the environment', parameters: EMPTY, execute: async () => `OPENAI_API_KEY=${SECRET}` },
    { ...mustNotRun('admin', ran), description: 'For the owner only', ownerOnly: true },
    { ...mustNotRun('denied', ran), description: 'Denied by the policy' },
    {
      name: 'echo',
      description: 'Returns its arguments',
      parameters: { type: 'object', properties: { x: { type: 'number' } } },
      execute: async (_id, args) => ({ content: [{ type: 'text', text: `args ${JSON.stringify(args)}` }] }),
    },
    { name: 'media', description: 'Prints a media line', parameters: EMPTY, execute: async () => 'MEDIA:/etc/hostname' },
  ]
}

/** What may differ from one run to the next: times and generated ids. */
const VOLATILE = new Set(['startedAt', 'endedAt', 'startedAtMs', 'endedAtMs', 'durationMs', 'runId', 'createdAt', 'timestamp', 'approvalId'])

/**
 * JSON text of `value` without its volatile keys and generated ids (`plan_<time>_<random>`):
 * JSON reads own keys only, whatever is polluted.
 */
function shown(value: unknown): string {
  const text = JSON.stringify(value, (key, item: unknown) => (VOLATILE.has(key) ? undefined : item)) ?? 'undefined'
  return text.replace(/\b([a-z]+)_[0-9a-z]{6,}_[0-9a-z]+\b/g, '$1_<id>')
}

/** What `fn` resolves with, shown, or what it threw. */
async function outcome(fn: () => unknown): Promise<string> {
  try {
    return shown(await fn())
  } catch (error) {
    return `threw ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`
  }
}

const CALLS: DispatchCall[] = [
  { id: 'env', name: 'env', arguments: '{}' },
  { id: 'admin-nobody', name: 'admin', arguments: '{}' },
  { id: 'denied', name: 'denied', arguments: '{}' },
  { id: 'echo-text', name: 'echo', arguments: '{"x":1}' },
  { id: 'echo-object', name: 'echo', arguments: { x: 2 } },
  { type: 'tool_use', id: 'echo-anthropic', name: 'echo', input: { x: 3 } },
  { id: 'echo-openai', type: 'function', function: { name: 'echo', arguments: '{"x":4}' } },
  { functionCall: { id: 'echo-gemini', name: 'echo', args: { x: 5 } } },
  { id: 'echo-bare', name: 'echo' },
  { id: 'blocked', name: 'echo', arguments: '{"x":6}' },
  { id: 'media', name: 'media', arguments: '{}' },
] as DispatchCall[]

/**
 * Every scenario, as text: a secret in a tool's result, ownerOnly, a policy deny, a hook's block,
 * approvals (pending and refused), the definitions offered, run(), executePlan(), the adapters and
 * the standalone functions. Runtimes are made afresh: their options are read under the pollution.
 */
async function scenarios(): Promise<Record<string, string>> {
  const ran: string[] = []
  const out: Record<string, string> = {}
  const runtime = new ToolRuntime({ policy: { deny: ['denied'] } })
  for (const tool of toolsOf(ran)) runtime.register(tool)
  const events: string[] = []
  out.dispatch = await outcome(() =>
    runtime.dispatch(CALLS, {
      sender: { id: 'guest', isOwner: false },
      onEvent: (event) => events.push(shown(event)),
      // (an answer without a key of its own: a polluted `block` or `params` must not be read)
      beforeToolCall: ({ toolCall }) => (toolCall.id === 'blocked' ? { block: true, reason: 'the hook blocks it' } : ({} as BeforeToolCallResult)),
      afterToolCall: () => ({}),
      onPersist: () => undefined,
    }),
  )
  out.events = events.join('\n')
  out.plainDispatch = await outcome(() => runtime.dispatch([CALLS[0], CALLS[1], CALLS[2], CALLS[3]]))
  out.definitions = await outcome(() => runtime.definitions('openai-chat').tools.map((tool) => (tool as { function: { name: string } }).function.name))
  out.explain = await outcome(() => runtime.explainPolicy('denied'))

  const asking = new ToolRuntime({ approvals: { security: 'allowlist', ask: 'always' } })
  const refusing = new ToolRuntime({ approvals: { security: 'allowlist', ask: 'always', onApproval: async () => 'deny' } })
  for (const tool of toolsOf(ran)) {
    asking.register(tool)
    refusing.register(tool)
  }
  out.pending = await outcome(() => asking.dispatch([CALLS[0]]))
  out.refused = await outcome(() => refusing.dispatch([CALLS[0]]))

  out.run = await outcome(async () => {
    const { stopReason, steps, messages } = await runtime.run({ wire: 'openai-chat', model: scriptedModel() })
    return { stopReason, results: steps.flatMap((step) => step.results), messages }
  })
  out.plan = await outcome(() =>
    runtime.executePlan({ steps: [{ id: 's1', tool: 'env', args: {} }, { id: 's2', tool: 'admin', args: {}, dependsOn: ['s1'] }] }),
  )
  out.pi = await outcome(async () => {
    const tools = toPiTools(runtime)
    const env = tools.find((tool) => tool.name === 'env')!
    return env.execute('pi-env', {}, undefined, undefined)
  })
  out.record = await outcome(async () => toInvocationRecord(((await runtime.dispatch([CALLS[0]])) as ToolResult[])[0]))
  out.sanitizeResult = await outcome(() => sanitizeResult({ content: [{ type: 'text', text: `key ${SECRET}` }] }))
  out.decoder = await outcome(() => {
    const decoder = new StreamDecoder('openai-chat')
    const pushed = decoder.push(DECODED)
    return { pushed, turn: decoder.finish() }
  })
  out.analyze = await outcome(() => analyzeCommand('git status', { cwd: '/tmp' }))
  out.encodeToolCalls = await outcome(() => encodeToolCalls([{ id: 'h1', name: 'echo', arguments: '{}' }], 'anthropic'))
  out.toolset = await outcome(() => toolsetOptions(undefined))
  out.audit = String(existsSync(pollutedAudit))
  out.ran = ran.join(',')
  return out
}

/** How long the scenarios may take under one pollution (unpolluted, well under a second). */
const SETTLE_MS = 5000

/** Runs `fn` with `pollution` planted on Object.prototype and Array.prototype; removes it after. */
async function polluted<T>(pollution: Record<string, unknown>, fn: () => Promise<T>): Promise<T> {
  const keys = Object.keys(pollution)
  for (const key of keys) {
    // (a key the prototypes hold already would be replaced, then deleted: none is)
    if (Object.prototype.hasOwnProperty.call(Object.prototype, key) || Object.prototype.hasOwnProperty.call(Array.prototype, key)) {
      throw new Error(`the prototypes already hold ${key}`)
    }
  }
  try {
    for (const key of keys) {
      ;(Object.prototype as Record<string, unknown>)[key] = pollution[key]
      ;(Array.prototype as unknown as Record<string, unknown>)[key] = pollution[key]
    }
    // A scenario that never settles must not leave the pollution behind: it fails, and the
    // prototypes are cleaned at once.
    let timer: ReturnType<typeof setTimeout> | undefined
    const stalled = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`the scenarios did not settle within ${SETTLE_MS} ms`)), SETTLE_MS)
    })
    try {
      return await Promise.race([fn(), stalled])
    } finally {
      clearTimeout(timer)
    }
  } finally {
    for (const key of keys) {
      delete (Object.prototype as Record<string, unknown>)[key]
      delete (Array.prototype as unknown as Record<string, unknown>)[key]
    }
    // (an audit log a polluted `audit` option wrote: each pollution's scenarios see none before)
    rmSync(pollutedAudit, { recursive: true, force: true })
  }
}

describe('a polluted Object.prototype changes nothing toolwire does', () => {
  let baseline: Record<string, string>
  beforeAll(async () => {
    baseline = await scenarios()
  })

  it('unpolluted, the scenarios hold their protections', () => {
    const dispatch = JSON.parse(baseline.dispatch) as ToolResult[]
    const byId = Object.fromEntries(dispatch.map((result) => [result.callId, result]))
    expect(baseline.dispatch).not.toContain(SECRET)
    expect(byId.env.content[0]).toEqual({ type: 'text', text: 'OPENAI_API_KEY=[redacted:openai-key]' })
    expect(byId['admin-nobody'].status).toBe('blocked')
    expect(byId.denied.status).toBe('blocked')
    expect(byId.blocked.status).toBe('blocked')
    // each call runs with its own arguments (none given: none)
    for (const [id, args] of [['echo-text', '{"x":1}'], ['echo-object', '{"x":2}'], ['echo-anthropic', '{"x":3}'], ['echo-openai', '{"x":4}'], ['echo-gemini', '{"x":5}'], ['echo-bare', '{}']] as const) {
      expect(byId[id].content[0]).toEqual({ type: 'text', text: `args ${args}` })
    }
    expect(byId.media.content[0]).toEqual({ type: 'text', text: 'MEDIA:/etc/hostname' })
    expect(JSON.parse(baseline.pending)[0]).toMatchObject({ status: 'pending', error: { code: 'APPROVAL_REQUIRED' } })
    expect(JSON.parse(baseline.refused)[0]).toMatchObject({ status: 'blocked' })
    expect(JSON.parse(baseline.definitions)).not.toContain('denied')
    expect(JSON.parse(baseline.explain)).toMatchObject({ allowed: false })
    for (const key of ['events', 'plainDispatch', 'run', 'plan', 'pi', 'record', 'sanitizeResult']) {
      expect(baseline[key], key).not.toContain(SECRET)
      expect(baseline[key], key).not.toMatch(/^threw/)
    }
    expect(baseline.sanitizeResult).toContain('[redacted:openai-key]')
    expect(JSON.parse(baseline.run)).toMatchObject({ stopReason: 'stop' })
    expect(baseline.ran).toBe('')
    expect(baseline.audit).toBe('false')
  })

  it.each(KEYS)('with %s polluted', async (key) => {
    for (const value of HOSTILE[key] ?? DEFAULT_HOSTILE) {
      const got = await polluted({ [key]: value }, scenarios)
      expect(got, `${key} = ${typeof value === 'function' ? 'a function' : JSON.stringify(value)}`).toEqual(baseline)
    }
  })

  it('with every key polluted at once (the attack review’s merge, and more)', async () => {
    const all = Object.fromEntries(KEYS.map((key) => [key, (HOSTILE[key] ?? DEFAULT_HOSTILE)[0]]))
    expect(await polluted(all, scenarios)).toEqual(baseline)
  })

  it("a tool's execute and concurrencyKey may be methods of its class, never Object.prototype's", async () => {
    class Counter {
      name = 'counter'
      parameters = EMPTY
      calls = 0
      async execute(): Promise<string> {
        this.calls += 1
        return `call ${this.calls}`
      }
      concurrencyKey(): string {
        return 'one at a time'
      }
    }
    const runtime = new ToolRuntime()
    const counter = new Counter()
    runtime.register(counter as unknown as ToolDefinition)
    const results = await runtime.dispatch([{ id: 'a', name: 'counter', arguments: '{}' }, { id: 'b', name: 'counter', arguments: '{}' }])
    expect(results.map((result) => result.content[0])).toEqual([{ type: 'text', text: 'call 1' }, { type: 'text', text: 'call 2' }])
    expect(counter.calls).toBe(2)
    // a tool without an execute of its own (or its class's) is refused, whatever Object.prototype holds
    await polluted({ execute: async () => 'polluted execute' }, async () => {
      expect(() => runtime.register({ name: 'none', parameters: EMPTY } as unknown as ToolDefinition)).toThrow(/tool "none" has no execute function/)
    })
  })

  it('hooks are given the call as it was given (dispatch reads its own snapshot of it)', async () => {
    const runtime = new ToolRuntime()
    for (const tool of toolsOf([])) runtime.register(tool)
    const flat = { id: 'flat', name: 'echo', arguments: '{"x":1}' }
    const anthropic = { type: 'tool_use', id: 'nested', name: 'echo', input: { x: 2 } }
    const seen: unknown[] = []
    await runtime.dispatch([flat, anthropic] as DispatchCall[], {
      beforeToolCall: ({ toolCall }) => {
        seen.push(toolCall)
      },
    })
    expect(seen[0]).toBe(flat)
    // a provider's shape is read into a plain `{ id, name, arguments }`
    expect(seen[1]).toEqual({ type: 'tool_use', id: 'nested', name: 'echo', arguments: { x: 2 } })
    expect(Object.getPrototypeOf(seen[1])).toBe(Object.prototype)
  })

  it("a model's streamed arguments never reach Object.prototype through `partial: 'object'`", () => {
    const decoder = new StreamDecoder('openai-chat', { partial: 'object' })
    const args = '{"__proto__": {"pollutedByModel": "yes"}, "constructor": {"prototype": {"alsoPolluted": "yes"}}, "a": [1, {"b": "x"}]}'
    const events = decoder.push(body('openai-chat', { calls: [{ id: 'p1', name: 'echo', args }] }))
    const objects = events.flatMap((event) => (event.type === 'toolcall_delta' && event.object !== undefined ? [event.object] : []))
    expect(({} as Record<string, unknown>).pollutedByModel).toBeUndefined()
    expect(({} as Record<string, unknown>).alsoPolluted).toBeUndefined()
    // the partial object is what JSON.parse makes of the arguments: `__proto__` an own key
    expect(JSON.stringify(objects.at(-1))).toBe(JSON.stringify(JSON.parse(args)))
    expect(Object.getPrototypeOf(objects.at(-1))).toBe(Object.prototype)
  })
})
