// toolwire/pi for ESM: the CommonJS adapter's functions as named exports. It loads nothing of
// pi-agent-core (its AgentTools are plain objects), and its declarations already type
// pi-agent-core (an ES module) as `import` does. Named exports only.

export { piEvents, registerPiTools, toPiTools } from './pi.js'
export type { PiAdapterOptions, PiToolExecutionEvent, ToolwireToolError } from './pi.js'
