'use strict'
// `toolwire schema <file> --target <target>`: the schema in the target's dialect and what
// normalization removed or changed (normalizeSchema). The file holds a JSON Schema, or a tool
// definition carrying one (`parameters`, `function.parameters`, `input_schema`,
// `parametersJsonSchema`, `inputSchema`), which is taken from it.

const { normalizeSchema } = require('../index.js')
const { SCHEMA_TARGETS: TARGETS } = require('../schema.js')
const { usageError, inputError, oneLine, EXIT_OK } = require('./errors.js')
const { readInput } = require('./input.js')

const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v)

/** `{ schema, from }`: the schema in the file's value and where it was found ('' = the value). */
function schemaOf(value) {
  if (typeof value === 'boolean') return { schema: value, from: '' }
  if (!isObject(value)) throw inputError(`expected a JSON Schema (an object or a boolean) or a tool definition, got ${Array.isArray(value) ? 'an array' : typeof value}`)
  const looksLikeSchema = 'type' in value || 'properties' in value || '$schema' in value || 'anyOf' in value || 'oneOf' in value || 'allOf' in value || '$ref' in value
  if (!looksLikeSchema || value.type === 'function') {
    if (isObject(value.function) && 'parameters' in value.function) return { schema: value.function.parameters, from: '/function/parameters' }
    for (const key of ['parameters', 'input_schema', 'parametersJsonSchema', 'inputSchema']) {
      if (key in value && (isObject(value[key]) || typeof value[key] === 'boolean')) return { schema: value[key], from: `/${key}` }
    }
  }
  return { schema: value, from: '' }
}

function normalizeFile(file, target, options) {
  const text = readInput(file, 'utf8')
  let value
  try {
    value = JSON.parse(text)
  } catch (error) {
    throw inputError(`${file} is not JSON: ${oneLine(error)}`)
  }
  const { schema, from } = schemaOf(value)
  let result
  try {
    result = normalizeSchema(schema, target, options.jsonSchema ? { jsonSchema: true } : undefined)
  } catch (error) {
    throw inputError(`${file}${from ? ` (${from})` : ''}: the schema cannot be normalized for ${target}: ${oneLine(error)}`)
  }
  return { file, target, from: from || null, schema: result.schema, removed: result.removed, warnings: result.warnings }
}

function formatReport(report) {
  const out = [`${report.file}${report.from ? ` (schema at ${report.from})` : ''}: normalized for ${report.target}`, '']
  out.push(JSON.stringify(report.schema, null, 2))
  out.push('')
  out.push(`Removed (${report.removed.length}):${report.removed.length === 0 ? ' nothing' : ''}`)
  for (const r of report.removed) out.push(`  ${r.path || '/'}  ${r.keyword}`)
  out.push(`Warnings (${report.warnings.length}):${report.warnings.length === 0 ? ' none' : ''}`)
  for (const w of report.warnings) out.push(`  ${w}`)
  return out.join('\n')
}

const OPTIONS = { target: 'string', 'json-schema': 'boolean', json: 'boolean', progress: 'boolean', quiet: 'boolean' }

function run({ positionals, options }, io) {
  if (positionals.length !== 1) throw usageError('schema: expected one <file> (usage: toolwire schema <file> --target <target>)')
  if (options.target === undefined) throw usageError(`schema: --target is required (one of ${TARGETS.join(', ')})`)
  if (!TARGETS.includes(options.target)) throw usageError(`schema: unknown target "${options.target}" (one of ${TARGETS.join(', ')})`)
  if (options['json-schema'] && options.target !== 'gemini') throw usageError('schema: --json-schema applies to --target gemini only')
  const report = normalizeFile(positionals[0], options.target, { jsonSchema: options['json-schema'] })
  io.out(options.json ? JSON.stringify(report, null, 2) : formatReport(report))
  return EXIT_OK
}

module.exports = { OPTIONS, run, TARGETS }
