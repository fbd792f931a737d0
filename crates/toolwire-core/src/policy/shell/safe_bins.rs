//! Safe bins: stream filters allowed without an allowlist entry, with only the arguments of
//! their profile and never a file argument.

/// The default safe bins.
pub const DEFAULT_SAFE_BINS: &[&str] = &["cut", "uniq", "head", "tail", "tr", "wc"];

fn is_count(value: &str, signed: bool) -> bool {
    let digits = if signed {
        value.strip_prefix(['+', '-']).unwrap_or(value)
    } else {
        value
    };
    !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())
}

fn is_list(value: &str) -> bool {
    !value.is_empty()
        && value
            .bytes()
            .all(|b| b.is_ascii_digit() || b == b',' || b == b'-')
}

fn is_one_char(value: &str) -> bool {
    value.chars().count() == 1
}

fn refuse(bin: &str, arg: &str) -> String {
    if arg.starts_with('-') && arg.len() > 1 {
        format!("safe bin `{bin}`: argument `{arg}` is not in its profile")
    } else {
        format!("safe bin `{bin}`: file argument `{arg}` is not allowed")
    }
}

/// An option that takes a value: `-x VALUE` or `-xVALUE`.
/// Returns how many arguments it used, or `None` when `arg` is not `-x`.
fn valued(
    args: &[String],
    i: usize,
    flag: &str,
    valid: impl Fn(&str) -> bool,
) -> Option<Result<usize, ()>> {
    let arg = args[i].as_str();
    if arg == flag {
        return Some(match args.get(i + 1) {
            Some(value) if valid(value) => Ok(2),
            _ => Err(()),
        });
    }
    arg.strip_prefix(flag)
        .map(|value| if valid(value) { Ok(1) } else { Err(()) })
}

/// Checks `args` (argv without argv[0]) against the profile of the safe bin `bin`; a bin
/// without a profile is allowed only without arguments.
pub fn check_profile(bin: &str, args: &[String]) -> Result<(), String> {
    match bin {
        "head" | "tail" => check_head_tail(bin, args),
        "cut" => check_options(
            bin,
            args,
            &["-s", "--complement", "-z"],
            &[
                ("-b", is_list),
                ("-c", is_list),
                ("-f", is_list),
                ("-d", is_one_char),
            ],
            &[("--output-delimiter=", |_| true)],
        ),
        "uniq" => check_options(
            bin,
            args,
            &["-c", "-d", "-u", "-i", "-z"],
            &[
                ("-f", |v| is_count(v, false)),
                ("-s", |v| is_count(v, false)),
                ("-w", |v| is_count(v, false)),
            ],
            &[],
        ),
        "wc" => check_options(bin, args, &["-c", "-m", "-l", "-w", "-L"], &[], &[]),
        "tr" => check_tr(args),
        _ => match args.first() {
            None => Ok(()),
            Some(arg) => Err(format!(
                "safe bin `{bin}` has no argument profile: `{arg}` is not allowed"
            )),
        },
    }
}

type Valid = fn(&str) -> bool;

/// A profile of exact flags, `-x VALUE` options and `--long=VALUE` options.
fn check_options(
    bin: &str,
    args: &[String],
    flags: &[&str],
    with_value: &[(&str, Valid)],
    long: &[(&str, Valid)],
) -> Result<(), String> {
    let mut i = 0;
    'args: while i < args.len() {
        let arg = args[i].as_str();
        if flags.contains(&arg) {
            i += 1;
            continue;
        }
        for (prefix, valid) in long {
            if let Some(value) = arg.strip_prefix(prefix) {
                if valid(value) {
                    i += 1;
                    continue 'args;
                }
                return Err(refuse(bin, arg));
            }
        }
        for (flag, valid) in with_value {
            match valued(args, i, flag, valid) {
                Some(Ok(used)) => {
                    i += used;
                    continue 'args;
                }
                Some(Err(())) => return Err(refuse(bin, arg)),
                None => {}
            }
        }
        return Err(refuse(bin, arg));
    }
    Ok(())
}

fn check_head_tail(bin: &str, args: &[String]) -> Result<(), String> {
    let signed = bin == "tail";
    let count = move |v: &str| is_count(v, signed);
    let mut i = 0;
    while i < args.len() {
        let arg = args[i].as_str();
        let used = if matches!(arg, "-q" | "-v" | "-z") {
            Some(Ok(1))
        } else if let Some(v) = arg
            .strip_prefix("--lines=")
            .or_else(|| arg.strip_prefix("--bytes="))
        {
            Some(if count(v) { Ok(1) } else { Err(()) })
        } else if arg.len() > 1 && arg.starts_with('-') && is_count(&arg[1..], false) {
            Some(Ok(1))
        } else {
            valued(args, i, "-n", count).or_else(|| valued(args, i, "-c", count))
        };
        match used {
            Some(Ok(n)) => i += n,
            _ => return Err(refuse(bin, arg)),
        }
    }
    Ok(())
}

fn check_tr(args: &[String]) -> Result<(), String> {
    let mut operands = 0;
    let mut options_done = false;
    for arg in args {
        let is_option = !options_done && arg.len() > 1 && arg.starts_with('-');
        if is_option && arg == "--" {
            options_done = true;
        } else if is_option {
            if !arg[1..]
                .chars()
                .all(|c| matches!(c, 'c' | 'C' | 'd' | 's' | 't'))
            {
                return Err(refuse("tr", arg));
            }
        } else {
            options_done = true;
            operands += 1;
            if operands > 2 {
                return Err(format!("safe bin `tr`: extra operand `{arg}`"));
            }
        }
    }
    if operands == 0 {
        return Err("safe bin `tr`: missing SET operand".to_string());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::shell::tests::argv;

    #[test]
    fn profiles_accept_and_refuse() {
        let cases: &[(&str, &str, bool)] = &[
            ("head", "", true),
            ("head", "-n 5", true),
            ("head", "-n5", true),
            ("head", "-5", true),
            ("head", "-c 10 -q", true),
            ("head", "--lines=3", true),
            ("head", "--bytes=x", false),
            ("head", "-n -5", false),
            ("head", "-n", false),
            ("head", "file.txt", false),
            ("head", "-n 5 file.txt", false),
            ("head", "--follow", false),
            ("tail", "-n +5", true),
            ("tail", "-n -5", true),
            ("tail", "-f", false),
            ("tail", "--lines=+2", true),
            ("cut", "-d , -f 1,3-4", true),
            ("cut", "-d: -f1", true),
            ("cut", "-d ab -f1", false),
            ("cut", "-f x", false),
            ("cut", "--complement -b 1-3 -s -z", true),
            ("cut", "--output-delimiter=| -f 1", true),
            ("cut", "-f 1 /etc/passwd", false),
            ("uniq", "-c -d -u -i -z", true),
            ("uniq", "-f 2 -s 3 -w 4", true),
            ("uniq", "-f x", false),
            ("uniq", "in out", false),
            ("wc", "-c -m -l -w -L", true),
            ("wc", "-l file", false),
            ("wc", "--files0-from=list", false),
            ("tr", "a-z A-Z", true),
            ("tr", "-d abc", true),
            ("tr", "-cd abc", true),
            ("tr", "-s x y", true),
            ("tr", "a b c", false),
            ("tr", "", false),
            ("tr", "-x a", false),
            ("sort", "", true),
            ("sort", "-o out", false),
        ];
        for (bin, args, want) in cases {
            let got = check_profile(bin, &argv(args));
            assert_eq!(got.is_ok(), *want, "{bin} {args}: {got:?}");
        }
    }

    #[test]
    fn refusals_name_the_argument() {
        let err = check_profile("head", &argv("-n 5 secret.txt")).unwrap_err();
        assert!(err.contains("file argument `secret.txt`"), "{err}");
        let err = check_profile("wc", &argv("--files0-from=x")).unwrap_err();
        assert!(
            err.contains("`--files0-from=x` is not in its profile"),
            "{err}"
        );
    }
}
