//! [`AuditWriter`]: the append-only writer of one run directory.
//!
//! Records are stamped and serialized into one in-memory buffer per file; [`AuditWriter::flush`]
//! appends each buffer with whole-line writes and syncs the files. A process killed between two
//! flushes loses whole lines only; killed during a flush, it leaves at most one partial final
//! line per file, which replay counts. `run.json` is only ever replaced atomically (temp file,
//! sync, rename).
//!
//! Every record, the run description and its updates pass through the writer's
//! [`RecordScrubber`] first, so no secret reaches the directory whoever built the record.

use std::fs::{self, File, OpenOptions};
use std::io::{self, BufReader, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use serde_json::{json, Map, Value};

use super::lines::{scan_jsonl, Tail};
use super::record::{stamp, LogFile, ARGS, ARGS_HASH, MAX_LINE_DEPTH, RUN_FILE, SEQ, TS};
use super::salvage::{fit_record, incomplete, read_marked_text};
use super::scrub::RecordScrubber;
use crate::canonical::args_sha256;
use crate::canonical::{write_json, KeyOrder};
use crate::error::{Error, ErrorCode, Result};
use crate::json_text::json_type;

/// The `run.json` field holding when the run ended (ms since the epoch), set by
/// [`AuditWriter::finish`]; a run without it did not end (it is still open, or crashed).
pub const ENDED_AT: &str = "endedAt";

/// The `run.json` field holding the `seq` of the run's last record, set by
/// [`AuditWriter::finish`]: records missing from the tail of the log are seen against it.
pub const LAST_SEQ: &str = "lastSeq";

/// The `type` of the event recorded when [`AuditWriter::create`] finds a partial final line
/// left by a crashed writer and cuts it off before appending. Replay counts it as a partial line.
pub const PARTIAL_LINE_DROPPED: &str = "audit_partial_line_dropped";

/// The `type` of the event recorded in place of a record that could not be written at all (its
/// text was not JSON, or it lacked what its file needs, such as a string `callId`): `{ type,
/// file, reason }`. [`verify_run`](super::verify_run) reports each as a `lost_record`.
pub const RECORD_LOST: &str = "audit_record_lost";

/// Distinguishes the temp files of writers of one process.
static NEXT_TEMP: AtomicU64 = AtomicU64::new(0);

/// Buffered bytes past which a record is written out at once (whole lines, then synced).
pub const DEFAULT_BUFFER_LIMIT: usize = 1 << 20;

/// The writer of one run directory: `run.json` and the three append-only JSONL files.
///
/// Dropping it without [`AuditWriter::finish`] still tries to write what is buffered.
#[derive(Debug)]
pub struct AuditWriter {
    dir: PathBuf,
    run: Map<String, Value>,
    files: [File; 3],
    /// Which file on disk each of `files` is, taken when it was opened: a flush checks that its
    /// path still names it.
    identities: [FileIdentity; 3],
    buffers: [Vec<u8>; 3],
    next_seq: u64,
    oldest_buffered_ts: Option<u64>,
    buffer_limit: usize,
    scrubber: RecordScrubber,
}

/// An error naming the file `path` and what failed.
fn file_error(path: &Path, what: &str, e: io::Error) -> Error {
    #[cfg(unix)]
    if e.raw_os_error() == Some(libc::ELOOP) {
        return Error::caller(
            ErrorCode::ExecutionError,
            format!(
                "audit file {}: {what}: it is a symbolic link, and the log never writes through one",
                path.display()
            ),
        );
    }
    Error::caller(
        ErrorCode::ExecutionError,
        format!("audit file {}: {what}: {e}", path.display()),
    )
}

impl AuditWriter {
    /// Opens the run directory `dir` for writing: creates it (and its parents), writes `run`
    /// (an object) as `run.json` atomically, and opens `calls.jsonl`, `results.jsonl` and
    /// `events.jsonl` for append, creating them when missing.
    ///
    /// An existing run directory is appended to: `seq` continues after the highest one found,
    /// and a partial final line left by a crashed writer is cut off (so appending cannot turn it
    /// into a malformed middle line) and recorded as a [`PARTIAL_LINE_DROPPED`] event.
    ///
    /// Secrets are scrubbed with the built-in kinds ([`RecordScrubber::default`]); see
    /// [`AuditWriter::create_scrubbed`] for the runtime's own settings.
    pub fn create(dir: &Path, run: &Value) -> Result<AuditWriter> {
        AuditWriter::create_scrubbed(dir, run, RecordScrubber::default())
    }

    /// [`AuditWriter::create`], scrubbing `run` and every later record with `scrubber`.
    pub fn create_scrubbed(
        dir: &Path,
        run: &Value,
        scrubber: RecordScrubber,
    ) -> Result<AuditWriter> {
        let (run, _) = fit_record(run, None);
        let run = scrubber.scrub(&run);
        let Value::Object(run) = run.as_ref() else {
            return Err(Error::caller(
                ErrorCode::ValidationError,
                format!(
                    "audit run.json content must be a JSON object, got {}",
                    json_type(&run)
                ),
            ));
        };
        create_dir(dir)?;
        write_run_atomically(dir, run)?;
        let mut max_seq = 0;
        let mut dropped = Vec::new();
        let mut open = |file: LogFile| -> Result<(File, FileIdentity)> {
            let path = dir.join(file.file_name());
            let (handle, seq, cut) = open_for_append(&path)?;
            max_seq = max_seq.max(seq);
            if let Some(len) = cut {
                dropped.push((file, len));
            }
            let identity = handle
                .metadata()
                .map(|meta| FileIdentity::of(&meta))
                .map_err(|e| file_error(&path, "cannot be read", e))?;
            Ok((handle, identity))
        };
        let (calls, calls_id) = open(LogFile::Calls)?;
        let (results, results_id) = open(LogFile::Results)?;
        let (events, events_id) = open(LogFile::Events)?;
        let mut writer = AuditWriter {
            dir: dir.to_path_buf(),
            run: run.clone(),
            files: [calls, results, events],
            identities: [calls_id, results_id, events_id],
            buffers: [Vec::new(), Vec::new(), Vec::new()],
            next_seq: max_seq + 1,
            oldest_buffered_ts: None,
            buffer_limit: DEFAULT_BUFFER_LIMIT,
            scrubber,
        };
        if !dropped.is_empty() {
            let now = now_ms();
            for (file, len) in dropped {
                let event =
                    json!({"type": PARTIAL_LINE_DROPPED, "file": file.file_name(), "bytes": len});
                writer.record(LogFile::Events, &event, now)?;
            }
            writer.flush()?;
        }
        Ok(writer)
    }

    /// The run directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The `seq` the next record will get (one counter across the three files).
    pub fn next_seq(&self) -> u64 {
        self.next_seq
    }

    /// Bytes recorded but not yet written to disk.
    pub fn buffered_bytes(&self) -> usize {
        self.buffers.iter().map(Vec::len).sum()
    }

    /// Sets how many buffered bytes trigger an immediate flush ([`DEFAULT_BUFFER_LIMIT`] by
    /// default); 0 flushes after every record.
    pub fn set_buffer_limit(&mut self, bytes: usize) {
        self.buffer_limit = bytes;
    }

    /// Records a call attempt in `calls.jsonl` at time `ts` (ms since the epoch); returns its
    /// `seq`. The call needs a string `callId`; `argsHash` is computed from `args` when absent.
    ///
    /// Records are buffered; past the buffer limit they are flushed at once, and an error of
    /// that flush is returned with the record kept buffered (do not record it again).
    pub fn record_call(&mut self, call: &Value, ts: u64) -> Result<u64> {
        self.record(LogFile::Calls, call, ts)
    }

    /// Records a result in `results.jsonl` at time `ts`; returns its `seq`. The result needs a
    /// string `callId` (and the call's `attempt` when the call has one).
    pub fn record_result(&mut self, result: &Value, ts: u64) -> Result<u64> {
        self.record(LogFile::Results, result, ts)
    }

    /// Records an event in `events.jsonl` at time `ts`; returns its `seq`.
    pub fn record_event(&mut self, event: &Value, ts: u64) -> Result<u64> {
        self.record(LogFile::Events, event, ts)
    }

    /// Records `text`, the JSON text of a record for `file`, whatever it holds: the driver's
    /// way in, which never refuses content. Text that nests too deep or holds escaped lone
    /// surrogates is repaired (see [`salvage`](super::salvage)); a record that still cannot be
    /// written (not JSON, not an object, no string `callId`) leaves a [`RECORD_LOST`] event
    /// naming the file and why, so the loss is on disk and [`verify_run`](super::verify_run)
    /// reports it. Only an I/O error of a flush is returned (the record stays buffered).
    pub fn record_text(&mut self, file: LogFile, text: &str, ts: u64) -> Result<u64> {
        match read_marked_text(text) {
            Ok(value) => self.record_or_lose(file, &value, None, ts),
            Err(reason) => self.record_lost(file, &reason, ts),
        }
    }

    /// Records `head` in `file` as a record that could not be written whole because of
    /// `reason` (e.g. its arguments could not be serialized): `head` (the fields that could,
    /// with the `callId` of a call or result) gets an `auditIncomplete` field
    /// ([`INCOMPLETE`](super::salvage::INCOMPLETE)) saying why, which
    /// [`verify_run`](super::verify_run) reports. Like [`AuditWriter::record_text`], a `head`
    /// that cannot be recorded leaves a [`RECORD_LOST`] event.
    pub fn record_incomplete(
        &mut self,
        file: LogFile,
        head: &Value,
        reason: &str,
        ts: u64,
    ) -> Result<u64> {
        self.record_or_lose(file, head, Some(incomplete(reason, 0)), ts)
    }

    /// Records `record` (with the `auditIncomplete` `marker` when given); a record refused as
    /// not recordable leaves a [`RECORD_LOST`] event instead.
    fn record_or_lose(
        &mut self,
        file: LogFile,
        record: &Value,
        marker: Option<Value>,
        ts: u64,
    ) -> Result<u64> {
        match self.line_of(file, record, marker, ts) {
            Ok(line) => self.append(file, line),
            Err(e) => self.record_lost(file, &e.message, ts),
        }
    }

    /// Records a [`RECORD_LOST`] event: a record for `file` could not be written, for `reason`.
    fn record_lost(&mut self, file: LogFile, reason: &str, ts: u64) -> Result<u64> {
        let event = json!({"type": RECORD_LOST, "file": file.file_name(), "reason": reason});
        self.record(LogFile::Events, &event, ts)
    }

    /// Scrubs and stamps `record` and appends its line to the buffer of `file`.
    fn record(&mut self, file: LogFile, record: &Value, ts: u64) -> Result<u64> {
        let line = self.line_of(file, record, None, ts)?;
        self.append(file, line)
    }

    /// The line written for `record` in `file`: scrubbed and stamped, with the `auditIncomplete`
    /// `marker` when given. A record nested deeper than [`MAX_LINE_DEPTH`] (serde_json could not
    /// read it back) has its deepest containers cut first and is marked so (see
    /// [`fit_record`]); the `argsHash` of a cut call is still that of the arguments it was given
    /// whole.
    fn line_of(
        &self,
        file: LogFile,
        record: &Value,
        marker: Option<Value>,
        ts: u64,
    ) -> Result<Map<String, Value>> {
        let (mut fitted, cut) = fit_record(record, marker);
        if let (true, LogFile::Calls, Value::Object(whole)) = (cut, file, record) {
            if !whole.contains_key(ARGS_HASH) {
                let hash = args_sha256(whole.get(ARGS).unwrap_or(&Value::Null));
                if let Value::Object(fields) = fitted.to_mut() {
                    fields.insert(ARGS_HASH.into(), Value::String(hash));
                }
            }
        }
        stamp(file, &self.scrubber.scrub(&fitted), self.next_seq, ts)
    }

    /// Appends the stamped `line` to the buffer of `file`; flushes past the buffer limit.
    fn append(&mut self, file: LogFile, line: Map<String, Value>) -> Result<u64> {
        let seq = self.next_seq;
        let ts = line.get(TS).and_then(Value::as_u64).unwrap_or(0);
        let buffer = &mut self.buffers[file.index()];
        write_json(&Value::Object(line), KeyOrder::AsHeld, buffer)
            .map_err(|e| Error::internal(format!("audit {} line: {e}", file.file_name())))?;
        buffer.push(b'\n');
        self.next_seq += 1;
        self.oldest_buffered_ts.get_or_insert(ts);
        if self.buffered_bytes() > self.buffer_limit {
            self.flush()?;
        }
        Ok(seq)
    }

    /// Whether buffered records have waited `interval_ms` or more at `now_ms`, so the driver
    /// can flush on an interval without a thread of its own.
    pub fn flush_due(&self, now_ms: u64, interval_ms: u64) -> bool {
        self.oldest_buffered_ts
            .is_some_and(|oldest| now_ms.saturating_sub(oldest) >= interval_ms)
    }

    /// Appends every buffered line to its file (calls first, then results, then events), then
    /// syncs the files written. On error the unwritten rest stays buffered, so a later flush
    /// continues exactly where this one stopped; the error names the file.
    pub fn flush(&mut self) -> Result<()> {
        if self.buffers.iter().all(Vec::is_empty) {
            return Ok(());
        }
        // Every file, not only those written now: the run's records are one log, and a
        // `calls.jsonl` removed after its last line was written loses that line as surely.
        for file in LogFile::ALL {
            let path = self.path(file);
            still_at_path(self.identities[file.index()], &path)
                .map_err(|e| file_error(&path, "cannot be written", e))?;
        }
        let mut written = [false; 3];
        for file in LogFile::ALL {
            let i = file.index();
            if self.buffers[i].is_empty() {
                continue;
            }
            let path = self.path(file);
            let result = write_prefix(&mut self.files[i], &mut self.buffers[i]);
            if let Err(e) = result {
                return Err(file_error(&path, "cannot be written", e));
            }
            written[i] = true;
        }
        for file in LogFile::ALL {
            if written[file.index()] {
                self.files[file.index()]
                    .sync_data()
                    .map_err(|e| file_error(&self.path(file), "cannot be synced", e))?;
            }
        }
        self.oldest_buffered_ts = None;
        Ok(())
    }

    /// Flushes, then ends the run in `run.json` (rewritten atomically): sets the top-level
    /// fields of `run_update` (an object, e.g. the status) when given, [`ENDED_AT`] (now, unless
    /// the update sets it) and [`LAST_SEQ`], the `seq` of the last record written (0 for none),
    /// so [`verify_run`](super::verify_run) can tell a finished run from a crashed one and see a
    /// cut tail.
    pub fn finish(mut self, run_update: Option<&Value>) -> Result<()> {
        self.flush()?;
        let run_update = run_update.map(|update| fit_record(update, None).0);
        let run_update = run_update
            .as_ref()
            .map(|update| self.scrubber.scrub(update));
        match run_update.as_deref() {
            None => {}
            Some(Value::Object(update)) => {
                for (key, value) in update {
                    self.run.insert(key.clone(), value.clone());
                }
            }
            Some(other) => {
                return Err(Error::caller(
                    ErrorCode::ValidationError,
                    format!(
                        "audit run update must be a JSON object, got {}",
                        json_type(other)
                    ),
                ))
            }
        }
        if !self.run.contains_key(ENDED_AT) {
            self.run.insert(ENDED_AT.to_string(), json!(now_ms()));
        }
        self.run
            .insert(LAST_SEQ.to_string(), json!(self.next_seq - 1));
        write_run_atomically(&self.dir, &self.run)
    }

    fn path(&self, file: LogFile) -> PathBuf {
        self.dir.join(file.file_name())
    }
}

impl Drop for AuditWriter {
    fn drop(&mut self) {
        if self.buffered_bytes() > 0 {
            // Best effort: an error has nowhere to go from a destructor.
            let _ = self.flush();
        }
    }
}

/// Which file on disk an open log file is: its device and inode on Unix (elsewhere nothing
/// more than that it is a file), taken once when the file is opened, which fixes them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct FileIdentity {
    #[cfg(unix)]
    dev: u64,
    #[cfg(unix)]
    ino: u64,
}

impl FileIdentity {
    fn of(meta: &fs::Metadata) -> FileIdentity {
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt;
            FileIdentity {
                dev: meta.dev(),
                ino: meta.ino(),
            }
        }
        #[cfg(not(unix))]
        {
            let _ = meta;
            FileIdentity {}
        }
    }
}

/// Checks that the file opened for append as `opened` is still the file at `path`: when the run
/// directory was removed or moved, or the log file replaced (by another file or a directory),
/// while the run was open, appending to the open file still succeeds but reaches no file anyone
/// can read, so the records would be lost silently. That is an error here (the records stay
/// buffered, and the driver reports the log as failed). One `lstat` of the path per file.
fn still_at_path(opened: FileIdentity, path: &Path) -> io::Result<()> {
    let at_path = fs::symlink_metadata(path)?;
    let replaced = if cfg!(unix) {
        FileIdentity::of(&at_path) != opened
    } else {
        !at_path.is_file()
    };
    if replaced {
        return Err(io::Error::other(
            "it was replaced while the run was open (the open file is no longer there)",
        ));
    }
    Ok(())
}

/// Writes `buffer` to `out`, removing what was written from `buffer` even when a write fails.
fn write_prefix<W: Write>(out: &mut W, buffer: &mut Vec<u8>) -> io::Result<()> {
    let mut done = 0;
    let result = loop {
        if done == buffer.len() {
            break Ok(());
        }
        match out.write(&buffer[done..]) {
            Ok(0) => break Err(io::Error::from(io::ErrorKind::WriteZero)),
            Ok(n) => done += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => break Err(e),
        }
    };
    buffer.drain(..done);
    result
}

/// Creates the run directory and its parents (owner-only on Unix: the log holds arguments).
fn create_dir(dir: &Path) -> Result<()> {
    let mut builder = fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder.create(dir).map_err(|e| {
        Error::caller(
            ErrorCode::ExecutionError,
            format!("audit directory {}: cannot be created: {e}", dir.display()),
        )
    })
}

/// Options opening a file of the log, owner-only on Unix when created, never through a symlink
/// (one planted where a log file goes fails the open, so its target is neither read nor cut).
fn owner_only() -> OpenOptions {
    let mut open = OpenOptions::new();
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        open.mode(0o600).custom_flags(libc::O_NOFOLLOW);
    }
    open
}

/// Opens a JSONL file for append; returns it, the highest `seq` in it, and the length of a
/// partial final line that was cut off.
fn open_for_append(path: &Path) -> Result<(File, u64, Option<u64>)> {
    let mut file = owner_only()
        .read(true)
        .append(true)
        .create(true)
        .open(path)
        .map_err(|e| file_error(path, "cannot be opened", e))?;
    let mut max_seq = 0;
    let tail = scan_jsonl(BufReader::new(&mut file), |_, parsed| {
        if let Some(seq) = parsed.ok().and_then(|v| v.get(SEQ).and_then(Value::as_u64)) {
            max_seq = max_seq.max(seq);
        }
    })
    .map_err(|e| file_error(path, "cannot be read", e))?;
    let cut = match tail {
        Tail::Terminated => None,
        Tail::UnterminatedRecord => {
            file.write_all(b"\n")
                .map_err(|e| file_error(path, "cannot be written", e))?;
            None
        }
        Tail::Partial { offset, len } => {
            file.set_len(offset)
                .map_err(|e| file_error(path, "cannot cut its partial last line", e))?;
            Some(len)
        }
    };
    file.seek(SeekFrom::End(0))
        .map_err(|e| file_error(path, "cannot be read", e))?;
    Ok((file, max_seq, cut))
}

/// Replaces `run.json` in `dir` so that a reader sees the old file or the new one, never a part.
fn write_run_atomically(dir: &Path, run: &Map<String, Value>) -> Result<()> {
    let path = dir.join(RUN_FILE);
    let mut text = Vec::new();
    let depth = write_json(&Value::Object(run.clone()), KeyOrder::AsHeld, &mut text)
        .map_err(|e| Error::internal(format!("audit run.json: {e}")))?;
    if depth > MAX_LINE_DEPTH {
        return Err(Error::caller(
            ErrorCode::LimitExceeded,
            format!("audit run.json content nests {depth} levels deep; at most {MAX_LINE_DEPTH} can be read back"),
        ));
    }
    text.push(b'\n');
    let temp = dir.join(format!(
        ".{RUN_FILE}.tmp-{}-{}",
        std::process::id(),
        NEXT_TEMP.fetch_add(1, Ordering::Relaxed)
    ));
    let written = (|| {
        // (a new file: whatever holds the name already, a planted link included, fails it)
        let mut out = owner_only().write(true).create_new(true).open(&temp)?;
        out.write_all(&text)?;
        out.sync_all()?;
        fs::rename(&temp, &path)
    })();
    if let Err(e) = written {
        let _ = fs::remove_file(&temp);
        return Err(file_error(&path, "cannot be written", e));
    }
    // The rename is durable once the directory is synced; the new file is in place either way.
    if let Ok(handle) = File::open(dir) {
        let _ = handle.sync_all();
    }
    Ok(())
}

/// Milliseconds since the Unix epoch (0 if the clock is before it): the `ts` to pass when the
/// caller has no time of its own.
pub fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::audit::replay::replay_run;
    use crate::audit::salvage::INCOMPLETE;
    use crate::audit::test_support::Scratch;
    use crate::audit::verify::verify_run;

    fn read(dir: &Path, name: &str) -> String {
        fs::read_to_string(dir.join(name)).unwrap()
    }

    #[test]
    fn creates_the_directory_run_json_and_three_files() {
        let scratch = Scratch::new("create");
        let dir = scratch.path("a/b/run-1");
        let writer = AuditWriter::create(&dir, &json!({"runId": "run-1", "plan": [1]})).unwrap();
        assert_eq!(writer.next_seq(), 1);
        drop(writer);
        assert_eq!(
            read(&dir, "run.json"),
            "{\"runId\":\"run-1\",\"plan\":[1]}\n"
        );
        for name in ["calls.jsonl", "results.jsonl", "events.jsonl"] {
            assert_eq!(read(&dir, name), "", "{name}");
        }
        let leftovers: Vec<_> = fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.contains("tmp"))
            .collect();
        assert!(leftovers.is_empty(), "{leftovers:?}");
    }

    #[test]
    fn writes_one_stamped_line_per_record_on_flush_only() {
        let scratch = Scratch::new("lines");
        let dir = scratch.path("run");
        let mut writer = AuditWriter::create(&dir, &json!({})).unwrap();
        let args = json!({"b": 1, "a": [true, null, "x"]});
        assert_eq!(
            writer
                .record_call(&json!({"callId": "c1", "args": args}), 100)
                .unwrap(),
            1
        );
        assert_eq!(
            writer
                .record_event(&json!({"type": "tool_execution_start"}), 101)
                .unwrap(),
            2
        );
        assert_eq!(
            writer
                .record_result(&json!({"callId": "c1", "status": "success"}), 102)
                .unwrap(),
            3
        );
        assert_eq!(read(&dir, "calls.jsonl"), "", "nothing before a flush");
        writer.flush().unwrap();
        assert_eq!(
            read(&dir, "calls.jsonl"),
            "{\"seq\":1,\"ts\":100,\"callId\":\"c1\",\"args\":{\"b\":1,\"a\":[true,null,\"x\"]},\
             \"argsHash\":\"54a65415ad370228851a1da4b31b6fd42dc58b19a50d35cae759325f7388ce64\"}\n"
        );
        assert_eq!(
            read(&dir, "events.jsonl"),
            "{\"seq\":2,\"ts\":101,\"type\":\"tool_execution_start\"}\n"
        );
        assert_eq!(
            read(&dir, "results.jsonl"),
            "{\"seq\":3,\"ts\":102,\"callId\":\"c1\",\"status\":\"success\"}\n"
        );
        assert_eq!(writer.buffered_bytes(), 0);
    }

    /// The run directory removed, moved or replaced, or a log file replaced, between the write
    /// of a call and the flush of its result: appending to the open file used to succeed into
    /// a file no path reaches, so the result was lost and nothing said so. The flush fails,
    /// naming the file, and verify_run reports what is missing.
    #[test]
    fn a_log_replaced_while_the_run_is_open_fails_the_flush_and_verify_sees_it() {
        type Trick = fn(&Path);
        let cases: &[(&str, Trick, &[&str])] = &[
            (
                "results.jsonl replaced by a directory",
                |dir| {
                    fs::remove_file(dir.join("results.jsonl")).unwrap();
                    fs::create_dir(dir.join("results.jsonl")).unwrap();
                },
                &["missing_file", "missing_result", "run_not_ended"],
            ),
            (
                "results.jsonl replaced by another file",
                |dir| {
                    fs::remove_file(dir.join("results.jsonl")).unwrap();
                    fs::write(dir.join("results.jsonl"), "").unwrap();
                },
                &["missing_result", "run_not_ended"],
            ),
            (
                "calls.jsonl removed after its line was written",
                |dir| fs::remove_file(dir.join("calls.jsonl")).unwrap(),
                &["missing_file", "run_not_ended"],
            ),
            (
                "the run directory moved away and made again",
                |dir| {
                    fs::rename(dir, dir.with_extension("moved")).unwrap();
                    fs::create_dir(dir).unwrap();
                },
                &["unreadable_run"],
            ),
            (
                "the run directory replaced by a regular file",
                |dir| {
                    fs::remove_dir_all(dir).unwrap();
                    fs::write(dir, "not a directory").unwrap();
                },
                &["unreadable_run"],
            ),
        ];
        for (name, trick, problems) in cases {
            let scratch = Scratch::new("replaced");
            let dir = scratch.path("run");
            let mut writer = AuditWriter::create(&dir, &json!({"runId": "r"})).unwrap();
            writer
                .record_call(&json!({"callId": "c", "args": {}}), 1)
                .unwrap();
            writer.flush().unwrap();
            trick(&dir);
            writer
                .record_result(&json!({"callId": "c", "status": "ok"}), 2)
                .unwrap();
            let error = writer.flush().expect_err(name);
            assert!(
                error.message.contains("cannot be written"),
                "{name}: {}",
                error.message
            );
            // The file the case replaced, or the first one checked when the whole dir went.
            let file = name.split(' ').next().filter(|w| w.ends_with(".jsonl"));
            assert!(
                error.message.contains(file.unwrap_or("calls.jsonl")),
                "{name}: {}",
                error.message
            );
            assert!(
                writer.finish(None).is_err(),
                "{name}: the run cannot end cleanly"
            );
            let verdict = verify_run(&dir);
            let kinds: Vec<&str> = verdict.problems.iter().map(|p| p.kind.as_str()).collect();
            assert!(!verdict.ok, "{name}");
            for kind in *problems {
                assert!(kinds.contains(kind), "{name}: {kind} not in {kinds:?}");
            }
        }
    }

    /// Each log file is known by the device and inode it had when the writer opened it, taken
    /// once (a flush used to stat every open file again); a flush compares them with what its
    /// path names, so a file replaced before the first flush fails it as well.
    #[cfg(unix)]
    #[test]
    fn each_log_file_is_known_by_what_it_was_when_opened() {
        let scratch = Scratch::new("identity");
        let dir = scratch.path("run");
        let mut writer = AuditWriter::create(&dir, &json!({"runId": "r"})).unwrap();
        for file in LogFile::ALL {
            let at_path = fs::symlink_metadata(dir.join(file.file_name())).unwrap();
            assert_eq!(writer.identities[file.index()], FileIdentity::of(&at_path));
        }
        fs::remove_file(dir.join("events.jsonl")).unwrap();
        fs::write(dir.join("events.jsonl"), "").unwrap();
        writer
            .record_event(&json!({"type": "tool_execution_start"}), 1)
            .unwrap();
        let error = writer.flush().expect_err("replaced before the first flush");
        assert!(error.message.contains("events.jsonl"), "{}", error.message);
    }

    #[test]
    fn flush_due_follows_the_oldest_buffered_record() {
        let scratch = Scratch::new("due");
        let mut writer = AuditWriter::create(&scratch.path("run"), &json!({})).unwrap();
        let cases = [(5_000, 1000, false)];
        for (now, interval, due) in cases {
            assert_eq!(writer.flush_due(now, interval), due, "empty buffer");
        }
        writer.record_event(&json!({"type": "x"}), 1_000).unwrap();
        writer.record_event(&json!({"type": "y"}), 1_900).unwrap();
        let cases = [
            (1_500, 1000, false),
            (1_999, 1000, false),
            (2_000, 1000, true),
            (1_000, 0, true),
            (500, 1000, false),
        ];
        for (now, interval, due) in cases {
            assert_eq!(
                writer.flush_due(now, interval),
                due,
                "now {now} interval {interval}"
            );
        }
        writer.flush().unwrap();
        assert!(!writer.flush_due(10_000, 1000));
    }

    #[test]
    fn every_flush_leaves_whole_lines_even_with_a_tiny_buffer() {
        let scratch = Scratch::new("whole");
        let dir = scratch.path("run");
        let mut writer = AuditWriter::create(&dir, &json!({})).unwrap();
        writer.set_buffer_limit(1);
        for i in 0..20u64 {
            let big = "x".repeat(usize::try_from(i).unwrap() * 37);
            writer
                .record_call(&json!({"callId": format!("c{i}"), "args": {"s": big}}), i)
                .unwrap();
            // The buffer limit flushed the record: the file holds whole lines only.
            let text = read(&dir, "calls.jsonl");
            assert!(text.ends_with('\n'), "after record {i}");
            assert_eq!(text.lines().count(), usize::try_from(i).unwrap() + 1);
            assert_eq!(writer.buffered_bytes(), 0);
        }
    }

    #[test]
    fn finish_flushes_and_merges_the_run_update() {
        let scratch = Scratch::new("finish");
        let dir = scratch.path("run");
        let mut writer =
            AuditWriter::create(&dir, &json!({"runId": "r", "status": "running"})).unwrap();
        writer.record_event(&json!({"type": "x"}), 1).unwrap();
        writer
            .finish(Some(&json!({"status": "ok", "endedAt": 99})))
            .unwrap();
        assert_eq!(
            read(&dir, "run.json"),
            "{\"runId\":\"r\",\"status\":\"ok\",\"endedAt\":99,\"lastSeq\":1}\n"
        );
        assert_eq!(read(&dir, "events.jsonl").lines().count(), 1);
    }

    #[test]
    fn dropping_the_writer_writes_what_is_buffered() {
        let scratch = Scratch::new("drop");
        let dir = scratch.path("run");
        let mut writer = AuditWriter::create(&dir, &json!({})).unwrap();
        writer.record_event(&json!({"type": "x"}), 1).unwrap();
        drop(writer);
        assert_eq!(read(&dir, "events.jsonl").lines().count(), 1);
    }

    #[test]
    fn an_existing_run_directory_is_appended_to() {
        let scratch = Scratch::new("append");
        let dir = scratch.path("run");
        let mut first = AuditWriter::create(&dir, &json!({"dispatch": 1})).unwrap();
        first
            .record_call(&json!({"callId": "c1", "args": {}}), 1)
            .unwrap();
        first.record_result(&json!({"callId": "c1"}), 2).unwrap();
        first.finish(None).unwrap();

        let mut second = AuditWriter::create(&dir, &json!({"dispatch": 2})).unwrap();
        assert_eq!(
            second.next_seq(),
            3,
            "seq continues after the highest recorded"
        );
        second
            .record_call(&json!({"callId": "c2", "args": {}}), 3)
            .unwrap();
        second.record_result(&json!({"callId": "c2"}), 4).unwrap();
        second.finish(None).unwrap();

        let replay = replay_run(&dir).unwrap();
        let ids: Vec<&str> = replay
            .calls
            .iter()
            .map(|c| c["callId"].as_str().unwrap())
            .collect();
        assert_eq!(ids, ["c1", "c2"]);
        assert_eq!(replay.run["dispatch"], 2);
        assert_eq!(replay.run[LAST_SEQ], 4);
        assert!(verify_run(&dir).ok);
    }

    #[cfg(unix)]
    #[test]
    fn a_symlink_planted_where_a_log_file_goes_is_refused_and_its_target_untouched() {
        let scratch = Scratch::new("symlink");
        let dir = scratch.path("run");
        fs::create_dir_all(&dir).unwrap();
        let victim = scratch.path("victim.txt");
        // a partial last line: a log opened through the link would cut it
        fs::write(&victim, "keep me\n{\"seq\":1,\"partial").unwrap();
        std::os::unix::fs::symlink(&victim, dir.join("calls.jsonl")).unwrap();
        let Err(error) = AuditWriter::create(&dir, &json!({})) else {
            panic!("a log through a symlink was opened");
        };
        assert!(
            error.to_string().contains("calls.jsonl")
                && error.to_string().contains("is a symbolic link"),
            "{error}"
        );
        assert_eq!(
            fs::read_to_string(&victim).unwrap(),
            "keep me\n{\"seq\":1,\"partial"
        );
    }

    #[test]
    fn appending_after_a_crash_cuts_the_partial_line_and_records_it() {
        let scratch = Scratch::new("crash");
        let dir = scratch.path("run");
        let mut writer = AuditWriter::create(&dir, &json!({})).unwrap();
        writer
            .record_call(&json!({"callId": "c1", "args": {}}), 1)
            .unwrap();
        writer.record_result(&json!({"callId": "c1"}), 2).unwrap();
        writer.finish(None).unwrap();
        // A crash in the middle of the next write.
        let mut file = OpenOptions::new()
            .append(true)
            .open(dir.join("calls.jsonl"))
            .unwrap();
        file.write_all(b"{\"seq\":3,\"ts\":3,\"callId\":\"c2\",\"ar")
            .unwrap();
        drop(file);

        let mut writer = AuditWriter::create(&dir, &json!({})).unwrap();
        writer
            .record_call(&json!({"callId": "c3", "args": {}}), 9)
            .unwrap();
        writer.record_result(&json!({"callId": "c3"}), 10).unwrap();
        writer.finish(None).unwrap();

        let calls = read(&dir, "calls.jsonl");
        assert_eq!(calls.lines().count(), 2, "{calls}");
        assert!(!calls.contains("\"c2\""));
        let replay = replay_run(&dir).unwrap();
        assert_eq!(replay.partial_lines, 1);
        assert_eq!(replay.partial_lines_by_file["calls.jsonl"], 1);
        assert_eq!(replay.events[0]["type"], PARTIAL_LINE_DROPPED);
        assert_eq!(replay.events[0]["bytes"], 33);
        assert!(replay.malformed.is_empty());
        assert!(verify_run(&dir).ok, "{:?}", verify_run(&dir));
    }

    #[test]
    fn a_final_line_missing_only_its_newline_is_completed() {
        let scratch = Scratch::new("newline");
        let dir = scratch.path("run");
        fs::create_dir_all(&dir).unwrap();
        fs::write(
            dir.join("events.jsonl"),
            "{\"seq\":4,\"ts\":1,\"type\":\"x\"}",
        )
        .unwrap();
        let mut writer = AuditWriter::create(&dir, &json!({})).unwrap();
        assert_eq!(writer.record_event(&json!({"type": "y"}), 2).unwrap(), 5);
        writer.finish(None).unwrap();
        assert_eq!(read(&dir, "events.jsonl").lines().count(), 2);
        assert!(replay_run(&dir).unwrap().malformed.is_empty());
    }

    #[test]
    fn scrubs_secrets_from_run_json_every_file_and_the_run_update() {
        let openai = format!("sk-proj-{}", "a".repeat(48));
        let aws = "AKIAIOSFODNN7EXAMPLE";
        let github = format!("ghp_{}", "b".repeat(36));
        let scratch = Scratch::new("scrub");
        let dir = scratch.path("run");
        let plan = json!({"kind": "plan", "plan": {"vars": {"key": openai}, "steps": [{"id": "s", "args": {"aws": aws}}]}});
        let mut writer = AuditWriter::create(&dir, &plan).unwrap();
        writer
            .record_call(&json!({"callId": "c", "args": {"token": github}}), 1)
            .unwrap();
        writer
            .record_result(
                &json!({"callId": "c", "content": [{"type": "text", "text": openai}]}),
                2,
            )
            .unwrap();
        writer
            .record_event(
                &json!({"type": "run.confirmationRequested", "steps": [{"args": {"aws": aws}}]}),
                3,
            )
            .unwrap();
        writer
            .finish(Some(&json!({"status": "ok", "note": github})))
            .unwrap();
        for name in ["run.json", "calls.jsonl", "results.jsonl", "events.jsonl"] {
            let text = read(&dir, name);
            for secret in [openai.as_str(), aws, github.as_str()] {
                assert!(!text.contains(secret), "{name}: {text}");
            }
            assert!(text.contains("[redacted:"), "{name}: {text}");
        }
        let replay = replay_run(&dir).unwrap();
        assert_eq!(replay.run["plan"]["vars"]["key"], "[redacted:openai-key]");
        assert_eq!(replay.run["status"], "ok");
    }

    #[test]
    fn a_scrubber_without_secret_scrubbing_writes_records_as_given() {
        use crate::sanitize::{SanitizeOptions, Sanitizer};
        let off = SanitizeOptions::default()
            .with(&json!({"secrets": {"enabled": false}}), "sanitize")
            .unwrap();
        let scrubber = RecordScrubber::new(std::sync::Arc::new(Sanitizer::new(off).unwrap()));
        let scratch = Scratch::new("noscrub");
        let dir = scratch.path("run");
        let key = "AKIAIOSFODNN7EXAMPLE";
        let writer = AuditWriter::create_scrubbed(&dir, &json!({"key": key}), scrubber).unwrap();
        writer.finish(None).unwrap();
        assert!(read(&dir, "run.json").contains(key));
    }

    #[test]
    fn refuses_bad_input_naming_it() {
        let scratch = Scratch::new("bad");
        let dir = scratch.path("run");
        let err = AuditWriter::create(&dir, &json!([1])).unwrap_err();
        assert!(err.message.contains("got an array"), "{}", err.message);

        let mut writer = AuditWriter::create(&dir, &json!({})).unwrap();
        let err = writer.record_call(&json!({"tool": "t"}), 1).unwrap_err();
        assert!(
            err.message.contains("needs a string callId"),
            "{}",
            err.message
        );
        assert_eq!(writer.buffered_bytes(), 0, "the refused line is not kept");
        assert_eq!(writer.next_seq(), 1, "and takes no seq");
        let err = writer.finish(Some(&json!("done"))).unwrap_err();
        assert!(err.message.contains("got a string"), "{}", err.message);
    }

    /// `[[...1...]]`, `depth` arrays deep.
    fn nested(depth: usize) -> Value {
        let mut value = json!(1);
        for _ in 0..depth {
            value = Value::Array(vec![value]);
        }
        value
    }

    /// Drops a value of any depth without recursing (serde_json's Drop recurses).
    fn drop_nested(value: Value) {
        let mut stack = vec![value];
        while let Some(value) = stack.pop() {
            match value {
                Value::Array(items) => stack.extend(items),
                Value::Object(map) => stack.extend(map.into_iter().map(|(_, v)| v)),
                _ => {}
            }
        }
    }

    /// Every way a record reaches the writer.
    #[derive(Clone, Copy, Debug)]
    enum Way {
        Call,
        CallText,
        Result,
        ResultText,
        EndEvent,
        EndEventText,
    }

    impl Way {
        const ALL: [Way; 6] = [
            Way::Call,
            Way::CallText,
            Way::Result,
            Way::ResultText,
            Way::EndEvent,
            Way::EndEventText,
        ];

        /// Records a record of call `id` holding `args` this way; returns its seq.
        fn record(self, writer: &mut AuditWriter, id: &str, args: Value) -> u64 {
            // Built by hand: json! would copy `args` recursively.
            let with_args = |fields: Value| {
                let mut fields = fields.as_object().cloned().unwrap_or_default();
                fields.insert("args".into(), args);
                Value::Object(fields)
            };
            let (file, record) = match self {
                Way::Call | Way::CallText => (
                    LogFile::Calls,
                    with_args(json!({"callId": id, "tool": "t", "attempt": 1})),
                ),
                Way::Result | Way::ResultText => (
                    LogFile::Results,
                    with_args(json!({"callId": id, "tool": "t", "status": "ok"})),
                ),
                Way::EndEvent | Way::EndEventText => {
                    let mut event = json!({"type": "tool_execution_end", "toolCallId": id});
                    event["result"] = with_args(json!({"callId": id}));
                    (LogFile::Events, event)
                }
            };
            let seq = if matches!(self, Way::CallText | Way::ResultText | Way::EndEventText) {
                let mut bytes = Vec::new();
                write_json(&record, KeyOrder::AsHeld, &mut bytes).unwrap();
                let text = String::from_utf8(bytes).unwrap();
                writer.record_text(file, &text, 1).unwrap()
            } else {
                writer.record(file, &record, 1).unwrap()
            };
            drop_nested(record);
            seq
        }

        /// How many levels the record puts above its `args`.
        fn above(self) -> usize {
            match self {
                Way::EndEvent | Way::EndEventText => 2,
                _ => 1,
            }
        }

        /// The problem a lone record of this way has besides being cut.
        fn lone(self) -> Option<&'static str> {
            match self {
                Way::Call | Way::CallText => Some("missing_result"),
                Way::Result | Way::ResultText => Some("orphan_result"),
                Way::EndEvent | Way::EndEventText => None,
            }
        }
    }

    #[test]
    fn a_record_of_any_depth_is_written_and_one_too_deep_is_marked_incomplete() {
        for way in Way::ALL {
            for depth in [1, 100, 124, 125, 126, 127, 128, 129, 200, 5_000] {
                let scratch = Scratch::new("depth");
                let dir = scratch.path("run");
                let mut writer = AuditWriter::create(&dir, &json!({})).unwrap();
                let seq = way.record(&mut writer, "c", nested(depth));
                writer.finish(None).unwrap();
                let replay = replay_run(&dir).unwrap();
                let name = format!("{way:?} args {depth} deep");
                assert!(
                    replay.malformed.is_empty(),
                    "{name}: {:?}",
                    replay.malformed
                );
                let records: Vec<&Value> = replay
                    .calls
                    .iter()
                    .chain(&replay.results)
                    .chain(&replay.events)
                    .collect();
                assert_eq!(records.len(), 1, "{name}: one record, never none");
                assert_eq!(records[0]["seq"], seq);
                let cut = depth + way.above() > MAX_LINE_DEPTH;
                assert_eq!(records[0].get(INCOMPLETE).is_some(), cut, "{name}");
                let problems = verify_run(&dir).problems;
                let kinds: Vec<&str> = problems.iter().map(|p| p.kind.as_str()).collect();
                let expected: Vec<&str> = cut
                    .then_some("incomplete_record")
                    .into_iter()
                    .chain(way.lone())
                    .collect();
                assert_eq!(kinds, expected, "{name}: {problems:?}");
                if cut {
                    let message = &problems[0].message;
                    assert!(message.contains("was not written whole"), "{message}");
                    assert!(message.contains("deeper than 127 levels"), "{message}");
                    if way.lone().is_some() {
                        assert_eq!(problems[0].call_id.as_deref(), Some("c"));
                        assert!(message.contains("call \"c\" (tool \"t\")"), "{message}");
                    }
                }
            }
        }
    }

    #[test]
    fn a_cut_call_keeps_the_hash_of_the_arguments_that_ran() {
        let scratch = Scratch::new("cuthash");
        let dir = scratch.path("run");
        let mut writer = AuditWriter::create(&dir, &json!({})).unwrap();
        let args = nested(300);
        let hash = crate::canonical::args_sha256(&args);
        let mut call = json!({"callId": "c"});
        call["args"] = args;
        writer.record_call(&call, 1).unwrap();
        writer
            .record_result(&json!({"callId": "c", "status": "ok"}), 2)
            .unwrap();
        writer.finish(None).unwrap();
        let replay = replay_run(&dir).unwrap();
        assert_eq!(replay.calls[0]["argsHash"], hash);
        assert_eq!(replay.calls[0][INCOMPLETE]["cut"], 1);
        let kinds: Vec<String> = verify_run(&dir)
            .problems
            .into_iter()
            .map(|p| p.kind)
            .collect();
        assert_eq!(
            kinds,
            ["incomplete_record"],
            "no args_hash_mismatch for a cut call"
        );
        drop_nested(call);
    }

    #[test]
    fn record_text_repairs_lone_surrogates_and_never_loses_a_record_silently() {
        // (text, file, the record's "text" field afterwards, or part of the reason it was lost)
        type Expected = std::result::Result<&'static str, &'static str>;
        let cases: Vec<(&str, LogFile, Expected)> = vec![
            (
                r#"{"callId":"c","text":"a\ud83d"}"#,
                LogFile::Calls,
                Ok("a\u{fffd}"),
            ),
            (
                r#"{"callId":"c","text":"\udc00\ud83d\ude00"}"#,
                LogFile::Results,
                Ok("\u{fffd}😀"),
            ),
            (
                r#"{"type":"x","text":"\ud83d"}"#,
                LogFile::Events,
                Ok("\u{fffd}"),
            ),
            (r#"{"callId":"c","#, LogFile::Calls, Err("not JSON")),
            ("not json", LogFile::Events, Err("not JSON")),
            ("[1]", LogFile::Results, Err("must be a JSON object")),
            (
                r#"{"tool":"t"}"#,
                LogFile::Calls,
                Err("needs a string callId"),
            ),
            (
                r#"{"callId":"c","attempt":0}"#,
                LogFile::Results,
                Err("attempt 0"),
            ),
        ];
        for (text, file, expected) in cases {
            let scratch = Scratch::new("text");
            let dir = scratch.path("run");
            let mut writer = AuditWriter::create(&dir, &json!({})).unwrap();
            writer.record_text(file, text, 1).unwrap();
            writer.finish(None).unwrap();
            let replay = replay_run(&dir).unwrap();
            assert!(replay.malformed.is_empty(), "{text}");
            let problems = verify_run(&dir).problems;
            match expected {
                Ok(field) => {
                    let record = match file {
                        LogFile::Calls => &replay.calls[0],
                        LogFile::Results => &replay.results[0],
                        LogFile::Events => &replay.events[0],
                    };
                    assert_eq!(record["text"], field, "{text}");
                    assert!(problems.iter().all(|p| p.kind != "lost_record"), "{text}");
                }
                Err(reason) => {
                    assert_eq!(replay.events.len(), 1, "{text}");
                    assert_eq!(replay.events[0]["type"], RECORD_LOST);
                    assert_eq!(replay.events[0]["file"], file.file_name());
                    let problem = problems.iter().find(|p| p.kind == "lost_record");
                    let message = &problem.expect(text).message;
                    assert!(message.contains(file.file_name()), "{message}");
                    assert!(message.contains(reason), "{text}: {message}");
                }
            }
        }
    }

    #[test]
    fn a_record_that_could_not_be_serialized_is_recorded_by_its_head() {
        let scratch = Scratch::new("head");
        let dir = scratch.path("run");
        let mut writer = AuditWriter::create(&dir, &json!({})).unwrap();
        let head = json!({"callId": "c", "tool": "t", "attempt": 1});
        let why = "the record cannot be serialized to JSON: Do not know how to serialize a BigInt";
        writer
            .record_incomplete(LogFile::Calls, &head, why, 1)
            .unwrap();
        writer
            .record_incomplete(LogFile::Results, &json!({"status": "ok"}), why, 2)
            .unwrap();
        writer.finish(None).unwrap();
        let replay = replay_run(&dir).unwrap();
        assert_eq!(replay.calls[0]["callId"], "c");
        assert_eq!(replay.calls[0][INCOMPLETE]["reason"], why);
        let problems: Vec<(String, Option<String>)> = verify_run(&dir)
            .problems
            .into_iter()
            .map(|p| (p.kind, p.call_id))
            .collect();
        let c = Some("c".to_string());
        assert_eq!(
            problems,
            [
                ("incomplete_record".to_string(), c.clone()),
                ("lost_record".to_string(), None),
                ("missing_result".to_string(), c),
            ]
        );
    }

    #[test]
    fn the_deepest_accepted_line_replays() {
        let scratch = Scratch::new("deep");
        let dir = scratch.path("run");
        let mut writer = AuditWriter::create(&dir, &json!({})).unwrap();
        let mut deep = json!(1);
        for _ in 0..MAX_LINE_DEPTH - 1 {
            deep = json!([deep]);
        }
        writer
            .record_call(&json!({"callId": "c", "args": deep}), 1)
            .unwrap();
        writer.finish(None).unwrap();
        let replay = replay_run(&dir).unwrap();
        assert!(replay.malformed.is_empty(), "{:?}", replay.malformed);
        assert_eq!(replay.calls.len(), 1);
    }

    /// Accepts `room` bytes, then fails like a full disk.
    struct FullDisk {
        written: Vec<u8>,
        room: usize,
    }

    impl Write for FullDisk {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            let n = buf.len().min(self.room - self.written.len()).min(7);
            if n == 0 {
                return Err(io::Error::other("no space left on device"));
            }
            self.written.extend_from_slice(&buf[..n]);
            Ok(n)
        }

        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn a_failed_write_keeps_exactly_the_unwritten_rest() {
        let text = b"{\"seq\":1}\n{\"seq\":2}\n".to_vec();
        for room in 0..text.len() {
            let mut disk = FullDisk {
                written: Vec::new(),
                room,
            };
            let mut buffer = text.clone();
            assert!(write_prefix(&mut disk, &mut buffer).is_err(), "room {room}");
            assert_eq!(disk.written.len(), room);
            disk.room = text.len();
            write_prefix(&mut disk, &mut buffer).unwrap();
            assert_eq!(
                disk.written, text,
                "a retry continues where the failure stopped"
            );
            assert!(buffer.is_empty());
        }
    }

    #[cfg(unix)]
    #[test]
    fn errors_name_the_file_that_failed() {
        let scratch = Scratch::new("perm");
        let dir = scratch.path("run");
        fs::create_dir_all(&dir).unwrap();
        fs::create_dir(dir.join("calls.jsonl")).unwrap();
        let err = AuditWriter::create(&dir, &json!({})).unwrap_err();
        assert!(err.message.contains("calls.jsonl"), "{}", err.message);
        assert_eq!(err.code, ErrorCode::ExecutionError);
    }
}
