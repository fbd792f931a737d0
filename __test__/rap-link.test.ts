// RapLink (lib/rap.js) on a stand-in transport: the messages a crossing from Rust carries, in the
// orders the real transport can deliver them, and what the link then tracks. Message shapes: the
// generated RapEngineMessage (toolwire_core::rap_message) and toolwire_rap::RapEvent::to_json.
import { describe, expect, it } from 'vitest'

import { RapMessage, type RapEngineMessage, type RapEventMessage } from '../dist/protocol.generated.js'
import { RapLink, toolsetOptions } from '../dist/rap.js'

type Deliver = (text: string) => void

/** A stand-in for NativeRap: records each method called (with its arguments) and delivers crossings. */
class FakeRap {
  readonly calls: [string, ...unknown[]][] = []
  readonly #deliver: Deliver

  constructor(_server: string, deliver: Deliver) {
    this.#deliver = deliver
  }

  load(...args: unknown[]) { this.calls.push(['load', ...args]) }
  invoke(...args: unknown[]) { this.calls.push(['invoke', ...args]) }
  abort(...args: unknown[]) { this.calls.push(['abort', ...args]) }
  closeThread(...args: unknown[]) { this.calls.push(['closeThread', ...args]) }
  answerUserChoice(...args: unknown[]) { this.calls.push(['answerUserChoice', ...args]) }
  cancelSubscription(...args: unknown[]) { this.calls.push(['cancelSubscription', ...args]); return true }
  unload(...args: unknown[]) { this.calls.push(['unload', ...args]) }
  unloadTool(...args: unknown[]) { this.calls.push(['unloadTool', ...args]) }

  /** The ticket of the last `method` call (tickets come first). */
  ticket(method: string): number {
    const found = this.calls.filter(([name]) => name === method).at(-1)
    if (found === undefined) throw new Error(`no ${method} call`)
    return found[1] as number
  }

  /** One crossing: these messages, in this order. */
  send(...messages: RapEngineMessage[]) {
    this.#deliver(JSON.stringify(messages))
  }
}

/** A link on a FakeRap with a toolset loaded; `events`: what it emitted. */
async function started() {
  let fake: FakeRap | undefined
  const events: unknown[] = []
  const link = new RapLink(
    (event: unknown) => events.push(event),
    class extends FakeRap {
      constructor(server: string, deliver: Deliver) {
        super(server, deliver)
        fake = this
      }
    },
  )
  const loading = link.load('http://tools.test', toolsetOptions({}))
  fake!.send([RapMessage.LOADED, fake!.ticket('load'), 'test', []])
  await loading
  return { link, fake: fake!, events }
}

const result = (ticket: number, result: object, error = false): RapEngineMessage => [RapMessage.RESULT, ticket, error, result]
const event = (groupId: string, callId: string, text: string, final?: boolean): RapEventMessage => [
  RapMessage.EVENT,
  {
    type: 'rap_subscription_event',
    callId,
    groupId,
    message: { group_id: groupId, tool_call_id: callId, text, associative: false, ...(final === undefined ? {} : { final }) },
  },
]

describe('RapLink subscriptions', () => {
  it('a result and the final event in one crossing leave no subscription open', async () => {
    const { link, fake } = await started()
    const outcome = link.call('watch', 'c1', { q: 1 }, undefined, { groupId: 'g' })
    fake.send(result(fake.ticket('invoke'), { text: 'watching', subscription: true }), event('g', 'c1', 'done', true))
    expect(await outcome).toEqual({ content: [{ type: 'text', text: 'watching' }], details: { subscription: true } })
    expect(link.openSubscriptions('g')).toEqual([])
  })

  it('a final event that overtakes its result keeps the subscription from opening', async () => {
    const { link, fake } = await started()
    const outcome = link.call('watch', 'c1', {}, undefined, { groupId: 'g' })
    fake.send(event('g', 'c1', 'done', true))
    fake.send(result(fake.ticket('invoke'), { text: 'watching', subscription: true }))
    await outcome
    expect(link.openSubscriptions('g')).toEqual([])
  })

  it('a result opening a subscription keeps it open until its final event', async () => {
    const { link, fake } = await started()
    const outcome = link.call('watch', 'c1', {}, undefined, { groupId: 'g' })
    fake.send(result(fake.ticket('invoke'), { text: 'watching', subscription: true }))
    await outcome
    expect(link.openSubscriptions('g')).toEqual(['c1'])
    expect(link.openSubscriptions('other')).toEqual([])
    fake.send(event('g', 'c1', 'tick'))
    expect(link.openSubscriptions('g')).toEqual(['c1'])
    fake.send(event('g', 'c1', 'done', true))
    expect(link.openSubscriptions('g')).toEqual([])
  })

  it('closeThread forgets the open subscriptions of that thread only', async () => {
    const { link, fake } = await started()
    for (const [groupId, callId] of [['g', 'c2'], ['g', 'c1'], ['h', 'c3']]) {
      const outcome = link.call('watch', callId, {}, undefined, { groupId })
      fake.send(result(fake.ticket('invoke'), { text: 'watching', subscription: true }))
      await outcome
    }
    expect(link.openSubscriptions('g')).toEqual(['c1', 'c2'])
    const closing = link.closeThread('g')
    expect(link.openSubscriptions('g')).toEqual([])
    expect(link.openSubscriptions('h')).toEqual(['c3'])
    expect(fake.calls.at(-1)).toEqual(['closeThread', fake.ticket('closeThread'), 'g'])
    fake.send([RapMessage.DONE, fake.ticket('closeThread')])
    await closing
  })

  it('an error result opens no subscription and rejects with its text', async () => {
    const { link, fake } = await started()
    const outcome = link.call('watch', 'c1', {}, undefined, { groupId: 'g' })
    fake.send(result(fake.ticket('invoke'), { text: 'Error: no such feed', subscription: true }, true))
    await expect(outcome).rejects.toThrow(/^Error: no such feed$/)
    expect(link.openSubscriptions('g')).toEqual([])
  })

  it('events of a call in flight reach watchers named with its tool and arguments', async () => {
    const { link, fake, events } = await started()
    const watcher = link.watch('g')
    const outcome = link.call('watch', 'c1', { q: 1 }, undefined, { groupId: 'g' })
    fake.send(event('g', 'c1', 'early'))
    expect(watcher.take()).toEqual([
      { original_tool_name: 'watch', original_tool_call_id: 'c1', original_args: { q: 1 }, text: 'early' },
    ])
    expect(events).toEqual([event('g', 'c1', 'early')[1]])
    fake.send(result(fake.ticket('invoke'), { text: 'watching' }))
    await outcome
    expect(link.openSubscriptions('g')).toEqual([])
    watcher.close()
  })
})

describe('RapLink thread backlog', () => {
  const texts = (events: { text: string }[]) => events.map((e) => e.text)

  /** Opens subscription `callId` of thread `groupId` (its call answered `subscription: true`). */
  async function subscribe(link: any, fake: FakeRap, groupId: string, callId: string) {
    const outcome = link.call('watch', callId, {}, undefined, { groupId })
    fake.send(result(fake.ticket('invoke'), { text: 'watching', subscription: true }))
    await outcome
  }

  it('events that come while no run watches wait for the next run on their thread', async () => {
    const { link, fake } = await started()
    await subscribe(link, fake, 'g', 'c1')
    await subscribe(link, fake, 'h', 'c2')
    fake.send(event('g', 'c1', 'one'), event('h', 'c2', 'other thread'), event('g', 'c1', 'two'))
    const watcher = link.watch('g')
    expect(watcher.size()).toBe(2)
    expect(texts(watcher.take())).toEqual(['one', 'two'])
    fake.send(event('g', 'c1', 'three'))
    expect(texts(watcher.take())).toEqual(['three'])
    watcher.close()
    // closeThread forgets what thread h kept, also in a run on it, and what comes for it later
    // is not kept.
    const onH = link.watch('h')
    expect(texts(onH.take())).toEqual(['other thread'])
    fake.send(event('h', 'c2', 'not taken'))
    const closing = link.closeThread('h')
    fake.send([RapMessage.DONE, fake.ticket('closeThread')])
    await closing
    expect(onH.size()).toBe(0)
    onH.close()
    fake.send(event('h', 'c2', 'after the close'))
    expect(link.watch('h').size()).toBe(0)
  })

  it('events a run did not take go back to the thread for the next run', async () => {
    const { link, fake } = await started()
    await subscribe(link, fake, 'g', 'c1')
    const first = link.watch('g')
    fake.send(event('g', 'c1', 'heard'))
    expect(texts(first.take())).toEqual(['heard'])
    fake.send(event('g', 'c1', 'late'))
    first.close()
    first.close() // a second close changes nothing
    expect(texts(link.watch('g').take())).toEqual(['late'])
  })

  it('what only a closing run was given goes to another run on the thread', async () => {
    const { link, fake } = await started()
    await subscribe(link, fake, 'g', 'c1')
    fake.send(event('g', 'c1', 'kept'))
    const first = link.watch('g')
    const second = link.watch('g')
    fake.send(event('g', 'c1', 'both heard'))
    first.close()
    expect(texts(second.take())).toEqual(['kept', 'both heard'])
  })

  it('a thread keeps its newest 256 events, and about 1 MiB of text', async () => {
    const { link, fake } = await started()
    await subscribe(link, fake, 'g', 'c1')
    await subscribe(link, fake, 'h', 'c1')
    fake.send(...Array.from({ length: 300 }, (_, i) => event('g', 'c1', `e${i}`)))
    const kept = texts(link.watch('g').take())
    expect(kept).toHaveLength(256)
    expect(kept[0]).toBe('e44')
    expect(kept.at(-1)).toBe('e299')
    const big = 'x'.repeat(600_000)
    fake.send(event('h', 'c1', `a${big}`), event('h', 'c1', `b${big}`))
    expect(link.watch('h').take().map((e: { text: string }) => e.text[0])).toEqual(['b'])
  })

  it('cancelling a subscription drops its kept events', async () => {
    const { link, fake } = await started()
    await subscribe(link, fake, 'g', 'c1')
    await subscribe(link, fake, 'g', 'c2')
    fake.send(event('g', 'c1', 'from c1'), event('g', 'c2', 'from c2'))
    link.cancelSubscription('g', 'c1')
    expect(texts(link.watch('g').take())).toEqual(['from c2'])
  })
})
