//! `MEDIA:<path>` lines: a tool registered with `trustedMedia: true` may name an image file on a
//! line of its text, and the line becomes that image. From other tools the line stays text.

use std::borrow::Cow;
use std::path::Path;

use super::content::{fit_file, InputBlock};
use super::images::{sniff_mime, FittedImage, ImageLimits, ImageReport};
use super::text::TextSource;

/// The largest file a `MEDIA:` line may name.
pub const MAX_MEDIA_FILE_BYTES: u64 = 64 << 20;

/// A content block on its way through the sanitizer.
pub enum Piece<'a> {
    /// Text as given.
    Text(TextSource<'a>),
    /// Text the sanitizer wrote (why a media file was left out).
    Note(String),
    /// A base64 image.
    Image {
        /// Base64 data.
        data: Cow<'a, str>,
        /// The declared MIME type.
        mime_type: Cow<'a, str>,
    },
    /// An image read from a file and already fitted.
    File {
        /// The verdict.
        fitted: FittedImage,
        /// What happened to it.
        report: ImageReport,
        /// The file's bytes (used when it is kept as it is).
        bytes: Vec<u8>,
    },
}

/// The path named by a `MEDIA:` line, if `line` is one.
pub fn media_path(line: &str) -> Option<&str> {
    let path = line.strip_prefix("MEDIA:")?.trim();
    (!path.is_empty()).then_some(path)
}

/// Splits text blocks at their `MEDIA:` lines, each becoming an image (or a note saying why
/// not). Only whole strings are looked into; text given as bytes or as two ends stays text.
pub fn expand_media<'a>(blocks: &[InputBlock<'a>], limits: &ImageLimits) -> Vec<Piece<'a>> {
    let mut pieces = Vec::with_capacity(blocks.len());
    for block in blocks {
        let InputBlock::Text(TextSource::Whole(text)) = block else {
            pieces.push(Piece::from(*block));
            continue;
        };
        if !text.contains("MEDIA:") {
            pieces.push(Piece::Text(TextSource::Whole(text)));
            continue;
        }
        let mut start = 0;
        let mut at = 0;
        for line in text.split_inclusive('\n') {
            let end = at + line.len();
            if let Some(path) = media_path(line.trim_end_matches(['\n', '\r'])) {
                if at > start {
                    pieces.push(Piece::Text(TextSource::Whole(&text[start..at])));
                }
                pieces.push(load(path, limits));
                start = end;
            }
            at = end;
        }
        if start < text.len() {
            pieces.push(Piece::Text(TextSource::Whole(&text[start..])));
        }
    }
    pieces
}

fn load<'a>(path: &str, limits: &ImageLimits) -> Piece<'a> {
    let note = |why: String| Piece::Note(format!("[MEDIA:{path} {why}]"));
    let size = match std::fs::metadata(Path::new(path)) {
        Ok(meta) if meta.is_file() => meta.len(),
        Ok(_) => return note("is not a file".into()),
        Err(error) => return note(format!("could not be read: {error}")),
    };
    if size > MAX_MEDIA_FILE_BYTES {
        return note(format!(
            "was left out: the file is {size} bytes, over the {MAX_MEDIA_FILE_BYTES}-byte limit"
        ));
    }
    let bytes = match std::fs::read(path) {
        Ok(bytes) => bytes,
        Err(error) => return note(format!("could not be read: {error}")),
    };
    if sniff_mime(&bytes).is_none() {
        return note("is not an image (not a PNG, JPEG, WebP or GIF file)".into());
    }
    let (fitted, report) = fit_file(&bytes, limits);
    Piece::File {
        fitted,
        report,
        bytes,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn media_lines_are_recognised() {
        assert_eq!(media_path("MEDIA:/tmp/a.png"), Some("/tmp/a.png"));
        assert_eq!(media_path("MEDIA: shot.png "), Some("shot.png"));
        assert_eq!(media_path("MEDIA:"), None);
        assert_eq!(media_path("see MEDIA:/x.png"), None);
    }

    #[test]
    fn missing_and_non_image_files_become_notes() {
        let dir = std::env::temp_dir().join(format!("toolwire-media-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let text_file = dir.join("notes.txt");
        std::fs::write(&text_file, "hello").unwrap();
        let text = format!(
            "before\nMEDIA:{}\nMEDIA:{}/missing.png\nafter",
            text_file.display(),
            dir.display()
        );
        let pieces = expand_media(
            &[InputBlock::Text(TextSource::Whole(&text))],
            &ImageLimits::default(),
        );
        let shown: Vec<String> = pieces
            .iter()
            .map(|piece| match piece {
                Piece::Text(TextSource::Whole(t)) => format!("text:{t}"),
                Piece::Note(n) => format!("note:{n}"),
                _ => "other".into(),
            })
            .collect();
        assert_eq!(shown[0], "text:before\n");
        assert!(
            shown[1].starts_with("note:[MEDIA:") && shown[1].contains("is not an image"),
            "{}",
            shown[1]
        );
        assert!(shown[2].contains("could not be read"), "{}", shown[2]);
        assert_eq!(shown[3], "text:after");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
