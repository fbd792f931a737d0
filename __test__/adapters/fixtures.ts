import sharp from 'sharp'

/** A real 4x3 PNG (red), base64, that the runtime's image sanitizer decodes. */
export async function pngBase64(): Promise<string> {
  const buffer = await sharp({ create: { width: 4, height: 3, channels: 3, background: { r: 255, g: 0, b: 0 } } })
    .png()
    .toBuffer()
  return buffer.toString('base64')
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

/** Resolves when `signal` aborts, with its reason. */
export function aborted(signal: AbortSignal): Promise<unknown> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve(signal.reason)
    else signal.addEventListener('abort', () => resolve(signal.reason), { once: true })
  })
}

/**
 * A tool body that waits for its signal: `started` runs once the tool runs (a test aborts from
 * there, so the abort cannot come before the tool started), `stopped` resolves with the abort
 * reason once the tool's abort handler ran.
 */
export function hangingTool(started: () => void = () => {}) {
  let resolveStopped!: (reason: unknown) => void
  const stopped = new Promise<unknown>((resolve) => (resolveStopped = resolve))
  const execute = async (_id: string, _p: unknown, signal?: AbortSignal) => {
    const reason = aborted(signal!)
    started()
    resolveStopped(await reason)
    return 'stopped'
  }
  return { execute, stopped, onStart: (f: () => void) => (started = f) }
}
