#!/bin/sh
# Builds the seed corpus of every fuzz target from the shared provider fixtures.
#
#   fuzz/seed.sh [FIXTURES_DIR]        (default: ../shared/fixtures next to the repository)
#
# Seeds go to fuzz/corpus/<target>/, which is git-ignored: they are generated here at run time
# and never committed. Each seed is a fixture behind the target's header bytes (see
# fuzz/README.md): a 2-byte header `[seed, shape]` for the framers and partial_json, a 3-byte
# header `[options, seed, shape]` for the decode_* targets, `[wire, options]` for decode_events.
# Re-running the script overwrites the seeds it wrote and leaves the rest of the corpus alone.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
fixtures=${1:-$here/../../shared/fixtures}
if [ ! -d "$fixtures" ]; then
    echo "seed.sh: no fixtures directory at $fixtures" >&2
    exit 1
fi
fixtures=$(cd "$fixtures" && pwd)
corpus=$here/corpus

# seed TARGET NAME HEADER FILE: writes HEADER (printf octal escapes) then FILE.
seed() {
    mkdir -p "$corpus/$1"
    { printf "$3"; cat "$4"; } >"$corpus/$1/$2"
}

# Fixture files of the given wire directories (files directly inside them).
files() {
    for dir in "$@"; do
        for file in "$fixtures/$dir"/*; do
            [ -f "$file" ] && printf '%s\n' "$file"
        done
    done
}

# Split shapes: pieces of 0-1 bytes, of 0-8 bytes, and of up to 256 bytes.
framer_headers='\000\000 \001\007 \002\203'

all_files=$(files anthropic gemini openai-chat openai-compatible-chat openai-responses)

for file in $all_files; do
    name=$(basename "$file")
    n=0
    for h in $framer_headers; do
        seed sse_framer "$name.$n" "$h" "$file"
        seed json_seq_framer "$name.$n" "$h" "$file"
        n=$((n + 1))
    done
done

# decode_<wire>: the fixtures of that wire, default options and three split shapes, plus one
# seed with `partial: object` and `cumulativeArguments: auto`.
decoder_headers='\000\000\000 \000\001\007 \000\002\203 \007\003\017'
seed_decoder() {
    target=$1
    shift
    for file in $(files "$@"); do
        n=0
        for h in $decoder_headers; do
            seed "$target" "$(basename "$file").$n" "$h" "$file"
            n=$((n + 1))
        done
    done
}
seed_decoder decode_openai_chat openai-chat openai-compatible-chat
seed_decoder decode_mistral openai-compatible-chat openai-chat
seed_decoder decode_openai_responses openai-responses
seed_decoder decode_anthropic anthropic
seed_decoder decode_gemini gemini

# decode_events: one JSON event per line. `*.chunks.txt` already are; SSE bodies are reduced to
# their `data:` values (without `[DONE]`). Header byte 0 picks the wire:
# 0 Chat, 1 Responses, 2 Anthropic, 3 Gemini, 4 Mistral.
events_tmp=$(mktemp)
trap 'rm -f "$events_tmp"' EXIT
seed_events() {
    wire=$1
    shift
    for file in $(files "$@"); do
        sed -n 's/^data: \{0,1\}//p' "$file" | grep -v '^\[DONE\]' >"$events_tmp" || true
        if [ ! -s "$events_tmp" ]; then
            cp "$file" "$events_tmp"
        fi
        seed decode_events "$(basename "$file").$wire" "$wire\000" "$events_tmp"
    done
}
seed_events '\000' openai-chat openai-compatible-chat
seed_events '\001' openai-responses
seed_events '\002' anthropic
seed_events '\003' gemini
seed_events '\004' openai-compatible-chat

# partial_json: every JSON document, and each line of the one-event-per-line fixtures.
for file in $all_files "$fixtures"/*.json; do
    [ -f "$file" ] || continue
    name=$(basename "$file")
    case "$name" in
    *.json | *.json-array-stream) seed partial_json "$name" '\000\000' "$file" ;;
    *.chunks.txt)
        i=0
        while IFS= read -r line; do
            printf '%s' "$line" >"$events_tmp"
            seed partial_json "$name.$i" '\001\007' "$events_tmp"
            i=$((i + 1))
        done <"$file"
        ;;
    esac
done

# rap_callback: one message of each RAP callback type (written here: no fixture holds them).
mkdir -p "$corpus/rap_callback"
i=0
for message in \
    '{"type":"tool_result","group_id":"g","id":"c","call_id":"p","text":"Error: x","display_as":[{"type":"diff","content":{"path":"a","patch":"p"}}],"subscription":true}' \
    '{"type":"tool_result","group_id":"g","id":"c","content":[{"type":"text","text":"t"},{"type":"image","data":"AA==","mediaType":"image/png"}]}' \
    '{"type":"subscription_event","group_id":"g","tool_call_id":"c","text":"e","associative":true,"final":true}' \
    '{"type":"oauth","group_id":"g","id":"c","auth_url":"https://a"}' \
    '{"type":"user_choice","group_id":"g","id":"c","prompt":"p","choices":["a","b"],"default":1,"response_url":"http://r"}' \
    '{"type":"view_update","group_id":"g","view_type":"diff","content":{"a":[1,2.5,null]}}'; do
    printf '%s' "$message" >"$corpus/rap_callback/message.$i"
    i=$((i + 1))
done

for dir in "$corpus"/*; do
    echo "$(basename "$dir"): $(find "$dir" -type f | wc -l) inputs"
done
