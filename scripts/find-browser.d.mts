/** The full path of `name` found on `env.PATH`, or undefined. */
export declare function onPath(name: string, env?: NodeJS.ProcessEnv): string | undefined
/** `CHROME_PATH`, else /usr/bin/chromium, else chromium, chromium-browser or google-chrome on PATH. */
export declare function findBrowser(env?: NodeJS.ProcessEnv): string | undefined
