//! Configuration keys that make git run a program, load code or read other configuration, as
//! one table of section, form and variable (`git help config`, git 2.47), matched the way git
//! names a key: `section.variable` or `section.<subsection>.variable`, the section and variable
//! compared in lower case, the subsection (which may hold any character, `.`, `/` and `=` too)
//! taken apart from them as git's `git_config_parse_key` does (the section up to the first dot,
//! the variable after the last).

/// Whether a row names `section.variable`, `section.<subsection>.variable`, or both.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Form {
    /// `section.variable` only.
    Plain,
    /// `section.<subsection>.variable` only.
    Sub,
    /// Either.
    Both,
}

/// How a configured value of a row is judged (an argument naming the key is refused whatever
/// its value).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Judge {
    /// The key runs code whatever its value.
    Always,
    /// The value names merge strategies (`pull.twohead = evil`, `branch.<name>.mergeOptions =
    /// -s evil`): any that is not built in runs `git-merge-<name>` from PATH.
    Strategies,
    /// `url.<base>.insteadOf`: the base replaces a URL's prefix; a base that makes a
    /// `<transport>::<address>` URL runs a remote helper, a local one is checked where URLs are
    /// (`remotes`).
    UrlBase,
}

/// One code-running key: its section (`*`: any), form and variable (`*`: any), all lower case.
#[derive(Debug, Clone, Copy)]
pub struct Row {
    /// The section, lower case, or `*` for any.
    pub section: &'static str,
    /// Which forms of the key the row names.
    pub form: Form,
    /// The variable, lower case, or `*` for any.
    pub variable: &'static str,
    /// How a configured value is judged.
    pub judge: Judge,
}

const fn row(section: &'static str, form: Form, variable: &'static str) -> Row {
    judged(section, form, variable, Judge::Always)
}

const fn judged(section: &'static str, form: Form, variable: &'static str, judge: Judge) -> Row {
    Row {
        section,
        form,
        variable,
        judge,
    }
}

use Form::{Both, Plain, Sub};

/// Every key of `git help config` (git 2.47) that runs a program, loads code, points git at
/// other configuration, hooks or a work tree, or enables a transport that runs commands.
///
/// Keys with subsection forms: `credential.<url>.helper` (also plain), `includeIf.<condition>.path`,
/// `gpg.<format>.program` and `gpg.ssh.defaultKeyCommand`, `diff.<driver>.textconv` and
/// `.command`, `filter.<driver>.*`, `merge.<driver>.driver`, `mergetool.<tool>.cmd`/`.path`,
/// `difftool.<tool>.cmd`/`.path`, `browser.<tool>.cmd`/`.path`, `man.<tool>.cmd`/`.path`,
/// `guitool.<name>.cmd`, `tar.<format>.command`, `trailer.<token>.command`/`.cmd`,
/// `remote.<name>.uploadpack`/`.receivepack`/`.vcs`, `protocol.<name>.allow`,
/// `branch.<name>.mergeOptions`, `url.<base>.insteadOf`/`.pushInsteadOf`, and every
/// `<section>.<name>.command`/`.cmd` (git names each such key so). `http.<url>.*` runs no
/// program (proxies, certificates and cookies only). `submodule.*` and `alias.*`, `pager.*`,
/// `hook.*`, `sendemail.*` and `instaweb.*` count whole: submodule keys make other commands
/// enter submodules, the others name commands.
pub const CODE_RUNNING: &[Row] = &[
    row("core", Plain, "pager"),
    row("core", Plain, "sshcommand"),
    row("core", Plain, "fsmonitor"),
    row("core", Plain, "hookspath"),
    row("core", Plain, "editor"),
    row("core", Plain, "gitproxy"),
    row("core", Plain, "askpass"),
    row("core", Plain, "alternaterefscommand"),
    row("core", Plain, "worktree"),
    row("diff", Plain, "external"),
    row("diff", Plain, "tool"),
    row("diff", Plain, "guitool"),
    row("diff", Sub, "textconv"),
    row("diff", Sub, "command"),
    row("merge", Plain, "tool"),
    row("merge", Plain, "guitool"),
    row("merge", Sub, "driver"),
    row("include", Plain, "path"),
    row("includeif", Sub, "path"),
    row("sequence", Plain, "editor"),
    row("credential", Both, "helper"),
    row("gpg", Both, "program"),
    row("gpg", Sub, "defaultkeycommand"),
    row("uploadpack", Plain, "packobjectshook"),
    row("imap", Plain, "tunnel"),
    row("interactive", Plain, "difffilter"),
    row("safe", Plain, "directory"),
    row("safe", Plain, "barerepository"),
    row("web", Plain, "browser"),
    row("man", Plain, "viewer"),
    row("man", Sub, "path"),
    row("browser", Sub, "path"),
    row("mergetool", Sub, "path"),
    row("difftool", Sub, "path"),
    row("filter", Sub, "*"),
    row("remote", Sub, "uploadpack"),
    row("remote", Sub, "receivepack"),
    row("remote", Sub, "vcs"),
    row("protocol", Both, "allow"),
    row("alias", Both, "*"),
    row("pager", Both, "*"),
    row("hook", Both, "*"),
    row("submodule", Both, "*"),
    row("sendemail", Both, "*"),
    row("instaweb", Both, "*"),
    row("*", Sub, "command"),
    row("*", Sub, "cmd"),
    judged("pull", Plain, "twohead", Judge::Strategies),
    judged("pull", Plain, "octopus", Judge::Strategies),
    judged("branch", Sub, "mergeoptions", Judge::Strategies),
    judged("url", Sub, "insteadof", Judge::UrlBase),
    judged("url", Sub, "pushinsteadof", Judge::UrlBase),
];

/// The row of [`CODE_RUNNING`] naming the key of `section` (lower case), `subsection` and
/// `variable` (lower case), if any.
pub fn row_of(section: &str, subsection: Option<&str>, variable: &str) -> Option<&'static Row> {
    CODE_RUNNING.iter().find(|row| {
        let form = match row.form {
            Plain => subsection.is_none(),
            Sub => subsection.is_some(),
            Both => true,
        };
        form && (row.section == "*" || row.section == section)
            && (row.variable == "*" || row.variable == variable)
    })
}

/// Git's `iskeychar`.
fn key_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '-'
}

/// A key as git's `git_config_parse_key` takes it apart: the section up to the first dot, the
/// variable after the last (both lower case, of key characters, the variable starting with a
/// letter) and the subsection between, kept as written. `None`: not a key git accepts.
pub fn parse_key(key: &str) -> Option<(String, Option<&str>, String)> {
    let (section, rest) = key.split_once('.')?;
    let (subsection, variable) = match rest.rsplit_once('.') {
        Some((sub, variable)) => (Some(sub), variable),
        None => (None, rest),
    };
    let valid = !section.is_empty()
        && section.chars().all(key_char)
        && variable.starts_with(|c: char| c.is_ascii_alphabetic())
        && variable.chars().all(key_char);
    valid.then(|| {
        (
            section.to_ascii_lowercase(),
            subsection,
            variable.to_ascii_lowercase(),
        )
    })
}

/// The plain keys of [`CODE_RUNNING`] (`core.pager`), looked for anywhere in an argument.
fn plain_keys() -> impl Iterator<Item = String> {
    CODE_RUNNING
        .iter()
        .filter(|row| row.form != Sub && row.section != "*" && row.variable != "*")
        .map(|row| format!("{}.{}", row.section, row.variable))
}

/// The code-running config key the argument `arg` names or sets, if any: a plain key of the
/// table anywhere in it (`--format=core.fsmonitor`), or a key-shaped argument (`key` or
/// `key=value`, also after `--option=`) whose key is in the table in its form
/// (`credential.https://x.helper=!sh`, `diff.a/b.textconv`).
pub fn code_running_key(arg: &str) -> Option<String> {
    let lower = arg.to_ascii_lowercase();
    if let Some(key) = plain_keys().find(|key| lower.contains(key.as_str())) {
        return Some(key);
    }
    let text = match arg.strip_prefix("--") {
        Some(rest) => rest.split_once('=').map_or(rest, |(_, value)| value),
        None => arg,
    };
    // The key ends at the first `=` (as `-c` reads it), the last one, or the end (a subsection
    // may hold `=`): three cuts, so the check stays linear in the argument.
    let first = text.split_once('=').map_or(text, |(key, _)| key);
    let last = text.rsplit_once('=').map_or(text, |(key, _)| key);
    [first, last, text].into_iter().find_map(|key| {
        let (section, subsection, variable) = parse_key(key)?;
        row_of(&section, subsection, &variable).map(|_| bounded(key))
    })
}

/// `text`, at most 200 characters of it.
pub fn bounded(text: &str) -> String {
    let mut shown: String = text.chars().take(200).collect();
    if shown.len() < text.len() {
        shown.push_str("...");
    }
    shown
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every key of the table in each form git accepts, and keys that look alike but run
    /// nothing.
    #[test]
    fn keys_are_matched_by_section_subsection_and_variable() {
        let cases: &[(&str, bool)] = &[
            // Subsection forms (user review, repro 16: `[credential "<url>"] helper = !cmd`).
            ("credential.helper", true),
            ("credential.https://example.com.helper", true),
            ("credential.http://127.0.0.1:8080/x.helper=!touch x", true),
            ("Credential.HTTPS://Example.com.Helper", true),
            ("credential.https://example.com.username", false),
            ("includeIf.gitdir:/x/.path", true),
            ("includeif.onbranch:a.b.path", true),
            ("include.path", true),
            ("gpg.program", true),
            ("gpg.ssh.program", true),
            ("gpg.x509.program", true),
            ("gpg.ssh.defaultKeyCommand", true),
            ("gpg.format", false),
            ("diff.pdf.textconv", true),
            ("diff.a/b.textconv", true),
            ("diff.a=b.command", true),
            ("diff.x.wordRegex", false),
            ("diff.external", true),
            ("diff.renames", false),
            ("filter.lfs.clean", true),
            ("filter.x.process", true),
            ("merge.ours.driver", true),
            ("merge.x.name", false),
            ("merge.tool", true),
            ("mergetool.x.cmd", true),
            ("mergetool.x.path", true),
            ("difftool.x.cmd", true),
            ("browser.x.cmd", true),
            ("man.x.path", true),
            ("guitool.x.cmd", true),
            ("tar.tgz.command", true),
            ("tar.umask", false),
            ("trailer.sign.command", true),
            ("trailer.sign.cmd", true),
            ("trailer.sign.key", false),
            ("remote.origin.uploadpack", true),
            ("remote.a.b.receivepack", true),
            ("remote.origin.vcs", true),
            ("remote.origin.url", false),
            ("remote.origin.proxy", false),
            ("http.https://example.com.proxy", false),
            ("http.https://example.com.sslCert", false),
            ("protocol.allow", true),
            ("protocol.ext.allow", true),
            ("uploadpack.packObjectsHook", true),
            ("pull.twohead", true),
            ("pull.rebase", false),
            ("branch.main.mergeOptions", true),
            ("branch.main.remote", false),
            ("url.ext::sh.insteadOf", true),
            ("url./tmp/x.pushInsteadOf", true),
            ("alias.st", true),
            ("pager.log", true),
            ("hook.x.command", true),
            ("submodule.x.update", true),
            ("core.fsmonitor", true),
            ("core.sshCommand=x", true),
            ("--config-env=core.fsmonitor=X", true),
            ("--config=credential.https://x.helper=y", true),
            // Not keys: paths, revisions, versions.
            ("src/filter.rs", false),
            ("README.md", false),
            ("HEAD~3", false),
            ("v1.2.3", false),
            ("HEAD:alias.txt", false),
            ("docs/credential.x.helper", false),
        ];
        for (arg, want) in cases {
            assert_eq!(code_running_key(arg).is_some(), *want, "{arg}");
        }
    }

    #[test]
    fn keys_are_taken_apart_as_git_does() {
        for (key, want) in [
            ("a.b", Some(("a", None, "b"))),
            ("A.x.y.B", Some(("a", Some("x.y"), "b"))),
            ("a.X Y/z.b", Some(("a", Some("X Y/z"), "b"))),
            ("a..b", Some(("a", Some(""), "b"))),
            ("a", None),
            (".a.b", None),
            ("a.b.1c", None),
            ("a_b.c", None),
        ] {
            let got = parse_key(key);
            let got = got
                .as_ref()
                .map(|(s, sub, v)| (s.as_str(), *sub, v.as_str()));
            assert_eq!(got, want, "{key}");
        }
    }
}
