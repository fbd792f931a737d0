//! What `allow-always` answers granted, kept in the approvals file and consulted on every call.
//!
//! The file is JSON, rewritten whole and atomically on every grant (a temporary file in the
//! same directory, synced, renamed over the old one, the directory synced):
//!
//! ```json
//! { "version": 1,
//!   "tools": ["read"],
//!   "commands": { "exec": { "executables": ["/usr/bin/git"], "exact": ["sh -c 'ls'"] } } }
//! ```
//!
//! `tools` are canonical tool names that need no approval; per exec-like tool, `executables` are
//! real program paths added to its allowlist (as exact paths), and `exact` are command texts
//! allowed only as written. A wrapper's program is never added to `executables`: "allow always"
//! on `sh -c '...'`, `env ...` or `sudo ...` allows that exact command and nothing else.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::command_line::{command_line, CommandLine};
use super::config::ApprovalsConfig;
use crate::error::{Error, ErrorCode, Result};
use crate::policy::shell::callenv::unsafe_call_env;
use crate::policy::shell::workdir::{call_workdir, other_directory, unread_settings};
use crate::policy::shell::{analyze_command, Analysis};
use crate::policy::tools::canonical_tool_name;

/// The file format's version.
const VERSION: u32 = 1;

/// Characters the allowlist reads as glob syntax: a path holding one is never remembered.
const GLOB_CHARS: &[char] = &['*', '?', '[', ']', '{', '}', '\\'];

/// Numbers the temporary files of one process.
static NEXT_TEMP: AtomicU64 = AtomicU64::new(0);

/// One exec-like tool's grants.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct CommandGrants {
    #[serde(default)]
    executables: BTreeSet<String>,
    #[serde(default)]
    exact: BTreeSet<String>,
}

#[derive(Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct StoreFile {
    version: u32,
    #[serde(default)]
    tools: BTreeSet<String>,
    #[serde(default)]
    commands: BTreeMap<String, CommandGrants>,
}

/// What one `allow-always` answer grants.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Grant {
    /// The tool (canonical name) needs no approval any more.
    Tool(String),
    /// These real program paths join the tool's allowlist.
    Executables {
        /// The canonical tool name.
        tool: String,
        /// Real paths.
        paths: Vec<String>,
    },
    /// This exact command text is allowed for the tool.
    Command {
        /// The canonical tool name.
        tool: String,
        /// The command as sent.
        text: String,
    },
}

impl Grant {
    /// What "allow always" remembers for a call of `tool`: for a plain tool (`exec` is
    /// `None`), the tool; for an exec-like tool, given its command and the command's analysis,
    /// the real paths of its programs when every segment is a plain program refused at most
    /// for not being allowlisted, and otherwise (a wrapper, a substitution, an injection, text
    /// that does not parse) the exact command only.
    pub fn for_call(tool: &str, exec: Option<(&str, &Analysis)>) -> Grant {
        let tool = canonical_tool_name(tool);
        let Some((command, analysis)) = exec else {
            return Grant::Tool(tool);
        };
        let plain = !analysis.segments.is_empty()
            && analysis
                .segments
                .iter()
                .all(|s| !s.wrapper && (s.approved || s.unlisted));
        let paths: Vec<String> = analysis
            .segments
            .iter()
            .filter(|s| s.unlisted)
            .filter_map(|s| s.resolved_path.clone())
            .collect();
        let unlisted = analysis.segments.iter().filter(|s| s.unlisted).count();
        let safe = paths.len() == unlisted && paths.iter().all(|p| !p.contains(GLOB_CHARS));
        if plain && safe && !paths.is_empty() {
            Grant::Executables { tool, paths }
        } else {
            Grant::Command {
                tool,
                text: command.to_string(),
            }
        }
    }
}

/// Whether a call is allowlisted, and what was found out on the way.
#[derive(Clone, Debug, PartialEq)]
pub struct Hit {
    /// Allowlisted.
    pub hit: bool,
    /// Why not, when not.
    pub miss: String,
    /// The command of an exec-like tool, when it is a string.
    pub command: Option<String>,
    /// Its analysis (with the remembered programs in the allowlist).
    pub analysis: Option<Analysis>,
}

/// The grants in force: the file's, in memory.
#[derive(Debug, Default)]
pub struct ApprovalStore {
    file: Option<PathBuf>,
    grants: StoreFile,
}

impl ApprovalStore {
    /// A store without a file: grants last as long as the runtime.
    pub fn in_memory() -> ApprovalStore {
        ApprovalStore {
            file: None,
            grants: StoreFile {
                version: VERSION,
                ..StoreFile::default()
            },
        }
    }

    /// Loads the approvals file; a missing file is an empty store. An unreadable or malformed
    /// file is the caller's error naming it: it holds security decisions, so it is never
    /// silently ignored.
    pub fn load(path: &Path) -> Result<ApprovalStore> {
        let refused = |why: String| {
            Error::caller(
                ErrorCode::ValidationError,
                format!("approvals file {}: {why}", path.display()),
            )
        };
        let text = match fs::read_to_string(path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                let mut store = ApprovalStore::in_memory();
                store.file = Some(path.to_path_buf());
                return Ok(store);
            }
            Err(e) => return Err(refused(format!("cannot be read: {e}"))),
        };
        let grants: StoreFile =
            serde_json::from_str(&text).map_err(|e| refused(format!("is malformed: {e}")))?;
        if grants.version != VERSION {
            return Err(refused(format!(
                "has version {}, this toolwire reads version {VERSION}",
                grants.version
            )));
        }
        Ok(ApprovalStore {
            file: Some(path.to_path_buf()),
            grants,
        })
    }

    /// Adds a grant and writes the file; on error the store is unchanged and the error names
    /// the file.
    pub fn remember(&mut self, grant: Grant) -> Result<()> {
        let mut grants = StoreFile {
            version: VERSION,
            tools: self.grants.tools.clone(),
            commands: self.grants.commands.clone(),
        };
        match grant {
            Grant::Tool(tool) => {
                grants.tools.insert(tool);
            }
            Grant::Executables { tool, paths } => {
                grants
                    .commands
                    .entry(tool)
                    .or_default()
                    .executables
                    .extend(paths);
            }
            Grant::Command { tool, text } => {
                grants.commands.entry(tool).or_default().exact.insert(text);
            }
        }
        if grants == self.grants {
            return Ok(());
        }
        if let Some(file) = &self.file {
            write_atomically(file, &grants)?;
        }
        self.grants = grants;
        Ok(())
    }

    /// Whether a call of `tool` is a hit under `config` and these grants. `command_param` is
    /// the parameter an exec-like tool names. The command is analyzed in the working directory
    /// the call's own arguments name ([`call_workdir`]: `cwd`, `workdir`, ...; a relative one
    /// against the configured `cwd`, else `base`, the workspace root or process directory);
    /// a working directory that cannot be known, an environment argument setting a variable
    /// that can change what runs ([`unsafe_call_env`]), a working directory or environment
    /// under a key the analysis does not read ([`unread_settings`]), or another argument naming a directory
    /// other than the analyzed one ([`other_directory`]), is a miss naming why.
    pub fn hit(
        &self,
        config: &ApprovalsConfig,
        tool: &str,
        command_param: Option<&str>,
        args: &Value,
        base: Option<PathBuf>,
    ) -> Hit {
        let canonical = canonical_tool_name(tool);
        let Some(param) = command_param else {
            let hit =
                config.allow_tools.contains(&canonical) || self.grants.tools.contains(&canonical);
            return Hit {
                hit,
                miss: format!("tool \"{tool}\" is not in approvals.allowTools"),
                command: None,
                analysis: None,
            };
        };
        // A command line, or an argument vector as the line of its quoted words.
        let CommandLine { line, unquoted } = match command_line(param, args.get(param)) {
            Ok(line) => line,
            Err(miss) => {
                return Hit {
                    hit: false,
                    miss,
                    command: None,
                    analysis: None,
                }
            }
        };
        let command = line.as_str();
        let grants = self.grants.commands.get(&canonical);
        let mut options = config.analyze.clone();
        let base = options.cwd.take().or(base);
        // The call's own working directory and environment decide what its command runs.
        let workdir = call_workdir(args, base.as_deref())
            .and_then(|dir| unsafe_call_env(args).map_or(Ok(dir), Err))
            .and_then(|dir| unread_settings(args).map_or(Ok(dir), Err))
            .and_then(|dir| {
                other_directory(args, param, dir.as_deref(), base.as_deref()).map_or(Ok(dir), Err)
            });
        options.root.clone_from(&base);
        options.cwd = match workdir {
            Ok(dir) => dir,
            Err(why) => {
                let miss = format!("the command was not approved ({why})");
                return Hit {
                    hit: grants.is_some_and(|g| g.exact.contains(command)),
                    miss,
                    command: Some(command.to_string()),
                    analysis: Some(Analysis::refused(why)),
                };
            }
        };
        if let Some(grants) = grants {
            options.allowlist.extend(grants.executables.iter().cloned());
        }
        let mut analysis = analyze_command(command, &options);
        if let Some(unquoted) = unquoted.filter(|_| analysis.approved) {
            // A vector runs as either line, depending on the tool (see `command_line`).
            let joined = analyze_command(&unquoted, &options);
            if !joined.approved {
                analysis = Analysis::refused(format!(
                    "its words joined into a shell line without quotes, as a tool may run them, \
                     read as `{}`, which is not approved: {}",
                    unquoted.chars().take(200).collect::<String>(),
                    joined.reason.as_deref().unwrap_or("refused")
                ));
            }
        }
        let exact = grants.is_some_and(|g| g.exact.contains(command));
        Hit {
            hit: exact || analysis.approved,
            miss: match &analysis.reason {
                Some(reason) => format!("the command was not approved ({reason})"),
                None => "the command was not approved".to_string(),
            },
            command: Some(command.to_string()),
            analysis: Some(analysis),
        }
    }
}

/// Writes `grants` to `file` so that a reader sees the old file or the new one, never a part;
/// the file is readable by its owner only (it decides what runs).
fn write_atomically(file: &Path, grants: &StoreFile) -> Result<()> {
    let failed = |what: &str, e: std::io::Error| {
        Error::caller(
            ErrorCode::ExecutionError,
            format!("approvals file {}: {what}: {e}", file.display()),
        )
    };
    let dir = match file.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir.to_path_buf(),
        _ => PathBuf::from("."),
    };
    fs::create_dir_all(&dir).map_err(|e| failed("cannot create its directory", e))?;
    let name = file
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "approvals.json".to_string());
    let temp = dir.join(format!(
        ".{name}.tmp-{}-{}",
        std::process::id(),
        NEXT_TEMP.fetch_add(1, Ordering::Relaxed)
    ));
    let mut text = serde_json::to_string_pretty(grants).expect("grants serialize");
    text.push('\n');
    let written = (|| {
        let mut open = fs::OpenOptions::new();
        open.write(true).create_new(true);
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(&mut open, 0o600);
        let mut out = open.open(&temp)?;
        out.write_all(text.as_bytes())?;
        out.sync_all()?;
        fs::rename(&temp, file)
    })();
    if let Err(e) = written {
        let _ = fs::remove_file(&temp);
        return Err(failed("cannot be written", e));
    }
    // The rename is durable once the directory is synced; a failure here leaves the new file in
    // place, so it is not an error.
    if let Ok(handle) = fs::File::open(&dir) {
        let _ = handle.sync_all();
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::shell::tests::Sandbox;
    use serde_json::json;

    fn config(sandbox: &Sandbox, allowlist: &[&str]) -> ApprovalsConfig {
        let bin = sandbox.root.join("bin");
        let mut config = ApprovalsConfig::from_json(
            &json!({
                "allowTools": ["read"],
                "allowlist": allowlist,
                "trustedDirs": [bin.to_str().unwrap()],
                "env": { "PATH": bin.to_str().unwrap() }
            }),
            "approvals",
        )
        .unwrap();
        config.analyze.cwd = Some(sandbox.root.clone());
        config
    }

    fn sandbox() -> Sandbox {
        let sandbox = Sandbox::new("approvals");
        for program in [
            "ls", "git", "rm", "sh", "bash", "env", "sudo", "xargs", "python3",
        ] {
            sandbox.exe(&format!("bin/{program}"));
        }
        sandbox
    }

    fn hit(store: &ApprovalStore, config: &ApprovalsConfig, command: &str) -> bool {
        store
            .hit(
                config,
                "exec",
                Some("command"),
                &json!({ "command": command }),
                None,
            )
            .hit
    }

    fn grant_for(store: &ApprovalStore, config: &ApprovalsConfig, command: &str) -> Grant {
        let found = store.hit(
            config,
            "exec",
            Some("command"),
            &json!({ "command": command }),
            None,
        );
        Grant::for_call("exec", Some((command, found.analysis.as_ref().unwrap())))
    }

    #[test]
    fn the_command_is_analyzed_in_the_calls_own_working_directory() {
        let sandbox = sandbox();
        sandbox.exe("tool");
        sandbox.exe("sub/tool");
        let allowed = format!("{}/tool", sandbox.root.display());
        let config = config(&sandbox, &[allowed.as_str()]);
        let store = ApprovalStore::in_memory();
        let call = |args: Value| store.hit(&config, "exec", Some("command"), &args, None);
        assert!(call(json!({ "command": "./tool" })).hit);
        // A relative cwd is resolved against the configured cwd, never dropped: `./tool` there
        // is another program.
        for key in [
            "cwd",
            "workdir",
            "working_directory",
            "workingDirectory",
            "dir",
        ] {
            let found = call(json!({ "command": "./tool", key: "sub" }));
            assert!(!found.hit, "{key}");
            assert!(found.miss.contains("sub/tool"), "{key}: {}", found.miss);
        }
        let absolute = sandbox.root.join("sub").display().to_string();
        assert!(!call(json!({ "command": "./tool", "cwd": absolute })).hit);
        assert!(call(json!({ "command": "./tool", "cwd": "." })).hit);
        // A working directory that cannot be known is a miss naming why.
        let found = call(json!({ "command": "./tool", "cwd": 5 }));
        assert!(!found.hit);
        assert!(
            found.miss.contains("\"cwd\" is not a string: 5"),
            "{}",
            found.miss
        );
        let found = call(json!({ "command": "./tool", "cwd": ".", "workdir": "sub" }));
        assert!(
            found.miss.contains("name different directories"),
            "{}",
            found.miss
        );
        // Git in a repository of its own below the workspace would run that repository's
        // configuration: the call's working directory is checked as `git -C` is.
        sandbox.dir("vendor/evil/.git");
        let config = self::config(&sandbox, &[allowed.as_str(), "git"]);
        let git = |args: Value| store.hit(&config, "exec", Some("command"), &args, None);
        assert!(git(json!({ "command": "git status" })).hit);
        assert!(git(json!({ "command": "git status", "cwd": "sub" })).hit);
        let found = git(json!({ "command": "git status", "cwd": "vendor/evil" }));
        assert!(!found.hit);
        assert!(
            found.miss.contains("a repository of its own"),
            "{}",
            found.miss
        );
        // An environment that can change what runs is a miss too.
        let found = call(json!({ "command": "./tool", "env": { "PATH": "/tmp" } }));
        assert!(!found.hit);
        assert!(found.miss.contains("\"PATH\""), "{}", found.miss);
        assert!(call(json!({ "command": "./tool", "env": { "LANG": "C" } })).hit);
        // Without a configured cwd, the base given by the dispatcher resolves it.
        let mut config = config.clone();
        config.analyze.cwd = None;
        let found = store.hit(
            &config,
            "exec",
            Some("command"),
            &json!({ "command": "./tool", "cwd": "sub" }),
            Some(sandbox.root.clone()),
        );
        assert!(found.miss.contains("sub/tool"), "{}", found.miss);
    }

    #[test]
    fn plain_tools_hit_by_allow_tools_or_a_grant() {
        let sandbox = sandbox();
        let config = config(&sandbox, &[]);
        let mut store = ApprovalStore::in_memory();
        let plain = |store: &ApprovalStore, tool: &str| {
            store.hit(&config, tool, None, &json!({}), None).hit
        };
        assert!(plain(&store, "read"));
        assert!(!plain(&store, "write"));
        assert_eq!(
            store.hit(&config, "write", None, &json!({}), None).miss,
            "tool \"write\" is not in approvals.allowTools"
        );
        store.remember(Grant::for_call("Write", None)).unwrap();
        assert!(plain(&store, "write"));
    }

    #[test]
    fn allow_always_on_plain_programs_allows_their_paths() {
        let sandbox = sandbox();
        let config = config(&sandbox, &[]);
        let mut store = ApprovalStore::in_memory();
        assert!(!hit(&store, &config, "ls -la | git status"));
        let grant = grant_for(&store, &config, "ls -la | git status");
        match &grant {
            Grant::Executables { tool, paths } => {
                assert_eq!(tool, "exec");
                assert_eq!(paths.len(), 2);
                assert!(paths[0].ends_with("/bin/ls") && paths[1].ends_with("/bin/git"));
            }
            other => panic!("{other:?}"),
        }
        store.remember(grant).unwrap();
        assert!(hit(&store, &config, "ls"));
        assert!(hit(&store, &config, "git log && ls /tmp"));
        // Argument injection through a remembered program is still refused, and allowing it
        // always remembers that exact text, not the program.
        assert!(!hit(&store, &config, "git -c core.pager=sh log"));
        assert_eq!(
            grant_for(&store, &config, "git -c core.pager=sh log"),
            Grant::Command {
                tool: "exec".into(),
                text: "git -c core.pager=sh log".into()
            }
        );
        assert!(!hit(&store, &config, "rm -rf /"));
    }

    #[test]
    fn allow_always_on_a_wrapper_allows_only_that_exact_command() {
        let sandbox = sandbox();
        let config = config(&sandbox, &["ls"]);
        let rows = [
            ("sh -c 'ls'", "sh -c 'rm -rf /'"),
            ("bash -lc 'ls'", "bash -lc 'rm -rf /'"),
            ("env X=1 ls", "env X=1 rm -rf /"),
            ("sudo ls", "sudo rm -rf /"),
            ("ls | xargs rm", "ls | xargs rm -rf /"),
            ("python3 -c 'print(1)'", "python3 -c 'import os'"),
            ("X=1 ls", "X=1 rm -rf /"),
            ("ls $(pwd)", "ls $(rm -rf /)"),
        ];
        for (granted, other) in rows {
            let mut store = ApprovalStore::in_memory();
            assert!(!hit(&store, &config, granted), "{granted}");
            let grant = grant_for(&store, &config, granted);
            assert_eq!(
                grant,
                Grant::Command {
                    tool: "exec".into(),
                    text: granted.into()
                },
                "{granted}"
            );
            store.remember(grant).unwrap();
            assert!(hit(&store, &config, granted), "{granted}");
            assert!(
                !hit(&store, &config, other),
                "{granted} must not allow {other}"
            );
            for program in ["sh", "bash", "env", "sudo", "xargs", "python3", "rm"] {
                let listed = store
                    .grants
                    .commands
                    .get("exec")
                    .is_some_and(|g| g.executables.iter().any(|p| p.ends_with(program)));
                assert!(!listed, "{granted} added {program}");
            }
        }
    }

    #[test]
    fn a_missing_command_is_a_miss_with_a_reason() {
        let sandbox = sandbox();
        let config = config(&sandbox, &["ls"]);
        let store = ApprovalStore::in_memory();
        let found = store.hit(
            &config,
            "exec",
            Some("command"),
            &json!({ "command": 5 }),
            None,
        );
        assert!(!found.hit);
        assert_eq!(
            found.miss,
            "the command parameter \"command\" is neither a string nor an argument array of strings: 5"
        );
    }

    #[test]
    fn the_file_round_trips_atomically_and_refuses_what_it_cannot_trust() {
        let sandbox = sandbox();
        let dir = sandbox.root.join("state");
        let file = dir.join("approvals.json");
        let mut store = ApprovalStore::load(&file).unwrap();
        store.remember(Grant::Tool("write".into())).unwrap();
        store
            .remember(Grant::Command {
                tool: "exec".into(),
                text: "sh -c 'ls'".into(),
            })
            .unwrap();
        let leftovers: Vec<_> = fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(leftovers, vec!["approvals.json".to_string()]);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = fs::metadata(&file).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        let again = ApprovalStore::load(&file).unwrap();
        assert_eq!(again.grants, store.grants);
        let written: Value = serde_json::from_str(&fs::read_to_string(&file).unwrap()).unwrap();
        assert_eq!(
            written,
            json!({ "version": 1, "tools": ["write"],
                    "commands": { "exec": { "executables": [], "exact": ["sh -c 'ls'"] } } })
        );

        for (text, expected) in [
            ("{ not json", "is malformed"),
            (r#"{ "version": 2 }"#, "has version 2"),
            (r#"{ "version": 1, "tools": [1] }"#, "is malformed"),
        ] {
            fs::write(&file, text).unwrap();
            let error = ApprovalStore::load(&file).unwrap_err();
            assert!(
                error.message.contains(file.to_str().unwrap()) && error.message.contains(expected),
                "{}",
                error.message
            );
        }
    }

    #[test]
    fn a_failed_write_leaves_the_store_unchanged() {
        let sandbox = sandbox();
        // The file's directory does not exist at load; then a regular file takes its name, so
        // neither the directory nor the file can be written.
        let blocker = sandbox.root.join("blocker");
        let mut store = ApprovalStore::load(&blocker.join("approvals.json")).unwrap();
        fs::write(&blocker, "x").unwrap();
        let error = store.remember(Grant::Tool("write".into())).unwrap_err();
        assert!(
            error.message.contains("approvals file"),
            "{}",
            error.message
        );
        assert!(store.grants.tools.is_empty());
    }
}
