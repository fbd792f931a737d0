//! The audit log: `NativeAudit` writes one run's directory for the JavaScript driver;
//! `replayRun` and `verifyRun` read one back; `auditDirName` names a run's directory.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use napi::bindgen_prelude::Utf16String;
use napi_derive::napi;
use toolwire_core::audit::salvage::read_marked_text;
use toolwire_core::audit::{
    dir_name_utf16, escaped_id_utf16, replay_run, verify_run, AuditWriter, LogFile, RecordScrubber,
    RUN_ID_ESCAPED,
};
use toolwire_core::dispatch::Now;
use toolwire_core::sanitize::{ResultRules, RuleOptions, Sanitizer};
use toolwire_core::{Error, ErrorCode};

use crate::convert::parse_json;
use crate::error::guard;

/// The sanitizer of the last `sanitize` settings an audit log was opened with: a run per
/// dispatch would otherwise compile custom secret patterns for every directory.
static LAST_SANITIZER: Mutex<Option<(String, Arc<Sanitizer>)>> = Mutex::new(None);

/// The scrubber of the runtime's `sanitize` option (JSON text, empty for none).
fn scrubber_of(sanitize: &str) -> toolwire_core::Result<RecordScrubber> {
    if sanitize.is_empty() {
        return Ok(RecordScrubber::default());
    }
    let mut last = LAST_SANITIZER.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((text, sanitizer)) = last.as_ref() {
        if text == sanitize {
            return Ok(RecordScrubber::new(sanitizer.clone()));
        }
    }
    let options = RuleOptions {
        sanitize: Some(parse_json("audit: the sanitize option", sanitize)?),
        ..RuleOptions::default()
    };
    let sanitizer = ResultRules::default()
        .with(&options, "ToolRuntime: options.")?
        .sanitizer;
    *last = Some((sanitize.to_owned(), sanitizer.clone()));
    Ok(RecordScrubber::new(sanitizer))
}

/// The writer of one run directory; every record is JSON text, already redacted. Secrets are
/// scrubbed here (again) from every record and from run.json, with the runtime's settings.
#[napi]
pub struct NativeAudit {
    /// `None` once finished.
    writer: Option<AuditWriter>,
}

#[napi]
impl NativeAudit {
    /// Creates (or appends to) the run directory `dir`, writing `run` (JSON text) as `run.json`.
    /// `sanitize`: the runtime's `sanitize` option as JSON text (empty for the defaults), whose
    /// secret patterns scrub everything written. `run_id`: the run's id as JavaScript holds it
    /// (UTF-16): one that is not well-formed is kept exactly in `runIdEscaped` beside `runId`
    /// (see `toolwire_core::audit::RUN_ID_ESCAPED`).
    #[napi(constructor)]
    pub fn new(
        dir: String,
        run: String,
        sanitize: String,
        run_id: Utf16String,
    ) -> crate::error::Result<Self> {
        guard(|| {
            let mut run = read_text("audit: the run record", &run)?;
            if let (Some(escaped), Some(fields)) = (escaped_id_utf16(&run_id), run.as_object_mut())
            {
                fields.insert(RUN_ID_ESCAPED.to_owned(), escaped.into());
            }
            let scrubber = scrubber_of(&sanitize)?;
            Ok(NativeAudit {
                writer: Some(AuditWriter::create_scrubbed(
                    Path::new(&dir),
                    &run,
                    scrubber,
                )?),
            })
        })
    }

    /// Records a call, a result or an event (`kind`: a `LogFile` code), given as JSON text,
    /// stamped `epoch_ms` (the driver's `Date.now()`); flushes when the last flush is more than
    /// `flush_interval_ms` old. Whatever the text holds, the record is
    /// written (cut and marked when too deep) or its loss is (see `AuditWriter::record_text`).
    #[napi]
    pub fn record(
        &mut self,
        kind: u32,
        record: String,
        flush_interval_ms: f64,
        epoch_ms: f64,
    ) -> crate::error::Result<()> {
        self.write(flush_interval_ms, epoch_ms, |writer, now| {
            writer.record_text(log_file(kind)?, &record, now)
        })
    }

    /// Records what could be kept of a record JavaScript could not serialize: `head` (JSON text
    /// of its plain fields, with the `callId` of a call or result) marked as incomplete for
    /// `reason`.
    #[napi]
    pub fn record_incomplete(
        &mut self,
        kind: u32,
        head: String,
        reason: String,
        flush_interval_ms: f64,
        epoch_ms: f64,
    ) -> crate::error::Result<()> {
        self.write(flush_interval_ms, epoch_ms, |writer, now| {
            let head = serde_json::from_str(&head).unwrap_or_default();
            writer.record_incomplete(log_file(kind)?, &head, &reason, now)
        })
    }

    /// Runs `record` on the open writer at `epoch_ms` (the driver's clock, read as
    /// `Now::from_millis` reads it), then flushes when due.
    fn write(
        &mut self,
        flush_interval_ms: f64,
        epoch_ms: f64,
        record: impl FnOnce(&mut AuditWriter, u64) -> toolwire_core::Result<u64>,
    ) -> crate::error::Result<()> {
        let writer = &mut self.writer;
        guard(|| {
            let writer = writer
                .as_mut()
                .ok_or_else(|| Error::internal("audit: the run was already finished"))?;
            let now = Now::epoch_ms_of(epoch_ms);
            record(writer, now)?;
            if writer.flush_due(now, flush_interval_ms.max(0.0) as u64) {
                writer.flush()?;
            }
            Ok(())
        })
    }

    /// Writes what is buffered.
    #[napi]
    pub fn flush(&mut self) -> crate::error::Result<()> {
        let writer = &mut self.writer;
        guard(|| match writer.as_mut() {
            Some(writer) => writer.flush(),
            None => Ok(()),
        })
    }

    /// Flushes and closes the run, merging `update` (JSON text, empty for none) into run.json.
    #[napi]
    pub fn finish(&mut self, update: String) -> crate::error::Result<()> {
        let writer = self.writer.take();
        guard(|| {
            let Some(writer) = writer else {
                return Ok(());
            };
            let update = if update.is_empty() {
                None
            } else {
                Some(read_text("audit: the run update", &update)?)
            };
            writer.finish(update.as_ref())
        })
    }
}

/// JSON text from the driver for the run description, repaired as records are (deep parts cut
/// and marked, lone surrogates replaced), so what a plan holds never turns the log off.
fn read_text(what: &str, text: &str) -> toolwire_core::Result<serde_json::Value> {
    read_marked_text(text)
        .map_err(|reason| Error::caller(ErrorCode::ValidationError, format!("{what}: {reason}")))
}

/// The file of a record kind, by its code (`LogFile` in lib/protocol.generated.js); a code of
/// no file is the driver's bug.
fn log_file(kind: u32) -> toolwire_core::Result<LogFile> {
    LogFile::from_code(kind).ok_or_else(|| {
        Error::internal(format!(
            "malformed record from the driver: no log file has the code {kind}"
        ))
    })
}

/// The run directory: `dir` itself, or the directory of run `run_id` under the audit root `dir`.
fn run_dir_of(dir: &str, run_id: Option<&[u16]>) -> PathBuf {
    match run_id {
        Some(id) => Path::new(dir).join(dir_name_utf16(id)),
        None => PathBuf::from(dir),
    }
}

/// The directory name of run `run_id` under an audit root: one-to-one over every JavaScript
/// string, read as its UTF-16 code units so a lone surrogate is not lost (see
/// [`toolwire_core::audit::run_dir`]).
#[napi(js_name = "auditDirName")]
pub fn audit_dir_name(run_id: Utf16String) -> String {
    dir_name_utf16(&run_id)
}

/// Reads a run directory back (`dir`, or run `run_id` under the audit root `dir`):
/// `{ run, calls, results, events, partialLines, ... }` as JSON.
#[napi(js_name = "replayRun")]
pub fn replay_run_js(dir: String, run_id: Option<Utf16String>) -> crate::error::Result<String> {
    guard(|| {
        let replay = replay_run(&run_dir_of(&dir, run_id.as_deref()))?;
        serde_json::to_string(&replay).map_err(|e| Error::internal(e.to_string()))
    })
}

/// Checks a run directory's invariants (`dir`, or run `run_id` under the audit root `dir`):
/// `{ ok, problems }` as JSON.
#[napi(js_name = "verifyRun")]
pub fn verify_run_js(dir: String, run_id: Option<Utf16String>) -> crate::error::Result<String> {
    guard(|| {
        let verification = verify_run(&run_dir_of(&dir, run_id.as_deref()));
        serde_json::to_string(&verification).map_err(|e| Error::internal(e.to_string()))
    })
}
