"""The variety detector (scorer/variety.py): Tunisian Derja told apart from MSA, Moroccan, Egyptian,
Levantine, Gulf, Iraqi, Algerian, Libyan (Arabic script) and Moroccan, Egyptian, Levantine, Algerian,
Libyan, French, English, Maltese, Gulf (Latin script), on the held-out half of bench/data/varieties and on
the sample poems, and its properties under edits of a poem."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bench.bench_varieties import classify, confusion, derja_scores, texts, words
from scorer.arabic import normalize_arabic
from scorer.morphology import OBJECT_SUFFIXES
from scorer.score import STANDARD_PROVEN, UNPROVEN_GATE, UNPROVEN_WORDS, VARIETY_RAMP, score, standard_margin
from scorer.text import parse_poem
from scorer.variety import (
    ARABIC_TABLE,
    DERJA,
    NEGATION_APART,
    PRONOUN_I,
    UNKNOWN,
    VARIETIES,
    detect,
    word_vote,
)

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "data" / "samples"

# Floors a little under the held-out measurement (docs: "Varieties"; measured 0.767 recall and
# 0.983 / 0.994 rejection in both scripts; most misses are "unknown", which is neutral).
DERJA_RECALL_FLOOR = 0.7
REJECTION_FLOOR = 0.95
PRECISION_FLOOR = 0.8
"""Measured 0.92 before Sudanese joined the corpus (round 12), 0.82 since: 3 of its 30 held-out texts
read as Derja with or without its list (the progressive قاعد, ياخي, وين are Tunisian too)."""
MAGHREB = ("algerian", "libyan")
"""Derja's Maghrebi neighbours share much of its grammar and many of its words (راني, كيما, نستنى):
held to their own ceiling, not to the precision floor of the others."""
MAGHREB_AS_DERJA_CEILING = 4
"""Held-out neighbour texts read as Derja, at most (measured 4 and 0 Arabic, 2 and 1 Latin; before
the neighbours had lists: 6 and 3, 4 and 4)."""

# Swaps of Tunisian function words for another variety's equivalents (Arabic script).
SWAPS = {
    "msa": {"توا": "الان", "برشا": "كثيرا", "متاع": "الذي", "باش": "سوف", "مش": "ليس", "هاذي": "هذه"},
    "moroccan": {"توا": "دابا", "برشا": "بزاف", "متاع": "ديال", "باش": "غادي", "مش": "ماشي", "هاذي": "هادي"},
    "egyptian": {"توا": "دلوقتي", "برشا": "اوي", "متاع": "بتاع", "باش": "عشان", "مش": "مش", "هاذي": "دي"},
    "levantine": {"توا": "هلق", "برشا": "كتير", "متاع": "تبع", "باش": "رح", "مش": "مش", "هاذي": "هيدي"},
    "gulf": {"توا": "الحين", "برشا": "وايد", "متاع": "حق", "باش": "عشان", "مش": "مب", "هاذي": "هذي"},
}
POEM_TEXT = (
    "توا نمشي للبحر باش نشوف الموج ** والقلب متاع الغريب يبكي برشا\n"
    "هاذي الدنيا مش كيف زمان ** توا الناس تبدلت برشا\n"
    "باش نقعد نستنى متاع الحومة ** والليل مش طويل كيف توا\n"
    "هاذي حكايتي وهاذي دموعي ** برشا نحكي وما يسمعني حد"
)
POEM = POEM_TEXT.split()
OTHERS = ["الذي", "سوف", "ديال", "بزاف", "كده", "هلق", "يكتبون"]
TUNISIAN_MARKERS = sorted(w for w, (vote, _) in ARABIC_TABLE.items() if vote == ((DERJA, 1.0),))


@pytest.mark.parametrize("script", sorted(VARIETIES))
def test_heldout_floor(script: str) -> None:
    """Derja recall, non-Derja rejection and precision on the held-out half stay above floors."""
    table = confusion(script, "heldout")
    _, recall, rejection = derja_scores(table)
    precision = derja_scores({v: row for v, row in table.items() if v not in MAGHREB})[0]
    assert recall >= DERJA_RECALL_FLOOR, f"{script}: Derja recall {recall:.3f}; grow the marker lists"
    assert rejection >= REJECTION_FLOOR, f"{script}: non-Derja rejection {rejection:.3f}; a marker is shared"
    assert precision >= PRECISION_FLOOR, f"{script}: precision {precision:.3f}; a marker is shared"


@pytest.mark.parametrize("script", sorted(VARIETIES))
def test_heldout_not_derja_is_never_most_of_a_variety(script: str) -> None:
    """No other variety is read as Derja for more than a tenth of its held-out texts."""
    for variety, row in confusion(script, "heldout").items():
        if variety != DERJA:
            ceiling = MAGHREB_AS_DERJA_CEILING if variety in MAGHREB else 3
            assert row[DERJA] <= ceiling, f"{variety} read as Derja {row[DERJA]}/30 times"


def test_heldout_gulf_and_iraqi_read_as_themselves() -> None:
    """Most held-out Gulf and Iraqi texts are named as their variety (measured 23/30 and 27/30)."""
    table = confusion("arabic", "heldout")
    for variety in ("gulf", "iraqi"):
        assert table[variety][variety] >= 20, (variety, table[variety])


SAMPLE_FILES = sorted(SAMPLES.glob("*.txt")) + sorted((SAMPLES / "arabizi").glob("*.txt"))


@pytest.mark.parametrize("path", SAMPLE_FILES, ids=lambda p: p.relative_to(SAMPLES).as_posix())
def test_samples_read_as_derja(path: Path) -> None:
    """The sample poems are Derja, or at worst unknown (no distinctive marker); never another
    variety. (The detector found the Arabic qasida written in MSA; it is now the Derja of its own
    Arabizi version.)"""
    script = "arabizi" if path.parent.name == "arabizi" else "arabic"
    got = detect(words(path.read_text("utf-8")), script)
    assert got.variety in (DERJA, UNKNOWN), got
    assert got.derja >= 0.5, got


def test_most_samples_have_own_markers() -> None:
    """At least 6 of the 7 Arabic-script samples and 5 of 7 Arabizi ones are positively Derja."""
    for folder, script, need in ((SAMPLES, "arabic", 6), (SAMPLES / "arabizi", "arabizi", 5)):
        got = [detect(words(p.read_text("utf-8")), script).variety for p in sorted(folder.glob("*.txt"))]
        assert got.count(DERJA) >= need, got


# Love poems of the Mashriq's east, written for this test (the kind a fresh attacker sent as Derja).
EAST = {
    "gulf": "يا حبيبي وينك الحين وش صار فيك ** شلون خليتني بروحي ما تسأل عني\n"
    "عند الدريشة أنتظرك كل مسا ** ترا الشوق ذبحني وانت بعيد عني\n"
    "كنت أبيك أكثر من عيوني ** وايد صبرت ومادري وش أسوي",
    "iraqi": "شكو ماكو يا عيوني هسه ** ليش ما تحچي وياي\n"
    "اكو بالگلب حچي هواية ** بس شلون اگوله وانت مو وياي\n"
    "چنت اريدك اكثر من روحي ** وهسه ماكو غير دموعي",
}


@pytest.mark.parametrize("variety", sorted(EAST))
def test_gulf_and_iraqi_poems_read_as_their_variety(variety: str) -> None:
    """A Gulf or Iraqi poem reads as its variety with a Derja share at the variety gate's zero, so
    its reward is ≤ 0 (it read as unknown, full credit, before these varieties had markers)."""
    got = detect(words(EAST[variety]), "arabic")
    assert got.variety == variety, got
    assert got.derja <= VARIETY_RAMP["arabic"][0], got


# Maghrebi neighbours' poems, written for this test (the kind round 6's attacker sent as Derja).
MAGHREB_POEMS = {
    ("algerian", "arabic"): "درك راني نستناك يا الغالية ** والقلب تاعي ما يرقدش\n"
    "شحال من ليلة وانا نحوس عليك ** بصح ماكاش منك خبر\n"
    "الدار نتاعنا راهي خالية ** وقاع الناس راحو\n"
    "نهدر مع روحي في الليل ** كاش واحد يسمعني\n"
    "ضرك فهمت الدنيا تاعنا ** ماكاش اللي يدوم",
    ("libyan", "arabic"): "شن بيك يا قلبي هلبة مهموم ** تبي الحبيب وهو بعيد\n"
    "نبي نشوفه ولو ساعة ** عليش غاب وما رجعش\n"
    "هلبة ليالي سهرت نستنى ** هكي الدنيا يا خوي\n"
    "شنو نقول للناس اللي تسال ** نبيه يجي قبل العيد\n"
    "يبي الخاطر يرتاح ** والبعد هلبة طويل",
    ("algerian", "arabizi"): "drok rani nestennak ya el ghalia ** w galbi ta3i ma yor9odch\n"
    "ch7al men lila w ana nhaws 3lik ** bessah makach menek khbar\n"
    "dar nta3na rahi khalia ** w ga3 ennas ra7ou\n"
    "nahder m3a rou7i fel lil ** kach wa7ed yesma3ni\n"
    "dork fhamt denya nta3na ** makach li ydoum",
    ("libyan", "arabizi"): "chen bik ya galbi helba mahmoum ** tebi el 7bib w howa b3id\n"
    "nebi nchoufou walaw sa3a ** 3lich ghab w ma rja3ch\n"
    "helba lyali sharet nestenna ** hkey denya ya khouy\n"
    "chnou ngoul l ennas elli tes2el ** nebih yji 9bal el 3id\n"
    "yebi el khater yert7 ** w el bo3d helba twil",
}


@pytest.mark.parametrize(("variety", "script"), sorted(MAGHREB_POEMS))
def test_algerian_and_libyan_poems_read_as_their_variety(variety: str, script: str) -> None:
    """An Algerian or Libyan poem reads as its variety (they read as unknown or Tunisian, full
    credit, before these varieties had markers). In Arabic script its Derja share is at the
    variety gate's zero; in Latin script, whose ramp starts lower (misspelt Derja meets other
    varieties' markers), below the ramp's full credit."""
    got = detect(words(MAGHREB_POEMS[(variety, script)]), script)
    assert got.variety == variety, got
    zero, full = VARIETY_RAMP[script]
    assert got.derja <= (zero if script == "arabic" else full), got


def test_no_maghrebi_marker_counts_for_them_alone_if_tunisians_say_it() -> None:
    """Words Tunisians also say are never an Algerian or Libyan marker of their own: at most a split."""
    for w in ("توا", "باهي", "متاع", "امتاع", "راني", "راهو", "واش", "مزال", "كيفاش", "هكا", "خويا", "يزي"):
        vote = dict(ARABIC_TABLE.get(w, ((), ""))[0])
        assert not (set(vote) & set(MAGHREB)) or DERJA in vote, (w, vote)


def test_no_tunisian_marker_votes_for_the_east() -> None:
    """No Tunisian marker (and no word of the Derja core lexicon) is also a Gulf or Iraqi marker:
    a genuine Derja poem never pays for a Mashriq word that Tunisians also say (زين, توه, قاعد)."""
    core = set(words((ROOT / "scorer" / "lexicon" / "derja_core.txt").read_text("utf-8")))
    for w, (vote, _) in ARABIC_TABLE.items():
        east = {v for v, _ in vote} & {"gulf", "iraqi"}
        if east:
            assert DERJA not in {v for v, _ in vote}, w
            assert w not in core, w
    for w in ("زين", "توه", "قاعد", "شبيك", "بيك", "منو", "ويا", "الغالي"):
        assert not {v for v, _ in ARABIC_TABLE.get(w, ((), ""))[0]} & {"gulf", "iraqi"}, w


def test_unknown_is_neutral() -> None:
    """No marker of any variety: unknown, Derja share exactly 0.5, no evidence."""
    got = detect(["القمر", "الليل", "النجوم"], "arabic")
    assert (got.variety, got.derja, sum(got.counts.values()), got.markers) == (UNKNOWN, 0.5, 0.0, ())


def test_shared_only_tie_is_unknown() -> None:
    """مش alone is Tunisian, Egyptian and Levantine alike: not a verdict for Derja."""
    assert detect(["انا", "مش", "هنا"], "arabic").variety == UNKNOWN
    assert detect(["انا", "مش", "برشا"], "arabic").variety == DERJA


@pytest.mark.parametrize("other", sorted(SWAPS))
def test_swapping_function_words_flips_the_verdict(other: str) -> None:
    """A Tunisian poem is Derja; swapping its function words for another variety's flips the
    verdict away from Derja by three quarters of them swapped, and to that variety at the end."""
    assert detect(POEM, "arabic").variety == DERJA
    swap = SWAPS[other]
    targets = [i for i, w in enumerate(POEM) if w in swap]
    shares = []
    for k in range(len(targets) + 1):
        poem = list(POEM)
        for i in targets[:k]:
            poem[i] = swap[poem[i]]
        got = detect(poem, "arabic")
        shares.append(got.derja)
        if 4 * k >= 3 * len(targets):
            assert got.variety != DERJA, (other, k, got)
    assert got.variety == other, got
    assert shares == sorted(shares, reverse=True), shares  # every swap lowers the Derja share or keeps it


@settings(max_examples=200, deadline=None)
@given(
    base=st.lists(st.sampled_from([*POEM, *OTHERS]), max_size=40),
    added=st.lists(st.sampled_from(TUNISIAN_MARKERS), min_size=1, max_size=5),
    at=st.integers(min_value=0, max_value=40),
)
def test_adding_derja_markers_never_lowers_the_share(base: list[str], added: list[str], at: int) -> None:
    before = detect(base, "arabic")
    after = detect(base[:at] + added + base[at:], "arabic")
    assert after.derja >= before.derja
    assert after.counts[DERJA] >= before.counts[DERJA]
    if set(added) - set(base):  # a marker new to the poem adds evidence; one said again does not
        assert after.counts[DERJA] > before.counts[DERJA]
    else:
        assert after.counts[DERJA] == before.counts[DERJA]


@pytest.mark.parametrize("other", sorted(SWAPS))
def test_one_derja_marker_said_again_does_not_outweigh_another_variety(other: str) -> None:
    """The round-5 laundering: another variety's poem with one Tunisian marker after every line.
    Said once or after every line, the marker is one word of evidence; the poem stays the other
    variety's, below the variety gate's zero."""
    lines = [" ".join(SWAPS[other].get(w, w) for w in ln.split()) for ln in POEM_TEXT.split("\n")]
    once = detect(words("\n".join(lines) + " ياسر"), "arabic")
    salted = detect(words("\n".join(ln + " ياسر" for ln in lines)), "arabic")
    assert salted.counts == once.counts and salted.derja == once.derja, (once, salted)
    assert salted.variety == other, salted


@settings(max_examples=200, deadline=None)
@given(st.lists(st.text(alphabet="abcdeghiklmnorstuwy3795ħġżċ' ", max_size=12), max_size=60))
def test_latin_result_is_well_formed(ws: list[str]) -> None:
    """Any Latin words: a known variety or unknown, a share in (0, 1), no negative weight."""
    got = detect(ws, "arabizi")
    assert got.variety in (*VARIETIES["arabizi"], UNKNOWN)
    assert 0.0 < got.derja < 1.0
    assert min(got.counts.values()) >= -1e-9


def test_maltese_letters_and_foreign_function_words() -> None:
    assert classify("il-baħar kalm u qalbi qed tistennik", "arabizi").variety == "maltese"
    assert classify("the night is long and i wait for you", "arabizi").variety == "english"
    assert classify("la nuit est longue et je t'attends", "arabizi").variety == "french"
    assert classify("tawa nemchi lel b7ar w n7ebek barcha", "arabizi").variety == DERJA


def test_corpus_has_sixty_texts_per_variety() -> None:
    for script, varieties in VARIETIES.items():
        for v in varieties:
            assert len(texts(script, v, "all")) == 60, (script, v)


# --- no Derja evidence at all (scorer/score.py, UNPROVEN_WORDS) ----------------------------------------

NEUTRAL = {"arabic": "القمر", "arabizi": "9mar"}
"""A word of both lexicons that votes for no variety, put in place of every Derja-voting word."""
ADDED = {"arabic": "برشا", "arabizi": "barcha"}


def _neutral(text: str, script: str) -> str:
    """The poem with every word that votes for Derja (and the pronoun of a pronoun + n- pair, the
    ما of a negation written apart) replaced by NEUTRAL: what a marker-free MSA or any-Arabic
    rewrite keeps of it."""

    def swap(m: re.Match[str]) -> str:
        w = m.group(0)
        key = normalize_arabic(w) if script == "arabic" else w.lower()
        pair = PRONOUN_I[script] | (NEGATION_APART if script == "arabic" else frozenset())
        if key in pair or any(v == DERJA for v, _ in word_vote(w, script)):
            return NEUTRAL[script]
        return w

    return _WORD_RE.sub(swap, normalize_arabic(text) if script == "arabic" else text)


_WORD_RE = re.compile(r"[^\W_]+")


def _unproven_gate(n: int) -> float:
    lo, hi = UNPROVEN_WORDS
    return 1.0 - (1.0 - UNPROVEN_GATE) * min(1.0, max(0.0, (n - lo) / (hi - lo)))


@pytest.mark.parametrize(
    "path",
    [p for p in SAMPLE_FILES if p.parent.name != "arabizi"],
    ids=lambda p: p.relative_to(SAMPLES).as_posix(),
)
def test_marker_free_poem_scores_below_its_derja_twin(path: Path) -> None:
    """An Arabic-script sample poem stripped of every Derja-voting word has no Tunisian evidence and
    pays on the variety gate by its length (UNPROVEN_WORDS) unless the classifier's margin over its
    words proves it Derja (STANDARD_PROVEN); one Tunisian marker put back (برشا) lifts the gate to 1
    and the reward above the unproven twin's. (In Latin script the classifier's votes prove such a
    poem, see the next test.)"""
    script = "arabic"
    refs = {"form": path.stem, "script": script}
    bare = _neutral(path.read_text("utf-8"), script)
    got = detect(words(bare), script)
    assert got.counts[DERJA] == 0.0, got
    lines = bare.split("\n")
    third = [i for i, ln in enumerate(lines) if ln.strip()][2]  # a body line, not a refrain or title
    first, rest = lines[third].split(" ", 1)
    lines[third] = f"{first} {ADDED[script]} {rest}"
    twin = "\n".join(lines)
    s_bare, s_twin = score({"parts": [{"text": bare}]}, refs), score({"parts": [{"text": twin}]}, refs)
    n = sum(len(ln.words) for ln in parse_poem(bare).lines)
    assert n > UNPROVEN_WORDS[0], n
    proven = standard_margin(words(bare)) >= STANDARD_PROVEN  # the classifier reads it as Derja
    expected = (1.0 if proven else _unproven_gate(n)) * min(1.0, _ramp(got, script))
    assert s_bare.subscores["variety"] == pytest.approx(expected, abs=1e-4)  # sub-scores are rounded
    assert s_twin.subscores["variety"] == 1.0
    if not proven:
        assert s_bare.reward < s_twin.reward - 0.05, (s_bare.reward, s_twin.reward)


def _ramp(got: object, script: str) -> float:
    zero, full = VARIETY_RAMP[script]
    return max(0.0, (got.derja - zero) / (full - zero))  # type: ignore[attr-defined]


def test_short_marker_free_poem_pays_nothing() -> None:
    """A poem under UNPROVEN_WORDS[0] words may lack a marker by chance (genuine Derja carries about
    one per 34 words): its variety gate stays 1 (a red-team round's genuine muthallath of 29 words, asked
    for its 3 stanzas: words are counted at the asked size)."""
    text = (
        "يا بلادي يا خضراء\nيا ريحة الحنّاء\nفيك عزّي وحنيّة\n\nعشت فيك صغير\nتحت النخل الكبير\n"
        "وشربت من عين جارية\n\nومهما نمشي بعيد\nنرجعلك في العيد\nنبوس التراب بنيّة"
    )
    got = score({"parts": [{"text": text}]}, {"form": "muthallath", "script": "arabic", "stanzas": "3"})
    assert detect(words(text), "arabic").counts[DERJA] == 0.0
    assert got.subscores["variety"] == 1.0, got


@pytest.mark.parametrize(
    ("words_", "vote"),
    [
        (["نكتبو"], "tunisian+moroccan"),
        (["ماكتبتش"], "tunisian+moroccan+egyptian"),
        (["انا", "نحلم"], "tunisian+moroccan"),
    ],
)
def test_morphology_votes_arabic(words_: list[str], vote: str) -> None:
    """Maghrebi -ū imperfect, the ما…ش negation and انا + n- vote as their rules say; MSA's
    defective verbs (يبدو, نرجو) and the -ūn plural do not vote Maghrebi."""
    got = detect(words_, "arabic")
    assert {v for v, w in got.counts.items() if w > 0} == set(vote.split("+")), got
    for msa in ("يبدو", "نرجو", "ويبدو", "يكتبون"):
        assert detect([msa], "arabic").counts[DERJA] == 0.0, msa


def _marked(got: object) -> set[str]:
    """The varieties the markers found name (the classifier's reading, ``~…``, left out)."""
    return {v for m in got.markers if not m.startswith("~") for v in m.rsplit(":", 1)[1].split("+")}  # type: ignore[attr-defined]


def test_morphology_votes_arabizi() -> None:
    """-ech is Tunisian; -ou after n/y/t, -iw, -aw and -ouch verbs are Maghrebi; ana + n- verb is
    Maghrebi, ana + a participle (nayem) is not; French and English words stay theirs."""
    assert detect(["wa9tech"], "arabizi").variety == DERJA
    for w in ("nlemmou", "nghanniw", "nab9aw", "ya3rfouch"):
        got = detect([w], "arabizi")
        assert f"{w}:tunisian+moroccan" in got.markers, (w, got)
    assert "ana+n-:tunisian+moroccan" in detect(["ena", "nel3eb"], "arabizi").markers
    assert DERJA not in _marked(detect(["ena", "nayem"], "arabizi"))
    for w in ("speech", "touch", "nous", "you"):
        got = detect([w], "arabizi")
        assert DERJA not in _marked(got) and got.variety != DERJA, (w, got)


@pytest.mark.parametrize("suffix", range(len(OBJECT_SUFFIXES["arabic"])))
def test_suffixed_maghrebi_plural_votes_in_both_scripts(suffix: int) -> None:
    """A Maghrebi -ū plural keeps its vote with an object pronoun after it, in both scripts alike
    (round 14: a genuine mukhammas, r14-008, carried its Derja only in نعصروها and read as no
    variety); MSA's defective verbs take the suffix too (تتلوها, يدعوهم) and, as bare (يتلو), do
    not vote, nor does a noun in -وة (the scorer folds ة into ه, which is why -ه is no suffix)."""
    ar, az = OBJECT_SUFFIXES["arabic"][suffix], OBJECT_SUFFIXES["arabizi"][suffix]
    for w, script in ((f"نعصرو{ar}", "arabic"), (f"يقولو{ar}", "arabic"), (f"nlemmou{az}", "arabizi")):
        got = detect([w], script)
        assert f"{w}:tunisian+moroccan" in got.markers, (w, got)
    for w in (f"تتلو{ar}", f"يدعو{ar}", f"ويدعو{ar}", f"نحو{ar}", "تلاوة", "نعصروه"):
        assert detect([w], "arabic").counts[DERJA] == 0.0, w


def test_the_negation_written_apart_votes_as_written_together() -> None:
    """ما تعياش, ما يتنساش (round 15's genuine r15-017 carried its Derja only so) vote as ماتعياش does;
    a verb whose root ends in ش (ما عاش, ما يعيش, ما يفتّش) and a word without ما before it do not."""
    for apart, together in (("ما تعياش", "ماتعياش"), ("وما يتنساش", "مايتنساش"), ("ما تسواش", "ماتسواش")):
        got, want = detect(words(apart), "arabic"), detect(words(together), "arabic")
        assert got.counts == want.counts and got.counts[DERJA] > 0.0, (apart, got, want)
    for text in ("ما عاش", "ما يعيش", "ما يفتّش", "تعياش", "الليل ما طال"):
        assert detect(words(text), "arabic").counts[DERJA] == 0.0, text
