// A LangChain chat model that answers with scripted messages: the model node of a real LangGraph
// graph without a provider, written as LangGraph users write it (bindTools, invoke).
import { BaseChatModel, type BindToolsInput } from '@langchain/core/language_models/chat_models'
import type { AIMessageChunk, BaseMessage } from '@langchain/core/messages'
import type { ChatResult } from '@langchain/core/outputs'

/** Answers the n-th call with the n-th scripted message; records the tools bound and what each call received. */
export class ScriptedChatModel extends BaseChatModel {
  /** The messages of each call, in order. */
  readonly received: BaseMessage[][] = []
  /** The names of the tools `bindTools` was given. */
  boundTools: string[] = []
  readonly #turns: AIMessageChunk[]

  constructor(turns: AIMessageChunk[]) {
    super({})
    this.#turns = turns
  }

  _llmType(): string {
    return 'scripted'
  }

  override bindTools(tools: BindToolsInput[]) {
    this.boundTools = tools.map((tool) => (tool as { name: string }).name)
    return this
  }

  async _generate(messages: BaseMessage[]): Promise<ChatResult> {
    this.received.push(messages)
    const message = this.#turns[this.received.length - 1]
    if (message === undefined) throw new Error(`ScriptedChatModel: call ${this.received.length} has no scripted answer (${this.#turns.length} scripted)`)
    return { generations: [{ text: typeof message.content === 'string' ? message.content : '', message }] }
  }
}
