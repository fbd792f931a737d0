// Deadlines, timers and timestamps follow the clock JavaScript sees: the driver hands the engine
// `performance.now()` and `Date.now()` at every crossing, so Vitest's fake timers move deadlines
// and `vi.setSystemTime` moves timestamps. vitest.config.mjs runs this file in the threads pool
// and in the forks pool (TOOLWIRE_CLOCK_POOL names which).
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { isMainThread } from 'node:worker_threads'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'

import { ToolRuntime, replayRun, type ToolExecutionEvent, type ToolResult } from '../dist/index.js'

/** The real setTimeout, taken before any test fakes timers. */
const realSetTimeout = globalThis.setTimeout
const realClearTimeout = globalThis.clearTimeout

/** Waits `ms` of real time, whatever the fake clock does. */
const realSleep = (ms: number) => new Promise<void>((resolve) => realSetTimeout(resolve, ms))

/** A tool that waits `ms` on the (possibly fake) clock, or until its signal aborts. */
function sleeper(name: string, ms: number, timeoutMs?: number) {
  return {
    name,
    timeoutMs,
    parameters: { type: 'object', properties: {} },
    execute: (_id: string, _params: unknown, signal?: AbortSignal) =>
      new Promise<{ content: { type: 'text'; text: string }[] }>((resolve, reject) => {
        const timer = setTimeout(() => resolve({ content: [{ type: 'text', text: `slept ${ms}` }] }), ms)
        signal?.addEventListener('abort', () => {
          clearTimeout(timer)
          reject(new Error('aborted'))
        })
      }),
  }
}

/**
 * Advances fake time to `ms` from now, checking that the dispatch is still open 1 ms before, and
 * returns its results.
 */
async function resultsAfter(dispatched: Promise<ToolResult[]>, ms: number) {
  let settled = false
  dispatched.then(
    () => (settled = true),
    () => (settled = true),
  )
  await vi.advanceTimersByTimeAsync(ms - 1)
  expect(settled).toBe(false)
  await vi.advanceTimersByTimeAsync(1)
  return dispatched
}

it(`runs in the ${process.env.TOOLWIRE_CLOCK_POOL} pool`, () => {
  const pool = process.env.TOOLWIRE_CLOCK_POOL
  expect(['threads', 'forks']).toContain(pool)
  expect(isMainThread).toBe(pool === 'forks')
})

describe('under vi.useFakeTimers()', () => {
  beforeEach(() => {
    vi.useFakeTimers()
  })
  afterEach(() => {
    vi.useRealTimers()
  })

  it('a deadline fires when fake time passes it, and not a moment before', async () => {
    const runtime = new ToolRuntime()
    runtime.register(sleeper('slow', 5_000, 1_000))
    const [result] = await resultsAfter(runtime.dispatch([{ id: 'a', name: 'slow', arguments: '{}' }]), 1_000)
    expect(result.status).toBe('timeout')
    expect(result.error?.code).toBe('TIMEOUT')
    expect(result.durationMs).toBe(1_000)
  })

  it('a slow tool does not end ok when fake time passes its deadline first', async () => {
    const runtime = new ToolRuntime({ timeoutMs: 200 })
    runtime.register(sleeper('slow', 5_000))
    const dispatched = runtime.dispatch([{ id: 'a', name: 'slow', arguments: '{}' }])
    await vi.advanceTimersByTimeAsync(5_000)
    const [result] = await dispatched
    expect(result.status).toBe('timeout')
    expect(result.durationMs).toBe(200)
  })

  it('a deadline never fires by real time while fake time stands still', async () => {
    const runtime = new ToolRuntime()
    runtime.register({
      name: 'real',
      timeoutMs: 5,
      parameters: { type: 'object', properties: {} },
      async execute() {
        await realSleep(60)
        return 'done'
      },
    })
    const [result] = await runtime.dispatch([{ id: 'a', name: 'real', arguments: '{}' }])
    expect(result.status).toBe('ok')
    expect(result.durationMs).toBe(0)
  })

  it('a dispatch of quick tools ends without any timer being advanced', async () => {
    const runtime = new ToolRuntime()
    runtime.register({ name: 'quick', parameters: { type: 'object', properties: {} }, execute: async () => 'ok' })
    const results = await runtime.dispatch(Array.from({ length: 20 }, (_, i) => ({ id: `c${i}`, name: 'quick', arguments: '{}' })))
    expect(results.map((r) => r.status)).toEqual(Array(20).fill('ok'))
  })

  it('calls queued behind the concurrency limit get their own deadlines on the fake clock', async () => {
    const runtime = new ToolRuntime({ concurrency: 1 })
    runtime.register(sleeper('slow', 300, 1_000))
    const dispatched = runtime.dispatch([
      { id: 'a', name: 'slow', arguments: '{}' },
      { id: 'b', name: 'slow', arguments: '{}' },
    ])
    await vi.advanceTimersByTimeAsync(600)
    const results = await dispatched
    expect(results.map((r) => [r.status, r.durationMs])).toEqual([
      ['ok', 300],
      ['ok', 300],
    ])
    expect(results[1].startedAt - results[0].startedAt).toBe(300)
  })

  it('the timer a quick dispatch left behind neither fires a later deadline early nor misses an earlier one', async () => {
    // The driver keeps its one timer when it fires no later than asked (setting and clearing a
    // timer per dispatch costs a tenth of a small one); a kept timer firing early must re-arm.
    const runtime = new ToolRuntime()
    runtime.register(sleeper('quick', 0, 300))
    runtime.register(sleeper('slow', 60_000, 1_000))
    runtime.register(sleeper('slower', 60_000, 2_000))
    const quick = runtime.dispatch([{ id: 'q', name: 'quick', arguments: '{}' }])
    await vi.advanceTimersByTimeAsync(0)
    expect((await quick)[0].status).toBe('ok')
    // the quick call's 300 ms timer is still set; this deadline is later and must not end early
    const [late] = await resultsAfter(runtime.dispatch([{ id: 's', name: 'slow', arguments: '{}' }]), 1_000)
    expect(late.status).toBe('timeout')
    expect(late.durationMs).toBe(1_000)
    // a longer deadline set first, then a shorter one: the shorter fires on time
    const longer = runtime.dispatch([{ id: 'l', name: 'slower', arguments: '{}' }])
    const [shorter] = await resultsAfter(runtime.dispatch([{ id: 's2', name: 'slow', arguments: '{}' }]), 1_000)
    expect(shorter.status).toBe('timeout')
    const [longest] = await resultsAfter(longer, 1_000)
    expect(longest.status).toBe('timeout')
    expect(longest.durationMs).toBe(2_000)
    expect(vi.getTimerCount()).toBeLessThanOrEqual(1)
  })

  it("an approval's deadline follows fake time too", async () => {
    const runtime = new ToolRuntime({
      approvals: { ask: 'always', timeoutMs: 2_000, onApproval: () => new Promise<never>(() => {}) },
    })
    runtime.register({ name: 'guarded', parameters: { type: 'object', properties: {} }, execute: async () => 'ran' })
    const [result] = await resultsAfter(runtime.dispatch([{ id: 'a', name: 'guarded', arguments: '{}' }]), 2_000)
    expect(result.status).toBe('blocked')
  })
})

describe('timers that are numbers (a DOM environment: jsdom, happy-dom)', () => {
  afterEach(() => {
    vi.unstubAllGlobals()
  })

  it('deadlines still fire, and an idle timer is cleared since it cannot be unref\'d', async () => {
    // setTimeout returning a number, as in a browser-like test environment
    const handles = new Map<number, ReturnType<typeof setTimeout>>()
    let next = 1
    vi.stubGlobal('setTimeout', (fn: (...args: unknown[]) => void, ms?: number, ...args: unknown[]) => {
      const id = next++
      handles.set(id, realSetTimeout(() => { handles.delete(id); fn(...args) }, ms))
      return id
    })
    vi.stubGlobal('clearTimeout', (id: number) => {
      realClearTimeout(handles.get(id))
      handles.delete(id)
    })
    const runtime = new ToolRuntime()
    runtime.register(sleeper('quick', 0, 5_000))
    runtime.register(sleeper('slow', 60_000, 30))
    expect((await runtime.dispatch([{ id: 'q', name: 'quick', arguments: '{}' }]))[0].status).toBe('ok')
    expect(handles.size, 'the idle timer was cleared').toBe(0)
    const [slow, quick] = await Promise.all([
      runtime.dispatch([{ id: 's', name: 'slow', arguments: '{}' }]),
      runtime.dispatch([{ id: 'q2', name: 'quick', arguments: '{}' }]),
    ])
    expect(slow[0].status).toBe('timeout')
    expect(quick[0].status).toBe('ok')
    await realSleep(5)
    expect(handles.size).toBe(0)
  })
})

describe('vi.setSystemTime', () => {
  const dirs: string[] = []
  afterEach(() => {
    vi.useRealTimers()
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
  })

  it("sets startedAt and endedAt, in results, events' results and audit records", async () => {
    vi.useFakeTimers()
    const start = Date.UTC(2031, 0, 2, 3, 4, 5, 6)
    vi.setSystemTime(start)
    const dir = mkdtempSync(join(tmpdir(), 'toolwire-clock-'))
    dirs.push(dir)
    const events: ToolExecutionEvent[] = []
    const runtime = new ToolRuntime({ audit: { dir } })
    runtime.register(sleeper('nap', 250))
    const dispatched = runtime.dispatch([{ id: 'a', name: 'nap', arguments: '{}' }], {
      runId: 'clock-run',
      onEvent: (event) => events.push(event),
    })
    await vi.advanceTimersByTimeAsync(250)
    const [result] = await dispatched
    expect(result.status).toBe('ok')
    expect([result.startedAt, result.endedAt, result.durationMs]).toEqual([start, start + 250, 250])
    const end = events.find((e) => e.type === 'tool_execution_end')
    expect(end?.type === 'tool_execution_end' ? [end.result.startedAt, end.result.endedAt] : undefined).toEqual([start, start + 250])
    const run = replayRun(dir, 'clock-run')
    const stamps = [...run.calls, ...run.results, ...run.events].map((record: { ts?: number }) => record.ts)
    expect(stamps.length).toBeGreaterThan(0)
    for (const ts of stamps) expect(ts).toBeGreaterThanOrEqual(start)
    for (const ts of stamps) expect(ts).toBeLessThanOrEqual(start + 250)
  })

  it('moving the wall clock moves timestamps, never deadlines', async () => {
    vi.useFakeTimers()
    const runtime = new ToolRuntime()
    runtime.register(sleeper('slow', 5_000, 1_000))
    const dispatched = runtime.dispatch([{ id: 'a', name: 'slow', arguments: '{}' }])
    vi.setSystemTime(Date.now() + 86_400_000)
    const [result] = await resultsAfter(dispatched, 1_000)
    expect(result.status).toBe('timeout')
    expect(result.durationMs).toBe(1_000)
  })
})

/** A tool that ends at once, needing no timer. */
const instant = {
  name: 'instant',
  parameters: { type: 'object', properties: {} },
  execute: async () => ({ content: [{ type: 'text' as const, text: 'done' }] }),
}

/** `dispatched`, or 'hung' when it has not ended after `ms` of real time. */
const within = <T>(dispatched: Promise<T>, ms: number) => Promise.race([dispatched, new Promise<'hung'>((resolve) => realSetTimeout(() => resolve('hung'), ms))])

describe('switching clocks', () => {
  afterEach(() => {
    vi.useRealTimers()
    vi.unstubAllGlobals()
    vi.restoreAllMocks()
  })

  it('a deadline fires on real time after fake timers were used and uninstalled', async () => {
    const runtime = new ToolRuntime()
    runtime.register(instant)
    runtime.register(sleeper('slow', 60_000, 30))
    vi.useFakeTimers()
    // the dispatch leaves the runtime's one timer set, a fake one, due early on the fake clock
    expect((await runtime.dispatch([{ id: 'a', name: 'instant', arguments: '{}' }], { timeoutMs: 10 }))[0].status).toBe('ok')
    vi.useRealTimers()
    const results = await within(runtime.dispatch([{ id: 'b', name: 'slow', arguments: '{}' }]), 5_000)
    expect(results === 'hung' ? 'hung' : results[0].status).toBe('timeout')
  })

  it('a deadline fires on fake time after real timers were used', async () => {
    const runtime = new ToolRuntime()
    runtime.register(instant)
    runtime.register(sleeper('slow', 60_000, 1_000))
    expect((await runtime.dispatch([{ id: 'a', name: 'instant', arguments: '{}' }]))[0].status).toBe('ok')
    vi.useFakeTimers()
    const [result] = await resultsAfter(runtime.dispatch([{ id: 'b', name: 'slow', arguments: '{}' }]), 1_000)
    expect(result.status).toBe('timeout')
  })

  it('a faked queueMicrotask (sinon installs one) does not hold completions back', async () => {
    const runtime = new ToolRuntime()
    runtime.register(instant)
    vi.stubGlobal('queueMicrotask', () => {})
    const results = await within(runtime.dispatch([{ id: 'a', name: 'instant', arguments: '{}' }]), 5_000)
    expect(results === 'hung' ? 'hung' : results[0].status).toBe('ok')
  })

  it('a performance.now() that reads as no time is refused by name; the runtime serves once it is mended', async () => {
    const runtime = new ToolRuntime()
    runtime.register(instant)
    for (const reading of [Number.NaN, Number.POSITIVE_INFINITY, undefined, '12']) {
      const now = vi.spyOn(performance, 'now').mockReturnValue(reading as number)
      const failed = await runtime.dispatch([{ id: 'a', name: 'instant', arguments: '{}' }]).then(
        () => undefined,
        (error: { code?: string; message?: string }) => error,
      )
      now.mockRestore()
      expect(failed?.code, String(reading)).toBe('PRECONDITION_FAILED')
      expect(failed?.message).toMatch(/^performance\.now\(\) returned /)
    }
    expect((await runtime.dispatch([{ id: 'b', name: 'instant', arguments: '{}' }]))[0].status).toBe('ok')
  })

  it('a Date.now() that is no number only makes timestamps read 0', async () => {
    const runtime = new ToolRuntime()
    runtime.register(instant)
    vi.spyOn(Date, 'now').mockReturnValue(undefined as unknown as number)
    const [result] = await runtime.dispatch([{ id: 'a', name: 'instant', arguments: '{}' }])
    expect([result.status, result.startedAt, result.endedAt]).toEqual(['ok', 0, 0])
  })
})

describe("a result's times are its tool's own", () => {
  beforeEach(() => {
    vi.useFakeTimers()
  })
  afterEach(() => {
    vi.useRealTimers()
  })

  /** A runtime with `quick` (returns at once) and `busy` (holds JavaScript for 60 ms of fake time, `awaits` first or not). */
  function runtimeWithBusy() {
    const runtime = new ToolRuntime()
    const block = () => {
      // synchronous work: the fake clock moves, nothing else runs meanwhile
      vi.advanceTimersByTime(60)
      return 'busy done'
    }
    runtime.register({ name: 'quick', parameters: { type: 'object' }, execute: () => 'quick done' })
    runtime.register({ name: 'busy', parameters: { type: 'object' }, execute: () => block() })
    runtime.register({
      name: 'busyLater',
      parameters: { type: 'object' },
      execute: async () => {
        await null
        return block()
      },
    })
    return runtime
  }

  it('not the moment JavaScript was free again after another tool worked synchronously', async () => {
    const start = Date.now()
    for (const [order, quickStart] of [
      [['quick', 'busy'], 0],
      [['busy', 'quick'], 60],
      [['quick', 'busyLater'], 0],
    ] as const) {
      const runtime = runtimeWithBusy()
      const began = Date.now()
      const results = await runtime.dispatch(order.map((name, i) => ({ id: `c${i}`, name, arguments: '{}' })))
      const quick = results.find((r) => r.tool === 'quick')!
      const busy = results.find((r) => r.tool !== 'quick')!
      expect([quick.status, busy.status]).toEqual(['ok', 'ok'])
      expect([quick.startedAt - began, quick.durationMs, quick.endedAt - began], order.join(',')).toEqual([quickStart, 0, quickStart])
      expect(busy.durationMs, order.join(',')).toBe(60)
    }
    expect(Date.now() - start).toBe(180)
  })
})
