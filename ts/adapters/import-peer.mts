// The PeerLoader of the adapters' ESM entries: the library module `import` gives the user, loaded
// synchronously when an adapter function is first called, so the objects the adapter makes are
// of the classes the user imports (one copy of the library in the process).
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'

import { peerLoader, type PeerLoader } from './peer.js'

const require = createRequire(import.meta.url)

/**
 * The module `specifier` resolves to for `import`, loaded now: Node's require of an ES module
 * shares the module instances `import` gets. Where Node cannot require an ES module (before 20.19
 * and 22.12), the package's CommonJS build is loaded instead.
 */
function importNow(specifier: string): unknown {
  if (typeof import.meta.resolve === 'function' && (process.features as { require_module?: boolean }).require_module === true) {
    return require(fileURLToPath(import.meta.resolve(specifier)))
  }
  return require(specifier)
}

/** The PeerLoader of the ESM entries: the module `import` gives, for the adapter named `adapter`. */
export function importPeer(adapter: string): PeerLoader {
  return peerLoader(adapter, importNow)
}
