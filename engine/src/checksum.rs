//! SHA-256 as lower-case hex: how every file routelens checks is named by its content (the
//! archive's listed checksums, a bundle's chunks and manifest, issue texts, a site's `CHECKSUMS`).

use sha2::{Digest, Sha256};

/// SHA-256 of some bytes (stored vectors are keyed by their text's).
pub fn sha256(bytes: &[u8]) -> [u8; 32] {
    Sha256::digest(bytes).into()
}

/// Lower-case hex SHA-256 of some bytes.
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex(&sha256(bytes))
}

/// Bytes as lower-case hex (a hash kept as bytes, named as text).
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|byte| format!("{byte:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::sha256_hex;

    #[test]
    fn the_empty_input_has_the_known_digest() {
        assert_eq!(
            sha256_hex(b""),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
    }
}
