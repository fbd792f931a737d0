// The path-named keys workspaceOnly checks, as index.d.ts and the README list them (r10 user
// review #13, 21-path-keys: the two lists differed, each missing keys the code checks). One text
// in both, and every key it lists, alone and glued onto another word, is checked as a path by the
// engine; every exception it lists is not.
import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'

import { describe, expect, it } from 'vitest'

import { ToolRuntime } from '../dist/index.js'

const here = path.dirname(new URL(import.meta.url).pathname)
/** The rule's text from "named like a path" to "which are not paths", comment marks and line breaks read as spaces. */
function ruleIn(file: string): string {
  const text = readFileSync(path.join(here, '..', file), 'utf8').replace(/\n\s*\*?\s*/g, ' ')
  return /named like a path: [^]*?, which are not paths/.exec(text)![0]
}
const words = (text: string) => [...text.matchAll(/`([^`]+)`/g)].map((m) => m[1]!)

describe('path-named keys', () => {
  const rule = ruleIn('ts/types.ts')
  const [endings, examples, alone, fileNames, except] = rule
    .split(/, alone or glued onto another word|, or is |, or the key is a file name|; except /)
    .map(words)

  it('the public types and the README state one rule', () => {
    expect(ruleIn('README.md')).toBe(rule)
    expect(endings).toContain('filename')
    expect(alone).toEqual(expect.arrayContaining(['output', 'out', 'to', 'from', 'root', 'location', 'dst']))
  })

  it('every key the rule lists is checked, every exception is not', async () => {
    const root = mkdtempSync(path.join(tmpdir(), 'tw-keys-'))
    const runtime = new ToolRuntime({ workspaceRoot: root })
    runtime.register({ name: 'w', workspaceOnly: true, execute: () => 'ran' })
    const checked = [
      ...endings!,
      ...endings!.map((w) => `log_${w}`),
      ...endings!.map((w) => `my${w[0]!.toUpperCase()}${w.slice(1)}`),
      ...examples!,
      ...alone!,
      ...alone!.map((w) => `backup_${w}`),
      ...fileNames!,
    ]
    const passed = except!.filter((w) => !['url', 'uri', 'http', 'api', 'route', 'json', 'x'].includes(w))
    const keys = [...checked, ...passed]
    const results = await runtime.dispatch(keys.map((key, i) => ({ id: `c${i}`, name: 'w', arguments: { [key]: '/etc/passwd' } })))
    results.forEach((result, i) => {
      const key = keys[i]!
      expect(result.status, key).toBe(i < checked.length ? 'blocked' : 'ok')
      if (i < checked.length) expect(result.error?.code, key).toBe('POLICY_DENIED')
    })
    expect(passed).toEqual(expect.arrayContaining(['profile', 'xpath', 'jsonpath', 'urlPath', 'json_path']))
  })
})
