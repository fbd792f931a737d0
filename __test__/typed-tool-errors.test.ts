// What tsc says about a typed tool's mistakes: the message must name the mistake itself (a block
// type 'txt' for 'text', a misspelled parameter), whether execute is sync or async, in
// defineTool and in register, not only "No overload matches this call".
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import ts from 'typescript'
import { afterAll, describe, expect, it } from 'vitest'

const root = join(__dirname, '..')
const dir = mkdtempSync(join(tmpdir(), 'toolwire-type-errors-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** Each case's source, by name, compiled together in one program (strict, nodenext, importing the built package). */
const CASES = new Map<string, string>()

/** tsc's whole message for each error of each case, by the case's name. */
let errorsByCase: Map<string, string[]> | undefined

function errorsOf(name: string): string[] {
  if (errorsByCase === undefined) {
    const files = new Map([...CASES].map(([caseName, source], i) => [join(dir, `case-${i}.mts`), { caseName, source }]))
    for (const [file, { source }] of files) writeFileSync(file, source.replaceAll("'toolwire'", JSON.stringify(join(root, 'dist', 'index.js'))))
    const program = ts.createProgram([...files.keys()], { strict: true, module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, noEmit: true, skipLibCheck: true })
    errorsByCase = new Map([...files.values()].map(({ caseName }) => [caseName, []]))
    for (const diagnostic of ts.getPreEmitDiagnostics(program)) {
      const caseName = files.get(diagnostic.file?.fileName ?? '')?.caseName ?? 'elsewhere'
      errorsByCase.set(caseName, [...(errorsByCase.get(caseName) ?? []), ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')])
    }
  }
  return errorsByCase.get(name)!
}

/** A case: a module exporting `tool`'s expression. */
function addCase(name: string, tool: string): string {
  CASES.set(name, `import { ToolRuntime, defineTool } from 'toolwire'\nexport const t = ${tool}\n`)
  return name
}

const PARAMETERS = "{ type: 'object', properties: { a: { type: 'string' } }, required: ['a'] } as const"

describe("a typed tool's mistakes, as tsc reports them", () => {
  const forms = {
    'defineTool, async execute': (body: string) => `defineTool({ name: 'x', parameters: ${PARAMETERS}, execute: async (_id, p) => ${body} })`,
    'defineTool, sync execute': (body: string) => `defineTool({ name: 'x', parameters: ${PARAMETERS}, execute: (_id, p) => ${body} })`,
    'register in place, async execute': (body: string) => `new ToolRuntime().register({ name: 'x', parameters: ${PARAMETERS}, execute: async (_id, p) => ${body} })`,
  }

  const cases = Object.entries(forms).map(([form, tool]) => ({
    form,
    wrongBlock: addCase(`${form}: wrong block`, tool("({ content: [{ type: 'txt', text: p.a }] })")),
    misspelled: addCase(`${form}: misspelled`, tool('p.b')),
    right: addCase(`${form}: right`, tool("({ content: [{ type: 'text', text: p.a }] })")),
  }))

  it.each(cases)('$form: a wrong block type is named against the right one', ({ wrongBlock }) => {
    const errors = errorsOf(wrongBlock)
    expect(errors).toHaveLength(1)
    expect(errors[0]).toMatch(/'"txt"' is not assignable to type '"text"/)
  })

  it.each(cases)('$form: a misspelled parameter is named', ({ misspelled }) => {
    const errors = errorsOf(misspelled)
    expect(errors).toHaveLength(1)
    expect(errors[0]).toMatch(/Property 'b' does not exist on type/)
  })

  it.each(cases)('$form: a right tool compiles, and nothing else errs', ({ right }) => {
    expect(errorsOf(right)).toEqual([])
    expect(errorsOf('elsewhere') ?? []).toEqual([])
  })
})
