// What a fault needs to know of each wire's events about tool calls: which call an event belongs
// to (for interleaving parallel calls where the wire keys their fragments), and where calls carry
// their ids and indexes (for removing them). Told by the events' own shapes, never by a wire name.

/** A JSON object's fields, for reading and writing a parsed event. */
type Fields = Record<string, unknown>

/** `value` when it is a JSON object (not an array), else undefined. */
function fields(value: unknown): Fields | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Fields) : undefined
}

/** The items of `value` when it is an array, else none. */
function items(value: unknown): unknown[] {
  return Array.isArray(value) ? value : []
}

/** The `delta` (a chunk) or `message` (a whole response) of each choice of a Chat Completions value. */
function chatMessages(value: Fields): Fields[] {
  return items(value.choices).flatMap((choice) => {
    const choiceFields = fields(choice)
    return [fields(choiceFields?.delta), fields(choiceFields?.message)].filter((part): part is Fields => part !== undefined)
  })
}

/**
 * Reads a stream's events in order and says which call each belongs to: the key of the call
 * whose fragment it carries (OpenAI Chat's `tool_calls[].index`, the Responses `output_index`
 * of a `function_call` item, Anthropic's block `index` of a `tool_use` block), or undefined for
 * an event of no call or of more than one. Gemini and Mistral send each call whole, in order:
 * none of their events is keyed.
 */
export class CallKeys {
  /** Responses output indexes and Anthropic block indexes known to hold a call. */
  #calls = new Set<number>()

  /** The call key of `value`, the next event of the stream. */
  keyOf(value: unknown): number | undefined {
    const event = fields(value)
    if (event === undefined) return undefined
    const type = event.type
    if (typeof type === 'string') return this.#typedKey(type, event)
    // OpenAI Chat: a chunk whose one choice carries fragments of one call and nothing else.
    const [message, ...others] = chatMessages(event)
    const calls = items(message?.tool_calls)
    if (message === undefined || others.length > 0 || calls.length !== 1) return undefined
    const choice = fields(items(event.choices)[0])
    if (choice?.finish_reason != null || (typeof message.content === 'string' && message.content !== '')) return undefined
    const index = fields(calls[0])?.index
    return typeof index === 'number' ? index : undefined
  }

  /** The call key of a typed event (Responses, Anthropic). */
  #typedKey(type: string, event: Fields): number | undefined {
    const outputIndex = event.output_index
    if (type.startsWith('response.') && typeof outputIndex === 'number') {
      if (type === 'response.output_item.added' && fields(event.item)?.type === 'function_call') this.#calls.add(outputIndex)
      return this.#calls.has(outputIndex) ? outputIndex : undefined
    }
    const index = event.index
    if (type.startsWith('content_block_') && typeof index === 'number') {
      if (type === 'content_block_start' && fields(event.content_block)?.type === 'tool_use') this.#calls.add(index)
      return this.#calls.has(index) ? index : undefined
    }
    return undefined
  }
}

/** Deletes `key` from `value` when it is an object; says whether it did. */
function drop(value: unknown, key: string): boolean {
  const object = fields(value)
  if (object === undefined || !(key in object)) return false
  delete object[key]
  return true
}

/**
 * Removes the ids of the calls in `value` (a parsed event, changed in place): OpenAI Chat's and
 * Mistral's `tool_calls[].id`, the Responses `call_id` of function calls, Anthropic's `tool_use`
 * id, Gemini's `functionCall.id`, in a stream's events and in whole responses. Says whether it
 * removed any.
 */
export function removeCallIds(value: unknown): boolean {
  const event = fields(value)
  if (event === undefined) return false
  let removed = false
  const remove = (holder: unknown, key: string) => {
    removed = drop(holder, key) || removed
  }
  for (const message of chatMessages(event)) for (const call of items(message.tool_calls)) remove(call, 'id')
  for (const item of [event.item, ...items(fields(event.response)?.output), ...items(event.output)]) {
    if (fields(item)?.type === 'function_call') remove(item, 'call_id')
  }
  for (const block of [event.content_block, ...items(fields(event.message)?.content), ...items(event.content)]) {
    if (fields(block)?.type === 'tool_use') remove(block, 'id')
  }
  for (const candidate of items(event.candidates)) {
    for (const part of items(fields(fields(candidate)?.content)?.parts)) remove(fields(part)?.functionCall, 'id')
  }
  return removed
}

/**
 * Removes the indexes that key calls in `value` (a parsed event, changed in place): OpenAI
 * Chat's `tool_calls[].index`, the Responses `output_index`, Anthropic's block `index`. Gemini
 * and Mistral have none. Says whether it removed any.
 */
export function removeCallIndexes(value: unknown): boolean {
  const event = fields(value)
  if (event === undefined) return false
  let removed = false
  for (const message of chatMessages(event)) for (const call of items(message.tool_calls)) removed = drop(call, 'index') || removed
  const type = event.type
  if (typeof type === 'string' && type.startsWith('response.')) removed = drop(event, 'output_index') || removed
  if (typeof type === 'string' && type.startsWith('content_block_')) removed = drop(event, 'index') || removed
  return removed
}
