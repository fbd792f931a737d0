// Results as LangChain reads them: a ToolResult's content as message content, and the ToolMessage
// answering a tool call.

import type * as Messages from '@langchain/core/messages'
import type { MessageContent, ToolMessage } from '@langchain/core/messages'

import type { ContentBlock, ToolResult } from '../types.js'
import { markedErrorContent } from './common.js'

/** A result's content as LangChain message content: one text block as a string, else standard blocks. */
export function langChainContent(content: ContentBlock[]): MessageContent {
  if (content.length === 1 && content[0].type === 'text') return content[0].text
  return content.map((block) =>
    block.type === 'image' ? { type: 'image', data: block.data, mimeType: block.mimeType } : { type: 'text', text: block.text },
  )
}

/**
 * The ToolMessage of a result: its content, `status` success or error, the ToolResult as
 * `artifact`. A failed result's text opens with `Error: ` (as encodeResults writes it, and as
 * LangChain's own ToolNode writes a tool's error): LangChain's OpenAI and Mistral converters send
 * the content without the status.
 */
export function toolMessageOf(ToolMessageClass: typeof Messages.ToolMessage, result: ToolResult, toolCallId: string): ToolMessage {
  return new ToolMessageClass({
    content: langChainContent(result.ok ? result.content : markedErrorContent(result.content)),
    tool_call_id: toolCallId,
    name: result.tool,
    status: result.ok ? 'success' : 'error',
    artifact: result,
  })
}
