// A runtime with remote tools that its owner drops is collected with its transport: after
// garbage collection its callback server stops accepting connections. Prints
// `{ before, after }`: the status of a callback POSTed while the runtime lives, and what the
// same URL gives once it is gone ("refused"). Run with --expose-gc.
'use strict'
const { ToolRuntime } = require('../../dist/index.js')

async function post(url) {
  try {
    const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })
    return response.status
  } catch {
    return 'refused'
  }
}

async function main(baseUrl) {
  let runtime = new ToolRuntime()
  await runtime.addRapToolset(baseUrl)
  const [result] = await runtime.dispatch([{ id: 'drop-1', name: 'echo', arguments: '{"word":"x"}' }])
  const url = await (await fetch(`${baseUrl}/callback-of/drop-1`)).json()
  const before = await post(url)
  runtime = null
  let after = before
  // Finalizers run after a collection, on a later turn of the loop: collect until they did.
  for (let i = 0; i < 200 && after !== 'refused'; i++) {
    global.gc()
    await new Promise((resolve) => setTimeout(resolve, 10))
    after = await post(url)
  }
  return { status: result.status, before, after }
}

main(process.argv[2]).then(
  (out) => process.stdout.write(JSON.stringify(out)),
  (error) => {
    process.stdout.write(JSON.stringify({ rejected: String(error && error.stack) }))
    process.exitCode = 3
  },
)
