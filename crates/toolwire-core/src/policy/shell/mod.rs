//! `analyzeCommand`: decides whether a shell command line for an exec-like tool may run without
//! asking, by reading it literally.
//!
//! The analyzer approves only what it can read as plain words: anything the shell would expand,
//! substitute or redirect is refused at the command level ([`lex`]); the command is split into
//! segments ([`segments`]) and each segment's program is resolved to its real path exactly as
//! the shell finds it ([`resolve`]), refused when it is a wrapper, editor or interpreter running
//! other code under any of its names ([`wrappers`], [`names`]), and approved only through the
//! allowlist ([`allowlist`]) or a safe-bin profile ([`safe_bins`]), with argument injection
//! refused ([`injection`], [`git`], [`code_args`], [`packages`], [`sed`], [`sysctl`],
//! [`version_managers`], [`manager_commands`], [`extract_paths`]), what a version manager's
//! shim hands over to checked as a bare resolution is ([`shims`]), options read as getopt
//! reads them ([`getopt`]) and subcommands at their place ([`subcommand`]); in a line of
//! several segments,
//! programs come only from directories the line cannot write ([`line_writes`]), and git runs
//! only beside programs that write no file ([`repo_writes`]). For a tool
//! call, [`workdir`] and
//! [`callenv`] read where the command runs and what environment it is given.

pub mod allowlist;
pub mod apt;
pub mod callenv;
pub mod clients;
pub mod code_args;
pub mod extract_paths;
pub mod file_writes;
pub mod getopt;
pub mod git;
pub mod git_config;
pub mod injection;
pub mod lex;
pub mod line_writes;
pub mod manager_commands;
pub mod names;
pub mod options;
pub mod packages;
pub mod repo_writes;
pub mod resolve;
pub mod runtimes;
pub mod rustup;
pub mod safe_bins;
pub mod sed;
pub mod segments;
pub mod shims;
pub mod subcommand;
pub mod submodules;
pub mod sysctl;
pub mod version_managers;
pub mod workdir;
pub mod wrappers;
pub mod write_paths;

#[cfg(test)]
mod bypass_tests;
#[cfg(test)]
mod bypass_tests_code_options;
#[cfg(test)]
mod bypass_tests_last;
#[cfg(test)]
mod bypass_tests_progs;
#[cfg(test)]
mod bypass_tests_review;
#[cfg(test)]
mod bypass_tests_review5;
#[cfg(test)]
pub(crate) mod tests;

use std::path::{Path, PathBuf};

use serde::Serialize;

pub use options::AnalyzeOptions;

/// How the reason of a segment approved through a safe-bin profile starts: such a segment takes
/// no file argument, so it writes no file ([`repo_writes`]).
pub(crate) const SAFE_BIN_RULE: &str = "safe bin";

/// Commands longer than this (in bytes) are refused.
pub const MAX_COMMAND_BYTES: usize = 64 * 1024;

/// The verdict on one simple command of the line.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SegmentVerdict {
    /// Its words after quote removal.
    pub argv: Vec<String>,
    /// The program as typed (argv[0]), when there is one.
    pub executable: Option<String>,
    /// The real path of the program, when it was found.
    pub resolved_path: Option<String>,
    /// Whether this segment may run.
    pub approved: bool,
    /// Why it was refused (or which rule approved it).
    pub reason: Option<String>,
    /// Whether the program runs other commands or program text (never approved automatically).
    pub wrapper: bool,
    /// Refused only because its program is not allowlisted: a plain program found at
    /// `resolved_path` whose arguments pass the checks of allowlisted programs. Not shown to
    /// JavaScript.
    #[serde(skip)]
    pub unlisted: bool,
    /// Why its program could be another one when it runs, should another segment of the line
    /// write files first ([`line_writes::replaceable`]); applied once every segment is known
    /// ([`line_writes::refuse_replaceable_beside_writers`]). Not shown to JavaScript.
    #[serde(skip)]
    pub replaceable: Option<String>,
    /// Whether its real file lies where only the system puts programs (it has trusted names):
    /// only then do the rules that know a program by its name say what it writes
    /// ([`repo_writes`]). Not shown to JavaScript.
    #[serde(skip)]
    pub trusted: bool,
}

/// The verdict on a whole command line.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Analysis {
    /// Whether every segment is approved and nothing was refused at the command level.
    pub approved: bool,
    /// The first refusal, when not approved.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// One verdict per segment (empty when the line could not be read).
    pub segments: Vec<SegmentVerdict>,
}

impl Analysis {
    /// The analysis of a line refused as a whole, with no segment read.
    pub fn refused(reason: String) -> Analysis {
        Analysis {
            approved: false,
            reason: Some(reason),
            segments: Vec::new(),
        }
    }
}

/// Analyzes `command` against `options`; never panics, linear in the command's length (plus the
/// file-system lookups of each segment's program).
pub fn analyze_command(command: &str, options: &AnalyzeOptions) -> Analysis {
    if command.len() > MAX_COMMAND_BYTES {
        return Analysis::refused(format!(
            "command is {} bytes, over the limit of {MAX_COMMAND_BYTES} bytes",
            command.len()
        ));
    }
    let segments = match lex::tokenize(command).and_then(segments::split) {
        Ok(segments) => segments,
        Err(reason) => return Analysis::refused(reason),
    };
    let context = Context::new(options, segments.len());
    let mut verdicts: Vec<SegmentVerdict> = segments
        .iter()
        .map(|segment| context.check(segment))
        .collect();
    line_writes::refuse_replaceable_beside_writers(&mut verdicts);
    repo_writes::refuse_git_beside_writers(&mut verdicts);
    repo_writes::refuse_beside_writers_as_root(&mut verdicts, options.runs_as_root);
    let first_refusal = verdicts.iter().find(|v| !v.approved).map(|v| {
        format!(
            "segment `{}`: {}",
            v.argv.join(" "),
            v.reason.as_deref().unwrap_or("refused")
        )
    });
    Analysis {
        approved: first_refusal.is_none(),
        reason: first_refusal,
        segments: verdicts,
    }
}

/// What every segment check needs, computed once per command.
struct Context<'a> {
    options: &'a AnalyzeOptions,
    path_var: String,
    trusted: Vec<PathBuf>,
    link_dirs: Vec<PathBuf>,
    /// How many segments the line has: with more than one, an earlier one may write the
    /// program a later one runs ([`line_writes`]).
    segments: usize,
}

/// The basename of what was typed.
fn basename(name: &str) -> &str {
    name.rsplit('/').next().unwrap_or(name)
}

impl<'a> Context<'a> {
    fn new(options: &'a AnalyzeOptions, segments: usize) -> Self {
        let path_var = match &options.path {
            Some(path) => path.clone(),
            None => std::env::var("PATH").unwrap_or_default(),
        };
        Context {
            options,
            path_var,
            trusted: resolve::canonical_dirs(&options.trusted_dirs),
            link_dirs: resolve::canonical_dirs(&options.link_dirs),
            segments,
        }
    }

    fn check(&self, segment: &segments::Segment) -> SegmentVerdict {
        let argv: Vec<String> = segment.words.iter().map(|w| w.text.clone()).collect();
        let mut verdict = SegmentVerdict {
            argv,
            executable: None,
            resolved_path: None,
            approved: false,
            reason: None,
            wrapper: false,
            unlisted: false,
            replaceable: None,
            trusted: false,
        };
        match self.decide(segment, &mut verdict) {
            Ok(rule) => {
                verdict.approved = true;
                verdict.reason = Some(rule);
            }
            Err(reason) => verdict.reason = Some(reason),
        }
        verdict
    }

    /// Fills in what it learns and returns the approving rule, or the refusal.
    fn decide(
        &self,
        segment: &segments::Segment,
        verdict: &mut SegmentVerdict,
    ) -> Result<String, String> {
        // `NAME=value` words before the program: only variables the call's own environment may
        // set too ([`callenv`]), with values that name no file.
        let assignments = segment.words.iter().take_while(|w| w.assignment).count();
        for word in &segment.words[..assignments] {
            let (name, value) = word.text.split_once('=').unwrap_or((&word.text, ""));
            if let Some(why) = callenv::unsafe_assignment(name, value) {
                verdict.wrapper = true;
                return Err(format!(
                    "environment assignment `{}` before the command ({why})",
                    word.text
                ));
            }
        }
        let Some(typed) = verdict.argv.get(assignments).cloned() else {
            return Err(
                "environment assignment without a command (it sets a shell variable)".into(),
            );
        };
        verdict.executable = Some(typed.clone());
        let args = &verdict.argv[assignments + 1..];
        let typed_name = basename(&typed).to_string();
        let cwd = self.options.cwd.as_deref();
        let place = injection::Place {
            cwd,
            root: self.options.root.as_deref(),
        };
        if let Some(name) = names::lookup_names(&typed_name)
            .into_iter()
            .find(|name| wrappers::is_wrapper(name))
        {
            verdict.wrapper = true;
            return Err(format!(
                "`{typed_name}` is a wrapper (`{name}`) that runs other commands"
            ));
        }
        if matches!(typed.as_str(), "cd" | "pushd" | "popd") {
            return Err(format!(
                "`{typed}` changes the directory the later segments run in, which the analysis does not follow: give the tool call its working directory (cwd) instead"
            ));
        }
        if wrappers::SHELL_WORDS.contains(&typed.as_str()) {
            return Err(format!("shell keyword or builtin `{typed}` is not allowed"));
        }
        if let Some(why) = wrappers::assigning_builtin(&typed_name, args) {
            return Err(why);
        }
        let found = resolve::resolve_executable(&typed, cwd, &self.path_var)?;
        // Kept for when every segment is known: it refuses only beside a segment that may write
        // files ([`line_writes`]).
        verdict.replaceable = (self.segments > 1)
            .then(|| {
                let writer = line_writes::Writer {
                    trusted: &self.trusted,
                    workspace: cwd.into_iter().chain(place.root).collect(),
                    as_root: self.options.runs_as_root,
                };
                line_writes::replaceable(&typed, &found, cwd, &self.path_var, &writer)
            })
            .flatten();
        let real = found.real.clone();
        let real_str = real
            .to_str()
            .ok_or_else(|| format!("real path of `{typed}` is not UTF-8"))?
            .to_string();
        verdict.resolved_path = Some(real_str.clone());
        let real_name = found.real_name().to_string();
        // Only these names can approve: a name given by what was typed or by a symlink outside
        // the trusted dirs (`./ls` -> `/usr/bin/rm`) never does.
        let workspace: Vec<&Path> = cwd.into_iter().chain(place.root).collect();
        // A shim runs, for the `system` version, the same name over PATH without its directory.
        let handover = shims::check_handover(&typed_name, &found, cwd, &self.path_var, &workspace)?;
        let identity = found.trusted_identity(&self.trusted, &self.link_dirs, &workspace);
        let trusted_names = identity.names;
        let trusted = !trusted_names.is_empty();
        verdict.trusted = trusted;
        // Every name the program goes by, and every base name each may stand for
        // (`tclsh8.6` -> `tclsh`), is checked for wrappers and argument injection.
        let known = all_names(&real_name, &typed_name, &trusted_names);
        let lookup = names::all_names_by(&known, names::lookup_names);
        let variants = names::all_names_by(&known, names::variant_names);
        let names: Vec<&str> = variants.iter().map(String::as_str).collect();
        for name in lookup.iter().map(String::as_str) {
            if wrappers::is_wrapper(name) {
                verdict.wrapper = true;
                return Err(format!(
                    "`{typed}` resolves to `{real_str}`, a wrapper (`{name}`) that runs other commands"
                ));
            }
            if let Some(why) = wrappers::wrapping_subcommand(name, &typed_name, args) {
                verdict.wrapper = true;
                return Err(format!("`{typed}` resolves to `{real_str}`: {why}"));
            }
            manager_commands::check_manager_command(name, &typed_name, args)?;
            if wrappers::REFUSED_PROGRAMS.contains(&name) {
                return Err(format!(
                    "`{name}` can spawn a shell and is refused outright"
                ));
            }
            match runtimes::check_runtime(name, args, cwd) {
                Some(Ok(())) => continue,
                Some(Err(runtimes::Refusal::WorkspaceCode(why))) => return Err(why),
                Some(Err(runtimes::Refusal::ProgramText(why))) => {
                    verdict.wrapper = true;
                    return Err(format!("interpreter wrapper: {why}"));
                }
                None => {}
            }
            if let Some(why) = wrappers::interpreter_program_text(name, args, cwd) {
                verdict.wrapper = true;
                return Err(format!("interpreter wrapper: {why}"));
            }
            if let Some(why) = wrappers::assigning_builtin(name, args) {
                return Err(why);
            }
        }
        // A path entry matches the real path or a trusted link's (`/usr/bin/npm`, what `which`
        // prints).
        let entry = allowlist::matching_entry(&self.options.allowlist, &real_str, &trusted_names)
            .or_else(|| {
                identity
                    .links
                    .iter()
                    .find_map(|link| allowlist::matching_entry(&self.options.allowlist, link, &[]))
            });
        if let Some(entry) = entry {
            injection::check_arguments(&names, args, place)?;
            return Ok(format!(
                "allowlisted by `{entry}`{}{handover}",
                writable_program_warning(&found, &self.trusted, &workspace)
            ));
        }
        // A safe bin's profile describes that program only: it matches the real file's name,
        // never another name a symlink gives it.
        if trusted {
            if let Some(bin) = self
                .options
                .safe_bins
                .iter()
                .find(|b| b.as_str() == real_name)
            {
                safe_bins::check_profile(bin, args)?;
                return Ok(format!(
                    "{SAFE_BIN_RULE} `{bin}`{}{handover}",
                    writable_program_warning(&found, &self.trusted, &workspace)
                ));
            }
        }
        // Allowlisting its path would approve this segment as it stands only if its arguments
        // pass the checks an allowlisted program's do.
        verdict.unlisted = injection::check_arguments(&names, args, place).is_ok();
        let hint = if trusted {
            unmatched_name_hint(&self.options.allowlist, &typed_name, &trusted_names)
                + &writable_program_warning(&found, &self.trusted, &workspace)
        } else {
            untrusted_hint(&real, &workspace)
        };
        Err(format!(
            "`{typed}` ({}) is not allowlisted{hint}",
            display_real(&real, trusted),
        ))
    }
}

/// Why a bare allowlist entry naming the program as it was typed did not match: bare entries
/// match the names the program goes by in the trusted dirs (`tsx` typed, its real file
/// `cli.mjs`, the link `tsx` outside them: user review r10 #8 read "`tsx` is not allowlisted"
/// with `tsx` in the allowlist). Empty when no entry names it.
fn unmatched_name_hint(allowlist: &[String], typed_name: &str, trusted_names: &[String]) -> String {
    if !allowlist.iter().any(|entry| entry == typed_name) {
        return String::new();
    }
    let names: Vec<String> = trusted_names.iter().map(|n| format!("`{n}`")).collect();
    format!(
        ": the bare entry `{typed_name}` matches the names the program goes by in the trusted dirs ({}: its real file's, and a link's lying in one), not the name of the link `{typed_name}` it was reached through",
        names.join(", ")
    )
}

/// How the agent can change a directory a program was found in or really lies in.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Writable {
    /// One of the `workspace` directories (the agent's own tools write there).
    Workspace,
    /// A group or every user may write it.
    Shared,
    /// It belongs to this process's own user (not root: root writes every directory, so the
    /// warning would say nothing).
    OwnUser,
}

impl Writable {
    /// Why, as a warning or a refusal says it.
    fn why(self) -> &'static str {
        match self {
            Writable::Workspace => "lies in the workspace, which the agent's tools write",
            Writable::Shared => "can be written by users other than its owner",
            Writable::OwnUser => "belongs to the user this process runs as",
        }
    }
}

/// Whether the agent can change `dir`, and how ([`Writable`]).
fn writable_dir(dir: &Path, workspace: &[&Path]) -> Option<Writable> {
    use std::os::unix::fs::MetadataExt;
    let in_workspace = workspace
        .iter()
        .filter_map(|w| std::fs::canonicalize(w).ok())
        .any(|w| dir.starts_with(&w));
    if in_workspace {
        return Some(Writable::Workspace);
    }
    let meta = std::fs::metadata(dir).ok()?;
    if meta.mode() & 0o022 != 0 {
        return Some(Writable::Shared);
    }
    let own_uid = std::fs::metadata("/proc/self").ok()?.uid();
    (own_uid != 0 && meta.uid() == own_uid && meta.mode() & 0o200 != 0).then_some(Writable::OwnUser)
}

/// A warning for the approving rule (and a refusal's reason) when the program was found in, or
/// really lies in, a directory the agent can change ([`writable_dir`]): a trusted dir
/// (`trustedDirs` must hold only directories the agent cannot write, since what a bare name
/// runs is whatever was put there) or, for a path entry, the program's own directory; else
/// nothing.
fn writable_program_warning(
    found: &resolve::Executable,
    trusted: &[PathBuf],
    workspace: &[&Path],
) -> String {
    let dirs: Vec<PathBuf> = [found.found.parent(), found.real.parent()]
        .into_iter()
        .flatten()
        .filter_map(|dir| std::fs::canonicalize(dir).ok())
        .collect();
    let open = dirs
        .iter()
        .filter(|dir| trusted.contains(dir))
        .find_map(|dir| writable_dir(dir, workspace).map(|how| (dir, how)));
    if let Some((dir, how)) = open {
        return format!(
            " (warning: the trusted dir `{}` {}, so what this name runs can be replaced; trustedDirs must hold only directories the agent cannot write)",
            dir.display(),
            how.why()
        );
    }
    match dirs.last() {
        Some(dir) if writable_dir(dir, workspace) == Some(Writable::Workspace) => format!(
            " (warning: `{}` {}, so the program approved can be replaced: approve such a program per call instead)",
            dir.display(),
            Writable::Workspace.why()
        ),
        _ => String::new(),
    }
}

/// The real name, the typed name and the trusted names, each once.
fn all_names<'n>(real_name: &'n str, typed_name: &'n str, trusted: &'n [String]) -> Vec<&'n str> {
    let mut names: Vec<&str> = vec![real_name];
    for name in std::iter::once(typed_name).chain(trusted.iter().map(String::as_str)) {
        if !names.contains(&name) {
            names.push(name);
        }
    }
    names
}

/// What to add for a program whose real file lies outside the trusted dirs (a rustup, pyenv or
/// nvm shim: `~/.cargo/bin/cargo` -> `rustup`): a bare name never matches it, and a path entry
/// matches the real path, not the one `which` prints. A program in the workspace gets no such
/// advice (user review r10 #8: `node_modules/.bin/tsx` was to be allowlisted by its path, which
/// approves whatever the agent writes there): such a call is approved per call.
fn untrusted_hint(real: &Path, workspace: &[&Path]) -> String {
    let dir = real.parent().unwrap_or(Path::new("/"));
    if writable_dir(dir, workspace) == Some(Writable::Workspace) {
        return format!(
            ": `{}` {}, so neither its path nor its directory should be allowlisted or trusted (that would approve whatever is written there); approve such a call per call (approvals with ask: 'on-miss' and onApproval), or install the program outside the workspace",
            dir.display(),
            Writable::Workspace.why()
        );
    }
    let dir = dir.display();
    format!(
        ": a bare name matches only a real file in the trusted dirs, and a path entry the real path; to approve it, add `{}` (or a glob such as `{dir}/*`) to the allowlist, or `{dir}` to trustedDirs",
        real.display()
    )
}

fn display_real(real: &Path, trusted: bool) -> String {
    if trusted {
        format!("{} in a trusted dir", real.display())
    } else {
        format!("{} outside the trusted dirs", real.display())
    }
}
