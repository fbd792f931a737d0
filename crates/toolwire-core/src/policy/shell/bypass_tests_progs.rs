//! The last attack on programs other than git (issue 19, section 4, findings 5 to 9): pip's
//! global options that run code (5), Node package managers known by their installed file
//! names (6), client programs pointed at a configuration that runs code (8) and programs with
//! an `exec`-style subcommand or that run the command given (9). Finding 7 (a working
//! directory or environment one level down in an exec call) is in
//! [`workdir::unread_settings`](super::workdir::unread_settings) and the approvals store.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::{Command, Stdio};

use super::tests::Sandbox;
use super::*;

/// Lines of allowlisted programs (fake ones, in a trusted dir) and whether they are approved.
const PROGRAM_LINES: &[(&str, bool)] = &[
    // 5: pip re-runs under the interpreter `--python` names, in any subcommand and spelling.
    ("pip --python ./evil list", false),
    ("pip install --python=./evil requests", false),
    ("pip --pyth ./evil freeze", false),
    ("pip3 --python=./evil list", false),
    ("pip --cache-dir ./c install requests", false),
    ("pip --keyring-provider subprocess install requests", false),
    ("pip list", true),
    ("pip install requests", true),
    // 9: `ip` runs a command with `netns exec`, `vrf exec` and through `-batch`.
    ("ip netns exec ns1 sh -c 'touch x'", false),
    ("ip -all netns exec id", false),
    ("ip vrf exec blue id", false),
    ("ip netns e ns1 id", false),
    ("ip -batch cmds", false),
    ("ip addr", true),
    ("ip -br link", true),
    ("ip netns add ns1", true),
    // 9: programs that run the command they are given.
    ("flatpak run org.x.App", false),
    ("toolbox run id", false),
    ("distrobox enter box -- id", false),
    ("xinit ./evil", false),
    ("tini -- ./evil", false),
    ("dumb-init ./evil", false),
    ("mpirun -n 1 ./evil", false),
    ("apptainer exec img.sif id", false),
    ("corepack yarn build", false),
    ("corepack npm@10.0.0 test", false),
    // 8 and 9: clients' code-running subcommands and configurations.
    ("docker --config ./cfg ps", false),
    ("docker run alpine id", false),
    ("docker exec web id", false),
    ("docker ps -a", true),
    ("kubectl --kubeconfig ./kc get pods", false),
    ("kubectl exec web -- id", false),
    ("kubectl kc-plugin", false),
    ("kubectl get pods -n default", true),
    ("helm --kubeconfig ./kc list", false),
    ("helm list", true),
    ("terraform -chdir=sub plan", false),
    ("terraform plan", false),
    ("terraform version", true),
    (
        "aws configure set profile.x.credential_process ./evil",
        false,
    ),
    ("aws s3 ls", true),
];

/// The programs [`PROGRAM_LINES`] allowlist.
const PROGRAMS: &[&str] = &[
    "pip",
    "pip3",
    "ip",
    "flatpak",
    "toolbox",
    "distrobox",
    "xinit",
    "tini",
    "dumb-init",
    "mpirun",
    "apptainer",
    "docker",
    "kubectl",
    "helm",
    "terraform",
    "aws",
];

#[test]
fn programs_other_than_git_run_no_code_of_the_callers_choosing() {
    let sandbox = Sandbox::new("progs-lines");
    let ws = sandbox.dir("ws");
    let options = sandbox.allowlisting(ws, PROGRAMS);
    for (line, want) in PROGRAM_LINES {
        let analysis = analyze_command(line, &options);
        let reason = analysis.reason.clone().unwrap_or_default();
        assert_eq!(analysis.approved, *want, "{line}: {reason}");
    }
}

/// 6: yarn installed by `npm i -g yarn` (also Debian's yarnpkg and corepack) runs the real
/// file `.../yarn/bin/yarn.js`: the line writing `.yarnrc` before `yarn why` was approved (seen
/// with yarn 1.22.22, confirmed by running it: the `yarn-path` script ran).
#[test]
fn node_package_managers_are_known_by_their_installed_files() {
    let sandbox = Sandbox::new("progs-node-installs");
    let ws = sandbox.dir("ws");
    let mut options = sandbox.allowlisting(ws, &["cp", "ls"]);
    let bin = sandbox.root.join("bin");
    for (typed, real) in [
        ("yarn", "lib/node_modules/yarn/bin/yarn.js"),
        ("yarnpkg", "share/nodejs/yarn/bin/yarn.js"),
        ("npm", "lib/node_modules/npm/bin/npm-cli.js"),
        ("pnpm", "lib/node_modules/pnpm/bin/pnpm.cjs"),
    ] {
        let dir = sandbox.dir(Path::new(real).parent().unwrap().to_str().unwrap());
        let file = sandbox.exe(real);
        sandbox.link(&format!("bin/{typed}"), &file);
        options.trusted_dirs.push(dir);
        options.allowlist.push(file.display().to_string());
    }
    options.trusted_dirs.push(bin);
    let cases: &[(&str, bool)] = &[
        ("cp pr/yarnrc .yarnrc && yarn why react", false),
        ("cp pr/yarnrc .yarnrc.yml; yarnpkg why react", false),
        ("cp x .npmrc && npm ls", false),
        ("cp x .npmrc && pnpm ls", false),
        ("yarn build", false),
        ("yarnpkg build", false),
        ("npm test", false),
        ("pnpm exec id", false),
        // Controls.
        ("yarn why react", true),
        ("ls && yarn why react", true),
        ("npm ls && pnpm list", true),
    ];
    for (line, want) in cases {
        let analysis = analyze_command(line, &options);
        let reason = analysis.reason.clone().unwrap_or_default();
        assert_eq!(analysis.approved, *want, "{line}: {reason}");
    }
}

/// 5, run for real: pip (>= 22.3) runs the program `--python` names; `pip list` alone runs no
/// workspace program. Skipped where no Python with pip is installed.
#[test]
fn pip_python_runs_the_program_it_names_for_real() {
    let python = ["/usr/bin/python3", "/root/.pyenv/shims/python3"]
        .into_iter()
        .find(|p| {
            Command::new(p)
                .args([
                    "-c",
                    "import pip; assert int(pip.__version__.split('.')[0]) >= 23",
                ])
                .stderr(Stdio::null())
                .status()
                .is_ok_and(|s| s.success())
        });
    let Some(python) = python else {
        eprintln!("skipped: no python3 with pip >= 23");
        return;
    };
    let sandbox = Sandbox::new("progs-pip-python");
    let ws = sandbox.dir("ws");
    let marker = sandbox.root.join("ran");
    let evil = ws.join("evil");
    std::fs::write(&evil, format!("#!/bin/sh\ntouch {}\n", marker.display())).unwrap();
    std::fs::set_permissions(&evil, std::fs::Permissions::from_mode(0o755)).unwrap();
    let run = |args: &[&str]| {
        let _ = std::fs::remove_file(&marker);
        let _ = Command::new(python)
            .args(["-m", "pip", "--disable-pip-version-check"])
            .args(args)
            .current_dir(&ws)
            .env("PIP_NO_INPUT", "1")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
        marker.exists()
    };
    assert!(
        run(&["--python", "./evil", "list"]),
        "pip --python ran nothing"
    );
    assert!(!run(&["list"]), "pip list ran the workspace program");
    let options = sandbox.allowlisting(ws, &["pip"]);
    assert!(!analyze_command("pip --python ./evil list", &options).approved);
    assert!(analyze_command("pip list", &options).approved);
}
