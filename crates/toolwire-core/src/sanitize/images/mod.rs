//! Image sanitization: every image a tool returns is checked and fitted before it reaches the
//! model.
//!
//! The format is sniffed from the bytes (the declared MIME type is only reported); the header
//! dimensions are checked against the pixel limit before anything is decoded; every image is then
//! fully decoded, so a truncated or corrupt file never reaches a provider. An image within the
//! limits is kept byte for byte. One over a limit is resized to fit the dimension limits (Lanczos3,
//! aspect ratio kept, never upscaled) and re-encoded, stepping down until it fits the byte limit:
//! PNG first for images with transparency and for screenshot-like PNG/GIF sources, then JPEG at
//! qualities 85, 70, 55 and 40, then the same at 0.75 of the size, down to 64 px. What cannot be
//! used becomes a text block saying what and why.
//!
//! Decoding and fitting are the cargo feature `image` (on by default). A build without it
//! recognises images by their bytes and omits every one, the text block and the report naming
//! the feature ([`IMAGE_FEATURE_ABSENT`]): never a crash, never an unchecked image.

#[cfg(feature = "image")]
mod decode;
#[cfg(feature = "image")]
mod fit;
#[cfg(feature = "image")]
mod pixels;
mod sniff;
#[cfg(all(test, feature = "image"))]
mod tests;

use base64::alphabet;
use base64::engine::{DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig};
use base64::Engine as _;
use serde::Serialize;

#[cfg(feature = "image")]
use decode::DecodeFailure;
#[cfg(feature = "image")]
use fit::{FitFailure, OutputFormat};
pub use sniff::sniff_mime;
use sniff::SniffedFormat;

/// Limits an image must meet to be sent as is; defaults max_width 2000, max_height 2000,
/// max_bytes 5_000_000 (bytes of the encoded image file, before base64), max_pixels 50_000_000
/// (images whose header announces more are refused without decoding).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ImageLimits {
    /// Widest image sent; wider ones are scaled down.
    pub max_width: u32,
    /// Tallest image sent; taller ones are scaled down.
    pub max_height: u32,
    /// Largest encoded image (file bytes, not base64 characters).
    pub max_bytes: usize,
    /// Largest width x height decoded at all (decompression-bomb guard).
    pub max_pixels: u64,
}

impl Default for ImageLimits {
    fn default() -> Self {
        Self {
            max_width: 2000,
            max_height: 2000,
            max_bytes: 5_000_000,
            max_pixels: 50_000_000,
        }
    }
}

/// What was done with an image.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum ImageAction {
    /// Sent as it came (the data unchanged, the MIME type the sniffed one).
    Kept,
    /// Scaled down and/or re-encoded to fit the limits.
    Resized,
    /// Replaced by a text block.
    Omitted,
}

/// Dimensions and encoded size of an image.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ImageSize {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// Bytes of the encoded image.
    pub bytes: usize,
}

/// What happened to one image; serializes (camelCase) into the result's report.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ImageReport {
    /// Kept, resized or omitted.
    pub action: ImageAction,
    /// The sniffed MIME type (of the output when resized); `None` when the bytes are no image.
    pub mime_type: Option<String>,
    /// The declared MIME type, only when it differed from the sniffed one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub declared_mime_type: Option<String>,
    /// Width of the output (omitted: of the input, when its header was readable).
    pub width: Option<u32>,
    /// Height of the output (omitted: of the input, when its header was readable).
    pub height: Option<u32>,
    /// Bytes of the output; for an omitted image, of the input (base64 characters when the
    /// base64 itself was invalid).
    pub bytes: usize,
    /// The input, when resized.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub original: Option<ImageSize>,
    /// The JPEG quality used, when re-encoded as JPEG.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub quality: Option<u8>,
    /// Why the image was resized or omitted (also notes on kept images: a GIF's extra frames,
    /// normalised base64).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// The block that replaces an image block.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FittedImage {
    /// Keep the original block's data; only the MIME type may change.
    Kept {
        /// The sniffed MIME type.
        mime_type: &'static str,
    },
    /// New encoded image, base64.
    Replaced {
        /// Base64 (standard alphabet, padded).
        data: String,
        /// MIME type of `data`.
        mime_type: &'static str,
    },
    /// Replace the image with this text block.
    Omitted {
        /// `[image omitted: <what and why>]`.
        text: String,
    },
}

/// Decodes standard base64 with or without padding (a line-wrapped encoding is accepted too).
const LENIENT_BASE64: GeneralPurpose = GeneralPurpose::new(
    &alphabet::STANDARD,
    GeneralPurposeConfig::new().with_decode_padding_mode(DecodePaddingMode::Indifferent),
);

/// Base64 of bytes (the standard alphabet with padding), for callers building blocks.
pub fn encode_base64(bytes: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

/// Checks and fits one base64 image block (`data` and `mimeType` of `{ type: 'image' }`).
///
/// Invalid base64 is omitted. Base64 that decodes but is not in canonical form (line breaks,
/// missing padding) is re-encoded canonically when the image is otherwise kept.
pub fn fit_base64_image(
    data: &str,
    declared_mime: &str,
    limits: &ImageLimits,
) -> (FittedImage, ImageReport) {
    let (bytes, canonical) = match decode_base64(data) {
        Ok(decoded) => decoded,
        Err(error) => {
            let reason = format!("the data is not valid base64 ({error})");
            let mut report = omitted_report(reason, None, None, data.len());
            report.declared_mime_type = Some(declared_mime.to_owned());
            return (omitted_block(&report), report);
        }
    };
    let (fitted, mut report) = fit_image_bytes(&bytes, Some(declared_mime), limits);
    match fitted {
        FittedImage::Kept { mime_type } if !canonical => {
            report.reason = Some(join_reasons(
                report.reason.take(),
                "base64 re-encoded in canonical form (no whitespace, padded)".to_owned(),
            ));
            let data = encode_base64(&bytes);
            (FittedImage::Replaced { data, mime_type }, report)
        }
        fitted => (fitted, report),
    }
}

/// The same for raw bytes (used for `MEDIA:<path>` files read from disk).
pub fn fit_image_bytes(
    bytes: &[u8],
    declared_mime: Option<&str>,
    limits: &ImageLimits,
) -> (FittedImage, ImageReport) {
    let format = SniffedFormat::from_bytes(bytes);
    let sniffed = format.map(SniffedFormat::mime);
    let declared = declared_mime
        .filter(|declared| Some(*declared) != sniffed)
        .map(str::to_owned);
    let (fitted, mut report) = match format {
        None => omitted(
            "not a PNG, JPEG, WebP or GIF image".to_owned(),
            None,
            bytes,
            None,
        ),
        Some(format) => fit_sniffed(bytes, format, limits),
    };
    report.declared_mime_type = declared;
    (fitted, report)
}

/// Decodes base64; the flag says whether `data` was already canonical (padded, no whitespace).
fn decode_base64(data: &str) -> Result<(Vec<u8>, bool), base64::DecodeError> {
    if data.bytes().any(|b| b.is_ascii_whitespace()) {
        let compact: Vec<u8> = data.bytes().filter(|b| !b.is_ascii_whitespace()).collect();
        return LENIENT_BASE64.decode(compact).map(|bytes| (bytes, false));
    }
    let bytes = LENIENT_BASE64.decode(data)?;
    let canonical = base64::encoded_len(bytes.len(), true) == Some(data.len());
    Ok((bytes, canonical))
}

/// Why every image is omitted in a build without the `image` cargo feature.
pub const IMAGE_FEATURE_ABSENT: &str = "image support is not in this build of toolwire (the cargo feature `image`, on by default: build without --no-default-features, or add --features image)";

/// Without the `image` feature nothing is decoded: the image is omitted, saying why.
#[cfg(not(feature = "image"))]
fn fit_sniffed(
    bytes: &[u8],
    format: SniffedFormat,
    _limits: &ImageLimits,
) -> (FittedImage, ImageReport) {
    omitted(
        IMAGE_FEATURE_ABSENT.to_owned(),
        Some(format.mime()),
        bytes,
        None,
    )
}

/// Decodes an image of a known format and keeps, resizes or omits it.
#[cfg(feature = "image")]
fn fit_sniffed(
    bytes: &[u8],
    format: SniffedFormat,
    limits: &ImageLimits,
) -> (FittedImage, ImageReport) {
    let mime = format.mime();
    if limits.max_width == 0 || limits.max_height == 0 || limits.max_bytes == 0 {
        let reason = format!(
            "{mime} cannot fit the limits {}x{} px, {} bytes",
            limits.max_width, limits.max_height, limits.max_bytes
        );
        return omitted(reason, Some(mime), bytes, None);
    }
    let pixels = match decode::decode(bytes, format, limits.max_pixels) {
        Ok(pixels) => pixels,
        Err(DecodeFailure::TooManyPixels { width, height }) => {
            let reason = format!(
                "{mime} {width}x{height} is over the {}-pixel limit",
                limits.max_pixels
            );
            return omitted(reason, Some(mime), bytes, Some((width, height)));
        }
        Err(DecodeFailure::Corrupt { size, reason }) => {
            let reason = format!("{mime} could not be decoded: {reason}");
            return omitted(reason, Some(mime), bytes, size);
        }
    };
    let (width, height) = (pixels.width, pixels.height);
    let frames_note = match format {
        SniffedFormat::Gif => match sniff::gif_frame_count(bytes) {
            frames @ 2.. => Some(format!(
                "animated GIF: the first of {frames} frames was checked"
            )),
            _ => None,
        },
        _ => None,
    };
    let mut over = Vec::new();
    if width > limits.max_width || height > limits.max_height {
        over.push(format!(
            "{width}x{height} is over the {}x{} limit",
            limits.max_width, limits.max_height
        ));
    }
    if bytes.len() > limits.max_bytes {
        over.push(format!(
            "{} bytes is over the {}-byte limit",
            bytes.len(),
            limits.max_bytes
        ));
    }
    if over.is_empty() {
        let report = ImageReport {
            action: ImageAction::Kept,
            mime_type: Some(mime.to_owned()),
            declared_mime_type: None,
            width: Some(width),
            height: Some(height),
            bytes: bytes.len(),
            original: None,
            quality: None,
            reason: frames_note,
        };
        return (FittedImage::Kept { mime_type: mime }, report);
    }

    let pixels = pixels.drop_opaque_alpha();
    let png_first = pixels.has_alpha()
        || (matches!(format, SniffedFormat::Png | SniffedFormat::Gif)
            && pixels.looks_like_graphics());
    let target = fit::fit_within(width, height, limits.max_width, limits.max_height);
    let encoded = match fit::fit(&pixels, png_first, limits) {
        Ok(encoded) => encoded,
        Err(FitFailure::CannotFit) => {
            let reason = format!(
                "{mime} {width}x{height} cannot fit within {} bytes",
                limits.max_bytes
            );
            return omitted(reason, Some(mime), bytes, Some((width, height)));
        }
        Err(FitFailure::Encoder(error)) => {
            let reason = format!("{mime} {width}x{height} could not be re-encoded: {error}");
            return omitted(reason, Some(mime), bytes, Some((width, height)));
        }
    };
    if (encoded.width, encoded.height) != target {
        over.push(format!(
            "scaled to {}x{} to fit {} bytes",
            encoded.width, encoded.height, limits.max_bytes
        ));
    }
    over.extend(frames_note);
    let out_mime = encoded.format.mime();
    let report = ImageReport {
        action: ImageAction::Resized,
        mime_type: Some(out_mime.to_owned()),
        declared_mime_type: None,
        width: Some(encoded.width),
        height: Some(encoded.height),
        bytes: encoded.bytes.len(),
        original: Some(ImageSize {
            width,
            height,
            bytes: bytes.len(),
        }),
        quality: match encoded.format {
            OutputFormat::Jpeg { quality } => Some(quality),
            OutputFormat::Png => None,
        },
        reason: Some(over.join("; ")),
    };
    let data = encode_base64(&encoded.bytes);
    let fitted = FittedImage::Replaced {
        data,
        mime_type: out_mime,
    };
    (fitted, report)
}

#[cfg(all(test, not(feature = "image")))]
mod slim_tests {
    use super::*;

    /// A build without the `image` feature omits every image, whatever its format or size, and
    /// says which feature is missing; bytes that are no image are refused as before.
    #[test]
    fn every_image_is_omitted_naming_the_feature() {
        let limits = ImageLimits::default();
        let cases: [(&str, &[u8], Option<&str>); 5] = [
            ("PNG", b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR", Some("image/png")),
            (
                "JPEG",
                &[0xFF, 0xD8, 0xFF, 0xE0, 0, 0x10],
                Some("image/jpeg"),
            ),
            ("GIF", b"GIF89a\x01\0\x01\0\0\0\0;", Some("image/gif")),
            ("WebP", b"RIFF\x1a\0\0\0WEBPVP8L", Some("image/webp")),
            ("not an image", b"hello", None),
        ];
        for (name, bytes, mime) in cases {
            let (fitted, report) = fit_image_bytes(bytes, Some("image/png"), &limits);
            assert_eq!(report.action, ImageAction::Omitted, "{name}");
            assert_eq!(report.mime_type.as_deref(), mime, "{name}");
            let FittedImage::Omitted { text } = fitted else {
                panic!("{name}: not omitted");
            };
            let names_feature = text.contains("cargo feature `image`");
            assert_eq!(names_feature, mime.is_some(), "{name}: {text}");
        }
        let data = encode_base64(b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR");
        let (fitted, report) = fit_base64_image(&data, "image/png", &limits);
        assert_eq!(report.reason.as_deref(), Some(IMAGE_FEATURE_ABSENT));
        assert_eq!(
            fitted,
            FittedImage::Omitted {
                text: format!("[image omitted: {IMAGE_FEATURE_ABSENT}]")
            }
        );
    }
}

/// An omitted image: the text block and its report.
fn omitted(
    reason: String,
    mime: Option<&'static str>,
    bytes: &[u8],
    size: Option<(u32, u32)>,
) -> (FittedImage, ImageReport) {
    let report = omitted_report(reason, mime, size, bytes.len());
    (omitted_block(&report), report)
}

/// The report of an omitted image.
fn omitted_report(
    reason: String,
    mime: Option<&'static str>,
    size: Option<(u32, u32)>,
    bytes: usize,
) -> ImageReport {
    ImageReport {
        action: ImageAction::Omitted,
        mime_type: mime.map(str::to_owned),
        declared_mime_type: None,
        width: size.map(|(width, _)| width),
        height: size.map(|(_, height)| height),
        bytes,
        original: None,
        quality: None,
        reason: Some(reason),
    }
}

/// The text block of an omitted image.
fn omitted_block(report: &ImageReport) -> FittedImage {
    let reason = report.reason.as_deref().unwrap_or("unusable");
    FittedImage::Omitted {
        text: format!("[image omitted: {reason}]"),
    }
}

/// `earlier; later`, or `later` alone.
fn join_reasons(earlier: Option<String>, later: String) -> String {
    match earlier {
        Some(earlier) => format!("{earlier}; {later}"),
        None => later,
    }
}
