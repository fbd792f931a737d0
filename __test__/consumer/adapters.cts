// The adapters as a CommonJS user writes them (module nodenext, a .cts file): `require` resolves
// each adapter to its CommonJS declarations, whose library types are those the library's own
// CommonJS declarations give (LangGraph's ToolNode and RunnableLambda here; langgraph.ts, also
// CommonJS, has toolwire's node in a StateGraph). Type-checked by tsconfig.strict.json;
// adapters.mts is its ESM twin.
import type { AIMessage, BaseMessage } from '@langchain/core/messages'
import { RunnableLambda } from '@langchain/core/runnables'
import type { DynamicStructuredTool } from '@langchain/core/tools'
import { ToolNode } from '@langchain/langgraph/prebuilt'
import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { generateText, type LanguageModel, type ToolSet } from 'ai'

import { ToolRuntime } from 'toolwire'
import aiSdk = require('toolwire/ai-sdk')
import langchain = require('toolwire/langchain')
import mcpAdapter = require('toolwire/mcp')

/** LangChain tools in LangGraph's prebuilt ToolNode, and toolwire's node in a chain. */
export function langGraph(runtime: ToolRuntime, model: (messages: BaseMessage[]) => Promise<AIMessage>) {
  const tools: DynamicStructuredTool[] = langchain.toLangChainTools(runtime)
  const prebuilt = new ToolNode(tools)
  const node: langchain.ToolwireToolNode = langchain.createToolNode(runtime)
  const chain = RunnableLambda.from(async (messages: BaseMessage[]) => ({ messages: [...messages, await model(messages)] })).pipe(node)
  return { prebuilt, chain }
}

/** The AI SDK's tools, with preliminary results typed as the runtime's update events. */
export async function aiSdkRun(runtime: ToolRuntime, model: LanguageModel) {
  const tools: ToolSet = aiSdk.toAiSdkTools(runtime, { preliminaryResults: true })
  const result = await generateText({ model, tools, prompt: 'go' })
  const update: aiSdk.ToolUpdateEvent = { type: 'tool_execution_update', toolCallId: 'c', toolName: 't', partialResult: null }
  return { text: result.text, update }
}

/** The MCP adapter from CommonJS. */
export async function mcp(runtime: ToolRuntime, client: Client): Promise<McpServer> {
  await mcpAdapter.addMcpServer(runtime, client)
  return mcpAdapter.serveMcp(runtime)
}
