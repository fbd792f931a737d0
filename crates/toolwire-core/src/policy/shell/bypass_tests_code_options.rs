//! Attack review 2, findings 4 to 6 (repros 1, 6, 7, 14 and 16, each run as root against the
//! packed build): allowlisted programs that ran code through an option, a subcommand that
//! wraps a command, a package file or a configuration. Each line goes through the whole
//! analyzer with its program allowlisted, and its refusal names the program and the option,
//! subcommand or operand; the benign corpus beside it stays approved.

use super::tests::Sandbox;
use super::*;

/// (line, what the refusal must name besides the program).
const ATTACKS: &[(&str, &str)] = &[
    // 4: APT hooks, configuration files and package files; dpkg installing a package file.
    ("apt -o APT::Update::Pre-Invoke::=touch update", "-o"),
    (
        "apt-get -oDPkg::Post-Invoke::=x upgrade",
        "-oDPkg::Post-Invoke::=x",
    ),
    (
        "apt-get --option=DPkg::Pre-Install-Pkgs::=x install curl",
        "--option",
    ),
    (
        "apt-get -o Dir::Bin::dpkg=./x install curl",
        "dir::bin::dpkg",
    ),
    ("apt -c ./apt.conf update", "-c"),
    ("apt-get --config-file=./apt.conf update", "--config-file"),
    ("apt install ./x.deb", "./x.deb"),
    ("apt-get install -y x.deb", "x.deb"),
    // Attack review 3's 1: a package file given as a source, glued to its option.
    ("apt-get install -y --with-source=./x.deb twx3", "./x.deb"),
    ("apt install --with-source=x.deb twx3", "x.deb"),
    ("aptitude -o APT::Update::Post-Invoke::=x update", "-o"),
    ("dpkg -i x.deb", "-i"),
    ("dpkg --install x.deb", "--install"),
    ("dpkg --unpack x.deb", "--unpack"),
    ("dpkg -iR pkgs", "-iR"),
    ("dpkg --root=. -l", "--root"),
    ("dpkg --admindir ./db -l", "--admindir"),
    ("dpkg --instdir=./x -l", "--instdir"),
    // 5: version managers and runners that run the command given.
    ("rustup run stable touch x", "rustup run"),
    ("pyenv exec touch x", "pyenv exec"),
    ("rbenv exec ruby x.rb", "rbenv exec"),
    ("nodenv exec node x.js", "nodenv exec"),
    ("asdf exec python x.py", "asdf exec"),
    ("mise exec -- touch x", "mise exec"),
    ("mise x node@20 -- node x.js", "mise x"),
    ("mise trust", "mise trust"),
    ("mise env", "mise env"),
    ("direnv exec . touch x", "direnv exec"),
    ("dotenv run touch x", "dotenv"),
    ("dotenv -- touch x", "dotenv"),
    ("uv run touch x", "uv run"),
    ("uvx ruff check", "uvx"),
    ("poetry run touch x", "poetry run"),
    ("pipenv run touch x", "pipenv run"),
    ("conda run -n base touch x", "conda run"),
    ("nvm exec 20 node x.js", "nvm exec"),
    ("volta run node x.js", "volta run"),
    ("fnm exec --using=20 node x.js", "fnm exec"),
    ("rustc -C linker=./evil.sh x.rs", "linker="),
    ("rustc -Clinker=./evil.sh x.rs", "linker="),
    ("rustc -C link-arg=-fuse-ld=./x x.rs", "link-arg"),
    // Attack review 3's 2: `_` for `-` in `-C` keys, and clippy-driver (a rustc driver).
    (
        "rustc -C link_arg=-wrapper -C link_arg=./w x.rs",
        "link_arg",
    ),
    ("rustc -C link_args=./w x.rs", "link_arg"),
    ("rustc -C linker_flavor=ld x.rs", "linker_"),
    ("clippy-driver -C linker=./e x.rs", "linker="),
    // Attack review 3's 4 and 10.
    ("opt @opts x.ll", "@"),
    ("llc @opts", "@"),
    (
        "jarsigner -providerPath . -providerClass P x.jar k",
        "providerpath",
    ),
    (
        "jlink --plugin-module-path . --output o",
        "plugin-module-path",
    ),
    ("javadoc --doclet-path . X.java", "doclet-path"),
    ("jhsdb clhsdb --pid 1", "jhsdb"),
    ("rustc -Z codegen-backend=./x.so x.rs", "-Z"),
    ("rustc --extern m=./libm.so x.rs", "--extern"),
    ("rustc @args x.rs", "@"),
    ("rustdoc --test x.rs", "--test"),
    // 6: programs with no table before this round.
    ("logsave /dev/null touch x", "logsave"),
    ("dpkg-architecture -c touch x", "-c"),
    ("dpkg-architecture --command touch x", "--command"),
    ("dpkg-buildpackage -b -us -uc -d", "debian/rules"),
    ("debuild -b", "debian/rules"),
    ("javac X.java", "-proc:none"),
    ("javac -proc:none -proc:full X.java", "-proc:none"),
    ("javac -proc:none -Xplugin:P X.java", "-Xplugin"),
    ("javac -proc:none -processorpath . X.java", "-processorpath"),
    ("javac -proc:none -J-javaagent:x.jar X.java", "-J-javaagent"),
    ("gpgtar --gpg ./evil -t x", "--gpg"),
    ("gpgtar --gpg-args=--exec-path=. -t x", "--gpg-args"),
    ("groff -U x.ms", "-U"),
    ("troff -U x.ms", "-U"),
    ("opt -load ./x.so -o /dev/null x.ll", "-load"),
    ("llc --load=./x.so x.ll", "--load"),
    ("opt -load-pass-plugin=./x.so x.ll", "-load-pass-plugin"),
    ("clang -fplugin=./x.so x.c", "-fplugin"),
    ("rpcgen -Y . x.x", "-Y"),
    ("javadoc -docletpath . -doclet D X.java", "-docletpath"),
    (
        "keytool -list -providerpath . -providerclass P",
        "-providerpath",
    ),
    ("jcmd 1 JVMTI.agent_load ./x.so", "jvmti.agent_load"),
    ("kpt fn eval --exec ./evil .", "--exec"),
    ("cargo-nextest nextest run", "cargo-nextest"),
    ("pgbench -f x.sql", "-f"),
    ("systemd-tmpfiles --create ./x.conf", "--create"),
    ("sysctl -w kernel.core_pattern=x", "-w"),
    ("sysctl kernel.core_pattern=x", "kernel.core_pattern=x"),
    ("sysctl -p ./x.conf", "-p"),
    ("sysctl --system", "--system"),
    ("sysctl -q 'kernel.core_pattern=|/tmp/x'", "key=value"),
    // Attack review 3's 3: version managers install a definition file (a bash script) given
    // as the version, select a version by its path, or add a plugin.
    ("pyenv install x", "definition"),
    ("pyenv install ./x", "./x"),
    ("pyenv install -p 3.12.1", "patch"),
    ("pyenv install", "version files"),
    ("pyenv local ./x", "pyenv local"),
    ("pyenv shell ../v", "pyenv shell"),
    ("pyenv-install x", "pyenv install"),
    ("rbenv install ./x", "rbenv install"),
    ("rbenv install --patch 3.3.0", "--patch"),
    ("nodenv install ./x", "nodenv install"),
    ("asdf install", "asdf install"),
    ("asdf local nodejs path:./n", "path:"),
    ("asdf plugin add x ./p", "asdf plugin add"),
    ("mise install", "mise install"),
    ("mise use node@path:./n", "path:"),
    ("mise plugins link x ./p", "mise plugins link"),
    ("python-build ./x /tmp/p", "definition"),
    // Attack review 3's 2: rust-analyzer loads the workspace (build.rs, proc macros).
    (
        "rust-analyzer analysis-stats .",
        "rust-analyzer analysis-stats",
    ),
    ("rust-analyzer diagnostics .", "build.rs"),
    ("rust-analyzer ssr 'a==>>b'", "rust-analyzer ssr"),
    ("rust-analyzer search a", "procedural macros"),
    ("rust-analyzer scip .", "rust-analyzer scip"),
    ("rust-analyzer lsif .", "rust-analyzer lsif"),
    ("rust-analyzer run-tests", "rust-analyzer run-tests"),
    ("rust-analyzer", "rust-analyzer"),
    // Attack review 4's 10.
    ("rls --cli", "rls --cli"),
    ("rust-gdbgui ./target/debug/x", "gdbgui"),
    (
        "rust-analyzer +stable analysis-stats .",
        "rust-analyzer analysis-stats",
    ),
    // Attack review 3's 10: the linker flavor, with - or _.
    ("rustc -C linker-flavor=ld x.rs", "linker-"),
    ("rustc --codegen=linker_flavor=ld x.rs", "linker_"),
    // Subcommand wrappers at the subcommand's place, after options and their values.
    ("uv --directory x run touch y", "uv run"),
    ("uv -q run touch y", "uv run"),
    ("rustup +stable run stable touch x", "rustup run"),
    ("mise tasks run build", "mise tasks run"),
    ("mise -C d task run build", "mise task run"),
    ("hatch env run -- touch y", "hatch env run"),
    ("op plugin run -- gh", "op plugin run"),
    // Cargo's subcommand programs build or run `cargo metadata`.
    ("cargo-fmt --check", "cargo metadata"),
    ("cargo-clippy clippy", "cargo-clippy"),
    // Archive extractors write where the line says and the archive's members under it.
    ("dpkg -x pkg.deb /", "outside the workspace"),
    ("dpkg -X pkg.deb /etc/cron.d", "dpkg -X"),
    ("dpkg-deb -x pkg.deb /", "dpkg-deb -x"),
    ("dpkg-deb -R pkg.deb ../r", "dpkg-deb -R"),
    ("dpkg-deb --vextract pkg.deb /srv", "--vextract"),
    ("tar -xf a.tar -C /", "outside the workspace"),
    ("tar -xPf a.tar", "-xPf"),
    (
        "update-alternatives --install /usr/bin/ls ls ./evil 100",
        "--install",
    ),
];

/// Lines of the same programs that run nothing of the line's choosing.
const BENIGN: &[&str] = &[
    "apt list --installed",
    "apt show curl",
    "apt-get -y install curl",
    "apt-get -o APT::Get::Assume-Yes=true install curl",
    "apt-cache policy curl",
    "dpkg -l",
    "dpkg -L coreutils",
    "dpkg -S /usr/bin/ls",
    "dpkg --print-architecture",
    "rustup show",
    "rustup toolchain list",
    "pyenv versions",
    "rbenv version",
    "asdf current",
    "mise ls",
    "direnv status",
    "conda env list",
    "volta list",
    "rustc --version",
    "rustc -O --edition 2021 x.rs",
    "dpkg-architecture -qDEB_HOST_ARCH",
    "javac -proc:none X.java",
    "javac -proc:none -d out -cp lib.jar X.java",
    "gpgtar -t x",
    "groff -Tutf8 -ms x.ms",
    "opt -O2 -S x.ll",
    "rpcgen x.x",
    "javadoc -d doc X.java",
    "keytool -list -keystore ks",
    "jcmd 1 VM.version",
    "kpt pkg get x",
    "cargo-nextest --version",
    "pgbench --version",
    "systemd-tmpfiles --cat-config",
    "sysctl kernel.hostname",
    "sysctl -a",
    "update-alternatives --display editor",
    "update-alternatives --query editor",
    "sysctl -n kernel.ostype",
    "sysctl net.ipv4.ip_forward",
    "sysctl -a -r a=b",
    "sysctl -a --pattern=kernel",
    // `a=b` is grep's here, not sysctl's (the table's `=` anywhere read it as a write).
    "grep -c a=b X.java",
    "sysctl -a | grep a=b",
    "pyenv install 3.12.1",
    "pyenv install --list",
    "pyenv local 3.12.1",
    "rbenv install 3.3.0",
    "nodenv install 20.11.0",
    "asdf install nodejs 20.11.0",
    "mise install node@20",
    "mise use node@20",
    "rust-analyzer --version",
    "rust-analyzer +stable --version",
    "rust-analyzer parse",
    "mise tasks ls",
    "mise ls run",
    "conda list run",
    "doppler secrets get run",
    "cargo-fmt --version",
    "cargo-clippy --version",
    "cargo-clippy clippy --version",
    "cargo-nextest nextest --version",
    "dpkg -x pkg.deb unpacked",
    "dpkg-deb -x pkg.deb sub/dir",
    "dpkg-deb -c pkg.deb",
    "dpkg-deb -e pkg.deb",
    "tar -xzf a.tgz",
    "tar -xf a.tar -C sub",
];

/// Every program of [`ATTACKS`] and [`BENIGN`], as fake executables in a trusted dir.
fn programs() -> Vec<&'static str> {
    let mut programs: Vec<&str> = ATTACKS
        .iter()
        .map(|(line, _)| *line)
        .chain(BENIGN.iter().copied())
        .filter_map(|line| line.split(' ').next())
        .collect();
    programs.sort_unstable();
    programs.dedup();
    programs
}

#[test]
fn allowlisted_programs_run_no_code_through_options_wrappers_or_packages() {
    let sandbox = Sandbox::new("code-options");
    let ws = sandbox.dir("ws");
    sandbox.file("ws/X.java", 0o644);
    // A definition file python-build would source for `pyenv install x`.
    sandbox.file("ws/x", 0o644);
    let options = sandbox.allowlisting(ws, &programs());
    let mut failures = Vec::new();
    for (line, names) in ATTACKS {
        let analysis = analyze_command(line, &options);
        let reason = analysis.reason.clone().unwrap_or_default();
        let program = line.split(' ').next().unwrap();
        let lower = reason.to_lowercase();
        if analysis.approved || !reason.contains(program) || !lower.contains(&names.to_lowercase())
        {
            failures.push(format!("{line}: {reason} (want {program} and {names})"));
        }
    }
    for line in BENIGN {
        let analysis = analyze_command(line, &options);
        if !analysis.approved {
            failures.push(format!("{line}: refused: {:?}", analysis.reason));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The wrappers are marked as wrappers (`wrapper: true`), as `env` and `timeout` are.
#[test]
fn subcommand_wrappers_are_marked_as_wrappers() {
    let sandbox = Sandbox::new("subcommand-wrappers");
    let ws = sandbox.dir("ws");
    let options = sandbox.allowlisting(ws, &["rustup", "pyenv", "mise", "dotenv", "logsave"]);
    for line in [
        "rustup run stable id",
        "pyenv exec id",
        "mise x -- id",
        "dotenv run id",
        "logsave f id",
    ] {
        let analysis = analyze_command(line, &options);
        assert!(!analysis.approved, "{line}");
        assert!(
            analysis.segments[0].wrapper,
            "{line}: {:?}",
            analysis.reason
        );
    }
}

/// Attack review 2, repro 6: rustup's proxies in `~/.cargo/bin` are links to the one `rustup`
/// file, which the allowlist names. Called `cargo` or `rustc` they run the tool of the
/// toolchain picked, and `rustup run` is a wrapper only when called `rustup`.
#[test]
fn rustup_proxies_are_checked_as_the_tool_they_run() {
    let sandbox = Sandbox::new("rustup-links");
    let ws = sandbox.dir("ws");
    let cargo_bin = sandbox.dir("home/.cargo/bin");
    let rustup = sandbox.exe("home/.cargo/bin/rustup");
    for proxy in ["cargo", "rustc", "rustfmt"] {
        sandbox.link(&format!("home/.cargo/bin/{proxy}"), &rustup);
    }
    let options = AnalyzeOptions {
        cwd: Some(ws.clone()),
        allowlist: vec![rustup.display().to_string()],
        path: Some(cargo_bin.display().to_string()),
        ..AnalyzeOptions::default()
    };
    let cases: &[(&str, bool, &str)] = &[
        ("rustup run stable id", false, "rustup run"),
        ("cargo +stable build", false, "cargo build"),
        ("cargo +stable test", false, "cargo test"),
        ("cargo +./tc --version", false, "+./tc"),
        ("rustc -C linker=./evil.sh x.rs", false, "linker="),
        ("rustup toolchain link evil ./tc", false, "rustup link"),
        ("cargo --version", true, ""),
        ("cargo +stable --version", true, ""),
        ("rustc --version", true, ""),
        ("rustfmt --check src/lib.rs", true, ""),
        ("rustup show", true, ""),
    ];
    for (line, want, names) in cases {
        let analysis = analyze_command(line, &options);
        let reason = analysis.reason.clone().unwrap_or_default();
        assert_eq!(analysis.approved, *want, "{line}: {reason}");
        assert!(reason.contains(names), "{line}: {reason} (want {names})");
    }
    std::fs::write(
        ws.join("rust-toolchain.toml"),
        "[toolchain]\npath = \"./tc\"\n",
    )
    .unwrap();
    let analysis = analyze_command("cargo --version", &options);
    let reason = analysis.reason.unwrap_or_default();
    assert!(reason.contains("rust-toolchain.toml"), "{reason}");
}

/// `APT_CONFIG` names a configuration file like `-c`: refused on the line and in the call's
/// environment.
#[test]
fn apt_config_in_the_environment_is_refused() {
    let sandbox = Sandbox::new("apt-config-env");
    let ws = sandbox.dir("ws");
    let options = sandbox.allowlisting(ws, &["apt"]);
    assert!(!analyze_command("APT_CONFIG=./apt.conf apt update", &options).approved);
    let args = serde_json::json!({ "command": "apt update", "env": { "APT_CONFIG": "./x" } });
    assert!(callenv::unsafe_call_env(&args).is_some());
}

/// A trusted dir others may write (`trustedDirs` must hold none) is named in the approving
/// rule as a warning; a closed one is not.
#[test]
fn an_approval_through_an_open_trusted_dir_warns() {
    use std::os::unix::fs::PermissionsExt;
    let sandbox = Sandbox::new("open-trusted-dir");
    let ws = sandbox.dir("ws");
    let options = sandbox.allowlisting(ws, &["ls"]);
    // `wc` is approved as a safe bin, not through the allowlist.
    sandbox.exe("bin/wc");
    let bin = &options.trusted_dirs[0];
    for (mode, warns) in [(0o755, false), (0o775, true), (0o777, true), (0o1777, true)] {
        std::fs::set_permissions(bin, std::fs::Permissions::from_mode(mode)).unwrap();
        for line in ["ls -la", "wc -l"] {
            let analysis = analyze_command(line, &options);
            assert!(analysis.approved, "{line}: {:?}", analysis.reason);
            let rule = analysis.segments[0].reason.clone().unwrap_or_default();
            assert_eq!(
                rule.contains("warning: the trusted dir"),
                warns,
                "{mode:o} {line}: {rule}"
            );
        }
    }
    std::fs::set_permissions(bin, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// A program in the workspace (`node_modules/.bin/tsx` -> `node_modules/tsx/dist/cli.mjs`) gets
/// no advice to allowlist its path or trust its directory, which would approve whatever the
/// agent writes there; a path entry or a trusted dir inside the workspace approves with a
/// warning, and a bare entry naming the link says why it does not match (user review r10 #8).
#[test]
fn programs_in_the_workspace_are_never_advised_into_the_allowlist() {
    let sandbox = Sandbox::new("workspace-program");
    let ws = sandbox.dir("ws");
    let dist = sandbox.dir("ws/node_modules/tsx/dist");
    let cli = sandbox.exe("ws/node_modules/tsx/dist/cli.mjs");
    sandbox.dir("ws/node_modules/.bin");
    sandbox.link("ws/node_modules/.bin/tsx", &cli);
    let mut options = sandbox.allowlisting(ws.clone(), &["ls"]);
    let bin = options.trusted_dirs[0].clone();
    options.path = Some(format!(
        "{}:{}",
        ws.join("node_modules/.bin").display(),
        bin.display()
    ));

    let analysis = analyze_command("tsx --version", &options);
    let why = analysis.reason.unwrap_or_default();
    assert!(!analysis.approved);
    assert!(why.contains("lies in the workspace"), "{why}");
    assert!(why.contains("approve such a call per call"), "{why}");
    assert!(!why.contains("to the allowlist, or"), "{why}");

    // A path entry in the workspace approves, with a warning.
    options.allowlist = vec![format!("{}/*", dist.display())];
    let analysis = analyze_command("tsx --version", &options);
    assert!(analysis.approved, "{:?}", analysis.reason);
    let rule = analysis.segments[0].reason.clone().unwrap_or_default();
    assert!(
        rule.contains("warning: `") && rule.contains("lies in the workspace"),
        "{rule}"
    );

    // A trusted dir in the workspace, and a bare entry naming the link.
    options.allowlist = vec!["tsx".into()];
    options.trusted_dirs.push(dist.clone());
    let analysis = analyze_command("tsx --version", &options);
    let why = analysis.reason.unwrap_or_default();
    assert!(!analysis.approved);
    assert!(
        why.contains("the bare entry `tsx` matches the names the program goes by in the trusted dirs (`cli.mjs`"),
        "{why}"
    );
    assert!(
        why.contains("warning: the trusted dir") && why.contains("lies in the workspace"),
        "{why}"
    );
    options.allowlist = vec!["cli.mjs".into()];
    let analysis = analyze_command("tsx --version", &options);
    assert!(analysis.approved, "{:?}", analysis.reason);
    let rule = analysis.segments[0].reason.clone().unwrap_or_default();
    assert!(rule.contains("warning: the trusted dir"), "{rule}");

    // A program outside the workspace keeps the advice.
    let outside = sandbox.dir("tools");
    sandbox.exe("tools/mytool");
    options.path = Some(format!("{}:{}", outside.display(), bin.display()));
    let why = analyze_command("mytool", &options)
        .reason
        .unwrap_or_default();
    assert!(why.contains("to the allowlist, or"), "{why}");
}
