'use strict'
// Schemas for each provider: normalizeSchema (run in Rust) and the tool-name rules.

const native_ = require('../native.js')
const { ToolwireError, WIRES, native, describe, jsonText, messageOf } = require('./common.js')

/** The schema dialects normalizeSchema speaks. */
const SCHEMA_TARGETS = ['openai', 'openai-strict', 'anthropic', 'gemini', 'xai', 'mistral', 'llamacpp', 'p0']

/**
 * The schema in the target's dialect: `{ schema, removed, warnings }`. For `openai-strict` also
 * `denormalize(args)`, which strips the nulls the strict form forced, so a tool receives what its
 * own schema means.
 */
function normalizeSchema(schema, target, options) {
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
  const result = JSON.parse(prefixed('normalizeSchema', () => native_.normalizeSchema(text, target, optionsText)))
  if (target === 'openai-strict') {
    result.denormalize = (args) =>
      JSON.parse(native(() => native_.denormalizeStrict(text, jsonText('denormalize: args', args))))
  }
  return result
}

/** `fn()`, its ToolwireError's message prefixed by `where: `. */
function prefixed(where, fn) {
  try {
    return native(fn)
  } catch (error) {
    if (error instanceof ToolwireError) throw new ToolwireError(error.code, `${where}: ${error.message}`)
    throw error
  }
}

/** `{ ok: true }` when `name` is a valid tool name for `target`, else `{ ok: false, reason }`. */
function validateToolName(name, target) {
  if (typeof target !== 'string' || !(WIRES.includes(target) || SCHEMA_TARGETS.includes(target))) {
    // The engine's words: the name, both lists, and the closest name.
    const why = typeof target === 'string' ? native(() => native_.validateToolName('', target)) : `unknown target ${describe(target)}`
    throw new ToolwireError('VALIDATION_ERROR', `validateToolName: ${why}`)
  }
  if (typeof name !== 'string') return { ok: false, reason: `a tool name must be a string, got ${describe(name)}` }
  const reason = native(() => native_.validateToolName(name, target))
  return reason === null || reason === undefined ? { ok: true } : { ok: false, reason }
}

/**
 * Whether `value` is a Zod 4 schema (classic or mini, also `zod/v4` of zod 3.25), told by its
 * `_zod.def` internals: zod itself is never loaded for this.
 */
function isZodSchema(value) {
  return (
    value !== null &&
    typeof value === 'object' &&
    value._zod !== null &&
    typeof value._zod === 'object' &&
    value._zod.def !== null &&
    typeof value._zod.def === 'object'
  )
}

/** A Zod 3 schema: `_def` and `safeParse`, no `_zod`. */
function isZod3Schema(value) {
  return value !== null && typeof value === 'object' && !('_zod' in value) && typeof value._def === 'object' && typeof value.safeParse === 'function'
}

/**
 * A schema option (`parameters`, `outputSchema`) as JSON Schema: a Zod 4 schema is converted with
 * Zod's own export (its `toJSONSchema` method, else `toJSONSchema` of the installed `zod/v4/core`),
 * with `io` 'input' for what a tool receives and 'output' for what it returns; anything else is
 * returned as given. `where` names the option in errors.
 */
function jsonSchemaOf(schema, io, where) {
  if (isZod3Schema(schema)) {
    throw new ToolwireError('VALIDATION_ERROR', `${where} is a Zod 3 schema: use a Zod 4 schema (zod 4, or 'zod/v4' of zod 3.25)`)
  }
  if (!isZodSchema(schema)) return schema
  let convert
  if (typeof schema.toJSONSchema === 'function') {
    convert = (params) => schema.toJSONSchema(params)
  } else {
    let core
    try {
      core = require('zod/v4/core')
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

module.exports = { SCHEMA_TARGETS, normalizeSchema, validateToolName, jsonSchemaOf }
