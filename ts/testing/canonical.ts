// Requests compared as values: canonical JSON (keys sorted, no whitespace) and its SHA-256, the
// likeness of two requests, and the first JSON path where they differ.

import { createHash } from 'node:crypto'

import { jsonText } from '../common.js'

/** A JSON value as JSON.parse makes it. */
type Json = null | boolean | number | string | Json[] | { [key: string]: Json }

/** `value` as a plain JSON value (what its JSON text holds), in `where`'s words when it has no JSON form. */
export function jsonValue(where: string, value: unknown): Json {
  return JSON.parse(jsonText(where, value)) as Json
}

/** Whether `value` is a JSON object (not an array, not null). */
function isObject(value: Json | undefined): value is { [key: string]: Json } {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
}

/**
 * The canonical JSON text of `value`: object keys sorted (by UTF-16 code units), no whitespace,
 * strings and numbers as JSON.stringify writes them. Two values that differ only in key order
 * have one text.
 */
export function canonicalJson(value: Json): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`
  if (isObject(value)) return `{${Object.keys(value).sort().map((key) => `${JSON.stringify(key)}:${canonicalJson(value[key]!)}`).join(',')}}`
  return JSON.stringify(value)
}

/** The SHA-256 of `value`'s canonical JSON, as 64 lowercase hex digits. */
export function canonicalHash(value: Json): string {
  return createHash('sha256').update(canonicalJson(value)).digest('hex')
}

/** `value` with its objects' keys in canonical order (for writing it readably). */
export function sortedKeys(value: Json): Json {
  if (Array.isArray(value)) return value.map(sortedKeys)
  if (isObject(value)) return Object.fromEntries(Object.keys(value).sort().map((key) => [key, sortedKeys(value[key]!)]))
  return value
}

/** One step of a path: `[3]` in an array, `.name` for a plain name, `["other key"]` else. */
function step(key: string | number): string {
  if (typeof key === 'number') return `[${key}]`
  return /^[A-Za-z_$][\w$]*$/.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`
}

/** Each leaf of `value` as `path=json` (an empty object or array is a leaf), counted. */
function leaves(value: Json, path: string, into: Map<string, number>): Map<string, number> {
  const children: [string | number, Json][] = Array.isArray(value) ? value.map((item, i) => [i, item]) : isObject(value) ? Object.entries(value) : []
  if (children.length === 0) {
    const leaf = `${path}=${canonicalJson(value)}`
    into.set(leaf, (into.get(leaf) ?? 0) + 1)
  }
  for (const [key, child] of children) leaves(child, path + step(key), into)
  return into
}

/**
 * How alike two values are, from 0 (nothing shared) to 1 (equal): the share of their leaves
 * (each a path and the value there) that both hold, of all their leaves.
 */
export function likeness(a: Json, b: Json): number {
  const left = leaves(a, '$', new Map())
  const right = leaves(b, '$', new Map())
  let shared = 0
  let all = 0
  for (const [leaf, count] of left) {
    const other = right.get(leaf) ?? 0
    shared += Math.min(count, other)
    all += Math.max(count, other)
  }
  for (const [leaf, count] of right) if (!left.has(leaf)) all += count
  return all === 0 ? 1 : shared / all
}

/** Where two values first differ: the path, and what each holds there (undefined: nothing). */
export interface Difference {
  path: string
  left: Json | undefined
  right: Json | undefined
}

/**
 * The first JSON path (`$.messages[2].content`) at which `a` and `b` differ, walking both in
 * canonical order (keys sorted, items by index), with what each holds there; undefined when
 * they are equal.
 */
export function firstDifference(a: Json | undefined, b: Json | undefined, path = '$'): Difference | undefined {
  if (Array.isArray(a) && Array.isArray(b)) {
    for (let i = 0; i < Math.max(a.length, b.length); i++) {
      const found = firstDifference(a[i], b[i], path + step(i))
      if (found !== undefined) return found
    }
    return undefined
  }
  if (isObject(a) && isObject(b)) {
    for (const key of [...new Set([...Object.keys(a), ...Object.keys(b)])].sort()) {
      const found = firstDifference(a[key], b[key], path + step(key))
      if (found !== undefined) return found
    }
    return undefined
  }
  if (a !== undefined && b !== undefined && canonicalJson(a) === canonicalJson(b)) return undefined
  return { path, left: a, right: b }
}
