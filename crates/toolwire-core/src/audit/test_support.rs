//! Test helpers: scratch run directories removed when dropped, and hand-written logs.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::Value;

static NEXT: AtomicUsize = AtomicUsize::new(0);

/// A scratch directory under the system temp dir, removed on drop.
pub struct Scratch {
    pub root: PathBuf,
}

impl Scratch {
    pub fn new(name: &str) -> Scratch {
        let root = std::env::temp_dir().join(format!(
            "toolwire-audit-{name}-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = std::fs::remove_dir_all(&root);
        Scratch { root }
    }

    /// A path inside the scratch directory (not created).
    pub fn path(&self, rel: &str) -> PathBuf {
        self.root.join(rel)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.root);
    }
}

/// Writes a hand-made run directory: `run.json` = `{"endedAt":1}` (a run that ended, without
/// a `lastSeq`) and each file's lines as given.
pub fn write_run<C: AsRef<str>, R: AsRef<str>, E: AsRef<str>>(
    dir: &Path,
    calls: &[C],
    results: &[R],
    events: &[E],
) {
    std::fs::create_dir_all(dir).unwrap();
    std::fs::write(dir.join("run.json"), "{\"endedAt\":1}\n").unwrap();
    let text = |lines: Vec<&str>| -> String { lines.iter().map(|l| format!("{l}\n")).collect() };
    let files = [
        (
            "calls.jsonl",
            text(calls.iter().map(AsRef::as_ref).collect()),
        ),
        (
            "results.jsonl",
            text(results.iter().map(AsRef::as_ref).collect()),
        ),
        (
            "events.jsonl",
            text(events.iter().map(AsRef::as_ref).collect()),
        ),
    ];
    for (name, text) in files {
        std::fs::write(dir.join(name), text).unwrap();
    }
}

/// A call line with a correct `argsHash`.
pub fn call_line(seq: u64, call_id: &str, attempt: u64, args: &Value) -> String {
    serde_json::json!({
        "seq": seq, "ts": 1000 + seq, "callId": call_id, "attempt": attempt, "tool": "t",
        "args": args, "argsHash": crate::canonical::args_sha256(args),
    })
    .to_string()
}

/// A result line.
pub fn result_line(seq: u64, call_id: &str, attempt: u64) -> String {
    serde_json::json!({
        "seq": seq, "ts": 1000 + seq, "callId": call_id, "attempt": attempt, "status": "success",
    })
    .to_string()
}
