#!/usr/bin/env python3
"""Rebuilds the fonts for people's own text (player names, chat) in Japanese, Chinese and
Korean: Noto Sans CJK Regular from the Debian package fonts-noto-cjk (SIL Open Font
License 1.1, see OFL.txt), cut into many small woff2 slices in people/, and
people/people.css, which declares each slice as one @font-face of the family
"Sannin People" with the unicode-range of the characters it holds. A browser fetches a
slice only when a page shows one of its characters and no font before it in the stack
has that character, so a reader with CJK fonts of their own fetches none, and a reader
without them fetches the few slices their page needs.

What the slices hold, in the order of the files (common characters first, in few files):

  1. CJK punctuation, kana and full-width forms (U+3000-30FF, U+31F0-31FF, U+FF00-FFEF);
  2. the Han characters common in both Japanese and Chinese (JIS X 0208 level 1 and
     GB 2312 level 1), then those common in Japanese only (JIS level 1), then in
     Chinese only (GB level 1);
  3. the 2,350 hangul syllables of KS X 1001 and the compatibility jamo (ㅋㅋ);
  4. the rare ones: JIS X 0208 level 2, GB 2312 level 2, the kanji of JIS X 0213 plane
     1 beyond JIS X 0208 (the Jōyō kanji of 2010 such as 𠮟 and 剝, most Jinmeiyō
     variants), the hanja of KS X 1001, and the other 8,822 hangul syllables.

The standards' own levels stand for frequency: each standard put its common characters
in its first level. One glyph per character: the Japanese face (JP) draws kana and every
Han character of the JIS standards, the Simplified Chinese face (SC) the Han characters
only GB 2312 or KS X 1001 has, and the Korean face (KR) hangul. So a Han character
Japanese and Chinese share is drawn the Japanese way, as on the interface of every page
but the Chinese one.

Needs fonttools and brotli (pip install fonttools brotli). Rerun after changing the sets
or the slice sizes (or for a newer fonts-noto-cjk):
    python3 static/fonts/people.py
"""
import io
import pathlib

from fontTools.subset import Options, Subsetter
from fontTools.ttLib import TTCollection, TTFont

HERE = pathlib.Path(__file__).resolve().parent
OUT = HERE / "people"
SANS = pathlib.Path("/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc")
JP, KR, SC = 0, 1, 2  # the faces' indices in the collection
FAMILY = "Sannin People"


def euc(codec, rows, lead=b""):
    """The characters of the rows `rows` (0xA1-based) of a 94×94 EUC code set."""
    out = []
    for r in rows:
        for c in range(0xA1, 0xFF):
            try:
                ch = (lead + bytes([r, c])).decode(codec)
            except UnicodeDecodeError:
                continue
            if len(ch) == 1:
                out.append(ch)
    return out


def is_han(ch):
    o = ord(ch)
    return 0x3400 <= o <= 0x9FFF or 0xF900 <= o <= 0xFAFF or 0x20000 <= o <= 0x3FFFF


def is_hangul(ch):
    o = ord(ch)
    return 0xAC00 <= o <= 0xD7A3 or 0x3130 <= o <= 0x318F


# JIS X 0208: rows 16-47 are level 1, rows 48-84 level 2 (EUC-JP 0xB0-0xCF, 0xD0-0xF4).
JIS1 = euc("euc_jp", range(0xB0, 0xD0))
JIS2 = euc("euc_jp", range(0xD0, 0xF5))
# JIS X 0213 plane 1 (EUC-JIS-2004 without the 0x8F lead): its kanji beyond JIS X 0208.
JIS3 = [c for c in euc("euc_jis_2004", range(0xA1, 0xFF)) if is_han(c)]
# GB 2312: rows 16-55 are level 1 (3,755 hanzi), rows 56-87 level 2 (3,008).
GB1 = euc("gb2312", range(0xB0, 0xD8))
GB2 = euc("gb2312", range(0xD8, 0xF8))
# KS X 1001: rows 16-40 the 2,350 hangul syllables, rows 42-93 the 4,888 hanja.
KS_HANGUL = euc("euc_kr", range(0xB0, 0xC9))
KS_HANJA = euc("euc_kr", range(0xCA, 0xFE))
JIS_ALL = set(JIS1) | set(JIS2) | set(JIS3)

KANA_PUNCT = [chr(o) for r in ((0x3000, 0x30FF), (0x31F0, 0x31FF), (0xFF00, 0xFFEF)) for o in range(r[0], r[1] + 1)]
KANA_SET = set(KANA_PUNCT)
JAMO = [chr(o) for o in range(0x3131, 0x318F)]
ALL_HANGUL = [chr(o) for o in range(0xAC00, 0xD7A4)]

# The tiers, most common first: (name, characters, characters per slice). The common
# tiers have bigger slices, so that a line of text touches few files; the rare tiers
# smaller ones, so that a rare character costs little.
TIERS = [
    ("kana and punctuation", KANA_PUNCT, 1000),
    ("Han common to Japanese and Chinese", sorted(set(JIS1) & set(GB1)), 430),
    ("Han common in Japanese", sorted(set(JIS1) - set(GB1)), 420),
    ("Han common in Chinese", sorted(set(GB1) - set(JIS1)), 420),
    ("hangul common", JAMO + KS_HANGUL, 600),
    ("Han rare in Japanese", JIS2, 400),
    ("Han rare in Chinese", GB2, 400),
    ("Han of JIS X 0213", JIS3, 400),
    ("hanja of KS X 1001", KS_HANJA, 400),
    ("hangul rare", ALL_HANGUL, 800),
]


def face_of(ch):
    if is_hangul(ch):
        return KR
    if is_han(ch) and ch not in JIS_ALL:
        return SC
    return JP


def ranges(codes):
    """unicode-range text for sorted code points: runs become U+XXXX-YYYY."""
    out, i = [], 0
    while i < len(codes):
        j = i
        while j + 1 < len(codes) and codes[j + 1] == codes[j] + 1:
            j += 1
        out.append(f"U+{codes[i]:X}" if i == j else f"U+{codes[i]:X}-{codes[j]:X}")
        i = j + 1
    return ", ".join(out)


def options():
    opts = Options()
    opts.layout_features = []  # horizontal text needs none; the CJK tables are large
    opts.name_IDs = [0, 1, 2, 3, 4, 5, 6, 13, 14]  # keep the copyright and licence
    opts.hinting = False
    opts.notdef_outline = False
    return opts


def plan():
    """The slices: [(tier, face, [characters])], each character in the first tier that
    names it and only if its face draws it."""
    collection = TTCollection(str(SANS))
    cmaps = {face: collection.fonts[face].getBestCmap() for face in (JP, KR, SC)}
    seen, slices = set(), []
    for tier, chars, size in TIERS:
        by_face = {JP: [], SC: [], KR: []}
        for ch in chars:
            if ch in seen or not (is_han(ch) or is_hangul(ch) or ch in KANA_SET):
                continue
            face = face_of(ch)
            if ord(ch) not in cmaps[face]:
                continue
            seen.add(ch)
            by_face[face].append(ch)
        for face, got in by_face.items():
            got.sort()
            count = max(1, round(len(got) / size))
            for k in range(count):
                part = got[k * len(got) // count:(k + 1) * len(got) // count]
                if part:
                    slices.append((tier, face, part))
    return slices


def base_fonts(slices):
    """Each face cut down once to all the characters it draws here, as OpenType bytes:
    the slices are cut from these, much faster than from the whole collection."""
    out = {}
    for face in (JP, KR, SC):
        wanted = [ord(c) for _, f, part in slices if f == face for c in part]
        font = TTCollection(str(SANS)).fonts[face]
        sub = Subsetter(options())
        sub.populate(unicodes=wanted)
        sub.subset(font)
        buf = io.BytesIO()
        font.recalcTimestamp = False
        font.save(buf)
        out[face] = buf.getvalue()
    return out


def main():
    slices = plan()
    bases = base_fonts(slices)
    OUT.mkdir(exist_ok=True)
    for old in OUT.glob("*.woff2"):
        old.unlink()
    names = {JP: "Noto Sans CJK JP", KR: "Noto Sans CJK KR", SC: "Noto Sans CJK SC"}
    version = TTFont(io.BytesIO(bases[JP]))["name"].getDebugName(5)
    css = [
        "/* Generated by static/fonts/people.py: do not edit. The family for people's own text",
        f"   (names, chat) in Japanese, Chinese and Korean, cut from Noto Sans CJK Regular",
        f"   ({version}; SIL Open Font License 1.1, static/fonts/OFL.txt) into",
        f"   {len(slices)} slices, each fetched only when a page shows one of its characters",
        "   and no font before it in the stack has it (static/css/app.css names it last). */",
    ]
    total = 0
    for n, (tier, face, part) in enumerate(slices):
        font = TTFont(io.BytesIO(bases[face]))
        sub = Subsetter(options())
        sub.populate(unicodes=[ord(c) for c in part])
        sub.subset(font)
        font.flavor = "woff2"
        font.recalcTimestamp = False
        name = f"people-{n:02d}.woff2"
        font.save(str(OUT / name))
        size = (OUT / name).stat().st_size
        total += size
        css.append(
            f"/* {n:02d}: {tier}, {names[face]}, {len(part)} characters, {size // 1024} KB */\n"
            f"@font-face {{\n"
            f"  font-family: \"{FAMILY}\";\n"
            f"  src: url(\"{name}\") format(\"woff2\");\n"
            f"  unicode-range: {ranges(sorted(ord(c) for c in part))};\n"
            f"  font-display: swap;\n"
            f"}}"
        )
        print(f"{name}: {tier}, {names[face]}, {len(part)} characters, {size} bytes")
    (OUT / "people.css").write_text("\n".join(css) + "\n", encoding="utf-8")
    chars = sum(len(p) for _, _, p in slices)
    print(f"{len(slices)} slices, {chars} characters, {total} bytes")


if __name__ == "__main__":
    main()
