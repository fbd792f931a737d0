//! Test support for the per-wire repair tests: run a table of histories through the wire's
//! repair (as its provider wires it), check the output and report, and check that a second run
//! changes nothing.

use serde_json::Value;

use super::repair::{IdRename, RepairReport};
use crate::error::{ErrorCode, Result};
use crate::provider::{Provider, Wire};

/// The repair of `wire`'s history.
fn repair_history(messages: Vec<Value>, wire: Wire) -> Result<(Vec<Value>, RepairReport)> {
    Provider::of(wire).repair_history(messages)
}

/// One history and what its repair must give.
pub(super) struct Case {
    pub name: &'static str,
    pub input: Value,
    pub output: Value,
    pub report: RepairReport,
}

/// A report from `(from, to)` renames, synthesized and removed ids.
pub(super) fn report(
    renamed: &[(&str, &str)],
    synthesized: &[&str],
    removed: &[&str],
) -> RepairReport {
    RepairReport {
        renamed: renamed
            .iter()
            .map(|(from, to)| IdRename {
                from: (*from).to_owned(),
                to: (*to).to_owned(),
            })
            .collect(),
        synthesized: synthesized.iter().map(|s| (*s).to_owned()).collect(),
        removed: removed.iter().map(|s| (*s).to_owned()).collect(),
    }
}

fn messages(value: &Value, name: &str) -> Vec<Value> {
    value
        .as_array()
        .unwrap_or_else(|| panic!("{name}: the history must be an array"))
        .clone()
}

/// Repairs every case, compares output and report, and repairs the output again: the same
/// messages and an empty report.
pub(super) fn check(wire: Wire, cases: Vec<Case>) {
    for case in cases {
        let name = case.name;
        let (out, report) = repair_history(messages(&case.input, name), wire)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(Value::Array(out.clone()), case.output, "{name}: output");
        assert_eq!(report, case.report, "{name}: report");
        let (again, second) =
            repair_history(out.clone(), wire).unwrap_or_else(|e| panic!("{name}: again: {e}"));
        assert_eq!(again, out, "{name}: a second repair changed the messages");
        assert!(second.is_empty(), "{name}: second report {second:?}");
    }
}

/// Each history must fail with a `VALIDATION_ERROR` whose message is the expected one.
pub(super) fn check_errors(wire: Wire, cases: Vec<(Value, &str)>) {
    for (input, expected) in cases {
        let err = repair_history(messages(&input, expected), wire).expect_err(expected);
        assert_eq!(err.code, ErrorCode::ValidationError, "{expected}");
        assert_eq!(err.message, expected);
    }
}
