//! The toolwire engine: tool registration, argument validation, the dispatch scheduler and the
//! result envelope. It knows nothing of N-API; the Node binding drives it through the JSON
//! protocol in [`dispatch::protocol`].
//!
//! The pipeline of a call: the model's arguments are parsed and validated ([`args`]) against the
//! tool's compiled schema ([`registry`]), the [`dispatch`] scheduler runs hooks and the tool under
//! deadlines, concurrency limits and keys, and what comes back becomes one
//! [`ToolResult`] ([`output`]), whatever happened.
//!
//! Around it, the provider side: what toolwire knows of each provider's wire API (reading its
//! streamed responses, writing calls and results back into its history, its id rules, its
//! schema dialect, its request body) is described per wire in [`provider`], which wires the
//! pieces kept in [`wire`], [`ids`] and [`schema`].

pub mod ansi;
pub mod args;
pub mod audit;
pub mod boundary_enums;
pub mod canonical;
pub mod content;
pub mod contract;
pub mod definitions;
pub mod dispatch;
pub mod envelope;
pub mod error;
pub mod flat_args;
pub mod gate;
pub mod id_hash;
pub mod ids;
pub mod joined;
pub mod json_input;
pub mod json_text;
#[cfg(test)]
mod layers;
pub mod layout;
pub mod options;
pub mod output;
pub mod params;
pub mod plan;
pub mod pointer;
pub mod policy;
pub mod provider;
pub mod quote;
pub mod rap_message;
pub mod registry;
pub mod runtime;
pub mod sanitize;
pub mod schema;
pub mod schemas;
pub mod secrets;
pub mod suggest;
pub mod wire;

pub use envelope::{ContentBlock, ToolCall, ToolError, ToolExecutionEvent, ToolResult, ToolStatus};
pub use error::{Error, ErrorCode, Fault, Result};
pub use runtime::{parse_runtime_options, Runtime, RuntimeConfig};
