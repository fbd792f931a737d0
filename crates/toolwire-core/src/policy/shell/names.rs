//! Program names as the lists know them: a program installed under a versioned or suffixed
//! name (`ksh93`, `tclsh8.6`, `python3.11`, `vim.basic`, `gdb-multiarch`,
//! `x86_64-linux-gnu-gdb`, `BASH` on a case-insensitive file system) is looked up by every
//! base name it may stand for, so the wrapper, interpreter, editor and injection lists catch it.
//!
//! Normalizing only ever adds names to look up: a name that merely looks like a listed one
//! (`gdb-dashboard`) is refused too, which is the safe side.

/// The most trailing version characters stripped one by one (`linux6493` -> `linux649`, ...,
/// `linux64`, ..., `linux`): keeps the forms of a long name few.
const MAX_VERSION_CHARS: usize = 16;

/// `name` without each tail of its trailing version: digits, `.`, `-` and `_` at its end, one
/// character more at a time (`ksh93` -> `ksh9`, `ksh`; `tclsh8.6` -> `tclsh8.`, `tclsh8`,
/// `tclsh`; `linux6493` -> ..., `linux64`, ...), at most [`MAX_VERSION_CHARS`] of them, never
/// the whole name.
fn without_version(name: &str) -> impl Iterator<Item = &str> {
    let run = name
        .bytes()
        .rev()
        .take_while(|b| b.is_ascii_digit() || matches!(b, b'.' | b'-' | b'_'))
        .count()
        .min(MAX_VERSION_CHARS)
        .min(name.len().saturating_sub(1));
    (1..=run).map(move |cut| &name[..name.len() - cut])
}

/// Every name `name` is looked up by in the program lists, `name` first, each once: `name`
/// itself; its parts before the first and the last `.` (`vim.basic`, `ld.so.basic`, unless what
/// follows is a script extension); its parts on either side of the first and of the last `-` (`gdb-multiarch`,
/// `x86_64-linux-gnu-gdb`); each of these without a trailing version; and the lower-case forms
/// of all of them.
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

/// Node package managers as their installs name the real file a command runs: `npm-cli.js`,
/// `npx-cli.js` (npm -g, Debian's nodejs), `yarn.js` (npm i -g yarn, Debian's yarnpkg),
/// `yarn-4.1.0.cjs` (a Yarn Berry release), `pnpm.cjs`, `pnpx.cjs` (npm i -g pnpm), and
/// corepack's `dist/yarn.js`, `dist/pnpm.js`, `dist/npm.js`, `dist/yarnpkg.js`.
const NODE_PROGRAMS: &[&str] = &["npm", "npx", "pnpm", "pnpx", "yarn", "yarnpkg", "corepack"];

/// The package manager the file `name` is an install of ([`NODE_PROGRAMS`]; `yarnpkg` is
/// `yarn`): the name without a `.js`, `.cjs` or `.mjs` extension, a `-cli` suffix and a
/// trailing version.
pub fn node_program(name: &str) -> Option<&'static str> {
    let lower = name.to_ascii_lowercase();
    let stem = [".js", ".cjs", ".mjs"]
        .iter()
        .find_map(|ext| lower.strip_suffix(ext))
        .unwrap_or(&lower);
    let stem = stem.strip_suffix("-cli").unwrap_or(stem);
    let found = std::iter::once(stem)
        .chain(without_version(stem))
        .find_map(|form| NODE_PROGRAMS.iter().find(|p| **p == form))?;
    Some(if *found == "yarnpkg" { "yarn" } else { found })
}

fn forms(name: &str, dashes: bool) -> Vec<String> {
    let mut bases: Vec<&str> = vec![name];
    bases.extend(node_program(name));
    // Before the first and before the last `.`: `vim.basic`, `ld.so.basic`.
    for (head, tail) in [name.split_once('.'), name.rsplit_once('.')]
        .into_iter()
        .flatten()
    {
        if !FILE_EXTENSIONS.contains(&tail.to_ascii_lowercase().as_str()) {
            bases.push(head);
        }
    }
    if dashes {
        // Both sides of the first and of the last `-`: `gdb-multiarch`, `avr-gdb`,
        // `systemd-run-multiarch`, `avr-systemd-run`.
        if let Some((head, tail)) = name.split_once('-') {
            bases.extend([head, tail]);
        }
        if let Some((head, tail)) = name.rsplit_once('-') {
            bases.extend([head, tail]);
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
        for bare in without_version(base) {
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

    /// Issue 19 attack 6: yarn from `npm i -g yarn` is `.../yarn/bin/yarn.js`, and the rules
    /// keyed on `yarn` (the multi-segment rule, the package-manager checks) missed it.
    #[test]
    fn node_package_managers_by_their_installed_file_names() {
        let cases: &[(&str, &str)] = &[
            ("npm-cli.js", "npm"),      // npm -g, Debian's /usr/share/nodejs/npm/bin
            ("npx-cli.js", "npx"),      // same
            ("yarn.js", "yarn"),        // npm i -g yarn, Debian's yarnpkg, corepack's dist
            ("yarn.cjs", "yarn"),       // yarn 1 bundled release
            ("yarn-4.1.0.cjs", "yarn"), // Yarn Berry's .yarn/releases
            ("yarnpkg", "yarn"),        // Debian's /usr/bin/yarnpkg
            ("yarnpkg.js", "yarn"),     // corepack's dist
            ("pnpm.cjs", "pnpm"),       // npm i -g pnpm
            ("pnpx.cjs", "pnpx"),       // same
            ("pnpm.js", "pnpm"),        // corepack's dist
            ("npm.js", "npm"),          // corepack's dist
            ("corepack.js", "corepack"),
            ("NPM-CLI.JS", "npm"),
        ];
        for (file, program) in cases {
            assert_eq!(node_program(file), Some(*program), "{file}");
            for forms in [lookup_names(file), variant_names(file)] {
                assert!(forms.iter().any(|n| n == program), "{file}: {forms:?}");
            }
        }
        for other in [
            "node",
            "npm-run-all",
            "yarnish.js",
            "cli.js",
            "index.js",
            "yarn-x.js",
        ] {
            assert_eq!(node_program(other), None, "{other}");
        }
    }

    #[test]
    fn plain_names_stay_themselves() {
        assert_eq!(lookup_names("ls"), vec!["ls"]);
        assert_eq!(lookup_names("9"), vec!["9"]);
        assert_eq!(lookup_names("---")[0], "---");
        // A long name has few forms.
        let long = format!("x{}", "9".repeat(10_000));
        assert!(lookup_names(&long).len() <= MAX_VERSION_CHARS + 1);
        assert!(lookup_names("").is_empty());
    }
}
