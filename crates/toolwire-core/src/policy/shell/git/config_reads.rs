//! `git config` in its reading forms only: `--get`, `--get-all`, `--get-regexp`, `--list`, a
//! lone name, and git 2.46's `get` and `list`. Every other form writes or edits the
//! configuration (`--add`, `--unset`, `set`, a name and a value, `-e`/`edit`, which runs an
//! editor), and configuration can run commands. Options are matched exactly: git takes a
//! unique prefix of a long option too (`--unse`), and such a spelling is refused.

/// Options that read and take no value, besides the [`READ_ACTIONS`].
const READING: &[&str] = &[
    "--show-origin",
    "--show-scope",
    "--name-only",
    "-z",
    "--null",
    "--global",
    "--system",
    "--local",
    "--worktree",
    "--includes",
    "--no-includes",
    "--bool",
    "--int",
    "--bool-or-int",
    "--path",
    "--expiry-date",
    "--fixed-value",
    "--all",
    "--regexp",
    "--no-type",
];

/// Options that read and take a value (`--type=bool` or `--type bool`).
const READING_VALUED: &[&str] = &[
    "--type",
    "--default",
    "--file",
    "-f",
    "--blob",
    "--url",
    "--value",
];

/// The actions that make a lone name or a name and a pattern a read (`--get user.name`).
const READ_ACTIONS: &[&str] = &[
    "--get",
    "--get-all",
    "--get-regexp",
    "--get-urlmatch",
    "--get-color",
    "--get-colorbool",
    "--list",
    "-l",
];

/// git 2.46's subcommands that read.
const READ_SUBCOMMANDS: &[&str] = &["get", "list"];

/// git 2.46's subcommands that write or edit.
const WRITE_SUBCOMMANDS: &[&str] = &["set", "unset", "rename-section", "remove-section", "edit"];

/// Checks the arguments `rest` of `git config` (after the subcommand): only its reading forms
/// pass. The refusal names the argument (bounded). Linear in the arguments.
pub fn check_config(rest: &[String]) -> Result<(), String> {
    let shown = |arg: &str| arg.chars().take(64).collect::<String>();
    let refuse = |arg: &str, why: &str| {
        Err(format!(
            "`git config {}` {why}: only its reading forms pass (`--get`, `--get-all`, `--get-regexp`, `--list`, a lone name, `get`, `list`)",
            shown(arg)
        ))
    };
    // git 2.46 looks for its subcommand among the arguments before reading its options, so a
    // writing subcommand's name anywhere (`git config --global edit`, `-f edit`) counts.
    if let Some(arg) = rest
        .iter()
        .find(|a| WRITE_SUBCOMMANDS.contains(&a.as_str()))
    {
        return refuse(
            arg,
            "writes or edits the configuration, which can run commands",
        );
    }
    let mut subcommand = None;
    let mut action = false;
    let mut operands = 0;
    let mut options_done = false;
    let mut i = 0;
    while let Some(arg) = rest.get(i) {
        i += 1;
        let arg = arg.as_str();
        if options_done || !arg.starts_with('-') || arg == "-" {
            if operands == 0 && subcommand.is_none() && READ_SUBCOMMANDS.contains(&arg) {
                subcommand = Some(arg);
            } else {
                operands += 1;
            }
            continue;
        }
        if arg == "--" {
            options_done = true;
            continue;
        }
        let name = arg.split_once('=').map_or(arg, |(name, _)| name);
        if READ_ACTIONS.contains(&arg) {
            action = true;
            continue;
        }
        if READING.contains(&arg) {
            continue;
        }
        if READING_VALUED.contains(&name) {
            if name == arg {
                i += 1;
            }
            continue;
        }
        return refuse(
            arg,
            "may write or edit the configuration (which can run commands), or is an option the analysis does not read",
        );
    }
    // The old forms: `git config name` reads, `git config name value` sets.
    if subcommand.is_none() && !action && operands > 1 {
        let pair = rest
            .iter()
            .filter(|a| !a.starts_with('-'))
            .map(|a| shown(a))
            .collect::<Vec<_>>()
            .join(" ");
        return Err(format!(
            "`git config {pair}` sets a value, and configuration can run commands: only its reading forms pass (`--get`, `--get-all`, `--get-regexp`, `--list`, a lone name, `get`, `list`)"
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::shell::tests::argv;

    /// Reading forms pass, every writing or editing form is refused (seen by a new user: `git
    /// config --get user.name` and `git config --list` were refused as "can run commands").
    #[test]
    fn only_the_reading_forms_pass() {
        let cases: &[(&str, bool)] = &[
            ("--get user.name", true),
            ("--get-all remote.origin.fetch", true),
            ("--get-regexp ^remote\\.", true),
            ("--list", true),
            ("-l", true),
            ("--list --show-origin --show-scope", true),
            ("--list --name-only -z", true),
            ("--null --list", true),
            ("--type=bool --get core.bare", true),
            ("--type bool --default false --get core.bare", true),
            ("--file .gitmodules --list", true),
            ("-f .gitmodules --get-regexp path", true),
            ("--global --get user.email", true),
            ("--system --list", true),
            ("--local --list", true),
            ("--worktree --list", true),
            ("user.name", true),
            ("--get user.name pattern", true),
            ("get user.name", true),
            ("get --all --show-origin user.name", true),
            ("list", true),
            ("list --global --name-only", true),
            // Writing and editing forms.
            ("user.name x", false),
            ("--global user.name x", false),
            ("--add user.name x", false),
            ("--unset user.name", false),
            ("--unset-all user.name", false),
            ("--replace-all user.name x", false),
            ("--rename-section a b", false),
            ("--remove-section a", false),
            ("-e", false),
            ("--edit", false),
            ("--global -e", false),
            ("--comment=x user.name y", false),
            ("--unse user.name", false),
            ("set user.name x", false),
            ("unset user.name", false),
            ("edit", false),
            ("rename-section a b", false),
            ("remove-section a", false),
            ("--file x set a b", false),
            ("--global edit", false),
            ("-f edit", false),
            ("--global list", true),
            ("--global get user.name", true),
            ("-- user.name x", false),
        ];
        for (args, want) in cases {
            let got = check_config(&argv(args));
            assert_eq!(got.is_ok(), *want, "git config {args}: {got:?}");
        }
        let why = check_config(&argv("--add user.name x")).unwrap_err();
        assert!(why.starts_with("`git config --add` may write"), "{why}");
        let why = check_config(&argv("user.name x")).unwrap_err();
        assert!(
            why.starts_with("`git config user.name x` sets a value"),
            "{why}"
        );
    }
}
