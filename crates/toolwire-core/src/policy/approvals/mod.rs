//! Approvals: which calls run without asking, which are refused, and which wait for a human.
//!
//! `security` says what may run (`deny` nothing, `allowlist` what is allowlisted, `full`
//! everything) and `ask` when to ask (`off`, `on-miss`, `always`). A call is a hit when its
//! tool is in `allowTools` or, for an exec-like tool, when [`analyze_command`] approves its
//! command; answers of `allow-always` extend both through the [`ApprovalStore`], kept in a file.
//!
//! [`analyze_command`]: super::shell::analyze_command

mod command_line;
mod config;
mod grant_secrets;
mod store;

pub use config::{ApprovalSettings, ApprovalsConfig};
pub use grant_secrets::grant_secret_kinds;
pub use store::{ApprovalStore, Grant, Hit};

use serde::Serialize;
use serde_json::Value;

use super::shell::Analysis;
use crate::error::{Error, ErrorCode, Result};

/// What may run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Security {
    /// Nothing.
    Deny,
    /// What is allowlisted.
    Allowlist,
    /// Everything.
    Full,
}

/// When a human is asked.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Ask {
    /// Never.
    Off,
    /// When the call is not a hit.
    OnMiss,
    /// For every call.
    Always,
}

impl Security {
    /// The option's spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Security::Deny => "deny",
            Security::Allowlist => "allowlist",
            Security::Full => "full",
        }
    }
}

impl Ask {
    /// The option's spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Ask::Off => "off",
            Ask::OnMiss => "on-miss",
            Ask::Always => "always",
        }
    }
}

/// What happens to a call before it runs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// It runs.
    Run,
    /// It is refused, for this reason.
    Refuse(String),
    /// A human decides; the reason says why they are asked.
    Ask(String),
}

/// Decides a call of `tool` under `security` and `ask`; `hit` says whether it is allowlisted
/// and `miss` why not (the analysis reason, or the tool not being in `allowTools`).
pub fn assess(tool: &str, security: Security, ask: Ask, hit: bool, miss: &str) -> Verdict {
    match (security, ask, hit) {
        (Security::Deny, _, _) => Verdict::Refuse(format!(
            "Tool \"{tool}\" is not allowed to run: approvals.security is \"deny\"."
        )),
        (_, Ask::Always, _) => {
            Verdict::Ask(format!("approvals.ask is \"always\" for tool \"{tool}\""))
        }
        (Security::Full, _, _) | (Security::Allowlist, _, true) => Verdict::Run,
        (Security::Allowlist, Ask::OnMiss, false) => Verdict::Ask(miss.to_string()),
        (Security::Allowlist, Ask::Off, false) => Verdict::Refuse(format!(
            "Tool \"{tool}\" was not approved: {miss}, and approvals.ask is \"off\"."
        )),
    }
}

/// What `askFallback` does when nobody answered within `timeout_ms`.
pub fn fallback(tool: &str, fallback: Security, hit: bool, timeout_ms: u64) -> Verdict {
    let unanswered = format!("No approval answer for tool \"{tool}\" came within {timeout_ms} ms");
    match (fallback, hit) {
        (Security::Full, _) | (Security::Allowlist, true) => Verdict::Run,
        (Security::Allowlist, false) => Verdict::Refuse(format!(
            "{unanswered}, and approvals.askFallback \"allowlist\" does not allow the call."
        )),
        (Security::Deny, _) => Verdict::Refuse(format!(
            "{unanswered}, and approvals.askFallback is \"deny\"."
        )),
    }
}

/// An answer to an approval request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ApprovalDecision {
    /// Run this call.
    AllowOnce,
    /// Run this call and remember the grant (see [`Grant::for_call`]).
    AllowAlways,
    /// Refuse it.
    Deny,
}

impl ApprovalDecision {
    /// Reads `"allow-once" | "allow-always" | "deny"`, or a boolean (`true` allows once,
    /// `false` denies); anything else is the caller's error, naming the value and where it came
    /// from.
    pub fn from_json(value: &Value, at: &str) -> Result<ApprovalDecision> {
        match value {
            Value::String(s) if s == "allow-once" => Ok(ApprovalDecision::AllowOnce),
            Value::String(s) if s == "allow-always" => Ok(ApprovalDecision::AllowAlways),
            Value::String(s) if s == "deny" => Ok(ApprovalDecision::Deny),
            Value::Bool(true) => Ok(ApprovalDecision::AllowOnce),
            Value::Bool(false) => Ok(ApprovalDecision::Deny),
            _ => Err(Error::caller(
                ErrorCode::ValidationError,
                format!(
                    "{at} must be \"allow-once\", \"allow-always\", \"deny\", true (allow once) or false (deny), got {}",
                    crate::policy::tools::config::describe(value)
                ),
            )),
        }
    }
}

/// What `onApproval(request)` receives.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ApprovalRequest {
    /// The id `resolveApproval` takes (deferred mode) and that names the request.
    pub approval_id: String,
    /// The model's id for the call.
    pub tool_call_id: String,
    /// The tool.
    pub tool_name: String,
    /// The final arguments.
    pub args: Value,
    /// The command of an exec-like tool.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
    /// The command's analysis.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub analysis: Option<Analysis>,
    /// Why approval is needed.
    pub reason: String,
    /// The settings in force.
    pub security: Security,
    /// The settings in force.
    pub ask: Ask,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_assess_matrix() {
        use Ask::*;
        use Security::*;
        // (security, ask, hit) -> 'r'un, 'x' refuse, 'a'sk
        let rows = [
            (Deny, Off, true, 'x'),
            (Deny, OnMiss, false, 'x'),
            (Deny, Always, true, 'x'),
            (Allowlist, Off, true, 'r'),
            (Allowlist, Off, false, 'x'),
            (Allowlist, OnMiss, true, 'r'),
            (Allowlist, OnMiss, false, 'a'),
            (Allowlist, Always, true, 'a'),
            (Allowlist, Always, false, 'a'),
            (Full, Off, false, 'r'),
            (Full, OnMiss, false, 'r'),
            (Full, Always, true, 'a'),
        ];
        for (security, ask, hit, expected) in rows {
            let verdict = assess("exec", security, ask, hit, "`rm` is not allowlisted");
            let got = match &verdict {
                Verdict::Run => 'r',
                Verdict::Refuse(_) => 'x',
                Verdict::Ask(_) => 'a',
            };
            assert_eq!(got, expected, "{security:?} {ask:?} hit={hit}: {verdict:?}");
        }
        assert_eq!(
            assess("exec", Allowlist, OnMiss, false, "why"),
            Verdict::Ask("why".into())
        );
        match assess("exec", Allowlist, Off, false, "`rm` is not allowlisted") {
            Verdict::Refuse(reason) => assert_eq!(
                reason,
                "Tool \"exec\" was not approved: `rm` is not allowlisted, and approvals.ask is \"off\"."
            ),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn the_fallback_matrix() {
        let rows = [
            (Security::Deny, true, false),
            (Security::Deny, false, false),
            (Security::Allowlist, true, true),
            (Security::Allowlist, false, false),
            (Security::Full, false, true),
        ];
        for (security, hit, runs) in rows {
            let verdict = fallback("t", security, hit, 50);
            assert_eq!(
                verdict == Verdict::Run,
                runs,
                "{security:?} {hit}: {verdict:?}"
            );
            if let Verdict::Refuse(reason) = verdict {
                assert!(reason.contains("within 50 ms"), "{reason}");
            }
        }
    }

    #[test]
    fn decisions_are_read_exactly() {
        assert_eq!(
            ApprovalDecision::from_json(&json!("allow-always"), "d").unwrap(),
            ApprovalDecision::AllowAlways
        );
        assert_eq!(
            ApprovalDecision::from_json(&json!(true), "d").unwrap(),
            ApprovalDecision::AllowOnce
        );
        assert_eq!(
            ApprovalDecision::from_json(&json!(false), "d").unwrap(),
            ApprovalDecision::Deny
        );
        for bad in [
            json!("Allow-once"),
            json!(1),
            json!("true"),
            json!(null),
            json!({}),
        ] {
            let error = ApprovalDecision::from_json(&bad, "onApproval: the answer").unwrap_err();
            assert!(
                error.message.starts_with(
                    "onApproval: the answer must be \"allow-once\", \"allow-always\", \"deny\", true (allow once) or false (deny), got"
                ),
                "{}",
                error.message
            );
        }
    }
}
