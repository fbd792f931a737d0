// Run with --expose-gc: what a runtime's one timer keeps alive. Prints JSON.
// - hangingDropped: a dispatch whose tool never settles, from a runtime nothing else holds, is
//   still ended by its deadline after full collections (the timer holds the runtime while a
//   deadline is pending).
// - idleDropped: a runtime whose dispatches all ended is collected once dropped, though its idle
//   timer has not fired yet (the idle timer holds it weakly).
'use strict'
const { ToolRuntime } = require('../../dist/index.js')

const collect = async () => {
  for (let i = 0; i < 4; i++) {
    global.gc()
    await new Promise((resolve) => setImmediate(resolve))
  }
}

const scenarios = {
  async hangingDropped() {
    const dispatched = (() => {
      const runtime = new ToolRuntime()
      runtime.register({ name: 'hang', timeoutMs: 200, parameters: { type: 'object' }, execute: () => new Promise(() => {}) })
      return runtime.dispatch([{ id: 'a', name: 'hang', arguments: '{}' }])
    })()
    await collect()
    const [result] = await dispatched
    return result.status
  },
  async idleDropped() {
    const ref = await (async () => {
      const runtime = new ToolRuntime({ timeoutMs: 60_000 })
      runtime.register({ name: 'quick', parameters: { type: 'object' }, execute: async () => 'done' })
      const [result] = await runtime.dispatch([{ id: 'a', name: 'quick', arguments: '{}' }])
      if (result.status !== 'ok') throw new Error(`quick ended ${result.status}`)
      return new WeakRef(runtime)
    })()
    await collect()
    return ref.deref() === undefined ? 'collected' : 'alive'
  },
}

scenarios[process.argv[2]]().then(
  (outcome) => console.log(JSON.stringify(outcome)),
  (error) => {
    console.error(error)
    process.exit(1)
  },
)
