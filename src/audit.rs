//! The audit log: `NativeAudit` writes one run's directory for the JavaScript driver;
//! `replayRun` and `verifyRun` read one back.

use std::path::Path;
use std::sync::{Arc, Mutex};

use napi_derive::napi;
use toolwire_core::audit::{now_ms, replay_run, verify_run, AuditWriter, RecordScrubber};
use toolwire_core::sanitize::{ResultRules, RuleOptions, Sanitizer};
use toolwire_core::Error;

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
    /// secret patterns scrub everything written.
    #[napi(constructor)]
    pub fn new(dir: String, run: String, sanitize: String) -> napi::Result<Self> {
        guard(|| {
            let run = parse_json("audit: the run record", &run)?;
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

    /// Records a call (0), a result (1) or an event (2), given as JSON text; flushes when the
    /// last flush is more than `flush_interval_ms` old.
    #[napi]
    pub fn record(
        &mut self,
        kind: u32,
        record: String,
        flush_interval_ms: f64,
    ) -> napi::Result<()> {
        let writer = &mut self.writer;
        guard(|| {
            let writer = writer
                .as_mut()
                .ok_or_else(|| Error::internal("audit: the run was already finished"))?;
            let value = parse_json("audit: a record", &record)?;
            let now = now_ms();
            match kind {
                0 => writer.record_call(&value, now)?,
                1 => writer.record_result(&value, now)?,
                _ => writer.record_event(&value, now)?,
            };
            if writer.flush_due(now, flush_interval_ms.max(0.0) as u64) {
                writer.flush()?;
            }
            Ok(())
        })
    }

    /// Writes what is buffered.
    #[napi]
    pub fn flush(&mut self) -> napi::Result<()> {
        let writer = &mut self.writer;
        guard(|| match writer.as_mut() {
            Some(writer) => writer.flush(),
            None => Ok(()),
        })
    }

    /// Flushes and closes the run, merging `update` (JSON text, empty for none) into run.json.
    #[napi]
    pub fn finish(&mut self, update: String) -> napi::Result<()> {
        let writer = self.writer.take();
        guard(|| {
            let Some(writer) = writer else {
                return Ok(());
            };
            let update = if update.is_empty() {
                None
            } else {
                Some(parse_json("audit: the run update", &update)?)
            };
            writer.finish(update.as_ref())
        })
    }
}

/// Reads a run directory back: `{ run, calls, results, events, partialLines, ... }` as JSON.
#[napi(js_name = "replayRun")]
pub fn replay_run_js(dir: String) -> napi::Result<String> {
    guard(|| {
        let replay = replay_run(Path::new(&dir))?;
        serde_json::to_string(&replay).map_err(|e| Error::internal(e.to_string()))
    })
}

/// Checks a run directory's invariants: `{ ok, problems }` as JSON.
#[napi(js_name = "verifyRun")]
pub fn verify_run_js(dir: String) -> napi::Result<String> {
    guard(|| {
        let verification = verify_run(Path::new(&dir));
        serde_json::to_string(&verification).map_err(|e| Error::internal(e.to_string()))
    })
}
