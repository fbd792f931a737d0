//! End-to-end tests of image fitting, on images generated in memory.

use std::io::Cursor;

use image::codecs::gif::GifEncoder;
use image::codecs::webp::WebPEncoder;
use image::{
    DynamicImage, Frame, GenericImageView, ImageEncoder, ImageFormat, Rgb, RgbImage, Rgba,
    RgbaImage,
};
use proptest::prelude::*;

use super::*;

/// A deterministic pseudo-random byte stream.
struct Lcg(u32);

impl Lcg {
    fn next(&mut self) -> u8 {
        self.0 = self.0.wrapping_mul(1_103_515_245).wrapping_add(12_345);
        (self.0 >> 16) as u8
    }
}

/// A photo-like image: smooth gradients plus noise (compresses poorly as PNG).
fn photo(width: u32, height: u32) -> RgbImage {
    let mut noise = Lcg(7);
    RgbImage::from_fn(width, height, |x, y| {
        let base = [(x * 255 / width) as u8, (y * 255 / height) as u8, 128];
        Rgb(base.map(|c| c.wrapping_add(noise.next() % 48)))
    })
}

/// A UI-like screenshot: flat panels, rows of text-like glyphs (a few strokes per 6x14 cell), a
/// gradient header and coloured cards.
fn screenshot(width: u32, height: u32) -> RgbImage {
    let background = Rgb([246, 247, 249]);
    RgbImage::from_fn(width, height, |x, y| {
        if y < height / 12 {
            // Header with a horizontal gradient.
            return Rgb([
                (40 + x * 80 / width) as u8,
                (90 + x * 60 / width) as u8,
                200,
            ]);
        }
        if x < width / 6 {
            return Rgb([32, 36, 44]);
        }
        let (cell_x, cell_y, in_x, in_y) = (x / 9, y / 24, x % 9, y % 24);
        let glyph = Lcg(cell_x.wrapping_mul(7919) ^ cell_y.wrapping_mul(104_729)).next();
        let in_text_line = in_x < 6 && in_y < 14 && !(cell_x + cell_y).is_multiple_of(7);
        if in_text_line {
            let stroke = u32::from(glyph);
            let vertical = in_x == stroke % 6 || in_x == (stroke / 6) % 6;
            let horizontal = in_y == 2 + stroke % 5 || in_y == 13;
            if vertical || (horizontal && !glyph.is_multiple_of(3)) {
                return Rgb([30, 30, 30]);
            }
        }
        if (x / 300 + y / 200) % 5 == 0 {
            Rgb([225, 235, 250])
        } else {
            background
        }
    })
}

/// Encodes with the image crate's default settings for `format`.
fn encode(image: &DynamicImage, format: ImageFormat) -> Vec<u8> {
    let mut out = Cursor::new(Vec::new());
    image.write_to(&mut out, format).expect("encodes");
    out.into_inner()
}

fn png(image: impl Into<DynamicImage>) -> Vec<u8> {
    encode(&image.into(), ImageFormat::Png)
}

fn jpeg(image: impl Into<DynamicImage>) -> Vec<u8> {
    encode(&image.into(), ImageFormat::Jpeg)
}

fn webp_lossless(image: &RgbaImage) -> Vec<u8> {
    let mut out = Vec::new();
    WebPEncoder::new_lossless(&mut out)
        .write_image(
            image.as_raw(),
            image.width(),
            image.height(),
            image::ExtendedColorType::Rgba8,
        )
        .expect("encodes");
    out
}

/// A GIF with one frame per colour.
fn gif(width: u32, height: u32, colours: &[[u8; 4]]) -> Vec<u8> {
    let mut out = Vec::new();
    {
        let mut encoder = GifEncoder::new(&mut out);
        let frames = colours
            .iter()
            .map(|&c| Frame::new(RgbaImage::from_pixel(width, height, Rgba(c))));
        encoder.encode_frames(frames).expect("encodes");
    }
    out
}

/// Decodes the data of a replaced block.
fn decode_replaced(fitted: &FittedImage) -> DynamicImage {
    let FittedImage::Replaced { data, .. } = fitted else {
        panic!("expected a replaced image, got {fitted:?}");
    };
    let bytes = LENIENT_BASE64.decode(data).expect("valid base64");
    image::load_from_memory(&bytes).expect("decodable output")
}

fn omitted_text(fitted: &FittedImage) -> &str {
    match fitted {
        FittedImage::Omitted { text } => text,
        other => panic!("expected an omitted image, got {other:?}"),
    }
}

/// CRC-32 (IEEE) for hand-built PNG chunks.
fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = u32::MAX;
    for &byte in bytes {
        crc ^= u32::from(byte);
        for _ in 0..8 {
            crc = if crc & 1 == 1 {
                (crc >> 1) ^ 0xEDB8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

fn png_chunk(out: &mut Vec<u8>, kind: &[u8; 4], data: &[u8]) {
    out.extend_from_slice(&(data.len() as u32).to_be_bytes());
    let start = out.len();
    out.extend_from_slice(kind);
    out.extend_from_slice(data);
    let crc = crc32(&out[start..]);
    out.extend_from_slice(&crc.to_be_bytes());
}

/// A PNG whose header claims `width` x `height` RGB with a few bytes of (zlib) data.
fn bomb_png(width: u32, height: u32) -> Vec<u8> {
    let mut out = b"\x89PNG\r\n\x1a\n".to_vec();
    let mut ihdr = Vec::new();
    ihdr.extend_from_slice(&width.to_be_bytes());
    ihdr.extend_from_slice(&height.to_be_bytes());
    ihdr.extend_from_slice(&[8, 2, 0, 0, 0]);
    png_chunk(&mut out, b"IHDR", &ihdr);
    png_chunk(&mut out, b"IDAT", &[0x78, 0x9C, 0x63, 0, 0, 0, 1, 0, 1]);
    png_chunk(&mut out, b"IEND", &[]);
    out
}

#[test]
fn each_generated_format_is_sniffed() {
    let small = RgbaImage::from_pixel(4, 3, Rgba([1, 2, 3, 255]));
    let cases = [
        (png(small.clone()), "image/png"),
        (
            jpeg(DynamicImage::from(small.clone()).to_rgb8()),
            "image/jpeg",
        ),
        (gif(4, 3, &[[1, 2, 3, 255]]), "image/gif"),
        (webp_lossless(&small), "image/webp"),
    ];
    for (bytes, mime) in cases {
        assert_eq!(sniff_mime(&bytes), Some(mime));
    }
}

#[test]
fn images_within_limits_are_kept_with_the_sniffed_type() {
    let rgba = RgbaImage::from_fn(30, 20, |x, y| Rgba([x as u8, y as u8, 9, (x * 8) as u8]));
    let cases: Vec<(Vec<u8>, &str, &str, Option<&str>)> = vec![
        (png(photo(300, 200)), "image/png", "image/png", None),
        (
            png(photo(300, 200)),
            "image/jpeg",
            "image/png",
            Some("image/jpeg"),
        ),
        (
            jpeg(photo(300, 200)),
            "image/png",
            "image/jpeg",
            Some("image/png"),
        ),
        (webp_lossless(&rgba), "image/webp", "image/webp", None),
        (
            gif(8, 8, &[[255, 0, 0, 255]]),
            "image/gif",
            "image/gif",
            None,
        ),
    ];
    for (bytes, declared, sniffed, reported_declared) in cases {
        let data = encode_base64(&bytes);
        let (fitted, report) = fit_base64_image(&data, declared, &ImageLimits::default());
        assert_eq!(fitted, FittedImage::Kept { mime_type: sniffed });
        assert_eq!(report.action, ImageAction::Kept);
        assert_eq!(report.mime_type.as_deref(), Some(sniffed));
        assert_eq!(report.declared_mime_type.as_deref(), reported_declared);
        assert_eq!(report.bytes, bytes.len());
        assert_eq!((report.original, report.quality), (None, None));
    }
}

#[test]
fn line_wrapped_base64_is_kept_but_normalised() {
    let bytes = png(photo(40, 30));
    let canonical = encode_base64(&bytes);
    let wrapped: String = canonical
        .as_bytes()
        .chunks(76)
        .map(|line| format!("{}\n", std::str::from_utf8(line).unwrap()))
        .collect();
    let (fitted, report) = fit_base64_image(&wrapped, "image/png", &ImageLimits::default());
    assert_eq!(
        fitted,
        FittedImage::Replaced {
            data: canonical,
            mime_type: "image/png"
        }
    );
    assert_eq!(report.action, ImageAction::Kept);
    assert!(report.reason.unwrap().contains("canonical"));
}

#[test]
fn oversized_images_are_resized_keeping_the_aspect_ratio() {
    // (image, limits, expected output size)
    let cases = [
        (png(photo(4000, 1000)), ImageLimits::default(), (2000, 500)),
        (jpeg(photo(1200, 3000)), ImageLimits::default(), (800, 2000)),
        (
            png(screenshot(1600, 900)),
            ImageLimits {
                max_width: 800,
                max_height: 800,
                ..ImageLimits::default()
            },
            (800, 450),
        ),
    ];
    for (bytes, limits, (width, height)) in cases {
        let (fitted, report) = fit_image_bytes(&bytes, None, &limits);
        let output = decode_replaced(&fitted);
        assert_eq!(output.dimensions(), (width, height));
        assert_eq!(report.action, ImageAction::Resized);
        assert_eq!((report.width, report.height), (Some(width), Some(height)));
        let original = report.original.expect("original size");
        assert_eq!(original.bytes, bytes.len());
        assert!(report.reason.unwrap().contains("limit"));
        assert!(report.bytes <= limits.max_bytes);
    }
}

#[test]
fn screenshots_resize_to_png_and_photos_to_jpeg() {
    let limits = ImageLimits {
        max_width: 500,
        max_height: 500,
        ..ImageLimits::default()
    };
    let cases = [
        (png(screenshot(1000, 800)), "image/png", None),
        (png(photo(1000, 800)), "image/jpeg", Some(85)),
    ];
    for (bytes, mime, quality) in cases {
        let (fitted, report) = fit_image_bytes(&bytes, Some("image/png"), &limits);
        assert!(matches!(fitted, FittedImage::Replaced { mime_type, .. } if mime_type == mime));
        assert_eq!(report.mime_type.as_deref(), Some(mime));
        assert_eq!(report.quality, quality);
    }
}

#[test]
fn over_bytes_steps_the_jpeg_quality_down_until_it_fits() {
    let source = photo(600, 400);
    let bytes = png(source.clone());
    let size_at = |quality| {
        let pixels = pixels::Pixels::from_dynamic(source.clone().into());
        fit::encode_jpeg(&pixels, quality).unwrap().len()
    };
    let max_bytes = (size_at(85) + size_at(40)) / 2;
    let limits = ImageLimits {
        max_bytes,
        ..ImageLimits::default()
    };
    let (fitted, report) = fit_image_bytes(&bytes, None, &limits);
    let output = decode_replaced(&fitted);
    assert_eq!(output.dimensions(), (600, 400));
    let quality = report.quality.expect("JPEG quality");
    assert!([70, 55, 40].contains(&quality), "quality {quality}");
    assert!(report.bytes <= max_bytes);
    assert_eq!(report.mime_type.as_deref(), Some("image/jpeg"));
    assert!(report.reason.unwrap().contains("-byte limit"));
}

#[test]
fn when_no_quality_fits_the_dimensions_step_down() {
    let bytes = png(photo(800, 800));
    let pixels = pixels::Pixels::from_dynamic(photo(800, 800).into());
    let smallest = fit::encode_jpeg(&pixels, 40).unwrap().len();
    let limits = ImageLimits {
        max_bytes: smallest / 2,
        ..ImageLimits::default()
    };
    let (fitted, report) = fit_image_bytes(&bytes, None, &limits);
    let (width, height) = decode_replaced(&fitted).dimensions();
    assert!(width < 800 && width == height, "{width}x{height}");
    assert!(report.bytes <= limits.max_bytes);
    assert!(report
        .reason
        .unwrap()
        .contains(&format!("scaled to {width}x{height}")));
}

#[test]
fn a_screenshot_just_over_the_byte_limit_stays_png_with_stronger_compression() {
    let source = screenshot(600, 400);
    let bytes = png(source.clone());
    let pixels = pixels::Pixels::from_dynamic(source.into());
    let fast = fit::encode_png(&pixels, fit::PngEffort::Fast)
        .unwrap()
        .len();
    let smaller = fit::encode_png(&pixels, fit::PngEffort::Smaller)
        .unwrap()
        .len();
    assert!(smaller < fast, "{smaller} < {fast}");
    let limits = ImageLimits {
        max_bytes: (smaller + fast) / 2,
        ..ImageLimits::default()
    };
    assert!(bytes.len() > limits.max_bytes && fast / 2 <= limits.max_bytes);
    let (fitted, report) = fit_image_bytes(&bytes, None, &limits);
    assert_eq!(decode_replaced(&fitted).dimensions(), (600, 400));
    assert_eq!(report.mime_type.as_deref(), Some("image/png"));
    assert_eq!(report.bytes, smaller);
}

#[test]
fn images_that_cannot_fit_are_omitted() {
    for max_bytes in [100, 1] {
        let limits = ImageLimits {
            max_bytes,
            ..ImageLimits::default()
        };
        let (fitted, report) = fit_image_bytes(&png(photo(300, 200)), None, &limits);
        let text = omitted_text(&fitted);
        assert_eq!(
            text,
            format!("[image omitted: image/png 300x200 cannot fit within {max_bytes} bytes]")
        );
        assert_eq!(report.action, ImageAction::Omitted);
        assert_eq!((report.width, report.height), (Some(300), Some(200)));
    }
}

#[test]
fn zero_limits_omit_instead_of_failing() {
    let limits = ImageLimits {
        max_width: 0,
        ..ImageLimits::default()
    };
    let (fitted, _) = fit_image_bytes(&png(photo(10, 10)), None, &limits);
    assert!(omitted_text(&fitted).contains("cannot fit the limits 0x2000"));
}

#[test]
fn decompression_bombs_are_refused_from_the_header() {
    let cases = [
        (
            bomb_png(100_000, 100_000),
            ImageLimits::default(),
            (100_000, 100_000),
        ),
        (
            bomb_png(40_000, 40_000),
            ImageLimits::default(),
            (40_000, 40_000),
        ),
        (
            png(photo(200, 200)),
            ImageLimits {
                max_pixels: 39_999,
                ..ImageLimits::default()
            },
            (200, 200),
        ),
    ];
    for (bytes, limits, (width, height)) in cases {
        let data = encode_base64(&bytes);
        let (fitted, report) = fit_base64_image(&data, "image/png", &limits);
        assert_eq!(
            omitted_text(&fitted),
            format!(
                "[image omitted: image/png {width}x{height} is over the {}-pixel limit]",
                limits.max_pixels
            )
        );
        assert_eq!((report.width, report.height), (Some(width), Some(height)));
        assert_eq!(report.bytes, bytes.len());
    }
}

#[test]
fn truncated_and_corrupt_images_are_omitted() {
    let png_bytes = png(photo(200, 150));
    let jpeg_bytes = jpeg(photo(200, 150));
    let webp_bytes = webp_lossless(&DynamicImage::from(photo(200, 150)).to_rgba8());
    let mut corrupt_png = png_bytes.clone();
    let middle = corrupt_png.len() / 2;
    corrupt_png[middle] ^= 0xFF;
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        (
            "png half",
            png_bytes[..png_bytes.len() / 2].to_vec(),
            "image/png",
        ),
        ("png header only", png_bytes[..40].to_vec(), "image/png"),
        ("png flipped byte", corrupt_png, "image/png"),
        (
            "jpeg half",
            jpeg_bytes[..jpeg_bytes.len() / 2].to_vec(),
            "image/jpeg",
        ),
        (
            "jpeg no end marker",
            jpeg_bytes[..jpeg_bytes.len() - 2].to_vec(),
            "image/jpeg",
        ),
        (
            "webp half",
            webp_bytes[..webp_bytes.len() / 2].to_vec(),
            "image/webp",
        ),
        ("magic only", b"GIF89a".to_vec(), "image/gif"),
    ];
    for (name, bytes, mime) in cases {
        let (fitted, report) = fit_image_bytes(&bytes, Some(mime), &ImageLimits::default());
        let text = omitted_text(&fitted);
        assert!(
            text.starts_with(&format!("[image omitted: {mime} could not be decoded: ")),
            "{name}: {text}"
        );
        assert_eq!(report.action, ImageAction::Omitted, "{name}");
        assert_eq!(report.declared_mime_type, None, "{name}");
    }
}

#[test]
fn unrecognised_bytes_and_invalid_base64_are_omitted() {
    let cases = [
        (
            encode_base64(b"<svg xmlns='http://www.w3.org/2000/svg'/>"),
            "[image omitted: not a PNG, JPEG, WebP or GIF image]",
        ),
        (
            String::new(),
            "[image omitted: not a PNG, JPEG, WebP or GIF image]",
        ),
        (
            "not base64!".to_owned(),
            "[image omitted: the data is not valid base64 (",
        ),
        (
            "data:image/png;base64,iVBORw0KGgo=".to_owned(),
            "[image omitted: the data is not valid base64 (",
        ),
    ];
    for (data, prefix) in cases {
        let (fitted, report) = fit_base64_image(&data, "image/png", &ImageLimits::default());
        assert!(omitted_text(&fitted).starts_with(prefix), "{data}");
        assert_eq!(report.mime_type, None);
        assert_eq!(report.declared_mime_type.as_deref(), Some("image/png"));
    }
}

#[test]
fn gifs_use_their_first_frame_and_say_how_many_there_were() {
    let bytes = gif(
        400,
        100,
        &[[255, 0, 0, 255], [0, 0, 255, 255], [0, 255, 0, 255]],
    );
    let (fitted, report) = fit_image_bytes(&bytes, None, &ImageLimits::default());
    assert_eq!(
        fitted,
        FittedImage::Kept {
            mime_type: "image/gif"
        }
    );
    assert!(report.reason.unwrap().contains("first of 3 frames"));

    let limits = ImageLimits {
        max_width: 200,
        ..ImageLimits::default()
    };
    let (fitted, report) = fit_image_bytes(&bytes, None, &limits);
    let output = decode_replaced(&fitted).to_rgb8();
    assert_eq!(output.dimensions(), (200, 50));
    assert_eq!(output.get_pixel(100, 25).0, [255, 0, 0]);
    assert!(report.reason.unwrap().contains("first of 3 frames"));

    let (_, single) = fit_image_bytes(&gif(8, 8, &[[1, 1, 1, 255]]), None, &limits);
    assert_eq!(single.reason, None);
}

#[test]
fn lossless_webp_is_decoded_and_fitted() {
    let rgba = RgbaImage::from_fn(600, 300, |x, y| {
        Rgba([(x % 256) as u8, (y % 256) as u8, 7, 255])
    });
    let bytes = webp_lossless(&rgba);
    let limits = ImageLimits {
        max_width: 300,
        ..ImageLimits::default()
    };
    let (fitted, report) = fit_image_bytes(&bytes, Some("image/webp"), &limits);
    assert_eq!(decode_replaced(&fitted).dimensions(), (300, 150));
    assert_eq!(report.original.unwrap().width, 600);
}

#[test]
fn transparent_pngs_stay_png_with_alpha_when_resized() {
    let rgba = RgbaImage::from_fn(3000, 1000, |x, y| {
        let alpha = if (x / 100 + y / 100) % 2 == 0 { 0 } else { 200 };
        Rgba([(x % 251) as u8, (y % 241) as u8, 90, alpha])
    });
    let (fitted, report) = fit_image_bytes(&png(rgba), None, &ImageLimits::default());
    let output = decode_replaced(&fitted);
    assert_eq!(report.mime_type.as_deref(), Some("image/png"));
    assert_eq!(report.quality, None);
    assert_eq!(output.dimensions(), (2000, 667));
    assert!(output.color().has_alpha());
    assert_eq!(output.to_rgba8().get_pixel(10, 10).0[3], 0);
}

#[test]
fn the_report_serializes_in_camel_case_without_empty_fields() {
    let limits = ImageLimits {
        max_width: 100,
        ..ImageLimits::default()
    };
    let (_, report) = fit_image_bytes(&jpeg(photo(200, 100)), Some("image/png"), &limits);
    let json = serde_json::to_value(&report).unwrap();
    assert_eq!(json["action"], "resized");
    assert_eq!(json["mimeType"], "image/jpeg");
    assert_eq!(json["declaredMimeType"], "image/png");
    assert_eq!(json["width"], 100);
    assert_eq!(json["original"]["width"], 200);
    assert_eq!(json["quality"], 85);

    let (_, kept) = fit_image_bytes(&png(photo(20, 10)), Some("image/png"), &limits);
    let json = serde_json::to_value(&kept).unwrap();
    let keys: Vec<&str> = json
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(keys, ["action", "mimeType", "width", "height", "bytes"]);
}

#[test]
fn every_truncation_of_every_format_is_handled() {
    let small = photo(24, 16);
    let rgba = DynamicImage::from(small.clone()).to_rgba8();
    let files = [
        png(small.clone()),
        jpeg(small.clone()),
        gif(24, 16, &[[9, 8, 7, 255], [1, 2, 3, 255]]),
        webp_lossless(&rgba),
    ];
    for file in files {
        for end in 0..file.len() {
            let (fitted, report) = fit_image_bytes(&file[..end], None, &ImageLimits::default());
            // A prefix may still be a complete image (data after the last frame is optional).
            if report.action == ImageAction::Omitted {
                assert!(omitted_text(&fitted).starts_with("[image omitted: "));
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn garbage_behind_a_magic_number_never_panics(
        magic in prop::sample::select(vec![
            b"\x89PNG\r\n\x1a\n".to_vec(),
            vec![0xFF, 0xD8, 0xFF],
            b"GIF89a".to_vec(),
            b"RIFF\0\0\0\0WEBP".to_vec(),
            Vec::new(),
        ]),
        body in prop::collection::vec(any::<u8>(), 0..512),
    ) {
        let mut bytes = magic;
        bytes.extend_from_slice(&body);
        let (fitted, report) = fit_image_bytes(&bytes, Some("image/png"), &ImageLimits::default());
        if let FittedImage::Omitted { text } = fitted {
            prop_assert!(text.starts_with("[image omitted: "));
            prop_assert_eq!(report.action, ImageAction::Omitted);
        }
    }

    #[test]
    fn arbitrary_strings_as_base64_never_panic(data in ".{0,64}") {
        let _ = fit_base64_image(&data, "image/png", &ImageLimits::default());
    }
}

/// Timing of the reference case (release: `cargo test -p toolwire-core --release --lib --
/// --ignored --nocapture fitting_benchmark`): a 4000x3000 screenshot PNG fitted to 2000 px and
/// 5 MB. Prints the fastest of 7 runs of each stage (the machine is shared). Set
/// `TOOLWIRE_BENCH_PNG=<path>` to write the input PNG for a comparison with sharp.
#[test]
#[ignore]
fn fitting_benchmark() {
    use std::time::Instant;

    let bytes = png(screenshot(4000, 3000));
    if let Ok(path) = std::env::var("TOOLWIRE_BENCH_PNG") {
        std::fs::write(path, &bytes).expect("writes the benchmark PNG");
    }
    let limits = ImageLimits::default();
    let fastest = |stage: &mut dyn FnMut()| {
        (0..7)
            .map(|_| {
                let start = Instant::now();
                stage();
                start.elapsed().as_secs_f64() * 1e3
            })
            .fold(f64::MAX, f64::min)
    };
    let decode = || {
        decode::decode(&bytes, sniff::SniffedFormat::Png, limits.max_pixels)
            .expect("decodes")
            .drop_opaque_alpha()
    };
    let pixels = decode();
    let resized = fit::resize(&pixels, 2000, 1500).expect("resizes");
    let output = fit::encode_png(&resized, fit::PngEffort::Fast).expect("encodes");
    let decode_ms = fastest(&mut || drop(decode()));
    let resize_ms = fastest(&mut || drop(fit::resize(&pixels, 2000, 1500)));
    let encode_ms = fastest(&mut || drop(fit::encode_png(&resized, fit::PngEffort::Fast)));
    let total_ms = fastest(&mut || {
        let (fitted, report) = fit_image_bytes(&bytes, Some("image/png"), &limits);
        assert!(matches!(fitted, FittedImage::Replaced { .. }));
        assert_eq!(report.mime_type.as_deref(), Some("image/png"));
    });
    eprintln!(
        "input {} bytes -> {} bytes; decode {decode_ms:.1} ms, resize {resize_ms:.1} ms, \
         encode {encode_ms:.1} ms; fit_image_bytes {total_ms:.1} ms (fastest of 7)",
        bytes.len(),
        output.len(),
    );
}
