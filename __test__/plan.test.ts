import { describe, expect, it } from 'vitest'

import { ToolRuntime } from '../dist/index.js'
import type { ActionPlan, PlanEvent, ToolDefinition } from '../dist/index.js'
import { sleep } from './helpers.js'

/** A tool that records the arguments of every call and returns `data` (or them). */
function recorder(name: string, data?: (args: any) => unknown) {
  const calls: any[] = []
  const tool: ToolDefinition = {
    name,
    parameters: { type: 'object' },
    async execute(_id: string, args: any) {
      calls.push(args)
      return data === undefined ? args : data(args)
    },
  }
  return { tool, calls }
}

/** A tool that fails its first `failures` calls, then returns "done". */
function flaky(name: string, failures: number, retryable = true) {
  const stats = { calls: 0, times: [] as number[] }
  const tool: ToolDefinition = {
    name,
    parameters: { type: 'object' },
    async execute() {
      stats.calls += 1
      stats.times.push(Date.now())
      if (stats.calls <= failures) {
        const error = new Error(`${name} failed call ${stats.calls}`) as Error & { retryable?: boolean }
        if (!retryable) error.retryable = false
        throw error
      }
      return 'done'
    },
  }
  return { tool, stats }
}

/** A tool that always throws. */
function failing(name: string): ToolDefinition {
  return {
    name,
    parameters: { type: 'object' },
    async execute() {
      throw new Error(`${name} broke`)
    },
  }
}

/** A tool counting how many of its calls overlap. */
function overlapping(name: string, ms = 20) {
  const stats = { running: 0, max: 0, calls: 0 }
  const tool: ToolDefinition = {
    name,
    parameters: { type: 'object' },
    async execute() {
      stats.calls += 1
      stats.running += 1
      stats.max = Math.max(stats.max, stats.running)
      await sleep(ms)
      stats.running -= 1
      return 'ok'
    },
  }
  return { tool, stats }
}

function runtimeWith(...tools: ToolDefinition[]) {
  const runtime = new ToolRuntime()
  for (const tool of tools) runtime.register(tool)
  return runtime
}

describe('executePlan: references', () => {
  it('step data, vars, foreach items and indexes reach the tool arguments', async () => {
    const list = recorder('list', () => ({ x: 'from-a', files: [{ name: 'one' }, { name: 'two' }] }))
    const use = recorder('use')
    const runtime = runtimeWith(list.tool, use.tool)
    const outcome = await runtime.executePlan({
      runId: 'refs',
      vars: { dir: '/tmp/work' },
      steps: [
        { id: 'a', tool: 'list', args: {} },
        { id: 'b', tool: 'use', args: { x: '$steps.a.data.x', dir: '$vars.dir' } },
        {
          id: 'c',
          tool: 'use',
          foreach: '$steps.a.data.files',
          args: { label: 'file {item.name} #{index}', whole: '{item}' },
        },
      ],
    })
    expect(outcome.status).toBe('ok')
    expect(outcome.runId).toBe('refs')
    expect(use.calls[0]).toEqual({ x: 'from-a', dir: '/tmp/work' })
    const labels = use.calls.slice(1).map((args) => args.label).sort()
    expect(labels).toEqual(['file one #0', 'file two #1'])
    expect(use.calls.slice(1).map((args) => args.whole)).toEqual(expect.arrayContaining([{ name: 'one' }, { name: 'two' }]))
  })

  it('$steps.<id>.<path> reads the step\'s data, as the ActionPlan contract says ($steps.parse.items)', async () => {
    const parse = recorder('parse', () => ({ items: ['a', 'b'], status: 201, data: { nested: true } }))
    const text = recorder('text', () => 'plain words')
    const use = recorder('use')
    const runtime = runtimeWith(parse.tool, text.tool, use.tool)
    const outcome = await runtime.executePlan({
      steps: [
        { id: 'parse', tool: 'parse', args: {} },
        { id: 'say', tool: 'text', args: {} },
        {
          id: 'use',
          tool: 'use',
          args: {
            items: '$steps.parse.items',
            first: '$steps.parse.items.0',
            explicit: '$steps.parse.data.items',
            status: '$steps.parse.status',
            shadowed: '$steps.parse.data.data',
            whole: '$steps.parse',
            words: '$steps.say.$content.0.text',
          },
        },
        { id: 'each', tool: 'use', foreach: '$steps.parse.items', args: { item: '{item}' } },
      ],
    })
    expect(outcome.status).toBe('ok')
    // `use` and the iterations of `each` may run in any order.
    expect(use.calls.find((args) => 'items' in args)).toEqual({
      items: ['a', 'b'],
      first: 'a',
      explicit: ['a', 'b'],
      status: 201,
      shadowed: { nested: true },
      whole: { items: ['a', 'b'], status: 201, data: { nested: true } },
      words: 'plain words',
    })
    expect(use.calls.filter((args) => 'item' in args).map((args) => args.item).sort()).toEqual(['a', 'b'])
  })
})

describe('executePlan: scheduling', () => {
  it('a diamond never runs more than maxConcurrency calls at once', async () => {
    const { tool, stats } = overlapping('work')
    const runtime = runtimeWith(tool)
    const plan: ActionPlan = {
      steps: [
        { id: 'top', tool: 'work' },
        { id: 'l', tool: 'work', dependsOn: ['top'], foreach: [1, 2, 3] },
        { id: 'r', tool: 'work', dependsOn: ['top'], foreach: [1, 2, 3] },
        { id: 'm', tool: 'work', dependsOn: ['top'] },
        { id: 'bottom', tool: 'work', dependsOn: ['l', 'r', 'm'] },
      ],
    }
    const outcome = await runtime.executePlan(plan, { maxConcurrency: 2 })
    expect(outcome.status).toBe('ok')
    expect(stats.calls).toBe(9)
    expect(stats.max).toBe(2)
    const wide = overlapping('wide')
    const again = await runtimeWith(wide.tool).executePlan({ steps: [{ id: 'all', tool: 'wide', foreach: [1, 2, 3, 4, 5, 6, 7, 8] }] })
    expect(again.status).toBe('ok')
    expect(wide.stats.max).toBe(4)
  })

  it('foreach over a list and over a reference: one loopId, an index per iteration', async () => {
    const src = recorder('src', () => ({ items: ['p', 'q', 'r'] }))
    const each = recorder('each')
    const runtime = runtimeWith(src.tool, each.tool)
    const events: any[] = []
    const outcome = await runtime.executePlan(
      {
        runId: 'loops',
        steps: [
          { id: 'lit', tool: 'each', foreach: ['x', 'y'], args: { v: '{item}', i: '{index}' } },
          { id: 'src', tool: 'src' },
          { id: 'ref', tool: 'each', foreach: '$steps.src.data.items', args: { v: '{item}' } },
        ],
      },
      { onEvent: (e) => events.push(e) },
    )
    expect(outcome.status).toBe('ok')
    for (const [id, count] of [['lit', 2], ['ref', 3]] as const) {
      const results = outcome.steps[id].results
      expect(results).toHaveLength(count)
      const loopIds = new Set(results.map((r) => r.loopId))
      expect(loopIds.size).toBe(1)
      expect([...loopIds][0]).toBe(`loops:${id}`)
      for (const result of results) {
        expect(result.stepId).toBe(id)
        expect(result.attempt).toBe(1)
      }
    }
    expect(each.calls.filter((a) => 'i' in a).map((a) => [a.v, a.i]).sort()).toEqual([['x', 0], ['y', 1]])
    expect(each.calls.filter((a) => !('i' in a)).map((a) => a.v).sort()).toEqual(['p', 'q', 'r'])
    expect(outcome.steps.src.results[0].loopId).toBeUndefined()
  })
})

describe('executePlan: retries', () => {
  it('a tool failing twice then succeeding gives three results, attempts 1, 2, 3', async () => {
    const { tool, stats } = flaky('flaky', 2)
    const runtime = runtimeWith(tool)
    const outcome = await runtime.executePlan({ steps: [{ id: 'f', tool: 'flaky', retry: { max: 3, backoffMs: 20 } }] })
    expect(outcome.status).toBe('ok')
    const results = outcome.steps.f.results
    expect(results.map((r) => r.attempt)).toEqual([1, 2, 3])
    expect(results.map((r) => r.stepId)).toEqual(['f', 'f', 'f'])
    expect(results.map((r) => r.status)).toEqual(['error', 'error', 'ok'])
    expect(outcome.results).toEqual(results)
    // Backoff 20 ms, then 40 ms: at least that much between the calls.
    expect(stats.times[1] - stats.times[0]).toBeGreaterThanOrEqual(18)
    expect(stats.times[2] - stats.times[1]).toBeGreaterThanOrEqual(38)
  })

  it('an Error with retryable = false is not retried', async () => {
    const { tool, stats } = flaky('final', 5, false)
    const outcome = await runtimeWith(tool).executePlan({ steps: [{ id: 'x', tool: 'final', retry: { max: 3 } }] })
    expect(stats.calls).toBe(1)
    expect(outcome.status).toBe('failed')
    expect(outcome.steps.x.status).toBe('failed')
    expect(outcome.steps.x.results[0].error?.retryable).toBe(false)
  })

  it('a plain dispatch carries retryable = false to the result', async () => {
    const { tool } = flaky('final', 5, false)
    const other = flaky('other', 5, true)
    const runtime = runtimeWith(tool, other.tool)
    const [a, b] = await runtime.dispatch(
      [
        { id: 'c1', name: 'final', arguments: '{}' },
        { id: 'c2', name: 'other', arguments: '{}' },
      ],
      {},
    )
    expect(a.error?.retryable).toBe(false)
    expect(a.error?.code).toBe('EXECUTION_ERROR')
    expect(b.error?.retryable).toBe(true)
  })

  it('retries are clamped by options.maxRetries', async () => {
    const { tool, stats } = flaky('flaky', 10)
    const outcome = await runtimeWith(tool).executePlan(
      { steps: [{ id: 'f', tool: 'flaky', retry: { max: 50, backoffMs: 0 } }] },
      { maxRetries: 2 },
    )
    expect(stats.calls).toBe(3)
    expect(outcome.steps.f.results.map((r) => r.attempt)).toEqual([1, 2, 3])
  })
})

describe('executePlan: onError', () => {
  const cases = [
    { onError: 'fail', plan: 'failed', step: 'failed', dependent: 'skipped', ran: false },
    { onError: 'continue', plan: 'ok', step: 'failed', dependent: 'ok', ran: true },
    { onError: 'skip', plan: 'ok', step: 'skipped', dependent: 'skipped', ran: false },
  ] as const
  for (const c of cases) {
    it(`onError: ${c.onError}`, async () => {
      const after = recorder('after')
      const runtime = runtimeWith(failing('bad'), after.tool)
      const outcome = await runtime.executePlan({
        steps: [
          { id: 'bad', tool: 'bad', onError: c.onError },
          { id: 'next', tool: 'after', args: { got: '$steps.bad.data' } },
        ],
      })
      expect(outcome.status).toBe(c.plan)
      expect(outcome.steps.bad.status).toBe(c.step)
      expect(outcome.steps.next.status).toBe(c.dependent)
      expect(after.calls.length > 0).toBe(c.ran)
      if (c.ran) expect(after.calls[0]).toEqual({ got: null })
      expect(outcome.steps.bad.results[0].status).toBe('error')
    })
  }
})

describe('executePlan: confirmation', () => {
  const plan = (): ActionPlan => ({
    runId: 'conf',
    confirmationsRequired: true,
    steps: [{ id: 'w', tool: 'write', args: { path: 'a.txt' }, preview: true }],
  })

  it('confirmed: every call carries the confirmationId', async () => {
    const write = recorder('write')
    const events: any[] = []
    const requests: any[] = []
    const outcome = await runtimeWith(write.tool).executePlan(plan(), {
      onEvent: (e) => events.push(e),
      confirm: async (request) => {
        requests.push(request)
        return true
      },
    })
    expect(outcome.status).toBe('ok')
    expect(requests[0]).toEqual({
      runId: 'conf',
      confirmationId: 'conf:confirmation',
      steps: [{ id: 'w', tool: 'write', args: { path: 'a.txt' }, preview: true }],
    })
    expect(outcome.results[0].confirmationId).toBe('conf:confirmation')
    const types = events.map((e) => e.type)
    expect(types.indexOf('run.confirmationRequested')).toBeLessThan(types.indexOf('run.confirmed'))
    expect(types.indexOf('run.confirmed')).toBeLessThan(types.indexOf('step.started'))
  })

  it('refused: cancelled, nothing runs', async () => {
    const write = recorder('write')
    const events: any[] = []
    const outcome = await runtimeWith(write.tool).executePlan(plan(), { onEvent: (e) => events.push(e), confirm: () => false })
    expect(outcome.status).toBe('cancelled')
    expect(write.calls).toHaveLength(0)
    expect(outcome.results).toHaveLength(0)
    expect(events.filter((e) => e.type === 'run.cancelled')).toHaveLength(1)
  })

  it('no confirm function: PRECONDITION_FAILED naming the option', async () => {
    const write = recorder('write')
    await expect(runtimeWith(write.tool).executePlan(plan())).rejects.toMatchObject({
      name: 'ToolwireError',
      code: 'PRECONDITION_FAILED',
      message: expect.stringContaining('options.confirm'),
    })
    expect(write.calls).toHaveLength(0)
  })

  it('a throwing confirm cancels with its message', async () => {
    const write = recorder('write')
    const events: any[] = []
    const outcome = await runtimeWith(write.tool).executePlan(plan(), {
      onEvent: (e) => events.push(e),
      confirm: () => {
        throw new Error('user walked away')
      },
    })
    expect(outcome.status).toBe('cancelled')
    expect(write.calls).toHaveLength(0)
    const cancelled = events.find((e) => e.type === 'run.cancelled')
    expect(cancelled.message).toContain('user walked away')
    expect(cancelled.level).toBe('warn')
  })

  it('a list confirms only the named steps', async () => {
    const write = recorder('write')
    const requests: any[] = []
    const outcome = await runtimeWith(write.tool).executePlan(
      {
        runId: 'some',
        confirmationsRequired: ['b'],
        steps: [
          { id: 'a', tool: 'write' },
          { id: 'b', tool: 'write' },
        ],
      },
      { confirm: (r) => (requests.push(r), true) },
    )
    expect(requests[0].steps.map((s: any) => s.id)).toEqual(['b'])
    expect(outcome.steps.a.results[0].confirmationId).toBeUndefined()
    expect(outcome.steps.b.results[0].confirmationId).toBe('some:confirmation')
  })
})

describe('executePlan: invalid plans and options', () => {
  const runtime = runtimeWith(recorder('t').tool)
  it('an unknown step reference names the step and the reference', async () => {
    const error: any = await runtime
      .executePlan({ steps: [{ id: 'a', tool: 't', args: { x: '$steps.nope.data' } }] })
      .catch((e) => e)
    expect(error.name).toBe('ToolwireError')
    expect(error.code).toBe('PLAN_INVALID')
    expect(error.message).toContain('"a"')
    expect(error.message).toContain('nope')
  })

  it('a cycle is named', async () => {
    const error: any = await runtime
      .executePlan({
        steps: [
          { id: 'a', tool: 't', dependsOn: ['b'] },
          { id: 'b', tool: 't', args: { v: '$steps.a.data' } },
        ],
      })
      .catch((e) => e)
    expect(error.code).toBe('PLAN_INVALID')
    expect(error.message).toMatch(/cycle/i)
    expect(error.message).toContain('"a"')
    expect(error.message).toContain('"b"')
  })

  it('bad options are TypeErrors naming the value', async () => {
    const plan = { steps: [{ id: 'a', tool: 't' }] }
    await expect(runtime.executePlan(plan, { maxConcurrency: 0 })).rejects.toThrow(/options\.maxConcurrency.*number 0/)
    await expect(runtime.executePlan(plan, { maxRetries: 101 })).rejects.toThrow(/options\.maxRetries/)
    await expect(runtime.executePlan(plan, { confirm: 'yes' as any })).rejects.toThrow(TypeError)
    await expect(runtime.executePlan(plan, { signal: {} as any })).rejects.toThrow(/options\.signal/)
  })
})

describe('executePlan: abort', () => {
  it('aborting mid-plan resolves cancelled and aborts the calls in flight', async () => {
    let sawAbort = false
    const slow: ToolDefinition = {
      name: 'slow',
      parameters: { type: 'object' },
      execute: (_id: string, _args: unknown, signal?: AbortSignal) =>
        new Promise((resolve) => {
          const timer = setTimeout(() => resolve('late'), 2000)
          signal?.addEventListener('abort', () => {
            sawAbort = true
            clearTimeout(timer)
            resolve('aborted')
          })
        }),
    }
    const after = recorder('after')
    const runtime = runtimeWith(slow, after.tool)
    const controller = new AbortController()
    const events: any[] = []
    const started = Date.now()
    const pending = runtime.executePlan(
      {
        steps: [
          { id: 's', tool: 'slow' },
          { id: 'next', tool: 'after', dependsOn: ['s'] },
        ],
      },
      { signal: controller.signal, onEvent: (e) => events.push(e) },
    )
    await sleep(30)
    controller.abort()
    const outcome = await pending
    expect(Date.now() - started).toBeLessThan(1500)
    expect(outcome.status).toBe('cancelled')
    expect(outcome.steps.s.status).toBe('cancelled')
    expect(after.calls).toHaveLength(0)
    expect(sawAbort).toBe(true)
    expect(events.filter((e) => e.type === 'run.cancelled')).toHaveLength(1)
    expect(events.at(-1).type).toBe('run.finished')
  })
})

describe('executePlan: events', () => {
  it('run.started first, run.finished last and once; every plan event is complete', async () => {
    const progress: ToolDefinition = {
      name: 'progress',
      parameters: { type: 'object' },
      async execute(_id: string, _args: unknown, _signal?: AbortSignal, onUpdate?: (p: unknown) => void) {
        onUpdate?.({ content: [{ type: 'text', text: 'half' }] })
        return 'done'
      },
    }
    const runtime = runtimeWith(progress, failing('bad'))
    const events: any[] = []
    const outcome = await runtime.executePlan(
      {
        runId: 'ev',
        steps: [
          { id: 'p', tool: 'progress' },
          { id: 'b', tool: 'bad', dependsOn: ['p'], onError: 'skip' },
          { id: 'c', tool: 'progress', dependsOn: ['b'] },
        ],
      },
      { onEvent: (e) => events.push(e) },
    )
    expect(outcome.status).toBe('ok')
    const planEvents: PlanEvent[] = events.filter((e) => e.type.startsWith('run.') || e.type.startsWith('step.'))
    expect(planEvents[0].type).toBe('run.started')
    expect(planEvents.at(-1)!.type).toBe('run.finished')
    expect(events.at(-1).type).toBe('run.finished')
    expect(events.filter((e) => e.type === 'run.finished')).toHaveLength(1)
    for (const event of planEvents) {
      expect(event.runId).toBe('ev')
      expect(typeof event.timestamp).toBe('number')
      expect(['info', 'warn', 'error']).toContain(event.level)
      expect(event.message).toMatch(/\.$|: /)
      if (event.type.startsWith('step.')) expect(typeof event.stepId).toBe('string')
    }
    const ofStep = (id: string) => planEvents.filter((e) => e.stepId === id).map((e) => e.type)
    expect(ofStep('p')).toEqual(['step.scheduled', 'step.started', 'step.progress', 'step.finished'])
    expect(ofStep('b')).toContain('step.skipped')
    expect(ofStep('c')).toEqual(['step.skipped'])
    const progressEvent = planEvents.find((e) => e.type === 'step.progress')!
    expect(progressEvent).toMatchObject({ stepId: 'p', tool: 'progress', attempt: 1, callId: 'ev:p' })
    expect(progressEvent.partialResult).toEqual({ content: [{ type: 'text', text: 'half' }] })
    expect(planEvents.find((e) => e.type === 'step.skipped')!.level).toBe('warn')
    // The tools' own events go through as they are.
    expect(events.some((e) => e.type === 'tool_execution_start')).toBe(true)
    expect(events.some((e) => e.type === 'tool_execution_update')).toBe(true)
  })

  it('a failed run ends with an error-level run.finished; a throwing listener only warns', async () => {
    const runtime = runtimeWith(failing('bad'))
    const levels: string[] = []
    const warnings: string[] = []
    const onWarning = (w: Error) => warnings.push(w.message)
    process.on('warning', onWarning)
    const outcome = await runtime.executePlan(
      { steps: [{ id: 'b', tool: 'bad' }] },
      {
        onEvent: (e: any) => {
          if (e.type === 'run.finished') levels.push(e.level)
          throw new Error('listener broke')
        },
      },
    )
    await sleep(10)
    process.off('warning', onWarning)
    expect(outcome.status).toBe('failed')
    expect(levels).toEqual(['error'])
    expect(warnings.some((w) => w.includes('listener broke'))).toBe(true)
  })
})

describe('executePlan: effects', () => {
  it('effects are kept on results', async () => {
    const edit: ToolDefinition = {
      name: 'edit',
      parameters: { type: 'object' },
      async execute() {
        return { content: [{ type: 'text', text: 'edited' }], effects: { modified: ['a.txt'] } }
      },
    }
    const outcome = await runtimeWith(edit).executePlan({ steps: [{ id: 'e', tool: 'edit' }] })
    expect(outcome.steps.e.results[0].effects).toEqual({ modified: ['a.txt'] })
  })
})

describe('executePlan: policy context', () => {
  it('passes provider, agentId and sender to every call, so ownerOnly and the policy apply', async () => {
    const runtime = new ToolRuntime({ policy: { byProvider: { openai: { deny: ['shell'] } } } })
    const ran: string[] = []
    for (const name of ['admin', 'shell']) {
      runtime.register({
        name,
        ownerOnly: name === 'admin',
        parameters: { type: 'object' },
        execute: async (id: string) => {
          ran.push(name)
          return 'ok'
        },
      })
    }
    const plan: ActionPlan = { steps: [{ id: 'a', tool: 'admin', args: {} }, { id: 's', tool: 'shell', args: {}, onError: 'continue' }] }
    const owner = await runtime.executePlan(plan, { provider: 'openai', sender: { id: 'u1', isOwner: true } })
    expect(owner.steps.a.status).toBe('ok')
    expect(owner.steps.s.results[0].error?.code).toBe('POLICY_DENIED')
    const guest = await runtime.executePlan({ steps: [{ id: 'a', tool: 'admin', args: {}, onError: 'continue' }] }, { sender: { id: 'u2' } })
    expect(guest.steps.a.results[0].error?.code).toBe('POLICY_DENIED')
    expect(ran).toEqual(['admin'])
  })
})

describe('executePlan: the marks of step events', () => {
  it('every step event of a confirmed foreach plan carries stepId, loopId and confirmationId; started and ended ones the attempt', async () => {
    const list = recorder('list', () => ({ items: ['a', 'b'] }))
    const use = recorder('use')
    const events: any[] = []
    const outcome = await runtimeWith(list.tool, use.tool).executePlan(
      {
        runId: 'marks',
        confirmationsRequired: true,
        steps: [
          { id: 'list', tool: 'list' },
          { id: 'each', tool: 'use', dependsOn: ['list'], foreach: '$steps.list.data.items', args: { v: '{item}' } },
        ],
      },
      { onEvent: (e) => events.push(e), confirm: async () => true },
    )
    expect(outcome.status).toBe('ok')
    const stepEvents = events.filter((e) => e.type.startsWith('step.'))
    const ofStep = (id: string) => stepEvents.filter((e) => e.stepId === id)
    expect(ofStep('each').map((e) => e.type)).toEqual(['step.scheduled', 'step.started', 'step.finished'])
    for (const event of stepEvents) {
      expect(event.confirmationId, event.type).toBe('marks:confirmation')
      expect(event.tool, event.type).toBe(event.stepId === 'list' ? 'list' : 'use')
    }
    for (const event of ofStep('each')) expect(event.loopId, event.type).toBe('marks:each')
    for (const event of ofStep('list')) expect(event.loopId, event.type).toBeUndefined()
    for (const event of stepEvents.filter((e) => e.type !== 'step.scheduled')) expect(event.attempt, event.type).toBe(1)
    // The results carry the same marks.
    for (const result of outcome.steps.each.results) expect(result).toMatchObject({ stepId: 'each', loopId: 'marks:each', confirmationId: 'marks:confirmation', attempt: 1 })
  })

  it('step.failed carries the error, the last attempt and the marks', async () => {
    const { tool, stats } = flaky('shaky', 5)
    const events: any[] = []
    const outcome = await runtimeWith(tool).executePlan(
      { runId: 'fails', confirmationsRequired: true, steps: [{ id: 's', tool: 'shaky', foreach: [1], retry: { max: 1, backoffMs: 0 } }] },
      { onEvent: (e) => events.push(e), confirm: async () => true },
    )
    expect(outcome.status).toBe('failed')
    expect(stats.calls).toBe(2)
    const failed = events.filter((e) => e.type === 'step.failed')
    expect(failed).toEqual([
      expect.objectContaining({
        type: 'step.failed',
        level: 'warn',
        runId: 'fails',
        stepId: 's',
        tool: 'shaky',
        attempt: 2,
        loopId: 'fails:s',
        confirmationId: 'fails:confirmation',
        error: expect.objectContaining({ code: 'EXECUTION_ERROR', message: expect.stringContaining('shaky failed call 2') }),
      }),
    ])
    expect(failed[0].message).toMatch(/^Step "s" failed: /)
  })
})

describe('executePlan: loop detection', () => {
  it('one plan is one run: a foreach over the same arguments warns, then is blocked', async () => {
    const runtime = new ToolRuntime({ loopDetection: { warnAt: 2, blockAt: 3 } })
    const same = recorder('same')
    runtime.register(same.tool)
    const events: any[] = []
    const plan = { steps: [{ id: 'again', tool: 'same', foreach: [1, 2, 3, 4], args: { path: 'a' } }] }
    const outcome = await runtime.executePlan(plan, { onEvent: (e) => events.push(e), maxConcurrency: 1 })
    expect(outcome.status).toBe('failed')
    const results = outcome.steps.again.results
    expect(results.map((r) => r.error?.code ?? r.status)).toEqual(['ok', 'ok', 'BLOCKED'])
    expect(same.calls).toHaveLength(2)
    expect(events.filter((e) => e.type === 'loop_warning')).toEqual([expect.objectContaining({ type: 'loop_warning', toolName: 'same', count: 2 })])
    // The next plan is another run: its counts start again.
    const again = await runtime.executePlan({ steps: [{ id: 'once', tool: 'same', args: { path: 'a' } }] })
    expect(again.status).toBe('ok')
  })
})

// Every user callback the plan driver awaits is raced with the signal and has a deadline: one
// that never answers can neither hang executePlan nor outlive an abort.
describe('executePlan: a confirm that never answers', () => {
  const plan = (): ActionPlan => ({ runId: 'silent', confirmationsRequired: true, steps: [{ id: 'a', tool: 'write', args: {} }] })
  const never = () => new Promise<boolean>(() => {})

  it('the signal aborting cancels the plan, nothing runs', async () => {
    const write = recorder('write')
    const ac = new AbortController()
    const events: any[] = []
    const running = runtimeWith(write.tool).executePlan(plan(), { confirm: never, signal: ac.signal, onEvent: (e) => events.push(e) })
    await sleep(5)
    ac.abort()
    const outcome = await running
    expect(outcome.status).toBe('cancelled')
    expect(write.calls).toHaveLength(0)
    const cancelled = events.filter((e) => e.type === 'run.cancelled')
    expect(cancelled).toHaveLength(1)
    expect(cancelled[0].reason).toContain('signal aborted')
  })

  it('an already aborted signal cancels without waiting for confirm', async () => {
    const write = recorder('write')
    const outcome = await runtimeWith(write.tool).executePlan(plan(), { confirm: never, signal: AbortSignal.abort() })
    expect(outcome.status).toBe('cancelled')
    expect(write.calls).toHaveLength(0)
  })

  it('past callbackTimeoutMs the plan is cancelled, the reason naming confirm and the deadline', async () => {
    const write = recorder('write')
    const events: any[] = []
    const outcome = await runtimeWith(write.tool).executePlan(plan(), { confirm: never, callbackTimeoutMs: 10, onEvent: (e) => events.push(e) })
    expect(outcome.status).toBe('cancelled')
    expect(write.calls).toHaveLength(0)
    const reason = events.find((e) => e.type === 'run.cancelled').reason
    expect(reason).toContain('options.confirm did not answer within 10 ms')
  })

  it.each([0, -1, 1.5, '10', Number.NaN])('callbackTimeoutMs %s is a TypeError naming it', async (bad) => {
    const write = recorder('write')
    await expect(runtimeWith(write.tool).executePlan(plan(), { confirm: () => true, callbackTimeoutMs: bad as any })).rejects.toThrow(/options\.callbackTimeoutMs/)
  })
})
