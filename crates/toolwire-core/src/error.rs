//! The one error type of the engine, classified by whose fault it is.
//!
//! Faults decide where an error goes: problems caused by the model, a tool, policy or time become
//! [`ToolResult`](crate::envelope::ToolResult)s that are fed back to the model; misuse by the
//! caller and bugs of ours are returned as `Err` and thrown to JavaScript.

use std::fmt;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The machine-readable code of a failed call or a thrown error.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum ErrorCode {
    /// The arguments do not match the tool's schema.
    ValidationError,
    /// The arguments are not valid JSON.
    InvalidJson,
    /// The arguments were cut short (the model stopped mid-call).
    IncompleteArguments,
    /// No tool of that name is registered.
    NotFound,
    /// Policy forbids the call.
    PolicyDenied,
    /// The call waits for an approval.
    ApprovalRequired,
    /// A hook blocked the call.
    Blocked,
    /// The call passed its deadline.
    Timeout,
    /// The call was cancelled.
    Cancelled,
    /// The tool (or a hook after it) failed.
    ExecutionError,
    /// Details could not be redacted safely and were withheld.
    RedactionFailed,
    /// A size or count limit was exceeded.
    LimitExceeded,
    /// The request conflicts with existing state (for example a duplicate name).
    Conflict,
    /// A precondition of the request does not hold.
    PreconditionFailed,
    /// A plan failed validation (an unknown reference, a cycle, a bad field).
    PlanInvalid,
    /// A bug in toolwire.
    InternalError,
}

impl ErrorCode {
    /// Every code, in the order of the enum (generated for JavaScript as `ERROR_CODES`).
    pub const ALL: [ErrorCode; 16] = [
        ErrorCode::ValidationError,
        ErrorCode::InvalidJson,
        ErrorCode::IncompleteArguments,
        ErrorCode::NotFound,
        ErrorCode::PolicyDenied,
        ErrorCode::ApprovalRequired,
        ErrorCode::Blocked,
        ErrorCode::Timeout,
        ErrorCode::Cancelled,
        ErrorCode::ExecutionError,
        ErrorCode::RedactionFailed,
        ErrorCode::LimitExceeded,
        ErrorCode::Conflict,
        ErrorCode::PreconditionFailed,
        ErrorCode::PlanInvalid,
        ErrorCode::InternalError,
    ];

    /// The code as it appears on the wire, e.g. `"VALIDATION_ERROR"`.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::ValidationError => "VALIDATION_ERROR",
            ErrorCode::InvalidJson => "INVALID_JSON",
            ErrorCode::IncompleteArguments => "INCOMPLETE_ARGUMENTS",
            ErrorCode::NotFound => "NOT_FOUND",
            ErrorCode::PolicyDenied => "POLICY_DENIED",
            ErrorCode::ApprovalRequired => "APPROVAL_REQUIRED",
            ErrorCode::Blocked => "BLOCKED",
            ErrorCode::Timeout => "TIMEOUT",
            ErrorCode::Cancelled => "CANCELLED",
            ErrorCode::ExecutionError => "EXECUTION_ERROR",
            ErrorCode::RedactionFailed => "REDACTION_FAILED",
            ErrorCode::LimitExceeded => "LIMIT_EXCEEDED",
            ErrorCode::Conflict => "CONFLICT",
            ErrorCode::PreconditionFailed => "PRECONDITION_FAILED",
            ErrorCode::PlanInvalid => "PLAN_INVALID",
            ErrorCode::InternalError => "INTERNAL_ERROR",
        }
    }
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Whose fault an error is; decides whether it becomes a result or is thrown.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fault {
    /// The model sent something wrong (bad arguments, unknown tool).
    Model,
    /// The tool failed.
    Tool,
    /// Policy or a hook refused the call.
    Policy,
    /// A deadline passed or the call was cancelled.
    Time,
    /// The caller misused the API; thrown.
    Caller,
    /// A bug in toolwire; thrown.
    Internal,
}

/// An error of the engine: a code, a fault class and a message naming the offending value.
#[derive(Clone, Debug, PartialEq)]
pub struct Error {
    /// Whose fault it is.
    pub fault: Fault,
    /// The machine-readable code.
    pub code: ErrorCode,
    /// What went wrong, naming the value at fault.
    pub message: String,
}

impl Error {
    /// A misuse of the API by the caller (thrown to JavaScript).
    pub fn caller(code: ErrorCode, message: impl Into<String>) -> Self {
        Error {
            fault: Fault::Caller,
            code,
            message: message.into(),
        }
    }

    /// A bug of ours (thrown to JavaScript with code `INTERNAL_ERROR`).
    pub fn internal(message: impl Into<String>) -> Self {
        Error {
            fault: Fault::Internal,
            code: ErrorCode::InternalError,
            message: message.into(),
        }
    }

    /// Whether this error is delivered as a result rather than thrown.
    pub fn becomes_result(&self) -> bool {
        !matches!(self.fault, Fault::Caller | Fault::Internal)
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.code, self.message)
    }
}

impl std::error::Error for Error {}

/// The engine's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Why a call failed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ToolError {
    /// The machine-readable code.
    pub code: ErrorCode,
    /// What went wrong, written for the model and the user.
    pub message: String,
    /// Whether running the same call again may succeed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retryable: Option<bool>,
    /// Structured detail, e.g. the list of validation failures.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub details: Option<serde_json::Value>,
}

impl ToolError {
    /// An error with the retryability its code implies: a timeout or a tool failure may pass on
    /// another attempt, a bad argument or a refusal will not.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        let retryable = matches!(code, ErrorCode::Timeout | ErrorCode::ExecutionError);
        ToolError {
            code,
            message: message.into(),
            retryable: Some(retryable),
            details: None,
        }
    }

    /// The same error with structured details attached.
    pub fn with_details(mut self, details: serde_json::Value) -> Self {
        self.details = Some(details);
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_serialize_as_their_wire_names() {
        for code in [
            ErrorCode::ValidationError,
            ErrorCode::InvalidJson,
            ErrorCode::NotFound,
            ErrorCode::Timeout,
            ErrorCode::PlanInvalid,
            ErrorCode::InternalError,
        ] {
            let json = serde_json::to_string(&code).unwrap();
            assert_eq!(json, format!("\"{}\"", code.as_str()));
        }
    }

    /// `ALL` lists every variant: the JSON Schema of the type (which schemars derives from the
    /// variants themselves) enumerates exactly its names.
    #[test]
    fn all_lists_every_code() {
        let schema = schemars::schema_for!(ErrorCode).to_value();
        let mut declared: Vec<String> = schema["enum"]
            .as_array()
            .or_else(|| schema["oneOf"].as_array())
            .expect("an enum schema")
            .iter()
            .map(|v| {
                v.as_str()
                    .or_else(|| v["const"].as_str())
                    .or_else(|| v["enum"][0].as_str())
                    .unwrap()
                    .to_owned()
            })
            .collect();
        declared.sort();
        let mut listed: Vec<String> = ErrorCode::ALL.iter().map(|c| c.to_string()).collect();
        listed.sort();
        assert_eq!(declared, listed);
        for code in ErrorCode::ALL {
            let back: ErrorCode = serde_json::from_value(code.as_str().into()).unwrap();
            assert_eq!(back, code);
        }
    }

    #[test]
    fn only_caller_and_internal_faults_are_thrown() {
        assert!(!Error::caller(ErrorCode::Conflict, "x").becomes_result());
        assert!(!Error::internal("x").becomes_result());
        let model = Error {
            fault: Fault::Model,
            code: ErrorCode::InvalidJson,
            message: "x".into(),
        };
        assert!(model.becomes_result());
    }
}
