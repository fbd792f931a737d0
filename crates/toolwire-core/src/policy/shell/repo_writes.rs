//! A line's other segments writing the repository git reads: git reads its configuration and
//! hooks when it runs, after the analysis, so in `cp x .git/hooks/pre-commit && git commit` or
//! `cp x .git/config && git status` the repository checked ([`git`](super::git)) is not the one
//! git uses. No list of writing programs could be complete, so the rule lists readers: in a
//! line of more than one segment, git runs only beside programs that write no file
//! ([`READERS`]) and git subcommands that write only the index, refs, objects and the work
//! tree, which git never lets reach `.git` ([`subcommands::NO_FILES`]). The package managers'
//! configuration files are read likewise (`cp x .yarnrc.yml && yarn why react`).
//!
//! A line run as root can write the trusted dirs themselves, so there every program of the
//! line depends on what its other segments write (`cp ./evil /usr/local/sbin/wc && wc -l`):
//! [`refuse_beside_writers_as_root`] applies the same "writes no file" rule to every program.

use super::git::subcommands;
use super::names;
use super::SegmentVerdict;

/// Programs that write no file whatever their arguments (no output-file option).
const READERS: &[&str] = &[
    "ls", "cat", "echo", "pwd", "true", "false", "wc", "head", "tail", "cut", "tr", "grep",
    "egrep", "fgrep", "date", "uname", "whoami", "id", "basename", "dirname", "realpath",
    "readlink", "stat", "du", "df", "which", "diff", "cmp", "nproc", "sleep", "seq", "test",
];

/// Programs that read, when they run, workspace configuration the analysis checked because it
/// can run code: git's repository, the package managers' `.yarnrc` and `.npmrc`
/// ([`packages`](super::packages)). Their approved forms write no file.
const CONFIG_READERS: &[&str] = &["git", "npm", "pnpm", "yarn"];

/// The name of the real file `verdict` runs.
fn real_name(verdict: &SegmentVerdict) -> &str {
    let real = verdict.resolved_path.as_deref().unwrap_or_default();
    real.rsplit('/').next().unwrap_or(real)
}

/// Whether `verdict` runs git.
fn is_git(verdict: &SegmentVerdict) -> bool {
    names::variant_names(real_name(verdict))
        .iter()
        .any(|n| n == "git")
}

/// Whether `verdict` runs a [configuration reader](CONFIG_READERS).
fn reads_config(verdict: &SegmentVerdict) -> bool {
    names::variant_names(real_name(verdict))
        .iter()
        .any(|n| CONFIG_READERS.contains(&n.as_str()))
}

/// Whether the git segment `argv` writes no file git reads as configuration or a hook.
/// `argv` may start with `NAME=value` words, before the program.
/// With `work_tree`, a subcommand writing the work tree ([`subcommands::WORK_TREE`]) writes.
fn git_writes_no_files(argv: &[String], work_tree: bool) -> bool {
    let assignment = |word: &String| {
        word.split_once('=').is_some_and(|(name, _)| {
            name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
                && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        })
    };
    let program = argv.iter().take_while(|w| assignment(w)).count();
    let args = argv.get(program + 1..).unwrap_or_default();
    super::git::subcommand(args).is_none_or(|sub| {
        subcommands::has(sub, subcommands::NO_FILES)
            && !(work_tree && subcommands::has(sub, subcommands::WORK_TREE))
    })
}

/// Whether the approved segment `verdict` writes no file: a reader, git writing none, or a
/// safe bin within its profile (which takes no file argument).
/// A program known only by a name (its real file outside the trusted dirs) may be anything.
/// With `work_tree`, git subcommands writing the work tree count as writers too.
fn writes_no_files(verdict: &SegmentVerdict, work_tree: bool) -> bool {
    if !verdict.trusted {
        return false;
    }
    let rule = verdict.reason.as_deref().unwrap_or_default();
    if rule.starts_with(super::SAFE_BIN_RULE) {
        return true;
    }
    if is_git(verdict) {
        return git_writes_no_files(&verdict.argv, work_tree);
    }
    reads_config(verdict) || READERS.contains(&real_name(verdict))
}

/// The first two approved segments of `verdicts` that may write files (linear: no more are
/// needed to find, for each segment, another one that writes).
fn first_writers(verdicts: &[SegmentVerdict]) -> Vec<usize> {
    first_writers_of(verdicts, false)
}

/// [`first_writers`], counting git's work tree writes (`checkout`, `stash`, ...) too: the
/// writers that may put a program in place ([`line_writes`](super::line_writes)).
pub(super) fn first_file_writers(verdicts: &[SegmentVerdict]) -> Vec<usize> {
    first_writers_of(verdicts, true)
}

fn first_writers_of(verdicts: &[SegmentVerdict], work_tree: bool) -> Vec<usize> {
    (0..verdicts.len())
        .filter(|&i| verdicts[i].approved && !writes_no_files(&verdicts[i], work_tree))
        .take(2)
        .collect()
}

/// Refuses `verdicts[i]` for the reason `why` when another approved segment of the line may
/// write files ([`first_writers`]), naming it (bounded).
fn refuse_beside(verdicts: &mut [SegmentVerdict], i: usize, writers: &[usize], why: &str) {
    let Some(&writer) = writers.iter().find(|&&w| w != i) else {
        return;
    };
    let shown: String = verdicts[writer].argv.join(" ").chars().take(200).collect();
    verdicts[i].approved = false;
    verdicts[i].reason = Some(format!(
        "`{}` {why}, and `{shown}` in this line may write them first: in a line of several segments it runs only beside programs that write no file",
        real_name(&verdicts[i])
    ));
}

/// For a line run as root (`as_root`), refuses, in a line of more than one segment, every
/// approved segment beside another that may write files: root can write the trusted dirs, so
/// that one may put another program under the name this one is found by
/// (`cp ./evil /usr/local/sbin/wc && wc -l`). Lines whose segments all write no file
/// (`ls && git status`) stay approved.
pub fn refuse_beside_writers_as_root(verdicts: &mut [SegmentVerdict], as_root: bool) {
    if !as_root || verdicts.len() < 2 {
        return;
    }
    let writers = first_writers(verdicts);
    for i in 0..verdicts.len() {
        if verdicts[i].approved {
            refuse_beside(
                verdicts,
                i,
                &writers,
                "runs as root from directories root can write (the trusted dirs too)",
            );
        }
    }
}

/// Refuses, in a line of more than one segment, every approved git segment (or other
/// [configuration reader](CONFIG_READERS)) beside another
/// segment that may write files (before it, or beside it in a pipeline, which runs at the same
/// time): that one may write the repository's configuration or hooks first. Linear: only the
/// first two writers are kept.
pub fn refuse_git_beside_writers(verdicts: &mut [SegmentVerdict]) {
    if verdicts.len() < 2 {
        return;
    }
    let writers = first_writers(verdicts);
    for i in 0..verdicts.len() {
        if verdicts[i].approved && reads_config(&verdicts[i]) {
            refuse_beside(
                verdicts,
                i,
                &writers,
                "reads its configuration (git: and hooks) when it runs",
            );
        }
    }
}
