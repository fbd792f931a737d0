//! Enums that cross the boundary to the JavaScript driver: as small numbers ([`Codes`], declared
//! with [`codes!`](crate::codes)) or as stable names ([`Named`], declared with
//! [`named!`](crate::named)).
//!
//! A leaf: the modules that declare such enums (dispatch, plan, output, audit, wire) use it, and
//! `crate::contract`, above them all, reads the enums through these traits to generate
//! `ts/protocol.generated.ts`.

/// An enum whose variants cross the boundary as small numbers (declared with
/// [`codes!`](crate::codes)).
pub trait Codes: Copy + 'static {
    /// Every variant, in the order of its code.
    const ALL: &'static [Self];
    /// The number the variant crosses as.
    fn code(self) -> u8;
    /// The variant's Rust name (`StartEvent`); its JavaScript name is derived from it.
    fn name(self) -> &'static str;
}

/// Declares an enum whose variants cross the boundary as the numbers given (`Variant = 3,`),
/// each with a doc comment (required: what a code means is said there), and implements [`Codes`] and `from_code` for it. The enum's own
/// attributes (derives, docs) are written by the caller; `#[repr(u8)]` is added.
#[macro_export]
macro_rules! codes {
    (
        $(#[$meta:meta])*
        $vis:vis enum $name:ident {
            $($(#[doc = $doc:literal])+ $variant:ident = $code:literal,)+
        }
    ) => {
        $(#[$meta])*
        #[repr(u8)]
        $vis enum $name {
            $($(#[doc = $doc])+ $variant = $code,)+
        }

        impl $name {
            /// The variant whose code is `code`, if there is one.
            pub fn from_code(code: impl TryInto<u8>) -> Option<Self> {
                match code.try_into().ok()? {
                    $($code => Some($name::$variant),)+
                    _ => None,
                }
            }
        }

        impl $crate::boundary_enums::Codes for $name {
            const ALL: &'static [Self] = &[$($name::$variant),+];
            fn code(self) -> u8 {
                self as u8
            }
            fn name(self) -> &'static str {
                match self {
                    $($name::$variant => stringify!($variant),)+
                }
            }
        }
    };
}

/// An enum whose variants cross the boundary as stable names (declared with
/// [`named!`](crate::named)).
pub trait Named: Copy + 'static {
    /// Every variant, in declaration order.
    const ALL: &'static [Self];
    /// The variant's stable name (`"stream-truncated"`).
    fn as_str(self) -> &'static str;
    /// The variant's Rust name (`StreamTruncated`); its JavaScript key is derived from it.
    fn rust_name(self) -> &'static str;
}

/// Checks a [`Named`] enum: its names are distinct, and each variant serializes as its name.
#[cfg(test)]
pub(crate) fn assert_names_distinct_and_serialized<
    K: Named + serde::Serialize + std::fmt::Debug,
>() {
    let names: std::collections::HashSet<&str> = K::ALL.iter().map(|k| k.as_str()).collect();
    assert_eq!(names.len(), K::ALL.len(), "a name given twice");
    for kind in K::ALL {
        assert_eq!(
            serde_json::to_value(kind).unwrap(),
            serde_json::json!(kind.as_str()),
            "{kind:?}"
        );
    }
}

/// Declares an enum whose variants cross the boundary as the names given
/// (`Variant => "name",`), each with a doc comment; implements [`Named`] and `Serialize` (as
/// the name) for it.
#[macro_export]
macro_rules! named {
    (
        $(#[$meta:meta])*
        $vis:vis enum $name:ident {
            $($(#[doc = $doc:literal])+ $variant:ident => $text:literal,)+
        }
    ) => {
        $(#[$meta])*
        $vis enum $name {
            $($(#[doc = $doc])+ $variant,)+
        }

        impl $name {
            /// The variant's stable name.
            pub fn as_str(self) -> &'static str {
                match self {
                    $($name::$variant => $text,)+
                }
            }
        }

        impl $crate::boundary_enums::Named for $name {
            const ALL: &'static [Self] = &[$($name::$variant),+];
            fn as_str(self) -> &'static str {
                $name::as_str(self)
            }
            fn rust_name(self) -> &'static str {
                match self {
                    $($name::$variant => stringify!($variant),)+
                }
            }
        }

        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_str(self.as_str())
            }
        }
    };
}
