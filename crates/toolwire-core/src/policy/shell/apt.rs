//! Debian's package tools, which run hooks and maintainer scripts: APT runs the shell commands
//! of its `*::Pre-Invoke`, `*::Post-Invoke` and `DPkg::Pre-Install-Pkgs` settings, which
//! `-o`/`--option` and a configuration file given with `-c`/`--config-file` (or `APT_CONFIG`,
//! refused by [`callenv`](super::callenv)) can set; `apt install ./x.deb` installs a package
//! file the workspace holds, whose maintainer scripts run as root. dpkg's own options are in
//! [`injection`](super::injection)'s table (`dpkg -i`, `--unpack`, `--root`, ...).
//!
//! An allowlisted APT program passes with `-o` only for the settings of [`SAFE_SETTINGS`], and
//! never with a configuration file or a package given as a file.

use std::path::Path;

/// The APT programs: they all read `-o` and `-c` (apt-pkg's command line).
pub const APT_PROGRAMS: &[&str] = &[
    "apt",
    "apt-get",
    "apt-cache",
    "apt-mark",
    "apt-config",
    "apt-cdrom",
    "aptitude",
];

/// Settings `-o` may set: output, prompts, retries and recommends, which name no program,
/// file or source (compared without case). Any other (`APT::Update::Pre-Invoke`,
/// `DPkg::Post-Invoke`, `Dir::Bin::dpkg`, `Dir::Etc`, `Acquire::http::Proxy`,
/// `APT::Get::AllowUnauthenticated`, ...) may run a program or take packages from elsewhere.
const SAFE_SETTINGS: &[&str] = &[
    "apt::get::assume-yes",
    "apt::get::show-versions",
    "apt::get::show-upgraded",
    "apt::get::upgrade",
    "apt::get::fix-broken",
    "apt::get::download-only",
    "apt::get::simulate",
    "apt::install-recommends",
    "apt::install-suggests",
    "apt::color",
    "apt::cmd::disable-script-warning",
    "apt::cmd::show-update-stats",
    "dpkg::progress-fancy",
    "dpkg::use-pty",
    "acquire::retries",
    "acquire::languages",
    "quiet",
];

/// Option letters of apt-pkg programs taking a value (`-t release`, `-a arch`, `-o`, `-c`).
const VALUED_LETTERS: &str = "toca";

/// Subcommands that install the packages they name (a file among them is installed as is).
const INSTALLING: &[&str] = &["install", "reinstall", "build-dep", "satisfy", "upgrade"];

/// Why `name` (an APT program) with `args` may run a program or workspace code: a `-o` setting
/// outside [`SAFE_SETTINGS`], a configuration file, or a package file or directory to install.
/// Options are read wherever they stand until `--`, in clusters as apt-pkg reads them
/// (`-yo X=Y`, `-oX=Y`, `--option=X=Y`).
pub fn check_apt(name: &str, args: &[String], cwd: Option<&Path>) -> Result<(), String> {
    let refuse = |arg: &str, why: &str| {
        Err(format!(
            "argument injection: `{name}` `{}` {why}",
            arg.chars().take(128).collect::<String>()
        ))
    };
    let setting = |arg: &str, value: Option<&str>| match value {
        None => refuse(arg, "lacks its setting"),
        Some(value) => {
            let key = value.split_once('=').map_or(value, |(key, _)| key);
            let key = key.trim().trim_end_matches("::").to_ascii_lowercase();
            if SAFE_SETTINGS.contains(&key.as_str()) {
                Ok(())
            } else {
                refuse(
                    arg,
                    &format!(
                        "sets `{}`, which may run a program (Pre-Invoke, Post-Invoke, Pre-Install-Pkgs hooks) or take packages from elsewhere; only {} pass",
                        key.chars().take(64).collect::<String>(),
                        SAFE_SETTINGS.join(", ")
                    ),
                )
            }
        }
    };
    let config = |arg: &str| {
        refuse(
            arg,
            "reads a configuration file, which may set hooks that run commands",
        )
    };
    let mut installing = false;
    let mut options_done = false;
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        i += 1;
        if !options_done && arg == "--" {
            options_done = true;
            continue;
        }
        if let Some(long) = arg.strip_prefix("--").filter(|_| !options_done) {
            let (option, attached) = match long.split_once('=') {
                Some((option, value)) => (option, Some(value)),
                None => (long, None),
            };
            if option.len() > 1 && "option".starts_with(option) {
                let value = attached.or_else(|| args.get(i).map(String::as_str));
                i += usize::from(attached.is_none());
                setting(arg, value)?;
            } else if option.len() > 1 && "config-file".starts_with(option) {
                return config(arg);
            } else if let Some(why) = attached.and_then(|value| package_file(value, cwd)) {
                // `--with-source=./x.deb` adds a package file as a source, installed by name
                // (attack review 3's 1; the spaced form reads as an operand below).
                return refuse(arg, why);
            }
            continue;
        }
        if let Some(cluster) = arg
            .strip_prefix('-')
            .filter(|c| !options_done && !c.is_empty())
        {
            for (at, letter) in cluster.char_indices() {
                if !VALUED_LETTERS.contains(letter) {
                    continue;
                }
                let rest = &cluster[at + 1..];
                let value = if rest.is_empty() {
                    i += 1;
                    args.get(i - 1).map(String::as_str)
                } else {
                    Some(rest)
                };
                match letter {
                    'o' => setting(arg, value)?,
                    'c' => return config(arg),
                    _ => {}
                }
                break;
            }
            continue;
        }
        if INSTALLING.contains(&arg.as_str()) {
            installing = true;
        } else if installing {
            if let Some(why) = package_file(arg, cwd) {
                return refuse(arg, why);
            }
        }
    }
    Ok(())
}

/// Why the operand `arg` of an installing subcommand is a package file or directory rather
/// than a name for the archive: a path, a `.deb`/`.dsc`/`.changes` file, or a name an existing
/// file of the working directory has.
fn package_file(arg: &str, cwd: Option<&Path>) -> Option<&'static str> {
    let lower = arg.to_ascii_lowercase();
    if arg.contains('/') || arg.starts_with('.') {
        return Some("is a local package file or directory: its maintainer scripts (workspace code) run as root");
    }
    if [".deb", ".udeb", ".ddeb", ".dsc", ".changes"]
        .iter()
        .any(|s| lower.ends_with(s))
    {
        return Some("is a package file: its maintainer scripts (workspace code) run as root");
    }
    match cwd {
        Some(dir) if std::fs::symlink_metadata(dir.join(arg)).is_ok() => {
            Some("names a file of the working directory, which may be installed as a package")
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::shell::tests::argv;

    #[test]
    fn apt_runs_no_hook_config_or_package_file() {
        // (arguments, whether approved, what the refusal must name)
        let cases: &[(&str, bool, &str)] = &[
            // Attack review 2, repro 1: the hook ran for real as root.
            ("-o APT::Update::Pre-Invoke::=touch update", false, "-o"),
            ("-oAPT::Update::Pre-Invoke::=x update", false, "pre-invoke"),
            ("-yo APT::Update::Post-Invoke=x update", false, "-yo"),
            (
                "--option DPkg::Pre-Install-Pkgs::=x install curl",
                false,
                "--option",
            ),
            (
                "--option=DPkg::Post-Invoke::=x upgrade",
                false,
                "dpkg::post-invoke",
            ),
            ("--opt Dir::Bin::dpkg=./x install curl", false, "--opt"),
            ("-o Dir::Etc=./etc update", false, "dir::etc"),
            ("-o Acquire::http::Proxy=http://evil update", false, "proxy"),
            ("-o APT::Get::AllowUnauthenticated=1 install x", false, "-o"),
            ("install -o", false, "lacks"),
            ("-c ./apt.conf update", false, "-c"),
            ("-c./apt.conf update", false, "configuration file"),
            ("-yc ./apt.conf install curl", false, "-yc"),
            ("--config-file ./apt.conf update", false, "--config-file"),
            ("--config-file=./apt.conf update", false, "--config-file"),
            ("install ./x.deb", false, "./x.deb"),
            ("install /tmp/x.deb", false, "maintainer scripts"),
            ("install x.deb", false, "x.deb"),
            ("reinstall ./pkg/", false, "./pkg/"),
            ("-y install curl ./x.deb", false, "./x.deb"),
            ("build-dep .", false, "`.`"),
            ("satisfy ./x.dsc", false, "./x.dsc"),
            // Controls.
            ("list --installed", true, ""),
            ("show curl", true, ""),
            ("search ripgrep", true, ""),
            ("policy curl", true, ""),
            ("-y install curl", true, ""),
            ("-qq -y install curl=7.88.1-10", true, ""),
            ("-t bookworm-backports install curl", true, ""),
            ("-o APT::Get::Assume-Yes=true install curl", true, ""),
            ("-oDpkg::Progress-Fancy=1 upgrade", true, ""),
            ("--option=quiet=2 update", true, ""),
            ("update", true, ""),
            ("-q2 update", true, ""),
            ("install -- ./x.deb", false, "./x.deb"),
        ];
        for (args, want, names) in cases {
            let got = check_apt("apt-get", &argv(args), None);
            assert_eq!(got.is_ok(), *want, "apt-get {args}: {got:?}");
            if let Err(why) = got {
                assert!(
                    why.contains("`apt-get`") && why.to_lowercase().contains(&names.to_lowercase()),
                    "apt-get {args}: {why} (want {names})"
                );
            }
        }
    }
}
