import { mkdtempSync, mkdirSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Type } from '@sinclair/typebox'
import { afterAll, describe, expect, it } from 'vitest'
import { z } from 'zod'

import { ToolRuntime, ToolwireError } from '../dist/index.js'
import type { ToolDefinition, ToolExecutionEvent } from '../dist/index.js'
import { stringsSchema } from './helpers.js'

/** A tool that records the calls it ran. */
function recorder(name: string, extra: Partial<ToolDefinition> = {}) {
  const ran: string[] = []
  const tool: ToolDefinition = {
    name,
    parameters: { type: 'object', properties: { path: { type: 'string' }, command: { type: 'string' } } },
    async execute(id: string) {
      ran.push(id)
      return `${name} ran`
    },
    ...extra,
  }
  return { tool, ran }
}

const call = (id: string, name: string, args: object = {}) => ({ id, name, arguments: JSON.stringify(args) })

describe('tool policy', () => {
  it('blocks denied calls with POLICY_DENIED without running them, and hides them from definitions', async () => {
    const runtime = new ToolRuntime({
      policy: {
        profile: 'coding',
        deny: ['exec'],
        byProvider: { openai: { deny: ['group:fs'] } },
      },
    })
    const exec = recorder('exec')
    const read = recorder('read')
    const message = recorder('message')
    for (const { tool } of [exec, read, message]) runtime.register(tool)

    const events: ToolExecutionEvent[] = []
    const results = await runtime.dispatch([call('a', 'exec'), call('b', 'read'), call('c', 'message'), call('d', 'bash')], {
      onEvent: (event) => events.push(event),
    })
    expect(results.map((r) => [r.status, r.error?.code ?? null])).toEqual([
      ['blocked', 'POLICY_DENIED'],
      ['ok', null],
      ['blocked', 'POLICY_DENIED'],
      ['error', 'NOT_FOUND'],
    ])
    expect(exec.ran).toEqual([])
    expect(message.ran).toEqual([])
    expect(results[0].error?.details).toEqual({ layer: 'global', rule: 'deny: exec' })
    expect(results[2].error?.details).toEqual({ layer: 'profile', rule: 'not in profile coding' })
    // Every call still gets its start and end events, exactly one result each.
    expect(events.filter((e) => e.type === 'tool_execution_end')).toHaveLength(4)

    const names = (options?: object) =>
      runtime.definitions('openai-chat', options).tools.map((t: any) => t.function.name)
    expect(names()).toEqual(['read'])
    expect(names({ provider: 'openai' })).toEqual([])
    const viaOpenai = await runtime.dispatch([call('e', 'read')], { provider: 'OpenAI' })
    expect(viaOpenai[0].error?.details).toEqual({ layer: 'provider', rule: 'deny: group:fs' })
  })

  it('explains which layer and rule decided', () => {
    const runtime = new ToolRuntime({
      policy: {
        allow: ['read', 'exec*'],
        agents: { a1: { deny: ['exec'], byProvider: { anthropic: { deny: ['read'] } } } },
        senders: { guest: { deny: ['read'] } },
      },
    })
    expect(runtime.explainPolicy('read')).toEqual({ allowed: true, layer: 'global', rule: 'allow: read' })
    expect(runtime.explainPolicy('Bash', { agentId: 'a1' })).toEqual({ allowed: false, layer: 'agent', rule: 'deny: exec' })
    expect(runtime.explainPolicy('read', { agentId: 'a1', provider: 'anthropic' })).toEqual({
      allowed: false,
      layer: 'agentProvider',
      rule: 'deny: read',
    })
    expect(runtime.explainPolicy('read', { sender: { id: 'guest' } })).toMatchObject({ allowed: false, layer: 'sender' })
    expect(runtime.explainPolicy('write')).toMatchObject({ allowed: false, layer: 'global' })
    expect(new ToolRuntime().explainPolicy('anything')).toEqual({ allowed: true, layer: null, rule: null })
  })

  it('lets an empty allow list allow all in every layer, a user profile included, deny still applying', async () => {
    const runtime = new ToolRuntime({
      policy: {
        profiles: { open: { allow: [], deny: ['exec'] } },
        profile: 'open',
        allow: [],
        byProvider: { openai: { allow: [], deny: ['write'] } },
        agents: { a1: { allow: [], byProvider: { openai: { allow: [] } } } },
        senders: { u1: { allow: [] } },
      },
    })
    const read = recorder('read')
    runtime.register(read.tool)
    const context = { provider: 'openai', agentId: 'a1', sender: { id: 'u1' } }
    expect(runtime.explainPolicy('read', context)).toEqual({ allowed: true, layer: 'profile', rule: 'profile open' })
    expect(runtime.explainPolicy('exec', context)).toEqual({ allowed: false, layer: 'profile', rule: 'deny: exec' })
    expect(runtime.explainPolicy('write', context)).toEqual({ allowed: false, layer: 'provider', rule: 'deny: write' })
    const [ran] = await runtime.dispatch([call('a', 'read')], context)
    expect(ran.ok).toBe(true)
    expect(read.ran).toEqual(['a'])
  })

  it('names bad policy options and bad contexts', () => {
    expect(() => new ToolRuntime({ policy: { deny: [3] } as any })).toThrow(/policy\.deny\[0\] must be a string, got 3/)
    expect(() => new ToolRuntime({ policy: { profile: 'nope' } })).toThrow(/nope/)
    const runtime = new ToolRuntime({ policy: {} })
    expect(() => runtime.explainPolicy('read', { provder: 'x' } as any)).toThrow(/explainPolicy: context has unknown key "provder"/)
    expect(() => runtime.explainPolicy(5 as any)).toThrow(TypeError)
    return expect(runtime.dispatch([], { sender: { id: 5 } } as any)).rejects.toThrow(/dispatch: options\.sender\.id must be a string, got 5/)
  })

  it('runs ownerOnly tools only for the owner', async () => {
    const runtime = new ToolRuntime()
    const admin = recorder('admin', { ownerOnly: true })
    runtime.register(admin.tool)
    const [owner] = await runtime.dispatch([call('a', 'admin')], { sender: { id: 'u1', isOwner: true } })
    const [other] = await runtime.dispatch([call('b', 'admin')], { sender: { id: 'u2' } })
    const [nobody] = await runtime.dispatch([call('c', 'admin')])
    expect(owner.ok).toBe(true)
    expect([other.status, other.error?.code]).toEqual(['blocked', 'POLICY_DENIED'])
    expect(nobody.error?.details).toEqual({ layer: 'ownerOnly', rule: 'ownerOnly: the call has no sender' })
    expect(admin.ran).toEqual(['a'])
    expect(runtime.explainPolicy('admin', { sender: { id: 'u1', isOwner: true } }).allowed).toBe(true)
    // Names are case-insensitive for the policy: every spelling is the ownerOnly tool.
    for (const name of ['ADMIN', 'Admin', ' admin ']) {
      expect(runtime.explainPolicy(name, { sender: { id: 'u2' } })).toEqual({
        allowed: false,
        layer: 'ownerOnly',
        rule: 'ownerOnly: the sender is not the owner',
      })
      expect(runtime.explainPolicy(name)).toMatchObject({ allowed: false, rule: 'ownerOnly: the call has no sender' })
      expect(runtime.explainPolicy(name, { sender: { id: 'u1', isOwner: true } }).allowed).toBe(true)
    }
    expect(runtime.definitions('anthropic').tools).toEqual([])
    expect(runtime.definitions('anthropic', { sender: { id: 'u1', isOwner: true } }).tools).toHaveLength(1)
  })
})

describe('workspaceOnly', () => {
  const root = mkdtempSync(join(tmpdir(), 'toolwire-ws-'))
  const outside = mkdtempSync(join(tmpdir(), 'toolwire-outside-'))
  mkdirSync(join(root, 'src'))
  writeFileSync(join(root, 'src', 'a.ts'), 'x')
  symlinkSync(outside, join(root, 'escape'))
  afterAll(() => {
    rmSync(root, { recursive: true, force: true })
    rmSync(outside, { recursive: true, force: true })
  })

  it('refuses .., absolute paths outside and symlinks that escape, naming the parameter', async () => {
    const runtime = new ToolRuntime({ workspaceRoot: root })
    const write = recorder('write', {
      workspaceOnly: true,
      parameters: stringsSchema('file_path', 'content'),
    })
    runtime.register(write.tool)
    const args = (file_path: string) => ({ file_path, content: 'x' })
    const results = await runtime.dispatch([
      call('in', 'write', args('src/a.ts')),
      call('new', 'write', args('src/new/b.ts')),
      call('abs-in', 'write', args(join(root, 'src', 'a.ts'))),
      call('dotdot', 'write', args('../x')),
      call('abs-out', 'write', args('/etc/passwd')),
      call('link', 'write', args('escape/secret')),
      call('tilde', 'write', args('~/x')),
    ])
    expect(results.map((r) => r.status)).toEqual(['ok', 'ok', 'ok', 'blocked', 'blocked', 'blocked', 'blocked'])
    expect(write.ran).toEqual(['in', 'new', 'abs-in'])
    for (const refused of results.slice(3)) {
      expect(refused.error?.code).toBe('POLICY_DENIED')
      expect(refused.error?.details).toMatchObject({ layer: 'workspaceOnly', param: 'file_path' })
      expect(refused.content[0]).toMatchObject({ type: 'text' })
    }
  })

  it('checks by default path-named parameters whose schema has no type or a string branch', async () => {
    const runtime = new ToolRuntime({ workspaceRoot: root })
    const move = recorder('move', {
      workspaceOnly: true,
      parameters: {
        type: 'object',
        properties: {
          path: {},
          targetPath: { anyOf: [{ type: 'string' }, { type: 'null' }] },
          dir: { oneOf: [{ type: 'integer' }, { type: 'string' }] },
          countPath: { type: 'integer' },
        },
      },
    })
    runtime.register(move.tool)
    const results = await runtime.dispatch([
      call('in', 'move', { path: 'src/a.ts', targetPath: 'src/b.ts', dir: 'src', countPath: 3 }),
      call('path', 'move', { path: '../x' }),
      call('target', 'move', { path: 'src/a.ts', targetPath: '/etc/passwd' }),
      call('dir', 'move', { dir: 'escape/secret' }),
    ])
    expect(results.map((r) => r.status)).toEqual(['ok', 'blocked', 'blocked', 'blocked'])
    expect(results.slice(1).map((r) => (r.error?.details as any)?.param)).toEqual(['path', 'targetPath', 'dir'])
    expect(move.ran).toEqual(['in'])
  })

  it('checks the declared pathParams and the arguments a beforeToolCall hook rewrote', async () => {
    const runtime = new ToolRuntime({ workspaceRoot: root })
    const copy = recorder('copy', {
      workspaceOnly: true,
      pathParams: ['from', 'to'],
      parameters: stringsSchema('from', 'to'),
    })
    runtime.register(copy.tool)
    const [rewritten, plain] = await runtime.dispatch(
      [call('a', 'copy', { from: 'src/a.ts', to: 'src/b.ts' }), call('b', 'copy', { from: 'src/a.ts', to: '../../b' })],
      { beforeToolCall: ({ toolCall }) => (toolCall.id === 'a' ? { params: { from: '/etc/hosts', to: 'src/b.ts' } } : undefined) },
    )
    expect(rewritten.error?.details).toMatchObject({ param: 'from' })
    expect(plain.error?.details).toMatchObject({ param: 'to' })
    expect(copy.ran).toEqual([])
  })

  /** Runs `calls` (args objects) on a fresh workspaceOnly tool; the refused ones' pointers. */
  async function refusedPointers(extra: Partial<ToolDefinition>, calls: object[]) {
    const runtime = new ToolRuntime({ workspaceRoot: root })
    const tool = recorder('t', { workspaceOnly: true, ...extra })
    runtime.register(tool.tool)
    const results = await runtime.dispatch(calls.map((args, i) => call(String(i), 't', args)))
    for (const result of results.filter((r) => r.status !== 'ok')) {
      expect(result.error?.code).toBe('POLICY_DENIED')
      expect(result.error?.details).toMatchObject({ layer: 'workspaceOnly' })
      // The refusal names the parameter and the path, both cut short.
      expect(String((result.error?.details as any).value).length).toBeLessThanOrEqual(203)
      expect(result.error!.message.length).toBeLessThan(2000)
    }
    expect(tool.ran).toEqual(results.filter((r) => r.status === 'ok').map((r) => r.callId))
    return results.map((r) => (r.status === 'ok' ? 'ok' : (r.error?.details as any).pointer))
  }

  it('checks paths whatever the schema shape: none, a $ref root, TypeBox Intersect, zod .and, a discriminated union', async () => {
    const shapes: [string, Partial<ToolDefinition>, object, object][] = [
      ['no schema', { parameters: undefined }, { path: 'src/a.ts' }, { path: '../x' }],
      [
        '$ref root',
        { parameters: { $ref: '#/$defs/Args', $defs: { Args: { type: 'object', properties: { file: { type: 'string' } } } } } },
        { file: 'src/a.ts' },
        { file: '/etc/passwd' },
      ],
      [
        'TypeBox Intersect',
        { parameters: Type.Intersect([Type.Object({ mode: Type.String() }), Type.Object({ source_path: Type.String() })]) },
        { mode: 'r', source_path: 'src/a.ts' },
        { mode: 'r', source_path: '../../etc/shadow' },
      ],
      [
        'zod .and',
        { parameters: z.object({ mode: z.string() }).and(z.object({ outputPath: z.string() })) as any },
        { mode: 'w', outputPath: 'out/b.ts' },
        { mode: 'w', outputPath: '/tmp/b.ts' },
      ],
      [
        'zod discriminatedUnion',
        {
          parameters: z.discriminatedUnion('op', [
            z.object({ op: z.literal('read'), file: z.string() }),
            z.object({ op: z.literal('list'), dir: z.string() }),
          ]) as any,
        },
        { op: 'list', dir: 'src' },
        { op: 'list', dir: 'escape' },
      ],
    ]
    for (const [shape, extra, inside, outside] of shapes) {
      const key = Object.keys(outside).find((k) => k !== 'mode' && k !== 'op')!
      expect([shape, await refusedPointers(extra, [inside, outside])]).toEqual([shape, ['ok', `/${key}`]])
    }
  })

  it('checks path-named keys in every spelling at any depth, and file:// URLs, naming their pointer', async () => {
    const pointers = await refusedPointers({ parameters: { type: 'object' } }, [
      { source_path: '/etc/passwd' },
      { outputPath: '../out' },
      { LOG_FILE: '/var/log/syslog' },
      { workingDir: '/' },
      { paths: ['src/a.ts', '../b'] },
      { files: [{ path: 'src/a.ts' }, { path: '../../etc/hosts' }] },
      { files: [{ path: 'escape/secret' }] },
      { options: { output: { dir: '/tmp' } } },
      { url: 'file:///etc/passwd' },
      { target: `file://${root}/%2e%2e/x` },
      // Allowed: paths inside, and strings that are not paths though they hold slashes.
      { path: 'src/a.ts', paths: ['src', '.'], files: [{ path: 'src/new.ts', content: '../../etc/passwd' }] },
      { dir: join(root, 'src'), url: `file://${join(root, 'src', 'a.ts')}` },
      { content: '/etc/passwd', command: 'cat ../../x', url: 'https://example.com/../a', note: 'see file:///etc' },
      { urlPath: '/api/v1', xpath: '//div', count: 3, cwd: null },
    ])
    expect(pointers).toEqual([
      '/source_path',
      '/outputPath',
      '/LOG_FILE',
      '/workingDir',
      '/paths/1',
      '/files/1/path',
      '/files/0/path',
      '/options/output/dir',
      '/url',
      '/target',
      'ok',
      'ok',
      'ok',
      'ok',
    ])
  })

  it('refuses the bypasses of attack review 23-25: .. after a symlink, file URLs as new URL reads them, more path keys', async () => {
    // pnpm-like: a symlink to a directory two levels down. The kernel reads a/../../x as
    // <root>/x; path.resolve(root, 'a/../../x') is the root's parent.
    mkdirSync(join(root, 'd1', 'd2'), { recursive: true })
    symlinkSync('d1/d2', join(root, 'a'))
    expect(resolve(root, 'a/../../escape-1.txt')).toBe(join(root, '..', 'escape-1.txt'))
    const urls = [' file:///etc/hostname', 'fi\tle:///etc/hostname', 'file:\\\\localhost\\etc\\hostname']
    // What a tool calling fileURLToPath(new URL(x)) opens.
    expect(urls.map((url) => fileURLToPath(new URL(url)))).toEqual(urls.map(() => '/etc/hostname'))
    const pointers = await refusedPointers({ parameters: { type: 'object' } }, [
      { path: 'a/../../escape-1.txt' },
      { path: 'missing/../a/../../escape-2.txt' },
      { href: urls[0] },
      { note: urls[1] },
      { link: urls[2] },
      { output: '/tmp/x', dst: 'src/b.ts' },
      { dst: '../x' },
      { to: '/etc/cron.d/x' },
      { root: '/' },
      { location: '/etc' },
      { dest_dir: '/tmp' },
      { path: { '0': '/etc/passwd' } },
      // Allowed controls.
      { path: 'a/x.txt' },
      { path: 'd1/../src/a.ts' },
      { href: 'http://example.com/../../etc/hostname' },
      { to: 'bob@example.com', subject: 'hi', from: 'alice@example.com' },
    ])
    expect(pointers).toEqual([
      '/path',
      '/path',
      '/href',
      '/note',
      '/link',
      '/output',
      '/dst',
      '/to',
      '/root',
      '/location',
      '/dest_dir',
      '/path/0',
      'ok',
      'ok',
      'ok',
      'ok',
    ])
  })

  it('says a call whose lookups overrun the budget cannot be checked, not that it is outside', async () => {
    const runtime = new ToolRuntime({ workspaceRoot: root })
    const tool = recorder('t', { workspaceOnly: true, parameters: undefined })
    runtime.register(tool.tool)
    const deep = 'deep/'.repeat(300)
    mkdirSync(join(root, deep), { recursive: true })
    const [result] = await runtime.dispatch([call('many', 't', { paths: Array.from({ length: 100 }, (_, i) => `${deep}${i}`) })])
    expect(result.error?.code).toBe('POLICY_DENIED')
    expect(result.error?.message).toMatch(/cannot be checked against the workspace .*look up more than/)
    expect(result.error?.message).not.toMatch(/is outside the workspace/)
    expect(tool.ran).toEqual([])
  })

  it('refuses a 1 MB path at once, naming PATH_MAX and quoting a bounded part of it', async () => {
    const runtime = new ToolRuntime({ workspaceRoot: root })
    const tool = recorder('t', { workspaceOnly: true, parameters: undefined })
    runtime.register(tool.tool)
    // 1 MB, under the 1 MiB limits.maxArgumentsBytes that would refuse the call before policy.
    const huge = 'a/'.repeat(500_000)
    const [long, url, ok] = await runtime.dispatch([
      call('long', 't', { path: huge }),
      call('url', 't', { files: [{ path: `file:///${'%61/'.repeat(240_000)}` }] }),
      call('ok', 't', { path: `src/missing/${'a/'.repeat(1500)}x` }),
    ])
    for (const [result, pointer] of [[long, '/path'], [url, '/files/0/path']] as const) {
      expect(result.error?.code).toBe('POLICY_DENIED')
      expect(result.error?.message).toMatch(/over PATH_MAX \(4096 bytes/)
      expect(result.error?.details).toMatchObject({ pointer })
      expect(result.error!.message.length).toBeLessThan(2000)
    }
    expect(ok.status).toBe('ok')
    expect(tool.ran).toEqual(['ok'])
  })

  it('lets pathParams name nested properties behind an intersection, and lists what it checks', async () => {
    const runtime = new ToolRuntime({ workspaceRoot: root })
    const parameters = {
      allOf: [
        { $ref: '#/$defs/Base' },
        { type: 'object', properties: { jobs: { type: 'array', items: { type: 'object', properties: { location: { type: 'string' } } } } } },
      ],
      $defs: { Base: { type: 'object', properties: { from: { type: 'string' }, outPath: { type: 'string' } } } },
    }
    const batch = recorder('batch', { workspaceOnly: true, pathParams: ['from', 'jobs.*.location'], parameters })
    runtime.register(batch.tool)
    expect(runtime.list()[0].pathParams).toEqual(['from', 'jobs.*.location', 'outPath'])
    const results = await runtime.dispatch([
      call('a', 'batch', { from: 'src/a.ts', jobs: [{ location: 'src' }, { location: '../x' }] }),
      call('b', 'batch', { from: '/etc/hosts' }),
      call('c', 'batch', { from: 'src/a.ts', jobs: [{ location: 'src' }] }),
    ])
    expect(results.map((r) => (r.error?.details as any)?.pointer ?? r.status)).toEqual(['/jobs/1/location', '/from', 'ok'])
    expect(results[0].error?.details).toMatchObject({ param: 'jobs[1].location', value: '../x' })
    expect(() =>
      runtime.register(recorder('bad', { workspaceOnly: true, pathParams: ['jobs.*.nope'], parameters }).tool),
    ).toThrow(/pathParams names "jobs.\*.nope", which is not a parameter/)
  })

  it('refuses a workspaceOnly tool without a workspace root, and pathParams that name no parameter', () => {
    expect(() => new ToolRuntime().register(recorder('w', { workspaceOnly: true }).tool)).toThrow(/no workspaceRoot/)
    const runtime = new ToolRuntime({ workspaceRoot: root })
    expect(() => runtime.register(recorder('w', { workspaceOnly: true, pathParams: ['nope'] }).tool)).toThrow(
      /pathParams names "nope", which is not a parameter/,
    )
    expect(() => new ToolRuntime({ workspaceRoot: 5 as any })).toThrow(/workspaceRoot must be a non-empty path string/)
  })
})

describe('registration', () => {
  it('refuses a plugin whose id is a tool name, and names every duplicate', () => {
    const runtime = new ToolRuntime()
    runtime.register(recorder('read').tool)
    expect(() => runtime.registerPlugin('read', [recorder('x').tool])).toThrow(/plugin id "read" is the name of a registered tool/)
    let error: unknown
    try {
      runtime.registerPlugin('kit', [recorder('a').tool, recorder('read').tool, recorder('b').tool, recorder('a').tool])
    } catch (caught) {
      error = caught
    }
    expect(error).toBeInstanceOf(ToolwireError)
    expect((error as ToolwireError).code).toBe('CONFLICT')
    expect((error as Error).message).toContain('"read", "a"')
    // Nothing of the refused plugin was registered.
    expect(runtime.list().map((t) => t.name)).toEqual(['read'])
    expect(() => runtime.register(recorder('read').tool)).toThrow(/"read" is already registered/)
  })

  it('registers plugin tools under group:plugins', async () => {
    const runtime = new ToolRuntime({ policy: { deny: ['group:plugins'] } })
    const core = recorder('read')
    const browse = recorder('browse')
    runtime.register(core.tool)
    runtime.registerPlugin('web-kit', [browse.tool])
    expect(runtime.list().find((t) => t.name === 'browse')).toMatchObject({ plugin: 'web-kit' })
    const results = await runtime.dispatch([call('a', 'read'), call('b', 'browse')])
    expect(results.map((r) => r.status)).toEqual(['ok', 'blocked'])
    expect(runtime.explainPolicy('browse')).toEqual({ allowed: false, layer: 'global', rule: 'deny: group:plugins' })
    expect(() => runtime.register(recorder('web-kit').tool)).toThrow(/plugin with the id "web-kit"/)
  })
})

describe('loop detection', () => {
  it('warns at warnAt and blocks from blockAt within one run', async () => {
    const runtime = new ToolRuntime({ loopDetection: { warnAt: 3, blockAt: 4 } })
    const read = recorder('read')
    runtime.register(read.tool)
    const events: ToolExecutionEvent[] = []
    const statuses: string[] = []
    for (let i = 0; i < 5; i++) {
      // The same arguments with keys in another order are the same call.
      const args = i % 2 === 0 ? '{"path":"a","command":"x"}' : '{"command":"x","path":"a"}'
      const [result] = await runtime.dispatch([{ id: `c${i}`, name: 'read', arguments: args }], {
        runId: 'r1',
        onEvent: (event) => events.push(event),
      })
      statuses.push(result.error?.code ?? result.status)
    }
    expect(statuses).toEqual(['ok', 'ok', 'ok', 'BLOCKED', 'BLOCKED'])
    expect(events.filter((e) => e.type === 'loop_warning')).toEqual([
      { type: 'loop_warning', toolCallId: 'c2', toolName: 'read', count: 3 },
    ])
    // Other arguments, another run, or no run at all are not the same loop.
    const [other] = await runtime.dispatch([call('d', 'read', { path: 'b' })], { runId: 'r1' })
    const [fresh] = await runtime.dispatch([call('e', 'read', { path: 'a', command: 'x' })], { runId: 'r2' })
    expect([other.ok, fresh.ok]).toEqual([true, true])
    for (let i = 0; i < 5; i++) {
      const [free] = await runtime.dispatch([call(`f${i}`, 'read', { path: 'a', command: 'x' })])
      expect(free.ok).toBe(true)
    }
  })

  it('compares numbers by value: a model writing 1, 1.0, 1e0 or 10e-1 repeats one call', async () => {
    const runtime = new ToolRuntime({ loopDetection: { warnAt: 2, blockAt: 4 } })
    runtime.register(recorder('read').tool)
    const statuses: string[] = []
    for (const [i, n] of ['1', '1.0', '1e0', '10e-1', '1.5'].entries()) {
      const [result] = await runtime.dispatch([{ id: `n${i}`, name: 'read', arguments: `{"path":"a","line":${n}}` }], { runId: 'numbers' })
      statuses.push(result.error?.code ?? result.status)
    }
    // The fourth spelling of 1 is the fourth identical call; 1.5 is another call.
    expect(statuses).toEqual(['ok', 'ok', 'ok', 'BLOCKED', 'ok'])
  })

  it('is on by default (warn at 5, block at 10) and can be turned off', async () => {
    const on = new ToolRuntime()
    const off = new ToolRuntime({ loopDetection: false })
    for (const runtime of [on, off]) runtime.register(recorder('read').tool)
    const batch = Array.from({ length: 10 }, (_, i) => call(`c${i}`, 'read', { path: 'a' }))
    const warnings: number[] = []
    const results = await on.dispatch(batch, {
      runId: 'r',
      onEvent: (e) => e.type === 'loop_warning' && warnings.push(e.count),
    })
    expect(results.map((r) => r.status)).toEqual([...Array(9).fill('ok'), 'blocked'])
    expect(warnings).toEqual([5])
    const unchecked = await off.dispatch(batch, { runId: 'r' })
    expect(unchecked.every((r) => r.ok)).toBe(true)
    expect(() => new ToolRuntime({ loopDetection: { warnAt: 5, blockAt: 2 } })).toThrow(/loopDetection/)
  })

  it('sends every event to the runtime-level onEvent as well', async () => {
    const seen: string[] = []
    const runtime = new ToolRuntime({ onEvent: (e) => seen.push(`runtime:${e.type}`) })
    runtime.register(recorder('read').tool)
    await runtime.dispatch([call('a', 'read')], { onEvent: (e) => seen.push(`dispatch:${e.type}`) })
    expect(seen).toEqual([
      'dispatch:tool_execution_start',
      'runtime:tool_execution_start',
      'dispatch:tool_execution_end',
      'runtime:tool_execution_end',
    ])
    expect(() => new ToolRuntime({ onEvent: 5 as any })).toThrow(TypeError)
  })
})

describe('approvals', () => {
  const sandbox = mkdtempSync(join(tmpdir(), 'toolwire-approvals-'))
  const bin = join(sandbox, 'bin')
  mkdirSync(bin)
  for (const program of ['ls', 'git', 'rm', 'sh', 'env']) writeFileSync(join(bin, program), '#!/bin/sh\n', { mode: 0o755 })
  afterAll(() => rmSync(sandbox, { recursive: true, force: true }))
  const analysis = { env: { PATH: bin }, trustedDirs: [bin] }

  const exec = () =>
    recorder('exec', {
      command: 'command',
      parameters: { type: 'object', properties: { command: { type: 'string' } }, required: ['command'] },
    })

  it("analyzes an exec call in its own working directory and environment: a relative cwd is resolved, never dropped", async () => {
    const ws = realpathSync(mkdtempSync(join(sandbox, 'ws-')))
    mkdirSync(join(ws, 'sub'))
    mkdirSync(join(ws, 'vendor/evil/.git'), { recursive: true })
    writeFileSync(join(ws, 'tool'), '#!/bin/sh\n', { mode: 0o755 })
    writeFileSync(join(ws, 'sub', 'tool'), '#!/bin/sh\n', { mode: 0o755 })
    const runtime = new ToolRuntime({ workspaceRoot: ws, approvals: { ...analysis, allowlist: [`${ws}/tool`, 'git'] } })
    const tool = recorder('exec', {
      command: 'command',
      parameters: { type: 'object', properties: { command: { type: 'string' }, cwd: {}, workdir: {}, env: {} }, required: ['command'] },
    })
    runtime.register(tool.tool)
    const results = await runtime.dispatch([
      call('root', 'exec', { command: './tool' }),
      call('relative', 'exec', { command: './tool', cwd: 'sub' }),
      call('workdir', 'exec', { command: './tool', workdir: 'sub' }),
      call('dot', 'exec', { command: './tool', cwd: '.' }),
      call('path', 'exec', { command: './tool', env: { PATH: '/tmp' } }),
      call('lang', 'exec', { command: './tool', env: { LANG: 'C' } }),
      call('nested', 'exec', { command: 'git status', cwd: 'vendor/evil' }),
      call('git', 'exec', { command: 'git status', cwd: 'sub' }),
    ])
    expect(Object.fromEntries(results.map((r) => [r.callId, r.status]))).toEqual({
      root: 'ok', relative: 'pending', workdir: 'pending', dot: 'ok', path: 'pending', lang: 'ok', nested: 'pending', git: 'ok',
    })
    const reason = (id: string) => results.find((r) => r.callId === id)!.error!.message
    expect(reason('relative')).toContain(`${ws}/sub/tool`)
    expect(reason('path')).toContain('"PATH"')
    expect(reason('nested')).toContain('a repository of its own')
  })

  it('runs allowlisted commands, asks onApproval on a miss, and refuses a denial', async () => {
    const asked: any[] = []
    const answers: Record<string, string> = { 'rm -rf /': 'deny', 'git status': 'allow-once' }
    const runtime = new ToolRuntime({
      approvals: {
        ...analysis,
        allowlist: ['ls'],
        onApproval: async (request) => {
          asked.push(request)
          return answers[request.command!] as any
        },
      },
    })
    const tool = exec()
    runtime.register(tool.tool)
    const results = await runtime.dispatch([
      call('a', 'exec', { command: 'ls -la' }),
      call('b', 'exec', { command: 'rm -rf /' }),
      call('c', 'exec', { command: 'git status' }),
    ])
    expect(results.map((r) => [r.status, r.error?.code ?? null])).toEqual([
      ['ok', null],
      ['blocked', 'POLICY_DENIED'],
      ['ok', null],
    ])
    expect(tool.ran.sort()).toEqual(['a', 'c'])
    expect(asked.map((r) => r.command)).toEqual(['rm -rf /', 'git status'])
    expect(asked[0]).toMatchObject({
      toolCallId: 'b',
      toolName: 'exec',
      args: { command: 'rm -rf /' },
      security: 'allowlist',
      ask: 'on-miss',
      analysis: { approved: false },
    })
    expect(asked[0].approvalId).toMatch(/^approval-/)
    expect(asked[0].reason).toContain('not allowlisted')
    expect(results[1].content[0]).toMatchObject({ text: expect.stringContaining('denied') })
  })

  it('applies askFallback when onApproval is silent, and treats a bad answer as a denial', async () => {
    const make = (askFallback: 'deny' | 'full', answer: unknown) => {
      const runtime = new ToolRuntime({
        approvals: { ...analysis, allowTools: [], timeoutMs: 30, askFallback, onApproval: () => answer as any },
      })
      const tool = recorder('write')
      runtime.register(tool.tool)
      return { runtime, tool }
    }
    const never = new Promise(() => {})
    const denied = make('deny', never)
    const [timedOut] = await denied.runtime.dispatch([call('a', 'write')])
    expect([timedOut.status, timedOut.error?.code]).toEqual(['blocked', 'POLICY_DENIED'])
    expect(timedOut.error?.message).toContain('within 30 ms')
    const allowed = make('full', never)
    const [ranAnyway] = await allowed.runtime.dispatch([call('b', 'write')])
    expect(ranAnyway.ok).toBe(true)
    const confused = make('full', 'sure')
    const [bad] = await confused.runtime.dispatch([call('c', 'write')])
    expect(bad.error?.code).toBe('POLICY_DENIED')
    expect(bad.error?.message).toContain('"allow-once", "allow-always", "deny", true (allow once) or false (deny), got "sure"')
    expect(confused.tool.ran).toEqual([])
  })

  it('remembers allow-always in the approvals file, but never a wrapper program', async () => {
    const file = join(sandbox, 'state', 'approvals.json')
    const asked: string[] = []
    const options = {
      approvals: {
        ...analysis,
        file,
        onApproval: (request: any) => {
          asked.push(request.command)
          return 'allow-always' as const
        },
      },
    }
    const first = new ToolRuntime(options)
    first.register(exec().tool)
    await first.dispatch([call('a', 'exec', { command: 'git status' }), call('b', 'exec', { command: "sh -c 'ls'" })])
    expect(asked).toEqual(['git status', "sh -c 'ls'"])
    const saved = JSON.parse(readFileSync(file, 'utf8'))
    expect(saved.version).toBe(1)
    expect(saved.commands.exec.executables).toEqual([realpathSync(join(bin, 'git'))])
    expect(saved.commands.exec.exact).toEqual(["sh -c 'ls'"])

    // A new runtime reads the file: the remembered program and exact command run unasked.
    asked.length = 0
    const second = new ToolRuntime({ approvals: { ...options.approvals, onApproval: (r: any) => (asked.push(r.command), 'deny' as const) } })
    second.register(exec().tool)
    const results = await second.dispatch([
      call('c', 'exec', { command: 'git log' }),
      call('d', 'exec', { command: "sh -c 'ls'" }),
      call('e', 'exec', { command: "sh -c 'rm -rf /'" }),
      call('f', 'exec', { command: 'git -c core.pager=sh log' }),
    ])
    expect(results.map((r) => r.status)).toEqual(['ok', 'ok', 'blocked', 'blocked'])
    expect(asked).toEqual(["sh -c 'rm -rf /'", 'git -c core.pager=sh log'])

    writeFileSync(file, '{ broken')
    expect(() => new ToolRuntime(options)).toThrow(/approvals file .*approvals\.json: is malformed/)
  })

  it('defers without onApproval: pending with an approvalId, then resolveApproval runs or refuses it', async () => {
    const events: ToolExecutionEvent[] = []
    const runtime = new ToolRuntime({ approvals: { ask: 'always' }, onEvent: (e) => events.push(e as ToolExecutionEvent) })
    const tool = recorder('write')
    runtime.register(tool.tool)
    const [first, second] = await runtime.dispatch([call('a', 'write', { path: 'x' }), call('b', 'write', { path: 'y' })], {
      runId: 'run-7',
    })
    expect([first.status, first.error?.code]).toEqual(['pending', 'APPROVAL_REQUIRED'])
    const firstId = (first.details as any).approvalId
    const secondId = (second.details as any).approvalId
    expect(firstId).not.toEqual(secondId)
    expect(tool.ran).toEqual([])
    // Events show the engine's own details, with no redaction_failed.
    expect(events.some((e) => e.type === 'redaction_failed')).toBe(false)
    const pendingEnd = events.find((e) => e.type === 'tool_execution_end' && e.toolCallId === 'a') as any
    expect(pendingEnd.result.details).toEqual({ approvalId: firstId })

    events.length = 0
    const ran = await runtime.resolveApproval(firstId, 'allow-once')
    expect(ran).toMatchObject({ callId: 'a', tool: 'write', status: 'ok', runId: 'run-7', args: { path: 'x' } })
    expect(tool.ran).toEqual(['a'])
    expect(events.map((e) => e.type)).toEqual(['tool_execution_start', 'tool_execution_end'])
    const refused = await runtime.resolveApproval(secondId, 'deny')
    expect([refused.status, refused.error?.code]).toEqual(['blocked', 'POLICY_DENIED'])
    expect(tool.ran).toEqual(['a'])

    await expect(runtime.resolveApproval(firstId, 'allow-once')).rejects.toMatchObject({ code: 'NOT_FOUND' })
    const [third] = await runtime.dispatch([call('c', 'write')])
    await expect(runtime.resolveApproval((third.details as any).approvalId, 'maybe' as any)).rejects.toThrow(
      /resolveApproval: decision must be "allow-once", "allow-always", "deny", true \(allow once\) or false \(deny\), got "maybe"/,
    )
  })

  it('defers, and resolveApproval allow-always runs the call, saves the grant and lets the same call run unasked', async () => {
    const file = join(sandbox, 'deferred', 'approvals.json')
    const events: ToolExecutionEvent[] = []
    const options = { approvals: { ...analysis, file, allowTools: [] }, onEvent: (e: ToolExecutionEvent) => events.push(e) }
    const runtime = new ToolRuntime(options)
    const tool = exec()
    const write = recorder('write')
    runtime.register(tool.tool)
    runtime.register(write.tool)
    const [gitPending, writePending] = await runtime.dispatch([
      call('a', 'exec', { command: 'git status' }),
      call('b', 'write', { path: 'x' }),
    ])
    expect([gitPending.status, gitPending.error?.code, writePending.status]).toEqual(['pending', 'APPROVAL_REQUIRED', 'pending'])
    expect([tool.ran, write.ran]).toEqual([[], []])

    events.length = 0
    const ranGit = await runtime.resolveApproval((gitPending.details as any).approvalId, 'allow-always')
    const ranWrite = await runtime.resolveApproval((writePending.details as any).approvalId, 'allow-always')
    expect([ranGit.status, ranGit.callId, ranWrite.status, ranWrite.callId]).toEqual(['ok', 'a', 'ok', 'b'])
    expect([tool.ran, write.ran]).toEqual([['a'], ['b']])
    expect(events.filter((e) => e.type === 'tool_execution_end').map((e: any) => e.toolCallId)).toEqual(['a', 'b'])
    const saved = JSON.parse(readFileSync(file, 'utf8'))
    expect(saved.commands.exec.executables).toEqual([realpathSync(join(bin, 'git'))])
    expect(saved.tools).toEqual(['write'])

    // The same calls again run without approval, here and in a runtime that reads the file.
    const again = await runtime.dispatch([call('c', 'exec', { command: 'git status' }), call('d', 'write', { path: 'x' })])
    expect(again.map((r) => r.status)).toEqual(['ok', 'ok'])
    const fresh = new ToolRuntime(options)
    const freshExec = exec()
    fresh.register(freshExec.tool)
    const [fromFile, other] = await fresh.dispatch([call('e', 'exec', { command: 'git status' }), call('f', 'exec', { command: 'rm x' })])
    expect([fromFile.status, other.status]).toEqual(['ok', 'pending'])
    expect(freshExec.ran).toEqual(['e'])
  })

  it('lets a tool or a dispatch override the settings, and security deny refuses outright', async () => {
    const runtime = new ToolRuntime({ approvals: { security: 'full', ask: 'off' } })
    const locked = recorder('locked', { approval: { security: 'deny' } })
    const open = recorder('open')
    runtime.register(locked.tool)
    runtime.register(open.tool)
    const [a, b] = await runtime.dispatch([call('a', 'locked'), call('b', 'open')])
    expect([a.status, b.status]).toEqual(['blocked', 'ok'])
    expect(a.error?.message).toContain('approvals.security is "deny"')
    const [c] = await runtime.dispatch([call('c', 'open')], { approval: { ask: 'always' } })
    expect(c.status).toBe('pending')
    expect(() => runtime.register(recorder('x', { approval: { ask: 'sometimes' } as any }).tool)).toThrow(
      /tool "x": approval\.ask must be "off", "on-miss" or "always", got "sometimes"/,
    )
    expect(() => new ToolRuntime({ approvals: { onApproval: 5 } as any })).toThrow(TypeError)
  })
})
