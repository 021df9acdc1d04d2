"""Word forms that mark a variety where no list holds the word (docs/scorer.md, "Varieties":
morphology): the grammar of a verb's ending or a negation's circumfix, in each script. A vote is
what one word casts, (variety, weight) pairs split between the varieties that share the form.
``scorer.variety`` asks these rules for a word its tables do not list. Pure: no tables, no I/O."""

from __future__ import annotations

from scorer.mashriq import EAST, east_form

Vote = tuple[tuple[str, float], ...]
"""What one marker adds: (variety, weight) pairs; one pair for a distinctive marker."""
MSA_VERB_WEIGHT = 1.0
"""An imperfect verb in ``-ūn`` (يكتبون, تعرفون, وسيبقون): MSA; the dialects say ``-ū`` (يكتبو)."""
MAGHREBI_VERB_WEIGHT = 1.0
"""A verb plural in ``-āw`` (مشاو, خلاو) or an imperfect in ``-īw`` (يبنيو, نحكيو): Tunisian or
Moroccan (Egyptian and Levantine write ``-وا``), split between the two like any shared marker."""
NEGATION_WEIGHT = 1.0
"""A word wrapped in the negation circumfix ``ما…ش`` (ماعادش, مايحبوش, ماكتبتش): Tunisian, Moroccan
and Egyptian write it so; MSA, Levantine (but the south's, written apart), Gulf and Iraqi do not.
Split between the three."""
EGYPTIAN_NEGATION_WEIGHT = 1.0
"""``ما`` + a ``b-`` imperfect + ``ش`` written as one word (مبيعرفش, مبتحبش): Egyptian; Levantine
writes ``ما بيعرف`` apart and Tunisian has no ``b-`` imperfect (its ``ما…ش`` forms are ``ماب…``
only for verbs in b-, e.g. مابكيتش, whose third letter is no ي/ت/ن)."""
ECH_WEIGHT = 1.0
"""A Latin word in ``-ech`` no table knows: the Tunisian imala of ``-āš`` (see latin_morphology)."""
OBJECT_SUFFIXES = {"arabic": ("ها", "ك", "ني", "هم", "كم"), "arabizi": ("ha", "h", "k", "ni", "hom", "kom")}
"""Object pronouns after a Maghrebi verb plural (نعصروها, تحطوه, y7ebbouk): the plural's ``-ū`` stays
before them, so the verb is the same marker with the suffix (a genuine poem may carry its Derja
only in such verbs). Not ``-ه`` in Arabic script: the scorer
folds ة into ه, and a noun in ``-وة`` (تلاوة) would read as a verb. MSA writes the suffixed plural
so too after لن/لم/أن (لن يفهموها), but those particles are MSA's own evidence (``scorer.msa``).
Four letters or more before the ``-ū``: MSA's defective verbs (يتلو, يدعو) take the suffix too
(تتلوها, ويدعوهم: with three letters allowed they would lift word salads), as the bare rule keeps
them out by length."""
_SUFFIXED = tuple("و" + s for s in OBJECT_SUFFIXES["arabic"])
_LATIN_SUFFIXED = tuple("ou" + s for s in OBJECT_SUFFIXES["arabizi"])
TAILS = ("ون", "و", "ش", *_SUFFIXED)
_NOT_VERBS = frozenset({"تليفون", "تلفون", "تلفزيون", "ياسمون"})
MSA_VOTE: Vote = (("msa", MSA_VERB_WEIGHT),)
_ECH_VOTE: Vote = (("tunisian", ECH_WEIGHT),)
_EGYPTIAN_NEGATION_VOTE: Vote = (("egyptian", EGYPTIAN_NEGATION_WEIGHT),)
_EAST_VOTE: Vote = tuple((v, 1.0 / len(EAST)) for v in EAST)
"""A Mashriq verb form or qaf read as hamza (``scorer.mashriq``): Egyptian and Levantine."""
_MAGHREBI_VOTE: Vote = (("tunisian", MAGHREBI_VERB_WEIGHT / 2), ("moroccan", MAGHREBI_VERB_WEIGHT / 2))
NEGATION_VOTE: Vote = tuple((v, NEGATION_WEIGHT / 3) for v in ("tunisian", "moroccan", "egyptian"))


def arabic_morphology(word: str) -> Vote:
    """The vote of a word ending in one of TAILS that is no marker: an MSA ``-ūn`` imperfect
    (ي/ت + at least two letters + ون, after و/ف); a Maghrebi verb plural, ``-āw`` (at least two
    letters before, no article), ``-īw`` imperfect (ي/ت/ن first) or ``-ū`` imperfect (ي/ت/ن + at
    least three letters + و: نكتبو, يقولو; the dialects of the east write ``-وا`` and say the
    indicative with ``b-``, and MSA's defective verbs, يبدو, نرجو, are four letters); a ``ما…ش``
    negation (at least five letters); else nothing."""
    if word in _NOT_VERBS or len(word) < 4:
        return ()
    w = word[1:] if word[0] in "وف" and len(word) > 4 else word
    last = w[-1]
    if last == "ش":
        if len(w) >= 6 and w.startswith("مب") and w[2] in "يتن":
            return _EGYPTIAN_NEGATION_VOTE
        return NEGATION_VOTE if len(w) >= 5 and w.startswith("ما") else ()
    if last == "ن":
        return MSA_VOTE if w[0] in "يت" and len(w) >= 5 else ()
    if not w.endswith(("و", "او", "يو")):  # an object suffix after the plural -ū
        stem = next(w[: -len(t)] for t in _SUFFIXED if w.endswith(t))
        return _MAGHREBI_VOTE if w[0] in "يتن" and len(stem) >= 4 else ()
    tail = w[-2:]
    if tail == "او":
        return () if w.startswith("ال") else _MAGHREBI_VOTE
    if tail == "يو":
        return _MAGHREBI_VOTE if w[0] in "يتن" else ()
    return _MAGHREBI_VOTE if w[0] in "يتن" and len(w) >= 5 else ()


def latin_morphology(low: str) -> Vote:
    """The vote of a lower-cased Latin word no table knows, by its ending (Arabizi spells the
    Maghreb's verb endings the French way): ``-ech`` (at least five letters), the Tunisian
    imala of ``-āš`` in questions and negations (wa9tech, ma njemtech, ma 3adech; Moroccan writes
    ``-ach``/``-ch``, the east ``-sh``): Tunisian; a Maghrebi verb plural, ``-ou`` after n/y/t
    and at least three letters (nlemmou, y7ebbou), ``-iw``/``-aw`` after at least three
    (nghanniw, nab9aw), or ``-ouch`` negated (ya3rfouch; the east writes ``-sh``): Tunisian or
    Moroccan, as in Arabic script; else nothing."""
    if low.isascii() and east_form(low):
        return _EAST_VOTE
    if len(low) < 5 or not low.isascii():
        return ()
    if low.endswith("ech") and not low.endswith("eech"):
        return _ECH_VOTE
    if low.endswith("ouch"):
        return _MAGHREBI_VOTE if len(low) >= 6 and low[0] in "mnyt" else ()
    if low.endswith("ou"):
        return _MAGHREBI_VOTE if len(low) >= 6 and low[0] in "nyt" else ()
    if low.endswith(("iw", "aw")):
        return _MAGHREBI_VOTE
    if low.endswith(_LATIN_SUFFIXED) and len(low) >= 7 and low[0] in "nyt":
        return _MAGHREBI_VOTE
    return ()
