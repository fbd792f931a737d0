//! Policy checks that decide whether a tool call may run.
pub mod shell;
