//! Account names in any script (docs/accounts.md, "Names"). A name is kept in its NFKC
//! form (so `Ｋｅｎｔａ` is `Kenta`); it is found by its key (the NFKC form in lower
//! case: names differ by more than case) and refused when its skeleton (UTS #39: the
//! shape it is drawn with) is another account's, so that `раураl` in Cyrillic letters
//! cannot pass for `paypal`. A name is written in one script (Japanese kanji with kana
//! count as one, as do hangul with hanja), from the characters UTS #39 recommends for
//! identifiers, with digits, `_` and `-`.

use unicode_normalization::UnicodeNormalization;
use unicode_security::{GeneralSecurityProfile, MixedScript};

/// The shortest and the longest name, in characters.
pub const LENGTH: std::ops::RangeInclusive<usize> = 2..=24;

/// Names nobody may take (nor anything drawn like them): they would pass for the site.
const RESERVED: [&str; 9] = [
    "admin",
    "administrator",
    "moderator",
    "mod",
    "sannin",
    "system",
    "support",
    "staff",
    "root",
];

/// Why a name is refused: the API's error code and a message in English (the client
/// has its own words for each code).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refused {
    /// `bad_name`, `name_mixed_scripts` or `name_reserved`.
    pub code: &'static str,
    /// What to change.
    pub message: String,
}

fn refused(code: &'static str, message: impl Into<String>) -> Refused {
    Refused {
        code,
        message: message.into(),
    }
}

/// The name as it is kept (NFKC, trimmed), or why it cannot be one.
pub fn normalize(raw: &str) -> Result<String, Refused> {
    let name: String = raw.trim().nfkc().collect();
    if !LENGTH.contains(&name.chars().count()) {
        return Err(refused(
            "bad_name",
            "an account name has 2 to 24 characters",
        ));
    }
    if let Some(c) = name
        .chars()
        .find(|&c| !(c == '_' || c == '-' || c.identifier_allowed()))
    {
        return Err(refused(
            "bad_name",
            format!("an account name holds letters, digits, _ and - only, not {c:?}"),
        ));
    }
    if !name.starts_with(char::is_alphanumeric) {
        return Err(refused(
            "bad_name",
            "an account name starts with a letter or a digit",
        ));
    }
    if !name.as_str().is_single_script() {
        return Err(refused(
            "name_mixed_scripts",
            "an account name is written in one script (not Latin and Cyrillic letters mixed, say)",
        ));
    }
    let shape = skeleton(&name);
    if RESERVED.iter().any(|r| skeleton(r) == shape) {
        return Err(refused(
            "name_reserved",
            "that name would pass for the site's own",
        ));
    }
    Ok(name)
}

/// The key an account is found by: the NFKC form in lower case.
pub fn key(name: &str) -> String {
    let lower = name.trim().nfkc().collect::<String>().to_lowercase();
    lower.nfkc().collect()
}

/// The UTS #39 skeleton of the name's key: names drawn alike have the same one.
pub fn skeleton(name: &str) -> String {
    unicode_security::skeleton(&key(name)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_in_any_script() {
        for ok in [
            "alice",
            "a_b-9",
            "健太",
            "けんた",
            "ケンタ",
            "Олег",
            "김민준",
            "Σοφία",
        ] {
            assert_eq!(normalize(ok).as_deref(), Ok(ok), "{ok}");
        }
        // NFKC: full-width letters are the plain ones.
        assert_eq!(normalize(" Ｋｅｎｔａ ").as_deref(), Ok("Kenta"));
        assert_eq!(key("Ｋｅｎｔａ"), "kenta");
    }

    #[test]
    fn refused_names_say_why() {
        let code = |n: &str| normalize(n).map_err(|r| r.code);
        assert_eq!(code("a"), Err("bad_name"));
        assert_eq!(code(&"x".repeat(25)), Err("bad_name"));
        assert_eq!(code("_alice"), Err("bad_name"));
        assert_eq!(code("alice bob"), Err("bad_name"));
        assert_eq!(code("al😀ce"), Err("bad_name"));
        assert_eq!(
            code("ali\u{200b}ce"),
            Err("bad_name"),
            "an invisible character"
        );
        // Latin with one Cyrillic а.
        assert_eq!(code("p\u{0430}ypal"), Err("name_mixed_scripts"));
        assert_eq!(code("\u{0430}dmin"), Err("name_mixed_scripts"));
        assert_eq!(code("Admin"), Err("name_reserved"));
        assert_eq!(code("adrnin"), Err("name_reserved"), "drawn like admin");
        assert_eq!(code("SANNIN"), Err("name_reserved"));
    }

    #[test]
    fn look_alikes_share_a_skeleton() {
        // All Cyrillic: one script, drawn as the Latin word.
        let cyrillic = "\u{0441}\u{043e}\u{0441}\u{043e}";
        assert!(normalize(cyrillic).is_ok());
        assert_eq!(skeleton(cyrillic), skeleton("coco"));
        assert_eq!(skeleton("ALICE"), skeleton("alice"));
        assert_eq!(skeleton("rn"), skeleton("m"));
        assert_ne!(skeleton("alice"), skeleton("alicia"));
    }
}
