//! Whether an `allow-always` grant would write a secret to the approvals file.
//!
//! A command such as `curl -H 'Authorization: Bearer T' ...` is remembered as its exact text,
//! so remembering it would store the token in clear on disk. Storing it scrubbed is no answer
//! (`[redacted:bearer-token]` would be a pattern, allowing commands that were never approved),
//! and a hash would still make the file an oracle for guessing the token; so such a grant is not
//! remembered at all: the answer applies to that call only, and a warning says why.

use std::collections::BTreeSet;

use super::Grant;
use crate::secrets::SecretScanner;

/// The kinds of the secrets in what `grant` would write to the approvals file (a command's
/// text, a program's path, a tool's name), sorted, each once; empty when there are none.
pub fn grant_secret_kinds(grant: &Grant, scanner: &SecretScanner) -> Vec<String> {
    let texts: Vec<&str> = match grant {
        Grant::Tool(tool) => vec![tool],
        Grant::Executables { tool, paths } => std::iter::once(tool.as_str())
            .chain(paths.iter().map(String::as_str))
            .collect(),
        Grant::Command { tool, text } => vec![tool, text],
    };
    let kinds: BTreeSet<String> = texts
        .into_iter()
        .flat_map(|text| scanner.find(text))
        .map(|secret| secret.kind.to_string())
        .collect();
    kinds.into_iter().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grants_holding_a_secret_are_named_by_its_kinds() {
        let scanner = SecretScanner::new(&[]).unwrap();
        let command = |text: &str| Grant::Command {
            tool: "exec".into(),
            text: text.into(),
        };
        let cases: Vec<(Grant, &[&str])> = vec![
            (
                command("curl -H 'Authorization: Bearer abcdefgh12345678' https://x"),
                &["bearer-token"],
            ),
            (
                command("git clone https://admin:pw9@x.example/r"),
                &["url-password"],
            ),
            (
                command(&format!("gh auth --with-token ghp_{}", "a1".repeat(18))),
                &["github-token"],
            ),
            (
                Grant::Executables {
                    tool: "exec".into(),
                    paths: vec![format!("/tmp/ghp_{}/run", "a1".repeat(18))],
                },
                &["github-token"],
            ),
            (command("git status"), &[]),
            (Grant::Tool("write".into()), &[]),
            (
                Grant::Executables {
                    tool: "exec".into(),
                    paths: vec!["/usr/bin/git".into()],
                },
                &[],
            ),
        ];
        for (grant, kinds) in cases {
            assert_eq!(grant_secret_kinds(&grant, &scanner), *kinds, "{grant:?}");
        }
    }
}
