//! The audit log of a run (issue 7): `run.json` plus three append-only JSONL files, replay and
//! verification.
//!
//! Each run has its own directory under the audit root, named by [`run_dir::dir_name`]: run ids
//! map to directory names one-to-one (percent-encoded), so `team/a` and `team_a` never share one.
//! A run directory holds `run.json` (the plan, policy snapshot and confirmation, replaced
//! atomically), and `calls.jsonl`, `results.jsonl` and `events.jsonl`, one JSON object a line.
//! Every line carries `seq` (one counter across the three files, so replay can merge the order)
//! and `ts` (ms since the epoch); every call carries `argsHash`, the hex SHA-256 of its
//! canonical arguments. Redaction happens before records reach the [`AuditWriter`]; secret
//! scrubbing happens there too, and the writer scrubs every record and the run description
//! again with its [`RecordScrubber`], so nothing written can bypass it.
//!
//! - [`AuditWriter`] buffers records and appends whole lines on [`AuditWriter::flush`], so a
//!   crash leaves at most one partial final line per file.
//! - [`replay_run`] reads a directory back; partial final lines are counted, malformed lines
//!   kept for verification.
//! - [`verify_run`] checks the invariants and reports each breach as a [`Problem`].
//!
//! A call that ran is always recorded: a record too deep to read back, or holding escaped lone
//! surrogates, is repaired or written with its deepest parts cut and an `auditIncomplete` field
//! ([`salvage`]); one that cannot be written at all leaves an `audit_record_lost` event. Both are
//! problems for [`verify_run`].

pub mod lines;
pub mod options;
pub mod record;
pub mod replay;
pub mod run_dir;
pub mod salvage;
pub mod scrub;
pub mod verify;
pub mod writer;

#[cfg(test)]
mod test_support;

pub use options::{AuditOptions, DEFAULT_FLUSH_INTERVAL_MS};
pub use record::LogFile;
pub use replay::{replay_run, CallPair, MalformedLine, Replay};
pub use run_dir::{
    dir_name, dir_name_utf16, escaped_id_utf16, run_dir, run_id_of, run_id_units_of,
    unescaped_id_units, RUN_ID_ESCAPED,
};
pub use scrub::RecordScrubber;
pub use verify::{verify_replay, verify_run, Problem, Verification};
pub use writer::{now_ms, AuditWriter, RECORD_LOST};
