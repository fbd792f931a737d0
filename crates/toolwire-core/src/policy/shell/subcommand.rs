//! Where a program's subcommand stands: its first word that is no option, unless an option
//! before it may take that word as its value (`uv --directory x run cmd`: `x` may be the value,
//! so `run` may be the subcommand). Read without knowing the program's options, so every word
//! that may be the subcommand is a candidate, and none after the first that surely is.

/// The words of `args` (before `--`) that may be the subcommand, with their index: each word
/// that is no option (nor a `+toolchain`) and follows an option that may take it as its value (an option without
/// `=`), up to and including the first word that follows no such option (that one surely is
/// the subcommand, or an operand). Linear in the arguments.
pub fn candidates(args: &[String]) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    let mut after_option = false;
    for (index, arg) in args.iter().enumerate() {
        if arg == "--" {
            break;
        }
        if arg.len() > 1 && arg.starts_with('-') {
            after_option = !arg.contains('=');
            continue;
        }
        // A toolchain before the subcommand (`rustup +stable run`, `cargo +nightly build`).
        if arg.len() > 1 && arg.starts_with('+') {
            after_option = false;
            continue;
        }
        out.push((index, arg.as_str()));
        if !after_option {
            break;
        }
        after_option = false;
    }
    out
}

/// The index of the subcommand path `path` (`["run"]`, `["tasks", "run"]`) in `args`: each of
/// its words a [candidate](candidates) of the arguments after the previous one. Returns the
/// index of its last word.
pub fn find_path(args: &[String], path: &[&str]) -> Option<usize> {
    let mut start = 0;
    let mut last = None;
    for word in path {
        let rest = args.get(start..)?;
        let (at, _) = candidates(rest).into_iter().find(|(_, w)| w == word)?;
        last = Some(start + at);
        start += at + 1;
    }
    last
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::shell::tests::argv;

    #[test]
    fn candidates_stop_at_the_first_sure_subcommand() {
        let cases: &[(&str, &[&str])] = &[
            ("run x", &["run"]),
            ("pip install run", &["pip"]),
            ("show run", &["show"]),
            ("--directory x run cmd", &["x", "run"]),
            ("--directory=x run cmd", &["run"]),
            ("-q run", &["run"]),
            ("-C dir -v tasks run", &["dir", "tasks", "run"]),
            ("-C dir tasks run", &["dir", "tasks"]),
            ("-- run", &[]),
            ("", &[]),
            ("- run", &["-"]),
            ("+stable run", &["run"]),
        ];
        for (args, want) in cases {
            let args = argv(args);
            let got: Vec<&str> = candidates(&args).into_iter().map(|(_, w)| w).collect();
            assert_eq!(&got, want, "{args:?}");
        }
        let paths: &[(&str, &[&str], Option<usize>)] = &[
            ("tasks run build", &["tasks", "run"], Some(1)),
            ("tasks ls run", &["tasks", "run"], None),
            ("-C d tasks --verbose run", &["tasks", "run"], Some(4)),
            ("run", &["tasks", "run"], None),
            ("pip install run", &["run"], None),
        ];
        for (args, path, want) in paths {
            assert_eq!(find_path(&argv(args), path), *want, "{args} {path:?}");
        }
    }
}
