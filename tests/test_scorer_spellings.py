"""Rhymes and spellings genuine poets use (docs/scorer.md, principles 2, 4 and 6; round 9).

* Every word counts as the word it is: a genuine Arabizi poem respelled with the letters Tunisian
  writers use for the digits (h for 7, kh for 5, q for 9) keeps its reward within 0.1, over every
  genuine Arabizi poem of the samples and of every round.
* A restricted rhyme (the rawī alone, no ridf) and a ridf rhyme on the same rawī are two rhymes where
  a stanza's rhyme must differ from the poem-wide one, and half-agree where they must be one.
* An Arabizi word's final h is a consonant, the rawī, as ه and ح are in the Arabic script.
* A form is complete or it pays: every genuine malzuma (its refrain left out) sent for the form of its
  stanza size, which has no opening, scores <= 0.3; its stanzas alone are a poem of that form.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from batches import each
from corpus import rounds
from test_redteam_rounds import known_misses

from scorer.arabic import contrast_similarity, normalize_arabic, rhyme, rhyme_similarity
from scorer.catalogue import FORMS
from scorer.score import score

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "data" / "samples"
ROUNDS = ROOT / "tests" / "redteam_rounds"
TOLERANCE = 0.1
WRONG_FORM = 0.3
GENUINE = 0.8
_CAESURA = re.compile(r" \*\* | {3,}|\t|\*\*")
SPELLINGS = {"7": "h", "5": "kh", "9": "q"}
ORDER_MISS = (
    "scorer/order.py's Arabizi table lists TArC's spellings: a word respelled (h for 7, kh for 5, q for "
    "9) falls from its listed class to its shape, and the poem's order statistic (z) moves the order "
    "factor by more than 0.1 (docs/scorer.md, Word order: known limits)"
)
VARIETY_MISS = (
    "h for 7 throughout (ta7t, 7it, a7rar, 7ob written taht, hit, ahrar, hob): the Tunisian markers "
    "are listed with 7, and the n-gram classifier's Tunisian read no longer outweighs its Maghrebi "
    "neighbours together, so the marker-free rule reads no variety (1.0 -> 0.0; issue 34, varieties)"
)
LOOSE_MISS = (
    "7mema (dove) is a word only by the digit's loose floor (MIN_VARIANT); hmema is looked up exactly "
    "(a looser h would pass 2.9 % of random strings against the 2 % bound), so 'ya hmema tiri w rouh' "
    "has no known content word and, as a body of particles, says nothing (0.97 -> 0.84)"
)
DIGRAPH_MISS = (
    "the mechanical respelling turns mert7 (مرتاح, a rhyme word) into merth, where th is the digraph of ث, "
    "another rawī (main 0.88 -> 0.60); a writer who spells h for 7 writes the vowel the digit hid (mertah)"
)
RESPELL_MISS = (
    "two words respelled are not looked up as the words they are: y7mini is known, yhmini is not (the "
    "h-for-7 lookup is exact and the lexicon lists the digit's spelling only), and dh7ka becomes dhhka, "
    "no spelling a writer uses; the language gate falls 1.0 -> 0.95 and the reward 0.93 -> 0.83 (it "
    "was 0.82 -> 0.72, within 0.1, before round 14's doubled-rawī reading lifted the poem)"
)
HOMOGRAPH_MISS = (
    "respelled, 7ouma (حومة, the quarter) becomes houma, the everyday spelling of هوما (they), and the "
    "stanza rhymes it with homma (they): the same rhyme word twice (īṭāʾ, p_ita 0.07), reward 0.84 -> 0.70. "
    "Without the digit the two words are one spelling; no reader can tell them apart by letters (round "
    "32's r32-039 the same: 1.0 -> 0.86; round 34's r34-019: t7oum and thoum, garlic, both first-half "
    "rhyme words, 1.0 -> 0.86)"
)
ALGERIAN_MISS = (
    "a genuine Arabizi poem of round 27 that the Latin classifier reads near Algerian: respelled, the "
    "reading moves and the variety gate with it (issue 34, varieties)"
)
H_LOOKUP_MISS = (
    "respelled with a letter for the digit (h for 7, q for 9), words the Arabizi lexicon lists only with "
    "the digit are not found (the letter lookup is exact or loose only from MIN_VARIANT letters), so the "
    "language gate falls by more than 0.1 (rounds 28-29; round 34's r34-009: nab9aw as nabqaw makes a run "
    "of four unknown words, UNKNOWN_RUN, and the frame takes half)"
)
MIXED_MISS = (
    "the poet writes ح as h once (nertah) and as 7 elsewhere (sbe7, mze7, bta7): as written two rawīs, "
    "respelled with h one rhyme, so the respelling pays 0.14 more (round 29)"
)
KNOWN_MISSES = {
    ("r29-013", "7"): MIXED_MISS,
    ("r29-013", "759"): MIXED_MISS,
    ("r32-039", "7"): HOMOGRAPH_MISS,
    ("r32-039", "759"): HOMOGRAPH_MISS,
    ("r29-018", "9"): H_LOOKUP_MISS,
    ("r29-018", "759"): H_LOOKUP_MISS,
    ("r29-023", "9"): H_LOOKUP_MISS,
    ("r29-023", "759"): H_LOOKUP_MISS,
    ("r28-029", "7"): H_LOOKUP_MISS,
    ("r28-029", "759"): H_LOOKUP_MISS,
    ("r28-033", "7"): H_LOOKUP_MISS,
    ("r28-033", "759"): H_LOOKUP_MISS,
    ("r28-039", "7"): H_LOOKUP_MISS,
    ("r28-039", "759"): H_LOOKUP_MISS,
    ("r34-019", "7"): HOMOGRAPH_MISS,
    ("r34-019", "759"): HOMOGRAPH_MISS,
    ("r34-009", "9"): H_LOOKUP_MISS,
    ("r34-009", "759"): H_LOOKUP_MISS,
    ("r27-029", "7"): ALGERIAN_MISS,
    ("r27-029", "759"): ALGERIAN_MISS,
    ("r27-031", "7"): ALGERIAN_MISS,
    ("r27-031", "759"): ALGERIAN_MISS,
    ("r27-037", "759"): ORDER_MISS,
    ("r27-028", "7"): ORDER_MISS,
    ("r27-028", "759"): ORDER_MISS,
    ("r15-013", "7"): HOMOGRAPH_MISS,
    ("r15-013", "759"): HOMOGRAPH_MISS,
    ("r8-009", "7"): RESPELL_MISS,
    ("r8-009", "759"): RESPELL_MISS,
    ("r14-016", "7"): DIGRAPH_MISS,
    ("r14-016", "759"): DIGRAPH_MISS,
    ("r16-005", "9"): ORDER_MISS,
    ("r16-005", "759"): ORDER_MISS,
    ("r25-025", "5"): ORDER_MISS,
    ("r25-025", "759"): ORDER_MISS,
    ("r4-014", "5"): ORDER_MISS,
    ("r4-014", "759"): ORDER_MISS,
    ("r12-174", "759"): ORDER_MISS,
    ("r20-028", "7"): ORDER_MISS,
    ("r20-028", "9"): ORDER_MISS,
    ("r20-028", "759"): ORDER_MISS,
    ("r9-016", "7"): LOOSE_MISS,
    ("r9-016", "759"): LOOSE_MISS,
    ("r21-010", "7"): VARIETY_MISS,
    ("r21-010", "759"): VARIETY_MISS,
}


def _round_cases() -> list[dict]:
    return list(rounds())


def _arabizi_corpus() -> list[tuple[str, str, dict[str, str]]]:
    out = []
    for path in sorted((SAMPLES / "arabizi").glob("*.txt")):
        refs = {"form": path.stem, "script": "arabizi"}
        if FORMS[path.stem].refrain != "none":
            refs["refrain"] = "yes"
        out.append((f"sample {path.stem}", path.read_text(encoding="utf-8"), refs))
    for case in _round_cases():
        if case["tier"] == "genuine" and case["references"].get("script") == "arabizi":
            out.append((case["id"], case["text"], case["references"]))
    return out


def _respell(text: str, digits: str) -> str:
    """Every digit of ``digits`` standing for a letter inside a word written as its letters."""
    return re.sub(rf"(?<=[A-Za-z])[{digits}]|[{digits}](?=[A-Za-z])", lambda m: SPELLINGS[m.group()], text)


def _reward(text: str, refs: dict[str, str]) -> float:
    return score({"parts": [{"text": text}]}, refs).reward


_RESPELLINGS = [
    (name, text, refs, digits) for name, text, refs in _arabizi_corpus() for digits in ("7", "5", "9", "759")
]


@each(
    "name, text, refs, digits",
    _RESPELLINGS,
    misses={f"{name}-{digits}": why for (name, digits), why in KNOWN_MISSES.items()},
    name=lambda case: f"{case[0]}-{case[3]}",
)
def test_letter_spellings_of_the_digits_are_the_digits(
    name: str, text: str, refs: dict[str, str], digits: str
) -> None:
    respelled = _respell(text, digits)
    assert respelled != text or digits != "759", name
    assert abs(_reward(respelled, refs) - _reward(text, refs)) <= TOLERANCE, name


def test_final_h_is_the_rawi_in_both_scripts() -> None:
    """-ah is the pronoun ه after ā (m3ah معاه, ydah يداه) and -ouh ح spelled h (rouh روح): the rawī,
    with the ridf before it, as the Arabic script reads it; 7 and h are one rawī."""
    for latin, arabic in (("m3ah", "معاه"), ("ydah", "يداه"), ("sbeh", "صباح"), ("rouh", "روح")):
        a, b = rhyme(latin), rhyme(normalize_arabic(arabic))
        assert a.rawi == "h" and (a.ridf, a.wasl) == (b.ridf, b.wasl), (latin, a, b)
    assert rhyme("rouh") == rhyme("rou7") == rhyme("nou7") and rhyme("sbe7") == rhyme("sbeh")
    assert rhyme_similarity(rhyme("m3ah"), rhyme("hwah")) == 1.0


@pytest.mark.parametrize(
    ("latin", "arabic"),
    [
        ("7add", "حدّ"),
        ("tmedd", "تمدّ"),
        ("7abb", "حبّ"),
        ("marra", "مرّة"),
        ("ejjarra", "الجرّة"),
        ("jeddi", "جدّي"),
        ("ghalia", "غالية"),
        ("ghalya", "غالية"),
        ("sa9ia", "ساقية"),
        ("lia", "ليا"),
        ("jeya", "جاية"),
        ("bled", "بلاد"),
        ("dar", "دار"),
        ("darb", "درب"),
        ("7orra", "حرّة"),
    ],
)
def test_an_arabizi_rhyme_reads_as_its_arabic_script(latin: str, arabic: str) -> None:
    """The same word rhymes alike in both scripts: a vowel before a doubled rawī is short, no ridf
    (7add, marra: the Arabic script writes none before its shadda); -ia after a consonant is -ya,
    rawī y (ghalia). Round 14's genuine r14-017 and r14-012 lost 0.2 and 0.1 to each reading."""
    a, b = rhyme(latin), rhyme(normalize_arabic(arabic))
    assert (a.ridf, a.wasl) == (b.ridf, b.wasl), (latin, a, b)
    assert (a.rawi == "y") == (b.rawi == "ي"), (latin, a, b)


def test_rhymes_that_differ_in_their_ridf_alone_are_two_where_they_must_differ() -> None:
    """يكبر / تكسّر / sabr rest on the rawī alone; الدار, نسير, dar carry a ridf before it; نار and
    نور, الباب and الحبيب carry two ridfs (ā against ū or ī) before one rawī. As one rhyme each pair
    keeps 0.7 (sinād al-ridf); where two rhymes must differ they are two. A vowel after the rawī
    (waṣl) on one side only keeps the graded similarity."""
    arabic = [
        [rhyme(normalize_arabic(w)) for w in ws.split()] for ws in ("يكبر تكسّر العمر", "الدار نسير أخبار")
    ]
    latin = [[rhyme(w) for w in ws.split()] for ws in ("sabr 3omr 9amr", "dar nsir dwar")]
    pairs = [(a, b) for bare, ridf in (arabic, latin) for a in bare for b in ridf]
    pairs += [
        (rhyme(normalize_arabic(a)), rhyme(normalize_arabic(b)))
        for a, b in (("نار", "نور"), ("الباب", "الحبيب"))
    ]
    pairs += [(rhyme("bab"), rhyme("7bib"))]
    for bare, _ridf in (arabic, latin):
        assert all(rhyme_similarity(a, b) == 1.0 for a in bare for b in bare)
    for a, b in pairs:
        assert rhyme_similarity(a, b) == 0.7, (a, b)  # one rhyme with a defect (sinād al-ridf)
        assert contrast_similarity(a, b) == contrast_similarity(b, a) == 0.0, (a, b)
    ka, kb = rhyme(normalize_arabic("الدارا")), rhyme(normalize_arabic("يكبر"))
    assert contrast_similarity(ka, kb) == rhyme_similarity(ka, kb) > 0.0


def _malzumas() -> list[tuple[str, list[list[str]], str]]:
    out = []
    for script, folder in (("arabic", SAMPLES), ("arabizi", SAMPLES / "arabizi")):
        path = folder / "malzuma.txt"
        if path.exists():
            out.append((f"sample {script}", path.read_text(encoding="utf-8"), script))
    missed = known_misses()  # a poem the reward already misreads says nothing sent as a mugef
    for case in _round_cases():
        if case["tier"] == "genuine" and case["references"]["form"] == "malzuma" and case["id"] not in missed:
            out.append((case["id"], case["text"], case["references"].get("script", "arabic")))
    kept = []
    for name, text, script in out:
        blocks = [[ln.strip() for ln in b.split("\n") if ln.strip()] for b in text.strip().split("\n\n")]
        first = blocks[0][0]
        refrain = {first, _CAESURA.split(first)[0].strip()}
        stanzas = [[ln for ln in b if ln not in refrain] for b in blocks[1:]]
        if len(blocks[0]) <= 2 and {len(b) for b in stanzas} == {4}:
            kept.append((name, [blocks[0], *stanzas], script))
    return kept


MALZUMAS = _malzumas()
MALZUMA_MISSES = {
    "r25-021": "its stanzas' rhymes are near one another and near the closing's (stanza and contrast "
    "0.84, main 0.85): 0.79 as a mugef, as it pays 0.78 as the malzuma it was written as",
    "r29-006": "its stanza rhymes come back (distinct 0.76) and are near one another (stanza 0.82): it "
    "pays 0.80 as the malzuma it was written as, under 0.8 as a mugef",
    "r35-007": "its stanza rhymes are loose (stanza and contrast 0.75) and without its opening bayt the "
    "class bigram model reads its order at z 0.66 (order 0.66): 0.21 as a mugef, 0.84 as the malzuma",
}


def test_the_corpus_has_malzumas_of_mugef_stanzas() -> None:
    assert len(MALZUMAS) >= 30


@each("name, blocks, script", MALZUMAS, misses=MALZUMA_MISSES)
def test_a_malzuma_sent_for_a_form_without_an_opening_pays(
    name: str, blocks: list[list[str]], script: str
) -> None:
    """Its opening couplet in the poem-wide rhyme is no mugef stanza (r9-155, 0.47 before)."""
    refs = {"form": "mugef", "script": script, "stanzas": str(len(blocks) - 1)}
    assert _reward("\n\n".join("\n".join(b) for b in blocks), refs) <= WRONG_FORM, name
    assert _reward("\n\n".join("\n".join(b) for b in blocks[1:]), refs) >= GENUINE, name
