#!/usr/bin/env node
'use strict'
// The toolwire CLI: `toolwire replay | schema | audit`; see ts/cli/main.ts and README "CLI".

const { main } = require('../dist/cli/main.js')

process.exitCode = main(process.argv.slice(2))
