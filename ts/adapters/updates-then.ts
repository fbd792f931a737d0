// A call's partial results and then its result, as one async iterable: the shape of a tool's
// `execute` that reports progress to a framework reading an async iterable (the AI SDK's
// preliminary tool results).

/**
 * Runs `start` and yields each value it passes to `onUpdate`, as they come, then the value its
 * promise resolves with, last. When that promise rejects, the iteration throws its error after
 * yielding the updates sent before. Updates sent after the promise settled are dropped.
 */
export async function* updatesThen<Update, Result>(start: (onUpdate: (update: Update) => void) => Promise<Result>): AsyncGenerator<Update | Result, void> {
  const pending: Update[] = []
  let settled = false
  let wake: (() => void) | undefined
  const done = start((update) => {
    if (settled) return
    pending.push(update)
    if (wake !== undefined) wake()
  })
  const marked = done.then(
    () => {
      settled = true
      if (wake !== undefined) wake()
    },
    () => {
      settled = true
      if (wake !== undefined) wake()
    },
  )
  while (true) {
    while (pending.length > 0) yield pending.shift() as Update
    if (settled) break
    await new Promise<void>((resolve) => (wake = resolve))
    wake = undefined
  }
  await marked
  yield await done
}
