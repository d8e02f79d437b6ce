//! The wording of what a shortened document holds in place of what it
//! lost: each marker is a JSON string (or an object's key) of its own, so
//! the document stays valid.

/// The text inside a shortened JSON string: `[... {N} bytes truncated ...]`.
pub(crate) fn json_string_marker(omitted: u64) -> String {
    format!("[... {omitted} bytes truncated ...]")
}

/// The string that stands for the items an array lost:
/// `[... {k} of {n} items truncated ...]`, with `; objects with keys: a, b`
/// (and `, ...` when `more`) when they were all objects. Keys are as
/// written in the document, so the result is valid inside a JSON string.
pub(crate) fn json_items_marker(omitted: u64, of: u64, keys: Option<(&[&[u8]], bool)>) -> Vec<u8> {
    let mut marker = format!("[... {omitted} of {of} items truncated").into_bytes();
    if let Some((keys, more)) = keys {
        marker.extend_from_slice(b"; objects with keys: ");
        marker.extend_from_slice(&keys.join(&b", "[..]));
        if more {
            marker.extend_from_slice(if keys.is_empty() { b"..." } else { b", ..." });
        }
    }
    marker.extend_from_slice(b" ...]");
    marker
}

/// The key of the entry that stands for the keys an object lost.
pub(crate) fn json_keys_marker(omitted: u64) -> String {
    format!("[... {omitted} more keys truncated ...]")
}
