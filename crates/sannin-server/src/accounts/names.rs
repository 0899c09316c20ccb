//! Account names in any script (docs/accounts.md, "Names"). A name is kept in its NFKC
//! form (so `Ｋｅｎｔａ` is `Kenta`); it is found by its key (the NFKC form in lower
//! case: names differ by more than case) and refused when its skeleton (UTS #39: the
//! shape it is drawn with) is another account's, so that `раураl` in Cyrillic letters
//! cannot pass for `paypal`. A name is written in one script (Japanese kanji with kana
//! count as one, as do hangul with hanja), from the characters UTS #39 recommends for
//! identifiers, with digits, `_` and `-`.

use sannin_protocol::ApiCode;
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
    pub code: ApiCode,
    /// What to change.
    pub message: String,
}

fn refused(code: ApiCode, message: impl Into<String>) -> Refused {
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
            ApiCode::BadName,
            "an account name has 2 to 24 characters",
        ));
    }
    if let Some(c) = name
        .chars()
        .find(|&c| !(c == '_' || c == '-' || c.identifier_allowed()))
    {
        return Err(refused(
            ApiCode::BadName,
            format!("an account name holds letters, digits, _ and - only, not {c:?}"),
        ));
    }
    if !name.starts_with(char::is_alphanumeric) {
        return Err(refused(
            ApiCode::BadName,
            "an account name starts with a letter or a digit",
        ));
    }
    if !name.as_str().is_single_script() {
        return Err(refused(
            ApiCode::NameMixedScripts,
            "an account name is written in one script (not Latin and Cyrillic letters mixed, say)",
        ));
    }
    let shape = skeleton(&name);
    if RESERVED.iter().any(|r| skeleton(r) == shape) {
        return Err(refused(
            ApiCode::NameReserved,
            "that name would pass for the site's own",
        ));
    }
    Ok(name)
}

/// Characters that draw nothing, or nothing a reader can tell apart from a space: the
/// format characters (general category Cf, among them the zero-width and
/// text-direction controls), the blank fillers of Hangul (U+115F, U+1160, U+3164,
/// U+FFA0), the blank Braille pattern (U+2800), the variation selectors, the combining
/// grapheme joiner, the Mongolian free variation selectors, and every space but the
/// plain one (U+0020).
pub fn is_invisible(c: char) -> bool {
    use unicode_properties::{GeneralCategory, UnicodeGeneralCategory};
    matches!(
        c,
        '\u{115F}'
            | '\u{1160}'
            | '\u{3164}'
            | '\u{FFA0}'
            | '\u{2800}'
            | '\u{034F}'
            | '\u{180B}'..='\u{180F}'
            | '\u{FE00}'..='\u{FE0F}'
            | '\u{E0000}'..='\u{E0FFF}'
    ) || (c.is_whitespace() && c != ' ')
        || matches!(
            c.general_category(),
            GeneralCategory::Format | GeneralCategory::Control
        )
}

/// The labels the server gives its computer players start with this (`Bot (Master)`).
const BOT_LABEL: &str = "bot(";

/// Why a guest may not sit, chat or queue under `name` (already trimmed, not empty),
/// whatever the accounts: it holds a character nobody sees, draws nothing at all, or is
/// drawn like a computer player's label (`Bot`, `Bot (…`, in any script that draws it
/// so). [`crate::accounts::Accounts::check_guest_name`] adds the accounts' names.
pub fn guest_name_problem(name: &str) -> Option<Refused> {
    if let Some(c) = name.chars().find(|&c| is_invisible(c)) {
        return Some(refused(
            ApiCode::BadName,
            format!(
                "a name may not hold U+{:04X}, a character nobody can see; remove it",
                u32::from(c)
            ),
        ));
    }
    if !name.chars().any(|c| !c.is_whitespace()) {
        return Some(refused(
            ApiCode::BadName,
            "a name needs a character one can see",
        ));
    }
    let shape = squeezed_skeleton(name);
    if shape == squeezed_skeleton("bot") || shape.starts_with(&squeezed_skeleton(BOT_LABEL)) {
        return Some(refused(
            ApiCode::BadName,
            "that name is drawn like a computer player's; choose another",
        ));
    }
    None
}

/// The skeleton of `name` with its spaces left out: `Ken ta` is drawn like `Kenta`
/// to a reader who is not looking for the gap.
pub fn squeezed_skeleton(name: &str) -> String {
    let squeezed: String = name.chars().filter(|c| !c.is_whitespace()).collect();
    skeleton(&squeezed)
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
        assert_eq!(code("a"), Err(ApiCode::BadName));
        assert_eq!(code(&"x".repeat(25)), Err(ApiCode::BadName));
        assert_eq!(code("_alice"), Err(ApiCode::BadName));
        assert_eq!(code("alice bob"), Err(ApiCode::BadName));
        assert_eq!(code("al😀ce"), Err(ApiCode::BadName));
        assert_eq!(
            code("ali\u{200b}ce"),
            Err(ApiCode::BadName),
            "an invisible character"
        );
        // Latin with one Cyrillic а.
        assert_eq!(code("p\u{0430}ypal"), Err(ApiCode::NameMixedScripts));
        assert_eq!(code("\u{0430}dmin"), Err(ApiCode::NameMixedScripts));
        assert_eq!(code("Admin"), Err(ApiCode::NameReserved));
        assert_eq!(
            code("adrnin"),
            Err(ApiCode::NameReserved),
            "drawn like admin"
        );
        assert_eq!(code("SANNIN"), Err(ApiCode::NameReserved));
    }

    #[test]
    fn guests_cannot_pose_as_bots_or_vanish() {
        let refused = |n: &str| guest_name_problem(n).is_some();
        for bad in [
            "Bot (Master)",
            "B\u{043e}t (Master)", // a Cyrillic о
            "BOT(casual)",
            "bot ( anything",
            "Bot",
            "\u{3164}",
            "\u{3164}\u{3164}",
            "\u{2800}",
            "\u{115F}\u{1160}",
            "\u{FFA0}",
            "Ann\u{3164}",
            "\u{E0041}\u{E0042}",
            "A\u{00AD}nn",
            "\u{200B}",
            "Ann\u{2003}Lee",
        ] {
            assert!(refused(bad), "{bad:?}");
        }
        for ok in [
            "Ann",
            "Guest",
            "健太郎",
            "Bob the Builder",
            "Botan",
            "Robot (5)",
        ] {
            assert_eq!(guest_name_problem(ok), None, "{ok}");
        }
        assert_eq!(squeezed_skeleton("Ken ta"), skeleton("kenta"));
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
