// The package's optional parts (cargo features `image` and `rap`, both in the default build): the
// binary says which it has, and a JavaScript entry needing one a slim build left out throws a
// typed error naming the feature and how to get it, never "NativeRap is not a constructor". The
// slim binaries themselves are checked by cargo (README, "Package size": clippy and the `slim`
// tests with --no-default-features and each feature alone); here the JavaScript side decides by
// the list the binary reports, given as a stand-in list where a slim build is simulated.
import { createRequire } from 'node:module'
import { describe, expect, it } from 'vitest'

const require = createRequire(import.meta.url)
const { requireFeature, OPTIONAL_FEATURES } = require('../dist/binding.js')
const { RapLink, toolsetOptions } = require('../dist/rap.js')
const { ToolRuntime, ToolwireError } = require('../dist/index.js')
const native = require('../native.js')

/** What `fn` threw (undefined when it returned). */
function thrown(fn: () => unknown): any {
  try {
    fn()
  } catch (error) {
    return error
  }
  return undefined
}

describe('the binary reports its optional parts', () => {
  it('the default build has image support and RAP, in that order', () => {
    expect(native.features()).toEqual(['image', 'rap'])
    expect(Object.keys(OPTIONAL_FEATURES)).toEqual(['image', 'rap'])
    expect(typeof native.NativeRap).toBe('function')
  })
})

describe('requireFeature: an entry a slim build lacks is refused by name', () => {
  const builds: [string, string[]][] = [
    ['default', ['image', 'rap']],
    ['--no-default-features', []],
    ['--features image', ['image']],
    ['--features rap', ['rap']],
  ]
  for (const [build, features] of builds) {
    for (const feature of ['image', 'rap']) {
      it(`${build}: ${feature} ${features.includes(feature) ? 'passes' : 'is refused'}`, () => {
        const error = thrown(() => requireFeature(features, feature, 'someEntry'))
        if (features.includes(feature)) {
          expect(error).toBeUndefined()
          return
        }
        expect(error).toBeInstanceOf(ToolwireError)
        expect(error.code).toBe('PRECONDITION_FAILED')
        expect(error.feature).toBe(feature)
        expect(error.message).toMatch(new RegExp(`^someEntry: ${OPTIONAL_FEATURES[feature].replace(/[()]/g, '\\$&')} is not in this build`))
        expect(error.message).toContain(`cargo feature \`${feature}\``)
        expect(error.message).toContain(`--features ${feature}`)
        expect(error.message).toContain('npm run build')
      })
    }
  }
})

describe('RAP in a build without it', () => {
  /** A link whose binding lists `features`; `started` counts transports constructed. */
  function linkOn(features: string[]) {
    const started: string[] = []
    class Transport {
      constructor(server: string) {
        started.push(server)
      }
      load() {}
    }
    return { link: new RapLink(() => {}, Transport, (value: unknown) => value, features), started }
  }

  it('addRapToolset is refused with PRECONDITION_FAILED naming `rap`, and no transport starts', () => {
    const { link, started } = linkOn(['image'])
    const error = thrown(() => link.load('http://tools.test', toolsetOptions({})))
    expect(error).toBeInstanceOf(ToolwireError)
    expect(error.code).toBe('PRECONDITION_FAILED')
    expect(error.feature).toBe('rap')
    expect(error.message).toMatch(/^addRapToolset: remote tools over the Reactive Agent Protocol \(RAP\) is not in this build/)
    expect(started).toEqual([])
  })

  it('with `rap` listed the same load starts the transport', () => {
    const { link, started } = linkOn(['rap'])
    link.load('http://tools.test', toolsetOptions({}))
    expect(started).toEqual(['{}'])
  })

  it('a runtime takes the list from the binary: the default build loads toolsets (an unreachable one fails as unreachable)', async () => {
    const runtime = new ToolRuntime()
    const error = await runtime.addRapToolset('http://127.0.0.1:1', { timeoutMs: 2000 }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(Error)
    expect(error.code).not.toBe('PRECONDITION_FAILED')
  })
})
