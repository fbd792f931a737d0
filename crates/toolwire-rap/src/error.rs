//! The crate's one error type, [`RapError`], classified by [`Fault`].

use std::fmt;

/// Whose fault an error is: decides how the binding reports it (a remote tool's or the
/// network's failure becomes an error result the model sees; the caller's misuse and our own
/// bugs are thrown).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fault {
    /// The remote tool server: a bad manifest, a rejected invocation.
    Remote,
    /// The network: the server could not be reached.
    Network,
    /// The caller: bad configuration or misuse (duplicate tool, unknown tool, bad URL).
    Caller,
    /// This crate: an invariant broke.
    Internal,
}

/// Every error of the RAP transport. Messages name the offending value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RapError {
    /// `GET /.well-known/rap-toolset` answered with a status other than 2xx.
    ManifestStatus {
        /// The manifest URL.
        url: String,
        /// The HTTP status received.
        status: u16,
    },
    /// The manifest body is not a toolset manifest (bad JSON, wrong shape, too large).
    ManifestParse {
        /// The manifest URL (or `<memory>` when parsed from bytes).
        url: String,
        /// What was wrong.
        message: String,
    },
    /// The manifest parsed but breaks a rule (names, empty tools, schemas, duplicates).
    InvalidToolset {
        /// The toolset's name as sent (possibly the offending value itself).
        toolset: String,
        /// What was wrong, naming the offending value.
        reason: String,
    },
    /// The invocation was answered with a status other than 200 (after retries for 5xx).
    Rejected {
        /// The endpoint invoked.
        endpoint: String,
        /// The final HTTP status.
        status: u16,
        /// How many attempts were made.
        attempts: u32,
    },
    /// The server could not be reached (after retries).
    Unreachable {
        /// The URL tried.
        url: String,
        /// How many attempts were made.
        attempts: u32,
        /// The last transport error.
        message: String,
    },
    /// A toolset would expose a tool name that is already loaded; the toolset is refused whole.
    DuplicateTool {
        /// The duplicated (exposed) tool name.
        tool: String,
        /// The toolset that was refused.
        toolset: String,
    },
    /// No loaded toolset exposes this tool name.
    UnknownTool {
        /// The name asked for.
        tool: String,
    },
    /// A URL given by the caller (base URL, public URL, bind address) is not usable.
    InvalidConfig {
        /// The offending value.
        value: String,
        /// What was wrong.
        message: String,
    },
    /// The callback server could not bind its listener.
    Bind {
        /// The address asked for.
        addr: String,
        /// The OS error.
        message: String,
    },
    /// `answer_user_choice` for an id with no pending user choice (in that thread, if given).
    UnknownChoice {
        /// The choice id.
        id: String,
        /// The thread asked for, if any.
        group_id: Option<String>,
    },
    /// `answer_user_choice` without a thread for an id pending in several threads.
    AmbiguousChoice {
        /// The choice id.
        id: String,
        /// The threads it is pending in, sorted.
        groups: Vec<String>,
    },
    /// `answer_user_choice` with an index outside the offered choices.
    InvalidChoice {
        /// The choice id.
        id: String,
        /// The index given.
        selected: usize,
        /// How many choices were offered.
        choices: usize,
    },
    /// An invariant of this crate broke.
    Internal {
        /// What broke.
        message: String,
    },
}

impl RapError {
    /// Whose fault this error is.
    pub fn fault(&self) -> Fault {
        match self {
            RapError::ManifestStatus { .. }
            | RapError::ManifestParse { .. }
            | RapError::InvalidToolset { .. }
            | RapError::Rejected { .. } => Fault::Remote,
            RapError::Unreachable { .. } => Fault::Network,
            RapError::DuplicateTool { .. }
            | RapError::UnknownTool { .. }
            | RapError::InvalidConfig { .. }
            | RapError::Bind { .. }
            | RapError::UnknownChoice { .. }
            | RapError::AmbiguousChoice { .. }
            | RapError::InvalidChoice { .. } => Fault::Caller,
            RapError::Internal { .. } => Fault::Internal,
        }
    }
}

impl fmt::Display for RapError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RapError::ManifestStatus { url, status } => {
                write!(f, "toolset manifest {url} answered HTTP {status}")
            }
            RapError::ManifestParse { url, message } => {
                write!(f, "toolset manifest {url} is not valid: {message}")
            }
            RapError::InvalidToolset { toolset, reason } => {
                write!(f, "toolset {toolset:?} is invalid: {reason}")
            }
            RapError::Rejected {
                endpoint,
                status,
                attempts,
            } => write!(
                f,
                "RAP invocation rejected by {endpoint}: HTTP {status} (after {attempts} attempt(s))"
            ),
            RapError::Unreachable {
                url,
                attempts,
                message,
            } => write!(
                f,
                "RAP server {url} unreachable after {attempts} attempt(s): {message}"
            ),
            RapError::DuplicateTool { tool, toolset } => write!(
                f,
                "toolset {toolset:?} refused: tool {tool:?} is already loaded"
            ),
            RapError::UnknownTool { tool } => write!(f, "no RAP tool named {tool:?}"),
            RapError::InvalidConfig { value, message } => write!(f, "{value:?}: {message}"),
            RapError::Bind { addr, message } => {
                write!(f, "RAP callback server cannot bind {addr}: {message}")
            }
            RapError::UnknownChoice { id, group_id: None } => {
                write!(f, "no pending user choice {id:?}")
            }
            RapError::UnknownChoice {
                id,
                group_id: Some(group),
            } => write!(f, "no pending user choice {id:?} in thread {group:?}"),
            RapError::AmbiguousChoice { id, groups } => write!(
                f,
                "user choice {id:?} is pending in several threads ({}): pass the groupId of its \
                 rap_user_choice event",
                groups
                    .iter()
                    .map(|g| format!("{g:?}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            RapError::InvalidChoice {
                id,
                selected,
                choices,
            } => write!(
                f,
                "user choice {id:?}: selected {selected} but only {choices} choice(s) were offered"
            ),
            RapError::Internal { message } => write!(f, "internal error: {message}"),
        }
    }
}

impl std::error::Error for RapError {}
