// The adapters as an ESM user writes them (module nodenext, a .mts file), each with its library,
// type-checked by tsconfig.strict.json: `import` resolves toolwire/langchain to its ESM
// declarations, whose @langchain/core types are those LangGraph's ESM types expect (before the
// ESM entries, `new ToolNode(toLangChainTools(runtime))` failed with TS2345: two
// CallbackManagerForToolRun types, the CommonJS one and the ESM one). Its graph is the README's
// (langgraph.ts, which compiles as CommonJS) under ESM. adapters.cts is its CommonJS twin.
import { AIMessage, type BaseMessage } from '@langchain/core/messages'
import { RunnableLambda } from '@langchain/core/runnables'
import { DynamicStructuredTool, StructuredTool } from '@langchain/core/tools'
import { END, MessagesAnnotation, START, StateGraph } from '@langchain/langgraph'
import { ToolNode } from '@langchain/langgraph/prebuilt'
import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { streamText, type LanguageModel, type ToolSet } from 'ai'

import { ToolRuntime, type ToolResult } from 'toolwire'
import { toAiSdkTools, type ToolUpdateEvent } from 'toolwire/ai-sdk'
import { createToolNode, toLangChainTools, type ToolwireToolNode } from 'toolwire/langchain'
import { addMcpServer, serveMcp } from 'toolwire/mcp'

/** LangChain tools in LangGraph's prebuilt ToolNode, and toolwire's node in a graph and a chain. */
export function langGraph(runtime: ToolRuntime, model: (messages: BaseMessage[]) => Promise<AIMessage>) {
  const tools = toLangChainTools(runtime)
  const first: StructuredTool | undefined = tools[0]
  const dynamic: DynamicStructuredTool[] = tools
  const prebuilt = new ToolNode(toLangChainTools(runtime))
  const node: ToolwireToolNode = createToolNode(runtime)
  const graph = new StateGraph(MessagesAnnotation)
    .addNode('model', async (s: typeof MessagesAnnotation.State) => ({ messages: [await model(s.messages)] }))
    .addNode('tools', node)
    .addEdge(START, 'model')
    .addConditionalEdges('model', (s) => {
      const last = s.messages.at(-1)
      return last !== undefined && AIMessage.isInstance(last) && last.tool_calls?.length ? 'tools' : END
    }, ['tools', END])
    .addEdge('tools', 'model')
    .compile()
  const chain = RunnableLambda.from((message: AIMessage) => ({ messages: [message] })).pipe(node)
  return { first, dynamic, prebuilt, graph, chain }
}

/** The AI SDK's tools, with and without preliminary results. */
export function aiSdk(runtime: ToolRuntime, model: LanguageModel) {
  const plain: ToolSet = toAiSdkTools(runtime)
  const streaming = toAiSdkTools(runtime, { preliminaryResults: true })
  const result = streamText({ model, tools: streaming, prompt: 'go' })
  const outputs = async () => {
    const seen: (ToolResult | ToolUpdateEvent)[] = []
    for await (const part of result.fullStream) if (part.type === 'tool-result') seen.push(part.output as ToolResult | ToolUpdateEvent)
    return seen
  }
  return { plain, outputs }
}

/** The MCP SDK's Client and McpServer of the ESM build. */
export async function mcp(runtime: ToolRuntime, client: Client): Promise<McpServer> {
  await addMcpServer(runtime, client)
  return serveMcp(runtime)
}
