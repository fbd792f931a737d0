// toolwire/ai-sdk with the AI SDK 7 (`ai` 7.0.173, an ES module only, which needs Node 22): in a
// project of its own, run under Node 22 (this process's, TOOLWIRE_NODE22, or npm's node 22
// binary package); skipped, saying why, where no Node 22 can be had. Both entries: import, and
// require (Node 22's require of the ES module `ai`).
import { execFileSync } from 'node:child_process'
import { copyFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

import { pngBase64 } from './fixtures.js'
import { node22, peerProject } from './peer-project.js'

const AI_7 = 'ai@7.0.173'
const check = join(dirname(fileURLToPath(import.meta.url)), 'peers', 'ai-sdk-check.mjs')
const node = node22()
const project = node.path === undefined ? undefined : peerProject([AI_7])
const skipped = node.path === undefined ? node.reason : project !== undefined && project.dir === undefined ? project.failure : undefined
if (skipped !== undefined) console.warn(`toolwire/ai-sdk with the AI SDK 7: skipped: ${skipped}`)

describe.skipIf(skipped !== undefined)('toolwire/ai-sdk with the AI SDK 7, under Node 22', { timeout: 60_000 }, () => {
  const run = async (entry: 'import' | 'require') => {
    const png = await pngBase64()
    // (run from the project, so that `ai` and `toolwire` resolve to the project's)
    copyFileSync(check, join(project!.dir!, 'ai-sdk-check.mjs'))
    const out = execFileSync(node.path!, ['ai-sdk-check.mjs', entry, png], { cwd: project!.dir!, encoding: 'utf8' })
    return { png, out: JSON.parse(out) }
  }

  for (const entry of ['import', 'require'] as const) {
    it(`${entry}: streamText runs the calls, preliminary results first, images as the SDK 7's file parts (no deprecation warning)`, async () => {
      const { png, out } = await run(entry)
      expect(Number(out.node.split('.')[0])).toBeGreaterThanOrEqual(22)
      expect(out.ai).toBe('7.0.173')
      // Each call's parts in the order they came (the calls themselves run at once).
      const byCall: Record<string, string[]> = {}
      for (const [id, kind, value] of out.parts as string[][]) (byCall[id] ??= []).push(`${kind} ${value}`)
      expect(byCall).toEqual({
        c1: ['preliminary step 1', 'preliminary step 2', 'preliminary ok', 'final ok'],
        s1: ['preliminary ok', 'final ok'],
        f1: ['error Error: no luck'],
      })
      expect(Object.fromEntries(out.read)).toEqual({
        c1: { type: 'text', value: 'counted to 2' },
        s1: { type: 'content', value: [{ type: 'text', text: 'a dot' }, { type: 'file', mediaType: 'image/png', data: { type: 'data', data: png } }] },
        f1: { type: 'error-text', value: 'Error: no luck' },
      })
      expect(out.text).toBe('done')
      expect(out.warnings).toEqual([])
    })
  }
})
