//! Header check and full decode: the dimensions come from the header first, so a decompression
//! bomb is refused before any pixel is decoded; the decoders also run under an allocation budget
//! so that a header that lies cannot make them allocate without bound.

use std::io::Cursor;
use std::panic::{catch_unwind, AssertUnwindSafe};

use image::codecs::gif::GifDecoder;
use image::codecs::jpeg::JpegDecoder;
use image::codecs::png::PngDecoder;
use image::codecs::webp::WebPDecoder;
use image::{DynamicImage, ImageDecoder, ImageResult, Limits};

use super::pixels::Pixels;
use super::sniff::{jpeg_reaches_end_marker, SniffedFormat};

/// Working memory a decoder may use on top of the decoded pixels (inflate windows, Huffman tables,
/// the GIF frame buffer of a frame smaller than the screen).
const DECODER_WORKING_MEMORY: u64 = 64 * 1024 * 1024;

/// Bytes per pixel of the widest layout the decoders produce (16-bit RGBA).
const WIDEST_PIXEL: u64 = 8;

/// Why an image could not be decoded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum DecodeFailure {
    /// The header announces more pixels than `max_pixels`; nothing was decoded.
    TooManyPixels { width: u32, height: u32 },
    /// The header or the data is corrupt, truncated or unsupported.
    Corrupt {
        /// The dimensions, when the header was readable.
        size: Option<(u32, u32)>,
        /// The decoder's message.
        reason: String,
    },
}

/// Reads the header of `bytes` (already sniffed as `format`), refuses more than `max_pixels`,
/// then decodes every pixel (the first frame of a GIF).
pub(super) fn decode(
    bytes: &[u8],
    format: SniffedFormat,
    max_pixels: u64,
) -> Result<Pixels, DecodeFailure> {
    // The decoders are third-party code fed hostile bytes: a panic in one of them is reported as
    // a corrupt image rather than taking the worker down.
    catch_unwind(AssertUnwindSafe(|| {
        decode_format(bytes, format, max_pixels)
    }))
    .unwrap_or_else(|_| {
        Err(DecodeFailure::Corrupt {
            size: None,
            reason: "the decoder failed on malformed data".to_owned(),
        })
    })
}

fn decode_format(
    bytes: &[u8],
    format: SniffedFormat,
    max_pixels: u64,
) -> Result<Pixels, DecodeFailure> {
    let reader = Cursor::new(bytes);
    let pixels = match format {
        SniffedFormat::Png => {
            // The PNG decoder takes its allocation budget at construction, before the header is
            // known: bound it by the largest image the pixel limit allows.
            let budget = max_pixels
                .saturating_mul(WIDEST_PIXEL)
                .saturating_add(DECODER_WORKING_MEMORY);
            decode_with(
                PngDecoder::with_limits(reader, allocation_limits(budget)),
                max_pixels,
            )?
        }
        SniffedFormat::Jpeg => {
            let pixels = decode_with(JpegDecoder::new(reader), max_pixels)?;
            if !jpeg_reaches_end_marker(bytes) {
                return Err(DecodeFailure::Corrupt {
                    size: Some((pixels.width, pixels.height)),
                    reason: "the JPEG data ends before its end-of-image marker (truncated)"
                        .to_owned(),
                });
            }
            pixels
        }
        SniffedFormat::Gif => decode_with(GifDecoder::new(reader), max_pixels)?,
        SniffedFormat::WebP => decode_with(WebPDecoder::new(reader), max_pixels)?,
    };
    Ok(pixels)
}

/// Limits with only an allocation budget.
fn allocation_limits(max_alloc: u64) -> Limits {
    let mut limits = Limits::default();
    limits.max_alloc = Some(max_alloc);
    limits
}

/// Checks the header dimensions of a constructed decoder against `max_pixels`, then decodes.
fn decode_with<D: ImageDecoder>(
    decoder: ImageResult<D>,
    max_pixels: u64,
) -> Result<Pixels, DecodeFailure> {
    let mut decoder = decoder.map_err(|error| DecodeFailure::Corrupt {
        size: None,
        reason: error.to_string(),
    })?;
    let (width, height) = decoder.dimensions();
    if u64::from(width) * u64::from(height) > max_pixels {
        return Err(DecodeFailure::TooManyPixels { width, height });
    }
    let corrupt = |error: image::ImageError| DecodeFailure::Corrupt {
        size: Some((width, height)),
        reason: error.to_string(),
    };
    // The budget follows the checked header: one more image-sized buffer (a GIF frame that does
    // not cover the screen is decoded into its own buffer) plus working memory.
    let budget = decoder.total_bytes().saturating_add(DECODER_WORKING_MEMORY);
    decoder
        .set_limits(allocation_limits(budget))
        .map_err(corrupt)?;
    let image = DynamicImage::from_decoder(decoder).map_err(corrupt)?;
    Ok(Pixels::from_dynamic(image))
}
