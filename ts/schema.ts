// Schemas for each provider: normalizeSchema (run in Rust) and the tool-name rules.

import { denormalizeStrict, normalizeSchema as nativeNormalizeSchema, validateToolName as nativeValidateToolName } from '../native.js'
import { ToolwireError, WIRES, native, describe, jsonText, messageOf, own } from './common.js'
import { SCHEMA_TARGETS } from './protocol.generated.js'
import type { NormalizeSchemaOptions, NormalizedSchema, SchemaTarget, StrictNormalizedSchema, Wire } from './types.js'

/** The schema dialects normalizeSchema speaks (generated from the engine's). */
export { SCHEMA_TARGETS }

/**
 * The schema in the target's dialect: `{ schema, removed, warnings }`. For `openai-strict` also
 * `denormalize(args)`, which strips the nulls the strict form forced, so a tool receives what its
 * own schema means.
 */
export function normalizeSchema(schema: object | boolean, target: 'openai-strict', options?: NormalizeSchemaOptions): StrictNormalizedSchema
export function normalizeSchema(schema: object | boolean, target: SchemaTarget, options?: NormalizeSchemaOptions): NormalizedSchema
export function normalizeSchema(schema: unknown, target: unknown, options?: unknown): NormalizedSchema | StrictNormalizedSchema {
  if (schema === null || (typeof schema !== 'object' && typeof schema !== 'boolean') || Array.isArray(schema)) {
    throw new TypeError(`normalizeSchema: schema must be a JSON Schema (an object or a boolean), got ${describe(schema)}`)
  }
  if (typeof target !== 'string') {
    throw new ToolwireError('VALIDATION_ERROR', `normalizeSchema: unknown schema target ${describe(target)}: expected one of ${SCHEMA_TARGETS.join(', ')}`)
  }
  if (options !== undefined && (options === null || typeof options !== 'object')) {
    throw new TypeError(`normalizeSchema: options must be an object, got ${describe(options)}`)
  }
  const text = jsonText('normalizeSchema: schema', schema)
  const optionsText = options === undefined ? '{}' : jsonText('normalizeSchema: options', options)
  // The engine names an unknown target with the closest one (`"gemni"`: did you mean "gemini").
  const result = JSON.parse(prefixed('normalizeSchema', () => nativeNormalizeSchema(text, target, optionsText))) as NormalizedSchema & Partial<StrictNormalizedSchema>
  if (target === 'openai-strict') {
    result.denormalize = <T>(args: T): T =>
      JSON.parse(native(() => denormalizeStrict(text, jsonText('denormalize: args', args)))) as T
  }
  return result
}

/** `fn()`, its ToolwireError's message prefixed by `where: `. */
function prefixed<T>(where: string, fn: () => T): T {
  try {
    return native(fn) as T
  } catch (error) {
    if (error instanceof ToolwireError) throw new ToolwireError(error.code, `${where}: ${error.message}`)
    throw error
  }
}

/** `{ ok: true }` when `name` is a valid tool name for `target`, else `{ ok: false, reason }`. */
export function validateToolName(name: string, target: Wire | SchemaTarget): { ok: boolean; reason?: string } {
  if (typeof target !== 'string' || !((WIRES as readonly string[]).includes(target) || (SCHEMA_TARGETS as readonly string[]).includes(target))) {
    // The engine's words: the name, both lists, and the closest name.
    const why = typeof target === 'string' ? native(() => nativeValidateToolName('', target)) : `unknown target ${describe(target)}`
    throw new ToolwireError('VALIDATION_ERROR', `validateToolName: ${why}`)
  }
  if (typeof name !== 'string') return { ok: false, reason: `a tool name must be a string, got ${describe(name)}` }
  const reason = native(() => nativeValidateToolName(name, target)) as string | null | undefined
  return reason === null || reason === undefined ? { ok: true } : { ok: false, reason }
}

/**
 * Whether `value` is a Zod 4 schema (classic or mini, also `zod/v4` of zod 3.25), told by its
 * `_zod.def` internals: zod itself is never loaded for this.
 */
function isZodSchema(value: unknown): value is ZodSchema {
  if (value === null || typeof value !== 'object') return false
  // (its own `_zod`, as Zod sets it, never one a polluted Object.prototype holds)
  const internals = own(value, '_zod')
  if (internals === null || typeof internals !== 'object') return false
  const def = own(internals, 'def')
  return def !== null && typeof def === 'object'
}

/** What of a Zod 4 schema {@link jsonSchemaOf} uses (zod's own types are not needed for it). */
interface ZodSchema {
  _zod: { def: object }
  toJSONSchema?: (params: ZodJsonSchemaParams) => unknown
}

/** The parameters of Zod 4's JSON Schema conversion that {@link jsonSchemaOf} passes. */
interface ZodJsonSchemaParams {
  io: 'input' | 'output'
}

/** A Zod 3 schema: `_def` and `safeParse`, no `_zod`. */
function isZod3Schema(value: unknown): boolean {
  const zod = value as { _def?: unknown; safeParse?: unknown } | null
  // (its own `_def`; `safeParse` is a method of its class)
  return zod !== null && typeof zod === 'object' && own(zod, '_zod') === undefined && typeof own(zod, '_def') === 'object' && typeof zod.safeParse === 'function'
}

/** What of `zod-to-json-schema` {@link zod3JsonSchema} uses. */
interface Zod3Converter {
  zodToJsonSchema(schema: unknown, options: { $refStrategy: 'root'; effectStrategy: 'input' | 'any'; target: 'jsonSchema7' }): Record<string, unknown>
}

/**
 * The Zod 3 types whose values JSON cannot carry (those Zod 4's own conversion refuses): a model
 * can never send one, and `zod-to-json-schema` would drop the field or describe a string instead.
 */
const ZOD3_NO_JSON_FORM: ReadonlyMap<string, string> = new Map([
  ['ZodDate', 'z.date()'], ['ZodBigInt', 'z.bigint()'], ['ZodSymbol', 'z.symbol()'], ['ZodFunction', 'z.function()'],
  ['ZodMap', 'z.map()'], ['ZodSet', 'z.set()'], ['ZodPromise', 'z.promise()'], ['ZodUndefined', 'z.undefined()'],
  ['ZodVoid', 'z.void()'], ['ZodNaN', 'z.nan()'],
])

/** A Zod 3 schema's `_def` (its type's name and its parts), as {@link zod3TypeWithoutJson} walks it. */
type Zod3Def = Record<string, unknown> & { typeName?: unknown }

/** A Zod 3 type JSON cannot carry (`type`, as written in Zod) and its place in the schema (`path`). */
interface Zod3Unsendable {
  path: string
  type: string
}

/** `value` as written in code when JSON cannot carry it (a BigInt, undefined, a symbol, NaN, ...), else undefined. */
function valueWithoutJson(value: unknown): string | undefined {
  switch (typeof value) {
    case 'bigint':
      return `${value}n`
    case 'undefined':
      return 'undefined'
    case 'symbol':
      return value.toString()
    case 'function':
      return 'a function'
    case 'number':
      return Number.isFinite(value) ? undefined : String(value)
    default:
      return undefined
  }
}

/**
 * The path of the schema held at `key` of a `typeName` schema's `_def`, below the schema at `path`:
 * an array's or a set's element adds `[]`, a tuple's rest `[]`, a record's value `.<key>`, an
 * object's catchall `.<other key>`; wrappers (optional, default, branded, lazy, effects, pipeline,
 * ...) and the members of unions and intersections keep the path.
 */
function zod3PartPath(typeName: unknown, key: string, path: string): string {
  if ((typeName === 'ZodArray' && key === 'type') || (typeName === 'ZodSet' && key === 'valueType') || (typeName === 'ZodTuple' && key === 'rest')) return `${path}[]`
  if ((typeName === 'ZodRecord' || typeName === 'ZodMap') && key === 'valueType') return `${path}.<key>`
  if (typeName === 'ZodObject' && key === 'catchall') return `${path}.<other key>`
  return path
}

/**
 * The first type in Zod 3 `schema` that has no JSON form, as `{ path, type }` (the path in the
 * schema's properties, such as `.when` or `.items[]`), or undefined: a type such as `z.date()`, or
 * a literal or enum value JSON cannot carry (`z.literal(10n)`, `z.literal(undefined)`). Every
 * schema a `_def` holds is walked (object shapes, array items, unions, wrappers, lazy schemas once
 * each). An error thrown while walking it (a shape getter that throws, a schema nested too deep)
 * is a VALIDATION_ERROR naming `where` and the place reached.
 */
function zod3TypeWithoutJson(schema: unknown, where: string): Zod3Unsendable | undefined {
  const seen = new Set<unknown>()
  let reached = ''
  const walk = (node: unknown, path: string): Zod3Unsendable | undefined => {
    reached = path
    if (!isZod3Schema(node) || seen.has(node)) return undefined
    seen.add(node)
    const def = own(node as object, '_def') as Zod3Def
    const typeName = def.typeName
    const type = typeof typeName === 'string' ? ZOD3_NO_JSON_FORM.get(typeName) : undefined
    if (type !== undefined) return { path, type }
    if (typeName === 'ZodLiteral') {
      const shown = valueWithoutJson(def.value)
      if (shown !== undefined) return { path, type: `z.literal(${shown})` }
    }
    if ((typeName === 'ZodEnum' || typeName === 'ZodNativeEnum') && def.values !== null && typeof def.values === 'object') {
      for (const value of Object.values(def.values)) {
        const shown = valueWithoutJson(value)
        if (shown !== undefined) return { path, type: `${typeName === 'ZodEnum' ? 'z.enum()' : 'z.nativeEnum()'} with the value ${shown}` }
      }
    }
    for (const key of Object.keys(def)) {
      reached = path
      const part = def[key]
      const at = zod3PartPath(typeName, key, path)
      let found: Zod3Unsendable | undefined
      if (key === 'shape' && typeof part === 'function') {
        const shape = (part as () => Record<string, unknown>)()
        for (const name of Object.keys(shape)) {
          reached = `${path}.${name}`
          if ((found = walk(shape[name], `${path}.${name}`))) return found
        }
      } else if (key === 'getter' && typeof part === 'function') {
        found = walk((part as () => unknown)(), path)
      } else if (Array.isArray(part)) {
        const tuple = typeName === 'ZodTuple' && key === 'items'
        for (let i = 0; i < part.length; i++) if ((found = walk(part[i], tuple ? `${path}[${i}]` : at))) return found
      } else {
        found = walk(part, at)
      }
      if (found !== undefined) return found
    }
    return undefined
  }
  try {
    return walk(schema, '')
  } catch (error) {
    throw new ToolwireError('VALIDATION_ERROR', `${where} is a Zod 3 schema that cannot be read${zod3Place(reached)}: ${messageOf(error)}`)
  }
}

/** ` at <path>` for a Zod 3 path (` at the root` for the root; a long one by its last 160 characters). */
function zod3Place(path: string): string {
  if (path === '') return ' at the root'
  const shown = path.replace(/^\./, '')
  // (a long path from its last whole step)
  return shown.length <= 200 ? ` at ${shown}` : ` at ...${shown.slice(-160).replace(/^[^.[]*\.?/, '')} (a path of ${shown.length} characters)`
}

/**
 * A Zod 3 schema as JSON Schema, converted by `zod-to-json-schema` (an optional peer, loaded only
 * for such a schema: Zod 3 has no converter of its own). A type JSON cannot carry (`z.date()`,
 * `z.bigint()`, `z.function()`, ...) is refused naming its place, as Zod 4's conversion refuses it.
 * A schema used twice or recursively (`z.lazy`) becomes a local `$ref` (validated as it is at
 * every depth; the definitions sent inline it and cut a recursion to `{}`, since providers refuse
 * `$ref` cycles, reporting the cut among their warnings). A transform's input is what a tool receives (`io` 'input'), while
 * what it outputs has no JSON Schema (any value, for 'output'). The `$schema` key it adds is
 * dropped, as Zod 4's conversion has none.
 */
function zod3JsonSchema(schema: unknown, io: 'input' | 'output', where: string): unknown {
  const unsendable = zod3TypeWithoutJson(schema, where)
  if (unsendable !== undefined) {
    throw new ToolwireError(
      'VALIDATION_ERROR',
      `${where} is a Zod 3 schema with no JSON Schema form: ${unsendable.type}${unsendable.path === '' ? '' : zod3Place(unsendable.path)} holds values JSON cannot carry, and a model sends only JSON${unsendable.type === 'z.date()' ? ' (a date as an ISO string is z.string().datetime())' : ''}`,
    )
  }
  let converter: Zod3Converter
  try {
    converter = require('zod-to-json-schema') as Zod3Converter
  } catch (error) {
    throw new ToolwireError(
      'VALIDATION_ERROR',
      `${where} is a Zod 3 schema, which needs the package zod-to-json-schema to convert it (npm install zod-to-json-schema), or use a Zod 4 schema ('zod' 4, or 'zod/v4' of zod 3.25): ${messageOf(error)}`,
    )
  }
  let converted: Record<string, unknown>
  try {
    converted = converter.zodToJsonSchema(schema, { $refStrategy: 'root', effectStrategy: io === 'input' ? 'input' : 'any', target: 'jsonSchema7' })
  } catch (error) {
    throw new ToolwireError('VALIDATION_ERROR', `${where} is a Zod 3 schema with no JSON Schema form: ${messageOf(error)}`)
  }
  const { $schema: _dialect, ...rest } = converted
  return rest
}

/**
 * A schema option (`parameters`, `outputSchema`) as JSON Schema: a Zod 4 schema is converted with
 * Zod's own export (its `toJSONSchema` method, else `toJSONSchema` of the installed `zod/v4/core`),
 * with `io` 'input' for what a tool receives and 'output' for what it returns; anything else is
 * returned as given. `where` names the option in errors.
 */
export function jsonSchemaOf(schema: unknown, io: 'input' | 'output', where: string): unknown {
  if (isZod3Schema(schema)) return zod3JsonSchema(schema, io, where)
  if (!isZodSchema(schema)) return schema
  let convert: (params: ZodJsonSchemaParams) => unknown
  if (typeof schema.toJSONSchema === 'function') {
    // (checked just above; the closure does not keep TypeScript's narrowing of the property)
    convert = (params) => schema.toJSONSchema!(params)
  } else {
    let core: { toJSONSchema(schema: ZodSchema, params: ZodJsonSchemaParams): unknown }
    try {
      // Loaded only for a schema without its own method: zod is an optional peer.
      core = require('zod/v4/core') as typeof core
    } catch (error) {
      throw new ToolwireError('VALIDATION_ERROR', `${where} is a Zod schema but zod cannot be loaded to convert it: ${messageOf(error)}`)
    }
    convert = (params) => core.toJSONSchema(schema, params)
  }
  try {
    return convert({ io })
  } catch (error) {
    throw new ToolwireError('VALIDATION_ERROR', `${where} is a Zod schema with no JSON Schema form: ${messageOf(error)}`)
  }
}
