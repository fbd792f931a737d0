//! Secrets split across the text blocks of one result.
//!
//! Each block is scrubbed on its own, but the model reads a result's text blocks together: the
//! OpenAI and Mistral encoders join them with `"\n"` into one message, Responses and Gemini do
//! the same when there are no images, and Anthropic sends the blocks side by side, which a model
//! reads as one text. A token cut in two (`ghp_abc` | `def...`), a header in one block and its
//! token in the next, or a private key's BEGIN line, body and END line in three blocks each
//! pass a block's scan and reach the model whole. So the non-empty text blocks (images skipped,
//! as the encoders skip them) are searched again joined both ways, with `"\n"` and with nothing
//! between them. The blocks are scrubbed already, so whatever is found there is new: a secret
//! that reaches over from one block into another is replaced in every block it touches
//! (`[redacted:<kind>]` in each), one that its neighbour makes recognizable in its own block.
//! Two more searches of the result's text, only when it has two text blocks or more.
//!
//! A secret whose part in one block is already a whole match on its own (52 characters of an
//! Anthropic key, a Slack token's head) was replaced in that block before the blocks are read
//! together, and its label would hide it from the joined search. So the joined search reads a
//! label that ends a block as token characters (what it replaced was one), and every kind is
//! matched through it into the next block: a URL whose password starts with a GitHub token is
//! replaced up to its `@`, not only as far as the token's characters go. The parts that both
//! joins and every kind find in a block are replaced as their union (one label where they
//! overlap, named by the earlier; each secret counted once). Then a secret that reaches the end
//! of its block (its label ends the block) goes on through the token characters that start the
//! next block, as the blocks read side by side: those characters are replaced by the same label.
//! (The other way is not needed: a token that matches alone where a block starts begins there,
//! its vendor prefix or header is its left edge.)

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::sync::Arc;

use crate::secrets::{redaction_label, SecretScanner};

/// How the blocks are joined when searched: as the OpenAI-style encoders join them, and as a
/// reader of blocks side by side sees them.
const JOINERS: [&str; 2] = ["\n", ""];

/// Replaces, in the texts of `blocks` (each already scrubbed on its own), every secret of their
/// joined text: one that reaches over from one block into another is replaced in every block it
/// touches, one that a block's neighbour makes recognizable (a header name at the end of the
/// block before) in its block. Counts each once per kind into `counts`. `blocks` are the
/// non-empty text blocks in order.
pub fn scrub_across_blocks(
    blocks: &mut [&mut String],
    scanner: &SecretScanner,
    counts: &mut BTreeMap<String, u64>,
) {
    if blocks.len() < 2 {
        return;
    }
    // Where each block's closing label starts: read as token characters by the joined search.
    let labels: Vec<Option<usize>> = blocks
        .iter()
        .map(|block| label_at_end(block).map(|label| block.len() - label.len()))
        .collect();
    let read: Vec<Cow<'_, str>> = blocks
        .iter()
        .zip(&labels)
        .map(|(block, label)| match label {
            Some(at) => Cow::Owned(format!(
                "{}{}",
                &block[..*at],
                STAND_IN.repeat(block.len() - at)
            )),
            None => Cow::Borrowed(block.as_str()),
        })
        .collect();
    // Per block: the parts of secrets to replace, from both joins (each join's in order).
    let mut parts: Vec<Vec<Part>> = vec![Vec::new(); blocks.len()];
    for joiner in JOINERS {
        let first_join: Vec<usize> = parts.iter().map(Vec::len).collect();
        let (joined, starts) = join(read.iter().map(|text| &**text), joiner);
        let mut block = 0;
        for secret in scanner.find(&joined) {
            while block + 1 < starts.len() && starts[block + 1] <= secret.start {
                block += 1;
            }
            let mut last = block;
            while last + 1 < starts.len() && starts[last + 1] < secret.end {
                last += 1;
            }
            let (mut covered, mut new) = (false, true);
            for (index, &start) in starts.iter().enumerate().take(last + 1).skip(block) {
                let end = start + blocks[index].len();
                let from = secret.start.max(start) - start;
                // What it covers of a closing label is replaced already.
                let to = labels[index].map_or(end - start, |label| label.min(end - start));
                let to = to.min(secret.end.min(end) - start);
                if from < to {
                    covered = true;
                    new &= !parts[index][..first_join[index]]
                        .iter()
                        .any(|part| part.0 < to && from < part.1);
                    parts[index].push((from, to, Arc::clone(&secret.kind)));
                }
            }
            // A secret both joins find is counted once.
            if covered && new {
                *counts.entry(secret.kind.to_string()).or_default() += 1;
            }
        }
    }
    for (text, mut parts) in blocks.iter_mut().zip(parts) {
        if parts.is_empty() {
            continue;
        }
        parts.sort_by_key(|part| part.0);
        let mut replaced = String::with_capacity(text.len());
        let mut copied = 0;
        for (from, to, kind) in parts {
            // The union of overlapping parts: one label, named by the earlier.
            if to <= copied {
                continue;
            }
            if from >= copied {
                replaced.push_str(&text[copied..from]);
                replaced.push_str(&redaction_label(&kind));
            }
            copied = to;
        }
        replaced.push_str(&text[copied..]);
        **text = replaced;
    }
    extend_labels_across(blocks);
}

/// What the joined search reads in place of each byte of a block's closing label: a token
/// character, so a secret whose head the label replaced is still read through to its end in the
/// next block by every kind (a URL's password beyond the GitHub token it starts with).
const STAND_IN: &str = "x";

/// A part of a secret in one block: its byte range there and its kind.
type Part = (usize, usize, Arc<str>);

/// The characters a token is spelled with (letters, digits, `_-+/=.~%`): what a secret that
/// reaches a block's edge goes on through in the block beside it.
fn is_token_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || "_-+/=.~%".contains(c)
}

/// The label `text` ends with, if it ends with one (`[redacted:<kind>]`).
fn label_at_end(text: &str) -> Option<&str> {
    let open = text.rfind("[redacted:")?;
    let label = &text[open..];
    is_label(label).then_some(label)
}

/// Whether `text` is one label: `[redacted:` a kind name `]`.
fn is_label(text: &str) -> bool {
    text.strip_prefix("[redacted:")
        .and_then(|rest| rest.strip_suffix(']'))
        .is_some_and(|kind| {
            !kind.is_empty()
                && kind
                    .bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        })
}

/// Replaces the token characters that continue a secret over a block's edge (see the module's
/// doc): from a block ending in a label, the token characters starting the next block. Linear:
/// each block's run is found once.
fn extend_labels_across(blocks: &mut [&mut String]) {
    for index in 1..blocks.len() {
        let Some(label) = label_at_end(blocks[index - 1]).map(str::to_owned) else {
            continue;
        };
        let text = &mut *blocks[index];
        let run = text.find(|c| !is_token_char(c)).unwrap_or(text.len());
        if run > 0 {
            text.replace_range(..run, &label);
        }
    }
}

/// Whether the joined text of `texts` (the non-empty text blocks of a result, in order, each
/// clean on its own) holds a secret, joined either way.
pub fn holds_secret_across(texts: &[&str], scanner: &SecretScanner) -> bool {
    texts.len() >= 2
        && JOINERS.iter().any(|joiner| {
            let (joined, _) = join(texts.iter().copied(), joiner);
            !scanner.find(&joined).is_empty()
        })
}

/// `texts` joined with `joiner`, and where each starts in the joined text.
fn join<'t>(texts: impl Iterator<Item = &'t str>, joiner: &str) -> (String, Vec<usize>) {
    let mut joined = String::new();
    let mut starts = Vec::new();
    for (index, text) in texts.enumerate() {
        if index > 0 {
            joined.push_str(joiner);
        }
        starts.push(joined.len());
        joined.push_str(text);
    }
    (joined, starts)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scrubbed(blocks: &[&str]) -> (Vec<String>, BTreeMap<String, u64>) {
        let scanner = SecretScanner::new(&[]).unwrap();
        let mut texts: Vec<String> = blocks.iter().map(|b| b.to_string()).collect();
        let mut counts = BTreeMap::new();
        let mut refs: Vec<&mut String> = texts.iter_mut().collect();
        scrub_across_blocks(&mut refs, &scanner, &mut counts);
        (texts, counts)
    }

    /// Each block scrubbed on its own first, as the sanitizer does, then across the blocks.
    fn scrubbed_alone_then_across(blocks: &[String]) -> (Vec<String>, BTreeMap<String, u64>) {
        let scanner = SecretScanner::new(&[]).unwrap();
        let mut counts = BTreeMap::new();
        let mut texts: Vec<String> = blocks
            .iter()
            .map(|block| scanner.scrub(block, &mut counts).into_owned())
            .collect();
        let mut refs: Vec<&mut String> = texts.iter_mut().collect();
        scrub_across_blocks(&mut refs, &scanner, &mut counts);
        (texts, counts)
    }

    /// (blocks, the material that must not survive in any block, the kind).
    #[test]
    fn a_secret_split_across_blocks_is_replaced_in_every_block_it_touches() {
        let token = "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8";
        let body = "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7VJTUt9Us8cKj";
        let cases: Vec<(Vec<String>, &str, &str)> = vec![
            // A token cut in two: joined with nothing it is whole.
            (
                vec![
                    format!("see ghp_{}", &token[..10]),
                    format!("{} done", &token[10..]),
                ],
                &token[10..],
                "github-token",
            ),
            // The header in one block, the token alone in the next.
            (
                vec!["Authorization: Bearer ".into(), format!("{token}\nok")],
                token,
                "bearer-token",
            ),
            // A private key's BEGIN line, body and END line in three blocks.
            (
                vec![
                    "-----BEGIN PRIVATE KEY-----".into(),
                    body.into(),
                    "-----END PRIVATE KEY-----".into(),
                ],
                body,
                "private-key",
            ),
            // A URL's password cut in two.
            (
                vec![
                    "postgres://app:s3cr3t-pa".into(),
                    "ss@db.internal/app".into(),
                ],
                "s3cr3t-pa",
                "url-password",
            ),
        ];
        for (blocks, material, kind) in cases {
            let refs: Vec<&str> = blocks.iter().map(String::as_str).collect();
            let (texts, counts) = scrubbed(&refs);
            for text in &texts {
                assert!(!text.contains(material), "{blocks:?} -> {texts:?}");
            }
            assert!(
                texts
                    .iter()
                    .any(|t| t.contains(&format!("[redacted:{kind}]"))),
                "{blocks:?} -> {texts:?}"
            );
            assert!(counts.contains_key(kind), "{blocks:?} -> {counts:?}");
            for joiner in JOINERS {
                let joined = texts.join(joiner);
                assert!(!joined.contains(material), "{joined:?}");
            }
            let before: Vec<&str> = blocks.iter().map(String::as_str).collect();
            assert!(holds_secret_across(
                &before,
                &SecretScanner::new(&[]).unwrap()
            ));
            let after: Vec<&str> = texts.iter().map(String::as_str).collect();
            assert!(!holds_secret_across(
                &after,
                &SecretScanner::new(&[]).unwrap()
            ));
        }
    }

    /// The attack review's 11: the first block's part of a secret is a whole match on its own,
    /// so that block was replaced alone and the rest of the token in the next block stayed.
    /// (blocks, material that must not survive, the kind).
    #[test]
    fn a_secret_matched_whole_in_one_block_is_replaced_into_the_next() {
        let ant = format!(
            "sk-ant-api03-{}AA",
            "Ab1_Cd2-Ef3Gh4Ij5Kl6Mn7Op8Qr9St0Uv1Wx2Yz3Ab4Cd5Ef6Gh7Ij8Kl9Mn0Op1Qr2St3Uv4Wx5Yz6Ab7Cd8Ef9Gh0Ij"
        );
        let slack = "xoxb-1234567890-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx";
        let github = format!("ghp_{}", "a1B2c3D4e5".repeat(5));
        let cases: Vec<(Vec<String>, String, &str)> = vec![
            (
                vec![
                    format!("stdout: {}", &ant[..54]),
                    format!("{}\n", &ant[54..]),
                ],
                ant[54..].to_string(),
                "anthropic-key",
            ),
            (
                vec![
                    format!("stdout: {}", &slack[..27]),
                    format!("{}\n", &slack[27..]),
                ],
                slack[27..].to_string(),
                "slack-token",
            ),
            // Cut into three: the middle block is all token.
            (
                vec![
                    format!("t={}", &github[..42]),
                    github[42..48].to_string(),
                    format!("{} end", &github[48..]),
                ],
                github[40..].to_string(),
                "github-token",
            ),
        ];
        for (blocks, material, kind) in cases {
            let (texts, _) = scrubbed_alone_then_across(&blocks);
            for joiner in JOINERS {
                let joined = texts.join(joiner);
                assert!(!joined.contains(&material), "{blocks:?} -> {texts:?}");
            }
            assert!(
                texts.join("").contains(&format!("[redacted:{kind}]")),
                "{texts:?}"
            );
        }
        // Words after a label with a space between stay, and so do those before one.
        let blocks = [
            "key [redacted:github-token]",
            " done",
            "MY_TOKEN_",
            "[redacted:jwt] ok",
        ];
        assert_eq!(scrubbed(&blocks).0, blocks);
    }

    #[test]
    fn scrubbed_and_clean_blocks_are_left_alone() {
        let blocks = ["line one", "[redacted:github-token] ", "ghp_short", "end"];
        let (texts, counts) = scrubbed(&blocks);
        assert_eq!(texts, blocks);
        assert!(counts.is_empty());
        let (texts, _) = scrubbed(&["only one block Authorization: Bearer "]);
        assert_eq!(texts, ["only one block Authorization: Bearer "]);
    }

    /// Two secrets of different kinds over one block boundary: a URL's password that starts
    /// with a GitHub token, cut inside the password. The first block's token is replaced alone
    /// (its label ends the block); the password goes on past the token's characters (`!`, `$`)
    /// to its `@`, and all of it is replaced, whichever join and kind found each part.
    #[test]
    fn overlapping_secrets_over_a_boundary_are_replaced_as_their_union() {
        let github = format!("ghp_{}", "a1B2c3D4e5".repeat(4));
        let cases: Vec<(Vec<String>, &str)> = vec![
            (
                vec![format!("postgres://app:{github}"), "Xy!pw$9@db/app".into()],
                "Xy!pw$9",
            ),
            (
                vec![format!("postgres://app:{github}"), "!pw$9@db/app".into()],
                "!pw$9",
            ),
            (
                vec![
                    format!("url https://u:{github}"),
                    "Zz".into(),
                    "(x)*y@host/".into(),
                ],
                "(x)*y",
            ),
        ];
        for (blocks, material) in cases {
            let (texts, counts) = scrubbed_alone_then_across(&blocks);
            for joiner in JOINERS {
                let joined = texts.join(joiner);
                assert!(!joined.contains(material), "{blocks:?} -> {texts:?}");
                assert!(!joined.contains("a1B2c3"), "{blocks:?} -> {texts:?}");
                assert!(joined.contains("@"), "{blocks:?} -> {texts:?}");
            }
            assert!(
                texts.join("").contains("[redacted:url-password]"),
                "{texts:?}"
            );
            assert_eq!(counts.get("url-password"), Some(&1), "{counts:?}");
        }
    }
}
