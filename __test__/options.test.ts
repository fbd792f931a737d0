import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'

import { describe, expect, it } from 'vitest'

import {
  ToolRuntime,
  ToolwireError,
  StreamDecoder,
  analyzeCommand,
  encodeResults,
  normalizeSchema,
  sanitizeResult,
} from '../dist/index.js'
import { toAiSdkTools } from '../dist/adapters/ai-sdk.js'

const tool = {
  name: 'echo',
  parameters: { type: 'object', properties: { path: { type: 'string' } } },
  execute: async () => ({ content: [{ type: 'text' as const, text: 'ok' }] }),
}

function runtimeWithTool(options: object = {}) {
  const runtime = new ToolRuntime(options)
  runtime.register(tool)
  return runtime
}

const call = [{ id: 'c1', name: 'echo', arguments: '{}' }]
const model = () => 'data: [DONE]\n\n'

/** The error `fn` throws (or the promise it returns rejects with). */
async function errorOf(fn: () => unknown): Promise<ToolwireError> {
  try {
    await fn()
  } catch (error) {
    return error as ToolwireError
  }
  throw new Error('expected an error, none was thrown')
}

describe('options objects refuse unknown keys, naming the key and the closest known one', () => {
  // [where the options go, the call with a typo, the message's start, the key suggested]
  const cases: [string, () => unknown, string, string | null][] = [
    ['ToolRuntime', () => new ToolRuntime({ concurrancy: 4 } as never), 'ToolRuntime: options has unknown key "concurrancy"', 'concurrency'],
    ['ToolRuntime (a guess)', () => new ToolRuntime({ workspace: '/tmp' } as never), 'ToolRuntime: options has unknown key "workspace"', 'workspaceRoot'],
    ['dispatch', () => runtimeWithTool().dispatch(call, { timeout: 5 } as never), 'dispatch: options has unknown key "timeout"', 'timeoutMs'],
    ['dispatch (a hook)', () => runtimeWithTool().dispatch(call, { beforeToolcall: () => undefined } as never), 'dispatch: options has unknown key "beforeToolcall"', 'beforeToolCall'],
    ['run', () => runtimeWithTool().run({ wire: 'openai-chat', model, maxStep: 2 } as never), 'run: options has unknown key "maxStep"', 'maxSteps'],
    ['executePlan', () => runtimeWithTool().executePlan({ steps: [] }, { maxConcurency: 2 } as never), 'executePlan: options has unknown key "maxConcurency"', 'maxConcurrency'],
    ['definitions', () => runtimeWithTool().definitions('openai-chat', { strikt: true } as never), 'definitions: options has unknown key "strikt"', 'strict'],
    ['audit', () => new ToolRuntime({ audit: { dir: tmpdir(), flushInterval: 5 } } as never), 'ToolRuntime: options.audit has unknown key "flushInterval"', 'flushIntervalMs'],
    ['dispatch audit', () => runtimeWithTool().dispatch(call, { audit: { dri: tmpdir() } } as never), 'dispatch: options.audit has unknown key "dri"', 'dir'],
    ['sanitize (runtime)', () => new ToolRuntime({ sanitize: { maxResultChar: 500 } } as never), 'runtime option sanitize has unknown key "maxResultChar"', 'maxResultChars'],
    ['sanitize (nested)', () => new ToolRuntime({ sanitize: { images: { maxWidht: 5 } } } as never), 'runtime option sanitize.images has unknown key "maxWidht"', 'maxWidth'],
    ['sanitizeResult', () => sanitizeResult({ content: [] }, { stripAnsii: true } as never), 'sanitizeResult: options has unknown key "stripAnsii"', 'stripAnsi'],
    ['analyzeCommand', () => analyzeCommand('ls', { allowList: ['ls'] } as never), 'analyzeCommand: options has unknown key "allowList"', 'allowlist'],
    ['normalizeSchema', () => normalizeSchema({ type: 'object' }, 'openai', { maxDepht: 4 } as never), 'normalizeSchema: options has unknown key "maxDepht"', 'maxDepth'],
    ['StreamDecoder', () => new StreamDecoder('anthropic', { partal: 'none' } as never), 'StreamDecoder: options has unknown key "partal"', 'partial'],
    ['loopDetection', () => new ToolRuntime({ loopDetection: { warn: 2 } } as never), 'loopDetection has unknown key "warn"', 'warnAt'],
    ['unrelated key', () => new ToolRuntime({ zzzzzzzz: 1 } as never), 'ToolRuntime: options has unknown key "zzzzzzzz"', null],
  ]
  it.each(cases)('%s', async (_, fn, start, near) => {
    const error = await errorOf(fn)
    expect(error).toBeInstanceOf(ToolwireError)
    expect(error.code).toBe('VALIDATION_ERROR')
    expect(error.message).toContain(start)
    if (near === null) expect(error.message).not.toContain('did you mean')
    else expect(error.message).toMatch(new RegExp(`; did you mean "${near}"\\?$`))
  })

  // r10 user review #7 (26-hooks-hostile): `new ToolRuntime({ beforeToolCall })` said only
  // "unknown key": a key of the other options object says what it is and where it goes, both ways.
  const misplaced: [label: string, fn: () => unknown, message: string][] = [
    ...(['beforeToolCall', 'afterToolCall', 'onPersist', 'signal', 'runId', 'tools', 'approval', 'provider'] as const).map(
      (key): [string, () => unknown, string] => [
        `runtime given ${key}`,
        () => new ToolRuntime({ [key]: undefined } as never),
        `ToolRuntime: options has unknown key "${key}": it is a dispatch option: pass it to dispatch(calls, { ${key} })`,
      ],
    ),
    ...(['concurrency', 'policy', 'workspaceRoot', 'loopDetection', 'approvals', 'coerce'] as const).map(
      (key): [string, () => unknown, string] => [
        `dispatch given ${key}`,
        () => runtimeWithTool().dispatch(call, { [key]: undefined } as never),
        `dispatch: options has unknown key "${key}": it is a runtime option: pass it to new ToolRuntime({ ${key} })`,
      ],
    ),
    [
      'an adapter dispatch option given concurrency',
      () => toAiSdkTools(new ToolRuntime(), { dispatch: { concurrency: 2 } } as never),
      'toAiSdkTools: options.dispatch has unknown key "concurrency": it is a runtime option: pass it to new ToolRuntime({ concurrency })',
    ],
  ]
  it.each(misplaced)('%s: says where it goes', async (_, fn, message) => {
    const error = await errorOf(fn)
    expect(error).toBeInstanceOf(ToolwireError)
    expect(error.code).toBe('VALIDATION_ERROR')
    expect(error.message).toBe(message)
  })

  it('a megabyte key is quoted bounded', async () => {
    const error = await errorOf(() => new ToolRuntime({ ['k'.repeat(1 << 20)]: 1 } as never))
    expect(error.code).toBe('VALIDATION_ERROR')
    expect(error.message.length).toBeLessThan(1000)
  })

  it('every documented key is still accepted', async () => {
    const runtime = runtimeWithTool({
      concurrency: 2, timeoutMs: 1000, coerce: false, sanitize: {}, limits: {}, redaction: 'strict', policy: undefined,
      workspaceRoot: tmpdir(), loopDetection: false, approvals: undefined, onEvent: () => undefined, audit: undefined,
    })
    const [result] = await runtime.dispatch(call, {
      signal: new AbortController().signal, timeoutMs: 1000, runId: 'r', groupId: 'g', userId: 'u', threadAncestors: [],
      approval: undefined, audit: undefined, sanitize: {}, limits: {}, redaction: 'strict', onEvent: () => undefined,
      beforeToolCall: () => undefined, afterToolCall: () => undefined, onPersist: () => undefined,
      provider: 'openai', agentId: 'a', sender: { id: 's', isOwner: true },
    })
    expect(result!.ok).toBe(true)
    expect(runtime.definitions('gemini', { jsonSchema: true, strict: false, provider: 'p', agentId: 'a', sender: { id: 's' } })).toMatchObject({ tools: [{}] })
    const outcome = await runtime.executePlan({ steps: [{ id: 'a', tool: 'echo', args: {} }] }, {
      maxConcurrency: 1, maxRetries: 0, signal: new AbortController().signal, onEvent: () => undefined, confirm: () => true,
      provider: 'p', agentId: 'a', sender: { id: 's' }, audit: undefined,
    })
    expect(outcome.status).toBe('ok')
    const run = await runtime.run({
      wire: 'openai-chat', model: () => 'data: [DONE]\n\n', messages: [], maxSteps: 1, signal: new AbortController().signal, runId: 'run-1',
      groupId: 'g2', userId: 'u', threadAncestors: [], onEvent: () => undefined, getSteeringMessages: () => [],
      getFollowUpMessages: () => [], toolChoice: 'auto', audit: undefined, provider: 'p', agentId: 'a', sender: { id: 's' },
    } as never)
    expect(run.runId).toBe('run-1')
  })

  it('tool definitions keep their extra keys (a pi-agent-core AgentTool carries more)', () => {
    const runtime = new ToolRuntime()
    expect(() => runtime.register({ ...tool, name: 'extra', renderCall: () => null, whatever: 1 } as never)).not.toThrow()
  })
})

describe('a bad field of a tool declaration names the tool and the field, never a serde position', () => {
  const cases: [string, object, string][] = [
    ['pathParams not an array', { pathParams: 'x' }, 'register: tool "x": pathParams: expected an array, got string "x"'],
    ['pathParams holding a number', { pathParams: ['a', 5] }, 'register: tool "x": pathParams[1]: expected a string, got integer `5`'],
    ['workspaceOnly not a boolean', { workspaceOnly: 'yes' }, 'register: tool "x": workspaceOnly: expected a boolean, got string "yes"'],
  ]
  it.each(cases)('%s', (_, extra, start) => {
    const runtime = new ToolRuntime()
    let error: ToolwireError | undefined
    try {
      runtime.register({ ...tool, name: 'x', ...extra } as never)
    } catch (e) {
      error = e as ToolwireError
    }
    expect(error).toBeInstanceOf(ToolwireError)
    expect(error!.code).toBe('VALIDATION_ERROR')
    expect(error!.message.startsWith(start)).toBe(true)
    expect(error!.message).not.toMatch(/at line \d+ column \d+|invalid type|expected a sequence/)
  })

  it('registerPlugin names the plugin, the tool and the field', () => {
    const runtime = new ToolRuntime()
    expect(() => runtime.registerPlugin('p', [{ ...tool, name: 'a' }, { ...tool, name: 'b', pathParams: 'x' } as never])).toThrow(
      /^registerPlugin\("p"\): tool "b": pathParams: expected an array, got string "x"$/,
    )
  })

  it('a megabyte value is quoted bounded', () => {
    const runtime = new ToolRuntime()
    expect(() => runtime.register({ ...tool, name: 'x', pathParams: 'p'.repeat(1 << 20) } as never)).toThrow(
      expect.objectContaining({ message: expect.stringMatching(/^register: tool "x": pathParams: expected an array, got string "p{10}[^]{0,400}$/) }),
    )
  })
})

describe('an unknown wire is a VALIDATION_ERROR everywhere', () => {
  const cases: [string, () => unknown][] = [
    ['StreamDecoder', () => new StreamDecoder('openai' as never)],
    ['run', () => new ToolRuntime().run({ wire: 'openai' as never, model })],
    ['encodeResults', () => encodeResults([], 'openai' as never)],
  ]
  it.each(cases)('%s', async (_, fn) => {
    const error = await errorOf(fn)
    expect(error).toBeInstanceOf(ToolwireError)
    expect(error.code).toBe('VALIDATION_ERROR')
    expect(error.message).toContain('did you mean "openai-chat"?')
  })
})

describe('run ids and workspace roots', () => {
  it('an empty runId is refused by dispatch and run', async () => {
    const runtime = runtimeWithTool()
    await expect(runtime.dispatch(call, { runId: '' })).rejects.toThrow('dispatch: options.runId must be a non-empty string, got an empty string')
    await expect(runtime.run({ wire: 'openai-chat', model, runId: '' })).rejects.toThrow('run: options.runId must be a non-empty string, got an empty string')
    await expect(runtime.executePlan({ runId: '', steps: [] })).rejects.toThrow('plan.runId must not be empty')
  })

  it('a relative workspaceRoot is resolved against process.cwd() at construction', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'tw-root-'))
    const audit = mkdtempSync(path.join(tmpdir(), 'tw-audit-'))
    const cwd = process.cwd()
    process.chdir(dir)
    let runtime: ToolRuntime
    try {
      runtime = new ToolRuntime({ workspaceRoot: 'ws', audit: { dir: audit } })
    } finally {
      process.chdir(cwd)
    }
    runtime.register({ ...tool, workspaceOnly: true, pathParams: ['path'] })
    const [inside, outside] = await runtime.dispatch([
      { id: 'a', name: 'echo', arguments: { path: path.join(dir, 'ws', 'f.txt') } },
      { id: 'b', name: 'echo', arguments: { path: path.join(cwd, 'ws', 'f.txt') } },
    ], { runId: 'root' })
    expect(inside!.ok).toBe(true)
    expect(outside!.ok).toBe(false)
    const run = JSON.parse(readFileSync(path.join(audit, 'root', 'run.json'), 'utf8'))
    expect(JSON.stringify(run)).toContain(JSON.stringify(path.join(dir, 'ws')))
  })
})
