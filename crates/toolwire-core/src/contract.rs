//! The contract between the engine and its JavaScript driver: every numeric code, name and
//! constant both sides use, declared once in Rust and generated for JavaScript.
//!
//! Code enums are declared with [`codes!`](crate::codes), which gives each variant its number and
//! lists them ([`Codes`]), name enums with [`named!`](crate::named) ([`Named`]); both live in the
//! leaf [`crate::boundary_enums`], so the modules declaring such enums need nothing of this one.
//! [`typescript`] writes them, with the shared [`CONSTANTS`] and the engine's error codes, as
//! `ts/protocol.generated.ts`. A test keeps the committed files equal to what this module
//! generates; `npm run contract` rewrites them.

use std::fmt::Write as _;

use crate::boundary_enums::{Codes, Named};

/// A constant both sides use.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Constant {
    /// A whole number.
    Number(u64),
    /// A text.
    Text(&'static str),
    /// A list of texts (a frozen array in JavaScript).
    Texts(&'static [&'static str]),
}

/// The shared constants: `(JavaScript name, value, what it is)`.
pub const CONSTANTS: &[(&str, Constant, &str)] = &[
    (
        "MAX_BATCH_ID",
        Constant::Number(crate::dispatch::protocol::MAX_BATCH_ID as u64),
        "The largest batch id a driver may choose (batch ids cross as 32-bit numbers).",
    ),
    (
        "COMPLETION_HEAD_LEN",
        Constant::Number(crate::dispatch::protocol::COMPLETION_HEAD_LEN as u64),
        "The numbers of one completion's head: batch, slot, token, kind, and its payload's length.",
    ),
    (
        "COMPLETION_READINGS_LEN",
        Constant::Number(crate::dispatch::protocol::COMPLETION_READINGS_LEN as u64),
        "The clock readings of one completion: performance.now() when its tool started and when it settled (NaN for anything but a tool).",
    ),
    (
        "JOINED_SEPARATOR",
        Constant::Text(crate::joined::SEPARATOR),
        "What joins texts crossing as one string, each with its length beside it (toolwire_core::joined).",
    ),
    (
        "MAX_VALUE_DEPTH",
        Constant::Number(crate::json_input::MAX_VALUE_DEPTH as u64),
        "How deep a value handed to the engine may nest (deeper ones are refused).",
    ),
    (
        "MAX_QUOTED_BYTES",
        Constant::Number(crate::quote::MAX_QUOTED_BYTES as u64),
        "The most of a value a message quotes.",
    ),
    (
        "SECRET_WINDOW",
        Constant::Number(crate::sanitize::text::SECRET_WINDOW as u64),
        "How far past a cut secrets are searched for, in characters.",
    ),
    (
        "DEFAULT_MAX_RESULT_CHARS",
        Constant::Number(crate::sanitize::options::DEFAULT_MAX_RESULT_CHARS),
        "The per-result budget of characters when none is given.",
    ),
    (
        "NO_OUTPUT",
        Constant::Text(crate::output::NO_OUTPUT),
        "The text of a tool that returned nothing.",
    ),
    (
        "ENCODED_RESULT_KEYS",
        Constant::Texts(crate::wire::encode::RESULT_KEYS),
        "The keys of a result that encodeResults reads; the driver sends only these.",
    ),
    (
        "PLAN_MAX_RETRIES",
        Constant::Number(crate::plan::MAX_RETRIES),
        "The most retries a plan step may ask for.",
    ),
    (
        "PLAN_DEFAULT_MAX_RETRIES",
        Constant::Number(crate::plan::DEFAULT_MAX_RETRIES as u64),
        "The retries a plan step may take when `maxRetries` is not given.",
    ),
    (
        "PLAN_DEFAULT_MAX_CONCURRENCY",
        Constant::Number(crate::plan::DEFAULT_MAX_CONCURRENCY as u64),
        "How many plan steps run at once when `maxConcurrency` is not given.",
    ),
];

/// `StartEvent` -> `START_EVENT`.
pub fn js_name(rust: &str) -> String {
    let mut out = String::with_capacity(rust.len() + 4);
    let mut previous_lower = false;
    for c in rust.chars() {
        if c.is_ascii_uppercase() && previous_lower {
            out.push('_');
        }
        previous_lower = c.is_ascii_lowercase() || c.is_ascii_digit();
        out.push(c.to_ascii_uppercase());
    }
    out
}

/// An enum as JavaScript sees it: a frozen object of `KEY: value`.
struct Group {
    js: &'static str,
    doc: &'static str,
    rust: &'static str,
    /// `(key, value as a JavaScript literal)`; each value's meaning is documented on its Rust
    /// variant (the generated files stay small: they ship in the package).
    entries: Vec<(String, String)>,
}

fn group<C: Codes>(js: &'static str, rust: &'static str, doc: &'static str) -> Group {
    Group {
        js,
        doc,
        rust,
        entries: C::ALL
            .iter()
            .map(|c| (js_name(c.name()), c.code().to_string()))
            .collect(),
    }
}

fn named_group<N: Named>(js: &'static str, rust: &'static str, doc: &'static str) -> Group {
    Group {
        js,
        doc,
        rust,
        entries: N::ALL
            .iter()
            .map(|n| {
                let value = serde_json::to_string(n.as_str()).expect("a string serializes");
                (js_name(n.rust_name()), value)
            })
            .collect(),
    }
}

fn groups() -> Vec<Group> {
    use crate::audit::LogFile;
    use crate::dispatch::protocol::{ActionCode, ArgumentKind, CompletionCode};
    use crate::output::OutputShape;
    vec![
        group::<ActionCode>(
            "Action",
            "toolwire_core::dispatch::protocol::ActionCode",
            "Actions from the engine: `[code, ...]`, what the driver must do, in order.",
        ),
        group::<crate::plan::PlanActionCode>(
            "PlanAction",
            "toolwire_core::plan::PlanActionCode",
            "A plan run's actions: `[code, ...]`, what the plan driver must do, in order.",
        ),
        group::<crate::rap_message::RapMessageCode>(
            "RapMessage",
            "toolwire_core::rap_message::RapMessageCode",
            "The RAP transport's messages: `[code, ...]`, a ticket's answer or an event, as many as are ready per crossing.",
        ),
        group::<crate::sanitize::blocks::BlockCode>(
            "DescribedBlock",
            "toolwire_core::sanitize::blocks::BlockCode",
            "Content described for the engine: each block `[code, ...]`, by index into the texts and buffers beside it.",
        ),
        group::<CompletionCode>(
            "Completion",
            "toolwire_core::dispatch::protocol::CompletionCode",
            "Completions to the engine: `[batch, slot, token, kind]`, what a tool or hook did.",
        ),
        group::<OutputShape>(
            "OutputShape",
            "toolwire_core::output::OutputShape",
            "How a result as returned is rebuilt from the tool's value.",
        ),
        group::<ArgumentKind>(
            "ArgumentKind",
            "toolwire_core::dispatch::protocol::ArgumentKind",
            "How a call's arguments text is to be read: `[id, name, kind]`.",
        ),
        group::<LogFile>(
            "LogFile",
            "toolwire_core::audit::LogFile",
            "The audit log file a record goes to.",
        ),
        named_group::<crate::wire::decode_error::DecodeErrorKind>(
            "DecodeErrorKind",
            "toolwire_core::wire::decode_error::DecodeErrorKind",
            "What a decoder error is about: an `error` event's `kind`, an AssembledTurn's `errorKinds`.",
        ),
        named_group::<crate::wire::repair::RepairKind>(
            "RepairKind",
            "toolwire_core::wire::repair::RepairKind",
            "What a decoder repaired of a provider quirk: a `repair` event's `kind`, the `kind` of each of an AssembledTurn's `repairs`.",
        ),
    ]
}

/// A doc comment's text as a JSDoc line (no `*/` can close it early).
fn jsdoc(indent: &str, text: &str) -> String {
    format!("{indent}/** {} */\n", text.replace("*/", "*\\/"))
}

/// The constant as a TypeScript expression: a literal, a text list frozen with its literal
/// type kept.
fn constant_ts(value: Constant) -> String {
    match value {
        Constant::Number(n) => n.to_string(),
        Constant::Text(text) => serde_json::to_string(text).expect("a string serializes"),
        Constant::Texts(texts) => format!("Object.freeze({} as const)", texts_literal(texts)),
    }
}

/// The wires (`crate::provider::Wire::ALL`) and each one's request body shape
/// (`crate::provider::RequestShape`), keyed by the wire's name.
fn request_shapes(ts: &mut String) {
    ts.push('\n');
    let wires = crate::provider::Wire::ALL.map(crate::provider::Wire::as_str);
    named_list(
        ts,
        ("WIRES", "The provider wire APIs, in the engine's order."),
        ("Wire", "The provider wire APIs a StreamDecoder reads."),
        &wires,
    );
    ts.push_str(&jsdoc(
        "",
        "Each wire's request body (toolwire_core::provider::RequestShape): the keys of the history and of the tool choice, whether it asks for a stream, and whether for the stream's usage.",
    ));
    ts.push_str("export const REQUEST_SHAPES = Object.freeze({\n");
    for wire in crate::provider::Wire::ALL {
        let shape = crate::provider::Provider::of(wire).request;
        let _ = writeln!(
            ts,
            "  {}: Object.freeze({{ history: '{}', toolChoice: '{}', stream: {}, streamUsage: {} }} as const),",
            property_name(wire.as_str()),
            shape.history,
            shape.tool_choice,
            shape.stream,
            shape.stream_usage
        );
    }
    ts.push_str("} as const)\n");
}

/// `name` as an object literal's key: quoted unless it is an identifier.
fn property_name(name: &str) -> String {
    if name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        name.to_owned()
    } else {
        format!("'{name}'")
    }
}

fn texts_literal(texts: &[&str]) -> String {
    serde_json::to_string(texts).expect("strings serialize")
}

/// The schema dialects (`crate::schema::SchemaTarget::ALL`), and their type.
fn schema_targets(ts: &mut String) {
    let targets = crate::schema::SchemaTarget::ALL.map(crate::schema::SchemaTarget::as_str);
    named_list(
        ts,
        (
            "SCHEMA_TARGETS",
            "The schema dialects normalizeSchema speaks, in the engine's order. `p0` changes nothing and reports what is not portable.",
        ),
        ("SchemaTarget", "A schema dialect normalizeSchema speaks."),
        &targets,
    );
}

/// A frozen list of `names` (`list`: its name and doc) and the type of one of them (`one`).
fn named_list(ts: &mut String, list: (&str, &str), one: (&str, &str), names: &[&str]) {
    ts.push_str(&jsdoc("", list.1));
    let _ = writeln!(
        ts,
        "export const {} = Object.freeze({} as const)",
        list.0,
        texts_literal(names)
    );
    ts.push_str(&jsdoc("", one.1));
    let _ = writeln!(ts, "export type {} = (typeof {})[number]\n", one.0, list.0);
}

/// Writes the TypeScript module (`ts/protocol.generated.ts`) from the code enums, the
/// constants and the error codes: frozen objects and lists whose types are their literal values.
pub fn typescript() -> String {
    let mut ts = String::from(
        "// Generated from crates/toolwire-core/src/contract.rs by `npm run contract`: do not edit.\n\n\
         import type { ResultView } from './view.js'\n\
         import type { RapToolResult, RemoteToolDef } from './remote.js'\n\
         import type { ApprovalRequest, ErrorCode, PlanStepErrorCode, RapEvent, SanitizeReport, ToolCall, ToolResult } from './types.js'\n",
    );
    for group in groups() {
        let doc = format!("{} ({})", group.doc, group.rust);
        ts.push('\n');
        ts.push_str(&jsdoc("", &doc));
        let _ = writeln!(ts, "export const {} = Object.freeze({{", group.js);
        for (name, code) in &group.entries {
            let _ = writeln!(ts, "  {name}: {code},");
        }
        ts.push_str("} as const)\n");
    }
    let doc =
        "The codes a thrown ToolwireError and a failed result carry (toolwire_core::ErrorCode).";
    ts.push('\n');
    ts.push_str(&jsdoc("", doc));
    ts.push_str("export const ERROR_CODES = Object.freeze([\n");
    for code in crate::ErrorCode::ALL {
        let _ = writeln!(ts, "  '{code}',");
    }
    ts.push_str("] as const)\n");
    for (name, value, doc) in CONSTANTS {
        ts.push('\n');
        ts.push_str(&jsdoc("", doc));
        let _ = writeln!(ts, "export const {name} = {}", constant_ts(*value));
    }
    request_shapes(&mut ts);
    schema_targets(&mut ts);
    tuple_types(
        &mut ts,
        crate::dispatch::layout::ACTION_LAYOUTS,
        "Action",
        |name| format!("{name}Action"),
        "EngineAction",
        "An action of the engine: a JSON array whose first element is its code (toolwire_core::dispatch::layout).",
    );
    tuple_types(
        &mut ts,
        crate::plan::layout::PLAN_ACTION_LAYOUTS,
        "PlanAction",
        |name| format!("Plan{name}Action"),
        "PlanEngineAction",
        "An action of a plan run: a JSON array whose first element is its code (toolwire_core::plan::layout).",
    );
    tuple_types(
        &mut ts,
        crate::rap_message::layout::RAP_MESSAGE_LAYOUTS,
        "RapMessage",
        |name| format!("Rap{name}Message"),
        "RapEngineMessage",
        "A message of the RAP transport: a JSON array whose first element is its code (toolwire_core::rap_message::layout).",
    );
    tuple_types(
        &mut ts,
        crate::sanitize::layout::BLOCK_LAYOUTS,
        "DescribedBlock",
        |name| format!("Described{name}Block"),
        "BlockDescription",
        "A block of content described for the engine: a JSON array whose first element is its code (toolwire_core::sanitize::layout).",
    );
    ts
}

/// The tuple type of each message of `layouts` (named `type_name(<Rust name of its code>)`, its
/// code typed from the generated `codes` object), and their union `union`.
fn tuple_types(
    ts: &mut String,
    layouts: &[crate::layout::Layout],
    codes: &str,
    type_name: impl Fn(&str) -> String,
    union: &str,
    doc: &str,
) {
    let mut names = Vec::new();
    for layout in layouts {
        let name = type_name(layout.name);
        ts.push('\n');
        ts.push_str(&jsdoc("", layout.doc));
        let mut members = vec![format!("code: typeof {codes}.{}", js_name(layout.name))];
        for element in layout.elements {
            let mark = if element.optional { "?" } else { "" };
            members.push(format!("{}{mark}: {}", element.name, element.ts));
        }
        let _ = writeln!(ts, "export type {name} = [{}]", members.join(", "));
        names.push(name);
    }
    ts.push('\n');
    ts.push_str(&jsdoc("", doc));
    let _ = writeln!(ts, "export type {union} =");
    for name in &names {
        let _ = writeln!(ts, "  | {name}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;
    use std::path::PathBuf;

    /// Set `TOOLWIRE_WRITE_CONTRACT=1` (`npm run contract`) to rewrite the file instead.
    #[test]
    fn committed_contract_matches_the_engine() {
        let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../ts/protocol.generated.ts");
        let generated = typescript();
        if std::env::var_os("TOOLWIRE_WRITE_CONTRACT").is_some() {
            std::fs::write(&path, generated).unwrap();
        } else {
            let committed = std::fs::read_to_string(&path).unwrap_or_default();
            assert!(
                committed == generated,
                "ts/protocol.generated.ts is stale: run `npm run contract` to regenerate it"
            );
        }
    }

    #[test]
    fn rust_names_become_screaming_snake_case() {
        for (rust, js) in [
            ("StartEvent", "START_EVENT"),
            ("Key", "KEY"),
            ("BeforeParamsNotFinite", "BEFORE_PARAMS_NOT_FINITE"),
            ("Json", "JSON"),
            ("Utf8Text", "UTF8_TEXT"),
        ] {
            assert_eq!(js_name(rust), js);
        }
    }

    /// Within a group, codes and names are unique and every code reads back as its variant.
    #[test]
    fn every_group_has_unique_codes_and_names() {
        for group in groups() {
            let keys: HashSet<&str> = group.entries.iter().map(|e| e.0.as_str()).collect();
            let values: HashSet<&str> = group.entries.iter().map(|e| e.1.as_str()).collect();
            assert_eq!(keys.len(), group.entries.len(), "{}", group.js);
            assert_eq!(values.len(), group.entries.len(), "{}", group.js);
        }
        fn check<C: Codes + PartialEq + std::fmt::Debug>(from_code: impl Fn(u8) -> Option<C>) {
            let codes: HashSet<u8> = C::ALL.iter().map(|c| c.code()).collect();
            let names: HashSet<&str> = C::ALL.iter().map(|c| c.name()).collect();
            assert_eq!(codes.len(), C::ALL.len());
            assert_eq!(names.len(), C::ALL.len());
            for c in C::ALL {
                assert_eq!(from_code(c.code()), Some(*c));
            }
            assert_eq!(from_code(u8::MAX), None);
        }
        use crate::audit::LogFile;
        use crate::dispatch::protocol::{ActionCode, ArgumentKind, CompletionCode};
        use crate::output::OutputShape;
        check::<ActionCode>(ActionCode::from_code);
        check::<CompletionCode>(CompletionCode::from_code);
        check::<OutputShape>(OutputShape::from_code);
        check::<ArgumentKind>(ArgumentKind::from_code);
        check::<LogFile>(LogFile::from_code);
        check::<crate::plan::PlanActionCode>(crate::plan::PlanActionCode::from_code);
        check::<crate::rap_message::RapMessageCode>(crate::rap_message::RapMessageCode::from_code);
        check::<crate::sanitize::blocks::BlockCode>(crate::sanitize::blocks::BlockCode::from_code);
        let groups: HashSet<&str> = groups().iter().map(|g| g.js).collect();
        let constants: HashSet<&str> = CONSTANTS.iter().map(|c| c.0).collect();
        assert_eq!(constants.len(), CONSTANTS.len());
        assert!(groups.is_disjoint(&constants));
    }

    /// The generated module holds every code of every group, with its number.
    #[test]
    fn the_module_declares_every_code() {
        let generated = typescript();
        for group in groups() {
            for (name, code) in &group.entries {
                let line = format!("  {name}: {code},\n");
                assert!(generated.contains(&line), "{}.{name}", group.js);
            }
        }
        for code in crate::ErrorCode::ALL {
            assert!(generated.contains(&format!("  '{code}',\n")));
        }
        assert!(generated.contains("export const MAX_BATCH_ID = 4294967295\n"));
        assert!(generated.contains("export const NO_OUTPUT = \"(no output)\"\n"));
    }

    #[test]
    fn a_doc_cannot_close_its_comment() {
        assert_eq!(jsdoc("", "a */ b"), "/** a *\\/ b */\n");
    }
}
