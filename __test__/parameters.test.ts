import { describe, expect, it } from 'vitest'

import { ToolRuntime, ToolwireError } from '../dist/index.js'
import { textOf } from './helpers.js'

/** An edit tool as coding agents declare it, echoing what it received. */
function editRuntime(extra: Record<string, unknown> = {}, options = {}) {
  const runtime = new ToolRuntime(options)
  runtime.register({
    name: 'edit',
    parameters: {
      type: 'object',
      properties: {
        path: { type: 'string' },
        oldText: { type: 'string' },
        newText: { type: 'string' },
        count: { type: 'integer' },
        dryRun: { type: 'boolean' },
      },
      additionalProperties: false,
    },
    aliases: { file_path: 'path', old_string: 'oldText', new_string: 'newText' },
    requiredGroups: [['path'], ['oldText'], ['newText', { allowEmpty: true }]],
    execute: (_id: string, params: unknown) => ({ content: [{ type: 'text', text: 'done' }], details: params }),
    ...extra,
  })
  return runtime
}

describe('parameter normalization', () => {
  it('maps aliases and other casings to the schema names, and reports each rename', async () => {
    const runtime = editRuntime()
    const [result] = await runtime.dispatch([
      { id: 'c1', name: 'edit', arguments: { file_path: 'a.ts', old_string: 'x', new_string: '', dry_run: true } },
    ])
    expect(result.ok).toBe(true)
    expect(result.details).toEqual({ path: 'a.ts', oldText: 'x', newText: '', dryRun: true })
    expect(result.args).toEqual(result.details)
    expect(result.normalization?.renamed).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ from: 'file_path', to: 'path', by: 'alias' }),
        expect.objectContaining({ from: 'dry_run', to: 'dryRun', by: 'case' }),
      ]),
    )
    expect(result.normalization?.coerced).toEqual([])
  })

  it('joins text blocks given for a string parameter', async () => {
    const runtime = editRuntime()
    const blocks = [
      { type: 'text', text: 'line one' },
      { type: 'text', text: 'line two' },
    ]
    const [result] = await runtime.dispatch([{ id: 'c1', name: 'edit', arguments: { path: 'a', oldText: 'x', newText: blocks } }])
    expect(result.ok).toBe(true)
    expect((result.details as { newText: string }).newText).toBe('line one\nline two')
    expect(result.normalization?.coerced).toEqual([{ path: '/newText', from: 'text-blocks', to: 'string' }])
  })

  it('names every missing required parameter and what was received instead', async () => {
    const runtime = editRuntime()
    const [result] = await runtime.dispatch([{ id: 'c1', name: 'edit', arguments: { target: 'a.ts', oldText: '   ' } }])
    expect(result.error?.code).toBe('VALIDATION_ERROR')
    const text = textOf(result)
    expect(text).toContain('path')
    expect(text).toContain('oldText')
    expect(text).toContain('newText')
    expect(text).toContain('target')
    expect(text).toMatch(/blank/)
  })

  it('an empty string counts where a group allows it, and only there', async () => {
    const runtime = editRuntime()
    const [ok, blank] = await runtime.dispatch([
      { id: 'c1', name: 'edit', arguments: { path: 'a', oldText: 'x', newText: '' } },
      { id: 'c2', name: 'edit', arguments: { path: '', oldText: 'x', newText: 'y' } },
    ])
    expect(ok.ok).toBe(true)
    expect(blank.error?.code).toBe('VALIDATION_ERROR')
    expect(textOf(blank)).toContain('path')
  })

  it('coerces only when asked, per runtime or per tool, and reports each coercion', async () => {
    const args = { path: 'a', oldText: 'x', newText: 'y', count: '5', dryRun: 'true' }
    const [plain] = await editRuntime().dispatch([{ id: 'c1', name: 'edit', arguments: args }])
    expect(plain.error?.code).toBe('VALIDATION_ERROR')
    for (const runtime of [editRuntime({}, { coerce: true }), editRuntime({ coerce: true })]) {
      const [coerced] = await runtime.dispatch([{ id: 'c1', name: 'edit', arguments: args }])
      expect(coerced.ok).toBe(true)
      expect(coerced.details).toMatchObject({ count: 5, dryRun: true })
      expect(coerced.normalization?.coerced).toEqual(
        expect.arrayContaining([
          { path: '/count', from: 'string', to: 'integer' },
          { path: '/dryRun', from: 'string', to: 'boolean' },
        ]),
      )
    }
    const [off] = await editRuntime({ coerce: false }, { coerce: true }).dispatch([{ id: 'c1', name: 'edit', arguments: args }])
    expect(off.error?.code).toBe('VALIDATION_ERROR')
  })

  it('suggests the closest name for an unknown property', async () => {
    const runtime = editRuntime()
    const [result] = await runtime.dispatch([{ id: 'c1', name: 'edit', arguments: { path: 'a', oldText: 'x', newText: 'y', cuont: 2 } }])
    expect(result.error?.code).toBe('VALIDATION_ERROR')
    expect(textOf(result)).toMatch(/Did you mean "count"\?/)
  })

  it('a result with nothing normalized carries no normalization', async () => {
    const [result] = await editRuntime().dispatch([{ id: 'c1', name: 'edit', arguments: { path: 'a', oldText: 'x', newText: 'y' } }])
    expect(result.ok).toBe(true)
    expect(result).not.toHaveProperty('normalization')
  })

  it('refuses bad rules at registration, naming the tool and the value', () => {
    const bad: Record<string, unknown>[] = [
      { aliases: { file_path: 'nowhere' } },
      { aliases: 'file_path' },
      { requiredGroups: [['path', { allowBlank: true }]] },
      { requiredGroups: 'path' },
    ]
    for (const extra of bad) {
      try {
        editRuntime(extra)
        expect.unreachable(JSON.stringify(extra))
      } catch (error) {
        expect(error).toBeInstanceOf(ToolwireError)
        expect((error as ToolwireError).code).toBe('VALIDATION_ERROR')
        expect((error as Error).message).toContain('edit')
      }
    }
  })
})
