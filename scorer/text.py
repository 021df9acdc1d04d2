"""From a model response to a poem: extraction, clean-up and splitting.

Only non-thought text counts. Stanzas are blank-line separated; hemistichs are separated by ``**``
or another mark (`scorer.caesura`). What a model may put around the poem (a title, Markdown, code
fences, labels, prose, a signature) is set aside so that it cannot break the rhyme reading, and
counted per kind in `Poem.dropped`: the reward holds words that are not the poem at or under 0 and
costs another layout a little (`scorer.score`). What is read as layout, and what each costs, is
docs/scorer.md's "Layout is not content"; a soft separator (`` / ``, `` - ``, ``،``, two spaces) is
kept aside as ``Line.soft`` for the places that expect two halves, since inside an ordinary line a
comma is only a comma.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field

from scorer.arabic import ARABIC_LETTERS, LATIN_ARTICLE_APART, RhymeKey, normalize_arabic, rhyme
from scorer.caesura import SOFT, SOFT_TRIGGER, mark_caesura
from scorer.frame import blocks_of, count_dropped, count_fence, drop_signature, drop_title
from scorer.linear import MARKUP_OPENS, bound_spaces, drop_thinking, strip_inner_markup

MAX_CHARS = 20_000
"""Longest text that is scored; beyond it the poem is cut (and penalised as overlong) so one huge
response can never take more than a few milliseconds."""

MAX_LINES = 400

# Every pattern below meets model output, which a policy can drive anywhere: where a run could be
# split many ways the quantifier is possessive (`*+`), so each runs in linear time; the rewrites
# that scan ahead for a closing marker are one forward pass each (scorer/linear.py).
_NEWLINES = re.compile(r"\r\n|\r|\u2028|\u2029|\x85|\x0b|\x0c")
_BR = re.compile(r"<br\s*/?>|</?div\s*>", re.I)
_PARA = re.compile(r"</?p\s*>", re.I)
_NUMERAL_LINE = re.compile(r"^\s*[(\[]?\s*(?:\d{1,3}|[٠-٩]{1,3}|[IVXLC]{1,7})\s*[)\].:\-–—]?\s*$")
_SIGNATURE = re.compile(
    r"^\s*+(?:[-–—~]+\s*+\S|[(\[]?\s*+(?:by|par|signe|بقلم|شعر|كلمات|توقيع)\s*+[:：]?\s*+\S"
    r"|[(\[][^()\[\]\n]++[)\]]\s*+$"
    r"|(?:تمت|انتهت|انتهي|النهايه|fin|the\s++end|end)(?:\s++بحمد\s++الله)?+[\s.!…]*+$"
    r"|[^\n]{0,48}?(?<![0-9٠-٩])(?:1[89]|20|١[٨٩]|٢٠)[0-9٠-٩]{2}[\s.)\]]*+$)",
    re.I,
)
"""A signature or credit under the poem: ``— name``, ``بقلم: …``, a line in brackets
(``(شعر شعبي تونسي)``), a closing word (تمّت, النهاية, fin), or a short line ending on a year
(``صفاقس 2023``, ``المهدية، صيف 2022``, ``Sfax, 2023``: place and date). Read on the normalised text (é is e,
ة is ه, tashkeel gone)."""
# The lookaheads in _SOFT and _SPLIT only name the characters a match can start with: the same
# matches, but the engine skips every other position at once (twice as fast on a verse line).
_FENCE = re.compile(r"^\s*(```|~~~)")
_TAG = re.compile(r"</?[A-Za-z][A-Za-z0-9]{0,15}+(\s[^<>]{0,200}+)?/?>")
_HEADING = re.compile(r"^\s{0,3}#{1,6}\s*")
_QUOTE = re.compile(r"^\s*(?:>\s*)+")
_BULLET = re.compile(r"^\s*+(?:[-•+–—*▪◦·]\s++|[(\[]?(?:\d{1,3}|[٠-٩]{1,3})\s?[.)\]\-–:]\s++)")
_BOLD_LINE = re.compile(r"^\s*(\*\*|__)([^*_]+)\1\s*$")
_EMPH = re.compile(r"(?<![*\w])_([^_\n]+)_(?![*\w])")
_LABEL_WORDS = (
    r"stanza|strophe|couplet|verse|refrain|chorus|title|titre|poem|poème|poeme|opening|matla|"
    r"المطلع|مطلع|العرف|عرف|الردة|الرده|ردة|رده|المقطع|مقطع|البيت|بيت|العنوان|عنوان|القصيدة|قصيدة|"
    r"الملزومة|ملزومة|اللازمة|لازمة"
)
_LABEL_WORDS = "|".join(dict.fromkeys(normalize_arabic(w) for w in _LABEL_WORDS.split("|")))
_LABEL_PREFIX = re.compile(
    rf"^\s*+(?:\(?(?:{_LABEL_WORDS})\s*+[\w٠-٩]{{0,12}}+\s*+\)?\s*+[:：]"
    rf"|[(\[](?:{_LABEL_WORDS})(?:\s++[\w٠-٩]{{1,12}}+)?+\s*+[)\]]\s*+[:：]?)\s*+",
    re.I,
)
"""A label before a line's text: ``Refrain:``, ``اللازمة:``, ``(Refrain)``, ``[Chorus 2]``."""
_ASIDE = re.compile(r"\([^()\[\]\n]*+\)|\[[^()\[\]\n]*+\]")
"""Words in brackets: beside a line's own words they are an aside to another reader (a gloss, a
translation, a stage direction, a note), not the poem; a whole line in brackets is layout when it is a
line of the poem (a refrain set in parentheses: `_own_lines`), else an aside; one number in them is
layout (`_unless_a_number`). Linear: a span stops at the next bracket or newline."""


_ONE_NUMBER = re.compile(r"\s*+\d{1,3}\s*+")
"""What a bracketed number says when it numbers a line or a stanza: one number (any digits)."""


def _unless_a_number(m: re.Match[str]) -> str:
    """A bracketed span removed when it holds a letter, or digits that are not one number (a grade,
    a date, a score: 10/10); a number in brackets is layout and stays, as do brackets of marks only."""
    inner = m.group()[1:-1]
    if any(ch.isalpha() for ch in inner):
        return ""
    if any(ch.isdigit() for ch in inner) and not _ONE_NUMBER.fullmatch(inner):
        return ""
    return m.group()


_LABEL_WORDS_COLON = (
    r"[^\s:：*]++(?:(?:\s++[^\s:：*]++)?+\s*+[:：]"
    r"|(?:[^\S\t\n]{1,2}+[^\s:：*…|⁂]++){2,}+ ?+[:：](?=\s*+[^\s:：]))\s*+"
)
_SPEAKER = re.compile(r"^\s*+(?![wWoOو]\s|و(?!ال)\w)" + _LABEL_WORDS_COLON)
"""Words and a colon opening a line, before its caesura (a tab, three spaces or a mark): a label
(``الشاعر:``, ``Lui :``, ``ya 7akem a3tini 3achra:``), whatever its words, unless they open with
"and" (w, o or و apart, or و on a word without the article: ``w y9oul:``, ``وقالت:``), which joins
the line to the poem's sentences: reported speech. No honest line of the rounds opens with three
words or more and a colon; three or more before a colon that ends the line are an intro, prose."""
_FIRST_SPEAKER = re.compile(r"^\s*+" + _LABEL_WORDS_COLON)
"""The same on the poem's first line, "and" or not: no sentence before it to join (an intro)."""
_LABEL_LINE = re.compile(rf"^\s*+\(?(?:{_LABEL_WORDS})(?:\s++\S++){{0,2}}+\s*+\)?\s*+[:：.]?\s*+$", re.I)
_PROSE_LEAD_WORDS = (
    r"here|this|sure|certainly|of course|i hope|note|voici|voilà|bien sûr|j'espère|"
    r"هذه|هاذي|هذي|إليك|اليك|اليكم|تفضل|ملاحظة|شرح|آمل|نتمنى"
)
_PROSE_LEAD_WORDS = "|".join(dict.fromkeys(normalize_arabic(w) for w in _PROSE_LEAD_WORDS.split("|")))
_PROSE_LEAD = re.compile(rf"^\s*+(?:{_PROSE_LEAD_WORDS})\b", re.I)
_META_WORDS = normalize_arabic(
    "قصيدة|القصيدة|قصيدتي|ملزومة|الملزومة|قسيم|موقف|موڨف|مثلث|مخمس|مسدس|أبيات|الأبيات|بيت|كلمات|شعر|"
    "الشعر|طلبك|طلبت|تعجبك|يعجبك|poem|poème|poeme|verses|lines|stanzas"
)
_META = re.compile(rf"(?<!\w)(?:{_META_WORDS})(?!\w)", re.I)
"""A lead-in is prose about the poem: an Arabic line opening with a lead word (هاذي, نتمنى, تفضل,
which open verse lines too) is prose only when it names the poem or the request."""
_ARABIC_LEAD_START = frozenset(w[:1] for w in _PROSE_LEAD_WORDS.split("|") if w[:1] in ARABIC_LETTERS)
_BISMILLAH = re.compile(normalize_arabic(r"^\s*+بسم\s++الله(?:\s++الرحمن\s++الرحيم)?+\s*+[.:!]?\s*+$"))
_SPLIT = re.compile(r"(?=[\s*….⁂])\s*(?:\*+|⁂+|…+|\.{3,}|\t+|\s\|{1,2}\s| {3,}|\u3000+)\s*")
_ELLIPSIS = re.compile(r"[^\S\n]*+(?:…|\.{3,}+)++[^\S\n]*+")
_PAUSE = re.compile(r"(?<=[^\s.…])(?:…|\.{3,}+)++(?:[^\S\n]++|$)")
"""An ellipsis on the word before it (``ya sa7bi... ya khouya``) is a pause inside a half-line; a
caesura is written apart (`` … ``). It starts only after a character that is none of its own, so a
run of dots is tried once."""
_HARD_MARK = re.compile("[*⁂\t|\u3000]|   ")
"""The caesura marks but the ellipsis: beside one of them, an ellipsis is a pause inside a half-line."""
_CREDIT = re.compile(r"^(?:[-–—~]+\s*+\S|(?:by|par|بقلم|شعر|كلمات|توقيع)\s*+[:：]|بقلم\s)", re.I)
"""A credit line under a title (``بقلم: محمد``, ``— Mohamed``): stricter than `_SIGNATURE`, since a
poem's second line may open with شعر (hair)."""
_TABLE_RULE = re.compile(r"^\|?+(?:\s*+:?-{3,}+:?\s*+\|)++(?:\s*+:?-{3,}+:?\s*+)?+$")
"""A Markdown table's rule row (``|---|---|``): the line above it is the table's header."""
_WORD = re.compile(rf"(?:(?<![^\W_]){LATIN_ARTICLE_APART}(?=[^\W_]))?[^\W_]+(?:['’][^\W_]+)*")

PROSE_WORDS_PER_HEMISTICH = 14
"""A hemistich of more words than this is a sentence: prose, not verse. Words as the Arabic script
writes them: Arabizi's "and" and article written apart (`APART_CLITICS`) are not words of their own."""
APART_CLITICS = frozenset(("w", "o", "el", "l", "wel", "wil", "wl"))
"""Arabizi's "and" and article written apart (w el blad, wel blad), which the Arabic script joins to
the next word (والبلاد)."""


def _too_long(words: list[str]) -> bool:
    """Whether a hemistich of `words` is sentence-long (`PROSE_WORDS_PER_HEMISTICH`)."""
    if len(words) <= PROSE_WORDS_PER_HEMISTICH:
        return False
    return sum(w.lower() not in APART_CLITICS for w in words) > PROSE_WORDS_PER_HEMISTICH


@dataclass(slots=True)
class Line:
    """One poem line: its cleaned text, its hemistichs and its words (normalised)."""

    text: str
    hemis: list[str]
    words: list[str]
    hemi_words: list[list[str]]
    key: str
    """The line's letters only (lower case), for spotting duplicates and the refrain."""
    soft: list[list[str]] | None = None
    """Two halves split at a soft separator (see the module doc) when the line has no hard caesura
    and exactly one soft one; else empty (None: not computed yet, see ``halves``)."""
    signed: bool = False
    """The raw line read like a signature (``— name``, ``بقلم: …``)."""

    @property
    def halves(self) -> list[list[str]]:
        """The hemistichs where two are expected: the hard split, else the soft one (computed on
        first use: only bayts, the malzuma opening and the title check ask)."""
        if len(self.hemi_words) >= 2:
            return self.hemi_words
        if self.soft is None:
            self.soft = _soft_halves(self.text) if SOFT_TRIGGER.search(self.text) else []
        return self.soft or self.hemi_words

    @property
    def last_word(self) -> str:
        return self.words[-1] if self.words else ""


@dataclass(slots=True)
class Poem:
    """The poem as blocks (stanzas) of lines, plus what was removed around it."""

    blocks: list[list[Line]] = field(default_factory=list)
    prose_chars: int = 0
    overlong: bool = False
    arabic_letters: int = 0
    latin_letters: int = 0
    dropped: dict[str, int] = field(default_factory=dict)
    """Characters removed before the poem was read, per kind: ``thinking`` (a thinking block),
    ``tag`` and ``attribute`` (HTML), ``fence`` (code fence lines), ``markup`` (Markdown marks,
    bullets, quote marks), ``label`` (``Refrain:``, ``المطلع``), ``number`` (stanza numbers),
    ``separator`` (``* * *``, ``⁂``), ``invocation`` (a bismillah line), ``title``, ``signature``,
    ``prose``, ``aside`` (words in brackets beside a line's own). The parser charges none of it:
    the reward does (`score.LAYOUT_MARKS`: another layout costs a little; all else is not the
    poem and holds it at or under 0)."""

    @property
    def lines(self) -> list[Line]:
        return [ln for b in self.blocks for ln in b]


_PUNCT = " \t.,;:!?،؛؟\"'«»“”()[]{}-–—*_~`"
_BULLET_START = frozenset("-•+–—*▪◦·([0123456789٠١٢٣٤٥٦٧٨٩")


def _clean_line(s: str, first: bool) -> tuple[str, bool, int]:
    """Strip Markdown and labels from one line (``first``: the poem's first); the flag says it
    carried heading/bold markup, the count is the label's characters. Each regex runs only when its
    trigger character is present: most lines are plain verse. The label goes last, once the markup
    around it is gone (``**اللازمة:** …``)."""
    marked = False
    label = 0
    s = s.strip()
    head = s[:1]
    if head == "#" and _HEADING.match(s):
        s = _HEADING.sub("", s, count=1)
        marked = True
    if head in ("*", "_"):
        m = _BOLD_LINE.match(s)
        if m:
            s = m.group(2)
            marked = True
    if head == ">":
        s = _QUOTE.sub("", s, count=1)
    if s[:1] in _BULLET_START:
        s = _BULLET.sub("", s, count=1)
    if "_" in s:
        s = _EMPH.sub(r"\1", s)
    if ("**" in s or "__" in s or s.count("*") >= 2) and MARKUP_OPENS.search(s):
        s = strip_inner_markup(s)
    if ":" in s or "：" in s or s[:1] in "([":
        n = len(s)
        s = (_FIRST_SPEAKER if first else _SPEAKER).sub("", _LABEL_PREFIX.sub("", s, count=1), count=1)
        label = n - len(s)
    return s.strip(), marked, label


def _split(s: str) -> list[str]:
    """``_SPLIT.split(s)``. The usual caesura, one ``**`` and no other separator character, is cut
    by hand: the only match is then the ``**`` with the whitespace around it (``\\s`` is
    ``str.isspace``, as ``strip()`` uses), and the regex walks every space of the line."""
    if s.count("*") == 2 and not _OTHER_SPLIT_CHAR.search(s) and "   " not in s:
        i = s.find("**")
        if i >= 0:
            return [s[:i].rstrip(), s[i + 2 :].lstrip()]
    return _SPLIT.split(s)


_OTHER_SPLIT_CHAR = re.compile("[…\t|\u3000⁂]|\\.\\.\\.")


def _hemi_words(part: str) -> list[str]:
    """The words of one hemistich (``_WORD``'s matches). A part of plain words and spaces, verse's
    common case, is just its ``split()``: ``[^\\W_]`` is exactly ``str.isalnum`` (both are
    ``Py_UNICODE_ISALNUM``) and no whitespace is alphanumeric, so the regex would find the same
    tokens; it runs only when a token holds anything else (punctuation, an apostrophe, ``_``)."""
    toks = part.split()
    if "".join(toks).isalnum():
        return toks
    return _WORD.findall(part)


def _words_key(part: str) -> str:
    """A piece of text as its words alone, to tell whether two pieces say the same line."""
    return "".join(_WORD.findall(part)).lower()


def _bracketed(line: str) -> str | None:
    """What a line set whole in brackets says, the brackets taken off; None for any other line."""
    if ("(" not in line and "[" not in line) or _ASIDE.sub("", line).strip(_PUNCT):
        return None
    return _ASIDE.sub(lambda m: m.group(0)[1:-1], line)


def _end_rhyme(part: str) -> RhymeKey | None:
    """The rhyme of a piece of text's last word, or None for a piece without words."""
    words = _WORD.findall(part)
    return rhyme(words[-1].lower()) if words else None


def _own_lines(raw_lines: list[str]) -> tuple[frozenset[str], frozenset[RhymeKey | None]]:
    """What the lines not set whole in brackets say, and the rhymes they end on: a line in brackets
    is the poem's (a refrain set in parentheses, a bayt set apart) when it says one of their lines or
    half-lines, or a bracketed line met twice, or ends on one of their rhymes; else it is an aside
    (a stage direction, a note)."""
    keys: set[str] = set()
    ends: set[RhymeKey | None] = set()
    seen: set[str] = set()
    for raw in raw_lines:
        st = raw.strip()
        if not st:
            continue
        inner = _bracketed(st)
        if inner is not None:
            key = _words_key(inner)
            if key in seen:
                keys.add(key)
            seen.add(key)
            continue
        keys.add(_words_key(st))
        keys.update(_words_key(h) for h in st.split("**"))
        ends.add(_end_rhyme(st))
    keys.discard("")
    ends.discard(None)
    return frozenset(keys), frozenset(ends)


def _the_poems(line: str, own: tuple[frozenset[str], frozenset[RhymeKey | None]]) -> bool:
    """Whether a line set whole in brackets is a line of the poem (see `_own_lines`)."""
    inner = _bracketed(line) or ""
    keys, ends = own
    return _words_key(inner) in keys or _end_rhyme(inner) in ends


def parse_poem(text: str) -> Poem:
    """Clean the text and split it into blocks of lines and hemistichs (see the module doc).

    Called once per reward, so the per-line loop is kept cheap: whole-text tests decide once
    whether any line can hold a code fence or Markdown/label markup, a line without them skips
    ``_clean_line``, a line without a caesura mark skips the split, and the signature test runs
    on the last line only (the only place ``_drop_signature`` looks). What is removed before the
    poem is read is counted in ``Poem.dropped``."""
    poem = Poem()
    if not text:
        return poem
    dropped = poem.dropped
    if len(text) > MAX_CHARS:
        text = text[:MAX_CHARS]
        poem.overlong = True
    if _has_any(text, "\r\u2028\u2029\x85\x0b\x0c"):  # _NEWLINES' characters
        text = _NEWLINES.sub("\n", text)
    text = bound_spaces(normalize_arabic(mark_caesura(text)))
    if "-" in text:
        text = _PROCLITIC_APART.sub(r"\1", text)
    if "<" in text:
        n = len(text)
        text = drop_thinking(text)
        count_dropped(dropped, "thinking", n - len(text))
        text = _BR.sub("\n", text)
        text = _PARA.sub("\n\n", text)
        if _TAG.search(text):
            text = _TAG.sub(functools.partial(_drop_tag, dropped=dropped), text)
    raw_lines = text.split("\n")
    if " / " in text:
        raw_lines = _unfold_slashed(raw_lines)
    if len(raw_lines) > MAX_LINES:
        raw_lines = raw_lines[:MAX_LINES]
        poem.overlong = True

    fences = "```" in text or "~~~" in text
    markup = _has_any(text, "#*_>:：([")  # else _clean_line can only strip a bullet
    # an uncleaned line is a piece of the text: without a caesura mark in the text, it has none
    caesura = "   " in text or "..." in text or _has_any(text, "*…\t|\u3000⁂")
    lines: list[Line] = []
    gaps: list[int] = []  # blank lines (2 for a stanza number, a separator or prose) before each line
    marks: list[bool] = []  # the first two lines carried heading/bold markup
    in_fence = False
    credit = False  # the second line is a credit (``بقلم: محمد``, ``— Mohamed``)
    gap = 0
    last_raw = prev_raw = ""
    # a line met again (a refrain) reads as it did the first time: its fields are reused (they are
    # never modified); a new Line is made, so each keeps its own lazily computed soft split
    again: dict[str, tuple[str, list[str], list[str], list[list[str]], str]] = {}
    own = _own_lines(raw_lines) if "(" in text or "[" in text else (frozenset(), frozenset())
    for raw in raw_lines:
        if fences and _FENCE.match(raw):
            in_fence = not in_fence
            count_fence(dropped, raw)
            continue
        fields = again.get(raw)
        if fields is not None:
            lines.append(Line(*fields))
            gaps.append(gap)
            gap = 0
            prev_raw, last_raw = last_raw, raw
            continue
        st = raw.strip()
        if not st:
            gap += 1
            continue
        if st[0] in "|:-" and lines and not gap and _TABLE_RULE.match(st):
            # the row above a Markdown table's rule is its header (| صدر | عجز |), not a bayt
            count_dropped(dropped, "header", len(lines.pop().text))
            gaps.pop()
            gap += 2
            continue
        head = st[0]
        if head in _NUMERAL_START and _NUMERAL_LINE.match(raw):
            gap += 2
            count_dropped(dropped, "number", len(st))
            continue
        if head == "ب" and len(lines) <= 1 and _BISMILLAH.match(st):  # above the poem (or its title)
            gap += 2
            count_dropped(dropped, "invocation", len(st))
            continue
        cleaned = markup or head in _BULLET_START
        if cleaned:
            s, marked, label = _clean_line(st, not lines)
            count_dropped(dropped, "label", label)
            count_dropped(dropped, "markup", len(st) - len(s) - label)
            if not s:
                continue
        else:
            s, marked = st, False
        if s.count(" ") < 3 and s[0] not in _NO_LABEL_START and _LABEL_LINE.match(s):
            count_dropped(dropped, "label", len(s))
            continue
        if "(" in s or "[" in s:
            kept = _ASIDE.sub(_unless_a_number, s)
            if len(kept) < len(s) and kept.strip(_PUNCT):  # beside the line's own words: an aside
                count_dropped(dropped, "aside", len(s) - len(kept))
                s = kept
            elif len(kept) < len(s) and not _the_poems(s, own):
                # a whole line in brackets that says no line of the poem (a stage direction, a note)
                count_dropped(dropped, "aside", len(s))
                continue
        # a caesura mark: one of _SPLIT's characters, "..." or three spaces
        if (caesura or cleaned) and ("…" in s or "..." in s):
            # beside a caesura, or on the word before it, an ellipsis is a pause in a half-line; what
            # is left is read as any line is (a soft caesura, two spaces or ` - `, included)
            s = (_ELLIPSIS if _HARD_MARK.search(s) else _PAUSE).sub(" ", s)
        if (caesura or cleaned) and ("   " in s or "..." in s or _SPLIT_CHAR.search(s)):
            parts = [p for p in [h.strip(_PUNCT) for h in _split(s)] if p]
            hemi_words = [w for w in map(_hemi_words, parts) if w]
            if not hemi_words:
                gap += 2  # a separator line (* * *, ⁂): a stanza break
                count_dropped(dropped, "separator", len(st))
                continue
            words = [w for hw in hemi_words for w in hw]
            key = "".join(words).lower()
            long_hemi = any(map(_too_long, hemi_words))
        else:
            part = s.strip(_PUNCT)
            words = part.split()
            key = "".join(words)
            if not key.isalnum():
                words = _WORD.findall(part)
                key = "".join(words)
            if not words:
                gap += 2  # a separator line (---, ***, ~~~): a stanza break
                count_dropped(dropped, "separator", len(st))
                continue
            parts = [part]
            hemi_words = [words]
            key = key.lower()
            long_hemi = _too_long(words)
            if long_hemi and SOFT_TRIGGER.search(part):
                # a bayt whose halves are parted by a soft separator (` - `, `، `, ` / `) is two
                # hemistichs, not one sentence-long line
                halves = _soft_halves(part)
                if halves and not _too_long(halves[0]) and not _too_long(halves[1]):
                    hemi_words = halves
                    parts = [" ".join(h) for h in halves]
                    words = halves[0] + halves[1]
                    key = "".join(words).lower()
                    long_hemi = False
        # A line is prose, not verse, when a 'hemistich' is sentence-long, or it introduces
        # something (ends with a colon, or opens with a lead-in such as 'Here is' / 'إليك').
        if (
            long_hemi
            or (markup and s.endswith((":", "：")) and len(s) > 1)  # no markup: no colon
            or (
                len(words) > 3
                and s[0] not in _NO_PROSE_LEAD_START
                and _PROSE_LEAD.match(s)
                and (s[0] not in _ARABIC_LEAD_START or _META.search(s))
            )
        ):
            poem.prose_chars += len(s)
            count_dropped(dropped, "prose", len(s))
            gap += 2
            continue
        if len(marks) < 2:
            marks.append(marked)
        fields = again[raw] = (s, parts, words, hemi_words, key)
        if len(lines) == 1 and len(words) <= 4 and _CREDIT.match(st) and last_raw.lstrip()[:1] != head:
            # read on the line as written: cleaning takes a leading dash for a bullet (on every line
            # from the first, a dash is a bullet: no credit)
            credit = True
        lines.append(Line(*fields))
        gaps.append(gap)
        gap = 0
        prev_raw, last_raw = last_raw, raw
    if lines:
        gaps[0] = 0
        tail = last_raw.lstrip()
        if (
            (tail[:1] in _SIGN_START or tail.rstrip(" .)]\n\r")[-1:] in _DIGITS)
            and _SIGNATURE.match(tail)
            # a bullet on every line is layout: the last line opens as the one before it does
            and not (len(lines) >= 2 and prev_raw.lstrip()[:1] == tail[:1] and tail[:1] in "-–—~")
        ):
            lines[-1].signed = True

    if credit and len(lines) >= 5 and gaps[2]:
        # a credit line under a leading title (``الصبر`` / ``بقلم: محمد``), apart from the poem
        count_dropped(dropped, "signature", len(lines.pop(1).text))
        gaps.pop(1)
        titled = True  # the line above a credit is a title, whatever the spacing below it
    else:
        titled = False
    blocks = blocks_of(lines, gaps)
    if blocks:
        drop_signature(blocks, dropped, len(lines) >= 4 and 0 not in gaps[1:])
        # markup marks a title only where it sets the first line apart (not on every line)
        marked = titled or (bool(marks) and marks[0] and not (len(marks) > 1 and marks[1]))
        drop_title(blocks, marked, dropped)
    poem.blocks = [b for b in blocks if b]
    joined = "\n".join([ln.text for b in blocks for ln in b])
    poem.arabic_letters = _count_arabic_letters(joined)
    # the ASCII letters: the ASCII bytes without the others
    poem.latin_letters = len(joined.encode("ascii", "ignore").translate(None, NOT_LATIN_BYTES))
    return poem


def _drop_tag(m: re.Match[str], dropped: dict[str, int]) -> str:
    """An HTML tag is a space; its characters are counted, those of its attributes apart."""
    attrs = m.group(1)
    n = len(attrs) if attrs else 0
    count_dropped(dropped, "attribute", n)
    count_dropped(dropped, "tag", len(m.group()) - n)
    return " "


def _unfold_slashed(raw_lines: list[str]) -> list[str]:
    """A stanza written on one line with `` / `` between its lines (two or more of them: one is a
    bayt's caesura) is that stanza: its lines, set apart by blank lines."""
    out: list[str] = []
    for raw in raw_lines:
        if raw.count(" / ") >= 2:
            out += ("", *raw.split(" / "), "")
        else:
            out.append(raw)
    return out


_SPLIT_CHAR = re.compile("[*…\t|\u3000⁂]")
_PROCLITIC_APART = re.compile(r"(?<![^\W_])([bfwlkdBFWLKD])-(?=[^\W_])")
"""An Arabizi one-letter proclitic hyphenated to its word (``b-a3ref``, ``f-een``) is read joined."""


_IN_1256 = {c: c.encode("cp1256", "ignore") for c in ARABIC_LETTERS}  # each letter's byte, or none
_NOT_LETTER_1256 = bytes(b for b in range(256) if bytes((b,)) not in _IN_1256.values())
_OUTSIDE_1256 = tuple(sorted(c for c, b in _IN_1256.items() if not b))  # ڨ


def _count_arabic_letters(text: str) -> int:
    """``len(NON_ARABIC_LETTER.sub("", text))``: the letters' bytes of the text in Windows-1256 (one
    byte a character; what it cannot encode left out), by C-speed encoding and translating, and the
    letters it lacks (ڨ) counted apart; a regex tried at every character costs more."""
    letters = text.encode("cp1256", "ignore").translate(None, _NOT_LETTER_1256)
    return len(letters) + sum(map(text.count, _OUTSIDE_1256))


def _has_any(text: str, chars: str) -> bool:
    """Whether any of ``chars`` occurs in ``text``: one substring scan per character, several
    times cheaper on a poem than a regex character class tried at every position."""
    for c in chars:  # noqa: SIM110 (any() would add a generator)
        if c in text:
            return True
    return False


def _arabic_letters_not_starting(words: str) -> frozenset[str]:
    """Arabic letters that start none of these ``|``-separated words. A line that starts with one
    cannot match a pattern that must open with one of the words: Arabic has no case, so even
    under ``re.I`` an Arabic letter matches only itself."""
    return ARABIC_LETTERS - {w.strip()[:1] for w in words.split("|")}


_NO_LABEL_START = _arabic_letters_not_starting(_LABEL_WORDS)
_NO_PROSE_LEAD_START = _arabic_letters_not_starting(_PROSE_LEAD_WORDS)
NOT_LATIN_BYTES = bytes(c for c in range(256) if not (65 <= c <= 90 or 97 <= c <= 122))
"""Every byte but the ASCII letters'; ``bytes.translate(None, NOT_LATIN_BYTES)`` keeps the letters."""
_SIGN_START = frozenset("-–—~bpsBPSfFtTeEبشكتا([")
_DIGITS = frozenset("0123456789٠١٢٣٤٥٦٧٨٩")
_NUMERAL_START = frozenset("0123456789٠١٢٣٤٥٦٧٨٩([IVXLC")


def _soft_halves(s: str) -> list[list[str]]:
    """Two halves at the line's one soft separator, each of two words or more; else none."""
    parts = SOFT.split(s.strip(_PUNCT))
    if len(parts) != 2:
        return []
    halves = [_WORD.findall(p) for p in parts]
    return halves if all(len(h) >= 2 for h in halves) else []


_NOT_ALNUM = re.compile(r"[\W_]+")


def letters_only(text: str) -> str:
    """The letters of a line, for comparing lines (duplicates, refrain) regardless of spacing and
    punctuation: words and spaces alone are their join (``[^\\W_]`` is ``str.isalnum``), else the regex."""
    return j if (j := "".join(text.lower().split())).isalnum() else _NOT_ALNUM.sub("", text.lower())
