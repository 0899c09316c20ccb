//! Secret tokens — a seat's (`seated`) and a session's (the cookie) — and how they are
//! kept: only their SHA-256 is ever stored, so a database that leaks gives no seat and
//! no session away.

use sha2::{Digest, Sha256};

/// A fresh secret token: 244 random bits from two v4 uuids, as 64 hex digits.
pub fn new_token() -> String {
    format!(
        "{}{}",
        uuid::Uuid::new_v4().simple(),
        uuid::Uuid::new_v4().simple()
    )
}

/// SHA-256 of a token, as 64 lower-case hex digits: what is stored in its place.
pub fn hash_token(token: &str) -> String {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let digest = Sha256::digest(token.as_bytes());
    let mut s = String::with_capacity(64);
    for b in digest {
        s.push(char::from(HEX[usize::from(b >> 4)]));
        s.push(char::from(HEX[usize::from(b & 15)]));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_random_and_stored_as_sha256() {
        let a = new_token();
        let b = new_token();
        assert_eq!(a.len(), 64);
        assert_ne!(a, b);
        let h = hash_token(&a);
        assert_eq!(h.len(), 64);
        assert_ne!(h, a);
        assert_eq!(h, hash_token(&a));
        // sha256("abc")
        assert_eq!(
            hash_token("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }
}
