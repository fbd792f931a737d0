//! Every git subcommand the analysis lets run, in one table: the hooks it may run, whether it
//! writes files beyond the index, refs, objects and work tree, whether it may run git inside a
//! submodule, and whether it talks to another repository. The hook check ([`runs_hook`]), the
//! line rule on writers (`repo_writes`), the submodule rule (`submodules`) and the check of
//! talking subcommands (`git`) all read it; a subcommand outside it is refused.

/// The hooks a subcommand may run, by group (githooks(5), git 2.47, read from git's sources and
/// erring towards more).
pub const AM: u32 = 1;
/// `pre-commit`, `prepare-commit-msg`, `commit-msg`, `post-commit`: subcommands making commits.
pub const COMMIT: u32 = 1 << 1;
/// `pre-merge-commit`, `post-merge`.
pub const MERGE: u32 = 1 << 2;
/// `pre-rebase`.
pub const REBASE: u32 = 1 << 3;
/// `post-checkout`.
pub const CHECKOUT: u32 = 1 << 4;
/// The receiving side's hooks, which `git push .` runs here.
pub const PUSH: u32 = 1 << 5;
/// `reference-transaction`: subcommands that may update a ref.
pub const REF: u32 = 1 << 6;
/// `post-index-change`: subcommands that may write the index (`status`, `diff` and `describe`
/// too, when refreshing it finds changed stat data).
pub const INDEX: u32 = 1 << 7;
/// `pre-auto-gc`: subcommands that may run `gc --auto`.
pub const GC: u32 = 1 << 8;
/// `post-rewrite`.
pub const REWRITE: u32 = 1 << 9;
/// Every hook group.
const HOOK_BITS: u32 = (1 << 10) - 1;
/// Writes no file outside the index, refs, objects, logs and the work tree (never
/// `.git/config` or `.git/hooks`; `--output` and the like are refused by the option table).
pub const NO_FILES: u32 = 1 << 16;
/// Never runs git in a submodule (no diff, no status, no work-tree refresh) unless an argument
/// names submodules.
pub const TOP_ONLY: u32 = 1 << 17;
/// Talks to another repository named by an argument or configured as a remote (`archive` only
/// through `--remote`, checked apart).
pub const TALKS: u32 = 1 << 18;
/// Writes the work tree (never `.git`, but perhaps a program a later segment of the line runs:
/// `git checkout HEAD -- bin/ls && ls` with `bin` on PATH).
pub const WORK_TREE: u32 = 1 << 19;

/// Every command of git 2.47 (`git help -a`) the analysis lets run, with its properties. The
/// others are refused ([`SUBCOMMANDS_REFUSED`](super::SUBCOMMANDS_REFUSED)), and a name in
/// neither is an alias or an external `git-<name>`.
pub const SUBCOMMANDS: &[(&str, u32)] = &[
    ("add", INDEX | NO_FILES),
    ("am", AM | COMMIT | REF | INDEX | GC | REWRITE),
    ("annotate", 0),
    ("apply", INDEX),
    ("archive", 0),
    ("blame", NO_FILES),
    ("branch", REF | NO_FILES | TOP_ONLY),
    ("bugreport", 0),
    ("bundle", 0),
    ("cat-file", NO_FILES | TOP_ONLY),
    ("check-attr", NO_FILES | TOP_ONLY),
    ("check-ignore", NO_FILES | TOP_ONLY),
    ("check-mailmap", 0),
    ("check-ref-format", 0),
    ("checkout", CHECKOUT | REF | INDEX | WORK_TREE | NO_FILES),
    ("checkout-index", INDEX),
    ("cherry", NO_FILES),
    (
        "cherry-pick",
        COMMIT | REF | INDEX | GC | WORK_TREE | NO_FILES,
    ),
    ("clean", 0),
    ("clone", CHECKOUT | REF | INDEX | TALKS),
    ("column", 0),
    ("commit", COMMIT | REF | INDEX | GC | REWRITE | NO_FILES),
    ("commit-graph", 0),
    ("commit-tree", 0),
    // Only its reading forms pass (`config_reads`).
    ("config", NO_FILES | TOP_ONLY),
    ("count-objects", NO_FILES | TOP_ONLY),
    ("describe", INDEX | NO_FILES),
    ("diagnose", 0),
    ("diff", INDEX | NO_FILES),
    ("diff-files", NO_FILES),
    ("diff-index", NO_FILES),
    ("diff-tree", NO_FILES),
    ("fast-export", 0),
    ("fast-import", REF),
    ("fetch", REF | GC | NO_FILES | TALKS),
    ("fetch-pack", TALKS),
    ("fmt-merge-msg", 0),
    ("for-each-ref", NO_FILES | TOP_ONLY),
    ("format-patch", 0),
    ("fsck", NO_FILES),
    ("fsck-objects", NO_FILES),
    ("gc", REF | GC),
    ("get-tar-commit-id", 0),
    ("grep", NO_FILES),
    ("hash-object", 0),
    ("index-pack", 0),
    ("init", REF),
    ("init-db", REF),
    ("interpret-trailers", 0),
    ("log", NO_FILES),
    ("ls-files", NO_FILES | TOP_ONLY),
    ("ls-remote", NO_FILES | TALKS),
    ("ls-tree", NO_FILES | TOP_ONLY),
    ("mailinfo", 0),
    ("mailsplit", 0),
    (
        "merge",
        COMMIT | MERGE | REF | INDEX | GC | WORK_TREE | NO_FILES,
    ),
    ("merge-base", NO_FILES | TOP_ONLY),
    ("merge-file", 0),
    ("merge-tree", 0),
    ("mktag", 0),
    ("mktree", 0),
    ("multi-pack-index", 0),
    ("mv", INDEX | WORK_TREE | NO_FILES),
    ("name-rev", NO_FILES | TOP_ONLY),
    ("notes", REF),
    ("pack-objects", 0),
    ("pack-redundant", 0),
    ("pack-refs", REF),
    ("patch-id", 0),
    ("pickaxe", NO_FILES),
    ("prune", 0),
    ("prune-packed", 0),
    (
        "pull",
        COMMIT
            | MERGE
            | REBASE
            | CHECKOUT
            | REF
            | INDEX
            | GC
            | REWRITE
            | WORK_TREE
            | NO_FILES
            | TALKS,
    ),
    ("push", PUSH | REF | GC | NO_FILES | TALKS),
    ("range-diff", 0),
    ("read-tree", INDEX),
    (
        "rebase",
        COMMIT | REBASE | CHECKOUT | REF | INDEX | GC | REWRITE | WORK_TREE | NO_FILES,
    ),
    ("reflog", REF | NO_FILES),
    ("refs", REF),
    ("remote", REF | TALKS),
    ("repack", 0),
    ("replace", REF),
    ("replay", REF),
    ("request-pull", TALKS),
    ("rerere", 0),
    ("reset", CHECKOUT | REF | INDEX | WORK_TREE | NO_FILES),
    ("restore", CHECKOUT | INDEX | WORK_TREE | NO_FILES),
    ("rev-list", NO_FILES | TOP_ONLY),
    ("rev-parse", NO_FILES | TOP_ONLY),
    ("revert", COMMIT | REF | INDEX | GC | WORK_TREE | NO_FILES),
    ("rm", INDEX | WORK_TREE | NO_FILES),
    ("send-pack", PUSH | REF | TALKS),
    ("shortlog", NO_FILES),
    ("show", NO_FILES),
    ("show-branch", 0),
    ("show-index", 0),
    ("show-ref", NO_FILES | TOP_ONLY),
    ("sparse-checkout", INDEX),
    ("stash", CHECKOUT | REF | INDEX | WORK_TREE | NO_FILES),
    ("stage", INDEX | NO_FILES),
    ("status", INDEX | NO_FILES),
    ("stripspace", 0),
    ("switch", CHECKOUT | REF | INDEX | WORK_TREE | NO_FILES),
    ("symbolic-ref", REF),
    ("tag", REF | NO_FILES | TOP_ONLY),
    ("unpack-file", 0),
    ("unpack-objects", 0),
    ("update-index", INDEX),
    ("update-ref", REF),
    ("update-server-info", 0),
    ("verify-commit", 0),
    ("verify-pack", 0),
    ("verify-tag", 0),
    ("version", NO_FILES | TOP_ONLY),
    ("whatchanged", 0),
    ("worktree", CHECKOUT | REF | INDEX),
    ("write-tree", INDEX),
];

/// Commands git lists that the analysis does not offer, though they run no configured command:
/// merge strategies run directly (plumbing of `git merge`) and the dumb-HTTP transport programs
/// (they talk to a remote the analysis does not check). Refused as unknown.
pub const NOT_OFFERED: &[&str] = &[
    "merge-octopus",
    "merge-ours",
    "merge-recursive",
    "merge-recursive-ours",
    "merge-recursive-theirs",
    "merge-resolve",
    "merge-subtree",
    "http-fetch",
    "http-push",
];

/// Git's hooks and the group of subcommands that may run each. A hook whose subcommands git
/// refuses anyway (`sendemail-validate`, `p4-*`) or that only a refused configuration key
/// enables (`fsmonitor-watchman` through `core.fsmonitor`) is in no group.
pub const HOOKS: &[(&str, u32)] = &[
    ("applypatch-msg", AM),
    ("pre-applypatch", AM),
    ("post-applypatch", AM),
    ("pre-commit", COMMIT),
    ("pre-merge-commit", MERGE),
    ("prepare-commit-msg", COMMIT),
    ("commit-msg", COMMIT),
    ("post-commit", COMMIT),
    ("pre-rebase", REBASE),
    ("post-checkout", CHECKOUT),
    ("post-merge", MERGE),
    ("pre-push", PUSH),
    ("pre-receive", PUSH),
    ("update", PUSH),
    ("proc-receive", PUSH),
    ("post-receive", PUSH),
    ("post-update", PUSH),
    ("push-to-checkout", PUSH),
    ("reference-transaction", REF),
    ("post-index-change", INDEX),
    ("pre-auto-gc", GC),
    ("post-rewrite", REWRITE),
    ("sendemail-validate", 0),
    ("fsmonitor-watchman", 0),
    ("p4-changelist", 0),
    ("p4-prepare-changelist", 0),
    ("p4-post-changelist", 0),
    ("p4-pre-submit", 0),
];

/// The properties of the subcommand `sub`, or `None` when the table lacks it.
pub fn properties(sub: &str) -> Option<u32> {
    SUBCOMMANDS
        .iter()
        .find(|(name, _)| *name == sub)
        .map(|(_, bits)| *bits)
}

/// Whether the subcommand `sub` has every property of `bits`.
pub fn has(sub: &str, bits: u32) -> bool {
    properties(sub).is_some_and(|p| p & bits == bits)
}

/// Whether the subcommand `sub` may run the hook `hook`. A name git 2.47 does not know as a hook
/// counts as run by every subcommand that runs any hook (a later git may know it).
pub fn runs_hook(sub: &str, hook: &str) -> bool {
    let runs = properties(sub).unwrap_or_default() & HOOK_BITS;
    match HOOKS.iter().find(|(name, _)| *name == hook) {
        Some((_, group)) => runs & group != 0,
        None => runs != 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every command the installed git lists is in the table (and approved by `git.rs` as far as
    /// its name goes), refused, not offered, or internal (`--` helpers, remote helpers): a
    /// subcommand a later git adds is decided here; and no name is in two of these.
    #[test]
    fn every_command_git_knows_has_a_row_or_is_refused() {
        let out = std::process::Command::new("git")
            .args(["--list-cmds=main,nohelpers"])
            .output()
            .unwrap();
        let listed = String::from_utf8_lossy(&out.stdout).into_owned();
        let mut missing = Vec::new();
        for name in listed.lines() {
            let refused = super::super::SUBCOMMANDS_REFUSED.contains(&name)
                || NOT_OFFERED.contains(&name)
                || name.contains("--")
                || name.starts_with("remote-");
            if !refused && properties(name).is_none() {
                missing.push(name.to_string());
            }
        }
        assert!(listed.lines().count() > 100, "{listed}");
        assert!(missing.is_empty(), "git commands with no row: {missing:?}");
        for (name, _) in SUBCOMMANDS {
            assert!(!super::super::SUBCOMMANDS_REFUSED.contains(name), "{name}");
            assert!(!NOT_OFFERED.contains(name), "{name}");
            assert_eq!(super::super::refused_subcommand(name), None, "{name}");
        }
        for name in NOT_OFFERED {
            assert!(super::super::refused_subcommand(name).is_some(), "{name}");
        }
    }

    /// Each hook group names subcommands that exist, and a subcommand writing no file, entering
    /// no submodule or talking to no remote stays so (spot checks of the three derived uses).
    #[test]
    fn derived_uses_read_the_table() {
        for (hook, group) in HOOKS {
            if *group != 0 {
                assert!(
                    SUBCOMMANDS.iter().any(|(_, bits)| bits & group != 0),
                    "{hook}"
                );
            }
        }
        assert!(runs_hook("commit", "pre-commit"));
        assert!(!runs_hook("log", "pre-commit"));
        assert!(runs_hook("push", "pre-receive"));
        assert!(runs_hook("status", "some-future-hook"));
        assert!(!runs_hook("log", "some-future-hook"));
        assert!(has("status", NO_FILES) && !has("status", TOP_ONLY));
        assert!(has("rev-parse", TOP_ONLY) && !has("archive", NO_FILES));
        assert!(has("fetch", TALKS) && !has("archive", TALKS));
        assert!(has("config", NO_FILES | TOP_ONLY));
    }
}
