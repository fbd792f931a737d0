// approvals.onApproval as users write it: each form below is type-checked by `tsc -p
// tsconfig.json` (strict) and run here through a real dispatch. Seen in the r9 user review
// (3-onapproval-type): `async (r) => { log(r); return 'allow-once' }` failed strict checking
// because the declared `ApprovalDecision | Promise<ApprovalDecision>` return widened the literal.
import { describe, expect, it } from 'vitest'

import { ToolRuntime, type ApprovalCallback, type ApprovalDecision, type ApprovalRequest, type RuntimeOptions } from '../dist/index.js'

/** A person who says yes to `write`. */
const askTheUser = async (request: ApprovalRequest): Promise<boolean> => request.toolName === 'write'
const seen: string[] = []
const log = (request: ApprovalRequest) => seen.push(request.toolName)
const stored: ApprovalDecision = 'deny'

/** Every form a user writes, with the decision it gives; each line is type-checked as written. */
const forms: [string, RuntimeOptions['approvals'], ApprovalDecision][] = [
  ['async block body returning one literal', { ask: 'always', onApproval: async (r) => { log(r); return 'allow-once' } }, 'allow-once'],
  ['async block body with two returns', { ask: 'always', onApproval: async (r) => { if (r.toolName === 'x') return 'deny'; return 'allow-always' } }, 'allow-always'],
  ['async expression body', { ask: 'always', onApproval: async () => 'deny' }, 'deny'],
  ['async function expression', { ask: 'always', onApproval: async function (r) { log(r); return 'allow-once' } }, 'allow-once'],
  ['plain block body returning one literal', { ask: 'always', onApproval: (r) => { log(r); return 'allow-once' } }, 'allow-once'],
  ['plain expression body', { ask: 'always', onApproval: () => 'deny' }, 'deny'],
  ['plain ternary', { ask: 'always', onApproval: (r) => (r.toolName === 'write' ? 'allow-once' : 'deny') }, 'allow-once'],
  ['a variable of the type', { ask: 'always', onApproval: () => stored }, 'deny'],
  ['a promise built by hand', { ask: 'always', onApproval: () => Promise.resolve('allow-once' as const) }, 'allow-once'],
  ['async boolean: true allows once', { ask: 'always', onApproval: async () => true }, 'allow-once'],
  ['plain boolean: false denies', { ask: 'always', onApproval: () => false }, 'deny'],
  ['async predicate', { ask: 'always', onApproval: async (r) => r.toolName === 'write' }, 'allow-once'],
  ['the README form, a boolean from the user', { ask: 'always', onApproval: async (r) => askTheUser(r) }, 'allow-once'],
]

// Type level only: what must not compile.
export const refused: ApprovalCallback[] = [
  // @ts-expect-error a misspelt decision in an async block body
  async (r) => { log(r); return 'allow-twice' },
  // @ts-expect-error a misspelt decision in a plain function
  (r) => { log(r); return 'allow-twice' },
  // @ts-expect-error a string that is no decision
  async () => 'yes',
  // @ts-expect-error a number is no decision
  (r) => r.toolName.length,
]

// The README's own form, as a type-level check.
export const readme: ApprovalCallback = async (request) => ((await askTheUser(request)) ? 'allow-once' : 'deny')

describe('approvals.onApproval: every form that type-checks is one the runtime takes', () => {
  for (const [what, approvals, decision] of forms) {
    it(what, async () => {
      const runtime = new ToolRuntime({ approvals })
      runtime.register({ name: 'write', parameters: { type: 'object' }, execute: async () => 'written' })
      const [result] = await runtime.dispatch([{ id: 'c1', name: 'write', arguments: '{}' }])
      expect(result!.status, `${what}: ${JSON.stringify(result!.content)}`).toBe(decision === 'deny' ? 'blocked' : 'ok')
      if (decision !== 'deny') expect(result!.content).toEqual([{ type: 'text', text: 'written' }])
    })
  }
  it('the refused forms are refused at run time too, naming the answer', async () => {
    const runtime = new ToolRuntime({ approvals: { ask: 'always', onApproval: refused[0]! } })
    runtime.register({ name: 'write', parameters: { type: 'object' }, execute: async () => 'written' })
    const [result] = await runtime.dispatch([{ id: 'c1', name: 'write', arguments: '{}' }])
    expect(result!.ok).toBe(false)
    expect(JSON.stringify(result!.content)).toContain('allow-twice')
  })
  it('resolveApproval takes a boolean as onApproval does: true runs the call once, false refuses it', async () => {
    const runtime = new ToolRuntime({ approvals: { ask: 'always' } })
    runtime.register({ name: 'write', parameters: { type: 'object' }, execute: async () => 'written' })
    const [first, second] = await runtime.dispatch([
      { id: 'c1', name: 'write', arguments: '{}' },
      { id: 'c2', name: 'write', arguments: '{}' },
    ])
    expect([first!.status, second!.status]).toEqual(['pending', 'pending'])
    const idOf = (result: typeof first) => (result!.error?.details as { approvalId: string }).approvalId
    const allowed = await runtime.resolveApproval(idOf(first), true)
    const denied = await runtime.resolveApproval(idOf(second), false)
    expect([allowed.status, allowed.content]).toEqual(['ok', [{ type: 'text', text: 'written' }]])
    expect([denied.status, denied.error?.code]).toEqual(['blocked', 'POLICY_DENIED'])
    // @ts-expect-error a number is no decision
    await expect(runtime.resolveApproval('x', 1)).rejects.toThrow(/^resolveApproval: decision must be a string or a boolean, got .*1/)
  })
})
