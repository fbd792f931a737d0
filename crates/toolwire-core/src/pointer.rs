//! JSON pointers (RFC 6901), as every report and error of the engine names a place: one writer
//! and one reader of their tokens.

use std::borrow::Cow;

/// Appends `/token` to `pointer`, escaping the token (`~` as `~0`, `/` as `~1`).
pub fn push_token(pointer: &mut String, token: &str) {
    pointer.push('/');
    if token.contains(['~', '/']) {
        for c in token.chars() {
            match c {
                '~' => pointer.push_str("~0"),
                '/' => pointer.push_str("~1"),
                c => pointer.push(c),
            }
        }
    } else {
        pointer.push_str(token);
    }
}

/// `pointer` extended by one (unescaped) token.
pub fn child(pointer: &str, token: &str) -> String {
    let mut out = String::with_capacity(pointer.len() + token.len() + 1);
    out.push_str(pointer);
    push_token(&mut out, token);
    out
}

/// One token of a pointer, unescaped (`~1` as `/`, then `~0` as `~`).
pub fn unescape(token: &str) -> Cow<'_, str> {
    if token.contains('~') {
        Cow::Owned(token.replace("~1", "/").replace("~0", "~"))
    } else {
        Cow::Borrowed(token)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_round_trip_through_escaping() {
        for token in ["a", "a/b~c", "~1", "/~0", ""] {
            let pointer = child("/properties", token);
            let last = pointer.rsplit_once('/').unwrap().1;
            assert_eq!(unescape(last), token, "{pointer}");
        }
        assert_eq!(child("/properties", "a/b~c"), "/properties/a~1b~0c");
        assert_eq!(child("", "x"), "/x");
    }
}
