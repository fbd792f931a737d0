// Helpers shared by the benchmarks: number formatting, the Markdown results table, order
// statistics, forced garbage collection and the machine line every report starts with.

import os from 'node:os'
import v8 from 'node:v8'
import vm from 'node:vm'

/** `n` with a fixed number of decimals. */
export function fmt(n, digits = 2) {
  return n.toFixed(digits)
}

/** A Markdown table: the first column left-aligned, the others right-aligned. */
export function table(header, rows) {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)))
  const line = (cells) => `| ${cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join(' | ')} |`
  const sep = `|${widths.map((w, i) => (i === 0 ? '-'.repeat(w + 2) : `${'-'.repeat(w + 1)}:`)).join('|')}`
  return [line(header), `${sep}|`, ...rows.map(line)].join('\n')
}

/** The median of `values` (any order). */
export function median(values) {
  const sorted = [...values].sort((x, y) => x - y)
  const mid = sorted.length >> 1
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
}

/** The nearest-rank percentile `p` of an ascending array. */
export function percentile(sorted, p) {
  const rank = Math.ceil((p / 100) * sorted.length)
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1]
}

/**
 * A full garbage collection, or undefined where gc cannot be exposed. `npm run bench` runs plain
 * `node`, so gc is exposed here rather than by a command-line flag.
 */
export const collectGarbage = (() => {
  v8.setFlagsFromString('--expose-gc')
  const gc = vm.runInNewContext('typeof gc === "function" ? gc : undefined')
  v8.setFlagsFromString('--no-expose-gc')
  return gc
})()

/** The `machine:` and `node:` lines of a report. */
export function machineLines() {
  const cpus = os.cpus()
  return [
    `machine: ${cpus.length > 0 ? cpus[0].model : 'unknown CPU'}, ${cpus.length} cores, ${os.platform()} ${os.release()} ${os.arch()}`,
    `node:    ${process.version}`,
  ]
}
