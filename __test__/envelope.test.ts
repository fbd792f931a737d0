import { readFileSync } from 'node:fs'
import { join } from 'node:path'

import Ajv2020 from 'ajv/dist/2020.js'
import { describe, expect, it } from 'vitest'

import {
  ToolRuntime,
  toErrorEnvelope,
  toInvocationRecord,
  toToolResultMessage,
  type ToolCall,
  type ToolExecutionEvent,
  type ToolResult,
} from '../dist/index.js'

const schema = (name: string) => JSON.parse(readFileSync(join(__dirname, '..', 'schemas', name), 'utf8'))

async function variedResults() {
  // Only the hanging tool has a short deadline: on a loaded machine a quick tool must not time out.
  const runtime = new ToolRuntime()
  runtime.register({ name: 'agent', parameters: { type: 'object' }, execute: () => ({ content: [{ type: 'text', text: 'a' }], details: { d: 1 } }) })
  runtime.register({ name: 'value', parameters: { type: 'object' }, execute: () => [1, 'two'] })
  runtime.register({ name: 'text', parameters: { type: 'object' }, execute: () => 'plain' })
  runtime.register({ name: 'nothing', parameters: { type: 'object' }, execute: () => undefined })
  runtime.register({ name: 'image', parameters: { type: 'object' }, execute: () => ({ content: [{ type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' }] }) })
  runtime.register({ name: 'throws', parameters: { type: 'object' }, execute: () => { throw new Error('no') } })
  runtime.register({ name: 'hangs', parameters: { type: 'object' }, timeoutMs: 30, execute: () => new Promise(() => {}) })
  runtime.register({ name: 'strict', parameters: { type: 'object', required: ['x'] }, execute: () => 'x' })
  const events: ToolExecutionEvent[] = []
  const calls: ToolCall[] = []
  const names = ['agent', 'value', 'text', 'nothing', 'image', 'throws', 'hangs', 'strict', 'missing', 'agent']
  const results = await runtime.dispatch(
    names.map((name, i) => ({ id: `call_${i}`, name, arguments: i === 9 ? '{' : '{}' })),
    {
      runId: 'run-7',
      onEvent: (e) => events.push(e),
      beforeToolCall: ({ call }) => {
        calls.push(call)
      },
    },
  )
  return { results, events, calls }
}

describe('the envelope', () => {
  it('carries every field of the contract', async () => {
    const { results } = await variedResults()
    for (const result of results) {
      for (const key of ['callId', 'tool', 'args', 'attempt', 'status', 'ok', 'content', 'startedAt', 'endedAt', 'durationMs']) {
        expect(result, `${result.callId} has ${key}`).toHaveProperty(key)
      }
      expect(result.runId).toBe('run-7')
      expect(result.attempt).toBe(1)
      expect(result.ok).toBe(result.status === 'ok')
      expect(result.endedAt).toBeGreaterThanOrEqual(result.startedAt)
      if (!result.ok) {
        expect(result.error?.code).toBeTruthy()
        expect(result.content[0]).toMatchObject({ type: 'text', text: expect.stringMatching(/\S/) })
      }
    }
    expect(results.map((r) => r.status)).toEqual(['ok', 'ok', 'ok', 'ok', 'ok', 'error', 'timeout', 'error', 'error', 'error'])
  })

  it('validates against the shipped JSON Schemas', async () => {
    const { results, events, calls } = await variedResults()
    const ajv = new Ajv2020({ allErrors: true, strict: false })
    const checkResult = ajv.compile(schema('tool-result.json'))
    const checkEvent = ajv.compile(schema('tool-execution-event.json'))
    const checkCall = ajv.compile(schema('tool-call.json'))
    for (const result of results) expect(checkResult(result), JSON.stringify(checkResult.errors)).toBe(true)
    for (const event of events) expect(checkEvent(event), JSON.stringify(checkEvent.errors)).toBe(true)
    expect(calls.length).toBeGreaterThan(0)
    for (const call of calls) expect(checkCall(call), JSON.stringify(checkCall.errors)).toBe(true)
    // The schemas are not vacuous: a broken result fails.
    expect(checkResult({ ...results[0], status: 'fine' })).toBe(false)
    expect(checkResult({ ...results[0], content: [{ type: 'text' }] })).toBe(false)
  })
})

describe('projections', () => {
  const ok: ToolResult = {
    callId: 'c1', tool: 'read', args: { path: 'a' }, attempt: 1, status: 'ok', ok: true,
    content: [{ type: 'text', text: 'hello' }], details: { size: 5 }, startedAt: 100, endedAt: 130, durationMs: 30,
  }
  const failed = (status: ToolResult['status'], code: 'EXECUTION_ERROR' | 'BLOCKED' | 'APPROVAL_REQUIRED' | 'TIMEOUT'): ToolResult => ({
    ...ok, status, ok: false, details: undefined, content: [{ type: 'text', text: 'why' }], error: { code, message: 'why' },
  })

  it('toToolResultMessage gives the pi tool result message', () => {
    expect(toToolResultMessage(ok)).toEqual({
      role: 'toolResult', toolCallId: 'c1', toolName: 'read', content: ok.content, details: { size: 5 }, isError: false, timestamp: 130,
    })
    expect(toToolResultMessage(failed('error', 'EXECUTION_ERROR')).isError).toBe(true)
  })

  it('toInvocationRecord gives what ran, what came back and when', () => {
    expect(toInvocationRecord(ok)).toEqual({
      toolCallId: 'c1', name: 'read', args: { path: 'a' }, result: { content: ok.content, details: { size: 5 } }, error: null, startedAtMs: 100, endedAtMs: 130,
    })
    expect(toInvocationRecord({ ...ok, data: [1] }).result).toEqual([1])
    expect(toInvocationRecord(failed('timeout', 'TIMEOUT'))).toMatchObject({ result: null, error: 'why' })
  })

  it('toErrorEnvelope gives the legacy error, blocked and pending envelopes', () => {
    expect(toErrorEnvelope(ok)).toBeNull()
    expect(toErrorEnvelope(failed('error', 'EXECUTION_ERROR'))).toEqual({ status: 'error', tool: 'read', error: 'why' })
    expect(toErrorEnvelope(failed('timeout', 'TIMEOUT'))).toEqual({ status: 'error', tool: 'read', error: 'why' })
    expect(toErrorEnvelope(failed('blocked', 'BLOCKED'))).toEqual({ status: 'blocked', tool: 'read', reason: 'why' })
    expect(toErrorEnvelope(failed('pending', 'APPROVAL_REQUIRED'))).toEqual({ status: 'pending', tool: 'read', message: 'why' })
  })
})
