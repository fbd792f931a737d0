//! What a decoder reports about a provider quirk it coped with, by a stable kind: the turn's
//! `repairs` and each `repair` event carry it, so a user (and the CLI's `replay`) learns which
//! repairs were made without reading the wire again (generated for JavaScript as `RepairKind`).
//!
//! A decoder records a repair ([`super::turn::Turn::repair`]) at the place in its code where it
//! makes it, naming the call it concerns where there is one; the turn keeps each kind once per
//! call, in the order of first occurrence.

crate::named! {
    /// The kind of a repair a decoder made; its name is stable.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
    pub enum RepairKind {
        /// The body was one whole (non-streamed) response, read as its stream would be.
        WholeResponse => "whole-response",
        /// Chat Completions: a chunk with no choices, only content-filter results (Azure); skipped.
        FilterOnlyChunk => "filter-only-chunk",
        /// Chat Completions: an empty tool call fragment after the turn finished; a no-op.
        TrailingEmptyFragment => "trailing-empty-fragment",
        /// An event without the `index` that places it, where its place is not in doubt: Chat
        /// Completions, a tool call fragment keyed by its position in the delta instead;
        /// Anthropic, a block start taking the next index, a delta or stop going to the one open
        /// block it can belong to, a text or thinking delta taken as it comes.
        MissingIndex => "missing-index",
        /// Chat Completions: `""` as a fragment's `id` or `name`; taken as absent.
        EmptyStringFields => "empty-string-fields",
        /// Chat Completions: the provider's `index` is not the call's position; renumbered.
        IndexOffset => "index-offset",
        /// A new call on an index a finished call (Anthropic: a closed block) holds; a call of its
        /// own.
        IndexReused => "index-reused",
        /// Chat Completions: the call's id changed between its fragments; the first was kept.
        UnstableId => "unstable-id",
        /// The call's name sent again in a later fragment; not doubled.
        NameRepeated => "name-repeated",
        /// The call's name split across fragments; joined.
        NameSplit => "name-split",
        /// A name fragment after the call's arguments began; ignored (the call was announced).
        NameAfterArguments => "name-after-arguments",
        /// The whole arguments sent again after their fragments; not duplicated.
        ArgumentsResent => "arguments-resent",
        /// Each fragment held the arguments so far; replaced, not appended.
        CumulativeArguments => "cumulative-arguments",
        /// The call came without an id; one was generated (results must reference it).
        MissingId => "missing-id",
        /// The provider sent an id an earlier call of the turn has; a new one was generated (the
        /// same on every wire: ids are unique within a turn, results are matched by them).
        DuplicateCallId => "duplicate-call-id",
        /// The start of a call or block sent again while it was open (Anthropic
        /// `content_block_start`, Responses `output_item.added`: the same index, the same id);
        /// the repeat was ignored, so it is one call.
        RepeatedStart => "repeated-start",
        /// Responses: an event whose `sequence_number` the response already had (a repeated
        /// event); the repeat was ignored.
        RepeatedEvent => "repeated-event",
        /// The stop reason said `stop` while the turn holds complete calls; the turn is `toolUse`.
        FinishStopWithCalls => "finish-stop-with-calls",
        /// Responses: an event's `item_id` differs from its item's; matched by `output_index`.
        ItemIdRotation => "item-id-rotation",
        /// Responses: no argument deltas; the arguments were taken from the `.done` events.
        NoArgumentDeltas => "no-argument-deltas",
        /// Responses: the final arguments contradict the deltas; the final text was kept.
        ArgumentsCorrected => "arguments-corrected",
        /// Anthropic: the same `message_start` twice; the repeat was ignored.
        DuplicateMessageStart => "duplicate-message-start",
        /// Anthropic: a whole `tool_use` inside `message_start`, with no block events.
        ToolUseInMessageStart => "tool-use-in-message-start",
        /// Argument fragments that were all empty; the call takes no arguments (`{}`).
        EmptyToolInput => "empty-tool-input",
        /// Anthropic: the input came whole in `content_block_start`, with no fragments.
        WholeInputInBlockStart => "whole-input-in-block-start",
        /// Anthropic: a `tool_use` block never closed; the message's end ended it (or cut it).
        BlockNotClosed => "block-not-closed",
        /// Gemini: the arguments streamed as `partialArgs`; the nameless parts are not calls.
        PartialArgsStreaming => "partial-args-streaming",
        /// Gemini: a streamed call not closed by an empty `functionCall`; ended by what followed.
        MissingTerminalFunctionCall => "missing-terminal-function-call",
    }
}

#[cfg(test)]
mod tests {
    use super::RepairKind as K;

    #[test]
    fn kinds_serialize_as_their_names() {
        crate::boundary_enums::assert_names_distinct_and_serialized::<K>();
    }
}
