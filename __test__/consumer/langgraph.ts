// The README's LangGraph snippet, type-checked under strict nodenext by tsconfig.strict.json.
// Seen in the r10 user review (#6, 4-langgraph): `s.messages.at(-1).tool_calls` failed strict
// (TS2532: possibly undefined; TS2339: tool_calls is not on BaseMessage).
import { END, MessagesAnnotation, START, StateGraph } from '@langchain/langgraph'
import { AIMessage } from '@langchain/core/messages'
import { ChatOpenAI } from '@langchain/openai'

import { ToolRuntime } from 'toolwire'
import { createToolNode, toLangChainTools } from 'toolwire/langchain'

/** The README's graph: the model node, then the runtime's tool node while the model asks for tools. */
export function readmeGraph(runtime: ToolRuntime) {
  // --- README: toolwire/langchain ---
  const model = new ChatOpenAI({ model: 'gpt-4o-mini' }).bindTools(toLangChainTools(runtime))
  const callModel = async (s: typeof MessagesAnnotation.State) => ({ messages: [await model.invoke(s.messages)] })
  const graph = new StateGraph(MessagesAnnotation)
    .addNode('model', callModel)
    .addNode('tools', createToolNode(runtime))
    .addEdge(START, 'model')
    .addConditionalEdges('model', (s) => {
      const last = s.messages.at(-1)
      return last !== undefined && AIMessage.isInstance(last) && last.tool_calls?.length ? 'tools' : END
    }, ['tools', END])
    .addEdge('tools', 'model')
    .compile()
  // --- end ---
  return graph
}
