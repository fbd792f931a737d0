//! The approval stage of a call: after its final arguments passed the policy and loop checks,
//! it runs, is refused, waits for `onApproval`, or (without a callback) ends `pending` until
//! [`Dispatcher::resume`] brings it back with `resolveApproval`'s decision.

use std::path::PathBuf;

use serde_json::{json, Value};

use super::{
    Action, BatchOptions, CallRef, CallRequest, Dispatcher, Now, RawArguments, Registry, Resumed,
    Stage,
};
use crate::envelope::{ToolError, ToolStatus};
use crate::error::{Error, ErrorCode, Result};
use crate::policy::approvals::{
    assess, fallback, grant_secret_kinds, ApprovalDecision, ApprovalRequest, Ask, Grant, Security,
    Verdict,
};
use crate::policy::tools::PolicyContext;
use crate::secrets::SecretScanner;

/// The most calls waiting for `resolveApproval` at once; past it, new ones are refused.
pub const MAX_DEFERRED: usize = 4096;

/// What an `onApproval` answer applies to.
#[derive(Debug)]
pub(super) struct Waiting {
    /// Whether the call was allowlisted (for `askFallback: allowlist`).
    hit: bool,
    /// What `allow-always` remembers.
    grant: Grant,
}

/// A call that ended `pending`, kept for `resolveApproval`.
#[derive(Debug)]
pub(super) struct Deferred {
    call_id: String,
    tool: String,
    args: Value,
    run_id: Option<String>,
    context: PolicyContext,
    timeout_ms: Option<u64>,
    grant: Grant,
    stamp: Option<Box<super::protocol::CallStamp>>,
}

/// The call a resumed batch runs, for the driver: `{ id, name, arguments }`.
pub struct ResumedCall {
    /// The model's id for the call.
    pub id: String,
    /// The tool.
    pub name: String,
    /// The arguments that were approved.
    pub arguments: Value,
    /// The run it belongs to.
    pub run_id: Option<String>,
    /// Its plan marks.
    pub stamp: Option<Box<super::protocol::CallStamp>>,
}

impl Dispatcher {
    /// Decides whether the call needs approval and acts on it.
    pub(super) fn approve(&mut self, call: CallRef, now: Now) {
        let batch = &self.batches[&call.batch];
        let c = &batch.calls[call.slot as usize];
        let spec = c.spec.clone().expect("approved calls have a tool");
        let config = self.gate.approvals();
        let settings = batch
            .options
            .approval
            .over(spec.guards.approval)
            .over(config.settings);
        let security = settings.security.unwrap_or(Security::Full);
        let ask = settings.ask.unwrap_or(Ask::Off);
        // The common case, and the default: nothing to look up.
        if security == Security::Full && ask != Ask::Always {
            return self.prepared(call);
        }
        let param = spec.guards.command_param.as_deref();
        let found = self
            .store
            .hit(config, &spec.name, param, c.args.get(), self.command_base());
        let reason = match assess(&spec.name, security, ask, found.hit, &found.miss) {
            Verdict::Run => return self.prepared(call),
            Verdict::Refuse(reason) => return self.refuse(call, reason, now),
            Verdict::Ask(reason) => reason,
        };
        self.next_approval += 1;
        let approval_id = format!("approval-{}", self.next_approval);
        let exec = found.command.as_deref().zip(found.analysis.as_ref());
        let grant = Grant::for_call(&spec.name, exec);
        let request = ApprovalRequest {
            approval_id: approval_id.clone(),
            tool_call_id: c.request.id.clone(),
            tool_name: spec.name.clone(),
            args: c.args.get().clone(),
            command: found.command,
            analysis: found.analysis,
            reason,
            security,
            ask,
        };
        if config.has_callback {
            let timeout_ms = config.timeout_ms;
            let c = self.call_mut(call).expect("call exists");
            c.approval = Some(Box::new(Waiting {
                hit: found.hit,
                grant,
            }));
            let token = c.await_answer(Stage::Approval);
            self.set_deadline_in(call, timeout_ms, now);
            self.actions.push(Action::Approval {
                call,
                token,
                request: Box::new(request),
            });
        } else {
            self.defer(call, approval_id, request, grant, now);
        }
    }

    /// What a relative working directory of an exec-like call (its `cwd`, `workdir`, ...
    /// argument) is resolved against: the workspace root, else the process's working directory
    /// (where a spawned child's relative `cwd` leads).
    fn command_base(&self) -> Option<PathBuf> {
        self.gate
            .workspace_root()
            .cloned()
            .filter(|dir| dir.is_absolute())
            .or_else(|| std::env::current_dir().ok())
    }

    /// Without `onApproval`: the call ends `pending`, kept for [`Dispatcher::resume`].
    fn defer(
        &mut self,
        call: CallRef,
        approval_id: String,
        request: ApprovalRequest,
        grant: Grant,
        now: Now,
    ) {
        if self.deferred.len() >= MAX_DEFERRED {
            let error = ToolError::new(
                ErrorCode::LimitExceeded,
                format!(
                    "Tool \"{}\" needs approval, but {MAX_DEFERRED} calls already wait for \
                     resolveApproval, so the call was not run.",
                    request.tool_name
                ),
            );
            return self.fail(call, ToolStatus::Blocked, error, now);
        }
        let options = &self.batches[&call.batch].options;
        let c = &self.batches[&call.batch].calls[call.slot as usize];
        self.deferred.insert(
            approval_id.clone(),
            Deferred {
                call_id: c.request.id.clone(),
                tool: request.tool_name.clone(),
                args: c.args.get().clone(),
                run_id: options.run_id.clone(),
                context: options.context.clone(),
                timeout_ms: options.timeout_ms,
                grant,
                stamp: c.request.stamp.clone(),
            },
        );
        let mut error = ToolError::new(
            ErrorCode::ApprovalRequired,
            format!(
                "Tool \"{}\" needs approval before it runs ({}); the call is waiting for a \
                 decision.",
                request.tool_name, request.reason
            ),
        );
        let request = serde_json::to_value(&request).expect("requests serialize");
        error.details = Some(request);
        let mut result = self.result_for(call, now);
        result.fail(ToolStatus::Pending, error);
        result.details = Some(json!({ "approvalId": approval_id }));
        self.persist_or_finish(call, result, now);
    }

    /// `onApproval` answered (or failed: that is a denial).
    pub(super) fn approval_answered(
        &mut self,
        call: CallRef,
        answer: std::result::Result<Value, String>,
        now: Now,
    ) {
        let (waiting, tool) = self.take_waiting(call);
        let decision = match answer {
            Ok(value) => ApprovalDecision::from_json(&value, "onApproval: the answer"),
            Err(message) => Err(Error::caller(
                ErrorCode::ExecutionError,
                format!("onApproval failed: {message}"),
            )),
        };
        match decision {
            Ok(decision) => self.decided(call, decision, waiting.grant, now),
            Err(error) => {
                let reason = format!(
                    "Tool \"{tool}\" was not run: its approval could not be decided ({}).",
                    error.message
                );
                self.refuse(call, reason, now)
            }
        }
    }

    /// `onApproval` did not answer in time: `askFallback` decides.
    pub(super) fn approval_expired(&mut self, call: CallRef, now: Now) {
        let config = self.gate.approvals();
        let (ask_fallback, timeout_ms) = (config.ask_fallback, config.timeout_ms);
        let (waiting, tool) = self.take_waiting(call);
        match fallback(&tool, ask_fallback, waiting.hit, timeout_ms) {
            Verdict::Refuse(reason) => self.refuse(call, reason, now),
            _ => self.prepared(call),
        }
    }

    /// What the awaited answer applies to, and the tool's name.
    fn take_waiting(&mut self, call: CallRef) -> (Box<Waiting>, String) {
        let c = self.call_mut(call).expect("call exists");
        let waiting = c
            .approval
            .take()
            .expect("an approval stage keeps its grant");
        (waiting, c.request.name.clone())
    }

    /// A resumed call: its decision came from `resolveApproval`.
    pub(super) fn resumed(&mut self, call: CallRef, resumed: Resumed, now: Now) {
        self.decided(call, resumed.decision, resumed.grant, now)
    }

    /// Applies a decision: run, run and remember, or refuse.
    fn decided(&mut self, call: CallRef, decision: ApprovalDecision, grant: Grant, now: Now) {
        match decision {
            ApprovalDecision::Deny => {
                let tool = self.call(call).expect("call exists").request.name.clone();
                let reason = format!("Tool \"{tool}\" was not run: the approval was denied.");
                self.refuse(call, reason, now)
            }
            ApprovalDecision::AllowOnce => self.prepared(call),
            ApprovalDecision::AllowAlways => {
                let remembered = match self.grant_secrets(&grant) {
                    Ok(kinds) if kinds.is_empty() => {
                        self.store.remember(grant).map_err(|error| error.message)
                    }
                    Ok(kinds) => Err(format!(
                        "the command holds a secret ({}), which is never written to the \
                         approvals file; answer allow-always to a command without it",
                        kinds.join(", ")
                    )),
                    Err(error) => Err(error.message),
                };
                if let Err(reason) = remembered {
                    self.actions.push(Action::Warning {
                        call,
                        message: format!("allow-always was applied to this call only: {reason}"),
                    });
                }
                self.prepared(call)
            }
        }
    }

    /// The kinds of the secrets `grant` would remember ([`grant_secret_kinds`]), found by the
    /// runtime's scanner (custom patterns too), or the built-in one when secret scrubbing is off:
    /// the approvals file never holds a secret either way.
    fn grant_secrets(&self, grant: &Grant) -> Result<Vec<String>> {
        let built_in;
        let scanner = match self.rules.sanitizer.scanner() {
            Some(scanner) => scanner,
            None => {
                built_in = SecretScanner::new(&[])?;
                &built_in
            }
        };
        Ok(grant_secret_kinds(grant, scanner))
    }

    /// Ends the call `blocked` with `POLICY_DENIED`, never run.
    fn refuse(&mut self, call: CallRef, reason: String, now: Now) {
        let mut error = ToolError::new(ErrorCode::PolicyDenied, reason);
        error.details = Some(json!({ "layer": "approvals" }));
        self.fail(call, ToolStatus::Blocked, error, now)
    }

    /// Runs or refuses a call left `pending`, as batch `batch_id` of that one call; its final
    /// result comes as the batch's actions. An unknown or already resolved approval id is the
    /// caller's error. The call passes the tool policy again (it may have changed), not the
    /// loop check (it was counted) or the hooks (they already ran).
    pub fn resume(
        &mut self,
        registry: &Registry,
        batch_id: u32,
        approval_id: &str,
        decision: ApprovalDecision,
        events: bool,
        now: Now,
    ) -> Result<(ResumedCall, Vec<super::Action>)> {
        let deferred = self.deferred.remove(approval_id).ok_or_else(|| {
            Error::caller(
                ErrorCode::NotFound,
                format!(
                    "resolveApproval: no call is waiting for approval {}",
                    serde_json::to_string(approval_id).unwrap_or_default()
                ),
            )
        })?;
        let resumed = ResumedCall {
            id: deferred.call_id.clone(),
            name: deferred.tool.clone(),
            arguments: deferred.args.clone(),
            run_id: deferred.run_id.clone(),
            stamp: deferred.stamp.clone(),
        };
        let request = CallRequest {
            id: deferred.call_id,
            name: deferred.tool,
            arguments: RawArguments::Object(deferred.args.to_string()),
            stamp: deferred.stamp,
            exact_id: None,
        };
        let options = BatchOptions {
            timeout_ms: deferred.timeout_ms,
            run_id: deferred.run_id,
            events,
            context: deferred.context,
            resumed: Some(Box::new(Resumed {
                decision,
                grant: deferred.grant,
            })),
            ..BatchOptions::default()
        };
        let actions = self.open(registry, batch_id, vec![request], options, now)?;
        Ok((resumed, actions))
    }
}
