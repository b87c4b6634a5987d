//! Short, stable identities of canonical texts (rulesets, CoToan tasks):
//! the first 4 bytes of the SHA-256 of the text, written as 8 hex digits.

use std::fmt;

use sha2::{Digest, Sha256};

/// The 4-byte identity of a canonical text.
pub fn of(canonical: &str) -> [u8; 4] {
    let digest = Sha256::digest(canonical.as_bytes());
    [digest[0], digest[1], digest[2], digest[3]]
}

/// Writes an identity as 8 lower-case hex digits.
pub fn write_hex(id: &[u8; 4], f: &mut fmt::Formatter<'_>) -> fmt::Result {
    id.iter().try_for_each(|b| write!(f, "{b:02x}"))
}

/// An identity as 8 lower-case hex digits.
pub fn to_hex(id: &[u8; 4]) -> String {
    id.iter().map(|b| format!("{b:02x}")).collect()
}

/// Reads 8 hex digits; `None` for anything else.
pub fn parse_hex(s: &str) -> Option<[u8; 4]> {
    if s.len() != 8 || !s.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    let mut id = [0u8; 4];
    for (i, byte) in id.iter_mut().enumerate() {
        *byte = u8::from_str_radix(&s[2 * i..2 * i + 2], 16).ok()?;
    }
    Some(id)
}
