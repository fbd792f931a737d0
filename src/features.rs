//! `features()`: the optional parts (cargo features) this binary was built with, so the
//! JavaScript layer can refuse an entry a slim build left out by name, instead of failing on a
//! missing native function.

use napi_derive::napi;

/// The optional parts compiled into this binary, among `"image"` (image sanitization) and
/// `"rap"` (remote tools over the Reactive Agent Protocol); the default build has both.
#[napi(js_name = "features")]
pub fn features_js() -> Vec<String> {
    compiled().iter().map(|&name| name.to_owned()).collect()
}

/// The names of the cargo features of this build that the JavaScript layer asks about.
fn compiled() -> Vec<&'static str> {
    let mut names = Vec::with_capacity(2);
    if cfg!(feature = "image") {
        names.push("image");
    }
    if cfg!(feature = "rap") {
        names.push("rap");
    }
    names
}
