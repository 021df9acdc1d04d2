"""Which Arabic variety (or Latin-script language) a poem is written in: Tunisian Derja or not.

The language gate only asks whether words are words, and MSA, Moroccan, Egyptian or Levantine pass
it; drift to MSA, the base model's register for poetry, is the likeliest slow hack. The method is in
docs/scorer.md, "Varieties": marker lexicons per variety (``lexicon/varieties/<script>/``), the
morphology votes of ``scorer.morphology``, in Latin script the classifier's votes (``scorer.ngrams``)
added to the markers', and evidence of another dialect or of MSA that Derja markers do not cancel
(``foreign_gate``).

Cost: one C-level ``map`` over the words through a per-word cache (a run's vocabulary repeats); the
marker tables load at import, a classifier's table on its script's first use. No randomness; sums run
in the words' order, never a set's (the same float whatever PYTHONHASHSEED).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from itertools import compress
from operator import itemgetter
from pathlib import Path
from typing import NamedTuple

from scorer import msa as _msa
from scorer import ngrams
from scorer.arabic import arabizi_fold, normalize_arabic
from scorer.lexicon import WordTable, unstretched
from scorer.morphology import (
    MSA_VOTE,
    NEGATION_VOTE,
    TAILS,
    Vote,
    arabic_morphology,
    latin_morphology,
)

DIR = Path(__file__).resolve().parent / "lexicon" / "varieties"
DERJA = "tunisian"
UNKNOWN = "unknown"
VARIETIES: dict[str, tuple[str, ...]] = {  # DERJA first
    "arabic": (
        "tunisian",
        "msa",
        "moroccan",
        "egyptian",
        "levantine",
        "gulf",
        "iraqi",
        "algerian",
        "libyan",
        "sudanese",
        "persian",
    ),
    "arabizi": (
        "tunisian",
        "moroccan",
        "egyptian",
        "levantine",
        "french",
        "english",
        "maltese",
        "algerian",
        "libyan",
        "gulf",
    ),
}
"""The varieties told apart in each script; the first is Derja, ties between others go by order."""
PRIOR = 3.0
"""Marker weight of the prior in ``derja``, half for Derja, half against: one word of another variety
(a borrowing, a name) does not decide, two or three begin to."""
MAX_MARKERS = 12
"""Markers kept in the result (for the reason string); the counts see every one."""
AR_CLITICS = ("و", "ف")
LATIN_CLITICS = ("w", "ou")
MALTESE_LETTERS = frozenset("ħġżċ")
FOLDED = frozenset({"tunisian", "moroccan", "egyptian", "levantine", "algerian", "libyan"})
"""Latin varieties also matched by the phonetic fold (Arabizi has no fixed spelling); French, English
and Maltese by spelling only: folded, their words meet Derja's (Maltese ``lil`` 'to', Derja 'night')."""
FIRST_PERSON_WEIGHT = 1.0
"""``انا`` (I) before an imperfect in ``n-`` (انا نحلم, انا نستناك; Latin ``ana``/``ena`` before ``n`` and
any letter but a: ena nel3eb, ana n7lem, not the participles nayem, nazel): the Maghrebi first person
singular; in MSA and the Mashriq ``n-`` is "we" (انا أحلم, انا بحلم). Tunisian or Moroccan."""
FOREIGN_DOSE: dict[str, tuple[float, float]] = {"arabic": (1.0, 2.0), "arabizi": (2.0, 3.0)}
"""Another variety's evidence is not cancelled by Derja's (برشا, توّا in an Egyptian poem): per script,
the weight of one other dialect's markers Tunisian does not share, each word once, free up to the
first, ``foreign_gate`` 0 from the second (Arabizi's spelling meets other dialects' words more often)."""
FOREIGN_EXEMPT = frozenset({DERJA, "msa", "french", "english"})
"""Varieties whose markers FOREIGN_DOSE does not count (they still weigh in the Derja share): MSA,
whose particles Derja poetry borrows (اذا, ربما, قد), and French and English, which Tunisians switch
into mid-line (mon amour)."""
MSA_DOSE: dict[str, tuple[float, float]] = {"arabic": (1.0, 2.0), "arabizi": (1.0, 2.0)}
"""MSA's own evidence (``scorer.msa``), each form once, likewise (free, zero); the gate the smaller."""
PRONOUN_I: dict[str, frozenset[str]] = {
    "arabic": frozenset({"انا", "وانا", "فانا"}),
    "arabizi": frozenset({"ana", "ena", "eni", "wana", "wena"}),
}
"""The first person pronoun (with و/ف, w-) that FIRST_PERSON_WEIGHT looks for before an n- verb."""
_I = PRONOUN_I["arabic"]
_LATIN_I = frozenset(f(w) for w in PRONOUN_I["arabizi"] for f in (str.lower, str.capitalize, str.upper))
"""As the words come (case kept): lower-casing every word to find one would cost more."""
READ_SCRIPTS = frozenset({"arabizi"})
"""Scripts whose verdict adds the classifier's votes (``scorer.ngrams``) to the markers'. Derja's
Latin spelling sets it apart, so there its reading alone proves a text Derja (``Variety.counts``).
The Arabic-script model's votes read a poem weakly (a genuine poem and a salad of Derja words vote
alike); it checks a marker behind a clitic (`_clitic_confirmed`) and gives ``scorer.score`` its
margin against MSA."""
READ_WEIGHT = 1.0
"""What the classifier's vote of one word (at most 1) weighs against one marker: only words the model
is sure of vote (``ngrams.VOTE_FROM``), so a whole vote reads more of the other varieties right."""
CLOSE = 0.3
"""A lead under this weight names no variety (``unknown``) unless it is Derja's with a marker of its
own, or comes from markers alone: a two-line text's votes are a few tenths."""
READ_MIN = 0.5
"""A text with no marker is ``unknown`` unless the classifier's votes reach this (times READ_WEIGHT)."""
PROVEN_SHARE = 0.6
"""The classifier's Tunisian reading proves a text Derja from this share of the other readings
together: its Maghrebi neighbours share most of a Tunisian poem's words, so its vote splits
(docs/scorer.md, "Varieties", for the figures on both sides)."""


Hit = tuple[Vote, str]
"""A table entry: the marker's vote and its label for the reason (``word:variety``, ``a+b`` when
shared); ``filter(None, map(table.get, words))`` finds a poem's markers without a Python loop."""


class Variety(NamedTuple):
    """The detector's answer for one text."""

    variety: str
    """The most likely variety (``VARIETIES[script]``), or ``unknown`` when no marker was found."""
    derja: float
    """Tunisian's share of Tunisian + its strongest rival's marker weight, with PRIOR: in (0, 1),
    0.5 when nothing was found or on a tie, above 0.5 exactly when Tunisian leads."""
    counts: dict[str, float]
    """Marker and classifier weight per variety. Tunisian's holds the classifier's Tunisian vote only
    from PROVEN_SHARE of every other variety's together: ``scorer.score`` treats a text with no Tunisian
    weight at all as unproven, and one the classifier reads as Derja is proven."""
    markers: tuple[str, ...]
    """Up to MAX_MARKERS markers found, ``word:variety`` (``a+b`` when shared), for the reason."""
    foreign: float = 0.0
    """The largest weight of one other dialect's markers Tunisian does not share (FOREIGN_DOSE)."""
    foreign_gate: float = 1.0
    """1 up to FOREIGN_DOSE's free weight, 0 from its zero: the reward multiplies its variety gate
    by it, whatever the Derja share (and by MSA_DOSE's ramp on ``msa``)."""
    msa: float = 0.0
    """MSA's own weight (``scorer.msa``), each distinct form once."""
    read: dict[str, float] | None = None
    """The classifier's votes per variety (``scorer.ngrams``, times READ_WEIGHT), already in
    ``counts``; None for a script that reads markers only (READ_SCRIPTS)."""


def _expand(token: str) -> list[str]:
    """Brace expansion: ``{كن,كت}بغي`` → كنبغي, كتبغي (``{,x}`` allows an empty choice)."""
    m = re.search(r"\{([^{}]*)\}", token)
    if not m:
        return [token]
    head, tail = token[: m.start()], token[m.end() :]
    return [w for alt in m.group(1).split(",") for w in _expand(head + alt + tail)]


def _read(path: Path) -> dict[str, float]:
    """Markers of one file with their weights: a line starting ``@w`` weighs w, others 1."""
    out: dict[str, float] = {}
    if not path.exists():
        return out
    for raw in path.read_text(encoding="utf-8").splitlines():
        line = raw.split("#", 1)[0].split()
        weight = 1.0
        if line and line[0].startswith("@"):
            weight = float(line.pop(0)[1:])
        for tok in line:
            for w in _expand(tok):
                out[w] = weight
    return out


def _votes(per_variety: dict[str, dict[str, float]], shared: set[str]) -> dict[str, Vote]:
    """One vote per key: none for a word of ``shared.txt``; a word several varieties list splits
    its weight evenly between them (each its own weight / n), so it tells nothing between them but
    is still evidence against the others."""
    owners: dict[str, dict[str, float]] = {}
    for variety, words in per_variety.items():
        for w, weight in words.items():
            owners.setdefault(w, {})[variety] = weight
    return {
        w: tuple((v, weight / len(own)) for v, weight in own.items())
        for w, own in owners.items()
        if w not in shared
    }


def _with_clitics(table: dict[str, Vote], clitics: tuple[str, ...], blocked: set[str]) -> dict[str, Vote]:
    """The table plus each marker behind a conjunction clitic (ومش, فتوا, wbarcha), unless that
    form is itself a marker or a shared word."""
    out = dict(table)
    for w, vote in table.items():
        if not any(v in FOLDED or v in VARIETIES["arabic"] for v, _ in vote):
            continue  # French, English, Maltese words take no Arabic clitic: w + est is Derja "west"
        for c in clitics:
            form = c + w
            if form not in table and form not in blocked:
                out.setdefault(form, vote)
    return out


def _load_arabic() -> tuple[dict[str, Vote], frozenset[str]]:
    """(table, the forms `_with_clitics` added to it)."""
    d = DIR / "arabic"
    per = {v: {normalize_arabic(w): x for w, x in _read(d / f"{v}.txt").items()} for v in VARIETIES["arabic"]}
    shared = {normalize_arabic(w) for w in _read(d / "shared.txt")}
    listed = _votes(per, shared)
    table = _with_clitics(listed, AR_CLITICS, shared)
    return table, frozenset(table.keys() - listed.keys())


def _load_latin() -> tuple[dict[str, Vote], dict[str, Vote], frozenset[str]]:
    """(spelling table, fold table, the spellings `_with_clitics` added). A spelling that is shared
    maps to ``()`` so the lookup stops there instead of trying the fold."""
    d = DIR / "arabizi"
    per = {v: {w.lower(): x for w, x in _read(d / f"{v}.txt").items()} for v in VARIETIES["arabizi"]}
    shared = {w.lower() for w in _read(d / "shared.txt")}
    listed = _votes(per, shared)
    spell = _with_clitics(listed, LATIN_CLITICS, shared)
    clitic_forms = frozenset(spell.keys() - listed.keys())
    for w in shared:
        spell[w] = ()
    folded: dict[str, dict[str, float]] = {}
    for v, words in per.items():
        if v not in FOLDED:
            continue
        folded[v] = {}
        for w, x in words.items():
            f = arabizi_fold(w)
            if f:
                folded[v][f] = max(x, folded[v].get(f, 0.0))
    fold_shared = {arabizi_fold(w) for w in shared}
    return spell, _votes(folded, fold_shared), clitic_forms


def _hits(table: dict[str, Vote]) -> dict[str, Hit]:
    """word → (word, vote); a shared spelling (empty vote) → ``()``, falsy, so it stops there."""
    return {w: (_hit(w, vote) if vote else ()) for w, vote in table.items()}  # type: ignore[misc]


def _hit(word: str, vote: Vote) -> Hit:
    return vote, f"{word}:{'+'.join(v for v, _ in vote)}"


_AR_VOTES, _AR_CLITIC_FORMS = _load_arabic()
_SPELL_VOTES, _FOLD_VOTES, _LATIN_CLITIC_FORMS = _load_latin()
ARABIC_TABLE: dict[str, Hit] = _hits(_AR_VOTES)
LATIN_SPELLING: dict[str, Hit] = _hits(_SPELL_VOTES)
LATIN_FOLD: dict[str, Hit] = _hits(_FOLD_VOTES)
_MALTESE_VOTE: Vote = (("maltese", 1.0),)
_LABEL = itemgetter(1)


def _verdict(
    order: tuple[str, ...],
    hits: list[Hit],
    script: str = "arabic",
    msa: float = 0.0,
    read: dict[str, float] | None = None,
) -> Variety:
    """Sum the votes (a Derja-only marker word once, every other vote per use) and the
    classifier's (``read``: each distinct word's vote, times READ_WEIGHT); the plurality variety
    wins. A tie at the top that includes Derja goes to Derja when it has a marker of its own, else
    it is ``unknown`` (مش and ايه alone are Tunisian, Egyptian and Levantine alike); a tie between
    other varieties goes by ``order``. One other dialect's own markers past FOREIGN_DOSE's zero
    make it the variety, whatever Derja's weight."""
    counts = dict.fromkeys(order, 0.0)
    foreign = dict.fromkeys(order, 0.0)
    own = 0.0
    seen: set[str] = set()
    met: set[str] = set()
    for vote, label in hits:
        if label not in met and all(v != DERJA for v, _ in vote):
            met.add(label)  # another dialect's word once: a refrain repeating it is one word
            dialects = sum(w for v, w in vote if v not in FOREIGN_EXEMPT)  # whole for each dialect:
            for v, _ in vote:  # a word of Egyptian or Levantine is no Derja word (French le: half)
                foreign[v] += dialects
        # a Derja-only marker counts once, however often it comes: برشا after every line of an
        # Egyptian poem is one word of evidence, not ten; another variety's count per use
        if vote[0][0] == DERJA and len(vote) == 1:
            if label in seen:
                continue
            seen.add(label)
        if len(vote) == 1:
            v, weight = vote[0]
            counts[v] += weight
            if v == DERJA:
                own += weight
        else:
            for v, weight in vote:
                counts[v] += weight
    markers = list(map(_LABEL, hits[:MAX_MARKERS]))
    read = read or {}
    for v, weight in read.items():
        counts[v] += weight
    if read:  # the model has no text of these varieties: its Tunisian reading is theirs too
        for v in order:
            if v not in read and counts[v] > 0.0:
                counts[v] += read[DERJA]
    unproven = 0.0  # the Tunisian reading left out of the counts returned (see Variety.counts)
    if read and read[DERJA] < PROVEN_SHARE * (sum(read.values()) - read[DERJA]):
        unproven = read[DERJA]
    free, zero = MSA_DOSE[script]
    msa_gate = min(1.0, max(0.0, (zero - msa) / (zero - free)))
    if read:
        best = max(read, key=read.__getitem__)
        markers.append(f"~{best}:{read[best]:.1f}")  # the classifier's reading, for the reason
    if not hits and sum(read.values()) < READ_MIN:
        counts[DERJA] -= unproven
        return Variety(
            "msa" if msa_gate == 0.0 else UNKNOWN,
            0.5,
            counts,
            tuple(markers),
            0.0,
            msa_gate,
            msa,
            read,
        )
    tn = counts[DERJA]
    rival, first = -1.0, ""
    for v in order[1:]:  # order[0] is DERJA
        if counts[v] > rival:
            rival, first = counts[v], v
    derja = (tn + PRIOR / 2) / (tn + rival + PRIOR)
    if not read:  # markers only: the plurality, Derja winning a tie with a marker of its own
        variety = DERJA if tn > rival or (tn == rival and own > 0.0) else UNKNOWN if tn == rival else first
    elif tn - rival >= CLOSE or (tn >= rival and own > 0.0):
        variety = DERJA
    elif rival - tn >= CLOSE:
        variety = first
    else:
        variety = UNKNOWN
    top = max((v for v in order if v not in FOREIGN_EXEMPT), key=foreign.__getitem__)
    free, zero = FOREIGN_DOSE[script]
    gate = min(1.0, max(0.0, (zero - foreign[top]) / (zero - free)))
    if gate == 0.0 and variety in (DERJA, UNKNOWN):
        variety = top
    if msa_gate == 0.0 and variety in (DERJA, UNKNOWN):
        variety = "msa"
    gate = min(gate, msa_gate)
    counts[DERJA] -= unproven
    return Variety(variety, derja, counts, tuple(markers), foreign[top], gate, msa, read)


_I_VOTE: Vote = tuple((v, 1.0 / 3) for v in ("msa", "gulf", "iraqi"))
"""The first person in أ- (أكتب, scorer.msa): MSA, Gulf and Iraqi say it so (Egyptian and Levantine
with b-, the Maghreb with n-); MSA's own dose counts it whole."""
_FIRST_PERSON_HIT: Hit = (
    (("tunisian", FIRST_PERSON_WEIGHT / 2), ("moroccan", FIRST_PERSON_WEIGHT / 2)),
    "انا+n-:tunisian+moroccan",
)
_FIRST_PERSON_HIT_LATIN: Hit = (_FIRST_PERSON_HIT[0], "ana+n-:tunisian+moroccan")
_NEGATION_APART_HIT: Hit = (NEGATION_VOTE, "ما …ش:tunisian+moroccan+egyptian")
# a tatweel run glued to a word (a kashida, or a caesura written so) is no letter of it
_NOT_WORD, _NOT_WORD_AFTER = r"(?<![^\W_\u0640])", r"(?![^\W_\u0640])"
SHADDA_APART: dict[str, re.Pattern[str]] = {
    clitic + base: re.compile(
        _NOT_WORD + clitic + base + "[\u064b-\u0650\u0652]?\u0651[\u064b-\u0652]?" + _NOT_WORD_AFTER
    )
    for base in ("لم", "قد", "نحن")
    for clitic in ("", "و", "ف")
}
"""Marker forms the fold to letters merges with a Derja word that differs by a shadda only: لمّ
(lamm, 'gather', نلمّ العايلة) folds to MSA's negation لم, قدّ (qadd, 'as big as', عمرها قدّ
العجوز) to MSA's particle قد, and نحنّ (nḥinn, 'I long', نحنّ للدار) to MSA's pronoun نحن. A form met
in the raw text with the shadda on its last letter (one vowel sign before or after it) is that word,
not the marker. Each pattern is a fixed string with two optional marks: linear."""
NEGATION_APART = frozenset({"ما", "وما", "فما"})
"""The words that open a ``ما…ش`` negation written apart (see NEGATED_LETTERS)."""
NEGATED_LETTERS = 5
"""The ما…ش negation written in two words (ما تعياش, ما يتنساش, ما تسواش) is the same circumfix as in
one (ماتعياش): the same vote, when the word after ما ends in ش and has this many letters or more,
so that a verb whose root ends in ش (ما عاش, ما يعيش, ما يفتّش) is not read as negated. A genuine
poem may carry its Derja only in such negations."""


def _arabic_hit(word: str) -> Hit:
    """A normalised Arabic-script word's Hit, ``()`` when it marks nothing: the table, else the
    morphology rules for a word ending in one of TAILS. A marker read behind a clitic (و/ف + a
    listed word) counts only when the classifier does not read the whole word as another variety
    (`_clitic_confirmed`). Asked through `_ARABIC_HITS`, a table filled per word (a run's
    vocabulary repeats), so a poem costs one C-level dict lookup per word."""
    hit = ARABIC_TABLE.get(word)
    if hit is not None:
        if word in _AR_CLITIC_FORMS and not _clitic_confirmed(word, hit[0], "arabic"):
            return ()
        return hit
    if word.endswith(TAILS) and (vote := arabic_morphology(word)):
        return _hit(word, vote)
    single = unstretched(word)  # a marker with a letter repeated (فيين, واايد) is still the marker
    return _ARABIC_HITS[single] if single != word else ()


def _latin_hit(word: str) -> Hit:
    """A Latin-script word's Hit, ``()`` when it marks nothing: its lower-cased spelling, else its
    fold (Arabic varieties only), else Maltese by its letters. Asked through `_LATIN_HITS`."""
    low = word.lower()
    hit = LATIN_SPELLING.get(low)
    if hit is not None:
        if low in _LATIN_CLITIC_FORMS and not _clitic_confirmed(low, hit[0], "arabizi"):
            return ()
        return hit
    if not low.isascii() and not MALTESE_LETTERS.isdisjoint(low):
        return _hit(word, _MALTESE_VOTE)
    hit = LATIN_FOLD.get(arabizi_fold(word))
    if hit is not None:
        return hit
    vote = latin_morphology(low)
    return _hit(word, vote) if vote else ()


def _clitic_confirmed(word: str, vote: Vote, script: str) -> bool:
    """A clitic form of another variety's marker (وجوه read as و + Egyptian جوه 'inside') is that
    marker only if the classifier, reading the whole word, finds it at least as likely in one of the
    marker's varieties as in Tunisian (وجوه 'faces' reads as Tunisian, so it is no Egyptian word). A
    clitic form of a marker Tunisian shares always counts, as does one of a variety the model does
    not cover. Asked once per word (the hit tables cache it): the model is read on the first such
    word."""
    named = {v for v, _ in vote}
    if DERJA in named:
        return True
    model = ngrams.load(script)
    if model is None or not named.issubset(model.varieties):
        return True
    ratios = model.ratios[word]  # Tunisian's log-likelihood over each variety's
    return any(x <= 0.0 for v, x in zip(model.varieties, ratios, strict=True) if v in named)


_ARABIC_HITS = WordTable(_arabic_hit)
_UNSTRETCHED = WordTable(unstretched)  # MSA's own forms with a letter repeated (إذاا, قدد) too
_LATIN_HITS = WordTable(_latin_hit)


def _n_verb(word: str) -> bool:
    """An Arabic-script word that can be an n- imperfect after انا."""
    return len(word) >= 3 and word[0] == "ن"


def _n_word(word: str) -> bool:
    """A Latin word that can be an n- imperfect after ana (not a participle in n-a: nayem, nazel)."""
    return len(word) >= 3 and word[0] in "nN" and word[1] not in "aA"


def detect_arabic(words: Iterable[str], raw: str = "") -> Variety:
    """Variety of normalised Arabic-script words (``scorer.arabic.normalize_arabic``'s output, as
    the scorer's ``Line.words`` are); ``raw``, the text before folding, shows MSA's أ- first person."""
    ws = words if isinstance(words, list) else list(words)
    if "\u0651" in raw:
        ws = _shadda_apart(ws, raw)
    hits = list(filter(None, map(_ARABIC_HITS.__getitem__, ws)))
    if not _I.isdisjoint(ws):  # the words after a pronoun, picked in C (a Python loop per pair costs)
        hits += [_FIRST_PERSON_HIT for b in compress(ws[1:], map(_I.__contains__, ws)) if _n_verb(b)]
    if not NEGATION_APART.isdisjoint(ws):  # ما …ش written apart
        hits += [
            _NEGATION_APART_HIT
            for b in compress(ws[1:], map(NEGATION_APART.__contains__, ws))
            if len(b) >= NEGATED_LETTERS and b[-1] == "ش" and not b.startswith("ما")
        ]
    un_verbs = len({label for vote, label in hits if vote is MSA_VOTE})
    verbs = _msa.first_person_verbs(raw, set(ws)) if "أ" in raw else set()
    hits += [_hit(f"{v}+أ", _I_VOTE) for v in sorted(verbs)]  # the أ- I votes in the share too (in order)
    msa = _msa.arabic_weight(list(map(_UNSTRETCHED.__getitem__, ws)), verbs, un_verbs)[0]
    return _verdict(VARIETIES["arabic"], hits, "arabic", msa)


def _reading(script: str, ws: list[str]) -> dict[str, float] | None:
    """The classifier's votes per variety over the distinct words, times READ_WEIGHT (None for a
    script not in READ_SCRIPTS or without a model)."""
    model = ngrams.load(script) if script in READ_SCRIPTS else None
    if model is None:
        return None
    return {v: x * READ_WEIGHT for v, x in zip(model.varieties, model.poem_votes(ws), strict=True)}


def _shadda_apart(ws: list[str], raw: str) -> list[str]:
    """The words without the marker forms a shadda tells apart (SHADDA_APART): as many of them
    as the raw text writes with a shadda (لمّ 'gather' is not MSA's لم 'did not')."""
    for word, pattern in SHADDA_APART.items():
        if word in ws and (n := len(pattern.findall(raw))):
            out = []
            for w in ws:
                if n and w == word:
                    n -= 1
                    continue
                out.append(w)
            ws = out
    return ws


def detect_latin(words: Iterable[str]) -> Variety:
    """Variety of Latin-script words as the scorer gives them (case kept, digits inside words):
    the lower-cased spelling first; a spelling not listed is folded (``arabizi_fold``) and looked
    up again, or is Maltese by its letters."""
    ws = words if isinstance(words, list) else list(words)
    hits = list(filter(None, map(_LATIN_HITS.__getitem__, ws)))
    if not _LATIN_I.isdisjoint(ws):
        hits += [
            _FIRST_PERSON_HIT_LATIN for b in compress(ws[1:], map(_LATIN_I.__contains__, ws)) if _n_word(b)
        ]
    return _verdict(VARIETIES["arabizi"], hits, "arabizi", _msa.latin_weight(ws)[0], _reading("arabizi", ws))


def word_vote(word: str, script: str) -> Vote:
    """What one word casts alone in ``script`` (its table entry or morphology rule; the pronoun +
    ``n-`` pair is two words'), ``()`` for nothing: for tests and tools that edit markers."""
    hit = _LATIN_HITS[word] if script == "arabizi" else _ARABIC_HITS[normalize_arabic(word)]
    return hit[0] if hit else ()


def detect(words: Iterable[str], script: str, raw: str = "") -> Variety:
    """The variety of a poem's words (a flat iterable, e.g. every ``Line.words`` chained) in the
    asked script, ``"arabic"`` or ``"arabizi"`` (anything else reads as Arabic)."""
    return detect_latin(words) if script == "arabizi" else detect_arabic(words, raw)


def is_derja(result: Variety) -> bool:
    """The detector says Tunisian: Derja is the plurality variety (and had markers)."""
    return result.variety == DERJA
