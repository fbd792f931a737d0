// The files toolwire itself makes and reads in a run directory of the audit log, beside the
// engine's own (the model answers `audit.captureBodies` keeps, which `toolwire replay <run dir>`
// reads back), held to the rules the engine's audit writer keeps for its logs
// (crates/toolwire-core/src/audit/writer.rs): created owner-only (mode 600), never written or
// read through a symlink, and a file replaced while it was open is said, never written into
// unseen. One module for the writer (capture.ts) and the reader (cli/replay.ts), so both
// hold the same line; the cassettes of toolwire/testing (testing/cassettes.ts) make and read
// their recordings with it too (a new file, never through a link; read only as a regular file).
//
// Where the platform has no O_NOFOLLOW (Windows), the path is checked with lstat first.

import fs from 'node:fs'
import path from 'node:path'

import { messageOf } from './common.js'

const { O_CREAT, O_EXCL, O_WRONLY, O_RDONLY } = fs.constants
/** (0 where the platform has none: see checkNoLink) */
const O_NOFOLLOW = fs.constants.O_NOFOLLOW ?? 0
/** (0 where the platform has none; a FIFO planted in a run directory would block an open for reading) */
const O_NONBLOCK = fs.constants.O_NONBLOCK ?? 0

/** A run file that is not what it must be (a symlink, a directory, a FIFO...): the error says which, naming the file. */
export class RunFileError extends Error {
  override name = 'RunFileError'
}

/** Which file an open descriptor is: its device and inode, taken when it was opened. */
export interface FileIdentity {
  dev: number
  ino: number
}

/**
 * Creates `file` for writing, owner-only: a new file, never one that exists (a symlink planted
 * there included, dangling or not: `EEXIST`, which the caller may take as "that name is taken"),
 * never through a symlink, mode 600 whatever the umask. Returns the descriptor and the file's
 * identity; throws (the OS error, its `code` kept) when it cannot be made.
 */
export function createOwnerOnly(file: string): { fd: number; identity: FileIdentity } {
  return createNewFile(file, 0o600, true)
}

/**
 * Creates `file` for writing as {@link createOwnerOnly} does (a new file, never one that exists
 * nor through a symlink), with `mode`: exactly that mode when `exact`, else as the umask leaves
 * it (a file meant to be shared, such as a cassette's recording: 644 under the usual umask).
 */
export function createNewFile(file: string, mode: number, exact: boolean): { fd: number; identity: FileIdentity } {
  // (O_CREAT | O_EXCL never follows a symlink, on any platform: one there is EEXIST)
  const fd = fs.openSync(file, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, mode)
  try {
    // (a umask cannot widen a mode, but a platform's default ACL could: the mode is set again)
    if (exact) fs.fchmodSync(fd, mode)
    const stat = fs.fstatSync(fd)
    if (!stat.isFile()) throw new RunFileError(`${file} is not a regular file`)
    return { fd, identity: { dev: stat.dev, ino: stat.ino } }
  } catch (error) {
    fs.closeSync(fd)
    throw error
  }
}

/**
 * Why the file open as `identity` is no longer the file at `file` (removed, moved, or replaced by
 * another file, a directory or a symlink while it was open: what was written reached no file
 * anyone can read); undefined while it still is.
 */
export function replacedSince(file: string, identity: FileIdentity): string | undefined {
  let stat: fs.Stats
  try {
    stat = fs.lstatSync(file)
  } catch (error) {
    return `it was removed while the run was open (${messageOf(error)})`
  }
  if (stat.dev !== identity.dev || stat.ino !== identity.ino) return 'it was replaced while the run was open (the open file is no longer there)'
  return undefined
}

/** How {@link readRunFile}'s refusals name the file they refuse: the rule a link breaks, and what the file should be. */
export interface FileWords {
  /** `a run file is read only as the run wrote it, never through a link` */
  link: string
  /** `a file the run wrote` */
  noun: string
}

const RUN_FILE: FileWords = { link: 'a run file is read only as the run wrote it, never through a link', noun: 'a file the run wrote' }

/**
 * The bytes of run file `file` (or of another file read as strictly, `words` naming it), read only when it is a regular file reached by no symlink: a
 * symlink (whatever it points to), a directory, a FIFO or a device is refused with a
 * RunFileError naming the file and what it is, and nothing of what it points to is read.
 */
export function readRunFile(file: string, words: FileWords = RUN_FILE): Buffer {
  checkNoLink(file, words)
  let fd: number
  try {
    fd = fs.openSync(file, O_RDONLY | O_NOFOLLOW | O_NONBLOCK)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ELOOP') throw new RunFileError(`${file} is a symlink: refused (${words.link})`)
    throw error
  }
  try {
    const stat = fs.fstatSync(fd)
    if (!stat.isFile()) throw new RunFileError(`${file} is ${kindOf(stat)}, not ${words.noun}: refused`)
    return fs.readFileSync(fd)
  } finally {
    fs.closeSync(fd)
  }
}

/**
 * Why file `name` of run directory `dir` cannot be opened by a writer that follows links (the
 * engine's audit writer opens its logs for append): it is a symlink, or not a regular file;
 * undefined when it is a regular file or is not there. Checked before the writer opens them, so
 * a link planted in a run directory never has its target appended to or cut.
 */
export function notARunFile(dir: string, name: string): string | undefined {
  const file = path.join(dir, name)
  let stat: fs.Stats | undefined
  try {
    stat = fs.lstatSync(file, { throwIfNoEntry: false })
  } catch {
    return undefined
  }
  if (stat === undefined || stat.isFile()) return undefined
  return stat.isSymbolicLink() ? `${file} is a symlink: refused (a log file is never written through a link)` : `${file} is ${kindOf(stat)}, not a log file: refused`
}

/** Refuses a symlink at `file` where O_NOFOLLOW cannot (the platform has none). */
function checkNoLink(file: string, words: FileWords): void {
  if (O_NOFOLLOW !== 0) return
  let stat: fs.Stats
  try {
    stat = fs.lstatSync(file)
  } catch {
    return
  }
  if (stat.isSymbolicLink()) throw new RunFileError(`${file} is a symlink: refused (${words.link})`)
}

/** What a file that is not a regular file is, for an error. */
function kindOf(stat: fs.Stats): string {
  if (stat.isDirectory()) return 'a directory'
  if (stat.isFIFO()) return 'a FIFO'
  if (stat.isSocket()) return 'a socket'
  if (stat.isCharacterDevice() || stat.isBlockDevice()) return 'a device'
  return 'not a regular file'
}
