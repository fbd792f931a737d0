// Where the Chromium for the CLI's timeline test is: `CHROME_PATH`, else /usr/bin/chromium, else
// chromium, chromium-browser or google-chrome on PATH. Shared by scripts/test.mjs (which installs
// Chromium when none is found and it can) and __test__/cli.test.ts.
import { accessSync, constants, statSync } from 'node:fs'
import { delimiter, join } from 'node:path'

function isExecutable(path) {
  try {
    if (!statSync(path).isFile()) return false
    accessSync(path, constants.X_OK)
    return true
  } catch {
    return false
  }
}

/** The full path of `name` found on `env.PATH`, or undefined. */
export function onPath(name, env = process.env) {
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (dir !== '' && isExecutable(join(dir, name))) return join(dir, name)
  }
  return undefined
}

/** The browser's path, or undefined when none is found. */
export function findBrowser(env = process.env) {
  if (env.CHROME_PATH) return isExecutable(env.CHROME_PATH) ? env.CHROME_PATH : undefined
  if (isExecutable('/usr/bin/chromium')) return '/usr/bin/chromium'
  for (const name of ['chromium', 'chromium-browser', 'google-chrome']) {
    const found = onPath(name, env)
    if (found !== undefined) return found
  }
  return undefined
}
