// How an adapter loads its library (a peer package the user installs): the CommonJS entries
// require it; the ESM entries (import-peer.mts) load the module `import` would give, so that the
// process holds one copy of the library. The adapters' code takes a PeerLoader and never knows
// which entry it serves.

/**
 * Loads one module of an adapter's library by its specifier (e.g. '@langchain/core/tools') and
 * returns its exports; the caller knows their type (`typeof import(specifier)`, a type-only
 * import: nothing is loaded before the call). Throws, naming the package to install, when the
 * library is missing.
 */
export type PeerLoader = (specifier: string) => unknown

/**
 * The PeerLoader of the adapter named `adapter` that loads a module with `loadModule`, and says
 * which package to install when it is missing.
 */
export function peerLoader(adapter: string, loadModule: (specifier: string) => unknown): PeerLoader {
  return (specifier) => {
    try {
      return loadModule(specifier)
    } catch (error) {
      throw missingPeer(specifier, adapter, error) ?? error
    }
  }
}

/** The PeerLoader of the CommonJS entries: Node's require, for the adapter named `adapter`. */
export function requirePeer(adapter: string): PeerLoader {
  return peerLoader(adapter, require)
}

/** The error a PeerLoader throws when the library is not installed: `missingPackage` names it. */
export type MissingPeerError = Error & { code?: string; missingPackage?: string }

/** The package `error` (thrown by a PeerLoader) says is not installed, else undefined. */
export function missingPackageOf(error: unknown): string | undefined {
  const name = error instanceof Error ? (error as MissingPeerError).missingPackage : undefined
  return typeof name === 'string' ? name : undefined
}

/**
 * The Error saying which package to install when `error` is the failure to load `specifier` of
 * the peer package (from require or import), else undefined.
 */
function missingPeer(specifier: string, adapter: string, error: unknown): Error | undefined {
  const failure = error !== null && typeof error === 'object' ? (error as { code?: unknown; message?: unknown }) : undefined
  const code = failure !== undefined ? failure.code : undefined
  const name = packageOf(specifier)
  if ((code === 'MODULE_NOT_FOUND' || code === 'ERR_MODULE_NOT_FOUND') && String(failure?.message).includes(`'${name}`)) {
    const wrapped: MissingPeerError = new Error(`toolwire/${adapter} needs the package "${name}": install it next to toolwire`)
    wrapped.code = 'MODULE_NOT_FOUND'
    wrapped.missingPackage = name
    wrapped.cause = error
    return wrapped
  }
  return undefined
}

/** The package a module specifier is of: its scope and name. */
function packageOf(specifier: string): string {
  return specifier.split('/').slice(0, specifier.startsWith('@') ? 2 : 1).join('/')
}
