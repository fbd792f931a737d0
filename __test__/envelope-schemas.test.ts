// The shipped JSON Schemas (schemas/*.json, generated from the Rust envelope types by `npm run
// schemas`) against the TypeScript declarations of the same envelopes (ts/types.ts) and against
// what the runtime emits. The Rust types are the one declaration of the envelopes' fields; the
// TypeScript types are written by hand, so this keeps them equal: every field and event type one
// side declares, the other must, with the same optionality, nullability and literal values.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import Ajv2020 from 'ajv/dist/2020.js'
import ts from 'typescript'
import { describe, expect, it } from 'vitest'

import { ToolRuntime, type ToolCall, type ToolExecutionEvent, type ToolResult } from '../dist/index.js'
import { png } from './helpers.js'

const root = join(__dirname, '..')
type Schema = Record<string, any>
const schemaFile = (name: string): Schema => JSON.parse(readFileSync(join(root, 'schemas', name), 'utf8'))

/** Each shipped schema and the TypeScript type it describes. */
const ENVELOPES: [file: string, type: string][] = [
  ['tool-call.json', 'ToolCall'],
  ['tool-result.json', 'ToolResult'],
  ['tool-execution-event.json', 'ToolExecutionEvent'],
]

/** ts/types.ts compiled with the project's settings, and its type checker. */
function declarations(): { checker: ts.TypeChecker; exported: (name: string) => ts.Type } {
  const configPath = join(root, 'tsconfig.json')
  const config = ts.parseJsonConfigFileContent(ts.readConfigFile(configPath, ts.sys.readFile).config, ts.sys, root)
  const file = join(root, 'ts', 'types.ts')
  const program = ts.createProgram([file], { ...config.options, noEmit: true })
  const checker = program.getTypeChecker()
  const module = checker.getSymbolAtLocation(program.getSourceFile(file)!)!
  const exports = checker.getExportsOfModule(module)
  return {
    checker,
    exported: (name) => {
      const symbol = exports.find((s) => s.name === name)
      if (symbol === undefined) throw new Error(`ts/types.ts exports no ${name}`)
      return checker.getDeclaredTypeOfSymbol(symbol)
    },
  }
}

/**
 * Where the TypeScript type `type` and the JSON Schema `schema` (within `whole`, for `$ref`s)
 * disagree: fields one has and the other lacks, a field required on one side only, `null`
 * allowed on one side only, literal values (event types, status and error codes) that differ,
 * and kinds (string, number, boolean, array, object) that differ. `unknown` matches a schema
 * that allows anything and nothing else.
 */
function differences(checker: ts.TypeChecker, type: ts.Type, schema: Schema, whole: Schema): string[] {
  const problems: string[] = []
  const resolve = (s: Schema | boolean): Schema => {
    if (typeof s === 'boolean') return s ? {} : { not: {} }
    if (typeof s.$ref === 'string') return resolve(s.$ref.replace(/^#\//, '').split('/').reduce((at: any, key: string) => at[key], whole))
    return s
  }
  const open = (s: Schema) => Object.keys(s).every((key) => key === 'description' || key === 'default')
  const parts = (t: ts.Type) => (t.isUnion() ? t.types : [t]).filter((p) => !(p.flags & ts.TypeFlags.Undefined))
  const variants = (s: Schema): Schema[] => (s.oneOf ?? s.anyOf ?? [s]).map(resolve)
  const types = (s: Schema): string[] => (Array.isArray(s.type) ? s.type : s.type === undefined ? [] : [s.type])
  const literal = (s: Schema): unknown => (s.const !== undefined ? s.const : Array.isArray(s.enum) && s.enum.length === 1 ? s.enum[0] : undefined)
  const name = (t: ts.Type) => checker.typeToString(t)

  function compare(t: ts.Type, given: Schema, at: string): void {
    const s = resolve(given)
    const isUnknown = !!(t.flags & (ts.TypeFlags.Unknown | ts.TypeFlags.Any))
    if (open(s) || isUnknown) {
      if (!(open(s) && isUnknown)) problems.push(`${at}: TypeScript ${name(t)}, schema ${JSON.stringify(s).slice(0, 120)}`)
      return
    }
    const all = variants(s).flatMap((v) => (types(v).length > 1 ? types(v).map((type) => ({ ...v, type })) : [v]))
    const schemaNull = all.some((v) => v.type === 'null')
    const tsParts = parts(t)
    const tsNull = tsParts.some((p) => p.flags & ts.TypeFlags.Null)
    if (schemaNull !== tsNull) problems.push(`${at}: null is allowed by the ${tsNull ? 'TypeScript type' : 'schema'} only`)
    const schemaRest = all.filter((v) => v.type !== 'null')
    // (`boolean` is the union `true | false`: one kind here)
    const nonNull = tsParts.filter((p) => !(p.flags & ts.TypeFlags.Null))
    const booleans = nonNull.filter((p) => p.flags & ts.TypeFlags.BooleanLiteral)
    const tsRest = booleans.length > 1 ? [...nonNull.filter((p) => !(p.flags & ts.TypeFlags.BooleanLiteral)), booleans[0]!] : nonNull
    // literal values: a closed set of strings (codes, statuses), or a discriminated union of objects
    if (schemaRest.length > 0 && schemaRest.every((v) => typeof literal(v) === 'string')) {
      const want = schemaRest.map(literal).sort()
      const have = tsRest.map((p) => (p.isStringLiteral() ? p.value : `(${name(p)})`)).sort()
      if (JSON.stringify(want) !== JSON.stringify(have)) problems.push(`${at}: values ${JSON.stringify(have)} in TypeScript, ${JSON.stringify(want)} in the schema`)
      return
    }
    const tag = (v: Schema) => literal(resolve(v.properties?.type ?? {}))
    if (schemaRest.length > 1 || (schemaRest.length === 1 && tsRest.length > 1)) {
      if (!schemaRest.every((v) => typeof tag(v) === 'string')) {
        problems.push(`${at}: a union the comparison cannot pair (${name(t)})`)
        return
      }
      const tsTag = (p: ts.Type) => {
        const typeOf = p.getProperty('type')
        const value = typeOf === undefined ? undefined : checker.getTypeOfSymbol(typeOf)
        return value?.isStringLiteral() ? value.value : undefined
      }
      const bySchema = new Map(schemaRest.map((v) => [tag(v) as string, v]))
      const byTs = new Map(tsRest.map((p) => [tsTag(p), p]))
      for (const key of bySchema.keys()) if (!byTs.has(key)) problems.push(`${at}: { type: '${key}' } is in the schema, not in TypeScript`)
      for (const key of byTs.keys()) if (!bySchema.has(key as string)) problems.push(`${at}: { type: '${key}' } is in TypeScript, not in the schema`)
      for (const [key, v] of bySchema) if (byTs.has(key)) compareObject(byTs.get(key)!, v, `${at}{type: '${key}'}`)
      return
    }
    const one = schemaRest[0]!
    const tsOne = tsRest.length === 1 ? tsRest[0]! : undefined
    if (tsOne === undefined) {
      problems.push(`${at}: TypeScript ${name(t)}, schema ${JSON.stringify(one).slice(0, 120)}`)
      return
    }
    switch (one.type) {
      case 'string':
        if (!(tsOne.flags & ts.TypeFlags.StringLike)) problems.push(`${at}: a string in the schema, ${name(tsOne)} in TypeScript`)
        return
      case 'integer':
      case 'number':
        if (!(tsOne.flags & ts.TypeFlags.NumberLike)) problems.push(`${at}: a number in the schema, ${name(tsOne)} in TypeScript`)
        return
      case 'boolean':
        if (!(tsOne.flags & ts.TypeFlags.BooleanLike)) problems.push(`${at}: a boolean in the schema, ${name(tsOne)} in TypeScript`)
        return
      case 'array':
        if (!checker.isArrayType(tsOne)) problems.push(`${at}: an array in the schema, ${name(tsOne)} in TypeScript`)
        else compare(checker.getTypeArguments(tsOne as ts.TypeReference)[0]!, one.items ?? {}, `${at}[]`)
        return
      default:
        if (one.properties === undefined && typeof one.additionalProperties === 'object') {
          // a map (`scrubbed`: kind -> count)
          const index = checker.getIndexInfoOfType(tsOne, ts.IndexKind.String)
          if (index === undefined) problems.push(`${at}: a map in the schema, ${name(tsOne)} in TypeScript`)
          else compare(index.type, one.additionalProperties, `${at}[key]`)
          return
        }
        compareObject(tsOne, one, at)
    }
  }

  function compareObject(t: ts.Type, s: Schema, at: string): void {
    const properties: Record<string, Schema> = s.properties ?? {}
    const required = new Set<string>(s.required ?? [])
    const tsProperties = checker.getPropertiesOfType(t)
    const tsNames = new Set(tsProperties.map((p) => p.name))
    for (const key of Object.keys(properties)) if (!tsNames.has(key)) problems.push(`${at}.${key}: in the schema, not in TypeScript`)
    for (const property of tsProperties) {
      const key = property.name
      if (!(key in properties)) {
        problems.push(`${at}.${key}: in TypeScript, not in the schema`)
        continue
      }
      const optional = !!(property.flags & ts.SymbolFlags.Optional)
      if (optional === required.has(key)) problems.push(`${at}.${key}: ${optional ? 'optional' : 'required'} in TypeScript, ${optional ? 'required' : 'optional'} in the schema`)
      compare(checker.getTypeOfSymbol(property), properties[key]!, `${at}.${key}`)
    }
  }

  compare(type, schema, '')
  return problems
}

/** `schema` with every object closed (no property it does not declare), for checking what is emitted. */
function closed(schema: Schema): Schema {
  const copy = structuredClone(schema)
  const close = (s: unknown): void => {
    if (s === null || typeof s !== 'object') return
    if (Array.isArray(s)) return s.forEach(close)
    const object = s as Schema
    if (object.properties !== undefined && object.additionalProperties === undefined) object.additionalProperties = false
    Object.values(object).forEach(close)
  }
  close(copy)
  return copy
}

describe('the shipped schemas and the TypeScript declarations', () => {
  const { checker, exported } = declarations()

  it.each(ENVELOPES)('%s declares what %s declares, field by field and event by event', (file, type) => {
    const schema = schemaFile(file)
    expect(differences(checker, exported(type), schema, schema)).toEqual([])
  })

  it('the comparison finds a missing event type, a missing field and a field required on one side only', () => {
    const events = schemaFile('tool-execution-event.json')
    const withoutAuditFailed = { ...events, oneOf: events.oneOf.filter((v: Schema) => v.properties.type.const !== 'audit_failed') }
    expect(differences(checker, exported('ToolExecutionEvent'), withoutAuditFailed, withoutAuditFailed)).toEqual([
      "{ type: 'audit_failed' } is in TypeScript, not in the schema",
    ].map((problem) => `: ${problem}`))
    const result = schemaFile('tool-result.json')
    const { auditFailed: _, ...properties } = result.properties
    expect(differences(checker, exported('ToolResult'), { ...result, properties }, result)).toEqual(['.auditFailed: in TypeScript, not in the schema'])
    const extra = { ...result, properties: { ...result.properties, cost: { type: 'number' } } }
    expect(differences(checker, exported('ToolResult'), extra, result)).toEqual(['.cost: in the schema, not in TypeScript'])
    const requiring = { ...result, required: [...result.required, 'auditFailed'] }
    expect(differences(checker, exported('ToolResult'), requiring, result)).toEqual(['.auditFailed: optional in TypeScript, required in the schema'])
  })
})

/** A dispatch making every field and event of the envelopes: each kind of result, sanitization and event. */
async function everything(): Promise<{ results: ToolResult[]; events: ToolExecutionEvent[]; calls: ToolCall[] }> {
  const base = mkdtempSync(join(tmpdir(), 'envelope-schemas-'))
  const dir = join(base, 'log')
  const events: ToolExecutionEvent[] = []
  const runtime = new ToolRuntime({
    audit: { dir },
    sanitize: { maxResultChars: 200, stripAnsi: true },
    loopDetection: { warnAt: 2, blockAt: 10 },
  })
  const object = { type: 'object' }
  runtime.register({ name: 'long', parameters: object, execute: async () => `\u001b[31mred\u001b[0m ghp_Zx9Qw8Er7Ty6Ui5Op4As3Df2Gh1Jk0LmNbVc ${'x'.repeat(500)}` })
  runtime.register({
    name: 'image',
    parameters: object,
    execute: async () => ({ content: [{ type: 'image', data: png(40, 30).toString('base64'), mimeType: 'image/png' }, { type: 'image', data: png(2100, 4).toString('base64'), mimeType: 'image/png' }] }),
  })
  runtime.register({
    name: 'effects',
    parameters: object,
    redaction: { allow: ['kept'] },
    execute: async (_id: string, _args: unknown, _signal?: AbortSignal, onUpdate?: (partial: unknown) => void) => {
      onUpdate?.({ content: [{ type: 'text', text: 'half way' }] })
      return { content: [{ type: 'text', text: 'done' }], details: { kept: 1, other: 2 }, effects: { created: ['a'], renamed: [{ from: 'b', to: 'c' }] }, terminate: true }
    },
  })
  runtime.register({ name: 'withheld', parameters: object, execute: async () => ({ content: [{ type: 'text', text: 'ok' }], details: { secret: 'x' } }) })
  runtime.register({
    name: 'normalized',
    parameters: { type: 'object', properties: { filePath: { type: 'string' }, count: { type: 'integer' } }, required: ['filePath'] },
    coerce: true,
    execute: async () => 'normalized',
  })
  runtime.register({ name: 'value', parameters: object, execute: async () => ({ n: 1 }) })
  runtime.register({ name: 'throws', parameters: object, execute: async () => { throw new Error('no') } })
  runtime.register({ name: 'strict', parameters: { type: 'object', required: ['x'] }, execute: async () => 'x' })
  // The audit directory becomes a file: every result says so, and one audit_failed event.
  rmSync(dir, { recursive: true, force: true })
  writeFileSync(dir, 'now a file')
  const calls: ToolCall[] = []
  const names = ['long', 'image', 'effects', 'withheld', 'normalized', 'value', 'throws', 'strict', 'missing', 'value', 'value']
  const results = await runtime.dispatch(
    names.map((name, i) => ({ id: `call_${i}`, name, arguments: name === 'normalized' ? { file_path: 'a', count: '3' } : {} })),
    { runId: 'schemas', onEvent: (event) => events.push(event as ToolExecutionEvent), beforeToolCall: ({ call }) => void calls.push(call) },
  )
  return { results, events, calls }
}

describe('what the runtime emits', () => {
  it('validates against the shipped schemas, closed: no field the schemas do not declare', { timeout: 60_000 }, async () => {
    const { results, events, calls } = await everything()
    const ajv = new Ajv2020({ allErrors: true, strict: false })
    const check = {
      result: ajv.compile(closed(schemaFile('tool-result.json'))),
      event: ajv.compile(closed(schemaFile('tool-execution-event.json'))),
      call: ajv.compile(closed(schemaFile('tool-call.json'))),
    }
    for (const result of results) expect(check.result(result), `${result.callId}: ${JSON.stringify(check.result.errors)}`).toBe(true)
    for (const event of events) expect(check.event(event), `${event.type}: ${JSON.stringify(check.event.errors)}`).toBe(true)
    for (const call of calls) expect(check.call(call), JSON.stringify(check.call.errors)).toBe(true)
    // every event type and every optional field was made and checked
    const types = new Set(events.map((event) => event.type))
    for (const type of schemaFile('tool-execution-event.json').oneOf.map((v: Schema) => v.properties.type.const)) expect(types, type).toContain(type)
    const fields = new Set(results.flatMap((result) => Object.keys(result)))
    for (const field of Object.keys(schemaFile('tool-result.json').properties)) {
      // (stepId, loopId and confirmationId are a plan's)
      if (!['stepId', 'loopId', 'confirmationId'].includes(field)) expect(fields, field).toContain(field)
    }
    const report = results.find((result) => result.tool === 'image')!.sanitization!
    expect(report.images.map((image) => image.action)).toEqual(['kept', 'resized'])
    const end = events.find((event) => event.type === 'tool_execution_end' && event.toolName === 'image')
    expect(end?.type === 'tool_execution_end' && end.result.content[0]).toMatchObject({ type: 'image', omitted: true, width: 40, height: 30 })
  })
})
