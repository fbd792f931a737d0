//! Policy building blocks the runtime consults before a call runs: which tools a context may use
//! ([`tools`]), whether path arguments stay inside the workspace ([`paths`]), whether a run
//! keeps repeating the same call ([`loops`]) and whether a shell command may run without asking
//! ([`shell`]).
//!
//! [`approvals`] decides which calls run without asking and keeps `allow-always` grants.
//! [`guards`] holds what a tool declares about its calls' policy (`ownerOnly`, `workspaceOnly`,
//! `command`); [`crate::gate`] puts the blocks together as the runtime consults them (it sits
//! above the registry, which holds each tool's guards).
//!
//! Each block is pure and self-contained: it parses its own slice of the JS options, compiles
//! it once and answers questions about single calls; wiring them into dispatch is the runtime's
//! job.

pub mod approvals;
pub mod guards;
pub mod loops;
pub mod paths;
pub mod shell;
pub mod tools;
