// Peer: the OpenAI Agents SDK's `Runner.run` with a fake `Model`: its first response is N
// function calls, its response to the N outputs a final message. The tools declare the schema in
// zod (`tool({ parameters })`, strict as the SDK requires of zod: the optional properties are
// nullable), which the SDK parses every call's arguments with before `execute` (its validating path).
// Tracing is off, as it is for a user without an OpenAI key. The same run with N = 0 is one mock
// turn and no tools: bench/turn.mjs subtracts it.

import { Agent, Runner, Usage, tool } from '@openai/agents'
import { strictZodSchema, toolNames, turnCalls, argumentsText, expectLength } from './tools.mjs'

/** A Model whose first response is `n` function calls and whose response to their outputs is text. */
function fakeModel(n) {
  const calls = turnCalls(n).map((c) => ({ type: 'function_call', callId: c.id, name: c.name, arguments: argumentsText, status: 'completed' }))
  const final = [{ type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'done' }] }]
  return {
    async getResponse(request) {
      const input = Array.isArray(request.input) ? request.input : []
      const answered = input.some((item) => item.type === 'function_call_result')
      return { usage: new Usage(), output: n === 0 || answered ? final : calls, responseId: undefined }
    },
    // eslint-disable-next-line require-yield
    async *getStreamedResponse() {
      throw new Error('not streamed')
    },
  }
}

/** One Runner.run whose first response carries `n` calls. */
export function createOpenAiAgentsTurn(n) {
  const tools = toolNames.map((name) => tool({ name, description: `trivial tool ${name}`, parameters: strictZodSchema, execute: async () => 'ok' }))
  const agent = new Agent({ name: 'bench', instructions: '', model: fakeModel(n), tools })
  const runner = new Runner({ tracingDisabled: true })
  return {
    run: () => runner.run(agent, 'go'),
    check: (result) => {
      const outputs = result.newItems.filter((item) => item.type === 'tool_call_output_item')
      expectLength('OpenAI Agents', outputs, n)
      for (const o of outputs) if (o.output !== 'ok') throw new Error(`OpenAI Agents: a call failed: ${JSON.stringify(o.output)}`)
    },
  }
}
