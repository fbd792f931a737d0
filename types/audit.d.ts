// The declarations of ts/audit.js until it is ported to TypeScript (then emitted from it).

import type { AuditReplay, AuditVerification } from './types.js'

/** Reads a run directory back (synchronous): the directory `dir`, or run `runId` under the audit root `dir`. */
export declare function replayRun(dir: string, runId?: string): AuditReplay

/**
 * Checks a run directory's invariants (the directory `dir`, or run `runId` under the audit root `dir`): one final
 * result per call, consecutive attempts, results after their calls, argsHash, every record written whole.
 */
export declare function verifyRun(dir: string, runId?: string): AuditVerification

/**
 * The directory of run `runId` under the audit root `root`. Run ids map to directories one-to-one: lowercase letters,
 * digits, `-`, `_` and inner dots are kept, every other byte is percent-encoded (`team/a` is `team%2Fa`, `Run` is
 * `%52un`, `..` is `%2E%2E`), a lone surrogate is `~u` and its hex (`a\udc00b` is `a~uDC00b`, apart from
 * `a\ufffdb`, `a%EF%BF%BDb`); an id whose encoding passes 128 bytes is named by its start and SHA-256.
 */
export declare function auditRunDir(root: string, runId: string): string
