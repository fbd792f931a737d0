//! Fitting decoded pixels into the limits: resize keeping the aspect ratio (never upscaling),
//! re-encode, and step down quality then dimensions until the encoded bytes fit.

use std::borrow::Cow;

use fast_image_resize::images::{TypedImage, TypedImageRef};
use fast_image_resize::pixels::U8x4;
use fast_image_resize::{FilterType, ResizeAlg, ResizeOptions, Resizer};
use image::codecs::jpeg::JpegEncoder;
use image::codecs::png::{self, CompressionType, PngEncoder};
use image::ImageEncoder;

use super::pixels::Pixels;
use super::ImageLimits;

/// JPEG qualities tried at each size, best first.
pub(super) const JPEG_QUALITIES: [u8; 4] = [85, 70, 55, 40];

/// The smallest longer side worth sending; stepping down stops below it.
const MIN_LONGER_SIDE: u32 = 64;

/// The output encodings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum OutputFormat {
    Png,
    Jpeg { quality: u8 },
}

impl OutputFormat {
    /// The MIME type of the encoding.
    pub(super) fn mime(self) -> &'static str {
        match self {
            Self::Png => "image/png",
            Self::Jpeg { .. } => "image/jpeg",
        }
    }
}

/// A re-encoded image that fits the limits.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Encoded {
    pub(super) bytes: Vec<u8>,
    pub(super) format: OutputFormat,
    pub(super) width: u32,
    pub(super) height: u32,
}

/// Why fitting failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum FitFailure {
    /// Even the smallest JPEG at the smallest size is over `max_bytes`.
    CannotFit,
    /// Resizing or encoding reported an error (the message).
    Encoder(String),
}

/// The largest size within `max_width` x `max_height` with the aspect ratio of `width` x
/// `height`, never larger than the image itself; each side at least 1. The limits must be >= 1.
pub(super) fn fit_within(width: u32, height: u32, max_width: u32, max_height: u32) -> (u32, u32) {
    if width <= max_width && height <= max_height {
        return (width, height);
    }
    // u128: the products below overflow u64 for sides near u32::MAX.
    let (w, h) = (u128::from(width), u128::from(height));
    let (max_w, max_h) = (u128::from(max_width), u128::from(max_height));
    // Compare width / max_width with height / max_height without division.
    if w * max_h >= h * max_w {
        let scaled = (h * max_w * 2 + w) / (w * 2);
        (max_width, scaled.clamp(1, max_h) as u32)
    } else {
        let scaled = (w * max_h * 2 + h) / (h * 2);
        (scaled.clamp(1, max_w) as u32, max_height)
    }
}

/// Re-encodes `pixels` to fit `limits`: first at the size that fits the dimension limits, PNG
/// first when `png_first`, then JPEG at each of [`JPEG_QUALITIES`] (alpha flattened on white);
/// then at 0.75 of the size, again and again, giving up below 64 px on the longer side.
pub(super) fn fit(
    pixels: &Pixels,
    png_first: bool,
    limits: &ImageLimits,
) -> Result<Encoded, FitFailure> {
    let (width, height) = fit_within(
        pixels.width,
        pixels.height,
        limits.max_width,
        limits.max_height,
    );
    let mut current = if (width, height) == (pixels.width, pixels.height) {
        Cow::Borrowed(pixels)
    } else {
        Cow::Owned(resize(pixels, width, height)?)
    };
    loop {
        if let Some(encoded) = encode_fitting(&current, png_first, limits.max_bytes)? {
            return Ok(encoded);
        }
        let (width, height) = (scale_down(current.width), scale_down(current.height));
        if width.max(height) < MIN_LONGER_SIDE {
            return Err(FitFailure::CannotFit);
        }
        current = Cow::Owned(resize(&current, width, height)?);
    }
}

/// Three quarters of a side, rounded, at least 1.
fn scale_down(side: u32) -> u32 {
    ((u64::from(side) * 3 + 2) / 4).max(1) as u32
}

/// The first encoding of the ladder at this size that fits `max_bytes`, if any.
fn encode_fitting(
    pixels: &Pixels,
    png_first: bool,
    max_bytes: usize,
) -> Result<Option<Encoded>, FitFailure> {
    let fitted = |bytes: Vec<u8>, format| {
        (bytes.len() <= max_bytes).then_some(Encoded {
            bytes,
            format,
            width: pixels.width,
            height: pixels.height,
        })
    };
    if png_first {
        let fast = encode_png(pixels, PngEffort::Fast)?;
        // Within reach of the limit: zlib usually gains 20-50% on resized screenshots, cheaper
        // for the model to read than a JPEG.
        let retry = fast.len() > max_bytes && fast.len() / 2 <= max_bytes;
        if let Some(encoded) = fitted(fast, OutputFormat::Png) {
            return Ok(Some(encoded));
        }
        if retry {
            let smaller = encode_png(pixels, PngEffort::Smaller)?;
            if let Some(encoded) = fitted(smaller, OutputFormat::Png) {
                return Ok(Some(encoded));
            }
        }
    }
    let flattened = pixels.flatten_on_white();
    let opaque = flattened.as_ref().unwrap_or(pixels);
    for quality in JPEG_QUALITIES {
        let jpeg = encode_jpeg(opaque, quality)?;
        if let Some(encoded) = fitted(jpeg, OutputFormat::Jpeg { quality }) {
            return Ok(Some(encoded));
        }
    }
    Ok(None)
}

/// Resizes with a Lanczos3 convolution (alpha-aware: premultiplied while filtering).
///
/// Every layout is resized as RGBA: 1 to 3 channels are widened to 4 first (grey repeated, an
/// opaque alpha added) and narrowed after. The resizer instantiates its convolution per pixel
/// layout, per SIMD level and per fixed-point precision, about 0.5 MB of machine code for each
/// layout; built for RGBA alone (its feature `only_u8x4`) it is 1.9 MB smaller than with the four
/// layouts of 8-bit images. Each channel is filtered on its own, so the widened image's channels
/// are the ones a resize of the narrow layout gives; the added alpha, 255 everywhere, is not
/// used for weighting (`use_alpha` only for images that had alpha) and is dropped. A widened
/// copy is at most the size of an RGBA image of the same pixels, which the pixel limit bounds.
pub(super) fn resize(pixels: &Pixels, width: u32, height: u32) -> Result<Pixels, FitFailure> {
    let failure = |error: &dyn std::fmt::Display| FitFailure::Encoder(format!("resize: {error}"));
    let channels = usize::from(pixels.channels);
    let rgba = widen(&pixels.data, channels);
    let source = TypedImageRef::<U8x4>::from_buffer(pixels.width, pixels.height, &rgba)
        .map_err(|e| failure(&e))?;
    let mut resized = vec![0; width as usize * height as usize * 4];
    let mut target =
        TypedImage::<U8x4>::from_buffer(width, height, &mut resized).map_err(|e| failure(&e))?;
    let options = ResizeOptions::new()
        .resize_alg(ResizeAlg::Convolution(FilterType::Lanczos3))
        .use_alpha(channels == 2 || channels == 4);
    Resizer::new()
        .resize_typed(&source, &mut target, &options)
        .map_err(|e| failure(&e))?;
    Ok(Pixels {
        width,
        height,
        channels: pixels.channels,
        data: narrow(resized, channels),
    })
}

/// `data` of `channels` channels as RGBA: grey `g` is `g g g 255`, grey-alpha `g a` is `g g g a`,
/// RGB gets alpha 255; RGBA is borrowed as it is.
fn widen(data: &[u8], channels: usize) -> Cow<'_, [u8]> {
    let widened: Vec<u8> = match channels {
        1 => data.iter().flat_map(|&g| [g, g, g, 255]).collect(),
        2 => data
            .chunks_exact(2)
            .flat_map(|p| [p[0], p[0], p[0], p[1]])
            .collect(),
        3 => data
            .chunks_exact(3)
            .flat_map(|p| [p[0], p[1], p[2], 255])
            .collect(),
        _ => return Cow::Borrowed(data),
    };
    Cow::Owned(widened)
}

/// RGBA `data` back to `channels` channels (the inverse of [`widen`]).
fn narrow(data: Vec<u8>, channels: usize) -> Vec<u8> {
    let kept: &[usize] = match channels {
        1 => &[0],
        2 => &[0, 3],
        3 => &[0, 1, 2],
        _ => return data,
    };
    data.chunks_exact(4)
        .flat_map(|p| kept.iter().map(move |&i| p[i]))
        .collect()
}

/// How hard the PNG encoder compresses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum PngEffort {
    /// fdeflate's fast mode: about 3x faster than zlib level 1, output 25-60% larger.
    Fast,
    /// zlib level 1.
    Smaller,
}

/// PNG with adaptive filtering.
pub(super) fn encode_png(pixels: &Pixels, effort: PngEffort) -> Result<Vec<u8>, FitFailure> {
    let compression = match effort {
        PngEffort::Fast => CompressionType::Fast,
        PngEffort::Smaller => CompressionType::Level(1),
    };
    let mut out = Vec::new();
    PngEncoder::new_with_quality(&mut out, compression, png::FilterType::Adaptive)
        .write_image(
            &pixels.data,
            pixels.width,
            pixels.height,
            pixels.color_type(),
        )
        .map_err(|e| FitFailure::Encoder(format!("PNG encoding: {e}")))?;
    Ok(out)
}

/// Baseline JPEG at `quality`; `pixels` must have no alpha channel.
pub(super) fn encode_jpeg(pixels: &Pixels, quality: u8) -> Result<Vec<u8>, FitFailure> {
    let mut out = Vec::new();
    JpegEncoder::new_with_quality(&mut out, quality)
        .write_image(
            &pixels.data,
            pixels.width,
            pixels.height,
            pixels.color_type(),
        )
        .map_err(|e| FitFailure::Encoder(format!("JPEG encoding: {e}")))?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fit_within_keeps_the_aspect_ratio_and_never_upscales() {
        let cases = [
            ((4000, 3000, 2000, 2000), (2000, 1500)),
            ((3000, 4000, 2000, 2000), (1500, 2000)),
            ((1000, 500, 2000, 2000), (1000, 500)),
            ((2000, 2000, 2000, 2000), (2000, 2000)),
            ((100_000, 1, 2000, 2000), (2000, 1)),
            ((1, 100_000, 2000, 2000), (1, 2000)),
            ((4000, 3000, 1000, 2000), (1000, 750)),
            ((3, 2, 1, 1), (1, 1)),
            ((u32::MAX, u32::MAX, 2000, 1000), (1000, 1000)),
            ((u32::MAX, 1, u32::MAX - 1, u32::MAX), (u32::MAX - 1, 1)),
        ];
        for ((w, h, max_w, max_h), expected) in cases {
            assert_eq!(fit_within(w, h, max_w, max_h), expected, "{w}x{h}");
        }
    }

    #[test]
    fn scale_down_is_three_quarters_rounded() {
        for (side, expected) in [
            (2000, 1500),
            (85, 64),
            (84, 63),
            (1, 1),
            (u32::MAX, 3_221_225_471),
        ] {
            assert_eq!(scale_down(side), expected);
        }
    }

    #[test]
    /// Images are resized as RGBA (widened, then narrowed): each channel of a 1- to 3-channel
    /// image comes out as that channel resized alone would, and opaque grey-alpha is grey with
    /// an opaque alpha, so no channel is mixed into another by the widening.
    fn resize_widened_keeps_each_channel_its_own() {
        let (w, h) = (37, 23);
        let plane = |k: usize| -> Vec<u8> {
            (0..w * h)
                .map(|i| ((i % w) * (7 + k * 5) + (i / w) * (3 + k * 11)) as u8)
                .collect()
        };
        let image = |channels: u8, data: Vec<u8>| Pixels {
            width: w as u32,
            height: h as u32,
            channels,
            data,
        };
        let alone: Vec<Vec<u8>> = (0..3)
            .map(|k| resize(&image(1, plane(k)), 16, 9).unwrap().data)
            .collect();
        let rgb: Vec<u8> = (0..w * h)
            .flat_map(|i| (0..3).map(move |k| plane(k)[i]))
            .collect();
        let resized = resize(&image(3, rgb), 16, 9).unwrap();
        for (k, alone) in alone.iter().enumerate() {
            let channel: Vec<u8> = resized.data.iter().skip(k).step_by(3).copied().collect();
            assert_eq!(&channel, alone, "RGB channel {k}");
        }
        let grey_alpha: Vec<u8> = plane(0).into_iter().flat_map(|g| [g, 255]).collect();
        let resized = resize(&image(2, grey_alpha), 16, 9).unwrap();
        let grey: Vec<u8> = resized.data.iter().step_by(2).copied().collect();
        assert_eq!(grey, alone[0]);
        assert!(resized.data.iter().skip(1).step_by(2).all(|&a| a == 255));
    }

    #[test]
    fn resize_keeps_channels_and_flat_colour() {
        for channels in 1..=4u8 {
            let pixels = Pixels {
                width: 40,
                height: 30,
                channels,
                data: vec![200; 40 * 30 * usize::from(channels)],
            };
            let resized = resize(&pixels, 20, 15).expect("resizes");
            assert_eq!(
                (resized.width, resized.height, resized.channels),
                (20, 15, channels)
            );
            assert!(
                resized.data.iter().all(|&v| v == 200),
                "{channels} channels"
            );
        }
    }
}
