import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'

import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { analyzeCommand, ToolwireError } from '../dist/index.js'
import type { AnalyzeOptions, CommandAnalysis } from '../dist/index.js'

/** The allowlist of the core's bypass corpus: every refusal there is the analyzer's doing. */
const ALLOWLIST = [
  'git', 'ls', 'cat', 'echo', 'find', 'tar', 'rsync', 'ssh', 'sed', 'awk', 'python3', 'env',
  // Programs that run code given as an argument: only their safe forms pass.
  'npm', 'npx', 'make', 'sqlite3', 'socat', 'printf', 'perl', 'node',
  // Wrappers, shells, interpreters, editors and debuggers under versioned or suffixed names.
  'ksh93', 'tclsh8.6', 'vim.basic', 'gdb-multiarch', 'setarch', 'linux64', 'setpriv', 'capsh', 'sg',
  'run-parts', 'fakeroot', 'tmux', 'screen',
]

/** Programs the fake trusted `bin` holds (the names the core's bypass corpus uses). */
const FAKE_PROGRAMS = [
  ...ALLOWLIST,
  'sh', 'bash', 'sudo', 'xargs', 'timeout', 'nice', 'busybox', 'less', 'head', 'tail', 'cut',
  'uniq', 'tr', 'wc', 'vi', 'watch', 'nohup', 'rm', 'dd',
]

/**
 * The sandbox: `bin` (trusted, every fake program), `alt` (trusted, `ls` -> `bin/bash`, `tr` ->
 * `bin/rm`), `ws` (the cwd, a shadowing `ls` and an `evil`; in `ws/links`, `ls` -> `bin/rm`, `tr`
 * -> `bin/rm`, `head` -> `bin/dd`), `tools` (untrusted, `jq`), `links` (`jq2` -> `tools/jq`),
 * `untrusted` (a `git` outside the trusted dirs), `shadow` (untrusted, `ls` and `head` ->
 * `bin/rm`).
 */
let root = ''
const dir = (name: string) => path.join(root, name)

function exe(rel: string) {
  const file = path.join(root, rel)
  fs.writeFileSync(file, '#!/bin/sh\nexit 0\n')
  fs.chmodSync(file, 0o755)
}

beforeAll(() => {
  root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'toolwire-shell-')))
  for (const name of ['bin', 'alt', 'ws', 'ws/links', 'tools', 'links', 'untrusted', 'shadow']) fs.mkdirSync(dir(name))
  for (const program of FAKE_PROGRAMS) exe(`bin/${program}`)
  fs.symlinkSync(path.join(dir('bin'), 'bash'), path.join(dir('alt'), 'ls'))
  fs.symlinkSync(path.join(dir('bin'), 'rm'), path.join(dir('alt'), 'tr'))
  for (const [name, target] of [['ls', 'rm'], ['tr', 'rm'], ['head', 'dd']]) {
    fs.symlinkSync(path.join(dir('bin'), target), path.join(dir('ws/links'), name))
  }
  for (const name of ['ls', 'head']) fs.symlinkSync(path.join(dir('bin'), 'rm'), path.join(dir('shadow'), name))
  exe('ws/ls')
  exe('ws/evil')
  fs.writeFileSync(path.join(dir('ws'), 'script.py'), 'print(1)\n')
  fs.mkdirSync(path.join(dir('ws'), 'vendor/evil/.git'), { recursive: true })
  exe('tools/jq')
  fs.symlinkSync(path.join(dir('tools'), 'jq'), path.join(dir('links'), 'jq2'))
  exe('untrusted/git')
  fs.writeFileSync(path.join(dir('bin'), 'notes.txt'), 'not executable\n')
})

afterAll(() => {
  if (root) fs.rmSync(root, { recursive: true, force: true })
})

/**
 * The corpus options: PATH with `.`, an empty and a relative entry after the trusted `bin` (the
 * shell searches them in the cwd, so before `bin` they would shadow it).
 */
function corpusOptions(extra: AnalyzeOptions = {}): AnalyzeOptions {
  return {
    cwd: dir('ws'),
    allowlist: ALLOWLIST,
    trustedDirs: [dir('bin'), dir('alt')],
    env: { PATH: `${dir('bin')}:.::rel/bin` },
    ...extra,
  }
}

function refused(command: string, options: AnalyzeOptions = corpusOptions()): CommandAnalysis {
  const analysis = analyzeCommand(command, options)
  expect(analysis.approved, `${command}: ${JSON.stringify(analysis)}`).toBe(false)
  expect(typeof analysis.reason).toBe('string')
  return analysis
}

function thrown(fn: () => unknown): unknown {
  try {
    fn()
  } catch (error) {
    return error
  }
  throw new Error('expected a throw')
}

describe('analyzeCommand: segments', () => {
  it('gives one verdict per segment of a chain or pipeline, with argv after quote removal', () => {
    const analysis = analyzeCommand(`git status && ls -la | wc -l; echo "a;b" 'c d' e\\ f || cat x`, corpusOptions())
    expect(analysis).toEqual({
      approved: true,
      segments: [
        { argv: ['git', 'status'], executable: 'git', resolvedPath: `${dir('bin')}/git`, approved: true, reason: 'allowlisted by `git`', wrapper: false },
        { argv: ['ls', '-la'], executable: 'ls', resolvedPath: `${dir('bin')}/ls`, approved: true, reason: 'allowlisted by `ls`', wrapper: false },
        { argv: ['wc', '-l'], executable: 'wc', resolvedPath: `${dir('bin')}/wc`, approved: true, reason: 'safe bin `wc`', wrapper: false },
        { argv: ['echo', 'a;b', 'c d', 'e f'], executable: 'echo', resolvedPath: `${dir('bin')}/echo`, approved: true, reason: 'allowlisted by `echo`', wrapper: false },
        { argv: ['cat', 'x'], executable: 'cat', resolvedPath: `${dir('bin')}/cat`, approved: true, reason: 'allowlisted by `cat`', wrapper: false },
      ],
    })
    expect('reason' in analysis).toBe(false)
  })

  it('removes quotes and escapes inside names and arguments', () => {
    const analysis = analyzeCommand(`"l"s 'a'"b"\\c "x\\"y" 'it''s'`, corpusOptions())
    expect(analysis.approved).toBe(true)
    expect(analysis.segments[0].argv).toEqual(['ls', 'abc', 'x"y', 'its'])
    expect(analysis.segments[0].executable).toBe('ls')
  })

  it('refuses the whole line when one segment is refused, naming it', () => {
    const analysis = refused('git status; bash')
    expect(analysis.segments.map((s) => s.approved)).toEqual([true, false])
    expect(analysis.segments[1].wrapper).toBe(true)
    expect(analysis.reason).toContain('segment `bash`')
  })
})

describe('analyzeCommand: refusals at the command level', () => {
  const cases: [string, string, string][] = [
    ['command substitution', 'ls $(id)', 'command substitution `$(`'],
    ['backticks', 'ls `id`', 'command substitution (backtick)'],
    ['backticks in double quotes', 'echo "`id`"', 'command substitution (backtick)'],
    ['process substitution', 'cat <(ls)', 'process substitution `<(`'],
    ['output redirection', 'ls > out', 'redirection `>`'],
    ['input redirection', 'cat < /etc/passwd', 'redirection `<`'],
    ['append redirection', 'echo x >> out', 'redirection `>>`'],
    ['background', 'ls & ls', 'background `&`'],
    ['trailing background', 'ls &', 'background `&`'],
    ['heredoc', 'cat <<EOF', 'heredoc `<<`'],
    ['newline', 'ls\nls', 'newline'],
    ['unterminated single quote', "echo 'abc", 'unterminated single quote'],
    ['unterminated double quote', 'echo "abc', 'unterminated double quote'],
    ['empty segment', 'ls && && ls', 'empty command before `&&`'],
    ['trailing operator', 'ls |', 'empty command after trailing `|`'],
    ['parameter expansion', 'ls $HOME', 'parameter expansion `$`'],
  ]
  it.each(cases)('%s is refused with a reason naming it', (_name, command, want) => {
    const analysis = refused(command)
    expect(analysis.reason).toContain(want)
    expect(analysis.segments).toEqual([])
  })
})

describe('analyzeCommand: resolution and the allowlist', () => {
  it('matches a path glob against the real path, symlinks resolved', () => {
    const options = corpusOptions({ allowlist: [`${dir('tools')}/*`] })
    const analysis = analyzeCommand(`${dir('links')}/jq2 .`, options)
    expect(analysis.approved).toBe(true)
    expect(analysis.segments[0]).toMatchObject({
      executable: `${dir('links')}/jq2`,
      resolvedPath: `${dir('tools')}/jq`,
      reason: `allowlisted by \`${dir('tools')}/*\``,
    })
    // A glob over the symlink's own dir does not match: the real path is elsewhere.
    const viaLink = refused(`${dir('links')}/jq2 .`, corpusOptions({ allowlist: [`${dir('links')}/*`] }))
    expect(viaLink.reason).toContain('is not allowlisted')
    // Found through PATH, the same symlink resolves the same way.
    const found = analyzeCommand('jq2', { ...options, env: { PATH: dir('links') } })
    expect(found.approved).toBe(true)
    expect(found.segments[0].resolvedPath).toBe(`${dir('tools')}/jq`)
  })

  it('matches a bare name only when the program resolves into a trusted dir', () => {
    const shadowed = refused('git status', corpusOptions({ env: { PATH: `${dir('untrusted')}:${dir('bin')}` } }))
    expect(shadowed.segments[0].resolvedPath).toBe(`${dir('untrusted')}/git`)
    expect(shadowed.reason).toContain('outside the trusted dirs')
    const shadowingLs = refused('./ls -la')
    expect(shadowingLs.segments[0].resolvedPath).toBe(`${dir('ws')}/ls`)
    expect(shadowingLs.reason).toContain('outside the trusted dirs')
    // A symlink in a trusted dir is judged by what it points to.
    const toBash = refused(`${dir('alt')}/ls -la`)
    expect(toBash.segments[0]).toMatchObject({ resolvedPath: `${dir('bin')}/bash`, wrapper: true })
    expect(toBash.reason).toContain('a wrapper (`bash`)')
  })

  const lentNames: [string, () => string, string][] = [
    ['ls -> rm in the cwd', () => './links/ls -rf /', 'rm'],
    ['ls -> rm by absolute path', () => `${dir('ws/links')}/ls -rf /`, 'rm'],
    ['ls -> rm after an approved segment', () => 'ls && ./links/ls -rf /', 'rm'],
    ['tr -> rm as a safe bin', () => './links/tr -d x', 'rm'],
    ['head -> dd as a safe bin', () => './links/head -n 1', 'dd'],
    ['tr -> rm in a trusted dir as a safe bin', () => `${dir('alt')}/tr -d x`, 'rm'],
  ]
  it.each(lentNames)('a symlink never lends its name: %s', (_name, command, real) => {
    const analysis = refused(command())
    const segment = analysis.segments[analysis.segments.length - 1]
    expect(segment.resolvedPath).toBe(`${dir('bin')}/${real}`)
    // A bare entry naming the link (`ls` is allowlisted, `tr`/`head` are safe bins) is told which
    // names it matches.
    const typed = (segment.executable ?? '').split('/').pop()
    const listed = typed === 'ls'
      ? `: the bare entry \`ls\` matches the names the program goes by in the trusted dirs (\`${real}\`: its real file's, and a link's lying in one), not the name of the link \`ls\` it was reached through`
      : ''
    expect(segment.reason).toBe(`\`${segment.executable}\` (${dir('bin')}/${real} in a trusted dir) is not allowlisted${listed}`)
  })

  it('judges a program found through PATH by its real file, not the name it was found by', () => {
    const options = corpusOptions({ env: { PATH: `${dir('shadow')}:${dir('bin')}` } })
    for (const command of ['ls -rf /', 'head -n 1']) {
      const analysis = refused(command, options)
      expect(analysis.segments[0].resolvedPath).toBe(`${dir('bin')}/rm`)
      expect(analysis.reason).toContain('is not allowlisted')
    }
    // The real programs of those names still pass.
    expect(analyzeCommand('ls -la && head -n 1', corpusOptions()).approved).toBe(true)
  })

  it('matches the system programs through the default trusted dirs, /bin included', () => {
    const real = fs.realpathSync('/bin/ls')
    for (const command of ['ls -la', '/bin/ls -la', '/usr/bin/ls -la']) {
      const analysis = analyzeCommand(command, { allowlist: ['ls'], env: { PATH: '/bin:/usr/bin' } })
      expect(analysis.approved, `${command}: ${JSON.stringify(analysis)}`).toBe(true)
      expect(analysis.segments[0].resolvedPath).toBe(real)
    }
  })

  // Seen by a reviewer running the real programs: allowlisted `sort` and `split` ran `sh`
  // through `--compress-program` and `--filter`, which the analyzer did not know.
  it('refuses the real sort and split running a program named by an option, in every spelling', () => {
    const system = (allowlist: string[]) => ({ allowlist, env: { PATH: '/bin:/usr/bin' } })
    const refusedLines: [string, string][] = [
      ['sort -S 16K -T /tmp --compress-program=sh /tmp/in.txt', 'sort'],
      ['sort --compress-p=sh /tmp/in.txt', 'sort'],
      ['sort /tmp/in.txt --compress-prog sh', 'sort'],
      ['split --filter=sh /tmp/in.txt', 'split'],
      ['split --fil sh /tmp/in.txt', 'split'],
    ]
    for (const [command, program] of refusedLines) {
      const analysis = analyzeCommand(command, system([program]))
      expect(analysis.approved, command).toBe(false)
      expect(analysis.reason).toContain('argument injection')
    }
    for (const [command, program] of [['sort -u /tmp/in.txt', 'sort'], ['split -l 10 /tmp/in.txt', 'split']]) {
      expect(analyzeCommand(command, system([program])).approved, command).toBe(true)
    }
  })

  it('searches `.`, empty and relative PATH entries in the cwd, as the shell does', () => {
    const options = corpusOptions({ allowlist: [`${root}/**`], env: { PATH: `.::${dir('bin')}` } })
    const found = analyzeCommand('evil', options)
    expect(found.approved).toBe(true)
    expect(found.segments[0].resolvedPath).toBe(`${dir('ws')}/evil`)
    // Before `bin`, the cwd's `ls` is what the shell runs: it is judged, and refused.
    for (const PATH of [`.:${dir('bin')}`, `:${dir('bin')}`, `::${dir('bin')}`, `./:${dir('bin')}`]) {
      const shadowed = refused('ls -la', corpusOptions({ env: { PATH } }))
      expect(shadowed.segments[0].resolvedPath).toBe(`${dir('ws')}/ls`)
      expect(shadowed.reason).toContain('outside the trusted dirs')
    }
  })

  it("searches `.` and empty PATH entries in the process's own current directory, as a shell started there would", () => {
    // A child process whose cwd holds an executable `evil`: the analyzer finds what `sh` finds.
    const here = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'toolwire-cwd-')))
    try {
      fs.writeFileSync(path.join(here, 'evil'), '#!/bin/sh\nexit 0\n', { mode: 0o755 })
      const allowlist = [`${here}/*`, 'evil']
      const searched = ['.:/usr/bin', ':/usr/bin', '/usr/bin:', '/usr/bin::/bin', '.', './', ':']
      const cases = [
        ...searched.map((PATH) => ({ command: 'evil', options: { allowlist, env: { PATH } } })),
        // No env: the process's PATH, which starts with `.` and an empty entry.
        { command: 'evil', options: { allowlist } },
        // Named by its path, it is found in the cwd too.
        { command: './evil', options: { allowlist, env: { PATH: '/usr/bin' } } },
      ]
      const child = spawnSync(process.execPath, [path.join(__dirname, 'scenarios', 'analyze-in-cwd.cjs'), JSON.stringify(cases)], {
        cwd: here,
        env: { ...process.env, PATH: '.::/usr/bin' },
        encoding: 'utf8',
        timeout: 10_000,
      })
      expect(child.status, child.stderr).toBe(0)
      const { cwd, analyses } = JSON.parse(child.stdout) as { cwd: string; analyses: CommandAnalysis[] }
      expect(cwd).toBe(here)
      expect(analyses).toHaveLength(searched.length + 2)
      for (const [i, analysis] of analyses.entries()) {
        expect(analysis.approved, `case ${i}: ${JSON.stringify(cases[i])}`).toBe(true)
        expect(analysis.segments[0].resolvedPath).toBe(`${here}/evil`)
      }
      // The shell agrees: started in that directory with each PATH, it finds the same file.
      for (const PATH of searched) {
        const shell = spawnSync('/bin/sh', ['-c', 'command -v evil'], { cwd: here, env: { PATH }, encoding: 'utf8' })
        expect(shell.status, `PATH=${JSON.stringify(PATH)}`).toBe(0)
        expect(fs.realpathSync(path.resolve(here, shell.stdout.trim()))).toBe(`${here}/evil`)
      }
    } finally {
      fs.rmSync(here, { recursive: true, force: true })
    }
  })

  it('resolves a relative cwd against process.cwd(), never drops it', () => {
    const saved = process.cwd()
    try {
      process.chdir(root)
      const options = { allowlist: [`${dir('ws')}/*`], trustedDirs: [dir('bin')], env: { PATH: dir('bin') } }
      const inWs = analyzeCommand('./ls', { ...options, cwd: 'ws' })
      expect(inWs.approved).toBe(true)
      expect(inWs.segments[0].resolvedPath).toBe(`${dir('ws')}/ls`)
      const inShadow = refused('./ls', { ...options, cwd: './ws/../shadow' })
      expect(inShadow.segments[0].resolvedPath).toBe(`${dir('bin')}/rm`)
    } finally {
      process.chdir(saved)
    }
  })

  it('reads only env.PATH, and an env without PATH finds nothing', () => {
    const noPath = refused('ls', corpusOptions({ env: { HOME: dir('bin') } }))
    expect(noPath.reason).toContain('`ls` not found in PATH')
    const nullPath = refused('ls', corpusOptions({ env: { PATH: null as unknown as string } }))
    expect(nullPath.reason).toContain('`ls` not found in PATH')
  })

  it('defaults PATH to process.env.PATH and cwd to process.cwd()', () => {
    const saved = { path: process.env.PATH, cwd: process.cwd() }
    try {
      process.env.PATH = dir('bin')
      process.chdir(dir('ws'))
      const options = { allowlist: ['ls'], trustedDirs: [dir('bin')] }
      expect(analyzeCommand('ls -la', options).segments[0].resolvedPath).toBe(`${dir('bin')}/ls`)
      expect(analyzeCommand('./ls', options).segments[0].resolvedPath).toBe(`${dir('ws')}/ls`)
    } finally {
      process.env.PATH = saved.path
      process.chdir(saved.cwd)
    }
  })

  it('counts a leading NAME=value as a wrapper', () => {
    const analysis = refused('FOO=1 ls')
    expect(analysis.segments[0]).toMatchObject({ argv: ['FOO=1', 'ls'], executable: null, wrapper: true, approved: false })
    expect(analysis.reason).toContain('environment assignment `FOO=1`')
    // After the program name, NAME=value is an argument.
    expect(analyzeCommand('echo FOO=1', corpusOptions()).approved).toBe(true)
  })
})

describe('analyzeCommand: safe bins, wrappers, argument injection', () => {
  it('approves a safe bin with its profile arguments only, never a file', () => {
    const options = corpusOptions({ allowlist: [] })
    const head = analyzeCommand('head -n 5', options)
    expect(head.approved).toBe(true)
    expect(head.segments[0].reason).toBe('safe bin `head`')
    expect(refused('head file.txt', options).reason).toContain('file argument `file.txt`')
    expect(refused('tail -f', options).reason).toContain('not in its profile')
    // Only the listed safe bins, and only from a trusted dir.
    expect(refused('head -n 5', corpusOptions({ allowlist: [], safeBins: ['wc'] })).reason).toContain('not allowlisted')
    expect(refused('head -n 5', corpusOptions({ allowlist: [], trustedDirs: [dir('alt')] })).reason).toContain('not allowlisted')
  })

  const wrappers: [string, string][] = [
    ['sh -c id', 'sh'],
    ['env ls', 'env'],
    ['sudo ls', 'sudo'],
    ['echo x | xargs ls', 'xargs'],
    ['timeout 1 ls', 'timeout'],
    ["python3 -c 'print(1)'", 'python3'],
  ]
  it.each(wrappers)('%s is never approved, even allowlisted', (command, program) => {
    const allowlist = [...ALLOWLIST, 'sh', 'sudo', 'xargs', 'timeout', `${dir('bin')}/*`]
    const analysis = refused(command, corpusOptions({ allowlist }))
    const segment = analysis.segments.find((s) => s.executable === program)
    expect(segment).toMatchObject({ approved: false, wrapper: true })
    expect(segment?.reason).toMatch(/wrapper/)
  })

  const injections: [string, string][] = [
    ['git -c core.pager=less log', '`-c`'],
    ['git clone --upload-pack=sh repo', '`--upload-pack=sh`'],
    ["find . -exec rm '{}' ';'", '`-exec`'],
    ['tar --to-command=sh -xf a.tar', '`--to-command=sh`'],
  ]
  it.each(injections)('%s is refused with git, find and tar allowlisted', (command, want) => {
    const analysis = refused(command, corpusOptions({ allowlist: ['git', 'find', 'tar'] }))
    expect(analysis.reason).toContain(want)
    expect(analysis.segments[0].wrapper).toBe(false)
  })
})

describe('analyzeCommand: bad input', () => {
  it('throws a TypeError naming a command that is not a string', () => {
    for (const [value, named] of [[5, 'number 5'], [null, 'null'], [['ls'], 'an array'], [undefined, 'undefined']] as const) {
      const error = thrown(() => analyzeCommand(value as unknown as string))
      expect(error).toBeInstanceOf(TypeError)
      expect((error as Error).message).toBe(`analyzeCommand: command must be a string, got ${named}`)
    }
  })

  it('throws a TypeError when options is not a plain object', () => {
    for (const [value, named] of [[null, 'null'], [[], 'an array'], ['x', 'string x'], [new Date(0), 'an object']] as const) {
      const error = thrown(() => analyzeCommand('ls', value as unknown as AnalyzeOptions))
      expect(error).toBeInstanceOf(TypeError)
      expect((error as Error).message).toBe(`analyzeCommand: options must be a plain object, got ${named}`)
    }
  })

  const bad: [string, unknown, string][] = [
    ['safeBins: [5]', { safeBins: [5] }, 'options.safeBins[0] must be a string, got 5'],
    ['unknown key', { shell: 'bash' }, 'analyzeCommand: options has unknown key "shell" (expected one of: cwd, allowlist, safeBins, trustedDirs, env)'],
    ['allowlist not an array', { allowlist: 'git' }, 'options.allowlist must be an array of strings, got "git"'],
    ['empty allowlist entry', { allowlist: ['git', ''] }, 'options.allowlist[1] must not be empty'],
    ['cwd not a string', { cwd: 5 }, 'options.cwd must be a string, got 5'],
    ['relative trusted dir', { trustedDirs: ['bin'] }, 'options.trustedDirs[0] must be an absolute path, got "bin"'],
    ['PATH not a string', { env: { PATH: 1 } }, 'options.env.PATH must be a string, got 1'],
    ['env not an object', { env: ['PATH'] }, 'options.env must be an object, got ["PATH"]'],
  ]
  it.each(bad)('%s is a VALIDATION_ERROR naming the value', (_name, options, want) => {
    const error = thrown(() => analyzeCommand('ls', options as AnalyzeOptions))
    expect(error).toBeInstanceOf(ToolwireError)
    expect((error as ToolwireError).code).toBe('VALIDATION_ERROR')
    expect((error as ToolwireError).message).toContain(want)
  })

  it('refuses an over-long command without throwing', () => {
    expect(refused(`echo ${'a'.repeat(70_000)}`).reason).toContain('over the limit of 65536 bytes')
  })
})

/** Rows of the core's bypass corpus (`policy/shell/bypass_tests.rs`): command, reason substring. */
const BYPASSES: [string, string][] = [
  ['ls; sh', 'wrapper'],
  ['git status || bash', 'wrapper'],
  ['echo id | sh', 'wrapper'],
  ['cat x | bash -s', 'wrapper'],
  ['ls $(sh)', 'command substitution `$(`'],
  ['ls `sh`', 'backtick'],
  ['cat <(sh)', 'process substitution `<(`'],
  ['ls${IFS}-la', 'parameter expansion `${`'],
  ["$'\\x73h'", 'ANSI-C quoting'],
  ['s"h" -c id', 'wrapper'],
  ["'ba'sh", 'wrapper'],
  ['\\sh', 'wrapper'],
  ['ls \\\nsh', 'escaped newline'],
  ['ls\r\nsh', 'newline'],
  ['env -i sh', 'wrapper'],
  ['LD_PRELOAD=/tmp/x.so ls', 'environment assignment'],
  ['nice sh', 'wrapper'],
  ['busybox sh', 'wrapper'],
  ['exec sh', 'wrapper'],
  ['. ./x', 'wrapper'],
  ['alias ls=sh', 'shell keyword or builtin'],
  ['if ls; then sh; fi', 'shell keyword or builtin'],
  ['echo x | python3', 'stdin'],
  ["perl -e 'exec q(sh)'", 'interpreter'],
  ['awk \'BEGIN{system("sh")}\'', 'runs program text'],
  ['find . -delete', '`-delete`'],
  ['git clone ext::sh', 'ext::'],
  ['git --config-env=core.sshCommand=X fetch', '--config-env'],
  ['git rebase -x sh main', '`-x`'],
  ['tar -cf x --checkpoint-action=exec=sh .', '--checkpoint-action'],
  ['tar xIf sh a', '`xIf`'],
  ['rsync -e sh a b', '`-e`'],
  ['ssh -oProxyCommand=sh x', 'proxycommand'],
  ["sed -n 'e sh'", 'command `e`'],
  ["sed 's/x/sh/e'", 'flag `e`'],
  ['sed -i s/a/b/ f', 'in-place'],
  ['git log | less', 'refused outright'],
  ['/tmp/x/../../bin/sh', '/tmp/x/../../bin/sh'],
  ['ls 2>&1', 'fd duplication'],
  ['sh <<< id', 'herestring'],
  ['ls |& sh', '`|&`'],
  ['/bin/s?', 'glob'],
  ['{sh,}', 'brace'],
  ['~/x', 'tilde'],
  ['(sh)', 'subshell'],
  ['! ls', '`!`'],
  ['echo "!!"', '`!`'],
  ['ls #', 'comment'],
  ['ls\uff1bsh', 'not found in PATH'],
  ["'' ls", 'empty command name'],
  ['head -n 1 /etc/shadow', 'file argument'],
  ['; sh', 'empty command'],
  // Git global options consume their values; code-running keys, untrusted repositories.
  ['git --attr-source HEAD config include.path /tmp/x', 'include.path'],
  ['git --shallow-file x status', 'internal to git'],
  ['git --namespace x config remote.origin.uploadpack sh', 'uploadpack'],
  ['git --no-pager config filter.x.clean sh', 'filter.x.clean'],
  ['git --frobnicate x status', 'unknown option before the subcommand'],
  ['git --git-dir=/tmp/evil/.git log', '--git-dir'],
  ['git -C vendor/evil status', 'a repository of its own'],
  // Versioned and suffixed names, allowlisted by those names.
  ['ksh93 -c id', 'wrapper (`ksh`)'],
  ['tclsh8.6', '`tclsh` without a script'],
  ["vim.basic -c ':!id'", '`vim` can spawn a shell'],
  ['gdb-multiarch', '`gdb` can spawn a shell'],
  ['setarch x86_64 id', 'wrapper (`setarch`)'],
  ['linux64 id', 'wrapper (`linux64`)'],
  ['setpriv id', 'wrapper (`setpriv`)'],
  ['capsh -- -c id', 'wrapper (`capsh`)'],
  ['sg users id', 'wrapper (`sg`)'],
  ['run-parts /tmp/x', 'wrapper (`run-parts`)'],
  ['fakeroot id', 'wrapper (`fakeroot`)'],
  ['tmux new -d id', 'wrapper (`tmux`)'],
  ['screen -dm id', 'wrapper (`screen`)'],
  // Program text from the pipe under a file's name.
  ['echo id | python3 /dev/stdin', 'device or process file'],
  ['echo id | python3 /dev/fd/0', 'device or process file'],
  ['echo id | perl /proc/self/fd/0', 'device or process file'],
  // Builtins that rewrite PATH.
  ['printf -v PATH /tmp/x && ls', 'assigns a shell variable'],
  ['export PATH=/tmp', 'shell keyword or builtin `export`'],
  // Code given as an argument to an allowlisted program.
  ['npx -c id', '`-c`'],
  ['npm exec -c id', '`-c`'],
  ['make --eval=x', '--eval'],
  ["sqlite3 db '.shell id'", 'dot-command'],
  ['socat - EXEC:id', 'exec:'],
  ['ssh host id', 'runs a remote command'],
  // Code the workspace holds, run by an allowlisted package manager.
  ['npm test', 'package.json scripts'],
  ['npm install', 'package.json scripts'],
  ['npx tsc -p .', "package's program"],
  // Variables that name a program, or a safe one naming a file.
  ['GIT_PAGER=id git log', 'environment assignment `GIT_PAGER=id`'],
  ['LANG=C NODE_OPTIONS=--require=x node app.js', 'environment assignment `NODE_OPTIONS'],
  ['TZ=/tmp/x ls', 'may name a file'],
  // Build tools run the workspace's code as npm's scripts do (a new user's repro 13), with the
  // same reason; a directory change names the cwd to give instead (repro 3).
  ['make test', 'may run Makefile recipes'],
  ['make -n', '(code the workspace can write)'],
  ['npm test', '(code the workspace can write)'],
  ['python3 -m pytest', 'sys.path'],
  ['cd src && ls', 'does not follow'],
]

describe('analyzeCommand: the bypass corpus through JS', () => {
  it.each(BYPASSES)('%j is refused', (command, want) => {
    expect(refused(command).reason).toContain(want)
  })

  it('approves the positive controls of the corpus', () => {
    const controls = [
      'ls -la', 'git status', 'head -n 5', 'cat a | wc -l', "find . -name '*.rs' -type f", "sed -n '1,5p' notes.txt",
      'git --no-pager log -n 3', 'git --namespace ns log', 'npx --version', 'make --version', "sqlite3 db 'select 1'",
      "printf '%s' x", 'ssh -N -L 8080:localhost:80 host', 'python3 script.py', 'socat - TCP:example.com:80',
      'npm ls --all', 'LANG=C LC_ALL=C git log', 'TZ=UTC ls', 'node --version', 'node -v', 'python3 -V',
    ]
    for (const command of controls) {
      const analysis = analyzeCommand(command, corpusOptions())
      expect(analysis.approved, `${command}: ${JSON.stringify(analysis)}`).toBe(true)
    }
  })
})

describe('analyzeCommand: a PATH the line could write', () => {
  // A new user's repro 2: `npm run`, `npx` and `tsx` put node_modules/.bin first on PATH, and
  // every line of several segments was refused, though none of them writes a file.
  it('approves lines that write no file and refuses programs beside a writer', () => {
    const local = path.join(dir('ws'), 'node_modules/.bin')
    fs.mkdirSync(local, { recursive: true })
    const options = corpusOptions({ allowlist: ['ls', 'git', 'cat', 'tar'], env: { PATH: `${local}:${dir('bin')}` } })
    for (const line of ['ls | head -n 3', 'ls && git status', 'git log | head -n 3', 'cat a | wc -l']) {
      const analysis = analyzeCommand(line, options)
      expect(analysis.approved, `${line}: ${analysis.reason}`).toBe(true)
    }
    for (const line of ['tar -xf a.tar && ls', `tar -xf a.tar -C ${local} && git status`]) {
      expect(refused(line, options).reason).toContain('node_modules/.bin')
    }
  })
})

describe('analyzeCommand: read-only pipelines with the real programs', () => {
  // A new user's repros 4d and 21 (run as root and as nobody): `sort`, `uniq -c` allowlisted,
  // `sed -n` and `jq` counted as programs that may write files, so these lines were refused
  // beside git (and as root every line of two segments was); their writing forms stay refused.
  const allowlist = ['ls', 'git', 'sort', 'uniq', 'sed', 'jq', 'cat', 'grep', 'head', 'nl', 'tac', 'cp']
  const options = (): AnalyzeOptions => {
    const ws = dir('pipes-ws')
    if (!fs.existsSync(path.join(ws, '.git'))) spawnSync('git', ['init', '-q', ws])
    return { allowlist, cwd: ws, env: { PATH: '/usr/local/bin:/usr/bin:/bin' } }
  }

  it.each([
    'git log --oneline | sort',
    'git log | sed -n 1,5p',
    'git show HEAD:package.json | jq .name',
    'git log --format=%an | sort | uniq -c | sort -rn | head -n 5',
    'git log --oneline | uniq -c',
    'ls | sort',
    'cat a | sort | uniq -c',
    'grep -rh import src | sort -u',
    'git log | nl | tac',
  ])('approves %j', (line) => {
    const analysis = analyzeCommand(line, options())
    expect(analysis.approved, `${line}: ${analysis.reason}`).toBe(true)
  })

  it.each([
    ['git log | sort -o .git/config', '`sort -o .git/config` in this line may write them first'],
    ['sort --out=.git/hooks/pre-commit a && git status', 'reads its configuration and hooks (in `.git`) when it runs'],
    ['uniq a .git/config; git status', '`uniq a .git/config` in this line'],
    ['cp a b && git status', '`git` reads its configuration and hooks (in `.git`) when it runs, and `cp a b` in this line may write them first'],
  ])('refuses %j', (line, want) => {
    expect(refused(line, options()).reason).toContain(want)
  })

  // A new user's repro 4d: `git config --get user.name` and `git config --list` were refused as
  // "`git config` can run commands"; its writing and editing forms still are.
  it.each([
    ['git config --get user.name', true],
    ['git config --list --show-origin', true],
    ['git config user.name', true],
    ['git config get user.name', true],
    ['git config list --global', true],
    ['git config user.name x', false],
    ['git config --add user.email x', false],
    ['git config --unset user.name', false],
    ['git config -e', false],
    ['git config --global edit', false],
    ['git config set user.name x', false],
  ] as [string, boolean][])('git config: %j approved %j', (line, want) => {
    const analysis = analyzeCommand(line, options())
    expect(analysis.approved, `${line}: ${analysis.reason}`).toBe(want)
    if (!want) expect(analysis.reason).toContain('only its reading forms pass')
  })

  // A new user's repro 4: `make test` is no argument injection: the call itself runs the
  // workspace's code, which only an approval can let run.
  it.each([['make test'], ['make'], ['npm test']])('labels %j as running code the workspace holds', (line) => {
    const reason = refused(line, { ...options(), allowlist: ['make', 'npm'] }).reason ?? ''
    expect(reason).toContain('runs code the workspace holds: `')
    expect(reason).not.toContain('argument injection')
  })
})

// New-user review 3, items 4, 5 and 11 (repros 20-build-tools, 21-deno-bun, 8-shell): test
// runners, bundlers and linters loading workspace code were approved, deno and bun subcommands
// were read as script names (`deno test` passed beside a file `test`), and npx, cargo fmt and
// uv pip list were refused under wrong labels or reasons.
describe('analyzeCommand: programs that run code the workspace holds', () => {
  const RUNNERS = [
    'jest', 'vitest', 'mocha', 'webpack', 'vite', 'next', 'eslint', 'prettier', 'pylint', 'mypy', 'pre-commit',
    'tsc', 'ruff', 'black', 'pytest', 'uv', 'cargo', 'deno', 'bun',
  ]
  const runnerOptions = () => corpusOptions({ allowlist: [...RUNNERS, 'npx'] })

  beforeAll(() => {
    for (const program of RUNNERS) exe(`bin/${program}`)
    for (const file of ['test', 'task', 'run', 'x', 'main.ts']) fs.writeFileSync(path.join(dir('ws'), file), '')
  })

  it.each([
    ['jest', 'runs code the workspace holds: `jest`'],
    ['vitest run', 'runs code the workspace holds: `vitest run`'],
    ['mocha', 'runs code the workspace holds: `mocha`'],
    ['webpack', 'runs code the workspace holds: `webpack`'],
    ['vite build', 'runs code the workspace holds: `vite build`'],
    ['next build', 'runs code the workspace holds: `next build`'],
    ['eslint src', 'runs code the workspace holds: `eslint src`'],
    ['prettier --check .', 'plugins'],
    ['pylint src', 'init-hook'],
    ['mypy src', 'runs code the workspace holds: `mypy src`'],
    ['pre-commit run -a', 'the local hooks .pre-commit-config.yaml names'],
    ['pytest --version', 'loaded for --version too'],
    ['tsc --noEmit', 'writes where the workspace says: `tsc --noEmit`'],
    ['npx tsc --noEmit', "runs code the workspace holds: `npx tsc` may run a package's program"],
    ['cargo fmt --check', '[alias] fmt'],
    ['uv pip list', '.venv'],
    ['deno test', 'runs code the workspace holds: `deno test`'],
    ['deno task build', 'runs code the workspace holds: `deno task` may run deno.json tasks'],
    ['bun test', 'runs code the workspace holds: `bun test`'],
    ['bun run x', 'runs code the workspace holds: `bun run` may run package.json scripts'],
    ['bun x cowsay', "package's program"],
    ['deno eval 1', 'interpreter wrapper: `deno eval` runs program text'],
    ['bun -e 1', 'interpreter wrapper'],
  ])('%j is refused naming what it runs', (line, want) => {
    const reason = refused(line, runnerOptions()).reason ?? ''
    expect(reason).toContain(want)
    expect(reason).not.toContain('argument injection')
    expect(reason).not.toContain('does not exist')
  })

  it.each([
    'jest --version', 'eslint --version', 'prettier --version', 'pylint --version', 'tsc --version', 'ruff check .',
    'black --check .', 'deno --version', 'bun --version', 'deno fmt --check', 'deno run -A main.ts', 'bun main.ts',
  ])('%j is approved', (line) => {
    const analysis = analyzeCommand(line, runnerOptions())
    expect(analysis.approved, `${line}: ${analysis.reason}`).toBe(true)
  })
})

describe('analyzeCommand: version managers, extractors, sysctl and subcommand wrappers', () => {
  const PROGRAMS = ['pyenv', 'rbenv', 'nodenv', 'mise', 'rust-analyzer', 'sysctl', 'dpkg', 'dpkg-deb', 'uv', 'conda', 'cargo-fmt', 'cargo-clippy']
  const options = () => corpusOptions({ allowlist: [...PROGRAMS, 'tar'] })

  beforeAll(() => {
    for (const program of PROGRAMS) exe(`bin/${program}`)
    // A definition file python-build would source for `pyenv install def` (attack review 3's 3).
    fs.writeFileSync(path.join(dir('ws'), 'def'), 'touch PWNED\n')
  })

  it.each([
    ['pyenv install def', 'sources as a definition'],
    ['pyenv install ./def', '`pyenv install` `./def` is a path'],
    ['pyenv install -p 3.12.1', 'patch read from stdin'],
    ['pyenv local ../../v', '`pyenv local`'],
    ['rbenv install ./def', '`rbenv install`'],
    ['nodenv install def', '`nodenv install`'],
    ['mise use node@path:./n', 'path:'],
    ['rust-analyzer analysis-stats .', 'runs code the workspace holds: `rust-analyzer analysis-stats`'],
    ['sysctl kernel.core_pattern=x', 'writes a kernel setting'],
    ['sysctl -w kernel.hostname=x', '`-w`'],
    ['dpkg -x pkg.deb /', '`dpkg -x` would write `/`, outside the workspace'],
    ['dpkg-deb -R pkg.deb ../r', '`dpkg-deb -R` would write `../r`'],
    ['tar -xf a.tar -C /', '`tar -xf` would write `/`'],
    ['cargo-fmt --check', 'cargo metadata'],
  ])('%j is refused naming the program and the rule', (line, want) => {
    expect(refused(line, options()).reason).toContain(want)
  })

  it('reads a wrapping subcommand at its place only', () => {
    const wrapped = refused('uv --directory x run touch y', options())
    expect(wrapped.segments[0].wrapper).toBe(true)
    expect(wrapped.reason).toContain('`uv run` runs the command or task given')
    // `uv pip install run` installs a package named run: refused as uv (a runner), not as a wrapper.
    const notWrapped = refused('uv pip install run', options())
    expect(notWrapped.segments[0].wrapper).toBe(false)
    expect(notWrapped.reason).not.toContain('wrapper')
    expect(analyzeCommand('conda list run', options()).approved).toBe(true)
  })

  it.each([
    'pyenv install 3.12.1', 'pyenv versions', 'rbenv install 3.3.0', 'nodenv install 20.11.0', 'mise use node@20',
    'rust-analyzer --version', 'sysctl -n kernel.ostype', 'sysctl net.ipv4.ip_forward', 'sysctl -a | head -n 1',
    'dpkg -x pkg.deb unpacked', 'dpkg-deb -c pkg.deb', 'tar -xzf a.tgz', 'cargo-clippy --version', 'cargo-fmt --version',
  ])('%j is approved', (line) => {
    const analysis = analyzeCommand(line, options())
    expect(analysis.approved, `${line}: ${analysis.reason}`).toBe(true)
  })
})
