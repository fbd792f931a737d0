//! Server-Sent Events framing, following the WHATWG "event stream" interpretation rules.
//!
//! [`SseFramer`] turns the bytes of a `text/event-stream` body, pushed in chunks split at any
//! byte (inside a UTF-8 character, inside `\r\n`, inside a field name), into dispatched
//! [`SseEvent`]s. It does not interpret the data (`[DONE]` is an event like any other).
//!
//! The framer is linear in its input: every byte is looked at once. Only the bytes of the
//! current unfinished line are buffered, and a line or an event larger than 16 MiB is dropped
//! and reported through [`SseFramer::take_error`], so memory stays bounded whatever the input.
//! No input makes it panic.

use std::mem;

use crate::json_text::utf8_lossy;

/// Largest line, and largest data of one event, in bytes (16 MiB).
const MAX_LEN: usize = 16 * 1024 * 1024;

/// The UTF-8 byte order mark, stripped once at the very start of the stream.
const BOM: &[u8] = b"\xEF\xBB\xBF";

/// Capacity above which the line buffer is freed rather than kept for reuse.
const KEEP_CAPACITY: usize = 1024 * 1024;

/// One dispatched event.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct SseEvent {
    /// The last `event:` value of the event's block; `None` when the block had none (or an
    /// empty one, which the spec treats as the default type `message`).
    pub event: Option<String>,
    /// The block's `data:` values joined with `\n` (without a trailing `\n`).
    pub data: String,
}

/// Incremental Server-Sent Events parser: push bytes, collect the events they complete.
///
/// Line ends are CR, LF or CRLF (a CRLF split across two pushes is one line end). Each line is
/// decoded as UTF-8 lossily (invalid bytes become U+FFFD). A blank line dispatches the block's
/// event if it has data. Only the `event` and `data` fields are used (`id`, `retry` and unknown
/// fields are ignored), and lines starting with `:` are comments.
///
/// When a line or the data of one event grows past 16 MiB, the line is dropped (input is
/// skipped up to its end), the block it belongs to is abandoned up to its blank line (so no
/// truncated event is ever dispatched; an oversized comment line abandons nothing), and the
/// problem is reported once through [`SseFramer::take_error`].
#[derive(Debug)]
pub struct SseFramer {
    /// Bytes of the current unfinished line (while `bom_pending`, the bytes of a possible BOM).
    line: Vec<u8>,
    /// At the very start of the stream: whether a BOM is there is not decided yet.
    bom_pending: bool,
    /// The last byte pushed was a CR ending a line: a LF starting the next push belongs to it.
    after_cr: bool,
    /// Dropping the rest of an oversized line.
    discarding: bool,
    /// The current block lost a line or grew too large: ignore it up to its blank line.
    skip_block: bool,
    /// The data buffer: each `data` value followed by `\n`.
    data: String,
    /// The event type buffer: the last `event` value of the block.
    event: Option<String>,
    /// An error not yet taken.
    error: Option<String>,
    /// Largest line and largest event data, in bytes.
    limit: usize,
}

impl Default for SseFramer {
    fn default() -> Self {
        Self::new()
    }
}

impl SseFramer {
    /// Creates a framer at the start of a stream.
    pub fn new() -> Self {
        Self {
            line: Vec::new(),
            bom_pending: true,
            after_cr: false,
            discarding: false,
            skip_block: false,
            data: String::new(),
            event: None,
            error: None,
            limit: MAX_LEN,
        }
    }

    /// Feeds the next bytes of the body, appending to `out` every event they complete.
    pub fn push(&mut self, bytes: &[u8], out: &mut Vec<SseEvent>) {
        let mut input = bytes;
        if self.bom_pending {
            // `line` holds the bytes seen so far, all a proper prefix of the BOM.
            let take = (BOM.len() - self.line.len()).min(input.len());
            self.line.extend_from_slice(&input[..take]);
            input = &input[take..];
            if BOM.starts_with(&self.line) {
                if self.line.len() < BOM.len() {
                    return; // every byte was taken; still undecided
                }
                self.line.clear();
                self.bom_pending = false;
            } else {
                // Not a BOM: those bytes are the start of the first line.
                self.bom_pending = false;
                let start = mem::take(&mut self.line);
                self.feed(&start, out);
            }
        }
        self.feed(input, out);
    }

    /// End of body: a last event not followed by a blank line is still dispatched if it has data.
    ///
    /// An unterminated last line is processed as a line first. The framer is then back at the
    /// start of a new stream (a pending error is kept for [`SseFramer::take_error`]).
    pub fn finish(&mut self, out: &mut Vec<SseEvent>) {
        // A partial BOM at the end is just the bytes of the last line.
        self.bom_pending = false;
        if !self.discarding && !self.line.is_empty() {
            let line = mem::take(&mut self.line);
            self.process_line(&line, out);
        }
        self.dispatch(out);
        *self = Self {
            error: self.error.take(),
            limit: self.limit,
            ..Self::new()
        };
    }

    /// Set when a single line or a single event grew past the limit (16 MiB); the framer then drops input until the next line end and reports it once here.
    ///
    /// Returns the pending error and clears it; a later overflow sets a new one.
    pub fn take_error(&mut self) -> Option<String> {
        self.error.take()
    }

    /// Splits `input` (which never contains a BOM to strip) into lines.
    fn feed(&mut self, input: &[u8], out: &mut Vec<SseEvent>) {
        let mut i = 0;
        if self.after_cr && !input.is_empty() {
            self.after_cr = false;
            if input[0] == b'\n' {
                i = 1;
            }
        }
        while i < input.len() {
            let rest = &input[i..];
            match memchr::memchr2(b'\n', b'\r', rest) {
                Some(len) => {
                    let end = i + len;
                    let mut next = end + 1;
                    if input[end] == b'\r' {
                        match input.get(next) {
                            Some(b'\n') => next += 1,
                            Some(_) => {}
                            None => self.after_cr = true,
                        }
                    }
                    self.end_line(&input[i..end], out);
                    i = next;
                }
                None => {
                    self.append_partial(rest);
                    break;
                }
            }
        }
    }

    /// A line end was found; `tail` is the part of the line in the current push.
    fn end_line(&mut self, tail: &[u8], out: &mut Vec<SseEvent>) {
        if self.discarding {
            // The end of an oversized line: it was dropped and reported already.
            self.discarding = false;
            self.line.clear();
            return;
        }
        if self.line.len() + tail.len() > self.limit {
            let first = self.line.first().or(tail.first()).copied();
            self.line.clear();
            self.overflow_line(first);
            return;
        }
        if self.line.is_empty() {
            self.process_line(tail, out);
        } else {
            let mut line = mem::take(&mut self.line);
            line.extend_from_slice(tail);
            self.process_line(&line, out);
            line.clear();
            if line.capacity() <= KEEP_CAPACITY {
                self.line = line;
            }
        }
    }

    /// Keeps the bytes of an unfinished line, or starts dropping it when it grows too long.
    fn append_partial(&mut self, part: &[u8]) {
        if self.discarding {
            return;
        }
        if self.line.len() + part.len() > self.limit {
            let first = self.line.first().or(part.first()).copied();
            self.line = Vec::new();
            self.discarding = true;
            self.overflow_line(first);
            return;
        }
        self.line.extend_from_slice(part);
    }

    /// Records a line past the limit; `first` is its first byte (a comment loses nothing).
    fn overflow_line(&mut self, first: Option<u8>) {
        if first != Some(b':') {
            self.abandon_block();
        }
        if self.error.is_none() {
            self.error = Some(format!(
                "SSE line longer than {} bytes; dropped it and its event",
                self.limit
            ));
        }
    }

    /// Forgets the current block and ignores its remaining lines up to the blank line.
    fn abandon_block(&mut self) {
        self.data = String::new();
        self.event = None;
        self.skip_block = true;
    }

    /// Interprets one complete line (without its line end).
    fn process_line(&mut self, line: &[u8], out: &mut Vec<SseEvent>) {
        if line.is_empty() {
            self.dispatch(out);
            return;
        }
        if self.skip_block || line[0] == b':' {
            return;
        }
        let (name, value) = match memchr::memchr(b':', line) {
            Some(colon) => {
                let value = &line[colon + 1..];
                (&line[..colon], value.strip_prefix(b" ").unwrap_or(value))
            }
            None => (line, &[][..]),
        };
        match name {
            b"data" => {
                self.data.push_str(&utf8_lossy(value));
                self.data.push('\n');
                if self.data.len() > self.limit {
                    self.abandon_block();
                    if self.error.is_none() {
                        self.error = Some(format!(
                            "SSE event data longer than {} bytes; dropped the event",
                            self.limit
                        ));
                    }
                }
            }
            b"event" => self.event = Some(utf8_lossy(value).into_owned()),
            _ => {} // `id`, `retry` and unknown fields are ignored
        }
    }

    /// End of a block: dispatches its event if it has data, then resets the buffers.
    fn dispatch(&mut self, out: &mut Vec<SseEvent>) {
        let event = self.event.take().filter(|name| !name.is_empty());
        if mem::take(&mut self.skip_block) {
            self.data.clear();
            return;
        }
        if self.data.is_empty() {
            return;
        }
        let mut data = mem::take(&mut self.data);
        data.pop(); // the data buffer always ends with the `\n` of its last value
        out.push(SseEvent { event, data });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn frame_chunks(chunks: &[&[u8]]) -> Vec<SseEvent> {
        let mut framer = SseFramer::new();
        let mut out = Vec::new();
        for chunk in chunks {
            framer.push(chunk, &mut out);
        }
        framer.finish(&mut out);
        assert_eq!(framer.take_error(), None);
        out
    }

    fn frame(body: &[u8]) -> Vec<SseEvent> {
        frame_chunks(&[body])
    }

    fn ev(event: Option<&str>, data: &str) -> SseEvent {
        SseEvent {
            event: event.map(str::to_owned),
            data: data.to_owned(),
        }
    }

    const REPRESENTATIVE: &str = "\u{FEFF}: keep-alive\r\n\
        event: message_start\r\ndata: {\"type\":\"message_start\"}\r\n\r\n\
        data: {\"delta\":\"h\u{e9}llo \u{1F600}\"}\nevent: content_block_delta\n\n\
        id: 7\rretry: 100\rdata: line one\rdata:line two\rdata\r\r\
        data: [DONE]\n\n";

    fn representative_events() -> Vec<SseEvent> {
        vec![
            ev(Some("message_start"), "{\"type\":\"message_start\"}"),
            ev(
                Some("content_block_delta"),
                "{\"delta\":\"h\u{e9}llo \u{1F600}\"}",
            ),
            ev(None, "line one\nline two\n"),
            ev(None, "[DONE]"),
        ]
    }

    #[test]
    fn whole_representative_body_gives_its_events() {
        assert_eq!(frame(REPRESENTATIVE.as_bytes()), representative_events());
    }

    #[test]
    fn two_piece_split_at_every_byte_equals_whole() {
        let body = REPRESENTATIVE.as_bytes();
        let whole = frame(body);
        for cut in 0..=body.len() {
            assert_eq!(
                frame_chunks(&[&body[..cut], &body[cut..]]),
                whole,
                "cut {cut}"
            );
        }
    }

    #[test]
    fn byte_at_a_time_equals_whole() {
        let body = REPRESENTATIVE.as_bytes();
        let chunks: Vec<&[u8]> = body.chunks(1).collect();
        assert_eq!(frame_chunks(&chunks), representative_events());
    }

    #[test]
    fn lf_cr_and_crlf_line_ends_all_work() {
        for eol in ["\n", "\r", "\r\n"] {
            let body = format!("event: e{eol}data: a{eol}data: b{eol}{eol}data: c{eol}{eol}");
            assert_eq!(
                frame(body.as_bytes()),
                vec![ev(Some("e"), "a\nb"), ev(None, "c")],
                "{eol:?}"
            );
        }
    }

    #[test]
    fn crlf_split_across_pushes_is_one_line_end() {
        let events = frame_chunks(&[b"data: a\r", b"\ndata: b\r", b"\n\r", b"\n"]);
        assert_eq!(events, vec![ev(None, "a\nb")]);
    }

    #[test]
    fn cr_then_lf_in_a_later_push_after_an_empty_push_is_one_line_end() {
        let events = frame_chunks(&[b"data: a\r", b"", b"\n\r\n"]);
        assert_eq!(events, vec![ev(None, "a")]);
    }

    #[test]
    fn cr_followed_by_other_byte_in_next_push_ends_the_line() {
        let events = frame_chunks(&[b"data: a\r", b"data: b\r", b"\r"]);
        assert_eq!(events, vec![ev(None, "a\nb")]);
    }

    #[test]
    fn multi_line_data_is_joined_with_newlines() {
        let events = frame(b"data: {\ndata:   \"a\": 1\ndata: }\n\n");
        assert_eq!(events, vec![ev(None, "{\n  \"a\": 1\n}")]);
    }

    #[test]
    fn comments_are_ignored() {
        let events = frame(b": ping\n:\ndata: x\n: inside\n\n: after\n\n");
        assert_eq!(events, vec![ev(None, "x")]);
    }

    #[test]
    fn event_name_applies_whether_before_or_after_data() {
        assert_eq!(frame(b"event: a\ndata: 1\n\n"), vec![ev(Some("a"), "1")]);
        assert_eq!(frame(b"data: 1\nevent: a\n\n"), vec![ev(Some("a"), "1")]);
    }

    #[test]
    fn last_event_field_of_a_block_wins_and_does_not_leak_into_the_next_block() {
        let events = frame(b"event: a\nevent: b\ndata: 1\n\ndata: 2\n\n");
        assert_eq!(events, vec![ev(Some("b"), "1"), ev(None, "2")]);
    }

    #[test]
    fn block_with_event_but_no_data_is_not_dispatched() {
        let events = frame(b"event: ping\n\nid: 3\n\ndata: x\n\n");
        assert_eq!(events, vec![ev(None, "x")]);
    }

    #[test]
    fn empty_data_field_dispatches_an_empty_event() {
        assert_eq!(
            frame(b"data\n\ndata:\n\n"),
            vec![ev(None, ""), ev(None, "")]
        );
    }

    #[test]
    fn empty_event_name_means_no_name() {
        assert_eq!(frame(b"event:\ndata: x\n\n"), vec![ev(None, "x")]);
    }

    #[test]
    fn only_one_leading_space_is_removed_and_later_colons_are_kept() {
        let events = frame(b"data:  two spaces: yes\n\n");
        assert_eq!(events, vec![ev(None, " two spaces: yes")]);
    }

    #[test]
    fn unknown_fields_and_fields_with_similar_names_are_ignored() {
        let events = frame(b"datax: no\nData: no\nfoo: bar\ndata: yes\n\n");
        assert_eq!(events, vec![ev(None, "yes")]);
    }

    #[test]
    fn done_marker_is_an_ordinary_event() {
        assert_eq!(frame(b"data: [DONE]\n\n"), vec![ev(None, "[DONE]")]);
    }

    #[test]
    fn bom_at_stream_start_is_stripped_even_when_split() {
        let body = b"\xEF\xBB\xBFdata: x\n\n";
        for cut in 0..=4 {
            let events = frame_chunks(&[&body[..1.min(cut)], &body[1.min(cut)..cut], &body[cut..]]);
            assert_eq!(events, vec![ev(None, "x")], "cut {cut}");
        }
    }

    #[test]
    fn bom_is_stripped_only_at_the_very_start() {
        let events = frame(b"data: x\n\n\xEF\xBB\xBFdata: y\n\n");
        // The second BOM makes the field name "\u{FEFF}data", an unknown field.
        assert_eq!(events, vec![ev(None, "x")]);
    }

    #[test]
    fn partial_bom_then_other_bytes_are_line_bytes() {
        let events = frame_chunks(&[b"\xEF\xBB", b"data: x\n\ndata: y\n\n"]);
        assert_eq!(events, vec![ev(None, "y")]);
        let events = frame_chunks(&[b"\xEF", b"\n\ndata: y\n\n"]);
        assert_eq!(events, vec![ev(None, "y")]);
    }

    #[test]
    fn utf8_character_split_across_pushes_is_decoded_whole() {
        let body = "data: \u{1F600}\u{e9}\n\n".as_bytes();
        for cut in 6..=11 {
            let events = frame_chunks(&[&body[..cut], &body[cut..]]);
            assert_eq!(events, vec![ev(None, "\u{1F600}\u{e9}")], "cut {cut}");
        }
    }

    #[test]
    fn invalid_utf8_becomes_replacement_characters() {
        let events = frame(b"data: a\xFFb\xC3\n\n");
        assert_eq!(events, vec![ev(None, "a\u{FFFD}b\u{FFFD}")]);
    }

    #[test]
    fn finish_dispatches_an_unterminated_final_event() {
        assert_eq!(frame(b"data: a\ndata: b"), vec![ev(None, "a\nb")]);
        assert_eq!(frame(b"event: e\ndata: a\n"), vec![ev(Some("e"), "a")]);
        assert_eq!(frame(b"event: e\n"), vec![]);
        assert_eq!(frame(b"data: a\r"), vec![ev(None, "a")]);
    }

    #[test]
    fn finish_resets_the_framer_for_a_new_stream() {
        let mut framer = SseFramer::new();
        let mut out = Vec::new();
        framer.push(b"event: e\ndata: a", &mut out);
        framer.finish(&mut out);
        framer.push(b"\xEF\xBB\xBFdata: b\n\n", &mut out);
        framer.finish(&mut out);
        assert_eq!(out, vec![ev(Some("e"), "a"), ev(None, "b")]);
    }

    #[test]
    fn oversized_line_is_dropped_with_its_event_and_reported_once() {
        let mut framer = SseFramer {
            limit: 16,
            ..SseFramer::new()
        };
        let mut out = Vec::new();
        framer.push(b"data: ok\n\nevent: big\ndata: 0123456789", &mut out);
        framer.push(b"0123456789", &mut out);
        framer.push(b"0123456789\ndata: more\n\ndata: after\n\n", &mut out);
        framer.finish(&mut out);
        assert_eq!(out, vec![ev(None, "ok"), ev(None, "after")]);
        let error = framer.take_error().expect("overflow reported");
        assert!(error.contains("16 bytes"), "{error}");
        assert_eq!(framer.take_error(), None);
    }

    #[test]
    fn oversized_line_arriving_whole_is_dropped() {
        let mut framer = SseFramer {
            limit: 16,
            ..SseFramer::new()
        };
        let mut out = Vec::new();
        framer.push(b"data: 0123456789abcdef\n\ndata: y\n\n", &mut out);
        assert_eq!(out, vec![ev(None, "y")]);
        assert!(framer.take_error().is_some());
    }

    #[test]
    fn oversized_comment_line_keeps_the_event() {
        let mut framer = SseFramer {
            limit: 16,
            ..SseFramer::new()
        };
        let mut out = Vec::new();
        framer.push(b"data: a\n: 0123456789abcdef", &mut out);
        framer.push(b"0123\ndata: b\n\n", &mut out);
        assert_eq!(out, vec![ev(None, "a\nb")]);
        assert!(framer.take_error().is_some());
    }

    #[test]
    fn oversized_event_data_is_dropped_and_reported() {
        let mut framer = SseFramer {
            limit: 16,
            ..SseFramer::new()
        };
        let mut out = Vec::new();
        framer.push(
            b"data: 01234567\ndata: 01234567\ndata: x\n\ndata: y\n\n",
            &mut out,
        );
        assert_eq!(out, vec![ev(None, "y")]);
        assert!(framer.take_error().unwrap().contains("event data"));
    }

    #[test]
    fn line_past_the_real_16_mib_limit_is_dropped() {
        let mut framer = SseFramer::new();
        let mut out = Vec::new();
        framer.push(b"data: ", &mut out);
        framer.push(&vec![b'x'; MAX_LEN], &mut out);
        assert!(framer.line.is_empty(), "the oversized line is not kept");
        framer.push(b"x\n\ndata: after\n\n", &mut out);
        assert_eq!(out, vec![ev(None, "after")]);
        assert!(framer.take_error().is_some());
    }

    /// One block of a generated stream.
    #[derive(Clone, Debug)]
    struct Block {
        event: Option<String>,
        event_first: bool,
        data_lines: Vec<String>,
        comment: bool,
    }

    fn field_text() -> impl Strategy<Value = String> {
        // No CR or LF; any other character, including ':' and non-ASCII.
        proptest::collection::vec(
            prop_oneof![
                Just(':'),
                Just(' '),
                any::<char>().prop_filter("no line ends", |c| *c != '\r' && *c != '\n'),
                proptest::char::range('a', 'z'),
            ],
            0..12,
        )
        .prop_map(|chars| chars.into_iter().collect())
    }

    fn block() -> impl Strategy<Value = Block> {
        (
            proptest::option::of(field_text()),
            any::<bool>(),
            proptest::collection::vec(field_text(), 1..4),
            any::<bool>(),
        )
            .prop_map(|(event, event_first, data_lines, comment)| Block {
                event,
                event_first,
                data_lines,
                comment,
            })
    }

    /// Serializes blocks with the given line ends (cycled), never writing a CR line end
    /// followed by a LF line end (that would be one CRLF).
    fn serialize(blocks: &[Block], eols: &[u8], bom: bool) -> Vec<u8> {
        let mut lines: Vec<String> = Vec::new();
        for block in blocks {
            if block.comment {
                lines.push(": comment".to_owned());
            }
            let event = block.event.as_ref().map(|e| format!("event: {e}"));
            if block.event_first {
                lines.extend(event.clone());
            }
            lines.extend(block.data_lines.iter().map(|d| format!("data: {d}")));
            if !block.event_first {
                lines.extend(event);
            }
            lines.push(String::new());
        }
        let mut body = if bom { BOM.to_vec() } else { Vec::new() };
        let mut last_cr = false;
        for (i, line) in lines.iter().enumerate() {
            body.extend_from_slice(line.as_bytes());
            let mut eol: &[u8] = match eols[i % eols.len()] % 3 {
                0 => b"\n",
                1 => b"\r",
                _ => b"\r\n",
            };
            if last_cr && line.is_empty() && eol == b"\n" {
                eol = b"\r\n";
            }
            last_cr = eol == b"\r";
            body.extend_from_slice(eol);
        }
        body
    }

    fn expected(blocks: &[Block]) -> Vec<SseEvent> {
        blocks
            .iter()
            .map(|block| SseEvent {
                event: block.event.clone().filter(|e| !e.is_empty()),
                data: block.data_lines.join("\n"),
            })
            .collect()
    }

    proptest! {
        #[test]
        fn random_events_with_random_line_ends_and_splits_round_trip(
            blocks in proptest::collection::vec(block(), 0..8),
            eols in proptest::collection::vec(any::<u8>(), 1..16),
            bom in any::<bool>(),
            cuts in proptest::collection::vec(any::<prop::sample::Index>(), 0..8),
        ) {
            let body = serialize(&blocks, &eols, bom);
            let mut cuts: Vec<usize> = cuts.iter().map(|c| c.index(body.len() + 1)).collect();
            cuts.sort_unstable();
            let mut chunks: Vec<&[u8]> = Vec::new();
            let mut start = 0;
            for cut in cuts {
                chunks.push(&body[start..cut]);
                start = cut;
            }
            chunks.push(&body[start..]);
            prop_assert_eq!(frame_chunks(&chunks), expected(&blocks));
        }
    }
}
