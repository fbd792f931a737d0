// What every part of the JavaScript layer shares: the error type and the engine-call wrapper.

import type * as Native from '../native.js'
import { ERROR_CODES, MAX_QUOTED_BYTES, MAX_VALUE_DEPTH, WIRES } from './protocol.generated.js'
import type { ErrorCode, Wire } from './types.js'

/** An error thrown by toolwire for misuse or an internal fault; `code` says which. */
export class ToolwireError extends Error {
  declare readonly code: ErrorCode
  /** PRECONDITION_FAILED: the optional part of the engine this binary was built without (`'image'`, `'rap'`). */
  declare readonly feature?: string

  constructor(code: ErrorCode, message: string) {
    super(message)
    this.name = 'ToolwireError'
    this.code = code
  }
}

/** The engine's error codes (`ERROR_CODES`, generated from toolwire_core::ErrorCode). */
const ENGINE_CODES: ReadonlySet<string> = new Set(ERROR_CODES)

/** Calls into the engine, turning its errors into ToolwireErrors (see {@link engineError}). */
export function native<T>(fn: () => T): T {
  try {
    return fn()
  } catch (error) {
    throw engineError(error)
  }
}

/**
 * What the engine threw or rejected with, as a ToolwireError: the engine sets an error's `code`
 * natively (one of {@link ERROR_CODES}); anything else (napi's own argument errors, whose codes
 * are napi statuses such as `InvalidArg`) is returned as it is.
 */
export function engineError<E>(error: E): E | ToolwireError {
  if (error instanceof ToolwireError || !(error instanceof Error)) return error
  let code: unknown
  try {
    // (its own code, or its class's: never one a polluted Object.prototype holds)
    code = ownOrClass(error, 'code')
  } catch {
    return error
  }
  // (one of ERROR_CODES: an ErrorCode)
  return typeof code === 'string' && ENGINE_CODES.has(code) ? new ToolwireError(code as ErrorCode, error.message) : error
}

/**
 * A readable message for anything a tool or hook threw or rejected with. Never throws: a
 * message getter, `toString`, `toJSON` or Proxy trap that throws gives a message saying so.
 */
export function messageOf(error: unknown): string {
  try {
    if (error instanceof Error) return String(error.message)
    if (typeof error === 'string') return error
    let json: string | undefined
    try {
      json = JSON.stringify(error)
    } catch {
      json = undefined
    }
    return `non-Error value: ${json === undefined ? safeString(error) : json}`
  } catch {
    return `a thrown ${typeof error} whose message cannot be read`
  }
}

/** The start of V8's message for a cycle JSON.stringify met. */
const CIRCULAR = /^Converting circular structure to JSON/
/** V8's message for a BigInt JSON.stringify met ("Do not know how to serialize a BigInt"). */
const BIGINT = /serialize a BigInt/

/** The most path segments a circular-reference message names (the first and the last half). */
const MAX_PATH_SEGMENTS = 12
/** The most characters of one key a circular-reference message quotes. */
const MAX_KEY_CHARS = 40

/** A JSON.stringify replacer: what to write for `item`, held under `key` by `this`. */
export type Replacer = (this: unknown, key: string, item: unknown) => unknown

/** Where a value sits: the object or array holding it, and its key there. */
type Edge = [holder: unknown, key: string]

/**
 * Why `JSON.stringify(value, replacer)` threw `error`, on one line: a cycle as `it holds a
 * circular reference at $.a.b` (the path where it closes, bounded), instead of V8's multi-line
 * text; anything else as `messageOf` reads it. Never throws.
 */
export function serializeFailure(error: unknown, value: unknown, replacer?: Replacer): string {
  if (error instanceof LostValue) {
    const path = lostPath(value, replacer)
    return `it holds ${error.what}${path === undefined ? '' : ` at ${path}`}, which JSON would carry as ${error.as}: return a plain value, or give it a toJSON`
  }
  let circular: boolean
  let bigint: boolean | undefined
  try {
    circular = error instanceof TypeError && CIRCULAR.test(error.message)
    bigint = error instanceof TypeError && BIGINT.test(error.message)
  } catch {
    circular = false
  }
  if (bigint) {
    const path = pathWhere(value, replacer, isBigInt)
    return `it holds a BigInt${path === undefined ? '' : ` at ${path}`}, which JSON cannot carry: return it as a string or a number, or give BigInt.prototype a toJSON`
  }
  if (!circular) return messageOf(error)
  const path = cyclePath(value, replacer)
  return path === undefined ? 'it holds a circular reference' : `it holds a circular reference at ${path}`
}

/**
 * The path (`$.a[0]["b c"]`) at which `value`, serialized as JSON.stringify does (toJSON, then
 * `replacer`), first meets an object that holds it; undefined when serializing it again meets no
 * cycle. One walk: each object keeps the holder and key of its first visit, so the path is read
 * back once from where the cycle closes.
 */
function cyclePath(value: unknown, replacer: Replacer | undefined): string | undefined {
  const parents = new Map<unknown, Edge>()
  let last: Edge | undefined
  try {
    JSON.stringify(value, function (this: unknown, key: string, item: unknown) {
      if (replacer !== undefined) item = replacer.call(this, key, item)
      last = [this, key]
      if (item !== null && typeof item === 'object' && !parents.has(item)) parents.set(item, last)
      return item
    })
  } catch (error) {
    if (last !== undefined && error instanceof TypeError && CIRCULAR.test(error.message)) return pathText(parents, last)
  }
  return undefined
}

/** The path of the `[holder, key]` chain ending at `last`, its middle elided past MAX_PATH_SEGMENTS. */
function pathText(parents: Map<unknown, Edge>, last: Edge): string {
  const segments: string[] = []
  // (`parents.get` finds the edge: the loop's test is that it holds it)
  for (let edge = last; parents.has(edge[0]); edge = parents.get(edge[0]) as Edge) segments.push(segmentText(edge[0], edge[1]))
  segments.reverse()
  const half = MAX_PATH_SEGMENTS / 2
  if (segments.length > MAX_PATH_SEGMENTS) {
    segments.splice(half, segments.length - MAX_PATH_SEGMENTS, `…(${segments.length - MAX_PATH_SEGMENTS} more)…`)
  }
  return `$${segments.join('')}`
}

/** Thrown by {@link keepingAll} at a value JSON would carry as less than it is. */
class LostValue extends Error {
  declare what: string
  declare as: string

  constructor(what: string, as: string) {
    super(`it holds ${what}, which JSON would carry as ${as}`)
    this.what = what
    this.as = as
  }
}

/** Objects whose JSON form (`{}`) drops what they hold, by class: what they are called. */
const LOSSY_CLASSES: [abstract new (...args: never[]) => unknown, string][] = [
  [Map, 'a Map'],
  [Set, 'a Set'],
  [WeakMap, 'a WeakMap'],
  [WeakSet, 'a WeakSet'],
  [RegExp, 'a RegExp'],
  [Promise, 'a Promise (not awaited)'],
  [Error, 'an Error object'],
  [ArrayBuffer, 'an ArrayBuffer'],
]

/**
 * What `item` is when JSON.stringify (after its toJSON) would carry it as less than it is, as
 * `[what, as]`; undefined when it is carried. Lost: a Map, Set, WeakMap, WeakSet, RegExp,
 * Promise or other thenable, Error or ArrayBuffer (each `{}`), a function or symbol (a key
 * that vanishes, null in an array), and an instance of any other class with no own enumerable
 * property (private fields or getters only: `{}`). Carried: plain objects and arrays, boxed
 * primitives, typed arrays (their indices), and `undefined` (a key left out, as JSON does).
 */
function lostAs(item: unknown): [what: string, as: string] | undefined {
  if (typeof item === 'function') return ['a function', 'nothing (the key is dropped)']
  if (typeof item === 'symbol') return ['a symbol', 'nothing (the key is dropped)']
  if (item === null || typeof item !== 'object' || Array.isArray(item)) return undefined
  const proto: unknown = Object.getPrototypeOf(item)
  if (proto === Object.prototype || proto === null || proto === SNAPSHOT_PROTOTYPE) return undefined
  for (const [type, what] of LOSSY_CLASSES) if (item instanceof type) return [what === 'an Error object' ? `an Error object (${JSON.stringify(messageOf(item).slice(0, 80))})` : what, '{}']
  if (typeof (item as { then?: unknown }).then === 'function') return ['a thenable (not awaited)', '{}']
  if (ArrayBuffer.isView(item) && !(item instanceof DataView)) return undefined
  if (item instanceof Number || item instanceof String || item instanceof Boolean) return undefined
  // (a BigInt object makes JSON.stringify throw, which serializeFailure names at its path)
  if (isBigInt(item)) return undefined
  if (Object.keys(item).length > 0) return undefined
  const named = proto as { constructor?: { name?: unknown } } | undefined
  const name = typeof named?.constructor?.name === 'string' && named.constructor.name !== '' ? named.constructor.name : 'class'
  return [`a ${name.slice(0, 40)} instance with no enumerable property (private fields or getters only)`, '{}']
}

/**
 * A JSON.stringify replacer that throws a {@link LostValue} at the first value JSON would carry
 * as less than it is ({@link lostAs}), after `replacer` when given; `serializeFailure` names it
 * and its path. The check is a few type tests per value: serializing stays linear.
 */
export function keepingAll(replacer?: Replacer): Replacer {
  return function (this: unknown, key: string, item: unknown) {
    if (replacer !== undefined) item = replacer.call(this, key, item)
    if (item !== null && typeof item === 'object' && --objectsLeft < 0) throw new TooManyObjects()
    const lost = lostAs(item)
    if (lost !== undefined) throw new LostValue(lost[0], lost[1])
    return item
  }
}

/**
 * How deep {@link carriedAsIs} looks; deeper, it answers false (the engine refuses values
 * nested past its MAX_VALUE_DEPTH anyway).
 */
const AS_IS_DEPTH = MAX_VALUE_DEPTH

/**
 * How many values {@link carriedAsIs} visits at most; past it, it answers false. A value sharing
 * sub-objects (`a = [x, x]`, `x = [y, y]`, ...) is visited once per reference, as JSON.stringify
 * serializes it: without a bound, 40 such levels would hold the thread for days before the
 * serialization even starts.
 */
const AS_IS_VALUES = 1 << 22

/** The values {@link carriedAsIs}'s current walk may still visit. */
let asIsValuesLeft = 0

/**
 * How many objects and arrays a serialization through {@link keepingAll}'s replacer writes at
 * most (a shared one once per reference, as JSON writes it); past it, it throws
 * {@link TooManyObjects}. Bounds the time a value of shared sub-objects holds the thread (what
 * is not shared is bounded by V8's longest string first).
 */
const MAX_OBJECTS = 1 << 22

/** The objects the current serialization through {@link keepingAll}'s replacer may still write. */
let objectsLeft = MAX_OBJECTS

/** Thrown by {@link keepingAll}'s replacer past {@link MAX_OBJECTS}. */
class TooManyObjects extends Error {
  constructor() {
    super(`its JSON would hold more than ${MAX_OBJECTS} objects and arrays (one shared by several references counts once per reference, as JSON writes it)`)
  }
}

/**
 * Whether JSON.stringify carries `value` as it is: only strings, booleans, finite numbers
 * (not -0), null and plain objects and arrays of them (an object's `undefined` keys left out
 * as JSON does; no `undefined` item in an array), at most {@link AS_IS_DEPTH} levels deep, no
 * toJSON anywhere. Then JSON.stringify gives the same text with and without
 * {@link keepingAll}'s replacer (nothing is lost, no number becomes null, nothing is replaced),
 * and the value reads back from its JSON the same (but for `undefined` keys); the replacer's walk costs about as much as
 * serializing the value again (a call out of JSON.stringify per key), this walk about a third
 * of that. False means "not sure" only: the caller serializes with the replacer, which names
 * what it refuses. Never throws: a getter or Proxy trap that throws answers false here and
 * throws again in that serialization. Linear in the value, and at most {@link AS_IS_VALUES}
 * values visited.
 */
export function carriedAsIs(value: unknown): boolean {
  asIsValuesLeft = AS_IS_VALUES
  try {
    return asIsAt(value, 0)
  } catch {
    return false
  }
}

/** {@link carriedAsIs} of `item`, `depth` levels down. */
function asIsAt(item: unknown, depth: number): boolean {
  if (--asIsValuesLeft < 0) return false
  switch (typeof item) {
    case 'string':
    case 'boolean':
    case 'undefined':
      return true
    case 'number':
      return Number.isFinite(item) && !Object.is(item, -0)
    case 'object':
      break
    default:
      return false
  }
  if (item === null) return true
  if (depth >= AS_IS_DEPTH || (item as { toJSON?: unknown }).toJSON !== undefined) return false
  const proto: unknown = Object.getPrototypeOf(item)
  if (proto === Array.prototype) {
    const array = item as unknown[]
    for (let i = 0; i < array.length; i++) {
      const element = array[i]
      if (element === undefined || !asIsAt(element, depth + 1)) return false
    }
    return true
  }
  if (proto !== Object.prototype && proto !== null && proto !== SNAPSHOT_PROTOTYPE) return false
  const keys = Object.keys(item)
  const record = item as Record<string, unknown>
  for (let i = 0; i < keys.length; i++) if (!asIsAt(record[keys[i]], depth + 1)) return false
  return true
}

/**
 * `JSON.stringify(value, replacer)` for a replacer that changes nothing in a value
 * {@link carriedAsIs} passes ({@link keepingAll}'s): plain JSON.stringify for such a value.
 */
export function stringifyChecked(value: unknown, replacer: Replacer): string | undefined {
  return carriedAsIs(value) ? JSON.stringify(value) : stringifyKeeping(value, replacer)
}

/**
 * `JSON.stringify(value, replacer)` for a replacer of {@link keepingAll}, its count of objects
 * ({@link MAX_OBJECTS}) started afresh.
 */
export function stringifyKeeping(value: unknown, replacer: Replacer): string | undefined {
  objectsLeft = MAX_OBJECTS
  return JSON.stringify(value, replacer)
}

/** The path (`$.a[0]`) of the first value {@link keepingAll} refuses in `value`; undefined when none. */
function lostPath(value: unknown, replacer: Replacer | undefined): string | undefined {
  return pathWhere(value, replacer, (item) => lostAs(item) !== undefined)
}

/** Whether JSON.stringify throws at `item` as a BigInt: a bigint, or a BigInt object (which it unboxes). */
function isBigInt(item: unknown): boolean {
  return typeof item === 'bigint' || (item !== null && typeof item === 'object' && holds(BigInt.prototype.valueOf, item))
}

/**
 * The path (`$.a[0]`) of the first value in `value`, as JSON.stringify meets them (toJSON, then
 * `replacer`), for which `test` holds; undefined when none. One walk, stopped at the value found.
 */
function pathWhere(value: unknown, replacer: Replacer | undefined, test: (item: unknown) => boolean): string | undefined {
  const parents = new Map<unknown, Edge>()
  let found: Edge | undefined
  try {
    JSON.stringify(value, function (this: unknown, key: string, item: unknown) {
      if (replacer !== undefined) item = replacer.call(this, key, item)
      if (test(item)) {
        found = [this, key]
        throw new LostValue('', '')
      }
      if (item !== null && typeof item === 'object' && !parents.has(item)) parents.set(item, [this, key])
      return item
    })
  } catch {
    // The walk stops at the value found (or at what stopped the first serialization).
  }
  return found === undefined ? undefined : pathText(parents, found)
}

/** One step of a path: `[3]` in an array, `.name` for a plain name, `["other key"]` (bounded) else. */
function segmentText(holder: unknown, key: string): string {
  if (Array.isArray(holder)) return `[${key}]`
  if (/^[A-Za-z_$][\w$]*$/.test(key) && key.length <= MAX_KEY_CHARS) return `.${key}`
  const shown = key.length > MAX_KEY_CHARS ? `${key.slice(0, MAX_KEY_CHARS)}…` : key
  return `[${JSON.stringify(shown)}]`
}

/** `String(value)`, or a description of the value when that throws; never throws itself. */
export function safeString(value: unknown): string {
  try {
    return String(value)
  } catch {
    try {
      return Object.prototype.toString.call(value)
    } catch {
      return `[${typeof value}]`
    }
  }
}

// The most of a value a thrown message quotes is the engine's bound (`MAX_QUOTED_BYTES`,
// generated from crates/toolwire-core/src/quote.rs), here counted in UTF-16 code units, so a
// misused option holding megabytes is named, not echoed.

/** `text` cut to {@link MAX_QUOTED_BYTES} code units (never inside a surrogate pair), saying how much was left out. */
function bounded(text: string): string {
  const max = MAX_QUOTED_BYTES
  if (text.length <= max) return text
  const code = text.charCodeAt(max - 1)
  const end = code >= 0xd800 && code <= 0xdbff ? max - 1 : max
  return `${text.slice(0, end)}... (${text.length - end} more characters not shown)`
}

export function describe(value: unknown): string {
  if (value === null) return 'null'
  if (value === undefined) return 'undefined'
  if (value === '') return 'an empty string'
  if (Array.isArray(value)) return 'an array'
  return typeof value === 'object' ? 'an object' : `${typeof value} ${bounded(safeString(value))}`
}

export { WIRES }

/**
 * `wire` when it is one of WIRES; otherwise throws a ToolwireError with `code`, prefixed by
 * `where`, in the engine's words: the name given, the wires there are, and the closest of them
 * (`unknown wire "openai": ...; did you mean "openai-chat"?`).
 */
export function checkWire(where: string, wire: unknown): Wire {
  // (a string among WIRES: a Wire)
  if (typeof wire === 'string' && (WIRES as readonly string[]).includes(wire)) return wire as Wire
  let message = `unknown wire ${describe(wire)}: expected one of ${WIRES.map((w) => `"${w}"`).join(', ')}`
  if (typeof wire === 'string') {
    try {
      native(() => (require('../native.js') as typeof Native).checkWire(wire))
    } catch (error) {
      if (error instanceof ToolwireError) message = error.message
      else throw error
    }
  }
  throw new ToolwireError('VALIDATION_ERROR', `${where}: ${message}`)
}

/**
 * An options object a key may belong to instead (see {@link checkOptionKeys}): its `keys`, `what`
 * a key of it is, and where to pass one (`use(key)`).
 */
export interface OptionHome {
  keys: readonly string[]
  what: string
  use: (key: string) => string
}

/**
 * Refuses a key of the options object `options` that is not in `known` (a typo such as
 * `concurrancy`, or `timeout` for `timeoutMs`, would otherwise be ignored): throws a
 * VALIDATION_ERROR in the engine's words, naming `where`, the key, the keys there are and the
 * closest of them. `options` may be undefined (no options). `elsewhere` lists the options objects
 * a key may belong to instead, as `{ keys, what, use }`: a key of one of them (`beforeToolCall`
 * given to the runtime) is refused saying `what` it is and where to pass it (`use(key)`).
 */
export function checkOptionKeys(where: string, options: unknown, known: readonly string[], elsewhere: readonly OptionHome[] = []): void {
  if (options === undefined || options === null || typeof options !== 'object') return
  for (const key of Object.keys(options)) {
    if (known.includes(key)) continue
    const home = elsewhere.find((other) => other.keys.includes(key))
    if (home !== undefined) {
      throw new ToolwireError('VALIDATION_ERROR', `${where} has unknown key ${JSON.stringify(key)}: it is ${home.what}: pass it to ${home.use(key)}`)
    }
    native(() => (require('../native.js') as typeof Native).checkOptionKeys(where, key, [...known]))
  }
}

// What toolwire reads of an object a user hands over (options and their sub-options, a tool, a
// call, a hook's or callback's answer, a tool's value) is what the object holds itself, never
// what it inherits from the prototypes every object shares: after a prototype pollution elsewhere
// in the process (a vulnerable deep merge of `{"__proto__": {"sanitize": ...}}` leaves
// `Object.prototype.sanitize` set), an option the caller left out stays left out, and no
// security setting (redaction, approvals, ownerOnly, a hook's block) changes (attack review
// finding 05). Checks and use read the same snapshot, so a getter answers once.

/** `Object.prototype.hasOwnProperty`, taken before any user code runs. */
const hasOwn = Object.prototype.hasOwnProperty

/**
 * A snapshot's class (see {@link ownOptions}): its prototype is an empty frozen object without a
 * prototype, so a key a snapshot does not hold reads `undefined` whatever `Object.prototype`
 * holds. (An object of `Object.create(null)` would do as well, but V8 keeps those as
 * dictionaries: reading a call's snapshot cost about 250 ns more per call.)
 */
function OwnSnapshot(): void {}
OwnSnapshot.prototype = Object.freeze(Object.create(null) as object)

/** The prototype of every snapshot: what {@link carriedAsIs} and JSON checks count as a plain object's. */
export const SNAPSHOT_PROTOTYPE: object = OwnSnapshot.prototype

/**
 * `value` as toolwire reads it: a copy of its own enumerable string keys (the keys `Object.keys`
 * lists, which checkOptionKeys checks, and JSON carries to the engine), each read once, whose
 * prototype chain holds nothing (see {@link SNAPSHOT_PROTOTYPE}). A key it does not hold is
 * absent from the copy, so reading it gives `undefined` whatever `Object.prototype` holds.
 * Anything that is not an object (undefined, null, a number) is returned as it is, for the
 * caller to refuse naming it.
 */
export function ownOptions<T>(value: T): T {
  if (value === null || typeof value !== 'object') return value
  const copy = new (OwnSnapshot as unknown as new () => Record<string, unknown>)()
  const keys = Object.keys(value)
  for (let i = 0; i < keys.length; i++) copy[keys[i]!] = (value as Record<string, unknown>)[keys[i]!]
  // (the same keys, each holding what the object held)
  return copy as T
}

/**
 * `value[key]` when `value` holds `key` itself (enumerable or not: a Zod schema's `_zod` is not),
 * else `undefined`, never a value inherited from a prototype. For one read of an object
 * toolwire takes no snapshot of (see {@link ownOptions}).
 */
export function own(value: object, key: PropertyKey): unknown {
  return hasOwn.call(value, key) ? (value as Record<PropertyKey, unknown>)[key] : undefined
}

/** Whether `value` is a plain object (its prototype `Object.prototype`, or none): its snapshot ({@link ownOptions}) serializes as it does. */
export function plainObject(value: unknown): value is object {
  if (value === null || typeof value !== 'object') return false
  const proto: unknown = Object.getPrototypeOf(value)
  return proto === Object.prototype || proto === null
}

/**
 * The options of a listener called once (`addEventListener(type, listener, ONCE)`): without a
 * prototype, so Node reads no `signal`, `capture` or `passive` a polluted Object.prototype holds
 * (a polluted `signal` would make it throw, or drop the listener).
 */
export const ONCE: AddEventListenerOptions = Object.freeze(Object.assign(Object.create(null) as AddEventListenerOptions, { once: true }))

/** The prototypes objects share (a pollution of one reaches every object of its kind). */
const SHARED_PROTOTYPES: ReadonlySet<unknown> = new Set([Object.prototype, Array.prototype, Function.prototype])

/**
 * `value[key]` held by the object itself or declared by its class (a prototype of its own: a
 * tool's `execute` method, an error class's `retryable`), never inherited from a prototype
 * objects share (`Object.prototype`, where a pollution lands). `undefined` when there is none.
 */
export function ownOrClass(value: object, key: string): unknown {
  for (let holder: object | null = value; holder !== null && !SHARED_PROTOTYPES.has(holder); holder = Object.getPrototypeOf(holder) as object | null) {
    if (hasOwn.call(holder, key)) return (value as Record<string, unknown>)[key]
  }
  return undefined
}

/** The keys of the policy context (dispatch, run, executePlan and definitions options carry them). */
export const CONTEXT_KEYS: string[] = ['provider', 'agentId', 'sender']
/** The keys of the options of `dispatch(calls, options)`. */
export const DISPATCH_OPTIONS: string[] = ['signal', 'timeoutMs', 'runId', 'groupId', 'userId', 'threadAncestors', 'approval', 'tools', 'audit', 'sanitize', 'limits', 'redaction', 'onEvent', 'beforeToolCall', 'afterToolCall', 'onPersist', ...CONTEXT_KEYS]
/** The keys of the options of `new ToolRuntime(options)`. */
export const RUNTIME_OPTIONS: string[] = ['concurrency', 'timeoutMs', 'coerce', 'sanitize', 'limits', 'redaction', 'policy', 'workspaceRoot', 'loopDetection', 'approvals', 'onEvent', 'audit']
/** Where a key of the other options object goes, for checkOptionKeys' error of one given to the wrong one. */
export const AS_DISPATCH_OPTION: OptionHome = { keys: DISPATCH_OPTIONS, what: 'a dispatch option', use: (key) => `dispatch(calls, { ${key} })` }
export const AS_RUNTIME_OPTION: OptionHome = { keys: RUNTIME_OPTIONS, what: 'a runtime option', use: (key) => `new ToolRuntime({ ${key} })` }
/** JSON text of `value` for the engine; a value with no JSON form is the caller's error. */
export function jsonText(where: string, value: unknown): string {
  let text: string | undefined
  try {
    text = JSON.stringify(value)
  } catch (error) {
    throw new ToolwireError('VALIDATION_ERROR', `${where} cannot be serialized to JSON: ${serializeFailure(error, value)}`)
  }
  if (text === undefined) throw new ToolwireError('VALIDATION_ERROR', `${where} has no JSON form (got ${describe(value)})`)
  return text
}

/**
 * Registers `tools` on `runtime` all or none: when one is refused, those registered before it are
 * unregistered again and the error is thrown. Returns the names registered.
 */
export function registerAll<T extends { name: string }>(runtime: { register(tool: T): void; unregister(name: string): unknown }, tools: Iterable<T>): string[] {
  const registered: string[] = []
  try {
    for (const tool of tools) {
      runtime.register(tool)
      registered.push(tool.name)
    }
  } catch (error) {
    for (const name of registered) runtime.unregister(name)
    throw error
  }
  return registered
}

/**
 * The primitive JSON.stringify writes for a boxed primitive (`new Number(x)`, `new String(s)`,
 * `new Boolean(b)`, `Object(1n)`) as it does (ToNumber / ToString through valueOf or toString,
 * the boolean or bigint held); `item` itself when it is none. Boxes are known by their internal
 * slot, as JSON.stringify knows them (not by instanceof or Symbol.toStringTag, which a value can
 * fake or another realm breaks).
 */
function unboxed(item: unknown): unknown {
  if (item === null || typeof item !== 'object') return item
  if (holds(Number.prototype.valueOf, item)) return +item
  if (holds(String.prototype.valueOf, item)) return `${item}`
  if (holds(Boolean.prototype.valueOf, item)) return Boolean.prototype.valueOf.call(item)
  if (holds(BigInt.prototype.valueOf, item)) return BigInt.prototype.valueOf.call(item)
  return item
}

/** Whether `valueOf` (a prototype's own) accepts `item`, so `item` has that box's internal slot. */
function holds(valueOf: () => unknown, item: unknown): boolean {
  try {
    valueOf.call(item)
    return true
  } catch {
    return false
  }
}

/**
 * `[pointer, number]`: the JSON pointer and the text of the first number JSON cannot carry
 * (Infinity, -Infinity, NaN) in `value` as JSON.stringify reads it (after toJSON, a boxed number
 * such as `new Number(Infinity)` unboxed), which writes such a number as null silently; undefined
 * when there is none. `text` is the JSON text already made of `value`: only when it holds a null
 * is the value walked again, and then first by {@link carriedAsIs} (a plain value holds none).
 * Linear in the value.
 */
export function nonFiniteNumber(value: unknown, text: string): [pointer: string, number: string] | undefined {
  if (!text.includes('null') || carriedAsIs(value)) return undefined
  const pointers = new Map<unknown, string>()
  let found: [pointer: string, number: string] | undefined
  JSON.stringify(value, function (this: unknown, key: string, raw: unknown) {
    if (found !== undefined) return undefined
    const holder = pointers.get(this)
    const pointer = holder === undefined ? '' : `${holder}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`
    const item = unboxed(raw)
    if (typeof item === 'number' && !Number.isFinite(item)) {
      found = [pointer, String(item)]
      return undefined
    }
    if (item !== null && typeof item === 'object') pointers.set(item, pointer)
    return item
  })
  return found
}

/**
 * Marks an error toolwire itself throws for a remote tool whose result was refused over a limit on
 * its way (rap.ts): the call ends LIMIT_EXCEEDED, not as the tool's throw. A symbol no user
 * error carries.
 */
export const OVER_LIMIT_MARK = Symbol('toolwire.overLimit')

/** A string with ES2024's `isWellFormed` and `toWellFormed` (Node 20 has them; the compiled library is ES2022). */
interface CheckedString {
  isWellFormed(): boolean
  toWellFormed(): string
}

/** Whether `text` holds no lone surrogate. */
export function isWellFormed(text: string): boolean {
  return (text as unknown as CheckedString).isWellFormed()
}

/**
 * `text` with each lone surrogate replaced by U+FFFD, as the engine receives every text (N-API
 * converts it so): what JavaScript parses of a text the engine also reads must be that text.
 */
export function wellFormed(text: string): string {
  return isWellFormed(text) ? text : (text as unknown as CheckedString).toWellFormed()
}
