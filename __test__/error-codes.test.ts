import { readFileSync, readdirSync } from 'node:fs'
import path from 'node:path'

import { describe, expect, it } from 'vitest'

import { ToolRuntime } from '../dist/index.js'

const root = path.join(__dirname, '..')
const read = (file: string) => readFileSync(path.join(root, file), 'utf8')

/** The string members of the union type `name` in ts/types.ts. */
function unionOf(name: string): Set<string> {
  const match = new RegExp(`export type ${name} =([^]*?)\\n\\n`).exec(read('ts/types.ts'))
  expect(match, name).not.toBeNull()
  const members = new Set([...match![1]!.matchAll(/'([A-Z_]+)'/g)].map((m) => m[1]!))
  if (/\bErrorCode \|/.test(match![1]!)) for (const code of unionOf('ErrorCode')) members.add(code)
  return members
}

/** Every code the engine's ErrorCode names (crates/toolwire-core/src/error.rs). */
const engineCodes = new Set([...read('crates/toolwire-core/src/error.rs').matchAll(/ErrorCode::\w+ => "([A-Z_]+)"/g)].map((m) => m[1]!))

/** Every code the plan scheduler writes as a string of its own (`code: "X".to_string()`). */
function planCodes(): Set<string> {
  const dir = path.join(root, 'crates/toolwire-core/src/plan')
  const codes = new Set<string>()
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.rs') && !f.includes('test'))) {
    for (const m of readFileSync(path.join(dir, file), 'utf8').matchAll(/code: "([A-Z_]+)"/g)) codes.add(m[1]!)
  }
  return codes
}

/** Every code the JavaScript layer throws or returns (`'X_Y'` literals used as codes). */
function jsCodes(): Set<string> {
  const files = readdirSync(path.join(root, 'ts')).filter((f) => /\.(js|ts)$/.test(f) && !f.endsWith('.d.ts')).map((f) => `ts/${f}`)
  const codes = new Set<string>()
  for (const file of files) {
    for (const m of read(file).matchAll(/(?:ToolwireError\(|code: )'([A-Z]+_[A-Z_]+)'/g)) codes.add(m[1]!)
  }
  return codes
}

describe('every error code produced is documented', () => {
  it('the ErrorCode type, the engine and the README list the same codes', () => {
    const typed = unionOf('ErrorCode')
    expect([...engineCodes].sort()).toEqual([...typed].sort())
    const readme = read('README.md')
    const section = readme.slice(readme.indexOf('### Error codes'))
    for (const code of typed) expect(section, code).toContain(`\`${code}\``)
  })

  it('the JavaScript layer uses only typed codes', () => {
    const typed = unionOf('ErrorCode')
    for (const code of jsCodes()) expect(typed, code).toContain(code)
  })

  it("a plan step's own codes are in PlanStepErrorCode and the README", () => {
    const typed = unionOf('PlanStepErrorCode')
    const readme = read('README.md')
    for (const code of planCodes()) {
      expect(typed, code).toContain(code)
      expect(readme, code).toContain(`\`${code}\``)
    }
  })

  it('a step failing on a bad reference carries a PlanStepErrorCode', async () => {
    const runtime = new ToolRuntime()
    runtime.register({
      name: 'list',
      parameters: { type: 'object', properties: { n: {} } },
      execute: async () => ({ content: [{ type: 'text', text: 'ok' }], details: { items: 3 } }),
    })
    const outcome = await runtime.executePlan({
      steps: [
        { id: 'a', tool: 'list', args: {} },
        { id: 'b', tool: 'list', args: {}, foreach: '$steps.a.items' },
      ],
    })
    const code = outcome.steps.b!.error?.code
    expect(code).toBeDefined()
    expect(unionOf('PlanStepErrorCode')).toContain(code)
  })
})
