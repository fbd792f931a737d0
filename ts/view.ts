// The view of a result that events carry where it differs from the result (a leaf: the
// generated action layouts name it, and the package's public declarations reach them).

import type { ShownContentBlock } from './types.js'

/** What events carry instead of a result where they differ (toolwire_core::dispatch::view). */
export interface ResultView {
  content?: ShownContentBlock[]
  details?: unknown
  detailsWithheld?: true
  data?: unknown
  dataWithheld?: true
  args?: unknown
}
