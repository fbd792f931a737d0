//! Program names as the lists know them: a program installed under a versioned or suffixed
//! name (`ksh93`, `tclsh8.6`, `python3.11`, `vim.basic`, `gdb-multiarch`,
//! `x86_64-linux-gnu-gdb`, `BASH` on a case-insensitive file system) is looked up by every
//! base name it may stand for, so the wrapper, interpreter, editor and injection lists catch it.
//!
//! Normalizing only ever adds names to look up: a name that merely looks like a listed one
//! (`gdb-dashboard`) is refused too, which is the safe side.

/// `name` without a trailing version: digits, `.`, `-` and `_` at its end (`ksh93` -> `ksh`,
/// `tclsh8.6` -> `tclsh`, `perl5.36.0` -> `perl`); `None` when nothing or everything would go.
fn without_version(name: &str) -> Option<&str> {
    let stripped =
        name.trim_end_matches(|c: char| c.is_ascii_digit() || matches!(c, '.' | '-' | '_'));
    (!stripped.is_empty() && stripped.len() < name.len()).then_some(stripped)
}

/// Every name `name` is looked up by in the program lists, `name` first, each once: `name`
/// itself; its part before the first `.` (`vim.basic`) and before the first `-`
/// (`gdb-multiarch`); its part after the last `-` (`x86_64-linux-gnu-gdb`); each of these
/// without a trailing version; and the lower-case forms of all of them.
pub fn lookup_names(name: &str) -> Vec<String> {
    forms(name, true)
}

/// The names `name` is looked up by in the per-program argument checks: [`lookup_names`]
/// without the parts around a `-` (`ssh-keygen` is no `ssh`, though `git2.47` is `git`).
pub fn variant_names(name: &str) -> Vec<String> {
    forms(name, false)
}

/// Extensions of script and binary files: `env.sh` is a script of its own, not `env`.
const FILE_EXTENSIONS: &[&str] = &[
    "sh", "bash", "zsh", "ksh", "fish", "py", "pl", "rb", "js", "mjs", "cjs", "ts", "php", "lua",
    "tcl", "r", "jl", "exe", "bin", "out", "run", "appimage",
];

fn forms(name: &str, dashes: bool) -> Vec<String> {
    let mut bases: Vec<&str> = vec![name];
    if let Some((head, tail)) = name.split_once('.') {
        if !FILE_EXTENSIONS.contains(&tail.to_ascii_lowercase().as_str()) {
            bases.push(head);
        }
    }
    if dashes {
        if let Some((head, _)) = name.split_once('-') {
            bases.push(head);
        }
        if let Some((_, tail)) = name.rsplit_once('-') {
            bases.push(tail);
        }
    }
    let mut names: Vec<String> = Vec::with_capacity(bases.len() * 4);
    let mut add = |candidate: &str| {
        if candidate.is_empty() {
            return;
        }
        for form in [candidate.to_string(), candidate.to_ascii_lowercase()] {
            if !names.contains(&form) {
                names.push(form);
            }
        }
    };
    for base in bases {
        add(base);
        if let Some(bare) = without_version(base) {
            add(bare);
        }
    }
    names
}

/// The names of every name in `names` by `forms` ([`lookup_names`] or [`variant_names`]), each
/// once, in order.
pub fn all_names_by(names: &[&str], forms: fn(&str) -> Vec<String>) -> Vec<String> {
    let mut all: Vec<String> = Vec::new();
    for name in names {
        for candidate in forms(name) {
            if !all.contains(&candidate) {
                all.push(candidate);
            }
        }
    }
    all
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versioned_and_suffixed_names_reach_their_base() {
        let cases: &[(&str, &str)] = &[
            ("ksh93", "ksh"),
            ("tclsh8.6", "tclsh"),
            ("python3.11", "python3"),
            ("python3.11", "python"),
            ("vim.basic", "vim"),
            ("vim.tiny", "vim"),
            ("gdb-multiarch", "gdb"),
            ("x86_64-linux-gnu-gdb", "gdb"),
            ("perl5.36.0", "perl"),
            ("lua5.4", "lua"),
            ("nc.openbsd", "nc"),
            ("original-awk", "awk"),
            ("emacs-nox", "emacs"),
            ("lldb-18", "lldb"),
            ("BASH", "bash"),
            ("busybox", "busybox"),
            ("git", "git"),
        ];
        for (name, base) in cases {
            let names = lookup_names(name);
            assert_eq!(names[0], *name);
            assert!(names.iter().any(|n| n == base), "{name}: {names:?}");
        }
    }

    #[test]
    fn argument_checks_do_not_split_at_dashes() {
        assert_eq!(variant_names("ssh-keygen"), vec!["ssh-keygen"]);
        assert!(variant_names("git2.47").iter().any(|n| n == "git"));
        assert!(variant_names("sqlite3").iter().any(|n| n == "sqlite"));
        assert!(lookup_names("ssh-keygen").iter().any(|n| n == "ssh"));
    }

    #[test]
    fn a_script_extension_is_no_variant_suffix() {
        for name in ["env.sh", "script.py", "time.rb", "open.js"] {
            let names = lookup_names(name);
            assert!(!names.iter().any(|n| !n.contains('.')), "{name}: {names:?}");
        }
        assert!(lookup_names("vim.nox").iter().any(|n| n == "vim"));
    }

    #[test]
    fn plain_names_stay_themselves() {
        assert_eq!(lookup_names("ls"), vec!["ls"]);
        assert_eq!(lookup_names("9"), vec!["9"]);
        assert_eq!(lookup_names("---"), vec!["---"]);
        assert!(lookup_names("").is_empty());
    }
}
