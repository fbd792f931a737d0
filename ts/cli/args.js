'use strict'
// A small argv parser: positionals and `--name value` / `--name=value` / boolean `--flag`
// options, checked against each command's declared options (anything else is a usage error).

const { usageError } = require('./errors.js')

/**
 * `spec`: { name: 'string' | 'boolean' }. Returns { positionals, options }. `--` ends options.
 */
function parseArgs(argv, spec, command) {
  const positionals = []
  const options = {}
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i]
    if (arg === '--') {
      positionals.push(...argv.slice(i + 1))
      break
    }
    if (arg.startsWith('--') && arg.length > 2) {
      const eq = arg.indexOf('=')
      const name = eq === -1 ? arg.slice(2) : arg.slice(2, eq)
      const type = spec[name]
      if (type === undefined) {
        const known = Object.keys(spec).map((n) => `--${n}`).join(', ')
        throw usageError(`${command}: unknown option --${name} (options: ${known})`)
      }
      if (type === 'boolean') {
        if (eq !== -1) throw usageError(`${command}: --${name} takes no value`)
        options[name] = true
        continue
      }
      let value
      if (eq !== -1) value = arg.slice(eq + 1)
      else {
        value = argv[i + 1]
        i += 1
      }
      if (value === undefined || value === '') throw usageError(`${command}: --${name} needs a value`)
      options[name] = value
      continue
    }
    if (arg.startsWith('-') && arg !== '-') throw usageError(`${command}: unknown option ${arg}`)
    positionals.push(arg)
  }
  return { positionals, options }
}

module.exports = { parseArgs }
