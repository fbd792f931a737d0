//! The tool allow/deny policy: profiles, groups, and layered allow/deny lists per provider,
//! agent and sender.
//!
//! [`PolicyConfig::from_json`] parses and validates the `policy` option, [`ToolPolicy::new`]
//! compiles it (groups expanded, names normalized) and [`ToolPolicy::decide`] answers whether a
//! tool may run in a [`PolicyContext`], with a [`Decision`] that explains which layer and rule
//! decided.

pub(crate) mod config;
mod decide;
mod names;
#[cfg(test)]
mod pinned_tests;

pub use config::{PolicyConfig, PolicyContext, SenderContext};
pub use decide::{Decision, ToolPolicy};
pub use names::{canonical_tool_name, BUILTIN_GROUPS, BUILTIN_PROFILES, TOOL_ALIASES};
