// toolwire/testing: what a test of an agent needs. A scripted model answering with each wire's
// real bytes (scripted.ts, its turns in turns.ts, each wire's encoder in wires/, framed by
// framing.ts), faulty streams (faults.ts, reading bodies back into events with events.ts), and
// cassettes recording and replaying model exchanges (cassettes.ts, keyed by canonical.ts).

export type { ScriptedCall, ScriptedThinking, ScriptedTurn } from './turns.js'
export type { AnswerFormat } from './framing.js'
export { scriptedBodies, scriptedBody, scriptedModel } from './scripted.js'
export { seededRandom } from './random.js'
export { faultyStream } from './faults.js'
export type { Faults, FaultyBody, FaultyStream } from './faults.js'
export { recordModel, replayModel } from './cassettes.js'
export type { CassetteOptions, Recording } from './cassettes.js'
export type { ScriptedModel, ScriptedOptions } from './scripted.js'
