"""Pure scoring: a response and its dataset references in, a reward in [-1, 1] out.

The reward is ``2 q - 1`` where the quality ``q`` in [0, 1] is a weighted mean of named sub-scores
(rhyme topology with graded similarity, stanza count and size, refrain, isometry: each form's in
``structure.py``), minus penalties for the known hacks (docs/scorer.md), times the product of the
factors of one table, FACTORS (script, language, variety, order, form, frame, layout…: each a named
function of the response's `Reading`, each reported in the sub-scores). This module holds the
combination and what every form shares. Every part is smooth, so a GRPO group's samples differ by
how much form they kept.

No I/O, no randomness, no dependence on hash order: the same input gives the same float anywhere.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from itertools import pairwise
from typing import Any

from scorer import ngrams
from scorer.allow import Chars, classify
from scorer.arabic import arabizi_fold
from scorer.catalogue import FormSpec, lookup
from scorer.cuts import cut_gate
from scorer.identity import rhyme_identity
from scorer.lexicon import (
    WordTable,
    article_length,
    is_arabic_word,
    is_arabizi_word,
    is_attested_arabic,
    is_attested_arabizi,
)
from scorer.msa import case_gate
from scorer.order import Order, glue_gate, list_gate
from scorer.order import measure as order_measure
from scorer.ramp import ramp
from scorer.response import extract_text
from scorer.reuse import reuse_gate
from scorer.structure import Ends, Shortfall, score_bayt, score_strophic, short_penalty
from scorer.text import MAX_CHARS, Line, Poem, parse_poem
from scorer.variety import DERJA, UNKNOWN, Variety, detect
from scorer.wordshape import FUNCTION_WORD_LETTERS, is_function_word, is_piece

ITA_WINDOW = 7
"""Classical tolerance: a rhyme word may come back after about seven lines (al-Hāshimī)."""
ITA_NEAR, ITA_FAR = 0.07, 0.015
"""Penalty per reused rhyme word, within the window (from the third reuse on, twice) and beyond it."""

BABBLE_FROM, BABBLE_FULL = 0.25, 0.65
"""A line's repetition below BABBLE_FROM is free (anaphora: "يا أمي يا الحنينة"); at BABBLE_FULL and
above the line is all babble ("يا يا يا الدار")."""
BABBLE_RATE, BABBLE_MAX = 0.8, 0.7
"""p_babble = BABBLE_RATE × the mean babble degree of the lines, capped at BABBLE_MAX."""

LINE_ZERO, LINE_FULL = 0.4, 0.75
"""A hemistich whose share of known words is LINE_FULL or more is language, LINE_ZERO or less is not;
linear in between, so a rare or misspelt word costs nothing."""
LANG_FULL = 0.85
"""The language gate is the mean line worth over LANG_FULL, capped at 1: each line of non-language
costs its share (smooth for GRPO)."""
VARIETY_RAMP = {"arabic": (0.25, 0.5), "arabizi": (0.15, 0.35)}
"""The variety gate on `scorer.variety`'s Derja share, per script (zero, full): another variety that
leads clearly scores ≤ 0. Arabizi needs more evidence: its free spelling meets other varieties'
markers (`dul`, `waš`); a poem in another variety has many markers, not two."""
UNPROVEN_WORDS = (42, 45)
"""A poem with no Tunisian weight at all is not shown to be Derja: from the first word count to the
second its variety gate falls to UNPROVEN_GATE (reward ≤ 0). Words are counted at the asked size, so
cutting stanzas never escapes (docs/scorer.md, "Positive evidence")."""
UNPROVEN_GATE = 0.5
STANDARD_RAMP = (-0.2, 0.05)
"""The standard gate on `standard_margin` (zero, full): how far the words read as Derja rather than
MSA (docs/scorer.md, "Arabic script: the words as a whole", for the figures)."""
STANDARD_FLOOR = 0.5
"""The standard factor at STANDARD_RAMP's zero: q × 0.5 makes the reward ≤ 0, still ordered by form."""
STANDARD_PROVEN = 0.65
"""A marker-free Arabic-script poem this far on Derja's side of the margin is shown to be Derja
(UNPROVEN_WORDS does not apply), as the Latin classifier's reading proves an Arabizi poem. Fitted
between the rounds' marker-free genuine poems and the cheats only UNPROVEN_WORDS held."""
ORDER_RAMP = (0.5, 1.0)
"""The word-order gate on `scorer.order`'s z (zero, full), from ORDER_FLOOR to 1 (docs/scorer.md,
"Word order", for the figures)."""
ORDER_FLOOR = 0.5
LEXICON_RAMP = {"arabic": (0.2, 0.11), "arabizi": (0.45, 0.32)}
"""The lexicon gate on the share of content words the asked script's lexicon does not know (zero,
full), from LEXICON_FLOOR (reward ≤ 0) to 1. The per-line language ramp leaves a quarter of a line's
words free, particles included, so a poem could hide an invented content word in every line under
it. Arabizi's spellings vary, hence its wider ramp (docs/scorer.md, principle 2)."""
LEXICON_FLOOR = 0.5
ATTESTED_RAMP = {"arabic": (0.28, 0.2), "arabizi": (0.46, 0.4)}
"""The lexicon gate's second ramp (zero, full), on the share of content words not attested
(`is_attested_arabic`, `is_attested_arabizi`): poems of invented words in Derja's shapes, which the
splits and the loose lookup take for rare words. Full just above every honest poem of the rounds."""
LEXICON_PRIOR_WORDS = 5
"""The share is counted as if this many more content words were known: a short poem's one or two
rare words are weak evidence."""
DIRECTION_RAMP = (-0.35, -0.2)
"""The direction gate on `scorer.order.measure`'s lead of the lines as written over their reversal,
per movable word (zero, full), from ORDER_FLOOR to 1: Derja is read one way."""
ORDER_PRIOR_WORDS = 24
"""The lead is shrunk towards 0 as if this many more words had been read in no direction: a short
poem is not gated on two lines' direction."""
STRAY_LINE = 0.3
"""A line whose words are under this share Derja words (each looked up in its own script's lexicon)
is not a line of the poem: a note, a line in another language."""
SCRIPT_RAMP = (0.25, 1.0)
"""The script gate on the asked script's share of the letters (zero, full): every letter of the other
script costs its share; a poem half in the wrong script keeps 1/3."""
UNKNOWN_RUN = 4
"""Words in a row that no lexicon of the asked script holds that make a phrase of another language in
a line (the rounds' genuine poems have runs of three at most)."""
FOREIGN_LANGUAGES = ("french", "english")
"""The languages Tunisians switch into whose words the Latin classifier (`scorer.ngrams`) reads."""
FOREIGN_VOTE = 0.5
"""A Latin word no Arabizi lexicon holds whose classifier vote for one of FOREIGN_LANGUAGES reaches
this is that language's word."""
FOREIGN_WORDS_FREE = 1
"""Distinct such words a poem may hold as loanwords (ordinateur, chauffeur); past them they are
another language threaded through the lines (a plea to the grader a word per line)."""
LAYOUT_MARKS = ("number", "separator", "markup", "fence")
"""What another layout of the same poem adds: stanza numbers, separator lines, bullets and emphasis,
a code fence's marks. Whatever else the parser sets aside (`Poem.dropped`: a think block, a title, a
label, prose...) is text for another reader, not the poem: with any of it, or any character outside
the allowlist (`scorer.allow`), `frame` holds the reward ≤ 0."""
LAYOUT_COST = 0.95
"""The `layout` factor of another layout than the asked one: the same words, so less, not nothing."""
NOT_THE_POEM_CAP = 0.5
"""The `frame` factor's most: q x 0.5 makes the reward 2 q x 0.5 - 1 <= 0."""

RHYME_UNKNOWN = 0.5
"""A hemistich whose rhyme word is not a word keeps this share of its worth (Arabic script), and
never more than its body with one more unknown word (both scripts)."""
OVERLAP_FROM, OVERLAP_FULL = 0.5, 0.8
"""Repetition by overlap: the share of a hemistich body's word pairs already met. Below OVERLAP_FROM
it is free (a repeated phrase, anaphora); at OVERLAP_FULL the hemistich is a copy, worth nothing."""
OVERLAP_MIN_PAIRS = 3
"""Bodies of fewer word pairs are too short to call a copy by their pairs."""
SELF_RUN = 4
"""A hemistich that says a run of this many words twice says itself again: a copy (honest hemistichs
repeat three at most: "w fik el ... w fik el")."""
COPY_OUTSIDE = 0.5
"""A hemistich more copy than not pays twice: its worth goes, and its copied part past COPY_OUTSIDE
comes off the language gate after LANG_FULL's slack, which is for words the lexicon misses, not for
copies (docs/scorer.md, principle 5)."""
COPY_FREE = 1.0
"""Copied hemistichs (summed as above) that pay no more than their worth: one echo is chance, a
second a template."""

FLAW_COST, FLAW_MAX = 0.06, 0.2
"""One honest flaw of a kept form (``structure.FLAW_RHYME``) costs at least FLAW_COST of the quality:
what the flawed stanzas took from the sub-scores (`Shortfall.lost`) is topped up to FLAW_COST ×
flaws, at most FLAW_MAX, since a sub-score averaged over a poem shrinks one flaw to a few
hundredths. A floor, not a surcharge: a poem of many flaws has lost more already."""

WEIGHTS_STROPHIC = {
    "main": 0.26,
    "stanza": 0.24,
    "contrast": 0.08,
    "distinct": 0.05,
    "count": 0.12,
    "size": 0.10,
    "refrain": 0.07,
    "iso": 0.08,
}
WEIGHTS_GSIM = {"main": 0.33, "first": 0.25, "contrast": 0.07, "count": 0.15, "halves": 0.10, "iso": 0.10}
WEIGHTS_QASIDA = {"main": 0.55, "count": 0.15, "halves": 0.15, "iso": 0.15}


@dataclass(slots=True)
class Score:
    """A reward with its named sub-scores (each in [0, 1]) and a short human reason."""

    reward: float
    subscores: dict[str, float] = field(default_factory=dict)
    reason: str = ""


def _fail(reason: str) -> Score:
    return Score(-1.0, {}, reason)


def _clean_refs(references: Any) -> dict[str, str]:
    """The references with string keys and string or whole-number values, as strings (a boolean as
    yes or no); anything else is dropped, so no reference can raise."""
    if not isinstance(references, dict):
        return {}
    yes_no = {True: "yes", False: "no"}
    return {
        k: yes_no[v] if isinstance(v, bool) else str(v)
        for k, v in references.items()
        if isinstance(k, str) and isinstance(v, str | int)
    }


@dataclass(slots=True)
class Reading:
    """One response as the factors read it: parsed once, shared by every factor."""

    raw: str
    poem: Poem
    lines: list[Line]
    spec: FormSpec
    refs: dict[str, str]
    asked: str
    """The script the references ask ("arabic", "arabizi"), "" when they ask neither."""
    script: str
    """The script the words are read in: the asked one, else the poem's majority."""
    words: list[str]
    segments: list[list[str]]
    """Hemistichs (a line without a caesura is one), each as its words."""
    order: Order
    """`scorer.order.measure` of the segments, read once for the order and direction factors."""
    shortfall: Shortfall
    chars: Chars
    variety: Variety
    standard: float
    """`standard_margin` of the words in Arabic script (0 in Arabizi), read once for the standard and
    variety factors."""


def _script_factor(r: Reading) -> float:
    """Characters: the asked script's share of the letters, ramped by SCRIPT_RAMP: the other script's
    letters cost their share, a line slipped into it included. Without a script in the references
    either script is accepted, but mixing still costs."""
    ar, lat = r.poem.arabic_letters, r.poem.latin_letters
    if not ar + lat:
        return 0.0
    ours = lat if r.asked == "arabizi" else ar if r.asked == "arabic" else max(ar, lat)
    return ramp(ours / (ar + lat), *SCRIPT_RAMP)


def _language_factor(r: Reading) -> float:
    """Words: every hemistich worth its share of words of the asked language, less copies
    (`_language_gate`), times what a cut into pieces keeps (`scorer.cuts`)."""
    table = _ARABIZI_WORDS if r.script == "arabizi" else _ARABIC_WORDS
    return _language_gate(r.lines, r.script == "arabizi", r.spec.refrain != "none") * cut_gate(r.lines, table)


def _variety_factor(r: Reading) -> float:
    """Varieties: `scorer.variety`'s Derja share ramped by VARIETY_RAMP, times its foreign gate; a
    long poem with no Tunisian evidence at all falls to UNPROVEN_GATE (UNPROVEN_WORDS)."""
    v = r.variety
    value = ramp(v.derja, *VARIETY_RAMP[r.script]) * v.foreign_gate
    n = len(r.words) / max(0.1, r.shortfall.complete)  # at the asked size: a cut never escapes
    if v.counts[DERJA] == 0.0 and n > UNPROVEN_WORDS[0] and r.standard < STANDARD_PROVEN:
        value *= 1.0 - (1.0 - UNPROVEN_GATE) * ramp(n, *UNPROVEN_WORDS)
    return value


def _case_factor(r: Reading) -> float:
    """Varieties: MSA's case endings written out (`scorer.msa`)."""
    return case_gate(r.raw)


def _standard_factor(r: Reading) -> float:
    """Varieties: how far the words as a whole read as Derja rather than MSA (`standard_margin`),
    ramped by STANDARD_RAMP from STANDARD_FLOOR to 1; 1 in Arabizi, whose model holds no MSA."""
    if r.script != "arabic":
        return 1.0
    return STANDARD_FLOOR + (1.0 - STANDARD_FLOOR) * ramp(r.standard, *STANDARD_RAMP)


def standard_margin(words: list[str]) -> float:
    """The mean, over the distinct Arabic-script words that are not nouns with the article
    (`_definite`), of each word's clipped log-likelihood ratio Derja over MSA (`scorer.ngrams`'s
    ``ratios``); 0 without such words or without the model."""
    ratios = [x for x in map(_MSA_RATIOS.__getitem__, dict.fromkeys(words)) if x is not None]
    return math.fsum(ratios) / len(ratios) if ratios else 0.0


def _msa_ratio(word: str) -> float | None:
    """One word's term of `standard_margin`: None for a noun with the article or without the model."""
    model = ngrams.load("arabic")
    if model is None or _definite(word):
        return None
    return model.ratios[word][model.varieties.index("msa")]


def _definite(word: str) -> bool:
    """A noun with the article (its proclitics too, `article_length`) and a stem of three letters or
    more: الدار, بالليل, but not اللي."""
    return (n := article_length(word)) > 0 and len(word) - n >= 3


_MSA_RATIOS = WordTable(_msa_ratio)


def _order_factor(r: Reading) -> float:
    """Words: how far their order stands above a random order of the same words (`scorer.order`'s
    z), ramped by ORDER_RAMP from ORDER_FLOOR to 1; 1 where no line has words to order."""
    if not r.order.moved:
        return 1.0
    return ORDER_FLOOR + (1.0 - ORDER_FLOOR) * ramp(r.order.z, *ORDER_RAMP)


def _lexicon_factor(r: Reading) -> float:
    """Words: the share of content words the asked script's lexicon does not know, rhyme words
    included, ramped by LEXICON_RAMP, and the share not attested, by ATTESTED_RAMP; the lower, from
    LEXICON_FLOOR to 1. A word the lexicon knows as a particle or pronoun (`is_function_word`) is no
    content word."""
    known, attested = _LEXICON_TABLES[r.script]
    unknown = unattested = content = 0
    for w in r.words:
        if known[w]:
            if _FUNCTION_WORDS[w]:
                continue
            unattested += not attested[w]
        else:
            unknown += 1
        content += 1
    content += LEXICON_PRIOR_WORDS
    level = ramp(unknown / content, *LEXICON_RAMP[r.script])
    level = min(level, ramp((unknown + unattested) / content, *ATTESTED_RAMP[r.script]))
    return LEXICON_FLOOR + (1.0 - LEXICON_FLOOR) * level


def _direction_factor(r: Reading) -> float:
    """Words: the lead of the lines as written over their reversal (`scorer.order.measure`), shrunk
    towards 0 by ORDER_PRIOR_WORDS, ramped by DIRECTION_RAMP from ORDER_FLOOR to 1."""
    lead, moved = r.order.lead, r.order.moved
    lead = lead * moved / (moved + ORDER_PRIOR_WORDS)
    return ORDER_FLOOR + (1.0 - ORDER_FLOOR) * ramp(lead, *DIRECTION_RAMP)


def _glue_factor(r: Reading) -> float:
    """Words: lines that hold Derja's glue words (`scorer.order.glue_gate`)."""
    return glue_gate(r.segments, r.script)


def _reuse_factor(r: Reading) -> float:
    """Words: words recycled from line to line (`scorer.reuse`)."""
    return reuse_gate(r.segments, r.script)


def _list_factor(r: Reading) -> float:
    """Words: lines that are lists of words, not sentences (`scorer.order.list_gate`)."""
    return list_gate(r.segments, r.script)


def _form_factor(r: Reading) -> float:
    """The form asked for: every way the poem falls short of it (`scorer.structure.Shortfall`)."""
    return r.shortfall.gate


def _frame_factor(r: Reading) -> float:
    """Lines: nothing but the poem. Characters outside the allowlist, text the parser sets aside that
    is not the poem (all but LAYOUT_MARKS), a line the form has no place for (`Shortfall.stray`), a line of
    words the asked script does not hold (STRAY_LINE), runs of unknown words (UNKNOWN_RUN) and French
    or English words past a loanword (FOREIGN_WORDS_FREE) cap it at NOT_THE_POEM_CAP, less their
    share of the text."""
    not_poem = r.chars.foreign + sum(n for k, n in r.poem.dropped.items() if k not in LAYOUT_MARKS)
    not_poem += r.shortfall.stray
    for ln in r.lines:
        # each word looked up in its own script's lexicon: Derja slipped into the other script is the
        # script factor's to cost; words Derja has in neither script are not the poem's
        known = [(_ARABIZI_WORDS if _latin(w) else _ARABIC_WORDS)[w] for w in ln.words]
        if known and sum(known) < STRAY_LINE * len(known):
            not_poem += len(ln.text)
            continue
        not_poem += _unknown_run(ln.words, known)
    foreign = [w for w in dict.fromkeys(r.words) if _FOREIGN_WORDS[w]]
    if len(foreign) > FOREIGN_WORDS_FREE:
        not_poem += sum(map(len, foreign))
    if not not_poem:
        return 1.0
    return NOT_THE_POEM_CAP * max(0.0, 1.0 - not_poem / max(1, len(r.raw)))


def _layout_factor(r: Reading) -> float:
    """Lines: the asked layout. Layout characters, stanza numbers, separators, markup, fences, a
    line the prompt asks parted by ` ** ` (every bayt, the malzuma's opening) without it, or a line of
    more than two hemistichs (a bayt has two): LAYOUT_COST."""
    split = r.lines if r.spec.kind == "bayt" else r.lines[:1] if r.spec.opening else []
    unmarked = any("**" not in ln.text for ln in split)
    crowded = any(len(ln.hemi_words) > 2 for ln in r.lines)
    if r.chars.layout or any(r.poem.dropped.get(k, 0) for k in LAYOUT_MARKS) or unmarked or crowded:
        return LAYOUT_COST
    return 1.0


@dataclass(frozen=True, slots=True)
class Factor:
    """One factor of the reward: its name in the sub-scores, what it measures, and the principle or
    rule it holds (docs/scorer.md, "Composition")."""

    name: str
    measure: Callable[[Reading], float]
    principle: str


FACTORS: tuple[Factor, ...] = (
    Factor("script", _script_factor, "characters"),
    Factor("language", _language_factor, "words"),
    Factor("variety", _variety_factor, "varieties"),
    Factor("case", _case_factor, "varieties"),
    Factor("standard", _standard_factor, "varieties"),
    Factor("lexicon", _lexicon_factor, "words"),
    Factor("order", _order_factor, "words"),
    Factor("direction", _direction_factor, "words"),
    Factor("glue", _glue_factor, "words"),
    Factor("reuse", _reuse_factor, "words"),
    Factor("list", _list_factor, "words"),
    Factor("form", _form_factor, "form"),
    Factor("frame", _frame_factor, "lines"),
    Factor("layout", _layout_factor, "lines"),
)
"""The reward's factors, each in [0, 1]; their product multiplies the quality. Every one is reported
in the sub-scores under its name, 1.0 when it costs nothing."""


def score(response: Any, references: dict[str, str] | None = None) -> Score:
    """Score one response (text, Gemini ``Content`` or chat messages) against dataset references
    (docs/dataset.md). Never raises on content; returns reward −1 with a reason when there is no
    poem or no known form."""
    refs = _clean_refs(references)
    spec = lookup(refs.get("form"))
    if spec is None:
        if "form" not in refs:
            return _fail("no references.form")
        return _fail(f"unknown form {refs['form'][:40]!r}")
    raw = extract_text(response)
    poem = parse_poem(raw)
    if not poem.blocks:
        return _fail("no poem in the response" + (" (only prose)" if poem.prose_chars else ""))
    sub: dict[str, float] = {}
    pen: dict[str, float] = {}
    if spec.kind == "strophic":
        weights = _WEIGHTS_NO_REFRAIN if spec.refrain == "none" else WEIGHTS_STROPHIC
        ends = score_strophic(spec, refs, poem, sub, pen)
    else:
        weights = WEIGHTS_GSIM if spec.first_half == "shared" else WEIGHTS_QASIDA
        ends = score_bayt(spec, refs, poem, sub, pen)
    weight_sum = sum(weights.values())
    lines = poem.lines  # a property that builds its list: once per call
    _common_penalties(poem, lines, ends, pen)
    asked = refs.get("script", "").strip().lower()
    if asked not in ("arabic", "arabizi"):
        asked = ""
    script = asked or ("arabizi" if poem.latin_letters > poem.arabic_letters else "arabic")
    words = [w for ln in lines for w in ln.words]
    # a bayt is read as its two halves, parted by ` ** ` or a soft separator, as the form reads it
    segments = [h for ln in lines for h in (ln.halves if spec.kind == "bayt" else ln.hemi_words)]
    reading = Reading(
        raw=raw,
        poem=poem,
        lines=lines,
        spec=spec,
        refs=refs,
        asked=asked,
        script=script,
        words=words,
        segments=segments,
        order=order_measure(segments, script),
        shortfall=ends.shortfall,
        chars=classify(raw[: MAX_CHARS + 1], asked),
        variety=detect(words, script, raw),
        standard=standard_margin(words) if script == "arabic" else 0.0,
    )
    factors = {f.name: f.measure(reading) for f in FACTORS}
    base = sum([w * sub.get(k, 0.0) for k, w in weights.items()]) / weight_sum
    shortfall = ends.shortfall
    if shortfall.flaws:
        lost = sum([w * shortfall.lost[k] for k, w in weights.items() if k in shortfall.lost]) / weight_sum
        if (top := min(FLAW_MAX, FLAW_COST * shortfall.flaws) - lost) > 0:
            pen["flaws"] = top
    gates = 1.0
    for value in factors.values():
        gates *= value
    q = (base - sum(pen.values())) * gates
    reward = max(-1.0, min(1.0, 2.0 * q - 1.0))
    if not math.isfinite(reward):
        reward = -1.0
    sub.update(factors)
    out = {k: _round4(v) for k, v in sub.items()}
    out.update({f"p_{k}": _round4(v) for k, v in pen.items() if v > 0})
    out["quality"] = _round4(max(0.0, min(1.0, q)))
    reason = _reason(spec, sub, pen)
    variety = reading.variety
    if variety.variety not in (DERJA, UNKNOWN):
        reason += f"; reads as {variety.variety} ({', '.join(variety.markers[:4])})"
    if reading.chars.foreign:
        reason += f"; characters outside the poem's ({' '.join(reading.chars.examples)})"
    return Score(reward, out, reason)


_WEIGHTS_NO_REFRAIN = {k: v for k, v in WEIGHTS_STROPHIC.items() if k != "refrain"}


def _unknown_run(words: list[str], known: list[bool]) -> int:
    """Letters of the runs of UNKNOWN_RUN or more words in a row that no lexicon holds (`known`, word
    by word): a phrase in another language inside a line."""
    run = total = 0
    letters = 0
    for w, k in zip([*words, ""], [*known, True], strict=True):
        if not k:
            run += 1
            letters += len(w)
            continue
        if run >= UNKNOWN_RUN:
            total += letters
        run = letters = 0
    return total


def _latin(word: str) -> bool:
    """A word in Latin letters (Arabizi's script)."""
    return (word[0].isascii() and word[0].isalpha()) or word[0].isdigit()


def _round4(v: float) -> float:
    """``round(v, 4)``, which formats the float as decimal digits; 0 and 1, the commonest
    sub-scores, are already round."""
    return v if v == 1.0 or v == 0.0 else round(v, 4)


def _reason(spec: FormSpec, sub: dict[str, float], pen: dict[str, float]) -> str:
    weak = sorted((v, k) for k, v in sub.items() if v < 0.8)
    hurts = sorted(((v, k) for k, v in pen.items() if v > 0), reverse=True)
    bits = [f"{k}={v:.2f}" for v, k in weak[:3]] + [f"p_{k}={v:.2f}" for v, k in hurts[:3]]
    return f"{spec.id}: " + (", ".join(bits) if bits else "form kept")


# --- penalties and gate ------------------------------------------------------------------------------


def _common_penalties(poem: Poem, lines: list[Line], ends: Ends, pen: dict[str, float]) -> None:
    near = far = 0
    for seq in ends.words:
        last_seen: dict[str, int] = {}
        for i, word in enumerate(seq):
            w = _IDENTITY[word]  # الدار = دار = بالدار, dar = Dar = DAR (one-letter words: "")
            if w:
                j = last_seen.get(w)
                if j is not None:
                    if i - j <= ITA_WINDOW:
                        near += 1
                    else:
                        far += 1
                last_seen[w] = i
    if near or far:
        pen["ita"] = min(0.6, ITA_NEAR * (near + max(0, near - 2)) + ITA_FAR * far)

    keys = [ln.key for ln in ends.lines]
    dups = len(keys) - len(set(keys))  # lines whose key came before
    if dups:
        pen["dup"] = min(0.7, 0.12 * dups)

    if ends.segment_words:
        short_penalty([len(s) for s in ends.segment_words], 1.0, pen)

    babble = _babble(lines)
    if babble:
        pen["babble"] = min(BABBLE_MAX, BABBLE_RATE * babble)

    if poem.overlong:
        pen["long"] = 0.3


def _babble(lines: list[Line]) -> float:
    """Mean babble degree of the hemistichs (a line without a caesura is one), in [0, 1]: low
    lexical variety inside a segment.

    A hemistich's body is its words without its last (rhyme) word. Each word that comes back in the
    body is a repeat, weighted 1 right after itself ("يا يا", "nghanni nghanni"), else 0.5, or 0.25
    for a function word (the vocative "يا X يا Y" is style, not babble). The repetition is the
    weighted repeats over (body words − 1), so 1 for one word repeated; the degree ramps from 0 at
    BABBLE_FROM to 1 at BABBLE_FULL. Bodies under two words are the short penalty's business."""
    units = 0
    total = 0.0
    for ln in lines:
        hws = ln.hemi_words
        units += len(hws)
        for h in hws:
            n = len(h) - 1
            if n < 2:
                continue
            body = h[:-1]
            if body[0].isascii():  # Arabizi: "Ya ya" is one word twice (Arabic script has no case)
                body = [w.lower() for w in body]
            if len(set(body)) == n:
                continue
            seen: set[str] = set()
            prev = ""
            repeats = 0.0
            for w in body:
                if w in seen:
                    repeats += 1.0 if w == prev else (0.25 if len(w) <= FUNCTION_WORD_LETTERS else 0.5)
                else:
                    seen.add(w)
                prev = w
            rep = repeats / (n - 1)
            if rep > BABBLE_FROM:
                total += min(1.0, (rep - BABBLE_FROM) / (BABBLE_FULL - BABBLE_FROM))
    return total / units if units else 0.0


def _language_gate(lines: list[Line], arabizi: bool, refrain: bool) -> float:
    """Non-language, templates and copies earn nothing: every hemistich (a line without a caesura is
    one) is worth the share of its body words that are words of the asked script (the lexicon, less
    the pieces of `scorer.wordshape`), mapped by LINE_ZERO/LINE_FULL; times RHYME_UNKNOWN when its
    last word is not a word (or less); and less as it repeats earlier hemistichs (`_copy_share`). The mean
    worth over LANG_FULL (capped at 1) multiplies the quality. `refrain`: the form repeats a line
    verbatim, so a verbatim repeat is the refrain's business, not a copy."""
    table = _ARABIZI_WORDS if arabizi else _ARABIC_WORDS
    word = table.__getitem__
    seen = _Seen()
    total = copied = 0.0
    units = 0
    span = LINE_FULL - LINE_ZERO
    for ln in lines:
        for h in ln.hemi_words:
            units += 1
            n = len(h)
            # the body decides: a real rhyme word glued onto gibberish does not make it language
            body = h[:-1] if n >= 3 else h
            known = 0
            for w in body:
                known += table[w]
            worth = min(1.0, (known / len(body) - LINE_ZERO) / span)
            if n >= 3 and not word(h[-1]):
                # the rhyme word is looked up like any other: in Arabic script, where the lexicon
                # knows 99 % of real words, an unknown one halves the hemistich; in Arabizi (about
                # 90 %) it costs its share of the words; in both, at least an unknown body word's cost
                worth *= 1.0 - (1.0 - RHYME_UNKNOWN if not arabizi else 1.0 / (len(body) + 1))
                worth = min(worth, ((known - 1) / len(body) - LINE_ZERO) / span)
            if worth <= 0.0:
                continue
            if len(body) >= 3:  # particles, pronouns and non-words only say nothing
                for w in body:
                    if table[w] and not _FUNCTION_WORDS[w]:
                        break
                else:
                    continue
            folded = [arabizi_fold(w) for w in h] if arabizi else h
            if n >= 4 and _rhyme_list(folded):
                continue
            share = seen.copy_share(folded, refrain)
            if share > COPY_OUTSIDE:
                copied += (share - COPY_OUTSIDE) / (1.0 - COPY_OUTSIDE)
            total += worth * (1.0 - share)
    if not units:
        return 0.0
    return max(0.0, min(1.0, total / units / LANG_FULL) - max(0.0, copied - COPY_FREE) / units)


def _arabic_word(w: str) -> bool:
    """A word of Arabic script: the lexicon knows it and it is no piece of one (`scorer.wordshape`)."""
    return is_arabic_word(w) and not is_piece(w)


def _arabizi_word(w: str) -> bool:
    """A word of Arabizi: the lexicon knows it and it is no piece of one (`scorer.wordshape`)."""
    return is_arabizi_word(w) and not is_piece(w)


# per-word verdicts for the language gate, which asks about every word of every hemistich
_ARABIC_WORDS = WordTable(_arabic_word)
_ARABIZI_WORDS = WordTable(_arabizi_word)
_LEXICON_TABLES = {
    "arabic": (_ARABIC_WORDS, WordTable(is_attested_arabic)),
    "arabizi": (_ARABIZI_WORDS, WordTable(is_attested_arabizi)),
}


def _foreign_word(word: str) -> bool:
    """A Latin word of one of FOREIGN_LANGUAGES (FOREIGN_VOTE) that no Arabizi lexicon holds."""
    if not _latin(word) or _ARABIZI_WORDS[word] or (model := ngrams.load("arabizi")) is None:
        return False
    votes = model.votes[word]
    return any(votes[model.varieties.index(v)] >= FOREIGN_VOTE for v in FOREIGN_LANGUAGES)


_FOREIGN_WORDS = WordTable(_foreign_word)
_FUNCTION_WORDS = WordTable(is_function_word)
_IDENTITY = WordTable(rhyme_identity)  # a rhyme word's identity, for īṭāʾ and the copy and list tests


def _rhyme_list(words: list[str]) -> bool:
    """A hemistich that is a list of rhyming words, not a sentence: two or more other words of its
    body end as its last word ends (same two last letters) and make half of its words of three
    letters or more (`النار الدار الأسرار الأسرار`); or three or more of its body's words end alike
    and make two thirds of the body (`الجنوب القلوب المحبوب نهار`)."""
    end = words[-1]
    tail, ident = end[-2:], None  # the end's identity is looked up once a body word ends as it does
    body = words[:-1]
    long = [w for w in body if len(w) >= 3]
    rhyming = 0
    for w in long:  # a loop, not sum() over a generator: this runs for most hemistichs
        if w.endswith(tail):
            if ident is None:
                ident = _IDENTITY[end]
            if _IDENTITY[w] != ident:
                rhyming += 1
    if rhyming >= 2 and 2 * rhyming >= len(long):
        return True
    # the second test needs three distinct long words making two thirds of the body
    if len(long) < 3 or 3 * len(long) < 2 * len(body):
        return False
    ends = [w[-2:] for w in set(long)]  # one word repeated is babble, the babble penalty's business
    if len(set(ends)) > len(ends) - 2:
        return False  # no ending is shared by three words
    tails: dict[str, int] = {}
    for t in ends:
        tails[t] = tails.get(t, 0) + 1
    most = max(tails.values())
    return most >= 3 and 3 * most >= 2 * len(body)


class _Seen:
    """What earlier hemistichs said, to tell a copy: their word pairs, their word bags, their whole
    text, and which rhyme word each body came with."""

    __slots__ = ("bags", "bodies", "pairs", "whole")

    def __init__(self) -> None:
        self.pairs: set[tuple[str, str]] = set()
        self.bags: set[tuple[str, ...]] = set()
        self.bodies: dict[tuple[str, ...], str] = {}
        self.whole: set[tuple[str, ...]] = set()

    def copy_share(self, words: list[str], refrain: bool) -> float:
        """How much of this hemistich (its words, folded) repeats earlier ones, in [0, 1]; then it
        joins them. 1: the same words again in another order, the same body with another rhyme word
        (a template), or the whole hemistich again where the form has no refrain. Else the overlap of
        its body's word pairs with earlier ones, mapped by OVERLAP_FROM/OVERLAP_FULL."""
        # a set is asked whether it holds a tuple by adding it and seeing whether it grew: one hash
        # of the tuple, not two (a tuple does not keep its hash)
        whole = tuple(words)
        body = whole[:-1] if len(whole) >= 3 else whole
        share = 0.0
        known = len(self.whole)
        self.whole.add(whole)
        if len(self.whole) == known:
            share = 0.0 if refrain else 1.0
        elif len(whole) >= 2 * SELF_RUN and _says_twice(whole):
            share = 1.0
        elif len(body) >= 2 and body.count(body[0]) != len(body):  # one word repeated: babble's
            end = _IDENTITY[whole[-1]]
            known = len(self.bags)
            self.bags.add(tuple(sorted(body)))
            if self.bodies.setdefault(body, end) != end or len(self.bags) == known:
                share = 1.0
            pairs = list(pairwise(body))
            if share < 1.0 and len(pairs) >= OVERLAP_MIN_PAIRS:
                old = sum(map(self.pairs.__contains__, pairs)) / len(pairs)
                share = min(1.0, max(0.0, (old - OVERLAP_FROM) / (OVERLAP_FULL - OVERLAP_FROM)))
            self.pairs.update(pairs)
        return share


def _says_twice(words: tuple[str, ...]) -> bool:
    """Whether a run of SELF_RUN words comes twice in the hemistich (a line doubled on itself, a
    tail echoed)."""
    runs = [words[i : i + SELF_RUN] for i in range(len(words) - SELF_RUN + 1)]
    return len(set(runs)) < len(runs)
