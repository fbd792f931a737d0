//! The layout of every block of a content description (see [`crate::layout`] and
//! [`super::blocks`]): `crate::contract` generates the driver's tuple types from it
//! (`ts/protocol.generated.ts`, written by `ts/sanitize.ts`), and the engine reads every block
//! through it, refusing one that does not fit.

use super::blocks::BlockCode;
use crate::layout::{el, Holds, Layout};

/// The layout of every described block, in the order of their codes.
pub const BLOCK_LAYOUTS: &[Layout] = &[
    Layout {
        code: BlockCode::Whole as u8,
        name: "Whole",
        doc: "A whole string: `texts[text]`.",
        elements: &[el("text", "number", Holds::Index)],
    },
    Layout {
        code: BlockCode::Ends as u8,
        name: "Ends",
        doc: "A string much longer than the budget, by its two ends: `texts[head]` and `texts[tail]`, and its whole length in UTF-16 code units.",
        elements: &[
            el("head", "number", Holds::Index),
            el("tail", "number", Holds::Index),
            el("length", "number", Holds::Index),
        ],
    },
    Layout {
        code: BlockCode::Bytes as u8,
        name: "Bytes",
        doc: "UTF-8 text that never became a JavaScript string: `buffers[buffer]`.",
        elements: &[el("buffer", "number", Holds::Index)],
    },
    Layout {
        code: BlockCode::Image as u8,
        name: "Image",
        doc: "A base64 image: its data `texts[data]`, its declared MIME type.",
        elements: &[
            el("data", "number", Holds::Index),
            el("mimeType", "string", Holds::Text),
        ],
    },
];

/// Why the described `block` does not fit its layout, if it does not.
pub fn misfit(block: &serde_json::Value) -> Option<String> {
    crate::layout::misfit(BLOCK_LAYOUTS, block)
}

#[cfg(test)]
mod tests {
    use super::super::blocks::{parse_blocks, BlockRef};
    use super::*;
    use serde_json::Value;

    #[test]
    fn every_block_code_has_one_layout_in_code_order() {
        crate::layout::check_codes::<BlockCode>(BLOCK_LAYOUTS);
    }

    /// One block of every kind, written as `describeContent` (ts/sanitize.ts) writes it, fits
    /// its layout and reads as that block; together they cover every code.
    #[test]
    fn a_block_of_every_kind_fits_its_layout_and_reads_back() {
        let written = r#"[[0,0],[1,1,2,100000],[2,0],[3,3,"image/png"]]"#;
        let blocks: Vec<Value> = serde_json::from_str(written).unwrap();
        crate::layout::check_every_code(BLOCK_LAYOUTS, &blocks);
        assert_eq!(
            parse_blocks(&blocks).unwrap(),
            [
                BlockRef::Whole { i: 0 },
                BlockRef::Ends {
                    h: 1,
                    e: 2,
                    n: 100_000
                },
                BlockRef::Bytes { i: 0 },
                BlockRef::Image {
                    i: 3,
                    m: "image/png".into()
                },
            ]
        );
    }
}
