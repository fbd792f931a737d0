'use strict'
// Reading a command's input file, its failure said as an input error (exit 1) in one line.

const { readFileSync } = require('node:fs')
const { inputError, oneLine } = require('./errors.js')

/** The file's bytes (or text, given an encoding); a missing file or a directory is an input error. */
function readInput(file, encoding) {
  try {
    return readFileSync(file, encoding)
  } catch (error) {
    throw inputError(`cannot read ${file}: ${error.code === 'ENOENT' ? 'no such file' : error.code === 'EISDIR' ? 'it is a directory' : oneLine(error)}`)
  }
}

module.exports = { readInput }
