//! `StreamDecoder` (`Wire::Anthropic`) on any body: no panic, every `push`/`finish`/`take_events`
//! answer is JSON, the turn keeps its invariants, and the turn does not depend on where the
//! body is split (generated call ids blanked). Header: `[options, seed, shape]`.
#![no_main]

use libfuzzer_sys::fuzz_target;
use toolwire_core::provider::Wire;

fuzz_target!(|data: &[u8]| toolwire_fuzz::check_decoder(Wire::Anthropic, data));
