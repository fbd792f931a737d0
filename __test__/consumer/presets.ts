// A typed Anthropic run with a provider preset, type-checked under strict nodenext by
// tsconfig.strict.json (nothing here is called: no network). The run takes and returns
// Anthropic's own messages: the last one's content reads without a cast, a history built by hand
// or the Anthropic SDK's own messages fit as they are, and a preset of another wire, a history of
// another wire's shape or a compatible server without its baseURL fail to compile.
import type Anthropic from '@anthropic-ai/sdk'

import { ToolRuntime, models, type AnthropicMessage, type RunOutcome } from 'toolwire'

/** The README's preset example: the text of the run's last message. */
export async function summarizeTodos(runtime: ToolRuntime): Promise<string | undefined> {
  // --- README: presets ---
  const outcome = await runtime.run({
    wire: 'anthropic',
    model: models.anthropic({ model: 'claude-sonnet-4-5', maxTokens: 2048, system: 'Be brief.' }),
    messages: [{ role: 'user', content: 'Summarize the TODOs in src/' }],
  })
  const last = outcome.messages.at(-1) // an AnthropicMessage: { role, content: string | blocks }
  const text = typeof last?.content === 'string' ? last.content : last?.content.find((block) => block.type === 'text')?.text
  // --- end ---
  return text
}

/** An Anthropic run's outcome holds Anthropic messages. */
export function lastContent(outcome: RunOutcome<'anthropic'>): AnthropicMessage['content'] | undefined {
  return outcome.messages.at(-1)?.content
}

/** A history built by hand: the question, the model's call and the tool's result. */
export const handBuilt: AnthropicMessage[] = [
  { role: 'user', content: 'What is 1 + 1?' },
  { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'add', input: { a: 1 } }] },
  { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: '2' }] },
]

/** The Anthropic SDK's own messages are a history as they are, with a preset's options all given. */
export function continueFromSdk(runtime: ToolRuntime, history: Anthropic.MessageParam[]): Promise<RunOutcome<'anthropic'>> {
  return runtime.run({
    wire: 'anthropic',
    model: models.anthropic({
      model: 'claude-sonnet-4-5',
      apiKey: 'sk-ant-test',
      baseURL: 'https://gateway.example/anthropic',
      headers: { 'anthropic-beta': 'some-feature' },
      fetch: (url, init) => fetch(url, init),
      body: { temperature: 0 },
      retry: { maxRetries: 4, initialDelayMs: 250, maxDelayMs: 4000 },
    }),
    messages: history,
  })
}

/** Each preset serves its own wire's run. */
export function otherWires(runtime: ToolRuntime) {
  return [
    runtime.run({ wire: 'openai-chat', model: models.openaiChat({ model: 'gpt-4o-mini' }), messages: [{ role: 'user', content: 'hi' }] }),
    runtime.run({ wire: 'openai-responses', model: models.openaiResponses({ model: 'gpt-5-mini' }), messages: [{ role: 'user', content: 'hi' }] }),
    runtime.run({ wire: 'gemini', model: models.gemini({ model: 'gemini-2.5-flash' }), messages: [{ role: 'user', parts: [{ text: 'hi' }] }] }),
    runtime.run({ wire: 'mistral', model: models.mistral({ model: 'mistral-small-latest' }), messages: [{ role: 'user', content: 'hi' }] }),
    runtime.run({ wire: 'openai-chat', model: models.openaiCompatible({ model: 'qwen3-8b', baseURL: 'http://127.0.0.1:8080/v1' }) }),
  ]
}

/** What does not compile. */
export function refused(runtime: ToolRuntime) {
  return [
    // @ts-expect-error an Anthropic preset cannot serve an openai-chat run
    runtime.run({ wire: 'openai-chat', model: models.anthropic({ model: 'claude-sonnet-4-5' }) }),
    // @ts-expect-error a Gemini content is not an Anthropic message
    runtime.run({ wire: 'anthropic', model: models.anthropic({ model: 'claude-sonnet-4-5' }), messages: [{ role: 'model', parts: [{ text: 'hi' }] }] }),
    // @ts-expect-error a compatible server has no default baseURL
    models.openaiCompatible({ model: 'qwen3-8b' }),
    // @ts-expect-error `maxTokens` is Anthropic's option
    models.openaiChat({ model: 'gpt-4o-mini', maxTokens: 10 }),
  ]
}
