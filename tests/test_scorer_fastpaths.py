"""The scorer's fast paths give exactly what the plain formulations they replace give.

Each speed-up in ``scorer/`` (docs/scorer.md, "Speed") stands in for a simpler expression: a regex
run on every line, ``str.translate`` with the fold table, a ``Counter``, a pair loop. The plain
forms are written out here and compared on generated inputs, so a later change that breaks an
equivalence fails here, not as a reward that drifted by a hair: 100 derandomized inputs each in
``[sample]``, 400 in ``[full]`` (marked slow; tests/sweeps.py). Speed itself is measured by
``make bench``, never asserted.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from functools import partial

from hypothesis import strategies as st
from sweeps import sampled_given

from scorer import arabic, refrain, structure, text
from scorer.arabic import NON_ARABIC_LETTER, rhyme, rhyme_key, rhyme_similarity, similarity

agreement = partial(sampled_given, sample=100, full=400)

_arabic = list("ابتثجحخدذرزسشصضطظعغفقكلمنهويةىأإآؤئءڨگکیـًٌٍَُِّْٰ،؛؟٣")
_marks = [" ", "  ", "   ", "\t", "*", "**", "***", "_", "__", "…", "...", "|", " | ", "\u3000", "\u00a0"]
_marks += ["/", " / ", "-", " - ", "—", "،", "؛", ",", ";", ":", "：", "#", ">", "'", "’", "(", ")", "1", "7"]
_marks += ["٭", " ٭ ", "//", " • ", "~", "✿", "«", "»", "ـ", "ـــ", "?", "؟", "!"]
_latin = list("abcdeghiklmnorstuwyABDEHKSTW3579éèç")
pieces = st.sampled_from(_arabic + _marks + _latin + ["\ufefb", "\ufb50", "\u200f", "\ud800", "𝕬"])
line = st.lists(pieces, max_size=60).map("".join)
word = st.lists(st.sampled_from(_arabic[:30] + _latin[:20]), min_size=1, max_size=8).map("".join)

# The plain formulations, as the scorer had them.
_SPLIT_PLAIN = re.compile(r"\s*(?:\*+|⁂+|…+|\.{3,}|\t+|\s\|{1,2}\s| {3,}|\u3000+)\s*")
_INNER_MARKUP_PLAIN = re.compile(r"(\*\*|__|\*)(?=[^\s*_])([^\n]*?[^\s*_])\1")
_SOFT_PLAIN = re.compile(
    r"\s+[^\w\s()\[\]{}<>«»“”„‟\"'‘’‹›]+\s+"  # any separator run (scorer/caesura.py)
    r"|\s+/\s*|\s*/\s+|\s+[-–—]+\s+|\s*[،؛]\s*|\s*[,;]\s+|(?<=\S) {2}(?=\S)"
)


def _normalize_plain(t: str) -> str:
    if arabic.PRESENTATION.search(t):
        t = unicodedata.normalize("NFKC", t)
    return t.replace("اة", "ات").translate(arabic._FOLD)


def _clean_line_plain(raw: str) -> str:
    s = raw.strip()
    head = s[:1]
    if head == "#" and text._HEADING.match(s):
        s = text._HEADING.sub("", s, count=1)
    if head in ("*", "_"):
        m = text._BOLD_LINE.match(s)
        if m:
            s = m.group(2)
    if head == ">":
        s = text._QUOTE.sub("", s, count=1)
    if s[:1] in text._BULLET_START:
        s = text._BULLET.sub("", s, count=1)
    if "_" in s:
        s = text._EMPH.sub(r"\1", s)
    if "**" in s or "__" in s or s.count("*") >= 2:
        s = _INNER_MARKUP_PLAIN.sub(r"\2", s)
    return text._SPEAKER.sub("", text._LABEL_PREFIX.sub("", s, count=1), count=1).strip()


def _same_line_plain(a: str, b: str) -> bool:
    if a == b:
        return True
    la, lb = len(a), len(b)
    if not la or not lb or abs(la - lb) > max(2, lb // 10):
        return False
    n = min(la, lb)
    p = 0
    while p < n and a[p] == b[p]:
        p += 1
    q = 0
    while q < n - p and a[la - 1 - q] == b[lb - 1 - q]:
        q += 1
    return p + q >= 0.9 * max(la, lb)


@agreement(t=line)
def test_fold_by_replace_is_the_fold_table(t: str) -> None:
    assert arabic.normalize_arabic(t) == _normalize_plain(t)


@agreement(t=line)
def test_arabic_letters_counted_by_utf16_high_byte(t: str) -> None:
    assert text._count_arabic_letters(t) == len(NON_ARABIC_LETTER.sub("", t))


_space = st.sampled_from(["", " ", "  ", "\u00a0", " \u2009", "\u3000", "\t", "\n"])
_mark = st.sampled_from(["**", "*", "***", "…", "...", "⁂"])
caesura_line = st.tuples(line, _space, _mark, _space, line).map("".join)


@agreement(s=st.one_of(line, caesura_line))
def test_caesura_and_soft_splits_are_the_plain_regexes(s: str) -> None:
    assert text._split(s) == _SPLIT_PLAIN.split(s)
    assert text.SOFT.split(s) == _SOFT_PLAIN.split(s)


@agreement(p=line)
def test_hemistich_words_are_the_word_regex(p: str) -> None:
    assert text._hemi_words(p) == text._WORD.findall(p)


@agreement(s=line)
def test_inner_markup_is_removed_only_where_it_can_match(s: str) -> None:
    assert text._clean_line(s, False)[0] == _clean_line_plain(s)


@agreement(s=line)
def test_label_and_prose_lead_prefilters_only_skip_lines_that_cannot_match(s: str) -> None:
    s = s.strip()
    if s and s[0] in text._NO_LABEL_START:
        assert text._LABEL_LINE.match(s) is None
    if s and s[0] in text._NO_PROSE_LEAD_START:
        assert text._PROSE_LEAD.match(s) is None


_refrain_line = st.lists(st.sampled_from(list("ابتجدرسعلمنوي")), min_size=0, max_size=24).map("".join)


@agreement(key=_refrain_line, texts=st.lists(_refrain_line, max_size=3), edits=st.integers(0, 3))
def test_refrain_test_is_the_plain_letter_walk(key: str, texts: list[str], edits: int) -> None:
    if texts and edits:  # a near copy of the first refrain, so the walk is reached too
        key = texts[0][:-edits] + key[:edits]
    refrains = refrain.refrains_of([r for r in texts if r])
    assert refrain.is_copy(key, refrains) == any(_same_line_plain(key, r) for r in texts if r)
    for r in texts:
        assert refrain.same_line(key, r) == _same_line_plain(key, r)


@agreement(a=st.lists(word, max_size=9), b=st.lists(word, min_size=1, max_size=9))
def test_rhyme_means_are_the_plain_sums(a: list[str], b: list[str]) -> None:
    ka, kb = [rhyme_key(w) for w in a], [rhyme_key(w) for w in b]
    ra, rb = [rhyme(w) for w in a], [rhyme(w) for w in b]
    pairs = [similarity(ka[i], ka[j]) for i in range(len(ka)) for j in range(i + 1, len(ka))]
    total = 0.0
    for v in pairs:
        total += v
    plain_pair = total / (len(ka) * (len(ka) - 1) / 2) if len(ka) >= 2 else 0.0
    assert structure._pair_mean(ra) == plain_pair
    plain_cross = sum(similarity(x, y) for x in ka for y in kb) / (len(ka) * len(kb)) if ka else 0.0
    assert structure._cross_mean(ra, rb, {}) == plain_cross
    assert all(rhyme_similarity(x, y) == similarity(x, y) for x, y in zip(ra, rb, strict=False))
    if ka:
        c = Counter((k.rawi, k.ridf, k.wasl) for k in ka).most_common(1)[0][0]
        assert structure._rep(ra) == arabic.RhymeKey(*c, "")
