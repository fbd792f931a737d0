//! Tests of the analyzer: tokenizer, splitter, one test per refused construct, resolution
//! against a fake file system, wrappers and the JSON shape.

use std::os::unix::fs::{symlink, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::json;

use super::lex::{tokenize, Operator, Token};
use super::segments::split;
use super::*;

/// Arguments split on whitespace, for the tables of the argument checks.
pub(crate) fn argv(s: &str) -> Vec<String> {
    s.split_whitespace().map(String::from).collect()
}

/// A temporary directory tree with fake executables; removed on drop.
pub(crate) struct Sandbox {
    pub root: PathBuf,
}

static SANDBOXES: AtomicUsize = AtomicUsize::new(0);

impl Sandbox {
    pub fn new(name: &str) -> Sandbox {
        let unique = SANDBOXES.fetch_add(1, Ordering::Relaxed);
        let root = std::env::temp_dir().join(format!(
            "toolwire-shell-{name}-{}-{unique}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(&root).unwrap();
        Sandbox {
            root: std::fs::canonicalize(&root).unwrap(),
        }
    }

    pub fn dir(&self, rel: &str) -> PathBuf {
        let dir = self.root.join(rel);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    pub fn file(&self, rel: &str, mode: u32) -> PathBuf {
        let path = self.root.join(rel);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).unwrap();
        }
        std::fs::write(&path, "#!/bin/sh\nexit 0\n").unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode)).unwrap();
        path
    }

    pub fn exe(&self, rel: &str) -> PathBuf {
        self.file(rel, 0o755)
    }

    pub fn link(&self, rel: &str, target: &Path) -> PathBuf {
        let path = self.root.join(rel);
        symlink(target, &path).unwrap();
        path
    }
}

impl Sandbox {
    /// Options running in `ws` with a trusted `bin` of this sandbox on PATH holding a fake
    /// executable for each of `programs`, all allowlisted.
    pub fn allowlisting(&self, ws: PathBuf, programs: &[&str]) -> AnalyzeOptions {
        let bin = self.dir("bin");
        for program in programs {
            self.exe(&format!("bin/{program}"));
        }
        AnalyzeOptions {
            cwd: Some(ws),
            allowlist: programs.iter().map(|p| p.to_string()).collect(),
            trusted_dirs: vec![bin.clone()],
            path: Some(bin.display().to_string()),
            ..AnalyzeOptions::default()
        }
    }
}

impl Drop for Sandbox {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.root);
    }
}

fn words(command: &str) -> Vec<String> {
    tokenize(command)
        .unwrap()
        .into_iter()
        .filter_map(|t| match t {
            Token::Word(w) => Some(w.text),
            Token::Op(..) => None,
        })
        .collect()
}

#[test]
fn tokenizer_table() {
    let cases: &[(&str, &[&str])] = &[
        ("ls -la", &["ls", "-la"]),
        ("  ls\t-la  ", &["ls", "-la"]),
        ("echo 'a b' \"c d\"", &["echo", "a b", "c d"]),
        ("echo \"l\"s", &["echo", "ls"]),
        ("echo a\\ b", &["echo", "a b"]),
        ("echo \\$x", &["echo", "$x"]),
        ("echo \"a\\\"b\"", &["echo", "a\"b"]),
        ("echo \"a\\nb\"", &["echo", "a\\nb"]),
        ("echo \"a\\\\b\"", &["echo", "a\\b"]),
        ("echo \"\\$HOME\"", &["echo", "$HOME"]),
        ("echo '$(x) `y` ; | &'", &["echo", "$(x) `y` ; | &"]),
        ("echo \"a;b\"", &["echo", "a;b"]),
        ("echo ''", &["echo", ""]),
        ("echo a~b c#d", &["echo", "a~b", "c#d"]),
        ("echo 'it'\\''s'", &["echo", "it's"]),
        ("echo héllo ；", &["echo", "héllo", "；"]),
        ("a=b", &["a=b"]),
        ("echo a~ a=b~", &["echo", "a~", "a=b~"]),
    ];
    for (command, want) in cases {
        assert_eq!(words(command), *want, "{command}");
    }
}

#[test]
fn assignments_are_flagged_only_when_the_name_is_plain() {
    let flag = |command: &str| match &tokenize(command).unwrap()[0] {
        Token::Word(w) => w.assignment,
        Token::Op(..) => unreachable!(),
    };
    assert!(flag("FOO=1 ls"));
    assert!(flag("_x9=\"a b\" ls"));
    assert!(!flag("'FOO'=1 ls"));
    assert!(!flag("F\\OO=1 ls"));
    assert!(!flag("9X=1 ls"));
}

#[test]
fn splitter_table() {
    let ops = |command: &str| -> Vec<(usize, Option<Operator>)> {
        split(tokenize(command).unwrap())
            .unwrap()
            .into_iter()
            .map(|s| (s.words.len(), s.followed_by))
            .collect()
    };
    assert_eq!(ops("ls"), vec![(1, None)]);
    assert_eq!(
        ops("a b && c || d e f ; g | h"),
        vec![
            (2, Some(Operator::And)),
            (1, Some(Operator::Or)),
            (3, Some(Operator::Semi)),
            (1, Some(Operator::Pipe)),
            (1, None)
        ]
    );
    assert_eq!(ops("a&&b"), vec![(1, Some(Operator::And)), (1, None)]);
    let errors: &[(&str, &str)] = &[
        ("", "empty command"),
        ("   ", "empty command"),
        ("a && && b", "empty command before `&&` at byte 5"),
        ("&& a", "empty command before `&&` at byte 0"),
        ("a ||", "empty command after trailing `||` at byte 2"),
        ("a ;;", "empty command before `;` at byte 3"),
        ("| a", "empty command before `|`"),
    ];
    for (command, want) in errors {
        let err = tokenize(command).and_then(split).unwrap_err();
        assert!(err.contains(want), "{command}: {err}");
    }
}

fn refusal(command: &str) -> String {
    let analysis = analyze_command(command, &AnalyzeOptions::default());
    assert!(!analysis.approved, "{command} approved");
    assert!(analysis.segments.is_empty(), "{command} refused late");
    analysis.reason.unwrap()
}

macro_rules! refuses {
    ($($name:ident: $command:expr => $want:expr;)*) => {
        $(
            #[test]
            fn $name() {
                let reason = refusal($command);
                assert!(reason.contains($want), "{}: {reason}", $command);
            }
        )*
    };
}

refuses! {
    refuses_command_substitution: "echo $(id)" => "command substitution `$(` at byte 5";
    refuses_command_substitution_in_double_quotes: "echo \"$(id)\"" => "command substitution `$(` at byte 6";
    refuses_backticks: "echo `id`" => "command substitution (backtick) at byte 5";
    refuses_process_substitution_in: "cat <(id)" => "process substitution `<(` at byte 4";
    refuses_process_substitution_out: "tee >(sh)" => "process substitution `>(` at byte 4";
    refuses_redirection_out: "echo x > f" => "redirection `>` at byte 7";
    refuses_redirection_append: "echo x >> f" => "redirection `>>` at byte 7";
    refuses_redirection_in: "cat < f" => "redirection `<` at byte 4";
    refuses_redirection_stderr: "ls 2> f" => "redirection `>` at byte 4";
    refuses_redirection_both: "ls &> f" => "redirection `&>` at byte 3";
    refuses_redirection_clobber: "ls >| f" => "redirection `>|` at byte 3";
    refuses_redirection_read_write: "ls <> f" => "redirection `<>` at byte 3";
    refuses_fd_duplication: "ls 2>&1" => "fd duplication redirection `>&` at byte 4";
    refuses_fd_duplication_in: "ls <&3" => "fd duplication redirection `<&` at byte 3";
    refuses_background: "ls & id" => "background `&` at byte 3";
    refuses_trailing_background: "ls &" => "background `&` at byte 3";
    refuses_heredoc: "cat <<EOF" => "heredoc `<<` at byte 4";
    refuses_herestring: "cat <<< x" => "herestring `<<<` at byte 4";
    refuses_newline: "ls\nid" => "newline at byte 2";
    refuses_carriage_return: "ls\rid" => "newline at byte 2";
    refuses_newline_in_quotes: "echo 'a\nb'" => "newline at byte 7";
    refuses_escaped_newline: "ls \\\nid" => "escaped newline at byte 3";
    refuses_unterminated_single_quote: "echo 'abc" => "unterminated single quote at byte 5";
    refuses_unterminated_double_quote: "echo \"abc" => "unterminated double quote at byte 5";
    refuses_trailing_backslash: "echo a\\" => "trailing backslash at byte 6";
    refuses_empty_segment: "ls && && id" => "empty command before `&&`";
    refuses_leading_operator: "; ls" => "empty command before `;` at byte 0";
    refuses_trailing_operator: "ls |" => "empty command after trailing `|`";
    refuses_double_semicolon: "ls ;; id" => "empty command before `;` at byte 4";
    refuses_pipe_stderr: "ls |& cat" => "pipe with stderr `|&` at byte 3";
    refuses_parameter_expansion: "echo $HOME" => "parameter expansion `$` at byte 5";
    refuses_braced_parameter_expansion: "echo ${IFS}" => "parameter expansion `${` at byte 5";
    refuses_parameter_expansion_in_double_quotes: "echo \"$HOME\"" => "parameter expansion `$` at byte 6";
    refuses_ansi_c_quotes: "$'\\x73h'" => "ANSI-C quoting `$'` at byte 0";
    refuses_locale_quotes: "echo $\"x\"" => "locale quoting `$\"` at byte 5";
    refuses_glob_star: "ls *.rs" => "glob character at byte 3";
    refuses_glob_question: "/bin/s?" => "glob character at byte 6";
    refuses_glob_bracket: "ls [ab]" => "glob character at byte 3";
    refuses_brace_expansion: "echo {a,b}" => "brace expansion or group brace at byte 5";
    refuses_group: "{ ls; }" => "brace expansion or group brace at byte 0";
    refuses_tilde: "ls ~/x" => "tilde expansion `~` at byte 3";
    refuses_tilde_after_equals: "ls --dir=~/x" => "tilde expansion `~` at byte 9";
    refuses_tilde_after_colon: "ls a:~" => "tilde expansion `~` at byte 5";
    refuses_equals_at_word_start: "ls =sh" => "`=` at a word start (zsh expansion) at byte 3";
    refuses_subshell: "(ls)" => "subshell or group parenthesis at byte 0";
    refuses_bang: "! ls" => "history expansion or negation `!` at byte 0";
    refuses_bang_in_double_quotes: "echo \"!!\"" => "history expansion `!` in double quotes at byte 6";
    refuses_comment: "ls #x" => "comment `#` at byte 3";
    refuses_control_character: "ls\u{7}" => "control character at byte 2";
}

#[test]
fn refuses_commands_over_64_kib() {
    let command = format!("echo {}", "a".repeat(MAX_COMMAND_BYTES));
    let reason = refusal(&command);
    assert!(reason.contains("over the limit of 65536 bytes"), "{reason}");
}

#[test]
fn long_commands_are_linear() {
    let command = format!("echo {}", "'a' \"b\" c\\ ".repeat(5000));
    let started = std::time::Instant::now();
    let analysis = analyze_command(&command, &AnalyzeOptions::default());
    assert!(!analysis.approved);
    assert!(started.elapsed() < std::time::Duration::from_secs(2));
}

/// A sandbox with a trusted `bin` holding fake programs, a workspace and an untrusted dir.
struct Fixture {
    sandbox: Sandbox,
    bin: PathBuf,
    ws: PathBuf,
}

impl Fixture {
    fn new(name: &str) -> Fixture {
        let sandbox = Sandbox::new(name);
        let bin = sandbox.dir("bin");
        let ws = sandbox.dir("ws");
        for exe in ["ls", "git", "bash", "head", "wc", "python3"] {
            sandbox.exe(&format!("bin/{exe}"));
        }
        Fixture { sandbox, bin, ws }
    }

    fn options(&self, allowlist: &[&str]) -> AnalyzeOptions {
        AnalyzeOptions {
            cwd: Some(self.ws.clone()),
            allowlist: allowlist.iter().map(|s| s.to_string()).collect(),
            trusted_dirs: vec![self.bin.clone()],
            path: Some(self.bin.display().to_string()),
            ..AnalyzeOptions::default()
        }
    }
}

#[test]
fn resolution_through_path_and_cwd() {
    let f = Fixture::new("resolve");
    let other = f.sandbox.dir("other");
    f.sandbox.exe("other/tool");
    f.sandbox.file("other/plain", 0o644);
    f.sandbox.dir("other/adir");
    f.sandbox.exe("ws/script");
    let path = format!("{}:{}:.::rel/bin", other.display(), f.bin.display());
    let cwd = Some(f.ws.as_path());
    let ok = |name: &str| resolve::resolve_executable(name, cwd, &path).map(|exe| exe.real);
    assert_eq!(ok("ls").unwrap(), f.bin.join("ls"));
    assert_eq!(ok("tool").unwrap(), other.join("tool"));
    assert_eq!(ok("./script").unwrap(), f.ws.join("script"));
    assert_eq!(ok("../bin/git").unwrap(), f.bin.join("git"));
    // The shell searches `.` (and empty and relative entries) in the working directory.
    assert_eq!(ok("script").unwrap(), f.ws.join("script"));
    f.sandbox.exe("ws/rel/bin/reltool");
    assert_eq!(ok("reltool").unwrap(), f.ws.join("rel/bin/reltool"));
    assert!(ok("plain").unwrap_err().contains("not found in PATH"));
    assert!(ok("adir").unwrap_err().contains("not found in PATH"));
    assert!(ok("../other/plain")
        .unwrap_err()
        .contains("is not an executable regular file"));
    assert!(ok("../other/adir")
        .unwrap_err()
        .contains("is not an executable regular file"));
    assert!(ok("./missing").unwrap_err().contains("not found"));
    assert!(resolve::resolve_executable("./script", None, &path)
        .unwrap_err()
        .contains("without a cwd"));
    // A symlink resolves to its target's real path, and is where it was found.
    f.sandbox.link("other/gitlink", &f.bin.join("git"));
    assert_eq!(ok("gitlink").unwrap(), f.bin.join("git"));
    let found = resolve::resolve_executable("gitlink", cwd, &path).unwrap();
    assert_eq!(found.found, other.join("gitlink"));
}

/// What `sh -c 'command -v NAME'` finds with `path` in `cwd`, as a real path.
fn shell_finds(name: &str, path: &str, cwd: &Path) -> Option<PathBuf> {
    let out = std::process::Command::new("/bin/sh")
        .arg("-c")
        .arg(format!("command -v {name}"))
        .env_clear()
        .env("PATH", path)
        .current_dir(cwd)
        .output()
        .ok()?;
    let found = String::from_utf8(out.stdout).ok()?;
    let found = found.trim();
    if !out.status.success() || found.is_empty() {
        return None;
    }
    std::fs::canonicalize(cwd.join(found)).ok()
}

#[test]
fn path_lookup_agrees_with_the_shell() {
    let f = Fixture::new("shell-path");
    let other = f.sandbox.dir("other");
    for program in ["ls", "tool", "only-ws", "only-rel"] {
        f.sandbox.exe(&format!("ws/{program}"));
    }
    f.sandbox.exe("ws/rel/bin/only-rel");
    f.sandbox.exe("ws/rel/bin/tool");
    f.sandbox.exe("other/tool");
    f.sandbox.file("other/ls", 0o644);
    let bin = f.bin.display().to_string();
    let other = other.display().to_string();
    let paths = [
        format!(".:{bin}"),
        format!("{bin}:."),
        format!(":{bin}"),
        format!("{bin}:"),
        format!("{bin}::{other}"),
        format!("rel/bin:{other}:{bin}"),
        format!("{other}:rel/bin:{bin}"),
        format!("./rel/bin:{bin}"),
        format!("{other}:{bin}:."),
        ".".to_string(),
        ":".to_string(),
    ];
    let mut compared = 0;
    for path in &paths {
        for name in ["ls", "tool", "only-ws", "only-rel", "missing"] {
            let Some(shell) = shell_finds(name, path, &f.ws) else {
                let ours = resolve::resolve_executable(name, Some(&f.ws), path);
                assert!(
                    ours.is_err(),
                    "PATH={path:?} {name}: shell finds nothing, we {ours:?}"
                );
                continue;
            };
            let ours = resolve::resolve_executable(name, Some(&f.ws), path)
                .unwrap_or_else(|e| panic!("PATH={path:?} {name}: shell {shell:?}, we {e}"));
            assert_eq!(ours.real, shell, "PATH={path:?} {name}");
            compared += 1;
        }
    }
    assert!(compared > 20, "{compared}");
    // Without a working directory, a relative entry reached before the program is refused;
    // an absolute entry that finds it first is enough.
    let err = resolve::resolve_executable("ls", None, &format!(".:{bin}")).unwrap_err();
    assert!(err.contains("PATH entry `.` is relative"), "{err}");
    let err = resolve::resolve_executable("ls", None, &format!(":{bin}")).unwrap_err();
    assert!(err.contains("PATH entry `(empty)` is relative"), "{err}");
    assert!(resolve::resolve_executable("ls", None, &format!("{bin}:.")).is_ok());
    // No PATH at all finds nothing (a shell would search the cwd: refusing is the safe side).
    let err = resolve::resolve_executable("ls", Some(&f.ws), "").unwrap_err();
    assert!(err.contains("PATH is empty"), "{err}");
    let err = resolve::resolve_executable("ls", Some(&f.ws), "~/bin").unwrap_err();
    assert!(err.contains("starts with `~`"), "{err}");
}

#[test]
fn allowlist_by_name_needs_the_trusted_dir_and_globs_match_real_paths() {
    let f = Fixture::new("allow");
    f.sandbox.exe("ws/ls");
    let options = f.options(&["ls"]);
    let analysis = analyze_command("ls -la", &options);
    assert!(analysis.approved, "{analysis:?}");
    let seg = &analysis.segments[0];
    assert_eq!(seg.resolved_path.as_deref(), f.bin.join("ls").to_str());
    assert_eq!(seg.reason.as_deref(), Some("allowlisted by `ls`"));
    let shadow = analyze_command("./ls", &options);
    assert!(!shadow.approved);
    assert!(shadow.reason.unwrap().contains("outside the trusted dirs"));
    let glob = format!("{}/*", f.ws.display());
    let options = f.options(&[glob.as_str()]);
    assert!(analyze_command("./ls -la", &options).approved);
    assert!(!analyze_command("ls -la", &options).approved);
}

/// Approved and resolved to `real`, or panics naming the command.
fn assert_approved(command: &str, options: &AnalyzeOptions, real: &Path) {
    let analysis = analyze_command(command, options);
    assert!(analysis.approved, "{command}: {analysis:?}");
    assert_eq!(
        analysis.segments[0].resolved_path.as_deref(),
        real.to_str(),
        "{command}"
    );
}

/// Refused as not allowlisted after resolving to `real`, or panics naming the command.
fn assert_unlisted(command: &str, options: &AnalyzeOptions, real: &Path) {
    let analysis = analyze_command(command, options);
    assert!(!analysis.approved, "{command}: {analysis:?}");
    let segment = &analysis.segments[0];
    assert_eq!(segment.resolved_path.as_deref(), real.to_str(), "{command}");
    let reason = segment.reason.as_deref().unwrap_or_default();
    assert!(reason.contains("is not allowlisted"), "{command}: {reason}");
}

#[test]
fn a_symlink_outside_the_trusted_dirs_never_lends_its_name() {
    let f = Fixture::new("lent-names");
    let rm = f.sandbox.exe("bin/rm");
    f.sandbox.dir("ws/links");
    f.sandbox.link("ws/links/ls", &rm);
    f.sandbox.link("ws/links/head", &rm);
    f.sandbox.link("ws/links/wc", &rm);
    let shadow = f.sandbox.dir("shadow");
    f.sandbox.link("shadow/ls", &rm);
    f.sandbox.link("shadow/head", &rm);
    let mut options = f.options(&["ls"]);
    for command in [
        "./links/ls -rf /",
        "links/ls -rf /",
        "./links/head -n 1",
        "./links/wc -l",
    ] {
        assert_unlisted(command, &options, &rm);
    }
    let typed = format!("{}/links/ls -rf /", f.ws.display());
    assert_unlisted(&typed, &options, &rm);
    // Found through PATH in an untrusted dir: the same.
    options.path = Some(format!("{}:{}", shadow.display(), f.bin.display()));
    assert_unlisted("ls -rf /", &options, &rm);
    assert_unlisted("head -n 1", &options, &rm);
    // The real programs of those names still pass.
    options.path = Some(f.bin.display().to_string());
    assert_approved("ls -la", &options, &f.bin.join("ls"));
    assert_approved("head -n 1", &options, &f.bin.join("head"));
}

#[test]
fn a_safe_bin_matches_its_real_file_only() {
    let f = Fixture::new("safe-real");
    let rm = f.sandbox.exe("bin/rm");
    let alt = f.sandbox.dir("alt");
    f.sandbox.link("alt/tr", &rm);
    f.sandbox.link("alt/wc", &f.bin.join("wc"));
    let mut options = f.options(&[]);
    options.trusted_dirs.push(alt.clone());
    options.path = Some(format!("{}:{}", alt.display(), f.bin.display()));
    // Even a symlink in a trusted dir does not make `rm` a `tr`.
    assert_unlisted("tr -d x", &options, &rm);
    // A symlink to the real safe bin is that safe bin.
    assert_approved("wc -l", &options, &f.bin.join("wc"));
}

#[test]
fn symlinks_within_the_trusted_dirs_keep_their_names() {
    let f = Fixture::new("trusted-links");
    let real = f.sandbox.exe("bin/tool-1.2");
    // `/usr/bin/python3` -> `python3.11`: a relative link beside its target.
    f.sandbox.link("bin/tool", Path::new("tool-1.2"));
    // `/usr/bin/awk` -> `/etc/alternatives/awk` -> `/usr/bin/mawk`: a hop outside.
    f.sandbox.dir("alternatives");
    f.sandbox
        .link("alternatives/alt-tool", &f.bin.join("tool-1.2"));
    f.sandbox.link(
        "bin/alt-tool",
        &f.sandbox.root.join("alternatives/alt-tool"),
    );
    // `/bin` -> `/usr/bin`: the trusted dir and PATH entry are a symlink to the real dir.
    let bin_link = f.sandbox.link("bin-link", &f.bin);
    let mut options = f.options(&["tool"]);
    options.trusted_dirs = vec![bin_link.clone()];
    options.path = Some(bin_link.display().to_string());
    assert_approved("tool --version", &options, &real);
    assert_approved(&format!("{}/tool -v", bin_link.display()), &options, &real);
    options.allowlist = vec!["tool-1.2".to_string()];
    assert_approved("tool-1.2 x", &options, &real);
    assert_approved("tool x", &options, &real);
    assert_approved("alt-tool x", &options, &real);
    // A link whose chain leaves the trusted dirs lends no name.
    options.allowlist = vec!["alt-tool".to_string()];
    assert_unlisted("alt-tool x", &options, &real);
    // Unless the hop is through a link dir (the alternatives system's): then it does.
    options.link_dirs = vec![f.sandbox.root.join("alternatives")];
    assert_approved("alt-tool x", &options, &real);
    options.link_dirs = Vec::new();
    // Nor does one typed in the cwd in front of a trusted link: its own name is not matched.
    f.sandbox.link("ws/renamed", &f.bin.join("tool"));
    options.allowlist = vec!["renamed".to_string()];
    assert_unlisted("./renamed", &options, &real);
    // The names of the trusted links it leads through are.
    options.allowlist = vec!["tool".to_string()];
    assert_approved("./renamed", &options, &real);
}

#[test]
fn the_system_layout_resolves_and_matches() {
    // On this machine's own programs: PATH through `/bin` (often a link to `/usr/bin`) and the
    // default trusted dirs.
    let Ok(real) = std::fs::canonicalize("/bin/ls") else {
        return;
    };
    let options = AnalyzeOptions {
        allowlist: vec!["ls".to_string()],
        path: Some("/bin:/usr/bin".to_string()),
        ..AnalyzeOptions::default()
    };
    assert_approved("ls -la", &options, &real);
    assert_approved("/bin/ls -la", &options, &real);
    assert_approved("/usr/bin/ls -la", &options, &real);
}

#[test]
fn the_alternatives_system_keeps_the_generic_name() {
    // Debian: `/usr/bin/which` -> `/etc/alternatives/which` -> `/usr/bin/which.debianutils`.
    let via_alternatives = std::fs::read_link("/usr/bin/which")
        .is_ok_and(|target| target.starts_with("/etc/alternatives"));
    if !via_alternatives {
        return;
    }
    let real = std::fs::canonicalize("/usr/bin/which").unwrap();
    let options = AnalyzeOptions {
        allowlist: vec!["which".to_string()],
        path: Some("/usr/bin".to_string()),
        ..AnalyzeOptions::default()
    };
    assert_approved("which ls", &options, &real);
}

#[test]
fn safe_bins_need_the_trusted_dir() {
    let f = Fixture::new("safe");
    f.sandbox.exe("ws/head");
    let options = f.options(&[]);
    let analysis = analyze_command("head -n 5 | wc -l", &options);
    assert!(analysis.approved, "{analysis:?}");
    assert_eq!(
        analysis.segments[0].reason.as_deref(),
        Some("safe bin `head`")
    );
    assert!(!analyze_command("./head -n 5", &options).approved);
    let reason = analyze_command("head -n 5 secret", &options)
        .reason
        .unwrap();
    assert!(reason.contains("file argument `secret`"), "{reason}");
    assert!(!analyze_command("ls", &options).approved);
}

#[test]
fn wrappers_are_marked_and_never_approved() {
    let f = Fixture::new("wrap");
    let trusted2 = f.sandbox.dir("bin2");
    f.sandbox.link("bin2/ls", &f.bin.join("bash"));
    let mut options = f.options(&["ls", "bash", "python3", "git"]);
    options.trusted_dirs.push(trusted2.clone());
    let cases = [
        "bash -c id".to_string(),
        format!("{}/ls -la", trusted2.display()),
        "python3 -c print".to_string(),
        "python3".to_string(),
        "FOO=1 ls".to_string(),
        "sudo ls".to_string(),
        "exec ls".to_string(),
    ];
    for command in &cases {
        let analysis = analyze_command(command, &options);
        assert!(!analysis.approved, "{command}");
        assert!(analysis.segments[0].wrapper, "{command}: {analysis:?}");
    }
    f.sandbox.file("ws/script.py", 0o644);
    let analysis = analyze_command("python3 script.py", &options);
    assert!(analysis.approved, "{analysis:?}");
    assert!(!analysis.segments[0].wrapper);
}

#[test]
fn analysis_serializes_in_camel_case() {
    let f = Fixture::new("json");
    let options = f.options(&["ls"]);
    let value = serde_json::to_value(analyze_command("ls && git status", &options)).unwrap();
    let real_ls = f.bin.join("ls").display().to_string();
    let real_git = f.bin.join("git").display().to_string();
    assert_eq!(
        value,
        json!({
            "approved": false,
            "reason": format!("segment `git status`: `git` ({real_git} in a trusted dir) is not allowlisted"),
            "segments": [
                { "argv": ["ls"], "executable": "ls", "resolvedPath": real_ls, "approved": true,
                  "reason": "allowlisted by `ls`", "wrapper": false },
                { "argv": ["git", "status"], "executable": "git", "resolvedPath": real_git,
                  "approved": false,
                  "reason": format!("`git` ({real_git} in a trusted dir) is not allowlisted"),
                  "wrapper": false }
            ]
        })
    );
    let approved = serde_json::to_value(analyze_command("ls", &options)).unwrap();
    assert!(approved.get("reason").is_none());
}

/// A new user's `cd src && ls` (repro 3) was refused as "shell keyword or builtin", a reason
/// that does not say what to do: the analysis checks every segment in the call's working
/// directory, so a directory change is refused naming that and the `cwd` to use instead.
#[test]
fn a_directory_change_is_refused_naming_the_working_directory_to_give() {
    let options = AnalyzeOptions {
        allowlist: vec!["ls".into()],
        ..AnalyzeOptions::default()
    };
    for line in [
        "cd src && ls",
        "cd .. ; ls",
        "pushd src && ls",
        "ls && cd /",
        "popd",
    ] {
        let analysis = analyze_command(line, &options);
        let reason = analysis.reason.unwrap_or_default();
        assert!(!analysis.approved, "{line}");
        assert!(
            reason.contains("does not follow") && reason.contains("(cwd)"),
            "{line}: {reason}"
        );
    }
}

/// A new user's `allowlist: ['npm']` (and `'/usr/bin/npm'`, what `which npm` prints) never
/// matched npm on the standard layout: `/usr/bin/npm -> ../lib/node_modules/npm/bin/npm-cli.js`
/// (nodesource, the official tarball, the node Docker images; repro 3). A link in a trusted
/// dir lends its name and path to a real file only root can change, outside the workspace.
#[test]
fn a_trusted_link_to_a_system_file_lends_its_name_and_path() {
    let sandbox = Sandbox::new("trusted-link-system-file");
    let ws = sandbox.dir("ws");
    let bin = sandbox.dir("usr/bin");
    let cli = sandbox.exe("usr/lib/node_modules/npm/bin/npm-cli.js");
    sandbox.link(
        "usr/bin/npm",
        Path::new("../lib/node_modules/npm/bin/npm-cli.js"),
    );
    let options = |allowlist: &[String]| AnalyzeOptions {
        cwd: Some(ws.clone()),
        allowlist: allowlist.to_vec(),
        trusted_dirs: vec![bin.clone()],
        path: Some(bin.display().to_string()),
        runs_as_root: false,
        ..AnalyzeOptions::default()
    };
    let lib_glob = format!("{}/*", cli.parent().unwrap().display());
    let link_path = bin.join("npm").display().to_string();
    for allowlist in [
        vec!["npm".to_string()],
        vec![link_path.clone()],
        vec![lib_glob],
    ] {
        let analysis = analyze_command("npm ls", &options(&allowlist));
        assert!(analysis.approved, "{allowlist:?}: {:?}", analysis.reason);
        // The package manager's rules still apply under its link's name.
        assert!(!analyze_command("npm test", &options(&allowlist)).approved);
    }
    let mode = |path: &Path, mode: u32| {
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
    };
    let lib_dir = cli.parent().unwrap().to_path_buf();
    // Writable by others than root: the real file or a directory above it.
    for (path, open, closed) in [(&cli, 0o775, 0o755), (&lib_dir, 0o777, 0o755)] {
        mode(path, open);
        for allowlist in [vec!["npm".to_string()], vec![link_path.clone()]] {
            let analysis = analyze_command("npm ls", &options(&allowlist));
            assert!(
                !analysis.approved,
                "{} {open:o}: {allowlist:?}",
                path.display()
            );
        }
        mode(path, closed);
    }
    // A real file in the workspace (the agent's tools write it) lends nothing either.
    let own = sandbox.exe("ws/npm-cli.js");
    std::fs::remove_file(bin.join("npm")).unwrap();
    sandbox.link("usr/bin/npm", &own);
    for allowlist in [vec!["npm".to_string()], vec![link_path]] {
        let analysis = analyze_command("npm ls", &options(&allowlist));
        assert!(!analysis.approved, "{allowlist:?}: {:?}", analysis.reason);
    }
}

/// A rustup shim (`~/.cargo/bin/cargo` -> `rustup`, seen by a new user; pyenv and nvm alike):
/// neither `cargo` nor the path `which` prints approves it, and the refusal says what does,
/// each of which then approves it.
#[test]
fn a_shim_outside_the_trusted_dirs_is_refused_saying_what_to_add() {
    let sandbox = Sandbox::new("shim-hint");
    let ws = sandbox.dir("ws");
    let base = sandbox.allowlisting(ws, &[]);
    let shims = sandbox.dir("home/.cargo/bin");
    let rustup = sandbox.exe("home/.cargo/bin/rustup");
    sandbox.link("home/.cargo/bin/cargo", Path::new("rustup"));
    let options = |allowlist: Vec<String>, trusted: Vec<PathBuf>| AnalyzeOptions {
        allowlist,
        trusted_dirs: [base.trusted_dirs.clone(), trusted].concat(),
        path: Some(format!(
            "{}:{}",
            shims.display(),
            base.trusted_dirs[0].display()
        )),
        ..base.clone()
    };
    let (real, dir) = (rustup.display(), shims.display());
    let want = format!(
        "segment `cargo --version`: `cargo` ({real} outside the trusted dirs) is not allowlisted: a bare name matches only a real file in the trusted dirs, and a path entry the real path; to approve it, add `{real}` (or a glob such as `{dir}/*`) to the allowlist, or `{dir}` to trustedDirs"
    );
    for entry in ["cargo".to_string(), format!("{dir}/cargo")] {
        let analysis = analyze_command("cargo --version", &options(vec![entry], vec![]));
        assert_eq!(analysis.reason.as_deref(), Some(want.as_str()));
    }
    for (allowlist, trusted) in [
        (vec![real.to_string()], vec![]),
        (vec![format!("{dir}/*")], vec![]),
        (vec!["cargo".to_string()], vec![shims.clone()]),
    ] {
        let analysis = analyze_command("cargo --version", &options(allowlist.clone(), trusted));
        assert!(analysis.approved, "{allowlist:?}: {:?}", analysis.reason);
    }
}
