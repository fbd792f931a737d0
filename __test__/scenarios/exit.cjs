// One scenario per process: dispatch, print the results as JSON, then do nothing else. The test
// checks that the process exits by itself (no handle left open) with one result per call.
'use strict'
const { ToolRuntime } = require('../../dist/index.js')
const { NativeRuntime } = require('../../native.js')

const tools = {
  syncThrow: () => {
    throw new Error('sync boom')
  },
  rejectError: () => Promise.reject(new Error('async boom')),
  rejectValue: () => Promise.reject(42),
  neverSettles: () => new Promise(() => {}),
  neverSettlesWithSignal: (_id, _p, signal) => new Promise(() => signal.addEventListener('abort', () => {})),
  settlesLate: () => new Promise((resolve) => setTimeout(() => resolve('late'), 150)),
  nonPromise: () => 'plain value',
  nothing: () => undefined,
  cyclic: () => {
    const o = {}
    o.o = o
    return o
  },
  slow: () => new Promise((resolve) => setTimeout(() => resolve('slow'), 30)),
}

async function main(scenario) {
  const runtime = new ToolRuntime({ timeoutMs: 50 })
  for (const [name, execute] of Object.entries(tools)) runtime.register({ name, parameters: { type: 'object' }, execute })
  const call = (name, id = name) => ({ id, name, arguments: '{}' })
  switch (scenario) {
    case 'unknownTool':
      return runtime.dispatch([call('doesNotExist')])
    case 'unregisteredInFlight': {
      const pending = runtime.dispatch([call('slow')])
      runtime.unregister('slow')
      return pending
    }
    case 'twoDispatches': {
      const [a, b] = await Promise.all([runtime.dispatch([call('slow', 'a')]), runtime.dispatch([call('nonPromise', 'b')])])
      return [...a, ...b]
    }
    case 'abortMidFlight': {
      const controller = new AbortController()
      const pending = runtime.dispatch([call('neverSettlesWithSignal'), call('slow')], { signal: controller.signal })
      setTimeout(() => controller.abort(), 5)
      return pending
    }
    case 'alreadyAborted':
      return runtime.dispatch([call('slow')], { signal: AbortSignal.abort() })
    case 'hookNeverAnswers':
      return runtime.dispatch([call('slow')], { beforeToolCall: () => new Promise(() => {}) })
    case 'panic': {
      const engine = new NativeRuntime('{}')
      const messages = []
      for (const probe of [() => engine.__panicForTests(), () => engine.list()]) {
        try {
          probe()
          messages.push('no error')
        } catch (error) {
          messages.push([error.code, error.message])
        }
      }
      return messages
    }
    default:
      return runtime.dispatch([call(scenario)])
  }
}

main(process.argv[2]).then(
  (results) => process.stdout.write(JSON.stringify(results)),
  (error) => {
    process.stdout.write(JSON.stringify({ rejected: String(error && error.stack) }))
    process.exitCode = 3
  },
)
