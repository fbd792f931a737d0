//! The Node.js binding of toolwire: a thin layer over `toolwire-core`.
//!
//! Everything crosses the boundary as JSON text, in batches (see
//! `toolwire_core::dispatch::protocol`); the JavaScript layer in `index.js` keeps the functions
//! (tools, hooks) and drives the engine's dispatcher. No logic lives here that could live in the
//! core.
//!
//! Cargo features `image` and `rap` (both default) can be left out of a slim build;
//! `features()` tells JavaScript which are in.

mod audit;
mod convert;
mod decoder;
mod error;
mod features;
mod history;
mod options;
mod plan;
mod policy;
#[cfg(feature = "rap")]
mod rap;
mod runtime;
mod sanitize;
mod schema;

pub use audit::{audit_dir_name, replay_run_js, verify_run_js, NativeAudit};
pub use decoder::{check_wire_js, NativeDecoder};
pub use features::features_js;
pub use history::{
    encode_results_js, encode_tool_calls_js, marked_error_text_js, normalize_tool_call_id_js,
    repair_history_js,
};
pub use options::{check_option_keys_js, MAX_QUOTED_BYTES};
pub use plan::NativePlan;
pub use policy::analyze_command_js;
#[cfg(feature = "rap")]
pub use rap::NativeRap;
pub use runtime::NativeRuntime;
pub use sanitize::{sanitize_result_js, scrub_secrets_js};
pub use schema::{denormalize_strict_json, normalize_schema_json, validate_tool_name_js};
