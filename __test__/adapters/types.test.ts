// Strict type checks of the adapters' declarations against the real packages' types (tsc runs
// this file through tsconfig.json; Vitest runs the few runtime lines).
import type { ToolMessage } from '@langchain/core/messages'
import type { DynamicStructuredTool } from '@langchain/core/tools'
import { MessagesAnnotation, StateGraph } from '@langchain/langgraph'
import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import type { Tool, ToolSet } from 'ai'
import { describe, expect, expectTypeOf, it } from 'vitest'

import { ToolRuntime, type ToolResult } from 'toolwire'
import { aiSdkModelOutput, toAiSdkTools, type AiSdkModelOutput, type ToolUpdateEvent } from 'toolwire/ai-sdk'
import { createToolNode, toLangChainTools } from 'toolwire/langchain'
import { addMcpServer, serveMcp, type AddMcpServerOptions, type McpClientV2 } from 'toolwire/mcp'

describe('adapter types', () => {
  it('langchain: DynamicStructuredTools, and a node StateGraph accepts', () => {
    expectTypeOf(toLangChainTools).returns.toEqualTypeOf<DynamicStructuredTool[]>()
    const runtime = new ToolRuntime()
    const node = createToolNode(runtime)
    expectTypeOf(node).toBeCallableWith({ messages: [] })
    // Type level only (never called): each input form has its own result type.
    const typeOnly = () => {
      expectTypeOf(node({ messages: [] })).resolves.toEqualTypeOf<{ messages: ToolMessage[] }>()
      expectTypeOf(node([])).resolves.toEqualTypeOf<ToolMessage[]>()
    }
    expect(typeof typeOnly).toBe('function')
    const graph = new StateGraph(MessagesAnnotation).addNode('tools', node)
    expect(graph).toBeDefined()
  })

  it('ai-sdk: a ToolSet of Tool<unknown, ToolResult>', () => {
    const tools = toAiSdkTools(new ToolRuntime())
    expectTypeOf(tools).toMatchTypeOf<ToolSet>()
    expectTypeOf(tools).toEqualTypeOf<Record<string, Tool<unknown, ToolResult>>>()
    expectTypeOf(aiSdkModelOutput).returns.toEqualTypeOf<AiSdkModelOutput>()
    expectTypeOf<AiSdkModelOutput>().not.toBeAny()
    // With preliminary results, the tools' output is also the update events streamed before the result.
    const streaming = toAiSdkTools(new ToolRuntime(), { preliminaryResults: true })
    expectTypeOf(streaming).toEqualTypeOf<Record<string, Tool<unknown, ToolResult | ToolUpdateEvent>>>()
    expectTypeOf(streaming).toMatchTypeOf<ToolSet>()
    expectTypeOf(toAiSdkTools(new ToolRuntime(), { preliminaryResults: false })).toEqualTypeOf<Record<string, Tool<unknown, ToolResult>>>()
  })

  it('mcp: takes the SDK Client, returns the SDK McpServer', () => {
    expectTypeOf(addMcpServer).parameter(1).toEqualTypeOf<Client | McpClientV2>()
    expectTypeOf(addMcpServer).parameter(2).toEqualTypeOf<AddMcpServerOptions | undefined>()
    expectTypeOf(addMcpServer).returns.toEqualTypeOf<Promise<string[]>>()
    const made = serveMcp(new ToolRuntime())
    expectTypeOf(made).toEqualTypeOf<McpServer>()
    expect(made).toBeInstanceOf(McpServer)
    // (options.server: the server handed in, of its own type)
    const own = new McpServer({ name: 'own', version: '1.0.0' })
    const given = serveMcp(new ToolRuntime(), { server: own })
    expectTypeOf(given).toEqualTypeOf<McpServer>()
    expect(given).toBe(own)
  })
})
