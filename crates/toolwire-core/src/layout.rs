//! Layouts of the messages that cross between the engine and JavaScript: each a JSON array whose
//! first element is a code, then the elements that code declares (a name, a TypeScript type, the
//! JSON held, and whether it may be left out). The tables are declared beside what they describe:
//! the dispatcher's actions (`dispatch::layout`), a plan run's (`plan::layout`), the RAP
//! transport's messages (`rap_message::layout`), all from the engine to its driver, and the
//! blocks of a content description (`sanitize::layout`), from the driver to the engine.
//! `crate::contract` generates the TypeScript tuple types from them; the engine's tests check
//! every message it writes against them and the engine reads descriptions through them, so the
//! two sides cannot drift.

use serde_json::Value;

/// The JSON an element holds, as the check reads it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Holds {
    /// A number.
    Number,
    /// A number or `null`.
    NumberOrNull,
    /// A whole number from 0 (an index or a length).
    Index,
    /// `true` or `false`.
    Bool,
    /// A string.
    Text,
    /// A string or `null`.
    TextOrNull,
    /// Any JSON value.
    Any,
    /// An object.
    Object,
    /// An object or `null`.
    ObjectOrNull,
    /// An array.
    Array,
    /// One of these strings.
    OneOf(&'static [&'static str]),
}

impl Holds {
    /// Whether `value` is JSON this element may hold.
    pub fn admits(self, value: &Value) -> bool {
        match self {
            Holds::Number => value.is_number(),
            Holds::NumberOrNull => value.is_number() || value.is_null(),
            Holds::Index => value.is_u64(),
            Holds::Bool => value.is_boolean(),
            Holds::Text => value.is_string(),
            Holds::TextOrNull => value.is_string() || value.is_null(),
            Holds::Any => true,
            Holds::Object => value.is_object(),
            Holds::ObjectOrNull => value.is_object() || value.is_null(),
            Holds::Array => value.is_array(),
            Holds::OneOf(texts) => matches!(value, Value::String(s) if texts.contains(&s.as_str())),
        }
    }
}

/// One element of a message after its code.
#[derive(Clone, Copy, Debug)]
pub struct Element {
    /// Its name (the tuple member's label in TypeScript).
    pub name: &'static str,
    /// Its TypeScript type, in `ts/protocol.generated.ts`'s scope.
    pub ts: &'static str,
    /// The JSON it holds.
    pub holds: Holds,
    /// Whether it may be left out; then so is every element after it.
    pub optional: bool,
}

/// A required element.
pub const fn el(name: &'static str, ts: &'static str, holds: Holds) -> Element {
    Element {
        name,
        ts,
        holds,
        optional: false,
    }
}

/// An element that may be left out (with every one after it).
pub const fn opt(name: &'static str, ts: &'static str, holds: Holds) -> Element {
    Element {
        name,
        ts,
        holds,
        optional: true,
    }
}

/// A message's layout: its code, the Rust name of its code (the generated type is named after
/// it), what it asks of the driver, and its elements after the code.
#[derive(Clone, Copy, Debug)]
pub struct Layout {
    /// The message's code.
    pub code: u8,
    /// The code's Rust name (`StartEvent`).
    pub name: &'static str,
    /// What it asks (the generated type's doc comment).
    pub doc: &'static str,
    /// Its elements after the code, in order.
    pub elements: &'static [Element],
}

/// Why the serialized `message` does not fit its layout among `layouts`, if it does not: it is
/// no array, its code is unknown, it has too few or too many elements, or an element holds other
/// JSON than declared.
pub fn misfit(layouts: &[Layout], message: &Value) -> Option<String> {
    let Some(items) = message.as_array() else {
        return Some(format!("not an array: {message}"));
    };
    let Some(code) = items.first().and_then(|c| c.as_u64()) else {
        return Some(format!("no code: {message}"));
    };
    let Some(layout) = layouts.iter().find(|l| u64::from(l.code) == code) else {
        return Some(format!("no layout for code {code}"));
    };
    let required = layout.elements.iter().filter(|e| !e.optional).count();
    let given = items.len() - 1;
    if given < required || given > layout.elements.len() {
        return Some(format!(
            "{}: {given} elements, its layout has {required} to {}: {message}",
            layout.name,
            layout.elements.len()
        ));
    }
    for (element, value) in layout.elements.iter().zip(&items[1..]) {
        if !element.holds.admits(value) {
            return Some(format!(
                "{}: `{}` holds {value}, not {:?}",
                layout.name, element.name, element.holds
            ));
        }
    }
    None
}

/// Checks that `layouts` are in code order from 0 with no gap, named as the variants of `C` (in
/// code order), with optional elements only at the end and element names unique (none
/// `code`, the first member's label); panics naming what is wrong.
#[cfg(test)]
pub fn check_codes<C: crate::boundary_enums::Codes>(layouts: &[Layout]) {
    let names: Vec<(u8, &str)> = C::ALL.iter().map(|c| (c.code(), c.name())).collect();
    check_table(layouts, &names);
}

/// [`check_codes`] against names given as they are (for tables of no code enum).
#[cfg(test)]
pub fn check_table(layouts: &[Layout], names: &[(u8, &str)]) {
    let declared: Vec<(u8, &str)> = layouts.iter().map(|l| (l.code, l.name)).collect();
    assert_eq!(declared, names);
    for layout in layouts {
        let mut labels = std::collections::BTreeSet::from(["code"]);
        for element in layout.elements {
            assert!(
                labels.insert(element.name),
                "{}: two elements labelled `{}`",
                layout.name,
                element.name
            );
        }
        if let Some(first) = layout.elements.iter().position(|e| e.optional) {
            assert!(
                layout.elements[first..].iter().all(|e| e.optional),
                "{}: a required element after an optional one",
                layout.name
            );
        }
    }
}

/// Checks that every one of `messages` (serialized as they cross) fits its layout among
/// `layouts`, and that together they cover every code of the table: a test building one message
/// of each variant then fails for a variant added without its case. Panics naming what is wrong.
#[cfg(test)]
pub fn check_every_code(layouts: &[Layout], messages: &[Value]) {
    for message in messages {
        if let Some(why) = misfit(layouts, message) {
            panic!("a message does not fit its layout: {why}");
        }
    }
    let covered: std::collections::BTreeSet<u64> =
        messages.iter().filter_map(|m| m[0].as_u64()).collect();
    for layout in layouts {
        assert!(
            covered.contains(&u64::from(layout.code)),
            "no message of {} (code {}) was built",
            layout.name,
            layout.code
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const LAYOUTS: &[Layout] = &[
        Layout {
            code: 0,
            name: "Pair",
            doc: "",
            elements: &[
                el("n", "number", Holds::Number),
                opt("s", "string", Holds::Text),
            ],
        },
        Layout {
            code: 1,
            name: "Reason",
            doc: "",
            elements: &[el("why", "'a' | 'b'", Holds::OneOf(&["a", "b"]))],
        },
    ];

    #[test]
    fn misfits_are_named() {
        assert_eq!(misfit(LAYOUTS, &json!([0, 1])), None);
        assert_eq!(misfit(LAYOUTS, &json!([0, 1, "x"])), None);
        assert!(misfit(LAYOUTS, &json!([0])).unwrap().contains("0 elements"));
        assert!(misfit(LAYOUTS, &json!([0, 1, "x", 2]))
            .unwrap()
            .contains("3 elements"));
        assert!(misfit(LAYOUTS, &json!([0, "1"])).unwrap().contains("`n`"));
        assert!(misfit(LAYOUTS, &json!([1, "c"])).unwrap().contains("`why`"));
        assert!(misfit(LAYOUTS, &json!([7])).unwrap().contains("no layout"));
        assert!(misfit(LAYOUTS, &json!({ "type": 0 }))
            .unwrap()
            .contains("not an array"));
    }

    #[test]
    #[should_panic(expected = "Pair: two elements labelled `code`")]
    fn an_element_labelled_as_the_code_is_refused() {
        const CLASH: &[Layout] = &[Layout {
            code: 0,
            name: "Pair",
            doc: "",
            elements: &[el("code", "string", Holds::Text)],
        }];
        check_table(CLASH, &[(0, "Pair")]);
    }

    #[test]
    fn a_message_of_every_code_covers_a_table() {
        check_every_code(LAYOUTS, &[json!([0, 1]), json!([1, "a"])]);
    }

    #[test]
    #[should_panic(expected = "no message of Reason (code 1)")]
    fn a_code_without_a_message_is_named() {
        check_every_code(LAYOUTS, &[json!([0, 1])]);
    }

    #[test]
    #[should_panic(expected = "`why`")]
    fn a_message_that_does_not_fit_is_named() {
        check_every_code(LAYOUTS, &[json!([0, 1]), json!([1, "c"])]);
    }

    #[test]
    fn every_kind_admits_its_json_only() {
        let cases = [
            (Holds::Number, json!(1), json!("1")),
            (Holds::NumberOrNull, json!(null), json!(true)),
            (Holds::Index, json!(0), json!(1.5)),
            (Holds::Bool, json!(false), json!(0)),
            (Holds::Text, json!(""), json!(null)),
            (Holds::TextOrNull, json!(null), json!(1)),
            (Holds::Object, json!({}), json!([])),
            (Holds::ObjectOrNull, json!(null), json!("o")),
            (Holds::Array, json!([]), json!({})),
        ];
        for (holds, yes, no) in cases {
            assert!(holds.admits(&yes), "{holds:?} {yes}");
            assert!(!holds.admits(&no), "{holds:?} {no}");
        }
        assert!(!Holds::Index.admits(&json!(-1)));
        assert!(Holds::Any.admits(&json!(null)));
    }
}
