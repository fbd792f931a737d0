// The error the adapters throw for a failed result where their library expects a throw.
import type { ErrorCode, ToolResult, ToolStatus } from '../index.js'

export interface ToolwireToolError extends Error {
  name: 'ToolwireToolError'
  /** The result's error code. */
  code: ErrorCode | undefined
  status: ToolStatus
  /** The failed result. */
  result: ToolResult
}
