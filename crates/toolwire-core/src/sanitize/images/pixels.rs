//! Decoded 8-bit pixels and the whole-image facts the fitting ladder needs: whether alpha is
//! really used, whether the picture looks like a screenshot, and flattening alpha onto white.

use image::{DynamicImage, ExtendedColorType};

/// An 8-bit image with 1 (grey), 2 (grey + alpha), 3 (RGB) or 4 (RGBA) interleaved channels.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Pixels {
    pub(super) width: u32,
    pub(super) height: u32,
    pub(super) channels: u8,
    pub(super) data: Vec<u8>,
}

impl Pixels {
    /// Converts a decoded image to 8 bits per channel, keeping grey/colour and alpha as they are.
    pub(super) fn from_dynamic(image: DynamicImage) -> Self {
        let (width, height) = (image.width(), image.height());
        let color = image.color();
        let (channels, data) = match (color.has_color(), color.has_alpha()) {
            (false, false) => (1, image.into_luma8().into_raw()),
            (false, true) => (2, image.into_luma_alpha8().into_raw()),
            (true, false) => (3, image.into_rgb8().into_raw()),
            (true, true) => (4, image.into_rgba8().into_raw()),
        };
        Self {
            width,
            height,
            channels,
            data,
        }
    }

    /// Whether there is an alpha channel.
    pub(super) fn has_alpha(&self) -> bool {
        matches!(self.channels, 2 | 4)
    }

    /// The colour type for encoders.
    pub(super) fn color_type(&self) -> ExtendedColorType {
        match self.channels {
            1 => ExtendedColorType::L8,
            2 => ExtendedColorType::La8,
            3 => ExtendedColorType::Rgb8,
            _ => ExtendedColorType::Rgba8,
        }
    }

    /// Drops the alpha channel when every pixel is fully opaque (an RGBA screenshot), which makes
    /// resizing and encoding cheaper and the output smaller.
    pub(super) fn drop_opaque_alpha(self) -> Self {
        if !self.has_alpha() {
            return self;
        }
        let stride = usize::from(self.channels);
        let opaque = self
            .data
            .chunks_exact(stride)
            .all(|pixel| pixel[stride - 1] == u8::MAX);
        if opaque {
            self.without_alpha(|colour, _| colour)
        } else {
            self
        }
    }

    /// Composites the image onto a white background (for JPEG, which has no alpha).
    pub(super) fn flatten_on_white(&self) -> Option<Self> {
        if !self.has_alpha() {
            return None;
        }
        Some(self.clone().without_alpha(|colour, alpha| {
            let (colour, alpha) = (u32::from(colour), u32::from(alpha));
            // colour * a + 255 * (255 - a), divided by 255 with rounding.
            let mixed = colour * alpha + 255 * (255 - alpha);
            ((mixed + 127) / 255) as u8
        }))
    }

    /// Removes the last channel, mapping each colour component with `(component, alpha)`.
    fn without_alpha(self, mut mix: impl FnMut(u8, u8) -> u8) -> Self {
        let stride = usize::from(self.channels);
        let mut data = Vec::with_capacity(self.data.len() / stride * (stride - 1));
        for pixel in self.data.chunks_exact(stride) {
            let alpha = pixel[stride - 1];
            data.extend(pixel[..stride - 1].iter().map(|&c| mix(c, alpha)));
        }
        Self {
            width: self.width,
            height: self.height,
            channels: self.channels - 1,
            data,
        }
    }

    /// Whether the picture looks like a screenshot or graphic rather than a photo: in a sample of
    /// up to 256 evenly spaced rows, at least half of the horizontally adjacent pixels are
    /// identical (flat fills and crisp text; photos and their sensor noise almost never repeat).
    pub(super) fn looks_like_graphics(&self) -> bool {
        let stride = usize::from(self.channels);
        let row_len = self.width as usize * stride;
        if self.width < 2 || row_len == 0 {
            return false;
        }
        let rows = self.data.chunks_exact(row_len);
        let step = (rows.len() / 256).max(1);
        let (mut same, mut total) = (0usize, 0usize);
        for row in rows.step_by(step) {
            let mut pixels = row.chunks_exact(stride);
            let mut previous = pixels.next();
            for pixel in pixels {
                same += usize::from(previous == Some(pixel));
                total += 1;
                previous = Some(pixel);
            }
        }
        total > 0 && same * 2 >= total
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pixels(channels: u8, data: &[u8], width: u32) -> Pixels {
        let height = (data.len() / usize::from(channels)) as u32 / width;
        Pixels {
            width,
            height,
            channels,
            data: data.to_vec(),
        }
    }

    #[test]
    fn opaque_alpha_is_dropped_and_real_alpha_kept() {
        let cases: &[(u8, &[u8], u8, &[u8])] = &[
            (4, &[1, 2, 3, 255, 4, 5, 6, 255], 3, &[1, 2, 3, 4, 5, 6]),
            (
                4,
                &[1, 2, 3, 255, 4, 5, 6, 0],
                4,
                &[1, 2, 3, 255, 4, 5, 6, 0],
            ),
            (2, &[9, 255, 8, 255], 1, &[9, 8]),
            (3, &[1, 2, 3, 4, 5, 6], 3, &[1, 2, 3, 4, 5, 6]),
        ];
        for &(channels, data, out_channels, out) in cases {
            let result = pixels(channels, data, 2).drop_opaque_alpha();
            assert_eq!(
                (result.channels, result.data.as_slice()),
                (out_channels, out)
            );
        }
    }

    #[test]
    fn flattening_composites_on_white() {
        let rgba = pixels(4, &[0, 0, 0, 0, 0, 0, 0, 255, 100, 200, 0, 128], 3);
        let flat = rgba.flatten_on_white().expect("has alpha");
        assert_eq!(flat.channels, 3);
        assert_eq!(flat.data, [255, 255, 255, 0, 0, 0, 177, 227, 127]);
        assert_eq!(pixels(3, &[1, 2, 3], 1).flatten_on_white(), None);
    }

    #[test]
    fn screenshots_and_photos_are_told_apart() {
        let flat = pixels(3, &[7; 3 * 64], 16);
        let mut noisy = Vec::new();
        let mut state = 1u32;
        for _ in 0..3 * 64 {
            state = state.wrapping_mul(1_103_515_245).wrapping_add(12345);
            noisy.push((state >> 16) as u8);
        }
        let cases = [
            (flat, true),
            (pixels(3, &noisy, 16), false),
            (pixels(3, &[1, 2, 3], 1), false),
        ];
        for (image, expected) in cases {
            assert_eq!(image.looks_like_graphics(), expected);
        }
    }
}
