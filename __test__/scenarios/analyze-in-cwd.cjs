// Runs analyzeCommand in this process's own current directory, which the test sets to a temporary
// directory holding an executable `evil`: PATH entries that are empty or `.` find it there, as the
// shell started in that directory would.
// argv[2]: JSON `[{ command, options }]`. Prints `{ cwd, analyses }` as JSON.
'use strict'
const { analyzeCommand } = require('../../dist/index.js')

const cases = JSON.parse(process.argv[2])
const analyses = cases.map(({ command, options }) => analyzeCommand(command, options))
process.stdout.write(JSON.stringify({ cwd: process.cwd(), analyses }))
