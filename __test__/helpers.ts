import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import type { ToolDefinition, ToolResult } from '../index.js'

/** The text of a result's first block. */
export function textOf(result: ToolResult): string {
  const block = result.content[0]
  if (block === undefined || block.type !== 'text') throw new Error(`no text block in ${JSON.stringify(result)}`)
  return block.text
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

/** An object schema with the given string properties, all required. */
export function stringsSchema(...names: string[]): object {
  return {
    type: 'object',
    properties: Object.fromEntries(names.map((n) => [n, { type: 'string' }])),
    required: names,
    additionalProperties: false,
  }
}

/** A tool that records how many of its calls overlap. */
export function overlapTool(name: string, extra: Partial<ToolDefinition> = {}) {
  const stats = { running: 0, max: 0, order: [] as string[] }
  const tool: ToolDefinition = {
    name,
    parameters: { type: 'object' },
    async execute(id: string) {
      stats.running += 1
      stats.max = Math.max(stats.max, stats.running)
      stats.order.push(`start:${id}`)
      await sleep(15)
      stats.order.push(`end:${id}`)
      stats.running -= 1
      return id
    },
    ...extra,
  }
  return { tool, stats }
}

/** Every file under `dir`, read as text (audit files, state files). */
export function filesUnder(dir: string): string {
  let text = ''
  for (const name of readdirSync(dir)) {
    const path = join(dir, name)
    text += statSync(path).isDirectory() ? filesUnder(path) : readFileSync(path, 'utf8')
  }
  return text
}
