// Whatever a tool or hook hands over costs at most that call (issue 19, section 1): a seeded
// generator of hostile JavaScript values (random UTF-16 code units with lone surrogates, nesting
// on both sides of the depth limit, cycles, BigInt, Symbol, throwing getters and toJSON, typed
// arrays, NaN, -0, huge numbers, a 10 MB string) returned by tools and by hooks. Every call gets
// exactly one result, the dispatch resolves, and the same runtime keeps serving afterwards.
import { describe, expect, it } from 'vitest'

import { ToolRuntime, type ToolResult } from '../dist/index.js'
import { generator, untyped } from './helpers.js'

/** MAX_VALUE_DEPTH of the engine (crates/toolwire-core/src/json_input.rs; README "Limits"). */
const LIMIT = 64

type Rng = ReturnType<typeof generator>

/** Random UTF-16 code units, weighted towards lone surrogates and what JSON escapes. */
function units(r: Rng, length: number): string {
  const codes: number[] = []
  for (let i = 0; i < length; i++) {
    const kind = r.int(6)
    codes.push(
      kind === 0
        ? 0xd800 + r.int(0x400)
        : kind === 1
          ? 0xdc00 + r.int(0x400)
          : kind === 2
            ? r.pick([0x22, 0x5c, 0x75, 0x0a, 0x00, 0x2028])
            : kind === 3
              ? 0x20 + r.int(0x5f)
              : r.int(0x10000),
    )
  }
  return String.fromCharCode(...codes)
}

/** A value `depth` levels of arrays and objects deep (a scalar is depth 0). */
function nested(depth: number, leaf: unknown = 1): unknown {
  let value = leaf
  for (let i = 0; i < depth; i++) value = i % 2 === 0 ? [value] : { k: value }
  return value
}

const throwing = (what: string) => () => {
  throw new Error(`${what} threw`)
}

/** What a hostile value should cost: nothing (ok), or that call an error (with this code). */
type Expect = 'any' | 'ok' | 'too-deep' | 'error'

/** A hostile value a tool (or hook) hands over, and what its call should end as. */
function hostileValue(r: Rng): { label: string; value: unknown; expect: Expect } {
  const text = units(r, r.int(24))
  const cases: (() => { label: string; value: unknown; expect: Expect })[] = [
    () => ({ label: 'random units', value: text, expect: 'ok' }),
    () => ({
      label: 'agent result with random units',
      value: { content: [{ type: 'text', text }], details: { [text]: text, list: [text] } },
      expect: 'ok',
    }),
    () => ({ label: 'json with random keys', value: { [units(r, 3)]: units(r, 5), n: [text] }, expect: 'ok' }),
    () => ({ label: `nested ${LIMIT}`, value: nested(LIMIT, text), expect: 'ok' }),
    () => {
      const depth = LIMIT + 1 + r.int(100)
      return { label: `nested ${depth}`, value: nested(depth, text), expect: 'too-deep' }
    },
    // Deep enough that walking it overflows JavaScript's stack: still the depth limit, not a throw.
    () => ({ label: 'nested 100000', value: nested(100_000, text), expect: 'too-deep' }),
    // details get the depth of every value (the { content, details } envelope is not counted)
    () => ({ label: `details nested ${LIMIT}`, value: { content: [{ type: 'text', text }], details: nested(LIMIT) }, expect: 'ok' }),
    () => ({ label: `details nested ${LIMIT + 1}`, value: { content: [{ type: 'text', text }], details: nested(LIMIT + 1) }, expect: 'too-deep' }),
    () => ({ label: 'nested 5000 (deeper than JSON.stringify can go in some engines)', value: nested(5000), expect: 'error' }),
    () => {
      const cycle: Record<string, unknown> = { text }
      cycle.self = cycle
      return { label: 'cycle', value: r.int(2) ? cycle : { content: [{ type: 'text', text }], details: cycle }, expect: 'error' }
    },
    () => ({ label: 'BigInt', value: r.int(2) ? 10n : { n: 2n ** 70n }, expect: 'error' }),
    () => ({ label: 'Symbol', value: Symbol(text), expect: 'error' }),
    // A symbol's key would vanish from the JSON: named, never dropped (r9 user review, 22-lost-values).
    () => ({ label: 'Symbol inside', value: { s: Symbol('x'), t: text }, expect: 'error' }),
    () => ({ label: 'throwing getter', value: Object.defineProperty({ t: text }, 'x', { get: throwing('getter'), enumerable: true }), expect: 'error' }),
    () => ({ label: 'throwing toJSON', value: { toJSON: throwing('toJSON') }, expect: 'error' }),
    () => ({ label: 'toJSON giving a lone surrogate', value: { toJSON: () => text + '\ud83d' }, expect: 'ok' }),
    () => ({ label: 'toJSON giving depth past the limit', value: { toJSON: () => nested(LIMIT + 1) }, expect: 'too-deep' }),
    () => ({ label: 'typed arrays', value: r.int(2) ? new Uint8Array([1, 2, 255]) : { f: new Float64Array([NaN, -0, 1e308]) }, expect: 'ok' }),
    () => ({ label: 'numbers', value: r.pick([NaN, -0, 1e308, -1.7976931348623157e308, 5e-324, 2 ** 53 + 1, Infinity]), expect: 'ok' }),
    () => ({ label: 'numbers inside', value: { n: [NaN, -0, Infinity, 1e308, 2 ** 64] }, expect: 'ok' }),
    () => ({ label: 'Date', value: new Date(0), expect: 'ok' }),
    () => ({
      label: 'Proxy whose every trap throws',
      value: new Proxy({}, { get: throwing('get'), ownKeys: throwing('ownKeys'), getPrototypeOf: throwing('getPrototypeOf'), has: throwing('has') }),
      expect: 'error',
    }),
    () => ({ label: 'function', value: () => 1, expect: 'error' }),
    // Values JSON would carry as less than they are (lost-values.test.ts): a failed call naming
    // them, never `{}` or a dropped key, at the top, inside an object and inside an array.
    () => {
      const lost = r.pick([
        () => new Map([[text, 1]]),
        () => new Set([text]),
        () => /x+/g,
        () => Promise.resolve(text),
        () => Object.assign(new Error(text), { code: 'E_LOST' }),
        () => () => text,
        () => new WeakMap(),
      ])()
      const where = r.int(3)
      return { label: `lost value ${Object.prototype.toString.call(lost)} (${where})`, value: where === 0 ? lost : where === 1 ? { t: text, lost } : { list: [text, lost] }, expect: 'error' }
    },
  ]
  return r.pick(cases)()
}

/** Something a tool or hook throws: an Error, or anything at all. */
function hostileThrown(r: Rng): unknown {
  const text = units(r, 8)
  return r.pick([
    () => new Error(text),
    () => Object.defineProperty(new Error('x'), 'message', { get: throwing('message getter') }),
    () => Object.defineProperty(new Error('x'), 'retryable', { get: throwing('retryable getter') }),
    () => Symbol(text),
    () => 3n,
    () => ({ toString: throwing('toString'), toJSON: throwing('toJSON') }),
    () => new Proxy({}, { get: throwing('get'), getPrototypeOf: throwing('getPrototypeOf') }),
    () => null,
    () => text,
  ])()
}

function textOf(result: ToolResult): string {
  return result.content.map((block) => ('text' in block ? block.text : '')).join('')
}

/** A lone surrogate: a high one not followed by a low one, or a low one not after a high one. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/

const wellFormed = (text: string) => !LONE_SURROGATE.test(text)

/** Every string in a result (keys too) is well-formed UTF-16: lone surrogates became U+FFFD. */
function allWellFormed(value: unknown, seen = new Set<unknown>()): boolean {
  if (typeof value === 'string') return wellFormed(value)
  if (value === null || typeof value !== 'object' || seen.has(value) || ArrayBuffer.isView(value)) return true
  seen.add(value)
  return Object.entries(value).every(([key, item]) => wellFormed(key) && allWellFormed(item, seen))
}

/** A runtime with `hostile` (returns or throws what the test sets) and `echo`, a plain tool. */
function hostileRuntime() {
  const runtime = new ToolRuntime({ timeoutMs: 10_000 })
  const plan = new Map<string, () => unknown>()
  runtime.register({
    name: 'hostile',
    parameters: { type: 'object' },
    execute: untyped(async (id: string) => plan.get(id)!()),
  })
  const seen: unknown[] = []
  runtime.register({
    name: 'echo',
    parameters: { type: 'object', properties: { q: { type: 'string' } } },
    async execute(_id: string, args: { q?: string }) {
      seen.push(args)
      return `echo ${args.q ?? ''}`
    },
  })
  return { runtime, plan, seen }
}

async function stillServes(runtime: ToolRuntime) {
  const [result] = await runtime.dispatch([{ id: 'plain', name: 'echo', arguments: '{"q":"still here"}' }])
  expect(result.status).toBe('ok')
  expect(textOf(result)).toBe('echo still here')
}

function checkOne(result: ToolResult, id: string, expected: Expect, label: string) {
  expect(result.callId, label).toBe(id)
  expect(allWellFormed(result), `${label}: lone surrogates reached the result`).toBe(true)
  expect(() => JSON.stringify(result), label).not.toThrow()
  if (expected === 'ok') expect(result.status, `${label}: ${textOf(result)}`).toBe('ok')
  if (expected === 'error') {
    expect(result.ok, label).toBe(false)
    expect(result.error?.code, label).not.toBe('INTERNAL_ERROR')
  }
  if (expected === 'too-deep') {
    expect(result.error?.code, `${label}: ${textOf(result)}`).toBe('LIMIT_EXCEEDED')
    expect(textOf(result), label).toContain(String(LIMIT))
  }
}

describe('the check itself', () => {
  it('finds lone surrogates and passes pairs', () => {
    expect(['a', '😀', '\uFFFD', ''].map(wellFormed)).toEqual([true, true, true, true])
    expect(['\ud83d', 'x\ude00', '\ude00\ud83d', '😀'.slice(0, 1)].map(wellFormed)).toEqual([false, false, false, false])
  })
})

describe('hostile values from tools', () => {
  it('every call of a batch of hostile returns and throws gets exactly one result, and the runtime keeps serving', async () => {
    const { runtime, plan } = hostileRuntime()
    for (let seed = 1; seed <= 12; seed++) {
      const r = generator(seed)
      const calls: { id: string; name: string; arguments: string }[] = []
      const expected: { label: string; expect: Expect }[] = []
      for (let i = 0; i < 16; i++) {
        const id = `s${seed}c${i}`
        if (r.int(5) === 0) {
          const thrown = hostileThrown(r)
          plan.set(id, () => {
            throw thrown
          })
          expected.push({ label: `seed ${seed} call ${i}: throws`, expect: 'error' })
        } else {
          const { label, value, expect } = hostileValue(r)
          plan.set(id, () => value)
          expected.push({ label: `seed ${seed} call ${i}: ${label}`, expect })
        }
        calls.push({ id, name: 'hostile', arguments: '{}' })
      }
      // with events on every other seed: the views events carry are built from the same values
      const events: unknown[] = []
      const results = await runtime.dispatch(calls, seed % 2 === 0 ? { onEvent: (event) => events.push(event) } : {})
      expect(results).toHaveLength(calls.length)
      results.forEach((result, i) => checkOne(result, calls[i].id, expected[i].expect, expected[i].label))
      expect(allWellFormed(events), `seed ${seed}: lone surrogates reached the events`).toBe(true)
      await stillServes(runtime)
    }
  })

  it('a string cut inside an emoji is U+FFFD in the result, and the dispatch survives it', async () => {
    const { runtime, plan } = hostileRuntime()
    plan.set('cut', () => '😀😀'.slice(0, 3))
    plan.set('agent', () => ({ content: [{ type: 'text', text: 'a\udc00b' }], details: { '\ud800': ['\ud83d'] } }))
    const results = await runtime.dispatch([
      { id: 'cut', name: 'hostile', arguments: '{}' },
      { id: 'agent', name: 'hostile', arguments: '{}' },
    ])
    expect(results.map((r) => r.status)).toEqual(['ok', 'ok'])
    expect(textOf(results[0])).toBe('😀\uFFFD')
    expect(textOf(results[1])).toBe('a\uFFFDb')
    expect(results[1].details).toEqual({ '\uFFFD': ['\uFFFD'] })
    await stillServes(runtime)
  })

  it('a 10 MB string with a lone surrogate at its cut gets one result, and the runtime keeps serving', async () => {
    const { runtime, plan } = hostileRuntime()
    const big = 'x'.repeat(10 * 1024 * 1024) + '\ud83d'
    plan.set('big', () => big)
    plan.set('bigDetails', () => ({ content: [{ type: 'text', text: big }], details: { tail: big.slice(-3), deep: nested(LIMIT) } }))
    const results = await runtime.dispatch([
      { id: 'big', name: 'hostile', arguments: '{}' },
      { id: 'bigDetails', name: 'hostile', arguments: '{}' },
    ])
    checkOne(results[0], 'big', 'ok', '10 MB string')
    checkOne(results[1], 'bigDetails', 'too-deep', '10 MB string with details too deep')
    await stillServes(runtime)
  })

  it('a value nested 127 levels deep fails its own call only (it used to stop the runtime)', async () => {
    const { runtime, plan } = hostileRuntime()
    plan.set('deep', () => nested(127))
    plan.set('fine', () => 'fine')
    const results = await runtime.dispatch([
      { id: 'deep', name: 'hostile', arguments: '{}' },
      { id: 'fine', name: 'hostile', arguments: '{}' },
    ])
    expect(results[0].error?.code).toBe('LIMIT_EXCEEDED')
    expect(textOf(results[0])).toContain(`${LIMIT} levels`)
    expect(results[0].error?.details).toEqual({ limit: LIMIT })
    expect(results[1].status).toBe('ok')
    await stillServes(runtime)
  })

  it('partial results with lone surrogates or too deep still give update events, and the call its result', async () => {
    const { runtime } = hostileRuntime()
    runtime.register({
      name: 'updates',
      parameters: { type: 'object' },
      async execute(_id: string, _args: unknown, _signal: AbortSignal | undefined, onUpdate?: (partial: unknown) => void) {
        onUpdate?.({ content: [{ type: 'text', text: 'half \ud83d' }] })
        onUpdate?.({ content: [{ type: 'text', text: 'deep' }], details: nested(LIMIT + 5) })
        onUpdate?.({ toJSON: throwing('toJSON') })
        return 'done'
      },
    })
    const updates: unknown[] = []
    const [result] = await runtime.dispatch([{ id: 'u', name: 'updates', arguments: '{}' }], {
      onEvent: (event) => {
        if (event.type === 'tool_execution_update') updates.push(event.partialResult)
      },
    })
    expect(result.status).toBe('ok')
    expect(updates).toHaveLength(3)
    expect(allWellFormed(updates)).toBe(true)
    expect(JSON.stringify(updates[0])).toContain('\uFFFD')
    expect(JSON.stringify(updates[1])).toContain(String(LIMIT))
    await stillServes(runtime)
  })
})

describe('hostile values from hooks', () => {
  const hooks = ['beforeToolCall', 'afterToolCall', 'onPersist'] as const

  it('every hook answering or throwing hostile values costs its call at most, and the runtime keeps serving', async () => {
    const { runtime, plan } = hostileRuntime()
    for (let seed = 101; seed <= 112; seed++) {
      const r = generator(seed)
      const hook = r.pick(hooks)
      const answers = new Map<string, () => unknown>()
      const calls: { id: string; name: string; arguments: string }[] = []
      const labels: string[] = []
      for (let i = 0; i < 10; i++) {
        const id = `h${seed}c${i}`
        plan.set(id, () => ({ content: [{ type: 'text', text: units(r, 6) }], details: { i } }))
        if (r.int(4) === 0) {
          const thrown = hostileThrown(r)
          answers.set(id, () => {
            throw thrown
          })
          labels.push(`seed ${seed} ${hook} call ${i}: throws`)
        } else {
          const { label, value } = hostileValue(r)
          // as the whole answer, or where the hook's answer carries values
          const shaped = r.pick([
            value,
            hook === 'beforeToolCall' ? { params: value } : { details: value },
            hook === 'beforeToolCall' ? { block: true, reason: value } : { content: [{ type: 'text', text: value }] },
          ])
          answers.set(id, () => shaped)
          labels.push(`seed ${seed} ${hook} call ${i}: ${label}`)
        }
        calls.push({ id, name: 'hostile', arguments: '{}' })
      }
      const results = await runtime.dispatch(calls, {
        [hook]: (context: { toolCall?: { id: string } } & Partial<ToolResult>) => answers.get(context.toolCall?.id ?? context.callId ?? '')!(),
      })
      expect(results).toHaveLength(calls.length)
      results.forEach((result, i) => checkOne(result, calls[i].id, 'any', labels[i]))
      await stillServes(runtime)
    }
  })

  it('a hook answer nested past the limit fails that call naming the limit, never the runtime', async () => {
    for (const hook of hooks) {
      const { runtime, plan } = hostileRuntime()
      plan.set('a', () => 'fine')
      plan.set('b', () => 'fine')
      // past the limit: the answer's own level is its envelope, as a result's is
      const deep = hook === 'beforeToolCall' ? { params: nested(LIMIT + 1) } : { details: nested(LIMIT + 1) }
      const results = await runtime.dispatch(
        [
          { id: 'a', name: 'hostile', arguments: '{}' },
          { id: 'b', name: 'hostile', arguments: '{}' },
        ],
        { [hook]: (context: { toolCall?: { id: string } } & Partial<ToolResult>) => ((context.toolCall?.id ?? context.callId) === 'a' ? deep : undefined) },
      )
      expect(results[0].ok, hook).toBe(false)
      expect(textOf(results[0]), hook).toContain(`${LIMIT} levels`)
      expect(results[1].status, hook).toBe('ok')
      await stillServes(runtime)
    }
  })

  it('a hook answer holding lone surrogates reaches the result as U+FFFD', async () => {
    const { runtime, plan } = hostileRuntime()
    plan.set('a', () => 'fine')
    const [result] = await runtime.dispatch([{ id: 'a', name: 'hostile', arguments: '{}' }], {
      afterToolCall: () => ({ content: [{ type: 'text', text: 'after \udfff' }], details: { '\ud83d': 1 } }),
    })
    expect(result.status).toBe('ok')
    expect(textOf(result)).toBe('after \uFFFD')
    expect(result.details).toEqual({ '\uFFFD': 1 })
  })
})

describe('hostile arguments', () => {
  it('a model argument {"q":"\\ud83d"} is accepted as JSON.parse accepts it, and the tool runs with U+FFFD', async () => {
    const { runtime, seen } = hostileRuntime()
    const text = '{"q":"\\ud83d"}'
    expect(JSON.parse(text)).toEqual({ q: '\ud83d' })
    const results = await runtime.dispatch([
      { id: 'text', name: 'echo', arguments: text },
      { id: 'object', name: 'echo', arguments: { q: 'obj \ud83d' } },
      { id: 'pair', name: 'echo', arguments: '{"q":"\\ud83d\\ude00"}' },
    ])
    expect(results.map((r) => r.status)).toEqual(['ok', 'ok', 'ok'])
    expect(seen).toEqual([{ q: '\uFFFD' }, { q: 'obj \uFFFD' }, { q: '😀' }])
    expect(results.map((r) => r.args)).toEqual([{ q: '\uFFFD' }, { q: 'obj \uFFFD' }, { q: '😀' }])
    expect(textOf(results[0])).toBe('echo \uFFFD')
  })

  // Seen by a new user (issue 19): details of depth 64 ended LIMIT_EXCEEDED while a returned
  // value and arguments of depth 64 passed: the { content, details } envelope was counted.
  it('details, a returned value and arguments get one depth count: 64 passes, 65 does not, on every path', async () => {
    const { runtime, plan } = hostileRuntime()
    const png = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=='
    const deep = (depth: number) => {
      let value: unknown = {}
      for (let i = 1; i < depth; i++) value = { a: value }
      return value
    }
    for (const depth of [LIMIT - 1, LIMIT, LIMIT + 1]) {
      const code = depth <= LIMIT ? undefined : 'LIMIT_EXCEEDED'
      const shapes: Record<string, () => unknown> = {
        value: () => deep(depth),
        details: () => ({ content: [{ type: 'text', text: 'x' }], details: deep(depth) }),
        'details beside an image (sanitized apart)': () => ({ content: [{ type: 'image', data: png, mimeType: 'image/png' }], details: deep(depth) }),
        'details beside a big text (sanitized apart)': () => ({ content: [{ type: 'text', text: 'y'.repeat(300_000) }], details: deep(depth) }),
      }
      const ids = Object.keys(shapes)
      for (const id of ids) plan.set(id, shapes[id]!)
      const results = await runtime.dispatch(ids.map((id) => ({ id, name: 'hostile', arguments: '{}' })))
      for (const [i, id] of ids.entries()) expect(results[i]!.error?.code, `${id} depth ${depth}: ${textOf(results[i]!)}`).toBe(code)
      const [args] = await runtime.dispatch([{ id: 'args', name: 'echo', arguments: { d: deep(depth - 1) } }])
      expect(args!.error?.code, `arguments depth ${depth}`).toBe(code)
      const [hooked] = await runtime.dispatch([{ id: 'hooked', name: 'echo', arguments: '{}' }], {
        afterToolCall: async () => ({ content: [{ type: 'text', text: 'replaced' }], details: deep(depth) }),
      })
      expect(hooked!.ok, `afterToolCall details depth ${depth}: ${textOf(hooked!)}`).toBe(code === undefined)
    }
    await stillServes(runtime)
  })

  it('arguments nested past the limit are LIMIT_EXCEEDED for that call; the tool does not run', async () => {
    const { runtime, seen } = hostileRuntime()
    const deepText = `{"q":"x","d":${'['.repeat(LIMIT)}${']'.repeat(LIMIT)}}`
    const results = await runtime.dispatch([
      { id: 'text', name: 'echo', arguments: deepText },
      { id: 'object', name: 'echo', arguments: { d: nested(LIMIT + 3) } },
      { id: 'fine', name: 'echo', arguments: '{"q":"fine"}' },
    ])
    expect(results.map((r) => r.error?.code)).toEqual(['LIMIT_EXCEEDED', 'LIMIT_EXCEEDED', undefined])
    expect(textOf(results[0])).toContain(`${LIMIT} levels`)
    expect(seen).toEqual([{ q: 'fine' }])
    await stillServes(runtime)
  })

  it('ids and options holding lone surrogates, and options nested too deep, never stop the runtime', async () => {
    const { runtime } = hostileRuntime()
    const results = await runtime.dispatch([{ id: 'id \ud83d', name: 'echo', arguments: '{}' }], { runId: 'run \udc00' })
    expect(results.map((r) => r.status)).toEqual(['ok'])
    // a caller's option the engine cannot read is thrown as the caller's error
    const error = await runtime.dispatch([{ id: 'a', name: 'echo', arguments: '{}' }], { approval: nested(200) as never }).then(
      () => undefined,
      (e: { code?: string }) => e,
    )
    expect(error?.code).toBe('LIMIT_EXCEEDED')
    await stillServes(runtime)
  })

  it('a tool whose description is cut inside an emoji registers, described with U+FFFD', async () => {
    const { runtime } = hostileRuntime()
    runtime.register({ name: 'cut', description: 'reads 😀'.slice(0, 7), parameters: { type: 'object' }, execute: async () => 'ok' })
    const listed = runtime.list().find((tool) => tool.name === 'cut')
    expect(listed?.description).toBe('reads \uFFFD')
    await stillServes(runtime)
  })

  it('a plan whose arguments hold a lone surrogate runs the step with U+FFFD', async () => {
    const { runtime, seen } = hostileRuntime()
    const outcome = await runtime.executePlan({ steps: [{ id: 's', tool: 'echo', args: { q: 'plan \ud83d' } }] })
    expect(outcome.status).toBe('ok')
    expect(seen).toEqual([{ q: 'plan \uFFFD' }])
  })
})
