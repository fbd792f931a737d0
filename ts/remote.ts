// What a RAP tool server sent, as the transport hands it over (a leaf: the generated RAP message
// layouts name these, and the package's public declarations reach them).

/** A tool of a loaded toolset, as the transport reports it. */
export interface RemoteToolDef {
  name: string
  description: string
  /** JSON Schema of the arguments */
  parameters: object
}

/** One item of a RAP `tool_result`'s `content`. */
export type RapContentItem = RapTextItem | { type: 'image'; data: string; mediaType: string }

/** A text item of a RAP `tool_result`'s `content`. */
export interface RapTextItem {
  type: 'text'
  text: string
}

/** A RAP `tool_result` as the tool server sent it (the parts read here). */
export interface RapToolResult {
  text?: string
  content?: RapContentItem[]
  display_as?: unknown[]
  subscription?: boolean
}
