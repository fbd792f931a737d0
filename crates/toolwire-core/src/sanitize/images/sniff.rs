//! Recognising image formats by their bytes, and cheap structural facts read without decoding
//! pixels: the frame count of a GIF and whether a JPEG reaches its end-of-image marker.

/// An image format recognised by its magic number.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum SniffedFormat {
    /// `\x89PNG\r\n\x1a\n`.
    Png,
    /// `FF D8 FF`.
    Jpeg,
    /// `GIF87a` or `GIF89a`.
    Gif,
    /// `RIFF....WEBP`.
    WebP,
}

impl SniffedFormat {
    /// Recognises the format from the first bytes; `None` for anything else.
    pub(super) fn from_bytes(bytes: &[u8]) -> Option<Self> {
        if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
            Some(Self::Png)
        } else if bytes.starts_with(&[0xFF, 0xD8, 0xFF]) {
            Some(Self::Jpeg)
        } else if bytes.starts_with(b"GIF87a") || bytes.starts_with(b"GIF89a") {
            Some(Self::Gif)
        } else if bytes.len() >= 12 && bytes.starts_with(b"RIFF") && &bytes[8..12] == b"WEBP" {
            Some(Self::WebP)
        } else {
            None
        }
    }

    /// The MIME type of the format.
    pub(super) fn mime(self) -> &'static str {
        match self {
            Self::Png => "image/png",
            Self::Jpeg => "image/jpeg",
            Self::Gif => "image/gif",
            Self::WebP => "image/webp",
        }
    }
}

/// The image formats recognised by their bytes: `"image/png"`, `"image/jpeg"`, `"image/gif"` or
/// `"image/webp"`; `None` when the bytes start with none of their magic numbers.
pub fn sniff_mime(bytes: &[u8]) -> Option<&'static str> {
    SniffedFormat::from_bytes(bytes).map(SniffedFormat::mime)
}

/// Counts the image descriptors of a GIF by walking its block structure (no LZW decoding), in one
/// pass over the bytes. A malformed or truncated stream counts the frames seen before the damage.
#[cfg(feature = "image")]
pub(super) fn gif_frame_count(bytes: &[u8]) -> usize {
    // Header (6) + logical screen descriptor (7).
    let Some(&packed) = bytes.get(10) else {
        return 0;
    };
    let mut at = 13 + color_table_len(packed);
    let mut frames = 0;
    while let Some(&introducer) = bytes.get(at) {
        match introducer {
            // Extension: label, then data sub-blocks.
            0x21 => at = skip_sub_blocks(bytes, at + 2),
            // Image descriptor: 8 bytes of geometry, packed flags, optional local colour table,
            // the LZW minimum code size, then data sub-blocks.
            0x2C => {
                let Some(&packed) = bytes.get(at + 9) else {
                    return frames;
                };
                frames += 1;
                at = skip_sub_blocks(bytes, at + 10 + color_table_len(packed) + 1);
            }
            // Trailer, or anything unexpected: stop.
            _ => return frames,
        }
    }
    frames
}

/// Bytes of the colour table announced by a GIF packed-flags byte (0 when there is none).
#[cfg(feature = "image")]
fn color_table_len(packed: u8) -> usize {
    if packed & 0x80 == 0 {
        0
    } else {
        3 << ((packed & 0x07) + 1)
    }
}

/// The offset after the sub-block chain starting at `at` (past the end when it is truncated).
#[cfg(feature = "image")]
fn skip_sub_blocks(bytes: &[u8], mut at: usize) -> usize {
    while let Some(&len) = bytes.get(at) {
        at += 1;
        if len == 0 {
            return at;
        }
        at += usize::from(len);
    }
    usize::MAX
}

/// Whether a JPEG's last scan is followed by an end-of-image marker (`FF D9`). The JPEG decoder
/// is lenient and fills a truncated scan with grey; this catches that case. Inside entropy-coded
/// data a literal `FF` is always stuffed as `FF 00`, so `FF D9` after the last start-of-scan
/// (`FF DA`) is the real marker.
#[cfg(feature = "image")]
pub(super) fn jpeg_reaches_end_marker(bytes: &[u8]) -> bool {
    let Some(last_scan) = memchr::memmem::rfind(bytes, &[0xFF, 0xDA]) else {
        return false;
    };
    memchr::memmem::find(&bytes[last_scan..], &[0xFF, 0xD9]).is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sniffs_each_magic_number_and_nothing_else() {
        let cases: &[(&[u8], Option<&str>)] = &[
            (b"\x89PNG\r\n\x1a\nrest", Some("image/png")),
            (&[0xFF, 0xD8, 0xFF, 0xE0, 0, 0x10], Some("image/jpeg")),
            (b"GIF87a....", Some("image/gif")),
            (b"GIF89a....", Some("image/gif")),
            (b"RIFF\x10\0\0\0WEBPVP8L", Some("image/webp")),
            (b"RIFF\x10\0\0\0WAVEfmt ", None),
            (b"RIFF\x10\0\0\0WEB", None),
            (b"\x89PNG\r\n", None),
            (&[0xFF, 0xD8], None),
            (b"GIF90a", None),
            (b"<svg xmlns=", None),
            (b"BM6\0\0\0", None),
            (b"", None),
        ];
        for (bytes, expected) in cases {
            assert_eq!(sniff_mime(bytes), *expected, "{bytes:?}");
        }
    }

    #[cfg(feature = "image")]
    #[test]
    fn counts_gif_frames_without_decoding() {
        // Header, 1x1 screen with a 2-colour global table, then frames of one sub-block each.
        let mut gif = b"GIF89a\x01\x00\x01\x00\x80\x00\x00".to_vec();
        gif.extend_from_slice(&[0, 0, 0, 255, 255, 255]);
        let frame = [
            0x21, 0xF9, 4, 0, 0, 0, 0, 0, // graphic control extension
            0x2C, 0, 0, 0, 0, 1, 0, 1, 0, 0, // image descriptor
            2, 2, 0x4C, 0x01, 0, // LZW code size, one sub-block, terminator
        ];
        let cases: &[(usize, bool, usize)] = &[(1, true, 1), (3, true, 3), (2, false, 2)];
        for &(count, trailer, expected) in cases {
            let mut bytes = gif.clone();
            for _ in 0..count {
                bytes.extend_from_slice(&frame);
            }
            if trailer {
                bytes.push(0x3B);
            }
            assert_eq!(gif_frame_count(&bytes), expected);
        }
        // Truncated in the middle of the second frame's descriptor.
        let mut truncated = gif.clone();
        truncated.extend_from_slice(&frame);
        truncated.extend_from_slice(&frame[..12]);
        assert_eq!(gif_frame_count(&truncated), 1);
        assert_eq!(gif_frame_count(b"GIF89a"), 0);
    }

    #[cfg(feature = "image")]
    #[test]
    fn jpeg_end_marker_must_follow_the_last_scan() {
        let cases: &[(&[u8], bool)] = &[
            (
                &[0xFF, 0xD8, 0xFF, 0xDA, 1, 2, 0xFF, 0x00, 3, 0xFF, 0xD9],
                true,
            ),
            (&[0xFF, 0xD8, 0xFF, 0xDA, 1, 2, 0xFF, 0x00, 3], false),
            // An embedded thumbnail's end marker comes before the main scan.
            (&[0xFF, 0xD8, 0xFF, 0xD9, 0xFF, 0xDA, 1, 2], false),
            (&[0xFF, 0xD8, 0xFF, 0xE0], false),
        ];
        for (bytes, expected) in cases {
            assert_eq!(jpeg_reaches_end_marker(bytes), *expected, "{bytes:?}");
        }
    }
}
