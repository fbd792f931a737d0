// Typed tools: `defineTool` (and the generic `register`) give `execute` the type of the arguments
// its `parameters` schema describes (a Zod 4 or Zod 3 schema, a TypeBox schema, or a JSON Schema
// literal, read as written) and check what it returns. Types only, besides `defineTool` itself:
// at run time the schema is converted and checked by the engine as for any tool.

import type { AgentToolResult, AgentToolUpdateCallback, ToolDefinition, ToolReturn } from './types.js'

/**
 * The arguments a `parameters` schema describes, as the tool receives them:
 * - a Zod 4 schema: its input type (`z.input`): toolwire checks the JSON arguments against the
 *   schema's JSON Schema and never runs Zod's transforms or fills its defaults;
 * - a Zod 3 schema: its input type too;
 * - a TypeBox 0.3x schema: its `Static` type;
 * - a TypeBox 1.x schema or a JSON Schema literal (`as const`): read from the schema's own shape
 *   ({@link FromJsonSchema});
 * - no schema, or one whose type TypeScript only knows loosely (a JSON Schema built at run time,
 *   typed `object`): `any`, as for an untyped tool (an annotation of `params` is taken as given).
 */
// oxlint-disable-next-line typescript/no-explicit-any
export type InferParameters<S> = [S] extends [undefined] ? any : SchemaType<S, 'input', any>

/**
 * What an `outputSchema` describes: the output side of a Zod schema (`z.output`), a TypeBox
 * `Static`, or a JSON Schema literal read as {@link InferParameters} reads one.
 */
export type InferOutput<S> = SchemaType<S, 'output', unknown>

/**
 * The type schema `S` describes on `side` (Zod's input or output; the others have one side), or
 * `Unreadable` for a schema typed too loosely to read.
 */
type SchemaType<S, Side extends 'input' | 'output', Unreadable> = 0 extends 1 & S
  ? Unreadable
  : S extends { _zod: { [K in Side]: infer T } }
    ? T
    : S extends { _def: object } & { [K in `_${Side}`]: infer T }
      ? T
      : S extends { static: infer T }
        ? T
        : Loose<S> extends true
          ? Unreadable
          : FromJsonSchema<S>

/** Whether schema `S` is typed too loosely to read (its `type` a plain string, or no known key). */
type Loose<S> = S extends { type: infer T }
  ? string extends T
    ? true
    : false
  : S extends { properties: object } | { anyOf: unknown } | { oneOf: unknown } | { allOf: unknown } | { const: unknown } | { enum: unknown } | { items: unknown }
    ? false
    : true

/** How deep {@link FromJsonSchema} reads a schema before it answers `unknown`. */
type Deep = [unknown, unknown, unknown, unknown, unknown, unknown, unknown, unknown, unknown, unknown]

/**
 * The TypeScript type of the JSON values a JSON Schema literal accepts: `const`, `enum`, `anyOf`,
 * `oneOf`, `allOf`, `type` (one name or a list), `nullable`, arrays by `items` (tuples by
 * `prefixItems` or an `items` list), objects by `properties`, `required` and
 * `additionalProperties` (extra keys are typed only when `additionalProperties` allows them
 * explicitly, so a misspelled parameter is an error). Anything it cannot read (`$ref`, `not`)
 * is `unknown`; past ten levels, too.
 */
export type FromJsonSchema<S, Depth extends unknown[] = []> = Depth['length'] extends Deep['length']
  ? unknown
  : S extends boolean
    ? S extends false
      ? never
      : unknown
    : Nullable<S, Unwrapped<S, [...Depth, unknown]>>

/** `T`, or `T | null` for an OpenAPI-style `nullable: true`. */
type Nullable<S, T> = S extends { nullable: true } ? T | null : T

/** {@link FromJsonSchema} of one schema object, by the first keyword that decides its type. */
type Unwrapped<S, Depth extends unknown[]> = S extends { const: infer C }
  ? C
  : S extends { enum: readonly (infer E)[] }
    ? E
    : S extends { anyOf: readonly unknown[] }
      ? Each<S['anyOf'], Depth>
      : S extends { oneOf: readonly unknown[] }
        ? Each<S['oneOf'], Depth>
        : S extends { allOf: readonly unknown[] }
          ? All<S['allOf'], Depth>
          : S extends { type: infer T }
            ? OfType<S, T, Depth>
            : S extends { properties: object }
              ? OfType<S, 'object', Depth>
              : unknown

/** The union of what each of `list`'s schemas accepts. */
type Each<List, Depth extends unknown[]> = List extends readonly [infer Head, ...infer Tail] ? FromJsonSchema<Head, Depth> | Each<Tail, Depth> : never

/** The intersection of what each of `list`'s schemas accepts. */
type All<List, Depth extends unknown[]> = List extends readonly [infer Head, ...infer Tail] ? FromJsonSchema<Head, Depth> & All<Tail, Depth> : unknown

/** What a schema of JSON type (or list of types) `T` accepts. */
type OfType<S, T, Depth extends unknown[]> = T extends readonly (infer Name)[] ? OfName<S, Name, Depth> : OfName<S, T, Depth>

/** What a schema of the JSON type named `Name` accepts. */
type OfName<S, Name, Depth extends unknown[]> = Name extends 'string'
  ? string
  : Name extends 'number' | 'integer'
    ? number
    : Name extends 'boolean'
      ? boolean
      : Name extends 'null'
        ? null
        : Name extends 'array'
          ? OfArray<S, Depth>
          : Name extends 'object'
            ? OfObject<S, Depth>
            : never

/** An array schema's values: a tuple for `prefixItems` or an `items` list, else by `items`. */
type OfArray<S, Depth extends unknown[]> = S extends { prefixItems: readonly unknown[] }
  ? Tuple<S['prefixItems'], Depth>
  : S extends { items: infer I }
    ? I extends readonly unknown[]
      ? Tuple<I, Depth>
      : FromJsonSchema<I, Depth>[]
    : unknown[]

/** A tuple of what each schema of `List` accepts, in order. */
type Tuple<List, Depth extends unknown[]> = List extends readonly [infer Head, ...infer Tail] ? [FromJsonSchema<Head, Depth>, ...Tuple<Tail, Depth>] : []

/** The names `required` lists. */
type RequiredOf<S> = S extends { required: readonly (infer K)[] } ? K & string : never

/**
 * An object schema's values: its properties, those it requires not optional, and the extra keys
 * `additionalProperties` allows (none unless it says so; `false` alone is the empty object).
 */
type OfObject<S, Depth extends unknown[]> = S extends { properties: infer P }
  ? Flat<
      { -readonly [K in keyof P as K extends RequiredOf<S> ? K : never]: FromJsonSchema<P[K], Depth> } & {
        -readonly [K in keyof P as K extends RequiredOf<S> ? never : K]?: FromJsonSchema<P[K], Depth>
      } & Extra<S, Depth>
    >
  : S extends { additionalProperties: false }
    ? Record<string, never>
    : S extends { additionalProperties: object | true }
      ? Extra<S, Depth>
      : Record<string, unknown>

/** The keys besides `properties` an object schema types: only when `additionalProperties` allows them. */
type Extra<S, Depth extends unknown[]> = S extends { additionalProperties: true }
  ? { [key: string]: unknown }
  : S extends { additionalProperties: infer A }
    ? A extends false
      ? {}
      : { [key: string]: FromJsonSchema<A, Depth> }
    : {}

/** An intersection of object types as one object type (what editors show). */
type Flat<T> = { [K in keyof T]: T[K] } & {}

/**
 * A tool whose `execute` is typed by its schemas: its `params` by `parameters`
 * ({@link InferParameters}), its `details` (or returned value) by `outputSchema` when given
 * ({@link InferOutput}). Everything else is a {@link ToolDefinition}'s.
 */
export interface TypedTool<S = undefined, O = undefined>
  extends Omit<ToolDefinition, 'parameters' | 'outputSchema' | 'execute' | 'concurrencyKey'> {
  /** The arguments' schema: Zod 4 or 3, TypeBox, or JSON Schema (`as const` to be read by TypeScript). */
  parameters?: S
  /** The schema `details` (or the returned value) must match. */
  outputSchema?: O
  /** Calls whose keys are equal never overlap and run in source order (e.g. the file path). */
  concurrencyKey?: (params: InferParameters<S>) => string | null | undefined
  /**
   * Runs a call with its arguments (typed by `parameters`). A function property, not a method, so
   * that its `params` are checked strictly: an annotation the schema contradicts (a required
   * parameter typed optional's opposite, a string typed number) fails `tsc`.
   */
  execute: (toolCallId: string, params: InferParameters<S>, signal?: AbortSignal, onUpdate?: AgentToolUpdateCallback) => Returned<O> | Promise<Returned<O>>
}

/**
 * What `execute` returns for output schema `O`: any {@link ToolReturn}, or a result whose details
 * (or a value) match `O`. A union whose first member is a result, whatever `O` is, so that
 * `content: [{ type: 'text' }]` keeps its literal while `O` is still being inferred.
 */
type Returned<O> = AgentToolResult<[O] extends [undefined] ? unknown : InferOutput<O>> | ([O] extends [undefined] ? Exclude<ToolReturn, AgentToolResult> : InferOutput<O>)

/**
 * A tool, typed: `execute`'s `params` are what `parameters` describes and what it returns is
 * checked (see {@link TypedTool}). Returns `tool` itself, to register with `runtime.register` (a
 * list of them one by one, whatever their schemas) or `registerPlugin`, or to hand to an adapter.
 *
 * ```ts
 * const readFile = defineTool({
 *   name: 'read_file',
 *   parameters: z.object({ path: z.string(), limit: z.number().optional() }),
 *   execute: async (_id, { path, limit }) => (await fs.readFile(path, 'utf8')).slice(0, limit),
 * })
 * ```
 */
export function defineTool<const S = undefined, const O = undefined>(tool: TypedTool<S, O>): DefinedTool<S, O> {
  return tool as DefinedTool<S, O>
}

/** The mark {@link defineTool} gives its tools' type (only their type: nothing is added to the object). */
declare const definedByDefineTool: unique symbol

/** A tool {@link defineTool} returned: its schemas' types, and the mark of being checked by it. */
export type DefinedTool<S = undefined, O = undefined> = TypedTool<S, O> & { readonly [definedByDefineTool]: true }

/**
 * The second form of `register`: a tool {@link defineTool} returned (and so checked), of whatever
 * schema, so that a list of tools of different schemas registers one by one
 * (`for (const tool of tools) runtime.register(tool)`). A tool written in place has no mark and is
 * typed by the first form.
 */
// oxlint-disable-next-line typescript/no-explicit-any
export type AnyTypedTool = DefinedTool<any, any>
