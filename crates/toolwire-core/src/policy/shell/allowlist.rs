//! Allowlist entries: path globs matched against real paths, and bare names matched against
//! executables found in trusted directories.
//!
//! The glob matcher simulates the pattern as an automaton (a set of live positions), so it runs
//! in `O(pattern × path)` whatever the pattern: no backtracking.

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum GlobToken {
    Literal(char),
    /// `?`: one character other than `/`.
    AnyChar,
    /// `*`: any run of characters without `/`.
    Star,
    /// `**` not followed by `/`: any run of characters.
    DoubleStar,
    /// `**/`: nothing, or any run of characters ending in `/`.
    DoubleStarSlash,
}

fn compile(pattern: &str) -> Vec<GlobToken> {
    let chars: Vec<char> = pattern.chars().collect();
    let mut tokens = Vec::with_capacity(chars.len());
    let mut i = 0;
    while i < chars.len() {
        match chars[i] {
            '*' if chars.get(i + 1) == Some(&'*') => {
                let mut j = i + 2;
                while chars.get(j) == Some(&'*') {
                    j += 1;
                }
                if chars.get(j) == Some(&'/') {
                    tokens.push(GlobToken::DoubleStarSlash);
                    j += 1;
                } else {
                    tokens.push(GlobToken::DoubleStar);
                }
                i = j;
            }
            '*' => {
                tokens.push(GlobToken::Star);
                i += 1;
            }
            '?' => {
                tokens.push(GlobToken::AnyChar);
                i += 1;
            }
            c => {
                tokens.push(GlobToken::Literal(c));
                i += 1;
            }
        }
    }
    tokens
}

/// Adds the positions reachable without consuming a character (every star may match nothing).
fn close(tokens: &[GlobToken], live: &mut [bool]) {
    for i in 0..tokens.len() {
        if live[i]
            && matches!(
                tokens[i],
                GlobToken::Star | GlobToken::DoubleStar | GlobToken::DoubleStarSlash
            )
        {
            live[i + 1] = true;
        }
    }
}

/// Whether `path` matches the glob `pattern` (`*` within a segment, `**` across segments, `?`
/// one character other than `/`; everything else literal, case-sensitive).
pub fn glob_matches(pattern: &str, path: &str) -> bool {
    let tokens = compile(pattern);
    let n = tokens.len();
    let mut live = vec![false; n + 1];
    live[0] = true;
    close(&tokens, &mut live);
    let mut next = vec![false; n + 1];
    for ch in path.chars() {
        next.iter_mut().for_each(|b| *b = false);
        for i in 0..n {
            if !live[i] {
                continue;
            }
            match tokens[i] {
                GlobToken::Literal(c) if c == ch => next[i + 1] = true,
                GlobToken::Literal(_) => {}
                GlobToken::AnyChar if ch != '/' => next[i + 1] = true,
                GlobToken::AnyChar => {}
                GlobToken::Star if ch != '/' => next[i] = true,
                GlobToken::Star => {}
                GlobToken::DoubleStar => next[i] = true,
                GlobToken::DoubleStarSlash => {
                    next[i] = true;
                    if ch == '/' {
                        next[i + 1] = true;
                    }
                }
            }
        }
        close(&tokens, &mut next);
        std::mem::swap(&mut live, &mut next);
        if !live.iter().any(|b| *b) {
            return false;
        }
    }
    live[n]
}

/// The allowlist entry that admits an executable, if any.
///
/// An entry with `/` is a glob matched against `real_path`, the executable's real path; a bare
/// entry matches one of `trusted_names`, the names the executable goes by in the trusted dirs
/// ([`Executable::trusted_names`](super::resolve::Executable::trusted_names): empty when its
/// real file is outside them). The name it was typed as plays no part.
pub fn matching_entry<'a>(
    allowlist: &'a [String],
    real_path: &str,
    trusted_names: &[String],
) -> Option<&'a str> {
    allowlist
        .iter()
        .find(|entry| {
            if entry.contains('/') {
                glob_matches(entry, real_path)
            } else {
                trusted_names.iter().any(|name| name == *entry)
            }
        })
        .map(String::as_str)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs_match_as_documented() {
        let cases: &[(&str, &str, bool)] = &[
            ("/usr/bin/git", "/usr/bin/git", true),
            ("/usr/bin/git", "/usr/bin/gitk", false),
            ("/usr/bin/*", "/usr/bin/git", true),
            ("/usr/bin/*", "/usr/bin/sub/git", false),
            ("/usr/**", "/usr/bin/sub/git", true),
            ("/usr/**/git", "/usr/git", true),
            ("/usr/**/git", "/usr/a/b/c/git", true),
            ("/usr/**/git", "/usr/a/b/c/gitx", false),
            ("/usr/bin/g?t", "/usr/bin/git", true),
            ("/usr/bin/g?t", "/usr/bin/g/t", false),
            ("/usr/bin/G*", "/usr/bin/git", false),
            ("/opt/*/bin/*", "/opt/node/bin/node", true),
            ("/opt/*/bin/*", "/opt/node/x/bin/node", false),
            ("/a*b*c", "/aXbYc", true),
            ("/a*b*c", "/aXbY", false),
            ("", "", true),
            ("/x", "", false),
        ];
        for (pattern, path, want) in cases {
            assert_eq!(glob_matches(pattern, path), *want, "{pattern} vs {path}");
        }
    }

    #[test]
    fn pathological_globs_stay_fast() {
        let pattern = format!("{}b", "*a".repeat(200));
        let path = "a".repeat(4000);
        let started = std::time::Instant::now();
        assert!(!glob_matches(&pattern, &path));
        let pattern = format!("/{}x", "**/".repeat(100));
        let path = "/a".repeat(2000);
        assert!(!glob_matches(&pattern, &path));
        assert!(started.elapsed() < std::time::Duration::from_secs(2));
    }

    #[test]
    fn bare_names_match_trusted_names_only() {
        let list = vec!["git".to_string(), "/opt/tools/*".to_string()];
        let names = |list: &[&str]| list.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(
            matching_entry(&list, "/usr/bin/git", &names(&["git"])),
            Some("git")
        );
        // Outside the trusted dirs an executable has no trusted names.
        assert_eq!(matching_entry(&list, "/home/x/git", &[]), None);
        assert_eq!(
            matching_entry(&list, "/opt/tools/jq", &[]),
            Some("/opt/tools/*")
        );
        assert_eq!(
            matching_entry(&list, "/usr/bin/Git", &names(&["Git"])),
            None
        );
        // A trusted link's name counts like the real file's.
        assert_eq!(
            matching_entry(&list, "/usr/bin/git-2.4", &names(&["git-2.4", "git"])),
            Some("git")
        );
    }
}
