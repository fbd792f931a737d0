// run() with the official SDKs, as the README shows it, type-checked under strict nodenext by
// tsconfig.strict.json and run by __test__/run-sdk.test.ts against a local server. Seen in the
// r10 user review (#5, 23-run-openai-sdk): with `request: any`, TypeScript picked the SDKs'
// non-streaming overloads and `model` failed to compile (TS2322); a whole non-streamed response
// object was refused ("got an object") though `[object]` worked (24-sdk-whole-object).
import Anthropic from '@anthropic-ai/sdk'
import OpenAI from 'openai'

import { ToolRuntime, type ModelRequest, type RunOptions, type RunOutcome, type Wire } from 'toolwire'

/** A runtime with one tool, `add`. */
export function addRuntime(): ToolRuntime {
  const runtime = new ToolRuntime()
  runtime.register({
    name: 'add',
    description: 'Add one to a number',
    parameters: { type: 'object', properties: { a: { type: 'number' } }, required: ['a'] },
    execute: (_id: string, { a }: { a: number }) => String(a + 1),
  })
  return runtime
}

/** Asks what 1 + 1 is of a runtime with `add`, through `model` on `wire`. */
function askAdd<W extends Wire>(options: Pick<RunOptions<W>, 'wire' | 'model'>): Promise<RunOutcome> {
  return addRuntime().run({ ...options, messages: [{ role: 'user', content: 'What is 1 + 1?' }] })
}

/** The README's example: the OpenAI SDK's stream handed to run() as it is. */
export function runWithOpenAI(baseURL: string): Promise<RunOutcome> {
  const openai = new OpenAI({ apiKey: 'sk-test', baseURL })
  return askAdd({
    wire: 'openai-chat',
    model: (request, { signal }) => openai.chat.completions.create({ ...request, model: 'gpt-4o-mini', stream: true }, { signal }),
  })
}

/** The same with the Anthropic SDK. */
export function runWithAnthropic(baseURL: string): Promise<RunOutcome> {
  const anthropic = new Anthropic({ apiKey: 'sk-ant-test', baseURL })
  return askAdd({
    wire: 'anthropic',
    model: (request, { signal }) => anthropic.messages.create({ ...request, model: 'claude-sonnet-4-5', max_tokens: 1024, stream: true }, { signal }),
  })
}

/** A model function returning the SDK's whole (non-streamed) response object. */
export function runWithOpenAIWhole(baseURL: string): Promise<RunOutcome> {
  const openai = new OpenAI({ apiKey: 'sk-test', baseURL })
  return askAdd({
    wire: 'openai-chat',
    model: (request, { signal }) => openai.chat.completions.create({ ...request, model: 'gpt-4o-mini', stream: false, stream_options: null }, { signal }),
  })
}

/** The request is typed per wire, never `any` (which made the SDKs pick their non-streaming overloads). */
export function historyLength(request: ModelRequest<'openai-chat'>): number {
  // @ts-expect-error Gemini's `contents` is not a key of an openai-chat body
  return request.messages.length + request.contents.length
}

/**
 * The last message of a run's history reads without a cast (issue 19 round 5, new-user review 9:
 * `object[]` made `outcome.messages.at(-1)?.content` fail with TS2339).
 */
export function lastText(outcome: RunOutcome): unknown {
  return outcome.messages.at(-1)?.content
}
