// The contract between the engine and the JavaScript layer: codes and constants generated from
// the Rust that declares them (ts/protocol.generated.js, checked against the engine by
// `cargo test -p toolwire-core contract::`), errors whose code crosses as data, and decoder
// errors named by kind, never by their prose.
import { readFileSync, readdirSync } from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'

import { describe, expect, it } from 'vitest'

import { DecodeErrorKind, ERROR_CODES, RepairKind, StreamDecoder, ToolRuntime, ToolwireError, normalizeToolCallId } from '../dist/index.js'

const require = createRequire(import.meta.url)
const root = path.join(__dirname, '..')
const read = (file: string) => readFileSync(path.join(root, file), 'utf8')
const generated = require('../dist/protocol.generated.js')
const native = require('../native.js')
const { describeError, turnErrors, ERROR_TITLES, REPAIR_VIEWS } = await import('../dist/cli/quirks.js')

/** The sources of the package's driver (ts/, the generated module aside). */
const driverFiles = readdirSync(path.join(root, 'ts'))
  .filter((f) => /\.(js|ts)$/.test(f) && !f.endsWith('.d.ts') && !f.startsWith('protocol.generated.'))
  .map((f) => `ts/${f}`)

describe('one source of truth for codes and constants', () => {
  it('the driver handles every action and writes every completion the engine declares', () => {
    // (the lines taking the names from the generated module do not count)
    const driver = driverFiles.map(read).join('\n').replace(/^const \{[^}]*\} = \w+$/gm, '')
    for (const name of Object.keys(generated.Action)) {
      expect(driver, `Action.${name}`).toMatch(new RegExp(`(case|===) (Action\\.)?${name}\\b`))
    }
    for (const name of Object.keys(generated.Completion)) {
      // written as a completion's kind: an argument of #complete/settle/#hook, or returned with its payload
      expect(driver, `Completion.${name}`).toMatch(new RegExp(`([(\\[,?:] *|Completion\\.)${name}\\b[^=]`))
    }
  })

  it('no protocol code or shared constant is written by hand in the JavaScript layer', () => {
    const shared = new Set([
      ...Object.keys(generated).filter((key) => typeof generated[key] !== 'object'),
      ...Object.values(generated).flatMap((group: any) => (typeof group === 'object' && !Array.isArray(group) ? Object.keys(group) : [])),
      'START_EVENT', 'RUN_TOOL', 'SHAPE_AGENT_RESULT', 'SHAPE_TEXT', 'SHAPE_JSON', 'AS_IS_DEPTH', 'CALL', 'RESULT', 'EVENT', 'DEFAULT_MAX_CONCURRENCY', 'DEFAULT_MAX_RETRIES', 'MAX_RETRIES',
    ])
    for (const file of driverFiles) {
      for (const m of read(file).matchAll(/^const ([A-Z][A-Z0-9_]*) = (-?[0-9][0-9_x.e]*|'[^']*'|"[^"]*")\s*$/gm)) {
        expect(shared.has(m[1]!), `${file}: ${m[0]} is one of the engine's codes or constants: take it from ts/protocol.generated.js`).toBe(false)
      }
    }
  })

  it('the generated module is frozen and its declarations match it', () => {
    const dts = read('dist/protocol.generated.d.ts')
    for (const [name, value] of Object.entries(generated)) {
      expect(dts, name).toMatch(new RegExp(`export declare const ${name}(:| =) `))
      if (typeof value === 'object') {
        expect(Object.isFrozen(value), name).toBe(true)
        if (!Array.isArray(value)) {
          for (const [key, code] of Object.entries(value as object)) {
            if (code !== null && typeof code === 'object') {
              // a table of records (REQUEST_SHAPES): each record frozen, each field declared as its value
              expect(Object.isFrozen(code), `${name}.${key}`).toBe(true)
              expect(dts, `${name}.${key}`).toMatch(new RegExp(`readonly '?${key}'?: Readonly<\\{`))
              for (const [field, fieldValue] of Object.entries(code as object)) expect(dts, `${name}.${key}.${field}`).toContain(`readonly ${field}: ${JSON.stringify(fieldValue)}`)
            } else {
              expect(dts, `${name}.${key}`).toContain(`readonly ${key}: ${JSON.stringify(code)}`)
            }
          }
        }
      }
    }
    expect(Object.values(generated.Action)).toEqual([...Object.values(generated.Action) as number[]].sort((a, b) => a - b))
    expect(ERROR_CODES).toEqual(generated.ERROR_CODES)
  })
})

describe('errors cross with their code as data', () => {
  // Each native entry refused with the engine's code: err.code is set natively, the message is
  // the engine's own (no `[CODE] ` prefix to parse).
  const refusals: [string, () => unknown, string, RegExp][] = [
    ['normalizeToolCallId', () => native.normalizeToolCallId('a', 'no-such-target'), 'VALIDATION_ERROR', /no-such-target/],
    ['checkWire', () => native.checkWire('smoke-signals'), 'VALIDATION_ERROR', /smoke-signals/],
    ['NativeDecoder', () => new native.NativeDecoder('smoke-signals', '{}'), 'VALIDATION_ERROR', /smoke-signals/],
    ['panic', () => new native.NativeRuntime('{}').__panicForTests(), 'INTERNAL_ERROR', /^toolwire internal error/],
  ]
  for (const [label, call, code, message] of refusals) {
    it(`${label}: the native error's code is ${code}`, () => {
      let thrown: any
      try {
        call()
      } catch (error) {
        thrown = error
      }
      expect(thrown, label).toBeInstanceOf(Error)
      expect(thrown.code).toBe(code)
      expect(thrown.message).toMatch(message)
      expect(thrown.message).not.toMatch(/^\[[A-Z_]+\]/)
    })
  }

  it('the public API throws a ToolwireError with that code and the same message', () => {
    let thrown: any
    try {
      normalizeToolCallId('a', 'no-such-target' as any)
    } catch (error) {
      thrown = error
    }
    expect(thrown).toBeInstanceOf(ToolwireError)
    expect(thrown.code).toBe('VALIDATION_ERROR')
    expect(thrown.message).toMatch(/no-such-target/)
    expect(thrown.message).not.toMatch(/^\[/)
  })

  it("work on the libuv pool rejects with the engine's code: a value too deep for the pool's sanitizer is LIMIT_EXCEEDED, not the tool's throw", async () => {
    const runtime = new ToolRuntime()
    let deep: unknown = 'x'
    for (let i = 0; i < 80; i++) deep = [deep]
    // an image sends the value to the pool lane
    const image = { type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' }
    runtime.register({ name: 't', parameters: { type: 'object' }, execute: async () => ({ content: [image], details: deep }) } as any)
    const [result] = await runtime.dispatch([{ id: 'a', name: 't', arguments: '{}' }])
    expect(result!.error?.code).toBe('LIMIT_EXCEEDED')
  })

  it("napi's own errors keep their status as the code and are not the engine's", () => {
    let thrown: any
    try {
      native.normalizeToolCallId(42, 'strict')
    } catch (error) {
      thrown = error
    }
    expect(thrown).toBeInstanceOf(Error)
    expect(thrown).not.toBeInstanceOf(ToolwireError)
    expect(ERROR_CODES).not.toContain(thrown.code)
  })
})

describe('decoder errors are named by kind', () => {
  it('a turn lists each error with its kind, and each error event carries it', () => {
    const decoder = new StreamDecoder('openai-chat')
    const events = decoder.push('data: {"id":"c","choices":[{"index":0,"delta":{"content":"x"}}]}\n\ndata: {not json\n\n')
    const turn = decoder.finish()
    expect(turn.errorKinds).toEqual([DecodeErrorKind.UNREADABLE_EVENT, DecodeErrorKind.STREAM_TRUNCATED])
    expect(turn.errors).toHaveLength(2)
    const kinds = [...events, ...turn.events].filter((e) => e.type === 'error').map((e: any) => e.kind)
    expect(kinds).toEqual(['unreadable-event', 'stream-truncated'])
  })

  it('the CLI names an error by its kind alone, whatever its message says', () => {
    // The message of one kind worded as another's: the kind wins (no prose is read).
    expect(describeError(DecodeErrorKind.STREAM_TRUNCATED, 'the provider reported an error: spliced content filter')).toEqual({
      kind: 'stream-truncated',
      title: ERROR_TITLES['stream-truncated'],
      message: 'the provider reported an error: spliced content filter',
    })
    const turn = { errors: ['anything at all', 'the stream ended before its terminal event'], errorKinds: ['provider-error', 'oversized-event'] }
    expect(turnErrors(turn).map((e) => e.kind)).toEqual(['provider-error', 'oversized-event'])
    expect(describeError(undefined, 'x').kind).toBe('decoder-error')
  })

  it('every kind the engine declares has a title in the CLI', () => {
    for (const kind of Object.values(DecodeErrorKind)) expect(ERROR_TITLES[kind], kind).toEqual(expect.any(String))
    expect(Object.keys(ERROR_TITLES).sort()).toEqual([...Object.values(DecodeErrorKind)].sort())
  })

  it('every repair kind the engine declares is presented by the CLI, and no other', () => {
    for (const kind of Object.values(RepairKind)) expect(REPAIR_VIEWS[kind]?.title, kind).toEqual(expect.any(String))
    expect(Object.keys(REPAIR_VIEWS).sort()).toEqual([...Object.values(RepairKind)].sort())
  })
})
