// Runs the strict consumer (__test__/consumer/strict.ts, type-checked on its own by
// tsconfig.strict.json): what it was typed to receive is what the runtime returns.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { exerciseEverything, type Summary } from './consumer/strict'
import { ToolServer } from './rap-server'

let server: ToolServer
let summary: Summary

describe('strict consumer', () => {
  beforeAll(async () => {
    server = await ToolServer.start()
    summary = await exerciseEverything(server.baseUrl)
  })
  afterAll(() => server?.close())

  it('registers, lists and defines tools', () => {
    expect(summary.info.map((tool) => tool.name)).toEqual(['add', 'shout', 'forbidden', 'guarded', 'list_files'])
    expect(summary.info.find((tool) => tool.name === 'list_files')?.plugin).toBe('extras')
    expect(summary.definitions.tools).toBeGreaterThan(0)
    expect(summary.definitions.reports.map((report) => report.tool)).toContain('add')
    expect(summary.policy).toBe(false)
  })

  it('dispatches with every option: aliases, hooks, policy, unknown tools, invalid JSON, approvals', () => {
    expect(summary.results).toEqual([
      'add: 5',
      'shout: HEY',
      'forbidden: blocked POLICY_DENIED',
      'missing: error NOT_FOUND',
      'add: error INVALID_JSON',
      'list_files: {"files":["a.txt","b.txt"]}',
      'guarded: approved',
    ])
    expect(summary.events).toContain('start add call_1')
    expect(summary.events).toContain('update add {"progress":0.5}')
    expect(summary.events).toContain('dispatch end add ok false')
    expect(summary.message).toMatchObject({ role: 'toolResult', toolCallId: 'call_1', toolName: 'add', isError: false, details: { sum: 5 } })
    expect(summary.record).toMatchObject({ toolCallId: 'call_1', name: 'add', args: { a: 2, b: 3 }, error: null })
    expect(summary.envelope).toMatchObject({ status: 'blocked', tool: 'forbidden' })
    // Anthropic: one user message holding every tool_result block; Chat: one tool message each.
    expect(summary.encoded).toEqual([1, 1])
    expect(summary.history).toBe(2)
    expect(summary.repaired).toEqual(['orphan'])
  })

  it('decodes a stream, narrowing every event', () => {
    expect(summary.streamEvents[0]).toBe('text thinking aloud')
    expect(summary.streamEvents).toContain('start 0 call_x add')
    expect(summary.streamEvents).toContain('end 0 add true')
    expect(summary.streamEvents.at(-1)).toBe('done toolUse')
    expect(summary.turn.toolCalls).toEqual([expect.objectContaining({ id: 'call_x', name: 'add', arguments: '{"a":1,"b":2}', complete: true })])
    expect(summary.turn.serverToolCalls.map((call) => call.name)).toEqual(['add'])
    expect(summary.repairs).toEqual([{ kind: 'missing-id', callIndex: 0 }])
  })

  it('normalizes schemas and ids, analyzes commands, sanitizes', () => {
    expect(summary.strictArgs).toEqual({})
    expect(summary.schemaRemoved.length + summary.schemaWarnings.length).toBeGreaterThan(0)
    expect(summary.ids[0]).toMatch(/^[a-zA-Z0-9]{9}$/)
    expect(summary.ids[1]).toBe('toolu_01')
    expect(summary.nameCheck).toBe(true)
    expect(summary.analysis.segments.map((segment) => segment.executable)).toEqual(['ls', 'head'])
    expect(summary.sanitized.text).toBe('red key [redacted:openai-key]')
    expect(summary.sanitized.report.ansi).toBeGreaterThan(0)
  })

  it('runs the agent loop and a plan, and reads the audit log back', () => {
    expect(summary.run).toMatchObject({ stopReason: 'stop', steps: 2 })
    expect(summary.run.events[0]).toBe('turn 1 of consumer-loop')
    expect(summary.run.events).toContain('end add ok false')
    expect(summary.run.events.at(-1)).toBe('run done stop')
    expect(summary.plan.status).toBe('ok')
    expect(summary.plan.steps).toEqual(['sum ok 1', 'loud ok 1', 'each ok 2'])
    expect(summary.plan.events[0]).toMatch(/^run\.started /)
    expect(summary.plan.events.some((event) => event.startsWith('start shout '))).toBe(true)
    expect(summary.plan.events.at(-1)).toMatch(/^run\.finished .* ok$/)
    expect(summary.audit).toEqual({ ok: true, calls: 7 })
    expect(summary.approvals).toEqual(['guarded: approved', 'deploy: pending APPROVAL_REQUIRED', 'deploy: deployed'])
    expect(summary.errors).toEqual(['CONFLICT', 'true', 'false'])
  })

  it('loads a remote (RAP) toolset, closes a thread, and refuses an unknown user choice', () => {
    expect(summary.rap?.names).toContain('r_echo')
    expect(summary.rap?.result).toBe('r_echo: echo {"word":"remote"}')
    expect(summary.rap?.choice).toBe('NOT_FOUND')
    expect(server.requests('/close_thread').map((seen) => seen.body)).toEqual([{ thread_id: 'consumer-thread' }])
  })
})
