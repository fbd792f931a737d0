//! `SseFramer` on any bytes: no panic, and the events (and the overflow error) do not depend on
//! where the body is split. Header: `[seed, shape]` choose the split points.
#![no_main]

use libfuzzer_sys::fuzz_target;
use toolwire_core::wire::sse::{SseEvent, SseFramer};
use toolwire_fuzz::{byte_pieces, header};

fn frame(pieces: &[&[u8]]) -> (Vec<SseEvent>, Option<String>) {
    let mut framer = SseFramer::new();
    let mut events = Vec::new();
    let mut error = None;
    for piece in pieces {
        framer.push(piece, &mut events);
        error = error.or(framer.take_error());
    }
    framer.finish(&mut events);
    error = error.or(framer.take_error());
    (events, error)
}

fuzz_target!(|data: &[u8]| {
    let ([seed, shape], body) = header::<2>(data);
    let whole = frame(&[body]);
    let split = frame(&byte_pieces(body, seed, shape));
    assert_eq!(whole, split, "SSE events depend on the split points");
    // Every event's data came from the body, joined with '\n': it cannot be larger.
    for event in &whole.0 {
        assert!(
            event.data.len() <= body.len() * 3,
            "event larger than its input"
        );
    }
});
