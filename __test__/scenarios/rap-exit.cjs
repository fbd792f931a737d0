// One RAP scenario per process: add the toolset at argv[2], dispatch one call of argv[3], print
// the results as JSON, then do nothing else. The test checks the process waits for the remote
// result (the call is in flight on another thread) and then exits by itself: a finished remote
// runtime, its callback server and any open subscription hold nothing open.
'use strict'
const { ToolRuntime } = require('../../dist/index.js')

async function main(baseUrl, tool) {
  const runtime = new ToolRuntime()
  await runtime.addRapToolset(baseUrl)
  return runtime.dispatch([{ id: 'exit-1', name: tool, arguments: '{}' }], { groupId: 'exit-thread' })
}

main(process.argv[2], process.argv[3]).then(
  (results) => process.stdout.write(JSON.stringify(results)),
  (error) => {
    process.stdout.write(JSON.stringify({ rejected: String(error && error.stack) }))
    process.exitCode = 3
  },
)
