//! `JsonSeqFramer` on any bytes: no panic, and the emitted texts, the `finish` leftover and the
//! error do not depend on where the body is split. Header: `[seed, shape]`.
#![no_main]

use libfuzzer_sys::fuzz_target;
use toolwire_core::wire::decode_error::DecodeErrorKind;
use toolwire_core::wire::json_seq::JsonSeqFramer;
use toolwire_fuzz::{byte_pieces, header};

fn frame(
    pieces: &[&[u8]],
) -> (
    Vec<String>,
    Option<String>,
    Option<(DecodeErrorKind, String)>,
) {
    let mut framer = JsonSeqFramer::new();
    let mut values = Vec::new();
    let mut error = None;
    for piece in pieces {
        framer.push(piece, &mut values);
        error = error.or(framer.take_error());
    }
    let leftover = framer.finish();
    error = error.or(framer.take_error());
    (values, leftover, error)
}

fuzz_target!(|data: &[u8]| {
    let ([seed, shape], body) = header::<2>(data);
    let whole = frame(&[body]);
    let split = frame(&byte_pieces(body, seed, shape));
    assert_eq!(
        whole, split,
        "JSON-sequence framing depends on the split points"
    );
    // Texts are slices of the body (lossily decoded: at most 3 bytes per input byte).
    let emitted: usize = whole.0.iter().chain(&whole.1).map(String::len).sum();
    assert!(
        emitted <= body.len() * 3,
        "framer emitted more than its input"
    );
});
