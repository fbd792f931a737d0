//! The bytes a kind's match can start with, read from its parsed pattern: at a hit of the
//! combined search, only the kinds that can start at that byte are tried (a text dense with
//! secrets has a hit at each of them, and each anchored search costs a regex call).

use regex_syntax::hir::{Class, Hir, HirKind};
use regex_syntax::utf8::Utf8Sequences;
use regex_syntax::ParserBuilder;

/// The set of bytes a non-empty match of a pattern can start with, and whether the pattern can
/// match the empty string (then it may match at any position, before any byte or none).
#[derive(Clone, Debug)]
pub(super) struct FirstBytes {
    bytes: [bool; 256],
    may_be_empty: bool,
}

impl FirstBytes {
    /// Every byte and the empty match: what a pattern that cannot be read is taken to allow.
    fn any() -> FirstBytes {
        FirstBytes {
            bytes: [true; 256],
            may_be_empty: true,
        }
    }

    /// The first bytes of `pattern` as the `regex` crate parses it (default flags). A pattern
    /// that does not parse allows anything (it is refused elsewhere).
    pub(super) fn of(pattern: &str) -> FirstBytes {
        let Ok(hir) = ParserBuilder::new().build().parse(pattern) else {
            return FirstBytes::any();
        };
        let mut first = FirstBytes {
            bytes: [false; 256],
            may_be_empty: false,
        };
        first.may_be_empty = first.add(&hir);
        if first.may_be_empty {
            first.bytes = [true; 256];
        }
        first
    }

    /// Whether a match can start at byte `at` of `text` (a char boundary, or the text's end).
    pub(super) fn may_start(&self, text: &str, at: usize) -> bool {
        self.may_be_empty
            || text
                .as_bytes()
                .get(at)
                .is_some_and(|&byte| self.bytes[byte as usize])
    }

    /// Adds the bytes a match of `hir` can start with; returns whether `hir` can match empty
    /// (then what follows it can start the match too). Zero-width assertions (`\b`, `^`) match
    /// empty: they only narrow where a match starts, never add a byte.
    fn add(&mut self, hir: &Hir) -> bool {
        match hir.kind() {
            HirKind::Empty | HirKind::Look(_) => true,
            HirKind::Literal(literal) => match literal.0.first() {
                Some(&byte) => {
                    self.bytes[byte as usize] = true;
                    false
                }
                None => true,
            },
            HirKind::Class(Class::Bytes(class)) => {
                for range in class.ranges() {
                    self.add_range(range.start(), range.end());
                }
                false
            }
            HirKind::Class(Class::Unicode(class)) => {
                for range in class.ranges() {
                    for sequence in Utf8Sequences::new(range.start(), range.end()) {
                        let lead = sequence.as_slice()[0];
                        self.add_range(lead.start, lead.end);
                    }
                }
                false
            }
            HirKind::Repetition(repetition) => {
                let sub_empty = self.add(&repetition.sub);
                repetition.min == 0 || sub_empty
            }
            HirKind::Capture(capture) => self.add(&capture.sub),
            HirKind::Concat(items) => items.iter().all(|item| self.add(item)),
            HirKind::Alternation(items) => items
                .iter()
                .fold(false, |empty, item| self.add(item) | empty),
        }
    }

    /// Adds the bytes `start..=end`.
    fn add_range(&mut self, start: u8, end: u8) {
        for byte in start..=end {
            self.bytes[byte as usize] = true;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_bytes_follow_the_pattern() {
        // (pattern, texts it may start in at 0, texts it may not)
        let cases: &[(&str, &[&str], &[&str])] = &[
            (r"ghp_[A-Za-z0-9]{36}", &["g"], &["G", "h", ""]),
            (r"(?i)bearer\s+", &["b", "B"], &["e", " "]),
            (r"\bsk-|AKIA", &["s", "A"], &["k", "a"]),
            (r"(?:x-)?api", &["x", "a"], &["-", "p"]),
            (r"\s*token", &[" ", "\t", "t", "\u{a0}"], &["o"]),
            (r"é+", &["é"], &["e"]),
            (r"[^a]", &["b", "é", "\n"], &["a"]),
            // Can match empty: anywhere, even at the end.
            (r"a*", &["b", ""], &[]),
            (r"\b", &["x", ""], &[]),
            (r"(", &["x", ""], &[]),
        ];
        for (pattern, starts, no_start) in cases {
            let first = FirstBytes::of(pattern);
            for text in *starts {
                assert!(first.may_start(text, 0), "{pattern:?} at {text:?}");
            }
            for text in *no_start {
                assert!(!first.may_start(text, 0), "{pattern:?} not at {text:?}");
            }
        }
    }

    /// Texts holding every built-in kind's shapes, whole and cut.
    const CORPUS: &[&str] = &[
        "export OPENAI_API_KEY=sk-proj-JdctHScAV15kbVuy2x5SBhJhNQv4VxG5XGSfs2eSUhK1G7n0\n\
         ANTHROPIC_API_KEY=\"sk-ant-api03-cn4FQkLiSPFojR3kmhPs69t0K5pEU7VEoVufPUEH5EIh3KPQRRbbVCDXs7PexVESbwQ\"\n\
         aws_access_key_id = AKIAJVFFDC5VYD2CKU56 aws_secret_access_key=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\n\
         git clone https://x-access-token:pw@github.com/acme/app (token ghp_Bn1h9uYORzqI7ZB5LypTAFTn7yBB4y4gaTft)\n\
         SLACK_BOT_TOKEN=xoxb-1234567890-UxT5IAFtnclWz9xTs9YrFN6c maps key: AIzannxBq3k3RWZPqWbpNlVtGtNsNSi7UPferTD\n\
         session: eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ1c2VyLSR7c30ifQ.3xQXzJTZm9SpXiBBeBsR7yNuC1PMXPOaBi0XZSTSGRp\n",
        "-----BEGIN PRIVATE KEY-----\nMoITYGFfAjaP4vJjMyxarAKKhiRwq13HexWl4Uz0ABbs8CW5xMvUnikQWAREotiw\n\
         -----END PRIVATE KEY-----\n-----END RSA PRIVATE KEY-----\nPrivate-Lines: 1\nAAAAgQDx\n",
        "> Authorization: Bearer fGLGGrqmI21ZHFaQgA1yQKWV571r4qdzmiH74g3P\nAuthorization: Basic dXNlcjpwYXNz\n\
         x-api-key: 0123456789abcdef0123 X-Acme-Token: abcdefabcdef0123456789\n\
         Cookie: sid=0123456789abcdef0123; theme=dark\nSet-Cookie: session=abcdef0123456789abcd; Path=/\n\
         {\"name\":\"sid\",\"value\":\"0123456789abcdef0123\"} \"auth\": \"dXNlcjpwYXNzd29yZA==\"\n\
         postgres://admin:pwwQocR6b6o724Xg@db.internal:5432/app password=hunter2hunter2 --password=s3cr3t!x\n\
         curl -u bob:pa55word https://x ?access_token=abcdef0123456789&key=abc123def456 client_secret: xyz789\n\
         AccountKey=abcdefghijklmnopqrstuvwxyz0123456789ABCD== token abcdef0123456789abcdef Bearer\nabcdef0123456789\n\
         sk_live_0123456789abcdefghijklmn whsec_0123456789abcdefghijklmnopqrstuv glpat-0123456789abcdefghij\n\
         npm_0123456789abcdefghijklmnopqrstuvwxyz hf_0123456789abcdefghijklmnopqrstuvwx SG.0123456789abcdefghijkl.0123456789abcdefghijklmnopqrstuvwxyz0123456\n\
         shpat_0123456789abcdef0123456789abcdef SK0123456789abcdef0123456789abcdef dop_v1_0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef\n\
         dp.pt.0123456789abcdefghijklmnopqrstuvwxyz0123456 LEGACY_TOKEN_ghp_Bn1h9uYORzqI7ZB5LypTAFTn7yBB4y4gaTft keyAKIAJVFFDC5VYD2CKU56\n\
         .example.com\tTRUE\t/\tTRUE\t0\tsid\t0123456789abcdef0123\n",
    ];

    /// Wherever a built-in kind matches in the corpus (whole, and every prefix of it: values
    /// cut anywhere), its first bytes allow it; and they leave most positions out, or the
    /// filter would save nothing.
    #[test]
    fn every_builtin_match_starts_at_one_of_its_first_bytes() {
        let kinds = &super::super::builtins().unwrap().kinds;
        let (mut matched, mut allowed, mut positions) = (0, 0, 0);
        for text in CORPUS {
            // The whole text at every position; cut texts near their cut.
            let cuts = (0..text.len()).step_by(13).chain([text.len()]);
            for cut in cuts.filter(|&cut| text.is_char_boundary(cut)) {
                let near = if cut == text.len() {
                    0
                } else {
                    cut.saturating_sub(64)
                };
                let text = &text[..cut];
                for at in (near..=cut).filter(|&at| text.is_char_boundary(at)) {
                    for kind in kinds {
                        positions += 1;
                        let may_start = kind.may_start_at(text, at);
                        allowed += usize::from(may_start);
                        if kind.match_at(text, at).is_some() {
                            matched += 1;
                            assert!(may_start, "{} matches at {at} of {text:?}", kind.name);
                        }
                    }
                }
            }
        }
        assert!(matched > 150, "the corpus holds {matched} matches");
        assert!(
            allowed * 2 < positions,
            "{allowed} of {positions} positions tried"
        );
    }
}
