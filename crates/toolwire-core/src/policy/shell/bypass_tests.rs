//! The bypass corpus: command lines that try to run something other than what the allowlist
//! approves. The allowlist approves `git ls cat echo find tar rsync ssh sed awk python3 env` and
//! the default safe bins, so every refusal here is the analyzer's doing; each row names the
//! substring its reason must contain. `{alt}` (trusted, holding symlinks `ls` -> `bash` and `tr`
//! -> `rm`) and `{ws}` (the cwd, holding a shadowing `ls`, an `evil`, and in `links/` symlinks
//! `ls` -> `rm`, `tr` -> `rm` and `head` -> `dd`) are replaced by the sandbox paths; the
//! trusted `bin` on PATH holds fake programs of every name used.

use super::tests::Sandbox;
use super::*;

const ALLOWLIST: &[&str] = &[
    "git", "ls", "cat", "echo", "find", "tar", "rsync", "ssh", "sed", "awk", "python3", "env",
];

const FAKE_PROGRAMS: &[&str] = &[
    "git", "ls", "cat", "echo", "find", "tar", "rsync", "ssh", "sed", "awk", "python3", "env",
    "sh", "bash", "sudo", "xargs", "timeout", "nice", "busybox", "less", "head", "tail", "cut",
    "uniq", "tr", "wc", "perl", "node", "vi", "watch", "nohup", "rm", "dd",
];

const CORPUS: &[(&str, &str, &str)] = &[
    ("semicolon after allowed", "ls; sh", "wrapper"),
    ("and after allowed", "ls && sh", "wrapper"),
    ("or after allowed", "git status || bash", "wrapper"),
    ("pipe into shell", "echo id | sh", "wrapper"),
    ("pipe into bash -s", "cat x | bash -s", "wrapper"),
    (
        "command substitution",
        "ls $(sh)",
        "command substitution `$(`",
    ),
    ("backticks", "ls `sh`", "backtick"),
    ("backticks in double quotes", "echo \"`id`\"", "backtick"),
    (
        "process substitution",
        "cat <(sh)",
        "process substitution `<(`",
    ),
    ("IFS expansion", "ls${IFS}-la", "parameter expansion `${`"),
    ("plain variable", "ls a$b", "parameter expansion `$`"),
    ("ANSI-C quoted name", "$'\\x73h'", "ANSI-C quoting"),
    ("ANSI-C after allowed", "ls; $'\\163h'", "ANSI-C quoting"),
    ("quotes splitting sh", "s\"h\" -c id", "wrapper"),
    ("quotes splitting bash", "'ba'sh", "wrapper"),
    ("escaped name", "\\sh", "wrapper"),
    ("escaped newline", "ls \\\nsh", "escaped newline"),
    ("newline", "ls\nsh", "newline"),
    ("carriage return", "ls\r\nsh", "newline"),
    ("bash -c", "bash -c id", "wrapper"),
    ("sh -c", "sh -c id", "wrapper"),
    ("env sh", "env sh", "wrapper"),
    ("env -i sh", "env -i sh", "wrapper"),
    ("assignment prefix", "FOO=1 ls", "environment assignment"),
    (
        "LD_PRELOAD prefix",
        "LD_PRELOAD=/tmp/x.so ls",
        "environment assignment",
    ),
    ("sudo", "sudo ls", "wrapper"),
    ("xargs sh", "echo id | xargs sh", "wrapper"),
    ("timeout sh", "timeout 1 sh", "wrapper"),
    ("nice sh", "nice sh", "wrapper"),
    ("nohup sh", "nohup sh", "wrapper"),
    ("watch", "watch id", "wrapper"),
    ("busybox sh", "busybox sh", "wrapper"),
    ("time builtin", "time sh", "wrapper"),
    ("exec builtin", "exec sh", "wrapper"),
    ("eval builtin", "eval ls", "wrapper"),
    ("dot source", ". ./x", "wrapper"),
    ("command builtin", "command sh", "wrapper"),
    ("trap builtin", "trap id EXIT", "shell keyword or builtin"),
    ("alias builtin", "alias ls=sh", "shell keyword or builtin"),
    (
        "if keyword",
        "if ls; then sh; fi",
        "shell keyword or builtin",
    ),
    ("python3 -c", "python3 -c 'import os'", "interpreter"),
    ("python3 from stdin", "echo x | python3", "stdin"),
    ("python3 dash", "python3 - x", "stdin"),
    ("perl -e", "perl -e 'exec q(sh)'", "interpreter"),
    ("node -e", "node -e x", "interpreter"),
    (
        "awk system",
        "awk 'BEGIN{system(\"sh\")}'",
        "runs program text",
    ),
    ("awk program file", "awk -f prog.awk", "runs program text"),
    ("find -exec", "find . -exec sh \\;", "`-exec`"),
    ("find -delete", "find . -delete", "`-delete`"),
    ("git -c core.pager", "git -c core.pager=sh log", "`-c`"),
    (
        "git --upload-pack",
        "git clone --upload-pack=sh repo",
        "`--upload-pack=sh`",
    ),
    ("git ext url", "git clone ext::sh", "ext::"),
    (
        "git --config-env",
        "git --config-env=core.sshCommand=X fetch",
        "core.sshcommand",
    ),
    ("git rebase -x", "git rebase -x sh main", "`-x`"),
    (
        "git diff --output",
        "git log -p --output=/tmp/x",
        "`--output=/tmp/x`",
    ),
    (
        "tar --to-command",
        "tar --to-command=sh -xf a.tar",
        "`--to-command=sh`",
    ),
    (
        "tar checkpoint action",
        "tar -cf x --checkpoint-action=exec=sh .",
        "--checkpoint-action",
    ),
    ("tar old-style -I", "tar xIf sh a", "`xIf`"),
    ("rsync -e", "rsync -e sh a b", "`-e`"),
    (
        "rsync --rsync-path",
        "rsync --rsync-path=sh a b",
        "--rsync-path",
    ),
    (
        "ssh ProxyCommand",
        "ssh -oProxyCommand=sh x",
        "proxycommand",
    ),
    ("ssh -F", "ssh x -F cfg", "`-F`"),
    ("sed e command", "sed -n 'e sh'", "command `e`"),
    ("sed s///e", "sed 's/x/sh/e'", "flag `e`"),
    ("sed w command", "sed 'w /tmp/x'", "command `w`"),
    ("sed in place", "sed -i s/a/b/ f", "in-place"),
    ("less", "less README", "refused outright"),
    ("pipe into less", "git log | less", "refused outright"),
    ("vi", "vi x", "refused outright"),
    (
        "symlink ls to bash in trusted dir",
        "{alt}/ls -la",
        "wrapper (`bash`)",
    ),
    (
        "shadowing ./ls in cwd",
        "./ls -la",
        "outside the trusted dirs",
    ),
    ("PATH dot entry", "evil", "not found in PATH"),
    ("dot-dot to shell", "{ws}/../bin/sh", "wrapper"),
    (
        "/tmp dot-dot to /bin/sh",
        "/tmp/x/../../bin/sh",
        "/tmp/x/../../bin/sh",
    ),
    (
        "redirect to passwd",
        "echo x > /etc/passwd",
        "redirection `>`",
    ),
    ("stderr dup", "ls 2>&1", "fd duplication"),
    ("ampersand redirect", "ls &> out", "redirection `&>`"),
    ("heredoc", "cat <<EOF", "heredoc"),
    ("herestring", "sh <<< id", "herestring"),
    ("background", "ls & sh", "background"),
    ("pipe stderr", "ls |& sh", "`|&`"),
    ("glob", "/bin/s?", "glob"),
    ("brace expansion", "{sh,}", "brace"),
    ("tilde", "~/x", "tilde"),
    ("subshell", "(sh)", "subshell"),
    ("group", "{ sh; }", "brace"),
    ("negation", "! ls", "`!`"),
    ("history in double quotes", "echo \"!!\"", "`!`"),
    ("comment", "ls #", "comment"),
    ("unicode semicolon", "ls\u{ff1b}sh", "not found in PATH"),
    ("empty command name", "'' ls", "empty command name"),
    (
        "safe bin reading a file",
        "head -n 1 /etc/shadow",
        "file argument",
    ),
    ("safe bin follow", "tail -f", "not in its profile"),
    // A symlink's own name never approves: only the real file's name does.
    (
        "symlink ls to rm in the cwd",
        "./links/ls -rf /",
        "bin/rm in a trusted dir) is not allowlisted",
    ),
    (
        "symlink ls to rm by absolute path",
        "{ws}/links/ls -rf /",
        "bin/rm in a trusted dir) is not allowlisted",
    ),
    (
        "symlink ls to rm after an allowed segment",
        "ls && ./links/ls -rf /",
        "bin/rm in a trusted dir) is not allowlisted",
    ),
    (
        "symlink tr to rm as a safe bin",
        "./links/tr -d x",
        "bin/rm in a trusted dir) is not allowlisted",
    ),
    (
        "symlink head to dd as a safe bin",
        "./links/head -n 1",
        "bin/dd in a trusted dir) is not allowlisted",
    ),
    (
        "trusted symlink tr to rm as a safe bin",
        "{alt}/tr -d x",
        "bin/rm in a trusted dir) is not allowlisted",
    ),
    ("empty segment", "ls && && sh", "empty command"),
    ("leading operator", "; sh", "empty command"),
];

struct Corpus {
    sandbox: Sandbox,
    options: AnalyzeOptions,
}

impl Corpus {
    fn new(name: &str) -> Corpus {
        let sandbox = Sandbox::new(name);
        let bin = sandbox.dir("bin");
        let alt = sandbox.dir("alt");
        let ws = sandbox.dir("ws");
        for program in FAKE_PROGRAMS {
            sandbox.exe(&format!("bin/{program}"));
        }
        sandbox.link("alt/ls", &bin.join("bash"));
        sandbox.link("alt/tr", &bin.join("rm"));
        sandbox.dir("ws/links");
        sandbox.link("ws/links/ls", &bin.join("rm"));
        sandbox.link("ws/links/tr", &bin.join("rm"));
        sandbox.link("ws/links/head", &bin.join("dd"));
        sandbox.exe("ws/ls");
        sandbox.exe("ws/evil");
        let options = AnalyzeOptions {
            cwd: Some(ws),
            allowlist: ALLOWLIST.iter().map(|s| s.to_string()).collect(),
            trusted_dirs: vec![bin.clone(), alt],
            path: Some(format!(".::rel/bin:{}", bin.display())),
            ..AnalyzeOptions::default()
        };
        Corpus { sandbox, options }
    }

    fn command(&self, template: &str) -> String {
        let root = self.sandbox.root.display().to_string();
        template
            .replace("{alt}", &format!("{root}/alt"))
            .replace("{ws}", &format!("{root}/ws"))
    }
}

#[test]
fn corpus_is_large_enough() {
    assert!(CORPUS.len() >= 60, "{}", CORPUS.len());
}

#[test]
fn no_bypass_is_approved() {
    let corpus = Corpus::new("bypass");
    let mut failures = Vec::new();
    for (name, template, want) in CORPUS {
        let command = corpus.command(template);
        let analysis = analyze_command(&command, &corpus.options);
        let reason = analysis.reason.clone().unwrap_or_default();
        if analysis.approved || !reason.contains(want) {
            failures.push(format!(
                "{name}: {command:?} -> {analysis:?} (want {want:?})"
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn positive_controls_are_approved() {
    let corpus = Corpus::new("controls");
    let bin = corpus.sandbox.root.join("bin");
    let controls = [
        "ls -la",
        "git status",
        "head -n 5",
        "cat a | wc -l",
        "echo \"a;b\"",
        // Quotes inside a name are removed before lookup: this is `ls`.
        "\"l\"s -la",
        // A fullwidth bar is literal text, an argument of `ls`, not a pipe.
        "ls \u{ff5c} sh",
        "find . -name '*.rs' -type f",
        "sed -n '1,5p' notes.txt",
        "tar -xzf a.tgz",
        "ssh host uptime",
        "python3 script.py --flag",
        "git log --oneline -n 5 && git diff | cut -d , -f 1 | uniq -c | tr a-z A-Z",
        "echo 'a b' \"c d\" e\\ f",
    ];
    for command in controls {
        let analysis = analyze_command(command, &corpus.options);
        assert!(analysis.approved, "{command}: {analysis:?}");
        assert!(analysis.reason.is_none());
        for segment in &analysis.segments {
            let resolved = segment.resolved_path.as_deref().unwrap_or_default();
            assert!(
                resolved.starts_with(bin.to_str().unwrap()),
                "{command}: {resolved}"
            );
            assert!(!segment.wrapper);
        }
    }
}
