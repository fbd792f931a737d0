// `toolwire schema <file> --target <target>`: the schema in the target's dialect and what
// normalization removed or changed (normalizeSchema). The file holds a JSON Schema, or a tool
// definition carrying one (`parameters`, `function.parameters`, `input_schema`,
// `parametersJsonSchema`, `inputSchema`), which is taken from it.

import { normalizeSchema } from '../index.js'
import { SCHEMA_TARGETS as TARGETS } from '../schema.js'
import type { NormalizedSchema, SchemaRemoval, SchemaTarget } from '../types.js'
import type { CommandIo, ParsedArgs } from './args.js'
import { usageError, inputError, oneLine, EXIT_OK } from './errors.js'
import { isObject, readInput } from './input.js'

export { TARGETS }


/** A JSON Schema: an object or a boolean. */
type Schema = object | boolean

/** `{ schema, from }`: the schema in the file's value and where it was found ('' = the value). */
function schemaOf(value: unknown): { schema: Schema; from: string } {
  if (typeof value === 'boolean') return { schema: value, from: '' }
  if (!isObject(value)) throw inputError(`expected a JSON Schema (an object or a boolean) or a tool definition, got ${Array.isArray(value) ? 'an array' : typeof value}`)
  const looksLikeSchema = 'type' in value || 'properties' in value || '$schema' in value || 'anyOf' in value || 'oneOf' in value || 'allOf' in value || '$ref' in value
  if (!looksLikeSchema || value.type === 'function') {
    // The schema is passed on as found: normalizeSchema judges it (an object or a boolean).
    if (isObject(value.function) && 'parameters' in value.function) return { schema: value.function.parameters as Schema, from: '/function/parameters' }
    for (const key of ['parameters', 'input_schema', 'parametersJsonSchema', 'inputSchema']) {
      const found = value[key]
      if (key in value && (isObject(found) || typeof found === 'boolean')) return { schema: found, from: `/${key}` }
    }
  }
  return { schema: value, from: '' }
}

/** What `schema` reports: the schema normalized for the target, and what was removed or changed. */
export interface SchemaFileReport {
  file: string
  target: SchemaTarget
  /** Where in the file's value the schema was (a JSON pointer); null: the value itself. */
  from: string | null
  schema: object
  removed: SchemaRemoval[]
  warnings: string[]
}

function normalizeFile(file: string, target: SchemaTarget, options: { jsonSchema?: boolean }): SchemaFileReport {
  const text = readInput(file, 'utf8')
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (error) {
    throw inputError(`${file} is not JSON: ${oneLine(error)}`)
  }
  const { schema, from } = schemaOf(value)
  let result: NormalizedSchema
  try {
    result = normalizeSchema(schema, target, options.jsonSchema ? { jsonSchema: true } : undefined)
  } catch (error) {
    throw inputError(`${file}${from ? ` (${from})` : ''}: the schema cannot be normalized for ${target}: ${oneLine(error)}`)
  }
  return { file, target, from: from || null, schema: result.schema, removed: result.removed, warnings: result.warnings }
}

function formatReport(report: SchemaFileReport): string {
  const out = [`${report.file}${report.from ? ` (schema at ${report.from})` : ''}: normalized for ${report.target}`, '']
  out.push(JSON.stringify(report.schema, null, 2))
  out.push('')
  out.push(`Removed (${report.removed.length}):${report.removed.length === 0 ? ' nothing' : ''}`)
  for (const r of report.removed) out.push(`  ${r.path || '/'}  ${r.keyword}`)
  out.push(`Warnings (${report.warnings.length}):${report.warnings.length === 0 ? ' none' : ''}`)
  for (const w of report.warnings) out.push(`  ${w}`)
  return out.join('\n')
}

export const OPTIONS = { target: 'string', 'json-schema': 'boolean', json: 'boolean', progress: 'boolean', quiet: 'boolean' } as const

/** Whether `target` is one of the schema targets. */
const isTarget = (target: string): target is SchemaTarget => (TARGETS as readonly string[]).includes(target)

export function run({ positionals, options }: ParsedArgs<typeof OPTIONS>, io: CommandIo): number {
  if (positionals.length !== 1) throw usageError('schema: expected one <file> (usage: toolwire schema <file> --target <target>)')
  if (options.target === undefined) throw usageError(`schema: --target is required (one of ${TARGETS.join(', ')})`)
  if (!isTarget(options.target)) throw usageError(`schema: unknown target "${options.target}" (one of ${TARGETS.join(', ')})`)
  if (options['json-schema'] && options.target !== 'gemini') throw usageError('schema: --json-schema applies to --target gemini only')
  const report = normalizeFile(positionals[0], options.target, { jsonSchema: options['json-schema'] })
  io.out(options.json ? JSON.stringify(report, null, 2) : formatReport(report))
  return EXIT_OK
}
