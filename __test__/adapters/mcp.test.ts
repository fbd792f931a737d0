import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js'
import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js'
import { afterEach, describe, expect, it } from 'vitest'
import { z } from 'zod'

import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import { ToolRuntime, replayRun, verifyRun, type ToolExecutionEvent } from '../../dist/index.js'
import { addMcpServer, serveMcp } from 'toolwire/mcp'
import { aborted, pngBase64, sleep } from './fixtures.js'
import { textOf } from '../helpers.js'

const closers: (() => Promise<void>)[] = []
afterEach(async () => {
  for (const close of closers.splice(0)) await close()
})

/** A connected SDK client for `server` over the SDK's InMemoryTransport. */
async function connect(server: McpServer | Server): Promise<Client> {
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair()
  await server.connect(serverTransport)
  const client = new Client({ name: 'toolwire-test', version: '1.0.0' })
  await client.connect(clientTransport)
  closers.push(() => client.close(), () => server.close())
  return client
}

/** A real SDK McpServer with tools of every kind the adapter maps. */
async function sdkServer(png: string) {
  const server = new McpServer({ name: 'fixture', version: '1.0.0' })
  const cancelled: unknown[] = []
  server.registerTool('echo', { title: 'Echo', description: 'Echo text', inputSchema: { text: z.string() } }, async ({ text }) => ({
    content: [{ type: 'text', text: `echo: ${text}` }],
  }))
  server.registerTool('snapshot', { description: 'An image' }, async () => ({
    content: [
      { type: 'text', text: 'here' },
      { type: 'image', data: png, mimeType: 'image/png' },
    ],
  }))
  server.registerTool('broken', { description: 'Fails' }, async () => ({ content: [{ type: 'text', text: 'no such file' }], isError: true }))
  server.registerTool(
    'stats',
    { description: 'Counts', inputSchema: { n: z.number() }, outputSchema: { count: z.number(), label: z.string() } },
    async ({ n }) => ({ content: [{ type: 'text', text: `${n} items` }], structuredContent: { count: n, label: 'items' } }),
  )
  server.registerTool('slow', { description: 'Reports progress until cancelled', inputSchema: { steps: z.number() } }, async ({ steps }, extra) => {
    const token = extra._meta?.progressToken
    for (let i = 1; i <= steps; i++) {
      if (token !== undefined) await extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress: i, total: steps, message: `step ${i}` } })
      await Promise.race([sleep(20), aborted(extra.signal)])
      if (extra.signal.aborted) {
        cancelled.push(extra.signal.reason)
        return { content: [{ type: 'text', text: 'cancelled' }] }
      }
    }
    return { content: [{ type: 'text', text: `done after ${steps}` }] }
  })
  return { server, cancelled }
}

describe('toolwire/mcp addMcpServer', () => {
  it("registers an SDK server's tools and calls them: text, images kept, isError mapped, structuredContent as checked details", async () => {
    const png = await pngBase64()
    const { server } = await sdkServer(png)
    const client = await connect(server)
    const runtime = new ToolRuntime()
    const names = await addMcpServer(runtime, client, { prefix: 'fx_' })
    expect(names).toEqual(['fx_echo', 'fx_snapshot', 'fx_broken', 'fx_stats', 'fx_slow'])
    const echoInfo = runtime.list().find((t) => t.name === 'fx_echo')!
    expect(echoInfo).toMatchObject({ label: 'Echo', description: 'Echo text', parameters: { type: 'object', required: ['text'] } })
    expect(runtime.list().find((t) => t.name === 'fx_stats')!.outputSchema).toMatchObject({ type: 'object', required: ['count', 'label'] })

    const [echo, bad, snapshot, broken, stats] = await runtime.dispatch([
      { id: '1', name: 'fx_echo', arguments: { text: 'hi' } },
      { id: '2', name: 'fx_echo', arguments: { text: 3 } },
      { id: '3', name: 'fx_snapshot', arguments: {} },
      { id: '4', name: 'fx_broken', arguments: {} },
      { id: '5', name: 'fx_stats', arguments: { n: 4 } },
    ])
    expect(echo).toMatchObject({ ok: true, content: [{ type: 'text', text: 'echo: hi' }] })
    expect(bad.error?.code).toBe('VALIDATION_ERROR')
    expect(snapshot.ok).toBe(true)
    expect(snapshot.content).toEqual([
      { type: 'text', text: 'here' },
      { type: 'image', data: png, mimeType: 'image/png' },
    ])
    expect(broken).toMatchObject({ ok: false, status: 'error', error: { code: 'EXECUTION_ERROR' }, content: [{ type: 'text', text: 'no such file' }] })
    expect(stats).toMatchObject({ ok: true, details: { count: 4, label: 'items' }, content: [{ type: 'text', text: '4 items' }] })
  })

  it('structuredContent that does not match the outputSchema is an error result; isError of such a tool keeps its message', async () => {
    const server = new Server({ name: 'raw', version: '1.0.0' }, { capabilities: { tools: {} } })
    const outputSchema = { type: 'object' as const, properties: { count: { type: 'number' } }, required: ['count'] }
    server.setRequestHandler(ListToolsRequestSchema, () => ({
      tools: [{ name: 'count', inputSchema: { type: 'object' as const, properties: { mode: { type: 'string' } } }, outputSchema }],
    }))
    server.setRequestHandler(CallToolRequestSchema, (request) => {
      const mode = request.params.arguments?.mode
      if (mode === 'bad') return { content: [{ type: 'text', text: 'x' }], structuredContent: { count: 'three' } }
      if (mode === 'error') return { content: [{ type: 'text', text: 'quota exceeded' }], isError: true }
      return { content: [{ type: 'text', text: '3' }], structuredContent: { count: 3 } }
    })
    const client = await connect(server)
    const runtime = new ToolRuntime()
    await addMcpServer(runtime, client)
    const [good, bad, error] = await runtime.dispatch([
      { id: 'g', name: 'count', arguments: { mode: 'good' } },
      { id: 'b', name: 'count', arguments: { mode: 'bad' } },
      { id: 'e', name: 'count', arguments: { mode: 'error' } },
    ])
    expect(good).toMatchObject({ ok: true, details: { count: 3 } })
    expect(bad).toMatchObject({ ok: false, error: { code: 'EXECUTION_ERROR' } })
    expect(textOf(bad)).toMatch(/output schema/i)
    expect(error).toMatchObject({ ok: false, error: { code: 'EXECUTION_ERROR' } })
    expect(textOf(error)).toBe('quota exceeded')
  })

  it('progress notifications become update events; a deadline cancels the MCP request and the server sees the abort', async () => {
    const { server, cancelled } = await sdkServer(await pngBase64())
    const client = await connect(server)
    const runtime = new ToolRuntime()
    await addMcpServer(runtime, client, { tools: ['slow'], timeoutMs: 400 })
    expect(runtime.list().map((t) => [t.name, t.timeoutMs])).toEqual([['slow', 400]])
    const events: ToolExecutionEvent[] = []
    const [done] = await runtime.dispatch([{ id: 'p', name: 'slow', arguments: { steps: 2 } }], { onEvent: (e) => events.push(e) })
    expect(done).toMatchObject({ ok: true, content: [{ type: 'text', text: 'done after 2' }] })
    const updates = events.filter((e) => e.type === 'tool_execution_update')
    expect(updates.map((e) => e.type === 'tool_execution_update' && (e.partialResult as { content: { text: string }[] }).content[0].text)).toEqual([
      'step 1',
      'step 2',
    ])

    const [late] = await runtime.dispatch([{ id: 't', name: 'slow', arguments: { steps: 50 } }])
    expect(late).toMatchObject({ ok: false, status: 'timeout', error: { code: 'TIMEOUT' } })
    for (let i = 0; i < 50 && cancelled.length === 0; i++) await sleep(10)
    expect(cancelled).toHaveLength(1)
  })

  it('cancelling the dispatch sends the cancellation to the server', async () => {
    const { server, cancelled } = await sdkServer(await pngBase64())
    const client = await connect(server)
    const runtime = new ToolRuntime()
    await addMcpServer(runtime, client, { plugin: 'fixture' })
    expect(runtime.explainPolicy('slow')).toMatchObject({ allowed: true })
    expect(runtime.list().find((t) => t.name === 'slow')?.plugin).toBe('fixture')
    const controller = new AbortController()
    setTimeout(() => controller.abort(), 40)
    const [result] = await runtime.dispatch([{ id: 'c', name: 'slow', arguments: { steps: 50 } }], { signal: controller.signal })
    expect(result.status).toBe('cancelled')
    for (let i = 0; i < 50 && cancelled.length === 0; i++) await sleep(10)
    expect(cancelled).toHaveLength(1)
  })

  it('an unknown tool in options.tools is refused', async () => {
    const { server } = await sdkServer(await pngBase64())
    const client = await connect(server)
    await expect(addMcpServer(new ToolRuntime(), client, { tools: ['nope'] })).rejects.toThrow(/no tool "nope"/)
  })

  /** A low-level server named `evil` whose tools/list answers page i (from 0) with `page(i)`; `requests` counts them. */
  async function paginated(page: (i: number) => { tools: { name: string; inputSchema: { type: 'object' } }[]; nextCursor?: string }) {
    const server = new Server({ name: 'evil', version: '1' }, { capabilities: { tools: {} } })
    const requests: (string | undefined)[] = []
    server.setRequestHandler(ListToolsRequestSchema, async (request) => {
      requests.push(request.params?.cursor)
      return page(requests.length - 1)
    })
    server.setRequestHandler(CallToolRequestSchema, async () => ({ content: [] }))
    return { client: await connect(server), requests }
  }
  const tool = (i: number) => ({ name: `t${i}`, inputSchema: { type: 'object' as const } })

  it('follows nextCursor through every page', async () => {
    const { client, requests } = await paginated((i) => (i < 2 ? { tools: [tool(i)], nextCursor: `page-${i + 1}` } : { tools: [tool(i)] }))
    expect(await addMcpServer(new ToolRuntime(), client)).toEqual(['t0', 't1', 't2'])
    expect(requests).toEqual([undefined, 'page-1', 'page-2'])
  })

  it('refuses a nextCursor the server gave before, naming the server and the cursor, and registers nothing', async () => {
    // (attack review 21, m1: the same cursor forever made 20,000 requests in 1.5 s and never settled)
    for (const [page, cursor, asked] of [
      [() => ({ tools: [tool(0)], nextCursor: 'again' }), '"again"', 2],
      [(i: number) => ({ tools: [tool(i)], nextCursor: `c${i % 3}` }), '"c0"', 4],
    ] as const) {
      const { client, requests } = await paginated(page)
      const runtime = new ToolRuntime()
      await expect(addMcpServer(runtime, client)).rejects.toMatchObject({
        code: 'VALIDATION_ERROR',
        message: expect.stringContaining(`MCP server "evil" answered tools/list page ${asked} with nextCursor ${cursor}, a cursor it gave before`),
      })
      expect(requests).toHaveLength(asked)
      expect(runtime.list()).toEqual([])
    }
  })

  it('refuses a server listing more than 100,000 tools, naming it, where a page that large once overflowed the stack', async () => {
    // (attack review 22, m1: push(...page.tools) threw RangeError for a page of 200,000 tools)
    const many = Array.from({ length: 200_000 }, (_, i) => tool(i + 1))
    const { client, requests } = await paginated((i) => (i === 0 ? { tools: [tool(0)], nextCursor: 'p2' } : { tools: many }))
    const runtime = new ToolRuntime()
    await expect(addMcpServer(runtime, client)).rejects.toMatchObject({
      code: 'LIMIT_EXCEEDED',
      message: expect.stringContaining('MCP server "evil" listed more than 100000 tools (1 before tools/list page 2, which holds 200000); at most 100000 are read'),
    })
    expect(requests).toEqual([undefined, 'p2'])
    expect(runtime.list()).toEqual([])
  })

  it('lists a page of 100,000 tools, the most it reads', async () => {
    const many = Array.from({ length: 100_000 }, (_, i) => tool(i))
    const { client } = await paginated(() => ({ tools: many }))
    expect(await addMcpServer(new ToolRuntime(), client, { tools: ['t99999'] })).toEqual(['t99999'])
  })

  it('refuses a server still paging after 1000 pages, and lets timers run while it reads them', async () => {
    const { client, requests } = await paginated((i) => ({ tools: [tool(i)], nextCursor: `${'sk-proj-' + 'a'.repeat(40)}-${i + 1}` }))
    let ticks = 0
    const timer = setInterval(() => ticks++, 1)
    const error = await addMcpServer(new ToolRuntime(), client).catch((e: Error & { code?: string }) => e)
    clearInterval(timer)
    expect(error).toMatchObject({ code: 'LIMIT_EXCEEDED', message: expect.stringContaining('MCP server "evil" still answered tools/list with a nextCursor') })
    expect((error as Error).message).toContain('after 1000 pages (1000 tools); at most 1000 pages are read')
    // the cursor is named with its secret replaced
    expect((error as Error).message).toContain('[redacted:openai-key]')
    expect((error as Error).message).not.toContain('sk-proj-')
    expect(requests).toHaveLength(1000)
    expect(ticks).toBeGreaterThan(0)
  })
})

describe('toolwire/mcp serveMcp', () => {
  async function served() {
    const png = await pngBase64()
    const aborts: unknown[] = []
    const runtime = new ToolRuntime()
    runtime.register({ name: 'greet', label: 'Greet', description: 'Says hello', parameters: z.object({ who: z.string() }), execute: (_i: string, p: { who: string }) => `hello ${p.who}` })
    runtime.register({ name: 'picture', execute: () => ({ content: [{ type: 'text', text: 'pic' }, { type: 'image', data: png, mimeType: 'image/png' }] }) })
    runtime.register({ name: 'explode', execute: () => { throw new Error('kaboom') } })
    runtime.register({
      name: 'measure',
      outputSchema: { type: 'object', properties: { size: { type: 'number' } }, required: ['size'] },
      execute: () => ({ content: [{ type: 'text', text: 'size 9' }], details: { size: 9 } }),
    })
    runtime.register({
      name: 'work',
      parameters: { type: 'object', properties: { steps: { type: 'number' } } },
      execute: async (_i: string, p: { steps?: number }, signal?: AbortSignal, onUpdate?: (partial: unknown) => void) => {
        for (let i = 1; i <= (p.steps ?? 3); i++) {
          onUpdate?.({ content: [{ type: 'text', text: `working ${i}` }] })
          await Promise.race([sleep(20), aborted(signal!)])
          if (signal!.aborted) {
            aborts.push(signal!.reason)
            return 'aborted'
          }
        }
        return 'worked'
      },
    })
    const server = serveMcp(runtime, { name: 'toolwire-test-server', version: '9.9.9' })
    expect(server).toBeInstanceOf(McpServer)
    const client = await connect(server)
    return { runtime, client, png, aborts }
  }

  it('lists the registered tools with their schemas and serves calls: text, images, isError, structuredContent', async () => {
    const { client, png } = await served()
    expect(client.getServerVersion()).toMatchObject({ name: 'toolwire-test-server', version: '9.9.9' })
    const { tools } = await client.listTools()
    expect(tools.map((t) => t.name)).toEqual(['greet', 'picture', 'explode', 'measure', 'work'])
    expect(tools[0]).toMatchObject({ title: 'Greet', description: 'Says hello', inputSchema: { type: 'object', required: ['who'] } })
    expect(tools[3].outputSchema).toMatchObject({ type: 'object', required: ['size'] })

    expect(await client.callTool({ name: 'greet', arguments: { who: 'mcp' } })).toMatchObject({ content: [{ type: 'text', text: 'hello mcp' }] })
    const invalid = await client.callTool({ name: 'greet', arguments: { who: 1 } })
    expect(invalid.isError).toBe(true)
    expect(JSON.stringify(invalid.content)).toContain('/who')
    expect((await client.callTool({ name: 'picture', arguments: {} })).content).toEqual([
      { type: 'text', text: 'pic' },
      { type: 'image', data: png, mimeType: 'image/png' },
    ])
    expect(await client.callTool({ name: 'explode', arguments: {} })).toMatchObject({ isError: true, content: [{ type: 'text', text: 'kaboom' }] })
    expect(await client.callTool({ name: 'measure', arguments: {} })).toMatchObject({ structuredContent: { size: 9 } })
    // An unknown tool is a result the model can read, carrying toolwire's NOT_FOUND text (before:
    // the client threw "MCP error -32602: MCP error -32602: Tool missing not found").
    const missing = await client.callTool({ name: 'greeet', arguments: {} })
    expect(missing.isError).toBe(true)
    expect(missing.content).toEqual([{ type: 'text', text: expect.stringMatching(/^Tool "greeet" not found\. Did you mean "greet"\? Available tools: greet, picture, explode, measure, work\.$/) }])
  })

  it('with options.tools, an unknown or hidden tool is NOT_FOUND naming only the exposed tools, and nothing runs', async () => {
    const ran: string[] = []
    const runtime = new ToolRuntime()
    for (const name of ['read', 'write', 'secret_admin']) runtime.register({ name, execute: () => (ran.push(name), 'done') })
    const client = await connect(serveMcp(runtime, { tools: ['read', 'write'] }))
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['read', 'write'])
    for (const name of ['secret_admin', 'raed']) {
      const result = await client.callTool({ name, arguments: {} })
      expect(result.isError).toBe(true)
      const text = (result.content as { text: string }[])[0].text
      expect(text).toMatch(new RegExp(`^Tool "${name}" not found\\.`))
      expect(text).toContain('Available tools: read, write.')
      expect(text.split('Available tools:')[1]).not.toContain('secret_admin')
    }
    expect(ran).toEqual([])
    expect((await client.callTool({ name: 'read', arguments: {} })).content).toEqual([{ type: 'text', text: 'done' }])
  })

  it('with options.tools, a hidden tool is refused by the runtime itself: the usual NOT_FOUND, its events, its audit record', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'toolwire-mcp-tools-'))
    try {
      const ran: string[] = []
      const events: ToolExecutionEvent[] = []
      const runtime = new ToolRuntime({ audit: { dir } })
      for (const name of ['read', 'reader', 'secret_admin']) runtime.register({ name, execute: () => (ran.push(name), 'done') })
      const client = await connect(serveMcp(runtime, { tools: ['read', 'reader'], dispatch: { runId: 'mcp-run', onEvent: (e) => events.push(e) } }))
      const cases = [
        ['secret_admin', 'Tool "secret_admin" not found. Available tools: read, reader.'],
        ['raed', 'Tool "raed" not found. Did you mean "read"? Available tools: read, reader.'],
      ]
      for (const [name, text] of cases) {
        expect(await client.callTool({ name, arguments: { a: 1 } })).toEqual({ content: [{ type: 'text', text }], isError: true })
      }
      expect(ran).toEqual([])
      // The refused calls went through the runtime: start and end events, results in the run's audit log.
      expect(events.map((e) => [e.type, e.toolName])).toEqual([
        ['tool_execution_start', 'secret_admin'],
        ['tool_execution_end', 'secret_admin'],
        ['tool_execution_start', 'raed'],
        ['tool_execution_end', 'raed'],
      ])
      const replay = replayRun(dir, 'mcp-run')
      expect(replay.results.map((r: any) => [r.tool, r.error.code, r.error.details])).toEqual([
        ['secret_admin', 'NOT_FOUND', { suggestions: [] }],
        ['raed', 'NOT_FOUND', { suggestions: ['read'] }],
      ])
      expect(verifyRun(dir, 'mcp-run')).toEqual({ ok: true, problems: [] })
      // A tool unregistered after the server was made is not there, as for any dispatch.
      runtime.unregister('reader')
      expect(await client.callTool({ name: 'reader', arguments: {} })).toEqual({
        content: [{ type: 'text', text: 'Tool "reader" not found. Did you mean "read"? Available tools: read.' }],
        isError: true,
      })
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it("sends the tool's updates as progress and aborts the tool when the client cancels", async () => {
    const { client, aborts } = await served()
    const progress: { progress: number; message?: string }[] = []
    const done = await client.callTool({ name: 'work', arguments: { steps: 2 } }, undefined, { onprogress: (p) => progress.push(p) })
    expect(done.content).toEqual([{ type: 'text', text: 'worked' }])
    expect(progress).toEqual([
      { progress: 1, message: 'working 1' },
      { progress: 2, message: 'working 2' },
    ])

    const controller = new AbortController()
    setTimeout(() => controller.abort(new Error('client gave up')), 30)
    await expect(client.callTool({ name: 'work', arguments: { steps: 50 } }, undefined, { signal: controller.signal })).rejects.toThrow()
    for (let i = 0; i < 50 && aborts.length === 0; i++) await sleep(10)
    expect(aborts).toHaveLength(1)
  })

  it('round trip: a runtime served over MCP is added to another runtime with addMcpServer', async () => {
    const { client, png } = await served()
    const other = new ToolRuntime()
    await addMcpServer(other, client, { prefix: 'remote_', tools: ['greet', 'picture', 'explode', 'measure'] })
    const [greet, picture, explode, measure] = await other.dispatch([
      { id: 'a', name: 'remote_greet', arguments: { who: 'there' } },
      { id: 'b', name: 'remote_picture', arguments: {} },
      { id: 'c', name: 'remote_explode', arguments: {} },
      { id: 'd', name: 'remote_measure', arguments: {} },
    ])
    expect(textOf(greet)).toBe('hello there')
    expect(picture.content[1]).toEqual({ type: 'image', data: png, mimeType: 'image/png' })
    expect(explode).toMatchObject({ ok: false, content: [{ type: 'text', text: 'kaboom' }] })
    expect(measure).toMatchObject({ ok: true, details: { size: 9 } })
  })

  it('options.server: serves through the McpServer given (returned as given, its own name and options kept)', async () => {
    const runtime = new ToolRuntime()
    runtime.register({ name: 'greet', parameters: { type: 'object', properties: { who: { type: 'string' } } }, execute: (_id, { who }) => `hello ${String(who)}` })
    runtime.register({ name: 'hidden', execute: () => 'no' })
    const own = new McpServer({ name: 'own-server', version: '3.0.0' }, { instructions: 'say hello' })
    expect(serveMcp(runtime, { server: own, tools: ['greet'] })).toBe(own)
    const client = await connect(own)
    expect(client.getServerVersion()).toMatchObject({ name: 'own-server', version: '3.0.0' })
    expect(client.getInstructions()).toBe('say hello')
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['greet'])
    expect(await client.callTool({ name: 'greet', arguments: { who: 'me' } })).toMatchObject({ content: [{ type: 'text', text: 'hello me' }] })
  })

  it("options.server: the server's own options beside it, a connected server, and anything but an McpServer are refused, naming the value", async () => {
    const runtime = new ToolRuntime()
    const fresh = () => new McpServer({ name: 'x', version: '1' })
    expect(() => serveMcp(runtime, { server: fresh(), name: 'other' })).toThrow('serveMcp: options.name (string other) is the server\'s own: with options.server, give it to the McpServer you make')
    expect(() => serveMcp(runtime, { server: fresh(), serverOptions: {} })).toThrow('serveMcp: options.serverOptions (an object) is the server\'s own')
    const connected = fresh()
    await connect(connected)
    expect(() => serveMcp(runtime, { server: connected })).toThrow(/^serveMcp: options\.server is already connected: .* connect it after serveMcp$/)
    expect(() => serveMcp(runtime, { server: {} as McpServer })).toThrow('serveMcp: options.server must be an SDK McpServer (of @modelcontextprotocol/sdk or @modelcontextprotocol/server), got an object with no Server at .server')
    expect(() => serveMcp(runtime, { server: 'mcp' as unknown as McpServer })).toThrow('serveMcp: options.server must be an SDK McpServer (of @modelcontextprotocol/sdk or @modelcontextprotocol/server), got string mcp')
  })
})
