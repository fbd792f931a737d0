// Remote tools over the Reactive Agent Protocol, end to end: a tool server written on Node's http
// module (./rap-server.ts) serves the toolset and POSTs its callbacks; toolwire's Rust transport
// invokes it and receives them; the results come back through the ordinary dispatcher.

import { spawn } from 'node:child_process'
import { request } from 'node:http'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import { afterAll, describe, expect, it } from 'vitest'

import { ToolRuntime, repairHistory, replayRun, verifyRun } from '../dist/index.js'
import type { RapEvent, RuntimeOptions, ToolResult, Wire } from '../dist/index.js'
import { manifest, PIXEL, ToolServer } from './rap-server.js'
import { scriptedModel } from './scripted.js'
import { rejection, textOf } from './helpers.js'

const servers: ToolServer[] = []
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()))
})

async function server(toolset?: object): Promise<ToolServer> {
  const started = await ToolServer.start(toolset)
  servers.push(started)
  return started
}

/** A runtime with the test toolset loaded, its RAP events collected. */
async function loaded(options: RuntimeOptions = {}, toolset?: object) {
  const tools = await server(toolset)
  const events: RapEvent[] = []
  const runtime = new ToolRuntime({
    ...options,
    onEvent: (event) => {
      if (event.type.startsWith('rap_')) events.push(event as RapEvent)
    },
  })
  const names = await runtime.addRapToolset(tools.baseUrl)
  return { tools, runtime, events, names }
}

const call = (id: string, name: string, args: object = {}) => ({ id, name, arguments: JSON.stringify(args) })

/** Resolves once `test` holds for one of `events`, checking again on each new event. */
async function eventually<T>(events: T[], test: (event: T) => boolean): Promise<T> {
  for (;;) {
    const found = events.find(test)
    if (found !== undefined) return found
    await new Promise((resolve) => setImmediate(resolve))
  }
}

describe('addRapToolset', () => {
  it('registers the toolset under its own names, or with a prefix, as ordinary tools', async () => {
    const { runtime, names, tools } = await loaded()
    expect(names).toEqual(['echo', 'image', 'fail', 'reject', 'flaky', 'slow', 'delayed', 'subscribe', 'watch', 'events', 'eventfirst', 'twice', 'big'])
    const listed = runtime.list().map((t: any) => t.name)
    expect(listed).toEqual(expect.arrayContaining([...names, 'cancel_subscription']))
    expect(listed).not.toContain('receive_event__injected')
    expect(tools.requests('/.well-known/rap-toolset')).toHaveLength(1)
    const echo = runtime.definitions('openai-chat').tools.find((t: any) => t.function.name === 'echo') as any
    expect(echo.function.description).toBe('Echoes its arguments')
    expect(echo.function.parameters.required).toEqual(['word'])

    const prefixed = new ToolRuntime()
    const other = await server()
    expect(await prefixed.addRapToolset(other.baseUrl, { prefix: 'r_' })).toContain('r_echo')
    const [result] = await prefixed.dispatch([call('p1', 'r_echo', { word: 'hi' })])
    expect(textOf(result)).toBe('echo {"word":"hi"}')
    // The invocation names the toolset's own tool.
    expect((await other.waitFor((s) => s.body?.id === 'p1')).body.operation).toBe('echo')
  })

  it('refuses an invalid toolset whole, naming the offending value', async () => {
    const bad = await server(manifest('bad', [{ name: 'ok_tool', description: '', inputSchema: {} }, { name: 'bad name', description: '', inputSchema: {} }]))
    const runtime = new ToolRuntime()
    const error = await rejection(runtime.addRapToolset(bad.baseUrl))
    expect(error.code).toBe('VALIDATION_ERROR')
    expect(error.message).toContain('"bad name"')
    expect(runtime.list()).toEqual([])

    const schema = await server(manifest('schema', [{ name: 'typed', description: '', inputSchema: { type: 'nonsense' } }]))
    const schemaError = await rejection(runtime.addRapToolset(schema.baseUrl))
    expect(schemaError.message).toContain('inputSchema of tool "typed"')

    // Valid for RAP (up to 128 characters) but not for the runtime (64): undone whole, on both sides.
    const long = 'n'.repeat(100)
    const tooLong = await server(manifest('long', [{ name: 'short_one', description: '', inputSchema: {} }, { name: long, description: '', inputSchema: {} }]))
    for (let attempt = 0; attempt < 2; attempt++) {
      const longError = await rejection(runtime.addRapToolset(tooLong.baseUrl))
      expect(longError.code).toBe('VALIDATION_ERROR')
      expect(longError.message).toContain(long)
    }
    expect(runtime.list()).toEqual([])

    const error404 = await rejection(runtime.addRapToolset(`${bad.baseUrl}/nothing`))
    expect(error404.message).toContain('404')
    const options = await rejection(runtime.addRapToolset(bad.baseUrl, { retry: { maxAttempts: 0 } }))
    expect(options.code).toBe('VALIDATION_ERROR')
    expect(options.message).toContain('maxAttempts')
    expect(runtime.list()).toEqual([])
  })

  it('refuses a toolset duplicating a loaded or registered name whole; the earlier tools stay', async () => {
    const { runtime, tools } = await loaded()
    const clash = await server(manifest('clash', [{ name: 'fresh', description: '', inputSchema: {} }, { name: 'echo', description: '', inputSchema: {} }]))
    const error = await rejection(runtime.addRapToolset(clash.baseUrl))
    expect(error.code).toBe('CONFLICT')
    expect(error.message).toContain('"echo"')
    expect(runtime.list().map((t: any) => t.name)).not.toContain('fresh')

    runtime.register({ name: 'local', parameters: { type: 'object' }, execute: async () => 'local' })
    const local = await server(manifest('local', [{ name: 'new_one', description: '', inputSchema: {} }, { name: 'local', description: '', inputSchema: {} }]))
    const localError = await rejection(runtime.addRapToolset(local.baseUrl))
    expect(localError.code).toBe('CONFLICT')
    expect(localError.message).toContain('"local"')
    expect(runtime.list().map((t: any) => t.name)).not.toContain('new_one')
    for (const reserved of ['receive_event__injected', 'cancel_subscription']) {
      const own = await server(manifest(`own_${reserved}`, [{ name: reserved, description: '', inputSchema: {} }]))
      const ownError = await rejection(runtime.addRapToolset(own.baseUrl))
      expect(ownError.code).toBe('CONFLICT')
      expect(ownError.message).toContain(`"${reserved}"`)
    }
    // Refused whole on the transport's side too: the same toolset loads under a prefix.
    expect(await runtime.addRapToolset(local.baseUrl, { prefix: 'l_' })).toEqual(['l_new_one', 'l_local'])

    const [echo, mine] = await runtime.dispatch([call('d1', 'echo', { word: 'still' }), call('d2', 'local')])
    expect(textOf(echo)).toBe('echo {"word":"still"}')
    expect(textOf(mine)).toBe('local')
    expect(tools.requests('/invoke').map((s) => s.body.id)).toEqual(['d1'])

    // Unregistering a remote tool frees its name: the clashing toolset now loads.
    expect(runtime.unregister('echo')).toBe(true)
    const [gone] = await runtime.dispatch([call('d3', 'echo', { word: 'x' })])
    expect(gone.error!.code).toBe('NOT_FOUND')
    expect(await runtime.addRapToolset(clash.baseUrl)).toEqual(['fresh', 'echo'])
    const [fresh] = await runtime.dispatch([call('d4', 'echo', {})])
    expect(fresh.status).toBe('ok')
    expect(clash.requests('/invoke').map((s) => s.body.id)).toEqual(['d4'])
  })
})

describe('toolset options', () => {
  it('sends the headers with the manifest fetch, every invocation, cancels and close_thread', async () => {
    const tools = await server()
    const runtime = new ToolRuntime()
    await runtime.addRapToolset(tools.baseUrl, { headers: { 'x-api-key': 'k-123' } })
    await runtime.dispatch([call('h1', 'echo', { word: 'x' })])
    const [late] = await runtime.dispatch([call('h2', 'slow')], { timeoutMs: 100, groupId: 'thread-h' })
    expect(late.status).toBe('timeout')
    await runtime.closeThread('thread-h')
    for (const path of ['/.well-known/rap-toolset', '/invoke', '/cancel_tool_call', '/close_thread']) {
      expect((await tools.waitFor((s) => s.path === path)).headers['x-api-key'], path).toBe('k-123')
    }
    const bad = await rejection(new ToolRuntime().addRapToolset(tools.baseUrl, { headers: { 'bad header': 'v' } }))
    expect(bad.code).toBe('VALIDATION_ERROR')
    expect(bad.message).toContain('bad header')
  })

  it('refuses a toolset whose endpoint is on another origin when headers would go there', async () => {
    const elsewhere = await server()
    const tools = await server({ ...manifest('moved'), endpoint: `${elsewhere.baseUrl}/invoke` })
    const runtime = new ToolRuntime()
    const error = await rejection(runtime.addRapToolset(tools.baseUrl, { headers: { 'x-api-key': 'k-123' } }))
    expect(error.code).toBe('VALIDATION_ERROR')
    expect(error.message).toContain(elsewhere.baseUrl)
    expect(error.message).toContain(tools.baseUrl)
    expect(runtime.list()).toEqual([])
    // Without headers nothing is leaked: it loads and invokes the other origin.
    await runtime.addRapToolset(tools.baseUrl)
    const [result] = await runtime.dispatch([call('o1', 'echo', { word: 'there' })])
    expect(textOf(result)).toBe('echo {"word":"there"}')
    expect(elsewhere.requests('/invoke').map((s) => s.body.id)).toEqual(['o1'])
    expect(elsewhere.requests('/invoke')[0].headers['x-api-key']).toBeUndefined()
  })

  it('binds the callback server where asked and hands tools publicUrl; later toolsets cannot change them', async () => {
    const probe = await ToolServer.start()
    const port = Number(new URL(probe.baseUrl).port)
    await probe.close()
    const tools = await server()
    const runtime = new ToolRuntime()
    await runtime.addRapToolset(tools.baseUrl, { bind: `127.0.0.1:${port}`, publicUrl: `http://localhost:${port}/` })
    const [result] = await runtime.dispatch([call('b1', 'echo', { word: 'via localhost' })])
    expect(textOf(result)).toBe('echo {"word":"via localhost"}')
    expect(tools.callbacks.get('b1')).toMatch(new RegExp(`^http://localhost:${port}/rap/callback/`))

    const other = await server(manifest('other', [{ name: 'other_tool', description: '', inputSchema: {} }]))
    const moved = await rejection(runtime.addRapToolset(other.baseUrl, { bind: '127.0.0.1:0' }))
    expect(moved.code).toBe('VALIDATION_ERROR')
    expect(moved.message).toContain('127.0.0.1:0')
    // A first load that fails fixes nothing: the next one chooses the callback server's options.
    const retried = new ToolRuntime()
    const missing = await rejection(retried.addRapToolset(`${other.baseUrl}/nothing`, { publicUrl: 'http://first.example' }))
    expect(missing.message).toContain('404')
    expect(await retried.addRapToolset(other.baseUrl, { bind: '127.0.0.1:0' })).toEqual(['other_tool'])
    const fixed = await rejection(retried.addRapToolset(tools.baseUrl, { publicUrl: 'http://first.example' }))
    expect(fixed.code).toBe('VALIDATION_ERROR')
    const badBind = await rejection(new ToolRuntime().addRapToolset(other.baseUrl, { bind: 'nowhere' }))
    expect(badBind.message).toContain('"nowhere"')
    // Checked when the toolset is added, not when the first call starts the callback server.
    const badUrl = await rejection(new ToolRuntime().addRapToolset(other.baseUrl, { publicUrl: 'ftp://hooks.example' }))
    expect(badUrl.code).toBe('VALIDATION_ERROR')
    expect(badUrl.message).toContain('ftp://hooks.example')
  })

  // Seen in the issue 19 round 9 attack review (10.mjs): a callback over maxCallbackBytes was
  // answered 413 (or its connection cut) and lost: its call waited out its deadline.
  it('a result over maxCallbackBytes ends its call at once, LIMIT_EXCEEDED naming the limit; the server gets 413 saying so', async () => {
    const tools = await server()
    const runtime = new ToolRuntime()
    await runtime.addRapToolset(tools.baseUrl, { maxCallbackBytes: 1000 })
    const [small, big] = await runtime.dispatch([call('m1', 'echo', { word: 'small' }), call('m2', 'echo', { word: 'x'.repeat(2000) })], {
      timeoutMs: 60_000,
    })
    expect(small.status).toBe('ok')
    expect(big).toMatchObject({ status: 'error', error: { code: 'LIMIT_EXCEEDED', retryable: false } })
    expect(textOf(big)).toContain('maxCallbackBytes (1000 bytes)')
    // (the call ends as the server refuses the body, before the tool server reads its answer)
    expect(await eventually(tools.callbackStatus, (c) => c.id === 'm2')).toMatchObject({ status: 413 })
  })
})

/**
 * POSTs `body` to `url` as a plain client does (no 100-continue: the whole body is written at
 * once, as in the review's repro); resolves with the status and the answer's text.
 */
function postPlain(url: string, body: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve) => {
    const req = request(url, { method: 'POST', headers: { 'content-type': 'application/json' } }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (chunk: Buffer) => chunks.push(chunk))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString() }))
    })
    req.on('error', (error) => resolve({ status: 0, text: String(error) }))
    req.end(body)
  })
}

describe('callbacks over maxCallbackBytes', () => {
  // Seen in the issue 19 round 9 attack review (10.mjs): a subscription_event over the limit
  // was cut off (EPIPE or 413), no final error event came, and the subscription stayed open:
  // the event was lost silently and the next one delivered as if nothing happened.
  it('an event over the limit ends its subscription with one typed LIMIT_EXCEEDED event; the server reads 413 saying so', async () => {
    const tools = await server()
    const events: RapEvent[] = []
    const runtime = new ToolRuntime({ onEvent: (e) => e.type.startsWith('rap_') && events.push(e as RapEvent) })
    await runtime.addRapToolset(tools.baseUrl, { maxCallbackBytes: 64 * 1024 })
    const [subscribed] = await runtime.dispatch([call('subL', 'watch')], { groupId: 'thread-l' })
    expect(subscribed).toMatchObject({ status: 'ok', details: { subscription: true } })
    const url = tools.callbacks.get('subL') as string
    const event = (text: string) => JSON.stringify({ type: 'subscription_event', group_id: 'thread-l', tool_call_id: 'subL', text })
    // the whole body written at once, no 100-continue: the answer still arrives
    const answer = await postPlain(url, event('big ' + 'a'.repeat(1 << 20)))
    expect(answer.status).toBe(413)
    expect(answer.text).toContain('maxCallbackBytes (65536 bytes)')
    expect(answer.text).toContain('LIMIT_EXCEEDED')
    const ended = await eventually(events, (e) => e.type === 'rap_subscription_event')
    expect(ended).toMatchObject({
      callId: 'subL',
      groupId: 'thread-l',
      message: { final: true, text: expect.stringMatching(/^Error: .*maxCallbackBytes \(65536 bytes\)/) },
      error: { code: 'LIMIT_EXCEEDED', message: expect.stringContaining('maxCallbackBytes (65536 bytes)') },
    })
    // over: the next event is refused, not delivered, and the link knows the subscription is closed
    expect((await postPlain(url, event('next event'))).status).toBe(404)
    expect(events.filter((e) => e.type === 'rap_subscription_event')).toHaveLength(1)
    const [cancel] = await runtime.dispatch([call('x4', 'cancel_subscription', { tool_call_id: 'subL' })], { groupId: 'thread-l' })
    expect(textOf(cancel)).toContain('No open subscription')
  })

  it('an oauth, user_choice or view_update over the limit ends its pending call LIMIT_EXCEEDED', async () => {
    for (const [type, fields] of [
      ['oauth', { auth_url: 'https://auth.example/' }],
      ['user_choice', { prompt: 'pick', choices: ['a'], response_url: 'http://127.0.0.1:1/' }],
      ['view_update', { view_type: 'diff', content: {} }],
    ] as const) {
      const tools = await server()
      const runtime = new ToolRuntime()
      await runtime.addRapToolset(tools.baseUrl, { maxCallbackBytes: 64 * 1024 })
      const pending = runtime.dispatch([call('p1', 'slow')], { groupId: 'thread-p', timeoutMs: 60_000 })
      await tools.waitFor((s) => s.body?.id === 'p1')
      const body = JSON.stringify({ type, group_id: 'thread-p', id: 'p1', ...fields, pad: 'a'.repeat(100_000) })
      expect((await postPlain(tools.callbacks.get('p1') as string, body)).status).toBe(413)
      const [result] = await pending
      expect(result.error?.code, type).toBe('LIMIT_EXCEEDED')
      expect(textOf(result), type).toContain('maxCallbackBytes (65536 bytes)')
    }
  })
})

describe('remote calls', () => {
  it('posts the invocation with the call id and the thread, and maps text, images and errors', async () => {
    const { runtime, tools } = await loaded()
    const results = await runtime.dispatch(
      [call('t1', 'echo', { word: 'hi' }), call('t2', 'image'), call('t3', 'fail'), call('t4', 'reject')],
      { runId: 'run-7' },
    )
    const [text, image, failed, rejected] = results
    expect(text).toMatchObject({ status: 'ok', content: [{ type: 'text', text: 'echo {"word":"hi"}' }] })
    const invocation = (await tools.waitFor((s) => s.body?.id === 't1')).body
    expect(invocation).toMatchObject({
      operation: 'echo',
      arguments: { word: 'hi' },
      id: 't1',
      call_id: 't1',
      group_id: 'run-7',
      thread_ancestors: [],
    })
    // The token: a 64-bit selector and a 128-bit secret, in hex.
    expect(invocation.callback_url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/rap\/callback\/[0-9a-f]{48}$/)
    expect(Object.keys(invocation).sort()).toEqual(['arguments', 'call_id', 'callback_url', 'group_id', 'id', 'operation', 'thread_ancestors'])
    expect(invocation).not.toHaveProperty('user_id')

    expect(image.status).toBe('ok')
    expect(image.content).toEqual([
      { type: 'text', text: 'a pixel' },
      { type: 'image', data: PIXEL, mimeType: 'image/png' },
    ])
    expect(image.details).toEqual({ display_as: [{ type: 'text', content: 'pixel' }] })

    expect(failed).toMatchObject({ status: 'error', error: { code: 'EXECUTION_ERROR', message: 'Error: the tool failed' } })

    expect(rejected).toMatchObject({ status: 'error', error: { code: 'EXECUTION_ERROR', retryable: false } })
    expect(rejected.error!.message).toContain('HTTP 400')
    // 4xx is never retried.
    expect(tools.requests('/invoke').filter((s) => s.body.id === 't4')).toHaveLength(1)
  })

  it('a remote call approved later runs in its dispatch\'s thread, for its user', async () => {
    const tools = await server()
    const runtime = new ToolRuntime({ approvals: { ask: 'always' } })
    await runtime.addRapToolset(tools.baseUrl)
    const thread = { groupId: 'thread-approve', userId: 'u-9', threadAncestors: ['root-1'] }
    const [pending] = await runtime.dispatch([call('ap1', 'echo', { word: 'later' })], { runId: 'run-ap', ...thread })
    expect(pending).toMatchObject({ status: 'pending', error: { code: 'APPROVAL_REQUIRED' } })
    expect(tools.requests('/invoke')).toHaveLength(0)
    const approved = await runtime.resolveApproval((pending.details as any).approvalId, 'allow-once')
    expect(textOf(approved)).toBe('echo {"word":"later"}')
    expect(tools.requests('/invoke')[0].body).toMatchObject({ id: 'ap1', group_id: 'thread-approve', user_id: 'u-9', thread_ancestors: ['root-1'] })
  })

  it('delivers a result once: a repeat is answered 200 when identical, 409 when different', async () => {
    const { runtime, tools } = await loaded()
    const [result] = await runtime.dispatch([call('r1', 'twice')])
    expect(textOf(result)).toBe('once')
    await eventually(tools.callbackStatus, (c) => c.status === 409)
    expect(tools.callbackStatus.map((c) => c.status)).toEqual([200, 200, 409])
  })

  it('retries a 503 until the server accepts, within the retry bound', async () => {
    const { runtime, tools } = await loaded()
    const [flaky] = await runtime.dispatch([call('f1', 'flaky')])
    expect(textOf(flaky)).toBe('ok after 2 attempts')
    expect(tools.requests('/invoke').filter((s) => s.body.id === 'f1')).toHaveLength(2)

    const once = new ToolRuntime()
    const other = await server()
    await once.addRapToolset(other.baseUrl, { retry: { maxAttempts: 1, baseDelayMs: 1 } })
    const [exhausted] = await once.dispatch([call('f2', 'flaky')])
    expect(exhausted.status).toBe('error')
    expect(exhausted.error!.message).toContain('HTTP 503')
    expect(other.requests('/invoke')).toHaveLength(1)
  })

  it('ends a call without a callback by its deadline as TIMEOUT and sends the cancel', async () => {
    const { runtime, tools } = await loaded()
    const [late] = await runtime.dispatch([call('s1', 'slow')], { timeoutMs: 200, groupId: 'thread-s' })
    expect(late).toMatchObject({ status: 'timeout', error: { code: 'TIMEOUT' } })
    const cancel = await tools.waitFor((s) => s.path === '/cancel_tool_call')
    expect(cancel.body).toEqual({ thread_id: 'thread-s', tool_call_id: 's1' })

    // The toolset's own timeoutMs is the tools' deadline.
    const own = new ToolRuntime()
    const other = await server()
    await own.addRapToolset(other.baseUrl, { timeoutMs: 150 })
    expect(own.list().find((t: any) => t.name === 'slow')).toMatchObject({ timeoutMs: 150 })
    const [timed] = await own.dispatch([call('s2', 'slow')], { runId: 'r-own' })
    expect(timed.status).toBe('timeout')
    expect((await other.waitFor((s) => s.path === '/cancel_tool_call')).body).toEqual({ thread_id: 'r-own', tool_call_id: 's2' })
  })

  it('cancels a call when its dispatch aborts, and sends the cancel', async () => {
    const { runtime, tools } = await loaded()
    const controller = new AbortController()
    const pending = runtime.dispatch([call('a1', 'slow')], { signal: controller.signal, groupId: 'thread-a' })
    await tools.waitFor((s) => s.body?.id === 'a1')
    controller.abort()
    const [aborted] = await pending
    expect(aborted).toMatchObject({ status: 'cancelled', error: { code: 'CANCELLED' } })
    const cancel = await tools.waitFor((s) => s.path === '/cancel_tool_call')
    expect(cancel.body).toEqual({ thread_id: 'thread-a', tool_call_id: 'a1' })
  })

  it('goes through the runtime like any tool: events, sanitization and the audit log', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'toolwire-rap-audit-'))
    try {
      const tools = await server()
      const events: any[] = []
      const runtime = new ToolRuntime({ audit: { dir }, sanitize: { maxResultChars: 200 }, onEvent: (e) => events.push(e) })
      await runtime.addRapToolset(tools.baseUrl)
      const [long] = await runtime.dispatch([call('au1', 'echo', { word: 'w'.repeat(5000) })], { runId: 'rap-run' })
      expect(long.status).toBe('ok')
      expect(textOf(long).length).toBeLessThan(1000)
      expect(long.sanitization!.truncated.length).toBeGreaterThan(0)
      expect(events.filter((e) => e.toolCallId === 'au1').map((e) => e.type)).toEqual(['tool_execution_start', 'tool_execution_end'])
      const replay = replayRun(join(dir, 'rap-run'))
      expect(replay.calls.map((c: any) => [c.callId, c.tool])).toEqual([['au1', 'echo']])
      expect(replay.results.map((r: any) => [r.callId, r.status])).toEqual([['au1', 'ok']])
      expect(verifyRun(join(dir, 'rap-run'))).toEqual({ ok: true, problems: [] })
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it('never invokes a call the policy denies or whose arguments are invalid', async () => {
    const { runtime, tools } = await loaded({ policy: { deny: ['image'] } })
    const [denied, invalid, fine] = await runtime.dispatch([call('n1', 'image'), call('n2', 'echo', { word: 5 }), call('n3', 'echo', { word: 'ok' })])
    expect(denied).toMatchObject({ status: 'blocked', error: { code: 'POLICY_DENIED' } })
    expect(invalid).toMatchObject({ status: 'error', error: { code: 'VALIDATION_ERROR' } })
    expect(fine.status).toBe('ok')
    expect(tools.requests('/invoke').map((s) => s.body.id)).toEqual(['n3'])
  })

  it('sends the user and the thread ancestors given with the dispatch', async () => {
    const { runtime, tools } = await loaded()
    const [result] = await runtime.dispatch([call('u1', 'echo', { word: 'who' })], {
      groupId: 'child-thread',
      userId: 'user-17',
      threadAncestors: ['root-thread', 'parent-thread'],
    })
    expect(result.status).toBe('ok')
    const invocation = (await tools.waitFor((s) => s.body?.id === 'u1')).body
    expect(invocation).toMatchObject({
      group_id: 'child-thread',
      user_id: 'user-17',
      thread_ancestors: ['root-thread', 'parent-thread'],
    })
    await expect(runtime.dispatch([call('u2', 'echo', { word: 'x' })], { userId: 17 as any })).rejects.toThrow(/options\.userId must be a string, got number 17/)
    await expect(runtime.dispatch([call('u3', 'echo', { word: 'x' })], { threadAncestors: ['a', 2] as any })).rejects.toThrow(
      /options\.threadAncestors must be an array of strings/,
    )
  })

  it('refuses a model call of receive_event__injected and a bad groupId', async () => {
    const { runtime, tools } = await loaded()
    const [injected] = await runtime.dispatch([call('i1', 'receive_event__injected', { original_tool_name: 'echo' })])
    expect(injected).toMatchObject({ status: 'error', error: { code: 'NOT_FOUND' } })
    expect(tools.requests('/invoke')).toHaveLength(0)
    await expect(runtime.dispatch([call('i2', 'echo', { word: 'x' })], { groupId: 7 as any })).rejects.toThrow(/groupId/)
  })
})

describe('events, choices and threads', () => {
  it('delivers oauth, user choice and view update events to the runtime onEvent; answers a choice', async () => {
    const { runtime, tools, events } = await loaded()
    const dispatched = runtime.dispatch([call('e1', 'events')], { groupId: 'thread-e' })
    await eventually(events, (e) => e.type === 'rap_view_update')
    expect(events.map((e) => e.type)).toEqual(['rap_oauth', 'rap_user_choice', 'rap_view_update'])
    expect(events[0]).toMatchObject({ callId: 'e1', groupId: 'thread-e', message: { auth_url: 'https://auth.example/authorize' } })
    expect(events[1]).toMatchObject({ type: 'rap_user_choice', message: { id: 'e1', prompt: 'Which one?', choices: ['left', 'right'] } })
    expect(events[2]).toMatchObject({ message: { view_type: 'diff', content: { file: 'a.txt' } } })

    const outside = await rejection(runtime.answerUserChoice('e1', 2))
    expect(outside.code).toBe('VALIDATION_ERROR')
    await runtime.answerUserChoice('e1', 1)
    expect((await tools.waitFor((s) => s.path === '/choice')).body).toEqual({ id: 'e1', selected: 1 })
    const [result] = await dispatched
    expect(textOf(result)).toBe('picked 1')
    const again = await rejection(runtime.answerUserChoice('e1', 0))
    expect(again.code).toBe('NOT_FOUND')
    expect(tools.requests('/choice')).toHaveLength(1)
  })

  it('tells apart user choices of the same call id in two threads by groupId', async () => {
    const { runtime, tools, events } = await loaded()
    const first = runtime.dispatch([call('call_0', 'events')], { groupId: 'thread-a' })
    const second = runtime.dispatch([call('call_0', 'events')], { groupId: 'thread-b' })
    await eventually(events, (e) => e.type === 'rap_user_choice' && e.groupId === 'thread-a')
    await eventually(events, (e) => e.type === 'rap_user_choice' && e.groupId === 'thread-b')
    // Without a thread the id is ambiguous: refused, naming both threads; nothing is sent.
    const ambiguous = await rejection(runtime.answerUserChoice('call_0', 0))
    expect(ambiguous.code).toBe('VALIDATION_ERROR')
    expect(ambiguous.message).toContain('"thread-a", "thread-b"')
    expect(tools.requests('/choice')).toHaveLength(0)
    // With the event's groupId each answer reaches its own call.
    await runtime.answerUserChoice('call_0', 1, 'thread-b')
    expect(textOf((await second)[0])).toBe('picked 1')
    // Now only one is pending: the two-argument form works.
    await runtime.answerUserChoice('call_0', 0)
    expect(textOf((await first)[0])).toBe('picked 0')
    expect(tools.requests('/choice').map((s) => s.body)).toEqual([
      { id: 'call_0', selected: 1 },
      { id: 'call_0', selected: 0 },
    ])
  })

  it('closeThread posts /close_thread to the toolset servers', async () => {
    const { runtime, tools } = await loaded()
    await runtime.closeThread('thread-c')
    expect((await tools.waitFor((s) => s.path === '/close_thread')).body).toEqual({ thread_id: 'thread-c' })
    // Without a toolset there is nobody to tell.
    await new ToolRuntime().closeThread('thread-c')
  })

  // Seen in the issue 19 round 8 review: an event the parser refuses (text not a string) was
  // answered 400 and the subscription stayed open, silent, until its thread closed.
  it('a refused subscription event ends its subscription at once with a final Error: event naming why', async () => {
    const { runtime, tools, events } = await loaded()
    const [subscribed] = await runtime.dispatch([call('subR', 'subscribe')], { groupId: 'thread-r' })
    expect(subscribed).toMatchObject({ status: 'ok', details: { subscription: true } })
    await eventually(events, (e) => e.type === 'rap_subscription_event')
    expect(await tools.post('subR', { type: 'subscription_event', group_id: 'thread-r', tool_call_id: 'subR', text: 7 })).toBe(400)
    const ended = await eventually(events, (e) => e.type === 'rap_subscription_event' && (e.message as any).final === true)
    expect(ended).toMatchObject({ callId: 'subR', groupId: 'thread-r' })
    expect((ended.message as any).text).toMatch(/^Error: .*refused.*invalid type/)
    // over: the URL takes no more events, and the link knows it is closed
    expect(await tools.post('subR', { type: 'subscription_event', group_id: 'thread-r', tool_call_id: 'subR', text: 'late' })).toBe(404)
    const [cancel] = await runtime.dispatch([call('x3', 'cancel_subscription', { tool_call_id: 'subR' })], { groupId: 'thread-r' })
    expect(textOf(cancel)).toContain('No open subscription')
  })

  it('cancel_subscription ends a subscription of the calling thread only', async () => {
    const { runtime, tools, events } = await loaded()
    const [subscribed] = await runtime.dispatch([call('sub1', 'subscribe')], { groupId: 'thread-1' })
    expect(subscribed).toMatchObject({ status: 'ok', details: { subscription: true } })
    const first = await eventually(events, (e) => e.type === 'rap_subscription_event')
    expect(first).toMatchObject({ callId: 'sub1', groupId: 'thread-1', message: { text: 'the price is 42', tool_call_id: 'sub1' } })

    const [elsewhere] = await runtime.dispatch([call('x1', 'cancel_subscription', { tool_call_id: 'sub1' })], { groupId: 'thread-2' })
    expect(elsewhere.status).toBe('error')
    expect(textOf(elsewhere)).toContain('No open subscription')
    expect(tools.requests('/cancel_tool_call')).toHaveLength(0)
    // Still open: another event is delivered.
    expect(await tools.post('sub1', { type: 'subscription_event', group_id: 'thread-1', tool_call_id: 'sub1', text: 'second' })).toBe(200)
    await eventually(events, (e) => e.type === 'rap_subscription_event' && (e.message as any).text === 'second')

    const [cancelled] = await runtime.dispatch([call('x2', 'cancel_subscription', { tool_call_id: 'sub1' })], { groupId: 'thread-1' })
    expect(cancelled.status).toBe('ok')
    expect(textOf(cancelled)).toContain('cancelled')
    expect((await tools.waitFor((s) => s.path === '/cancel_tool_call')).body).toEqual({ thread_id: 'thread-1', tool_call_id: 'sub1' })
    // Later events are refused and never delivered.
    expect(await tools.post('sub1', { type: 'subscription_event', group_id: 'thread-1', tool_call_id: 'sub1', text: 'third' })).toBe(404)
    expect(events.filter((e) => e.type === 'rap_subscription_event').map((e) => (e.message as any).text)).toEqual(['the price is 42', 'second'])
  })
})

/**
 * The scripted model, with subscription call `callId` posting an event "the price is 42" during
 * the second model call: after the run took what was queued, so the run holds it when it would
 * stop, and must go on to deliver it.
 */
function withEventDuringSecondCall(
  scripted: { model: (request: any) => any; requests: any[] },
  tools: ToolServer,
  events: RapEvent[],
  callId: string,
  text = 'the price is 42',
) {
  return async (request: any) => {
    if (scripted.requests.length === 1) {
      const { group_id } = (await tools.waitFor((s) => s.body?.id === callId)).body
      const message = { type: 'subscription_event', group_id, tool_call_id: callId, text }
      expect(await tools.post(callId, message)).toBe(200)
      await eventually(events, (e) => e.type === 'rap_subscription_event')
    }
    return scripted.model(request)
  }
}

describe('subscriptions in run()', () => {
  for (const wire of ['openai-chat', 'anthropic'] as const) {
    it(`${wire}: an event reaches the next model call as a receive_event__injected call and its result`, async () => {
      const { runtime, events, tools } = await loaded()
      const scripted = scriptedModel(wire, [
        { calls: [{ id: 'call_sub1', name: 'watch', args: '{}' }] },
        { text: 'Waiting for news.' },
        { text: 'The price is 42.' },
      ])
      const model = withEventDuringSecondCall(scripted, tools, events, 'call_sub1')
      const outcome = await runtime.run({
        wire,
        model,
        messages: [{ role: 'user', content: 'watch the price' }],
        runId: `run-${wire}`,
        userId: 'user-3',
        threadAncestors: ['root'],
      })
      expect(outcome.stopReason).toBe('stop')
      // The run's own thread is closed when it ends.
      expect((await tools.waitFor((s) => s.path === '/close_thread')).body).toEqual({ thread_id: `run-${wire}` })
      // The run's id is the thread by default; the user and ancestors given to run() are sent.
      expect(tools.requests('/invoke')[0].body).toMatchObject({
        id: 'call_sub1',
        group_id: `run-${wire}`,
        user_id: 'user-3',
        thread_ancestors: ['root'],
      })
      const { requests } = scripted
      expect(requests).toHaveLength(3)
      const offered = JSON.stringify(requests[0].tools)
      expect(offered).toContain('cancel_subscription')
      expect(offered).not.toContain('receive_event__injected')

      const injected = requests[2].messages.slice(requests[1].messages.length + 1)
      const expectedArgs = { original_tool_name: 'watch', original_tool_call_id: 'call_sub1', original_args: {} }
      if (wire === 'openai-chat') {
        expect(requests[2].messages[requests[1].messages.length]).toEqual({ role: 'assistant', content: 'Waiting for news.' })
        const [assistant, result] = injected
        expect(assistant.role).toBe('assistant')
        expect(assistant.tool_calls[0].function.name).toBe('receive_event__injected')
        expect(JSON.parse(assistant.tool_calls[0].function.arguments)).toEqual(expectedArgs)
        expect(result).toMatchObject({ role: 'tool', tool_call_id: assistant.tool_calls[0].id, content: 'the price is 42' })
      } else {
        const [assistant, result] = injected
        const use = assistant.content.find((b: any) => b.type === 'tool_use')
        expect(use).toMatchObject({ name: 'receive_event__injected', input: expectedArgs })
        expect(result.role).toBe('user')
        const block = result.content.find((b: any) => b.type === 'tool_result')
        expect(block.tool_use_id).toBe(use.id)
        expect(JSON.stringify(block.content)).toContain('the price is 42')
      }
      expect(outcome.messages.slice(-1)[0]).toEqual(
        wire === 'anthropic' ? { role: 'assistant', content: [{ type: 'text', text: 'The price is 42.' }] } : { role: 'assistant', content: 'The price is 42.' },
      )
    })
  }
})

// Seen in the issue 19 round 5 attack review (10.mjs, 9.mjs): a tool server's subscription event
// reached the next model request raw, and every RAP event reached onEvent raw, though the same
// text in a tool's result is scrubbed.
describe('secrets a tool server sends outside results', () => {
  const TOKEN = 'ghp_' + 'Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4zAb7c'
  const CUSTOM = 'acme_12345678'
  const sanitize = { secrets: { patterns: [{ kind: 'acme', pattern: 'acme_[0-9]{8}' }] } }

  it('every RAP event reaches onEvent scrubbed by the runtime\'s kinds, its ids as sent', async () => {
    const { runtime, tools, events } = await loaded({ sanitize })
    const watching = runtime.dispatch([call('w1', 'watch')], { groupId: 'thread-s' })
    await watching
    const sent = [
      { type: 'subscription_event', group_id: 'thread-s', tool_call_id: 'w1', text: `event key=${TOKEN} ${CUSTOM}`, [`x_${TOKEN}`]: TOKEN },
      { type: 'view_update', group_id: 'thread-s', view_type: 'diff', content: { file: TOKEN, note: CUSTOM } },
    ]
    for (const message of sent) expect(await tools.post('w1', message)).toBe(200)
    await eventually(events, (e) => e.type === 'rap_view_update')
    const seen = JSON.stringify(events)
    expect(seen).not.toContain(TOKEN)
    expect(seen).not.toContain(CUSTOM)
    expect(seen).toContain('[redacted:acme]')
    expect(events[0]).toMatchObject({ type: 'rap_subscription_event', callId: 'w1', groupId: 'thread-s' })
    expect((events[0].message as any).text).toBe('event key=[redacted:github-token] [redacted:acme]')
  })

  it('a subscription event reaches the model scrubbed', async () => {
    const { runtime, events, tools } = await loaded({ sanitize })
    const scripted = scriptedModel('openai-chat', [
      { calls: [{ id: 'call_sub9', name: 'watch', args: '{}' }] },
      { text: 'Waiting.' },
      { text: 'Done.' },
    ])
    const model = withEventDuringSecondCall(scripted, tools, events, 'call_sub9', `deploy key ${TOKEN}, ${CUSTOM}`)
    const outcome = await runtime.run({ wire: 'openai-chat', model, messages: [{ role: 'user', content: 'watch' }] })
    expect(outcome.stopReason).toBe('stop')
    const requests = JSON.stringify(scripted.requests)
    expect(requests).toContain('deploy key [redacted:github-token], [redacted:acme]')
    expect(requests).not.toContain(TOKEN)
    expect(JSON.stringify(outcome.messages)).not.toContain(TOKEN)
  })
})

describe('subscription events between runs', () => {
  it('an event that comes while no run is on a kept thread reaches the next run on it', async () => {
    const { runtime, events, tools } = await loaded()
    const first = scriptedModel('openai-chat', [{ calls: [{ id: 'call_keep', name: 'watch', args: '{}' }] }, { text: 'Watching.' }])
    const thread = { wire: 'openai-chat' as const, groupId: 'thread-kept' }
    await runtime.run({ ...thread, model: first.model, messages: [{ role: 'user', content: 'watch' }] })
    const message = { type: 'subscription_event', group_id: 'thread-kept', tool_call_id: 'call_keep', text: 'news while away' }
    expect(await tools.post('call_keep', message)).toBe(200)
    await eventually(events, (e) => e.type === 'rap_subscription_event')
    const second = scriptedModel('openai-chat', [{ text: 'Noted.' }])
    await runtime.run({ ...thread, model: second.model, messages: [{ role: 'user', content: 'anything new?' }] })
    const [assistant, result] = second.requests[0].messages.slice(1)
    expect(assistant.tool_calls[0].function.name).toBe('receive_event__injected')
    expect(JSON.parse(assistant.tool_calls[0].function.arguments)).toMatchObject({ original_tool_name: 'watch', original_tool_call_id: 'call_keep' })
    expect(result).toMatchObject({ role: 'tool', content: 'news while away' })
    await runtime.closeThread('thread-kept')
  })
})

describe('subscriptions in run() on every wire', () => {
  const WIRES: Wire[] = ['openai-chat', 'openai-responses', 'anthropic', 'gemini', 'mistral']
  const historyOf = (request: any) => request.messages ?? request.input ?? request.contents
  for (const wire of WIRES) {
    it(`${wire}: the injected call and its result form a well-paired history`, async () => {
      const { runtime, events, tools } = await loaded()
      const scripted = scriptedModel(wire, [
        { calls: [{ id: 'call_sub9', name: 'watch', args: '{}' }] },
        { text: 'Waiting.' },
        { text: 'Got it.' },
      ])
      const model = withEventDuringSecondCall(scripted, tools, events, 'call_sub9')
      const first = wire === 'gemini' ? { role: 'user', parts: [{ text: 'watch' }] } : { role: 'user', content: 'watch' }
      const outcome = await runtime.run({ wire, model, messages: [first] })
      expect(outcome.stopReason).toBe('stop')
      expect(scripted.requests).toHaveLength(3)
      const history = historyOf(scripted.requests[2])
      const text = JSON.stringify(history.slice(historyOf(scripted.requests[1]).length))
      expect(text).toContain('receive_event__injected')
      expect(text).toContain('the price is 42')
      expect(text).toContain('call_sub9')
      // Every call has its result and every result its call: nothing to repair.
      const { report } = repairHistory(history, wire)
      expect(report.synthesized).toEqual([])
      expect(report.removed).toEqual([])
    })
  }
})

describe('many calls at once', () => {
  it('300 remote calls in flight together each get their own result', async () => {
    const { runtime, tools } = await loaded({ concurrency: 300 })
    const calls = Array.from({ length: 300 }, (_, i) => call(`many-${i}`, 'echo', { word: `w${i}` }))
    const results = await runtime.dispatch(calls, { groupId: 'thread-many' })
    expect(results.map((r) => r.status)).toEqual(calls.map(() => 'ok'))
    expect(results.map((r) => textOf(r))).toEqual(calls.map((_, i) => `echo {"word":"w${i}"}`))
    expect(tools.requests('/invoke')).toHaveLength(300)
  })
})

describe('large results', () => {
  it('5 results of 3 MiB in flight together are each delivered intact', async () => {
    const MiB = 1 << 20
    const { runtime } = await loaded({ sanitize: { maxResultChars: 4 * MiB, maxBatchChars: null } })
    const fills = ['a', 'b', 'c', 'd', 'e']
    const calls = fills.map((fill, i) => call(`big-${i}`, 'big', { bytes: 3 * MiB, fill }))
    const results = await runtime.dispatch(calls, { groupId: 'thread-big', timeoutMs: 60_000 })
    expect(results.map((r) => r.status)).toEqual(calls.map(() => 'ok'))
    results.forEach((result, i) => {
      const text = textOf(result)
      expect(text.length).toBe(3 * MiB)
      expect(text === fills[i].repeat(3 * MiB)).toBe(true)
    })
  })
})

describe('subscription events before their result', () => {
  it('an event that arrives before its call\'s result still names the call and its arguments', async () => {
    const { runtime, events } = await loaded()
    const scripted = scriptedModel('openai-chat', [
      { calls: [{ id: 'call_early', name: 'eventfirst', args: '{"topic":"prices"}' }] },
      { text: 'Early news noted.' },
    ])
    const outcome = await runtime.run({ wire: 'openai-chat', model: scripted.model, messages: [{ role: 'user', content: 'watch' }], groupId: 'thread-early' })
    expect(events[0]).toMatchObject({ type: 'rap_subscription_event', groupId: 'thread-early', callId: 'call_early' })
    expect(outcome.stopReason).toBe('stop')
    // It was in before the second model call: delivered there, after the call's own result.
    const second = scripted.requests[1].messages
    expect(second.map((m: any) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant', 'tool'])
    const call = second[3]
    expect(call.tool_calls[0].function.name).toBe('receive_event__injected')
    expect(JSON.parse(call.tool_calls[0].function.arguments)).toEqual({
      original_tool_name: 'eventfirst',
      original_tool_call_id: 'call_early',
      original_args: { topic: 'prices' },
    })
    expect(second[4]).toMatchObject({ tool_call_id: call.tool_calls[0].id, content: 'early news' })
  })
})

describe('process lifetime', () => {
  /** Runs the scenario in a fresh Node process; resolves with its exit and output. */
  function scenario(args: string[]): Promise<{ code: number | null; signal: string | null; stdout: string; stderr: string }> {
    return new Promise((resolve) => {
      const child = spawn(process.execPath, args)
      let stdout = ''
      let stderr = ''
      child.stdout.on('data', (chunk) => (stdout += chunk))
      child.stderr.on('data', (chunk) => (stderr += chunk))
      const kill = setTimeout(() => child.kill(), 15_000)
      child.on('exit', (code, signal) => {
        clearTimeout(kill)
        resolve({ code, signal, stdout, stderr })
      })
    })
  }

  for (const [tool, text] of [
    ['delayed', 'finally'],
    ['subscribe', 'subscribed'],
  ]) {
    it(`waits for a remote ${tool} call, then exits by itself`, async () => {
      const tools = await server()
      const { code, signal, stdout, stderr } = await scenario([join(__dirname, 'scenarios', 'rap-exit.cjs'), tools.baseUrl, tool])
      expect(signal, 'the process had to be killed: something held it open').toBeNull()
      expect(code, stderr).toBe(0)
      const results = JSON.parse(stdout) as ToolResult[]
      expect(results).toHaveLength(1)
      expect(results[0]).toMatchObject({ status: 'ok', content: [{ type: 'text', text }] })
    })
  }

  it('a dropped runtime is collected with its transport: its callback server stops', async () => {
    const tools = await server()
    const { code, signal, stdout, stderr } = await scenario(['--expose-gc', join(__dirname, 'scenarios', 'rap-drop.cjs'), tools.baseUrl])
    expect(signal).toBeNull()
    expect(code, stderr).toBe(0)
    // While it lives a malformed callback is answered 400; once collected nothing listens.
    expect(JSON.parse(stdout)).toEqual({ status: 'ok', before: 400, after: 'refused' })
  })
})

// The attack review (finding 18): a callback the runtime refuses for a reason other than depth
// (a number JSON.parse reads as Infinity, a duplicate key) was answered 400 and its call waited
// out its whole deadline. Every refused callback that names a waiting call now ends it at once.
describe('refused callbacks', () => {
  const postRaw = async (url: string, body: string) => {
    const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body })
    return { status: response.status, text: await response.text() }
  }

  // (a body over a limit, nested too deep, ends LIMIT_EXCEEDED naming it, as over maxCallbackBytes)
  const refused: [string, (g: string, id: string) => string, string, string][] = [
    ['a number out of range', (g, id) => `{"type":"tool_result","group_id":"${g}","id":"${id}","text":"a","display_as":[1e400]}`, 'the number 1e400 at "/display_as/0" is out of range', 'EXECUTION_ERROR'],
    ['too deep', (g, id) => `{"type":"tool_result","group_id":"${g}","id":"${id}","text":"a","display_as":${'['.repeat(100)}${']'.repeat(100)}}`, 'MAX_VALUE_DEPTH', 'LIMIT_EXCEEDED'],
    ['not JSON', () => '{nope', 'not valid JSON', 'EXECUTION_ERROR'],
    ['a wrong type', (g, id) => `{"type":"tool_result","group_id":"${g}","id":"${id}","text":1}`, 'invalid type', 'EXECUTION_ERROR'],
    ['neither text nor content', (g, id) => `{"type":"tool_result","group_id":"${g}","id":"${id}"}`, 'neither text nor content', 'EXECUTION_ERROR'],
  ]
  it.each(refused)('%s ends its call with an error naming why, not a TIMEOUT', async (_name, body, says, code) => {
    const { runtime, tools } = await loaded()
    const pending = runtime.dispatch([call('r1', 'slow')], { timeoutMs: 60_000, groupId: 'thread-r' })
    await tools.waitFor((s) => s.body?.id === 'r1')
    const answer = await postRaw(tools.callbacks.get('r1')!, body('thread-r', 'r1'))
    expect(answer.status).toBe(400)
    expect(answer.text).toContain(says)
    expect(answer.text).toContain(code)
    const [result] = await pending
    expect(result).toMatchObject({ status: 'error', error: { code } })
    expect(result.error!.message).toContain(says)
  })

  it.each([
    ['a duplicate key keeps its last value', '{"type":"tool_result","group_id":"thread-d","id":"d1","text":"a","text":"b"}', 'b'],
    ['a leading byte order mark is dropped, as response.json() does', '\uFEFF{"type":"tool_result","group_id":"thread-d","id":"d1","text":"bom"}', 'bom'],
  ])('accepts what JSON.parse and response.json() accept: %s', async (_name, body, text) => {
    const { runtime, tools } = await loaded()
    const pending = runtime.dispatch([call('d1', 'slow')], { timeoutMs: 60_000, groupId: 'thread-d' })
    await tools.waitFor((s) => s.body?.id === 'd1')
    expect(await new Response(body).json()).toMatchObject({ id: 'd1' })
    const answer = await postRaw(tools.callbacks.get('d1')!, body)
    expect(answer.status).toBe(200)
    const [result] = await pending
    expect(result.status).toBe('ok')
    expect(textOf(result)).toBe(text)
  })

  it('a refused body claiming another call ends nothing', async () => {
    const { runtime, tools } = await loaded()
    const pending = runtime.dispatch([call('o1', 'slow')], { timeoutMs: 60_000, groupId: 'thread-o' })
    await tools.waitFor((s) => s.body?.id === 'o1')
    const url = tools.callbacks.get('o1')!
    expect((await postRaw(url, '{"group_id":"thread-o","id":"o2","text":1e400}')).status).toBe(404)
    expect(await tools.post('o1', { type: 'tool_result', group_id: 'thread-o', id: 'o1', text: 'real' })).toBe(200)
    const [result] = await pending
    expect(textOf(result)).toBe('real')
  })
})
