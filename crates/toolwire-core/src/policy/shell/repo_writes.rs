//! A line's other segments writing the repository git reads: git reads its configuration and
//! hooks when it runs, after the analysis, so in `cp x .git/hooks/pre-commit && git commit` or
//! `cp x .git/config && git status` the repository checked ([`git`](super::git)) is not the one
//! git uses. No list of writing programs could be complete, so the rule lists readers: in a
//! line of more than one segment, git runs only beside programs that write no file
//! ([`file_writes`](super::file_writes): `sort` without `-o`, `uniq` with one operand, ...) and git subcommands that write only the index, refs, objects and the work
//! tree, which git never lets reach `.git` ([`subcommands::NO_FILES`]). The package managers'
//! configuration files are read likewise (`cp x .yarnrc.yml && yarn why react`).
//!
//! A line run as root can write the trusted dirs themselves, so there every program of the
//! line depends on what its other segments write (`cp ./evil /usr/local/sbin/wc && wc -l`):
//! [`refuse_beside_writers_as_root`] applies the same "writes no file" rule to every program.

use super::file_writes;
use super::git::subcommands;
use super::names;
use super::SegmentVerdict;

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

/// The arguments of the segment `argv` after its program; `argv` may start with `NAME=value`
/// words, before the program.
fn program_args(argv: &[String]) -> &[String] {
    let assignment = |word: &String| {
        word.split_once('=').is_some_and(|(name, _)| {
            name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
                && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        })
    };
    let program = argv.iter().take_while(|w| assignment(w)).count();
    argv.get(program + 1..).unwrap_or_default()
}

/// Whether the git segment `argv` writes no file git reads as configuration or a hook.
/// With `work_tree`, a subcommand writing the work tree ([`subcommands::WORK_TREE`]) writes.
fn git_writes_no_files(argv: &[String], work_tree: bool) -> bool {
    super::git::subcommand(program_args(argv)).is_none_or(|sub| {
        subcommands::has(sub, subcommands::NO_FILES)
            && !(work_tree && subcommands::has(sub, subcommands::WORK_TREE))
    })
}

/// Whether the approved segment `verdict` writes no file: a program that with its arguments
/// writes none ([`file_writes`]), git writing none, or a safe bin within its profile (which
/// takes no file argument). An allowlisted program is never worse than a safe bin.
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
    reads_config(verdict)
        || file_writes::writes_no_file(real_name(verdict), program_args(&verdict.argv))
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
            let why = if is_git(&verdicts[i]) {
                "reads its configuration and hooks (in `.git`) when it runs"
            } else {
                "reads its configuration (`.npmrc`, `.yarnrc`, `.yarnrc.yml`) when it runs"
            };
            refuse_beside(verdicts, i, &writers, why);
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::policy::shell::tests::Sandbox;
    use crate::policy::shell::{analyze_command, AnalyzeOptions};

    /// Lines of readers beside git, as root and not, with whether they pass (seen by a new
    /// user: `sort`, `uniq -c` allowlisted, `sed -n`, `jq` counted as programs that may write
    /// files, so `git log | sort` was refused, and as root even `ls | sort`; allowlisting
    /// `uniq` turned `git log --oneline | uniq -c` from approved to refused). The writing forms
    /// of the same programs stay refused.
    const LINES: &[(&str, bool, bool)] = &[
        // (line, approved when not root, approved as root)
        ("git log --oneline | sort", true, true),
        ("git log | sed -n 1,5p", true, true),
        ("git show HEAD:package.json | jq .name", true, true),
        (
            "git log --format=%an | sort | uniq -c | sort -rn | head -n 5",
            true,
            true,
        ),
        ("git log --oneline | uniq -c", true, true),
        ("ls | sort", true, true),
        ("cat a | sort | uniq -c", true, true),
        ("grep -rh import src | sort -u", true, true),
        ("git log | nl | tac", true, true),
        ("cat a | sha256sum && git status", true, true),
        ("git log | sort -o .git/config", false, false),
        (
            "sort -o .git/hooks/pre-commit a && git status",
            false,
            false,
        ),
        ("git log | sort --out=.git/config", false, false),
        ("uniq a .git/config; git status", false, false),
        ("git log | shuf -o x", false, false),
        ("git log | tee x", false, false),
        ("ls | sort -o x", true, false),
        ("ls | uniq a b", true, false),
        ("cp a b && ls", true, false),
    ];

    /// A work tree `ws` with a `.git` of a config and a hooks directory.
    fn repository(sandbox: &Sandbox) -> std::path::PathBuf {
        let ws = sandbox.dir("ws");
        sandbox.dir("ws/.git/hooks");
        std::fs::write(ws.join(".git/config"), "[core]\n\tbare = false\n").unwrap();
        ws
    }

    #[test]
    fn readers_by_their_arguments_run_beside_git_and_as_root() {
        let sandbox = Sandbox::new("repo-writes-readers");
        let ws = repository(&sandbox);
        let programs = [
            "ls",
            "git",
            "sort",
            "uniq",
            "sed",
            "jq",
            "cat",
            "grep",
            "head",
            "cp",
            "tee",
            "shuf",
            "nl",
            "tac",
            "sha256sum",
        ];
        let base = sandbox.allowlisting(ws, &programs);
        for (line, user, root) in LINES {
            for (runs_as_root, want) in [(false, user), (true, root)] {
                let options = AnalyzeOptions {
                    runs_as_root,
                    ..base.clone()
                };
                let analysis = analyze_command(line, &options);
                assert_eq!(
                    analysis.approved, *want,
                    "{line} (root: {runs_as_root}): {:?}",
                    analysis.reason
                );
            }
        }
    }

    /// The whole refusal of a configuration reader beside a writer (it read "(git: and
    /// hooks)").
    #[test]
    fn config_reader_refusals_read_as_sentences() {
        let sandbox = Sandbox::new("repo-writes-wording");
        let ws = repository(&sandbox);
        let options = sandbox.allowlisting(ws, &["git", "cp"]);
        assert_eq!(
            analyze_command("cp x y && git status", &options).reason.as_deref(),
            Some(
                "segment `git status`: `git` reads its configuration and hooks (in `.git`) when it runs, and `cp x y` in this line may write them first: in a line of several segments it runs only beside programs that write no file"
            )
        );
    }
}
