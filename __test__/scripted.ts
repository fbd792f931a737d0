// A scripted model for the agent loop: each turn is written here as text and calls, and encoded
// as the streamed response body of each wire (SSE), the way the providers send it.

import type { Wire } from '../dist/index.js'

export interface ScriptedCall {
  id: string
  name: string
  /** The arguments' JSON text as the model writes it (may be invalid). */
  args: string
}

export interface ScriptedTurn {
  text?: string
  calls?: ScriptedCall[]
  /** `length`: the model ran out of tokens. */
  stop?: 'stop' | 'length'
}

const sse = (events: object[]) => events.map((event) => `data: ${JSON.stringify(event)}\n\n`).join('')
const named = (events: [string, object][]) =>
  events.map(([type, data]) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`).join('')

/** Splits a text in two, so arguments arrive in fragments. */
function halves(text: string): string[] {
  const cut = Math.floor(text.length / 2)
  return [text.slice(0, cut), text.slice(cut)].filter((part) => part !== '')
}

function chat(turn: ScriptedTurn): string {
  const calls = turn.calls ?? []
  const chunk = (delta: object, finish: string | null = null) => ({
    id: 'chatcmpl-1',
    object: 'chat.completion.chunk',
    choices: [{ index: 0, delta, finish_reason: finish }],
  })
  const events: object[] = []
  if (turn.text) events.push(chunk({ role: 'assistant', content: turn.text }))
  calls.forEach((call, index) => {
    events.push(chunk({ tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } }] }))
    for (const part of halves(call.args)) events.push(chunk({ tool_calls: [{ index, function: { arguments: part } }] }))
  })
  const finish = turn.stop === 'length' ? 'length' : calls.length > 0 ? 'tool_calls' : 'stop'
  events.push(chunk({}, finish))
  events.push({ id: 'chatcmpl-1', object: 'chat.completion.chunk', choices: [], usage: { prompt_tokens: 10, completion_tokens: 5 } })
  return `${sse(events)}data: [DONE]\n\n`
}

function responses(turn: ScriptedTurn): string {
  const calls = turn.calls ?? []
  const events: [string, object][] = [['response.created', { response: { id: 'resp_1', status: 'in_progress', output: [] } }]]
  const output: object[] = []
  let index = 0
  if (turn.text) {
    const item = { type: 'message', id: 'msg_1', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: turn.text, annotations: [] }] }
    events.push(['response.output_item.added', { output_index: index, item: { ...item, status: 'in_progress', content: [] } }])
    events.push(['response.output_text.delta', { item_id: 'msg_1', output_index: index, content_index: 0, delta: turn.text }])
    events.push(['response.output_item.done', { output_index: index, item }])
    output.push(item)
    index += 1
  }
  for (const call of calls) {
    const item = { type: 'function_call', id: `fc_${call.id}`, call_id: call.id, name: call.name, arguments: call.args, status: 'completed' }
    events.push(['response.output_item.added', { output_index: index, item: { ...item, arguments: '', status: 'in_progress' } }])
    for (const part of halves(call.args)) {
      events.push(['response.function_call_arguments.delta', { item_id: item.id, output_index: index, delta: part }])
    }
    if (turn.stop !== 'length') events.push(['response.output_item.done', { output_index: index, item }])
    output.push(item)
    index += 1
  }
  const usage = { input_tokens: 10, output_tokens: 5 }
  if (turn.stop === 'length') {
    events.push(['response.incomplete', { response: { id: 'resp_1', status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' }, output, usage } }])
  } else {
    events.push(['response.completed', { response: { id: 'resp_1', status: 'completed', output, usage } }])
  }
  return named(events)
}

function anthropic(turn: ScriptedTurn): string {
  const calls = turn.calls ?? []
  const events: [string, object][] = [
    ['message_start', { message: { id: 'msg_1', type: 'message', role: 'assistant', content: [], stop_reason: null, usage: { input_tokens: 10, output_tokens: 1 } } }],
  ]
  let index = 0
  if (turn.text) {
    events.push(['content_block_start', { index, content_block: { type: 'text', text: '' } }])
    events.push(['content_block_delta', { index, delta: { type: 'text_delta', text: turn.text } }])
    events.push(['content_block_stop', { index }])
    index += 1
  }
  for (const call of calls) {
    events.push(['content_block_start', { index, content_block: { type: 'tool_use', id: call.id, name: call.name, input: {} } }])
    for (const part of halves(call.args)) {
      events.push(['content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: part } }])
    }
    if (turn.stop !== 'length') events.push(['content_block_stop', { index }])
    index += 1
  }
  const stop = turn.stop === 'length' ? 'max_tokens' : calls.length > 0 ? 'tool_use' : 'end_turn'
  events.push(['message_delta', { delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: 5 } }])
  events.push(['message_stop', {}])
  return named(events)
}

function gemini(turn: ScriptedTurn): string {
  const parts: object[] = []
  if (turn.text) parts.push({ text: turn.text })
  for (const call of turn.calls ?? []) parts.push({ functionCall: { id: call.id, name: call.name, args: JSON.parse(call.args) } })
  return sse([
    {
      candidates: [{ content: { role: 'model', parts }, finishReason: turn.stop === 'length' ? 'MAX_TOKENS' : 'STOP', index: 0 }],
      usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 5 },
    },
  ])
}

/** The response body of `turn` on `wire`. */
export function body(wire: Wire, turn: ScriptedTurn): string {
  switch (wire) {
    case 'openai-chat':
    case 'mistral':
      return chat(turn)
    case 'openai-responses':
      return responses(turn)
    case 'anthropic':
      return anthropic(turn)
    case 'gemini':
      return gemini(turn)
  }
}

/**
 * The whole (non-streamed) response of `turn` on `wire`: what a server that ignores
 * `stream: true` answers. Decoding it must give the turn its stream gives.
 */
export function whole(wire: Wire, turn: ScriptedTurn): object {
  const calls = turn.calls ?? []
  const text = turn.text ?? ''
  switch (wire) {
    case 'anthropic':
      return {
        id: 'msg_1',
        type: 'message',
        role: 'assistant',
        content: [
          ...(text ? [{ type: 'text', text }] : []),
          ...calls.map((c) => ({ type: 'tool_use', id: c.id, name: c.name, input: JSON.parse(c.args) })),
        ],
        stop_reason: turn.stop === 'length' ? 'max_tokens' : calls.length > 0 ? 'tool_use' : 'end_turn',
        usage: { input_tokens: 10, output_tokens: 5 },
      }
    case 'openai-responses':
      return {
        id: 'resp_1',
        object: 'response',
        status: turn.stop === 'length' ? 'incomplete' : 'completed',
        output: [
          ...(text ? [{ type: 'message', id: 'msg_1', role: 'assistant', content: [{ type: 'output_text', text, annotations: [] }] }] : []),
          ...calls.map((c) => ({ type: 'function_call', id: `fc_${c.id}`, call_id: c.id, name: c.name, arguments: c.args, status: 'completed' })),
        ],
        usage: { input_tokens: 10, output_tokens: 5 },
      }
    case 'gemini':
      return JSON.parse(gemini(turn).slice('data: '.length))
    case 'openai-chat':
    case 'mistral':
      return {
        id: 'chatcmpl-1',
        object: 'chat.completion',
        choices: [
          {
            index: 0,
            message: {
              role: 'assistant',
              content: text || null,
              ...(calls.length > 0
                ? { tool_calls: calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.args } })) }
                : {}),
            },
            finish_reason: turn.stop === 'length' ? 'length' : calls.length > 0 ? 'tool_calls' : 'stop',
          },
        ],
        usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
      }
  }
}

/** The SDK chunk objects of `turn` on `wire`: each SSE event's data, parsed (`[DONE]` left out). */
export function chunks(wire: Wire, turn: ScriptedTurn): object[] {
  return body(wire, turn)
    .split('\n')
    .filter((line) => line.startsWith('data: ') && line !== 'data: [DONE]')
    .map((line) => JSON.parse(line.slice('data: '.length)))
}

/**
 * How a scripted model answers: a fetch `Response`, a bare `ReadableStream` of bytes, an async
 * iterable of body strings, an async iterable of SDK chunk objects, or a fetch `Response` of
 * the whole JSON response (a server that ignored `stream: true`).
 */
export type AnswerForm = 'response' | 'stream' | 'strings' | 'chunks' | 'whole'

/** The body's bytes in small pieces, as a ReadableStream. */
function byteStream(text: string): ReadableStream<Uint8Array> {
  const bytes = new TextEncoder().encode(text)
  return new ReadableStream<Uint8Array>({
    start(controller) {
      for (let i = 0; i < bytes.length; i += 37) controller.enqueue(bytes.slice(i, i + 37))
      controller.close()
    },
  })
}

async function* each<T>(items: T[]): AsyncGenerator<T> {
  for (const item of items) yield item
}

/** The answer to `turn` on `wire` in `form`. */
export function answer(wire: Wire, turn: ScriptedTurn, form: AnswerForm = 'response') {
  switch (form) {
    case 'response':
      return new Response(byteStream(body(wire, turn)), { status: 200, headers: { 'content-type': 'text/event-stream' } })
    case 'stream':
      return byteStream(body(wire, turn))
    case 'strings': {
      const text = body(wire, turn)
      const pieces: string[] = []
      for (let i = 0; i < text.length; i += 23) pieces.push(text.slice(i, i + 23))
      return each(pieces)
    }
    case 'chunks':
      return each(chunks(wire, turn))
    case 'whole':
      return new Response(byteStream(JSON.stringify(whole(wire, turn), null, 2)), {
        status: 200,
        headers: { 'content-type': 'application/json' },
      })
  }
}

/**
 * A model that answers each call with the next turn of the script (as a fetch Response with the
 * bytes in small pieces, unless `form` says otherwise), and records the requests it got.
 */
export function scriptedModel(wire: Wire, turns: ScriptedTurn[], form: AnswerForm = 'response') {
  const requests: any[] = []
  const model = async (request: any) => {
    requests.push(structuredClone(request))
    const turn = turns[requests.length - 1]
    if (turn === undefined) throw new Error(`the script has no turn ${requests.length}`)
    return answer(wire, turn, form)
  }
  return { model, requests }
}
