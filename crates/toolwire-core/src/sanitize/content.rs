//! A result's content sanitized for the model: text blocks kept within the result's budget
//! (shared by water-filling, the largest cut first), secrets scrubbed, images fitted, and
//! `MEDIA:` lines of trusted tools turned into images.

use std::borrow::Cow;

use serde_json::Value;

use super::images::{encode_base64, fit_base64_image, fit_image_bytes, FittedImage, ImageReport};
use super::joined::scrub_across_blocks;
use super::media::{expand_media, Piece};
use super::report::{CutScope, ImageEntry, SanitizeReport, Truncation};
use super::text::{keep_text, kept_again, BudgetUnit, Kept, TextSource};
use super::Sanitizer;
use crate::content::ContentBlock;
use crate::quote::bounded_to;
use crate::secrets::SecretScanner;

/// The most of an image's declared MIME type its report keeps, in bytes.
/// Replaces the secrets the model would see across the text blocks of `blocks` (see
/// [`scrub_across_blocks`]); a cut block's marker is found again where the text moved.
fn scrub_joined_text(
    blocks: &mut [SanitizedBlock],
    scanner: &SecretScanner,
    report: &mut SanitizeReport,
) {
    let mut texts: Vec<&mut String> = blocks
        .iter_mut()
        .filter_map(|block| match block {
            SanitizedBlock::Text(kept) if !kept.text.is_empty() => Some(&mut kept.text),
            _ => None,
        })
        .collect();
    if texts.len() < 2 {
        return;
    }
    let before: Vec<usize> = texts.iter().map(|text| text.len()).collect();
    scrub_across_blocks(&mut texts, scanner, &mut report.scrubbed);
    let changed: Vec<bool> = texts
        .iter()
        .zip(before)
        .map(|(text, len)| text.len() != len)
        .collect();
    let mut changed = changed.into_iter();
    for block in blocks.iter_mut() {
        if let SanitizedBlock::Text(kept) = block {
            if kept.text.is_empty() || !changed.next().unwrap_or(false) {
                continue;
            }
            if kept.cut.is_some() {
                let mut again = kept_again(std::mem::take(&mut kept.text));
                again.unit = kept.unit;
                again.ansi = kept.ansi;
                *kept = again;
            }
        }
    }
}

const MAX_DECLARED_MIME_BYTES: usize = 256;

/// One content block as given to the sanitizer.
#[derive(Clone, Copy, Debug)]
pub enum InputBlock<'a> {
    /// Text: a string, the two ends of a long string, or bytes.
    Text(TextSource<'a>),
    /// A base64 image.
    Image {
        /// Base64 data.
        data: &'a str,
        /// The declared MIME type.
        mime_type: &'a str,
    },
}

/// One content block as sanitized.
#[derive(Clone, Debug, PartialEq)]
pub enum SanitizedBlock {
    /// Text, with where it was cut.
    Text(Kept),
    /// An image that fits.
    Image {
        /// Base64 data.
        data: String,
        /// The sniffed MIME type.
        mime_type: String,
    },
}

impl SanitizedBlock {
    /// The block in the envelope's shape.
    pub fn into_content(self) -> ContentBlock {
        match self {
            SanitizedBlock::Text(kept) => ContentBlock::Text { text: kept.text },
            SanitizedBlock::Image { data, mime_type } => ContentBlock::Image { data, mime_type },
        }
    }
}

/// Smallest share of a budget one text gets when many share it.
pub const MIN_SHARE: u64 = 64;

/// The share of `budget` each size gets: `None` when they all fit; otherwise the largest are
/// cut first, all to one level, so that the total fits (no share below [`MIN_SHARE`]).
pub fn water_fill(sizes: &[u64], budget: u64) -> Option<Vec<u64>> {
    let total: u64 = sizes.iter().sum();
    if total <= budget {
        return None;
    }
    let mut sorted = sizes.to_vec();
    sorted.sort_unstable();
    let mut remaining = budget;
    let mut left = sorted.len() as u64;
    let mut level = 0;
    for size in sorted {
        let share = remaining / left;
        if size <= share {
            remaining -= size;
            left -= 1;
        } else {
            level = share;
            break;
        }
    }
    let level = level.max(MIN_SHARE);
    Some(sizes.iter().map(|&size| size.min(level)).collect())
}

impl Sanitizer {
    /// Sanitizes content blocks for the model, reporting what changed. `trusted_media`: the
    /// tool may turn `MEDIA:<path>` lines into images read from disk.
    pub fn content(
        &self,
        blocks: &[InputBlock<'_>],
        trusted_media: bool,
        report: &mut SanitizeReport,
    ) -> Vec<SanitizedBlock> {
        let pieces = if trusted_media {
            expand_media(blocks, &self.options.images)
        } else {
            blocks.iter().map(|block| Piece::from(*block)).collect()
        };
        let sizes: Vec<u64> = pieces
            .iter()
            .filter_map(|piece| match piece {
                Piece::Text(source) => Some(source.size()),
                Piece::Note(note) => Some(TextSource::Whole(note).size()),
                _ => None,
            })
            .collect();
        let budget = self.options.max_result_chars;
        let shares = water_fill(&sizes, budget);
        let mut texts = 0;
        let mut out = Vec::with_capacity(pieces.len());
        for piece in pieces {
            let index = out.len() as i64;
            let mut text = |source: TextSource<'_>, report: &mut SanitizeReport| {
                let share = shares.as_ref().map_or(budget, |s| s[texts]);
                texts += 1;
                SanitizedBlock::Text(self.text(source, share, index, CutScope::Result, report))
            };
            let block = match piece {
                Piece::Text(source) => text(source, report),
                Piece::Note(note) => text(TextSource::Whole(&note), report),
                Piece::Image { data, mime_type } => {
                    let (fitted, image) = fit_base64_image(&data, &mime_type, &self.options.images);
                    self.image(&data, fitted, image, index, report)
                }
                Piece::File {
                    fitted,
                    report: image,
                    bytes,
                } => {
                    let data = match fitted {
                        FittedImage::Kept { .. } => encode_base64(&bytes),
                        _ => String::new(),
                    };
                    self.image(&data, fitted, image, index, report)
                }
            };
            out.push(block);
        }
        if let Some(scanner) = self.scanner() {
            scrub_joined_text(&mut out, scanner, report);
        }
        out
    }

    /// Keeps one text within `budget`, reporting a cut as block `index`.
    pub fn text(
        &self,
        source: TextSource<'_>,
        budget: u64,
        index: i64,
        scope: CutScope,
        report: &mut SanitizeReport,
    ) -> Kept {
        let kept = keep_text(source, budget, &self.text_rules(), &mut report.scrubbed);
        report.ansi += kept.ansi;
        if let Some(cut) = &kept.cut {
            report.truncated.push(Truncation {
                block: index,
                unit: cut.unit,
                cut: cut.count,
                budget,
                scope,
            });
        }
        kept
    }

    /// A message (an error's) scrubbed and kept within the result budget.
    pub fn message(&self, message: &str, report: &mut SanitizeReport) -> String {
        let budget = self.options.max_result_chars;
        self.text(
            TextSource::Whole(message),
            budget,
            -1,
            CutScope::Result,
            report,
        )
        .text
    }

    fn image(
        &self,
        data: &str,
        fitted: FittedImage,
        image: ImageReport,
        index: i64,
        report: &mut SanitizeReport,
    ) -> SanitizedBlock {
        let mut image = image;
        if let Some(declared) = &mut image.declared_mime_type {
            // The declared type is the tool's own text, copied to the report: scrubbed, and
            // bounded (RFC 6838 names are at most 127 characters each).
            if let Some(scanner) = self.scanner() {
                if let Some(scrubbed) = scanner.scrub_from(declared, 0, &mut report.scrubbed) {
                    *declared = scrubbed;
                }
            }
            if declared.len() > MAX_DECLARED_MIME_BYTES {
                *declared = bounded_to(declared, MAX_DECLARED_MIME_BYTES);
            }
        }
        let entry = ImageEntry {
            block: index,
            image,
        };
        report
            .images
            .push(serde_json::to_value(&entry).unwrap_or(Value::Null));
        match fitted {
            FittedImage::Kept { mime_type } => SanitizedBlock::Image {
                data: data.to_owned(),
                mime_type: mime_type.to_owned(),
            },
            FittedImage::Replaced { data, mime_type } => SanitizedBlock::Image {
                data,
                mime_type: mime_type.to_owned(),
            },
            FittedImage::Omitted { text } => SanitizedBlock::Text(Kept {
                text,
                unit: BudgetUnit::Utf16,
                cut: None,
                ansi: 0,
            }),
        }
    }
}

impl<'a> From<InputBlock<'a>> for Piece<'a> {
    fn from(block: InputBlock<'a>) -> Self {
        match block {
            InputBlock::Text(source) => Piece::Text(source),
            InputBlock::Image { data, mime_type } => Piece::Image {
                data: Cow::Borrowed(data),
                mime_type: Cow::Borrowed(mime_type),
            },
        }
    }
}

/// Re-exported for the media module's file images.
pub(super) fn fit_file(
    bytes: &[u8],
    limits: &super::images::ImageLimits,
) -> (FittedImage, ImageReport) {
    fit_image_bytes(bytes, None, limits)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_declared_mime_type_in_the_image_report_is_scrubbed_and_bounded() {
        let sanitizer = Sanitizer::new(Default::default()).unwrap();
        let key = format!("ghp_{}", "a1B2".repeat(9));
        let cases: Vec<(String, &str)> = vec![
            (format!("image/{key}"), "image/[redacted:github-token]"),
            (
                format!("image/png; x={}", "y".repeat(10_000)),
                "more bytes not shown",
            ),
            (format!("{}{key}", "i".repeat(300)), "more bytes not shown"),
        ];
        for (declared, expected) in cases {
            let blocks = [InputBlock::Image {
                data: "iVBORw0KGgo=",
                mime_type: &declared,
            }];
            let mut report = SanitizeReport::default();
            sanitizer.content(&blocks, false, &mut report);
            let shown = report.images[0]["declaredMimeType"].as_str().unwrap();
            assert!(shown.contains(expected), "{shown}");
            assert!(shown.len() < 400 && !shown.contains(&key[4..]), "{shown}");
        }
    }

    #[test]
    fn water_filling_cuts_the_largest_first() {
        assert_eq!(water_fill(&[10, 20], 100), None);
        assert_eq!(
            water_fill(&[100, 500, 1000], 1000),
            Some(vec![100, 450, 450])
        );
        assert_eq!(water_fill(&[600, 600], 1000), Some(vec![500, 500]));
        let shares = water_fill(&[10; 100], 500).unwrap();
        assert!(shares.iter().all(|&s| s == MIN_SHARE.min(10)));
        let shares = water_fill(&[1000; 100], 500).unwrap();
        assert!(shares.iter().all(|&s| s == MIN_SHARE));
    }
}
