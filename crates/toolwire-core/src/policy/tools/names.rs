//! Tool names, aliases, the built-in groups and profiles, and the `*` glob matcher.

/// Aliases of tool names, lowercase, mapped to the canonical name.
pub const TOOL_ALIASES: &[(&str, &str)] = &[("bash", "exec"), ("apply-patch", "apply_patch")];

/// The built-in groups, referenced as `group:<name>`; `group:plugins` is dynamic (the tools
/// registered by plugins) and listed here with no members.
pub const BUILTIN_GROUPS: &[(&str, &[&str])] = &[
    ("fs", &["read", "write", "edit", "apply_patch"]),
    ("runtime", &["exec", "process"]),
    ("web", &["web_search", "web_fetch"]),
    ("memory", &["memory_search", "memory_get"]),
    (
        "sessions",
        &[
            "sessions_list",
            "sessions_history",
            "sessions_send",
            "sessions_spawn",
            "session_status",
        ],
    ),
    ("ui", &["browser", "canvas"]),
    ("automation", &["cron", "gateway"]),
    ("messaging", &["message"]),
    ("nodes", &["nodes"]),
    (PLUGINS_GROUP, &[]),
];

/// The built-in profiles and the patterns they allow; `full` (no list) allows everything.
pub const BUILTIN_PROFILES: &[(&str, Option<&[&str]>)] = &[
    ("minimal", Some(&["session_status"])),
    (
        "coding",
        Some(&[
            "group:fs",
            "group:runtime",
            "group:sessions",
            "group:memory",
            "image",
        ]),
    ),
    (
        "messaging",
        Some(&["group:messaging", "sessions_list", "sessions_history"]),
    ),
    ("full", None),
];

/// The name of the dynamic group of plugin tools.
pub(super) const PLUGINS_GROUP: &str = "plugins";

/// The prefix of a group reference in a pattern.
pub(super) const GROUP_PREFIX: &str = "group:";

/// The canonical form of a tool name: trimmed, lowercased, aliases resolved
/// (`Bash` -> `exec`, `apply-patch` -> `apply_patch`).
pub fn canonical_tool_name(name: &str) -> String {
    let lower = name.trim().to_lowercase();
    match TOOL_ALIASES.iter().find(|(alias, _)| *alias == lower) {
        Some((_, canonical)) => (*canonical).to_string(),
        None => lower,
    }
}

/// The members of a built-in group, by bare lowercase name.
pub(super) fn builtin_group(name: &str) -> Option<&'static [&'static str]> {
    BUILTIN_GROUPS
        .iter()
        .find(|(group, _)| *group == name)
        .map(|(_, members)| *members)
}

/// The allow list of a built-in profile (`Some(None)` for `full`).
pub(super) fn builtin_profile(name: &str) -> Option<Option<&'static [&'static str]>> {
    BUILTIN_PROFILES
        .iter()
        .find(|(profile, _)| *profile == name)
        .map(|(_, allow)| *allow)
}

/// A `*` glob, compiled into its literal segments; matching is linear in the text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Glob {
    /// The pieces between the stars, in order (the first and last may be empty).
    segments: Vec<String>,
}

impl Glob {
    /// Compiles a pattern containing at least one `*` (lowercase already).
    pub(super) fn new(pattern: &str) -> Glob {
        Glob {
            segments: pattern.split('*').map(str::to_string).collect(),
        }
    }

    /// Whether the whole text matches: the first segment is a prefix, the last a suffix, and
    /// the middle ones occur in order in between (leftmost occurrences, which is optimal).
    pub(super) fn matches(&self, text: &str) -> bool {
        let Some((first, rest)) = self.segments.split_first() else {
            return text.is_empty();
        };
        let Some((last, middle)) = rest.split_last() else {
            return text == first;
        };
        if text.len() < first.len() + last.len()
            || !text.starts_with(first.as_str())
            || !text.ends_with(last.as_str())
        {
            return false;
        }
        let mut window = &text[first.len()..text.len() - last.len()];
        for segment in middle {
            match window.find(segment.as_str()) {
                Some(at) => window = &window[at + segment.len()..],
                None => return false,
            }
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canonical_names() {
        for (name, expected) in [
            ("exec", "exec"),
            ("Bash", "exec"),
            ("BASH", "exec"),
            ("apply-patch", "apply_patch"),
            ("Apply-Patch", "apply_patch"),
            ("Read", "read"),
            (" web_fetch ", "web_fetch"),
        ] {
            assert_eq!(canonical_tool_name(name), expected, "{name}");
        }
    }

    #[test]
    fn globs() {
        for (pattern, text, expected) in [
            ("exec*", "exec", true),
            ("exec*", "executor", true),
            ("exec*", "xexec", false),
            ("*_get", "memory_get", true),
            ("*_get", "memory_gets", false),
            ("*", "", true),
            ("*", "anything", true),
            ("web_*", "web_search", true),
            ("s*s*s", "sessions", true),
            ("s*s*s", "ss", false),
            ("a*b*c", "abc", true),
            ("a*b*c", "acb", false),
            ("ab*ba", "aba", false),
            ("**", "x", true),
            ("*mem*", "memory_search", true),
        ] {
            assert_eq!(
                Glob::new(pattern).matches(text),
                expected,
                "{pattern} ~ {text}"
            );
        }
    }

    #[test]
    fn aliases_are_exactly_bash_and_apply_patch() {
        assert_eq!(
            TOOL_ALIASES,
            &[("bash", "exec"), ("apply-patch", "apply_patch")]
        );
    }

    #[test]
    fn builtin_tables() {
        assert_eq!(builtin_group("runtime"), Some(&["exec", "process"][..]));
        assert_eq!(builtin_group("plugins"), Some(&[][..]));
        assert_eq!(builtin_group("nope"), None);
        assert_eq!(builtin_profile("full"), Some(None));
        assert_eq!(
            builtin_profile("minimal"),
            Some(Some(&["session_status"][..]))
        );
    }
}
