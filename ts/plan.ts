// Action plans: the engine's NativePlan decides what runs and when (references, foreach,
// retries, onError); this driver performs its actions (dispatch a call, sleep before a retry,
// emit a step event), feeds results back, asks for confirmation and reports plan events.

import { NativePlan } from '../native.js'
import { ONCE, ToolwireError, native, messageOf, describe, jsonText, nonFiniteNumber, checkOptionKeys, own, ownOptions } from './common.js'
import { wallNow } from './clock.js'
import { ABORTED, untilAnswered, callbackTimeout } from './callback.js'
import type { AuditLog } from './audit.js'
import type {
  ActionPlan,
  ConfirmationRequest,
  DispatchOptions,
  ModelToolCall,
  PlanEvent,
  PlanOptions,
  PlanOutcome,
  PlanStepErrorCode,
  ToolExecutionEvent,
  ToolResult,
} from './types.js'

// The engine's defaults and the most retries a plan step may ask for (toolwire_core::plan).
import {
  PLAN_DEFAULT_MAX_CONCURRENCY as DEFAULT_MAX_CONCURRENCY,
  PLAN_DEFAULT_MAX_RETRIES as DEFAULT_MAX_RETRIES,
  PLAN_MAX_RETRIES as MAX_RETRIES,
  PlanAction,
  type PlanDispatchAction,
  type PlanEngineAction,
  type PlanFinishedAction,
  type PlanStepEventAction,
} from './protocol.generated.js'

const FUNCTION_OPTIONS = ['onEvent', 'confirm'] as const
// passed to each step's dispatch: the policy context, and `tools` (the registered tools a step may run)
const CONTEXT_OPTIONS = ['provider', 'agentId', 'sender', 'tools'] as const

/** An option passed to each step's dispatch: one of {@link CONTEXT_OPTIONS}. */
type ContextOption = (typeof CONTEXT_OPTIONS)[number]

/** The checked options of `executePlan`. */
interface CheckedOptions {
  maxConcurrency: number
  maxRetries: number
  signal: AbortSignal | undefined
  onEvent: PlanOptions['onEvent']
  confirm: PlanOptions['confirm']
  callbackTimeoutMs: number
  /** what each step's dispatch is given of the options */
  context: Pick<PlanOptions, ContextOption>
}

/** The keys of the options of `executePlan(plan, options)`. */
export const PLAN_OPTIONS: readonly string[] = ['maxConcurrency', 'maxRetries', 'audit', 'signal', 'callbackTimeoutMs', ...FUNCTION_OPTIONS, ...CONTEXT_OPTIONS]

/** The checked options of `executePlan`; a bad one throws a TypeError naming it. */
function planOptions(raw: PlanOptions | null | undefined): CheckedOptions {
  if (raw === undefined || raw === null) raw = {}
  if (typeof raw !== 'object' || Array.isArray(raw)) {
    throw new TypeError(`executePlan: options must be an object, got ${describe(raw)}`)
  }
  // (its own keys only, each read once: see ownOptions)
  const options = ownOptions(raw)
  checkOptionKeys('executePlan: options', options, PLAN_OPTIONS)
  const wholeIn = (key: 'maxConcurrency' | 'maxRetries', min: number, max: number, fallback: number): number => {
    const value = options[key]
    if (value === undefined) return fallback
    if (!Number.isInteger(value) || value < min || value > max) {
      throw new TypeError(`executePlan: options.${key} must be a whole number from ${min} to ${max}, got ${describe(value)}`)
    }
    return value
  }
  const checked: CheckedOptions = {
    maxConcurrency: wholeIn('maxConcurrency', 1, 0xffffffff, DEFAULT_MAX_CONCURRENCY),
    maxRetries: wholeIn('maxRetries', 0, MAX_RETRIES, DEFAULT_MAX_RETRIES),
    signal: options.signal,
    onEvent: options.onEvent,
    confirm: options.confirm,
    callbackTimeoutMs: callbackTimeout('executePlan', options.callbackTimeoutMs),
    context: {},
  }
  if (checked.signal !== undefined && !(checked.signal instanceof AbortSignal)) {
    throw new TypeError(`executePlan: options.signal must be an AbortSignal, got ${describe(checked.signal)}`)
  }
  for (const key of FUNCTION_OPTIONS) {
    if (options[key] !== undefined && typeof options[key] !== 'function') {
      throw new TypeError(`executePlan: options.${key} must be a function, got ${describe(options[key])}`)
    }
  }
  // The engine checks the context (`sender` is `{ id, isOwner }`) when the first step dispatches.
  // (generic in the key, so each option is copied as its own type)
  const copy = <K extends ContextOption>(key: K): void => {
    if (options[key] !== undefined) checked.context[key] = options[key]
  }
  for (const key of CONTEXT_OPTIONS) copy(key)
  return checked
}

/** What happened to a step: its events are `step.<kind>`. */
type StepKind = 'scheduled' | 'started' | 'finished' | 'failed' | 'skipped' | 'cancelled'

/** Why a step did not end `ok`. */
type StepProblem = { code: PlanStepErrorCode; message: string }

/** What `executePlan` drives the runtime with (see {@link executePlan}). */
export interface PlanHooks {
  dispatch: (calls: ModelToolCall[], options: DispatchOptions) => Promise<ToolResult[]>
  audit?: AuditLog | undefined
  endRun: (runId: string) => void
}

/** A call of a step as its events show it. */
interface CallInfo {
  callId: string
  tool: string
  attempt: number
  loopId?: string
  index?: number
  confirmationId?: string
}

/** A step's latest call. */
interface StepCall extends CallInfo {
  stepId: string
}

/** What a plan event carries besides what every one does. */
type EventFields = Omit<PlanEvent, 'type' | 'runId' | 'timestamp' | 'level' | 'message'>

/** Emits a plan event (to the audit log and the listener). */
type Emit = (type: PlanEvent['type'], level: PlanEvent['level'], message: string, fields: EventFields) => void

/** What {@link drive} works with. */
interface Driving {
  dispatch: PlanHooks['dispatch']
  nativePlan: NativePlan
  runId: string
  opts: CheckedOptions
  emit: Emit
  confirmationId: string | undefined
  /** the confirmation was refused: the plan is cancelled before it starts */
  cancelled: boolean
  /** the plan has an audit log (which records step progress) */
  recording: boolean
}

/** A fresh run id: `plan_<time36>_<random>`. */
function newRunId(): string {
  return `plan_${wallNow().toString(36)}_${Math.random().toString(36).slice(2, 10)}`
}

/** The level of a step event. */
function stepLevel(kind: StepKind): PlanEvent['level'] {
  return kind === 'failed' || kind === 'skipped' || kind === 'cancelled' ? 'warn' : 'info'
}

/** The sentence of a step event. */
function stepMessage(kind: StepKind, stepId: string, tool: string | undefined, problem: StepProblem | undefined): string {
  const step = `Step "${stepId}"`
  const why = problem === undefined ? '' : `: ${problem.message}`
  switch (kind) {
    case 'scheduled':
      return `${step} is scheduled: its dependencies are done.`
    case 'started':
      return `${step} started calling tool "${tool}".`
    case 'finished':
      return `${step} finished.`
    case 'failed':
      return `${step} failed${why}`
    case 'skipped':
      return `${step} was skipped${why}`
    default:
      return `${step} was cancelled${why}`
  }
}

/**
 * Runs `plan` on `runtime`: validates it in the engine (an invalid plan rejects with a
 * ToolwireError `PLAN_INVALID`), asks for confirmation when the plan requires it, performs the
 * engine's actions until it finishes, and resolves with `{ runId, status, steps, results }`.
 * `hooks`: `dispatch(calls, options)` runs a step's call (into the plan's audit log), `audit` is
 * that log (or undefined), `endRun(runId)` is called once the plan is over.
 */
export async function executePlan(runtime: unknown, hooks: PlanHooks, plan: ActionPlan, options?: PlanOptions | null): Promise<PlanOutcome> {
  const opts = planOptions(options)
  const planText = jsonText('executePlan: plan', plan)
  // A step's args or a var holding Infinity or NaN would reach its tool as null (JSON.stringify's
  // rule): the plan is invalid, naming where, as arguments given as objects are refused at their path.
  const nonFinite = nonFiniteNumber(plan, planText)
  if (nonFinite !== undefined) {
    throw new ToolwireError(
      'PLAN_INVALID',
      `executePlan: the plan holds the number ${nonFinite[1]} at ${nonFinite[0]}, which JSON cannot carry (JSON.stringify writes it as null): use a finite number`,
    )
  }
  // (the plan's own keys, as the engine reads its JSON)
  const planRunId = plan !== null && typeof plan === 'object' ? own(plan, 'runId') : undefined
  const ownRunId = typeof planRunId === 'string' ? planRunId : undefined
  const engineOptions = JSON.stringify({
    maxConcurrency: opts.maxConcurrency,
    maxRetries: opts.maxRetries,
    runId: ownRunId ?? newRunId(),
  })
  const nativePlan = native(() => new NativePlan(planText, engineOptions))
  const runId = nativePlan.runId
  const toConfirm: ConfirmationRequest['steps'] = JSON.parse(nativePlan.confirmationSteps())
  if (toConfirm.length > 0 && opts.confirm === undefined) {
    throw new ToolwireError(
      'PRECONDITION_FAILED',
      `executePlan: the plan requires confirmation of steps ${toConfirm.map((s) => `"${s.id}"`).join(', ')} but options.confirm is missing`,
    )
  }
  const tools = new Map<string, string>()
  const planSteps = plan !== null && typeof plan === 'object' ? own(plan, 'steps') : undefined
  if (Array.isArray(planSteps)) {
    for (const step of planSteps as unknown[]) {
      if (step !== null && typeof step === 'object') tools.set(own(step, 'id') as string, own(step, 'tool') as string)
    }
  }

  const recorder = hooks.audit?.open(runId, { kind: 'plan', plan })
  const emit: Emit = (type, level, message, fields) => {
    const event: PlanEvent = { type, runId, timestamp: wallNow(), level, message, ...fields }
    if (recorder !== undefined) recorder.event(event)
    if (opts.onEvent === undefined) return
    try {
      opts.onEvent(event)
    } catch (error) {
      process.emitWarning(`toolwire: executePlan onEvent listener threw on ${type}: ${messageOf(error)}`, 'ToolwireWarning')
    }
  }

  emit('run.started', 'info', `Plan run "${runId}" started with ${tools.size} step${tools.size === 1 ? '' : 's'}.`, {})
  let outcome: PlanOutcome
  let confirmation: { confirmationId: string; confirmed: boolean; reason: string | undefined } | undefined
  try {
    let confirmationId: string | undefined
    let refusal: string | undefined
    if (toConfirm.length > 0) {
      confirmationId = `${runId}:confirmation`
      const request: ConfirmationRequest = { runId, confirmationId, steps: toConfirm }
      emit(
        'run.confirmationRequested',
        'info',
        `Plan run "${runId}" asks to confirm ${toConfirm.length} step${toConfirm.length === 1 ? '' : 's'} before it runs.`,
        { confirmationId, steps: toConfirm },
      )
      try {
        // Raced with the signal and a deadline: a confirm that never answers cancels the plan.
        // (a plan with steps to confirm has a confirm: checked above)
        const answer = await untilAnswered('executePlan: options.confirm', () => opts.confirm!(request), {
          signal: opts.signal,
          timeoutMs: opts.callbackTimeoutMs,
        })
        if (answer === ABORTED) {
          refusal = 'the signal aborted before confirm answered'
        } else if (answer === true) {
          emit('run.confirmed', 'info', `Plan run "${runId}" was confirmed.`, { confirmationId })
        } else {
          refusal = `the confirmation was refused (confirm answered ${describe(answer)})`
        }
      } catch (error) {
        refusal = (error as { code?: unknown } | null | undefined)?.code === 'TIMEOUT' ? messageOf(error) : `confirm threw: ${messageOf(error)}`
      }
      if (refusal !== undefined) {
        emit('run.cancelled', 'warn', `Plan run "${runId}" was cancelled: ${refusal}.`, { confirmationId, reason: refusal })
      }
    }
    if (confirmationId !== undefined) confirmation = { confirmationId, confirmed: refusal === undefined, reason: refusal }
    outcome = await drive({
      dispatch: hooks.dispatch,
      nativePlan,
      runId,
      opts,
      emit,
      confirmationId,
      cancelled: refusal !== undefined,
      recording: recorder !== undefined,
    })
  } catch (error) {
    if (recorder !== undefined) hooks.audit?.release(recorder, { status: 'error', error: messageOf(error), confirmation: confirmation ?? null })
    throw error
  } finally {
    try {
      hooks.endRun(runId)
    } catch (error) {
      process.emitWarning(`toolwire: executePlan could not end run "${runId}": ${messageOf(error)}`, 'ToolwireWarning')
    }
  }
  const level = outcome.status === 'failed' ? 'error' : outcome.status === 'cancelled' ? 'warn' : 'info'
  emit('run.finished', level, `Plan run "${runId}" finished: ${outcome.status}.`, { status: outcome.status })
  if (recorder !== undefined) hooks.audit?.release(recorder, { status: outcome.status, confirmation: confirmation ?? null })
  // the plan's log failed, whenever (its calls' results and audit_failed say so where it was one of theirs)
  if (recorder?.failure !== undefined) outcome.auditFailed = recorder.failure
  return outcome
}

/**
 * Performs the engine's actions until `finished`; resolves with the PlanOutcome. Rejects only
 * for a fault (an engine error, a dispatch that rejected), after aborting the calls in flight.
 */
function drive({ dispatch, nativePlan, runId, opts, emit, confirmationId, cancelled, recording }: Driving): Promise<PlanOutcome> {
  return new Promise((resolve, reject) => {
    const controller = new AbortController()
    const timers = new Set<NodeJS.Timeout>()
    /** Every result fed back, in the order the engine received them. */
    const results: ToolResult[] = []
    /** Per step: its latest call `{ callId, tool, attempt, loopId, index }`. */
    const lastCall = new Map<string, StepCall>()
    let over = false
    let cancelEmitted = cancelled

    const end = (): void => {
      over = true
      for (const timer of timers) clearTimeout(timer)
      timers.clear()
      if (opts.signal !== undefined) opts.signal.removeEventListener('abort', onAbort)
    }
    const fail = (error: unknown): void => {
      if (over) return
      end()
      controller.abort()
      reject(error)
    }
    const step = (call: () => string): void => {
      if (over) return
      let actions: PlanEngineAction[]
      try {
        actions = JSON.parse(native(call)) as PlanEngineAction[]
      } catch (error) {
        fail(error)
        return
      }
      perform(actions)
    }
    const callFields = (info: CallInfo | undefined): Pick<EventFields, keyof CallInfo> =>
      info === undefined
        ? {}
        : { callId: info.callId, tool: info.tool, attempt: info.attempt, loopId: info.loopId, index: info.index, confirmationId: info.confirmationId }

    // A call's events go to the listener, and its progress becomes `step.progress`, which the
    // audit log records whether or not anyone listens.
    const forwardFor = (info: StepCall): ((event: ToolExecutionEvent) => void) | undefined => {
      if (opts.onEvent === undefined && !recording) return undefined
      return (event) => {
        if (opts.onEvent !== undefined) {
          try {
            opts.onEvent(event)
          } catch (error) {
            process.emitWarning(`toolwire: executePlan onEvent listener threw on ${event.type}: ${messageOf(error)}`, 'ToolwireWarning')
          }
        }
        if (event.type === 'tool_execution_update') {
          emit('step.progress', 'info', `Step "${info.stepId}" reported progress.`, {
            stepId: info.stepId,
            ...callFields(info),
            partialResult: event.partialResult,
          })
        }
      }
    }

    const startCall = (action: PlanDispatchAction): void => {
      const [, stepId, callId, tool, args, attempt, loopId, index, timeoutMs, , confirmationRequired] = action
      const info: StepCall = {
        stepId,
        callId,
        tool,
        attempt,
        loopId: loopId ?? undefined,
        index: index ?? undefined,
        confirmationId: confirmationRequired ? confirmationId : undefined,
      }
      lastCall.set(stepId, info)
      const call: ModelToolCall = {
        id: callId,
        name: tool,
        arguments: args as ModelToolCall['arguments'],
        stepId,
        attempt,
        loopId: info.loopId,
        confirmationId: info.confirmationId,
      }
      let running: Promise<ToolResult[]>
      try {
        running = dispatch([call], {
          runId,
          timeoutMs: timeoutMs ?? undefined,
          signal: controller.signal,
          onEvent: forwardFor(info),
          ...opts.context,
        })
      } catch (error) {
        running = Promise.reject(error)
      }
      running.then(
        ([result]) => {
          if (over) return
          results.push(result)
          step(() => nativePlan.completed(callId, JSON.stringify(result)))
        },
        fail,
      )
    }

    // A step event carries the step's marks (its loopId for a foreach, the confirmationId when
    // it was confirmed), known from the start, and the fields of its latest call: for `started`
    // the call dispatched with it, for the end events the last attempt.
    const stepEvent = (action: PlanStepEventAction, batch: PlanEngineAction[]): void => {
      const [, kind, stepId, tool, loopId, confirmationRequired, problem] = action
      let info: CallInfo | undefined = lastCall.get(stepId)
      if (kind === 'started') {
        const first = batch.find((a): a is PlanDispatchAction => a[0] === PlanAction.DISPATCH && a[1] === stepId)
        if (first !== undefined) info = { callId: first[2], tool: first[3], attempt: first[5], loopId: first[6] ?? undefined, index: first[7] ?? undefined }
      }
      const fields: EventFields = { stepId, ...callFields(info), tool }
      if (loopId !== null) fields.loopId = loopId
      if (confirmationRequired && confirmationId !== undefined) fields.confirmationId = confirmationId
      if (problem !== null) fields.error = problem
      emit(`step.${kind}`, stepLevel(kind), stepMessage(kind, stepId, tool, problem ?? undefined), fields)
    }

    const finish = (action: PlanFinishedAction): void => {
      const [, , status, summaries] = action
      end()
      const steps: PlanOutcome['steps'] = {}
      for (const [id, summary] of Object.entries(summaries)) {
        const out: PlanOutcome['steps'][string] = { status: summary.status, results: summary.results.map((at) => results[at]) }
        const error = own(summary, 'error') as typeof summary.error | undefined
        if (error !== undefined) out.error = error
        steps[id] = out
      }
      resolve({ runId, status, steps, results })
    }

    function perform(actions: PlanEngineAction[]): void {
      for (const action of actions) {
        if (over) return
        switch (action[0]) {
          case PlanAction.DISPATCH:
            startCall(action)
            break
          case PlanAction.WAIT: {
            const [, stepId, index, , delayMs] = action
            const timer = setTimeout(() => {
              timers.delete(timer)
              step(() => nativePlan.retryDue(stepId, index))
            }, delayMs)
            timers.add(timer)
            break
          }
          case PlanAction.STEP_EVENT:
            stepEvent(action, actions)
            break
          case PlanAction.FINISHED:
            finish(action)
            break
          case PlanAction.FAULT:
            fail(new ToolwireError('INTERNAL_ERROR', `executePlan: ${action[1]}`))
            break
          default:
            fail(new ToolwireError('INTERNAL_ERROR', `executePlan: unknown plan action ${JSON.stringify(action)}`))
        }
      }
    }

    function onAbort(): void {
      if (over) return
      if (!cancelEmitted) {
        cancelEmitted = true
        emit('run.cancelled', 'warn', `Plan run "${runId}" was cancelled: the signal aborted.`, { reason: 'the signal aborted' })
      }
      for (const timer of timers) clearTimeout(timer)
      timers.clear()
      controller.abort()
      step(() => nativePlan.cancel())
    }

    if (cancelled) {
      step(() => nativePlan.cancel())
    } else if (opts.signal !== undefined && opts.signal.aborted) {
      onAbort()
    } else {
      if (opts.signal !== undefined) opts.signal.addEventListener('abort', onAbort, ONCE)
      step(() => nativePlan.next())
    }
  })
}
