// The runtimes of mcp-check.mjs (the MCP SDK 1) and mcp2-check.mjs (the SDK 2), copied beside them
// into each peer project: the runtime served over MCP, and what a second runtime gets back through
// addMcpServer from a Client of the served one. Both checks print the same outcome.

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

/** The runtime served: greet, picture (`png`, base64), explode, measure (an outputSchema), work (progress; `aborted` gets the step it was cancelled at). */
export function servedRuntime(ToolRuntime, png) {
  const served = new ToolRuntime()
  const aborted = []
  served.register({ name: 'greet', description: 'Says hello', parameters: { type: 'object', properties: { who: { type: 'string' } }, required: ['who'] }, execute: (_id, { who }) => `hello ${who}` })
  served.register({ name: 'picture', execute: () => ({ content: [{ type: 'text', text: 'pic' }, { type: 'image', data: png, mimeType: 'image/png' }] }) })
  served.register({ name: 'explode', execute: () => { throw new Error('kaboom') } })
  served.register({
    name: 'measure',
    outputSchema: { type: 'object', properties: { size: { type: 'number' } }, required: ['size'] },
    execute: () => ({ content: [{ type: 'text', text: 'size 9' }], details: { size: 9 } }),
  })
  served.register({
    name: 'work',
    parameters: { type: 'object', properties: { steps: { type: 'number' } } },
    async execute(_id, { steps }, signal, onUpdate) {
      for (let i = 1; i <= steps; i++) {
        onUpdate?.({ content: [{ type: 'text', text: `working ${i}` }] })
        await sleep(20)
        if (signal.aborted) {
          aborted.push(i)
          return 'aborted'
        }
      }
      return 'worked'
    },
  })
  return { served, aborted }
}

/** Whether the served `work` saw one abort (waiting for it up to half a second); forgets it. */
export async function abortSeen(aborted) {
  for (let i = 0; i < 50 && aborted.length === 0; i++) await sleep(10)
  return aborted.splice(0).length === 1
}

/** The served tools added to a second runtime through `client`, called (each, then `work` cancelled). */
export async function addedBack(ToolRuntime, addMcpServer, client, aborted) {
  const other = new ToolRuntime()
  const names = await addMcpServer(other, client, { prefix: 'remote_' })
  const events = []
  const results = await other.dispatch(
    [
      { id: 'a', name: 'remote_greet', arguments: { who: 'there' } },
      { id: 'b', name: 'remote_picture', arguments: {} },
      { id: 'c', name: 'remote_explode', arguments: {} },
      { id: 'd', name: 'remote_measure', arguments: {} },
      { id: 'e', name: 'remote_work', arguments: { steps: 2 } },
    ],
    { onEvent: (event) => event.type === 'tool_execution_update' && events.push([event.toolCallId, event.partialResult.content[0].text]) },
  )
  const controller = new AbortController()
  setTimeout(() => controller.abort(), 50)
  const [cancelled] = await other.dispatch([{ id: 'x', name: 'remote_work', arguments: { steps: 50 } }], { signal: controller.signal })
  return {
    names,
    results: results.map((r) => [r.callId, r.status, r.content, r.details ?? null]),
    events,
    cancelled: cancelled.status,
    serverSawAbort: await abortSeen(aborted),
  }
}
