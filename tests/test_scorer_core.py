"""The pure scoring core: correct poems score high, each defect costs, each hack costs more."""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from pathlib import Path

import pytest

from poems import join, stanzas_of, two_defects
from scorer.arabic import arabizi_fold, normalize_arabic, rhyme_key, similarity
from scorer.catalogue import FORMS, LANGUAGES, instruction, lookup
from scorer.response import extract_text
from scorer.score import LAYOUT_COST, score
from scorer.text import PROSE_WORDS_PER_HEMISTICH, parse_poem

SAMPLES = Path(__file__).resolve().parent.parent / "data" / "samples"

MALZUMA = (SAMPLES / "malzuma.txt").read_text(encoding="utf-8")
REFRAIN = "يا بحر يا موجك غدّار"

# A second malzuma on another theme, in Tunisian Arabizi.
ARABIZI_MALZUMA = """ya b7ar ya mawjek ghaddar ** khdhit menni dhaw e-nhar

mchit nestanna fel mina
wel lil twil 3lina
wel dam3a saknet 3inina
wel galb y7ki bel asrar
ya b7ar ya mawjek ghaddar

chra3 b3id nbat nchouf
wel khouf fi galbi mekchouf
w galbi men far7ou makhtouf
ystanna rej3et el ba77ar
ya b7ar ya mawjek ghaddar

eddenya men ghirek ghriba
ya ommi ya 7nina ya 7biba
wel far7a ma 3adech griba
w ana nestanna 3la jamr ennar
ya b7ar ya mawjek ghaddar

ra7et m3ak ayyami
w tbakhret a7lami
w ma b9a ken klami
nektbou 3la 7it eddar
ya b7ar ya mawjek ghaddar

ya msafer lel berr el b3id
arja3 nefr7ou men jdid
wel 3ors n7iwh kif el 3id
w nzaynou el 7ouma bel anwar
ya b7ar ya mawjek ghaddar
"""

# A malzuma on a different theme (the olive harvest), main rhyme -īn.
OLIVE_MALZUMA = """يا زيتونة يا شجرة الزين ** يا عطية رب العالمين

طلعنا للغابة بكري
والنسمة تجري وتسري
والصبية تغني وتقري
والحب يجمعو ولادنا الفرحانين
يا زيتونة يا شجرة الزين

نلقطو الحب بحنينة
والشمس علينا سخينة
والمعصرة تستنى فينا
ويسيل الزيت كيف الياسمين
يا زيتونة يا شجرة الزين

جدي يحكي على الماضي
وعلى العام اللي كان راضي
والغلة تملا الأراضي
ويفرح الفلاح المسكين
يا زيتونة يا شجرة الزين

يا بنت الجبل يا غالية
يا شجرة عالية
يا حنينة يا حالية
نحبوك لآخر السنين
يا زيتونة يا شجرة الزين
"""


def ref(form: str, **kw: str) -> dict[str, str]:
    return {"form": form, **kw}


# --- correct poems ----------------------------------------------------------------------------


@pytest.mark.parametrize("form", sorted(FORMS))
def test_sample_poem_of_every_form_scores_high(form: str) -> None:
    text = (SAMPLES / f"{form}.txt").read_text(encoding="utf-8")
    s = score(text, ref(form, script="arabic"))
    assert s.reward >= 0.85, (form, s)
    assert all(0.0 <= v <= 1.0 for v in s.subscores.values())


@pytest.mark.parametrize(
    ("text", "refs"),
    [
        (ARABIZI_MALZUMA, ref("malzuma", script="arabizi", refrain="yes")),
        (OLIVE_MALZUMA, ref("malzuma", script="arabic", stanzas="4", refrain="yes")),
        (MALZUMA, ref("malzuma", script="arabic", stanzas="5", refrain="yes")),
    ],
)
def test_correct_poems_score_high_whatever_the_theme_or_script(text: str, refs: dict[str, str]) -> None:
    s = score(text, refs)
    assert s.reward >= 0.85, s


def test_gemini_content_only_non_thought_parts_count() -> None:
    content = {
        "role": "model",
        "parts": [{"text": "نفكر في القافية ... " * 50, "thought": True}, {"text": MALZUMA}],
    }
    assert score(content, ref("malzuma")).reward == score(MALZUMA, ref("malzuma")).reward


def test_markup_titles_and_fences_are_read_past_and_cost_as_not_the_poem() -> None:
    """The parser reads the poem inside markup and under a title; the title and the markup are not the
    poem the prompt asked for ("Give only the poem"), so the reward is at most 0."""
    blocks = stanzas_of(MALZUMA)
    dressed = "# البحر الغدار\n\n```\n" + join(blocks) + "```\n"
    assert score(MALZUMA, ref("malzuma")).reward > 0.8
    assert score(dressed, ref("malzuma")).reward <= 0.0
    assert score("**البحر**\n\n" + MALZUMA, ref("malzuma")).reward <= 0.0
    # no words, but markup: ` is no character of a poem (scorer/allow.py)
    assert score("```\n" + join(blocks) + "```\n", ref("malzuma")).reward <= 0.0


def test_opening_as_two_lines_is_read_as_the_bayt_in_another_layout() -> None:
    """The prompt asks for the opening as one line of two hemistichs parted by ` ** `: on two lines it
    is the same bayt (read as such) in another layout, which costs LAYOUT_COST and no more."""
    blocks = stanzas_of(MALZUMA)
    a, b = blocks[0][0].split(" ** ")
    two = score(join([[a, b], *blocks[1:]]), ref("malzuma"))
    one = score(MALZUMA, ref("malzuma"))
    assert two.subscores["layout"] == LAYOUT_COST
    assert two.reward == pytest.approx(2 * (one.reward + 1) / 2 * LAYOUT_COST - 1, abs=0.01)


# --- single defects cost a visible amount --------------------------------------------------------


def _malzuma_defects() -> dict[str, str]:
    b = stanzas_of(MALZUMA)
    out: dict[str, str] = {}
    x = [list(s) for s in b]
    x[2][1] = "والخوف في قلبي كبير برشا"  # one stanza line off its stanza rhyme
    out["stanza line off rhyme"] = join(x)
    x = [list(s) for s in b]
    x[3][3] = "ونا نستنى على جمر الحطب"  # one closing line off the main rhyme
    out["closing line off main rhyme"] = join(x)
    x = [list(s) for s in b]
    x[2] = [ln for ln in x[2] if ln != REFRAIN]
    out["refrain missing once"] = join(x)
    out["one stanza missing"] = join(b[:-1])
    x = [list(s) for s in b]
    x[-1] = x[-1][:2]
    out["truncated last stanza"] = join(x)
    x = [list(s) for s in b]
    x[1][:3] = ["جيت نغني للبحّار", "ونحكي على الأسرار", "ونشعل في قلبي النار"]
    out["stanza rhymes like the main rhyme"] = join(x)
    x = [list(s) for s in b]
    x[4][3] = "نكتبو على حيط النهار"  # reuses the opening's rhyme word (īṭāʾ)
    out["rhyme word reused"] = join(x)
    return out


@pytest.mark.parametrize("defect", sorted(_malzuma_defects()))
def test_each_single_defect_costs_a_visible_amount(defect: str) -> None:
    refs = ref("malzuma", script="arabic", stanzas="5", refrain="yes")
    correct = score(MALZUMA, refs).reward
    s = score(_malzuma_defects()[defect], refs)
    assert correct - s.reward >= 0.02, (defect, correct, s)
    assert s.reward > 0.3, (defect, s)  # still an honest, mostly right poem


def test_a_refrain_asked_for_and_left_out_is_half_the_form() -> None:
    """A refrain asked for and sung after no stanza is a part of the form left out (it was an honest
    single defect, 0.8, before round 1 of the red team): at most 0.3, like half the stanzas."""
    refs = ref("malzuma", script="arabic", stanzas="5", refrain="yes")
    x = [[ln for ln in s if ln != REFRAIN] for s in stanzas_of(MALZUMA)]
    assert score(join(x), refs).reward <= 0.3
    assert score(join(x), {**refs, "refrain": "no"}).reward >= 0.8


def test_stanza_count_is_peaked_at_the_asked_number() -> None:
    five = score(MALZUMA, ref("malzuma", stanzas="5")).reward
    asked_four = score(MALZUMA, ref("malzuma", stanzas="4")).reward
    assert five - asked_four >= 0.05


@pytest.mark.parametrize("form", ["mugef", "muthallath", "mukhammas", "msaddes"])
def test_strophic_forms_lose_for_an_off_rhyme_closing_line(form: str) -> None:
    text = (SAMPLES / f"{form}.txt").read_text(encoding="utf-8")
    b = stanzas_of(text)
    b[1][-1] = "والكلمة ما تنقالش اليوم"
    assert score(text, ref(form)).reward - score(join(b), ref(form)).reward >= 0.02


@pytest.mark.parametrize("form", ["gsim", "qasida"])
def test_bayt_forms_lose_for_an_off_rhyme_second_half(form: str) -> None:
    text = (SAMPLES / f"{form}.txt").read_text(encoding="utf-8")
    lines = text.strip().split("\n")
    first, _ = lines[3].split(" ** ")
    lines[3] = first + " ** وما بقى في الدنيا كان الصبر"
    assert score(text, ref(form)).reward - score("\n".join(lines), ref(form)).reward >= 0.02


def test_gsim_needs_the_first_halves_to_rhyme() -> None:
    text = (SAMPLES / "qasida.txt").read_text(encoding="utf-8")  # x|A: first halves free
    assert score(text, ref("gsim")).reward < score(text, ref("qasida")).reward - 0.2


# --- hacks score below an honest imperfect poem -------------------------------------------------------


def _honest_imperfect() -> str:
    """Two real defects: one stanza line off rhyme and one closing line off the main rhyme."""
    b = stanzas_of(MALZUMA)
    b[2][1] = "والخوف في قلبي كبير برشا"
    b[3][3] = "ونا نستنى على جمر الحطب"
    return join(b)


def _hacks() -> dict[str, str]:
    b = stanzas_of(MALZUMA)
    opening = b[0]
    out: dict[str, str] = {}
    ar_words = [
        "البحار",
        "الأسرار",
        "النار",
        "الدار",
        "المشوار",
        "الأزهار",
        "الأقدار",
        "الأمطار",
        "الأشجار",
        "الأخبار",
        "الأنوار",
        "الأوتار",
        "الأسوار",
        "الأعمار",
        "الزوار",
        "الثمار",
        "الأحجار",
        "الأطيار",
        "الأنهار",
        "الأسفار",
    ]
    out["every line on the main rhyme"] = join(
        [opening]
        + [[f"يا قلبي غني على {w}" for w in ar_words[i * 4 : i * 4 + 4]] + [REFRAIN] for i in range(5)]
    )
    out["one rhyme word everywhere"] = join(
        [opening] + [[ln.rsplit(" ", 1)[0] + " غدّار" for ln in s[:-1]] + [REFRAIN] for s in b[1:]]
    )
    out["duplicated lines"] = join([opening] + [b[1]] * 5)
    out["one-word lines"] = join(
        [["غدار ** نهار"]] + [["مينا", "علينا", "عينينا", "أسرار", REFRAIN] for _ in range(5)]
    )
    out["refrain pasted everywhere"] = join([opening] + [[REFRAIN] * 5 for _ in range(5)])
    out["padding with extra stanzas"] = join([opening] + b[1:] * 3)
    out["prose around the poem"] = (
        "Here is a malzuma for you, written in the Tunisian tradition with a refrain after each "
        "stanza, an opening couplet and five stanzas, as you asked in your message:\n\n"
        + MALZUMA
        + "\nI hope you like this poem; it follows the rules of the form closely and uses the sea as "
        "its central image, with the refrain returning after each stanza to bind them together.\n"
    )
    out["latin script when arabic was asked"] = ARABIZI_MALZUMA
    out["a single opening line"] = "يا بحر يا موجك غدّار ** خذيت مني ضي النهار\n"
    return out


@pytest.mark.parametrize("hack", sorted(_hacks()))
def test_each_hack_scores_below_an_honest_imperfect_poem(hack: str) -> None:
    refs = ref("malzuma", script="arabic", stanzas="5", refrain="yes")
    honest = score(_honest_imperfect(), refs).reward
    s = score(_hacks()[hack], refs)
    assert s.reward < honest, (hack, honest, s)


def _map_hemistichs(text: str, body: Callable[[list[str], str], list[str]]) -> str:
    """Rewrite every hemistich's body with `body(words, rhyme_word)`, keeping its rhyme word (so the
    rhyme plan, and the refrain, stay perfect)."""
    out = []
    for line in text.split("\n"):
        halves = [h.split() for h in line.split(" ** ")] if line.strip() else []
        out.append(" ** ".join(" ".join([*body(h, h[-1]), h[-1]]) for h in halves))
    return "\n".join(out)


def babble(text: str, word: str) -> str:
    """Every line body one word repeated: `يا يا يا الدار`."""
    return _map_hemistichs(text, lambda _, end: [word] * 3)


def stubs(text: str, fillers: tuple[str, ...]) -> str:
    """Every line (hemistich) two words: a filler and the rhyme word. The filler depends on the
    rhyme word only, so the malzuma refrain stays a verbatim refrain."""
    return _map_hemistichs(text, lambda _, end: [fillers[sum(map(ord, end)) % len(fillers)]])


DEGENERATE = {
    "babble يا": lambda t: babble(t, "يا"),
    "babble word": lambda t: babble(t, "نحكيلك"),
    "babble rhyme word": lambda t: _map_hemistichs(t, lambda _, end: [end] * 3),
    "stubs": lambda t: stubs(t, ("قلبي", "نحكيلك", "برشا", "توا", "خويا", "عيني")),
}
ARABIZI_DEGENERATE = {
    "babble ya": lambda t: babble(t, "ya"),
    "babble Ya ya": lambda t: _map_hemistichs(t, lambda _, end: ["Ya", "ya", "ya"]),
    "stubs": lambda t: stubs(t, ("galbi", "n7kilek", "barcha", "tawa")),
}


@pytest.mark.parametrize("hack", sorted(DEGENERATE))
@pytest.mark.parametrize("form", sorted(FORMS))
def test_babble_and_stubs_of_every_form_score_below_an_honest_imperfect_poem(form: str, hack: str) -> None:
    text = (SAMPLES / f"{form}.txt").read_text(encoding="utf-8")
    refs = ref(form, script="arabic")
    honest = score(two_defects(form, text), refs)
    assert 0.3 < honest.reward < score(text, refs).reward - 0.1, honest  # really imperfect, still honest
    s = score(DEGENERATE[hack](text), refs)
    assert s.reward < honest.reward - 0.5, (hack, honest, s)
    assert s.subscores.get("p_babble" if "babble" in hack else "p_short", 0.0) >= 0.5, s


@pytest.mark.parametrize("hack", sorted(ARABIZI_DEGENERATE))
def test_arabizi_babble_and_stubs_score_below_an_honest_imperfect_poem(hack: str) -> None:
    refs = ref("malzuma", script="arabizi", refrain="yes")
    b = stanzas_of(ARABIZI_MALZUMA)
    b[2][1] = "w el khouf fi galbi kbir barcha"
    b[3][3] = "w ana nestanna 3la jamr el 7tab"
    honest = score(join(b), refs).reward
    s = score(ARABIZI_DEGENERATE[hack](ARABIZI_MALZUMA), refs)
    assert s.reward < honest - 0.8, (hack, honest, s)


VERBS_MAGHREBI = str.split(
    "نحكيو نغنيو نمشيو نكتبو نلعبو نضحكو نرجعو نسهرو نقراو نحلمو نسافرو نخدمو نعيشو نبكيو نجريو نطيرو "
    "نزرعو نرسمو نبنيو نحضنو نستناو نعاودو نتفكرو"
)
"""Maghrebi plural verbs, one per babbling line: Derja evidence, and no word recycled across lines
(`scorer.reuse`), so only the babble is measured."""


def test_babble_is_smooth_in_the_share_of_babbling_lines() -> None:
    refs = ref("mugef", script="arabic")
    b = stanzas_of((SAMPLES / "mugef.txt").read_text(encoding="utf-8"))
    verbs = iter(VERBS_MAGHREBI)
    babbled = [[babble(ln, next(verbs)) for ln in s] for s in b]
    rewards = []
    for k in range(len(b) + 1):
        x = [babbled[i] if i < k else s for i, s in enumerate(b)]
        rewards.append(score(join(x), refs).reward)
    steps = [a - c for a, c in itertools.pairwise(rewards)]
    assert all(0.05 < d < 0.4 for d in steps), rewards  # every stanza of babble costs, none cliffs


@pytest.mark.parametrize(
    ("line", "most"),
    [
        ("يا أمي يا الحنينة يا الحبيبة", 0.0),  # vocative anaphora
        ("وين الربيع وين الأمان", 0.0),
        ("يا بلادي يا الأمان", 0.0),
        ("ya ommi ya 7nina ya 7biba", 0.0),
        ("لا نوم لا راحة لا أمان", 0.0),
        ("نكتب ونكتب ونكتب في السطور", 0.01),  # one word said twice in a row: a hair
    ],
)
def test_repetition_as_style_is_not_babble(line: str, most: float) -> None:
    text = (SAMPLES / "mugef.txt").read_text(encoding="utf-8")
    b = stanzas_of(text)
    b[2][0] = line
    assert score(join(b), ref("mugef")).subscores.get("p_babble", 0.0) <= most, line


@pytest.mark.parametrize("form", ["gsim", "qasida"])
def test_one_terse_half_line_costs_little(form: str) -> None:
    text = (SAMPLES / f"{form}.txt").read_text(encoding="utf-8")
    lines = text.strip().split("\n")
    first, second = lines[2].split(" ** ")
    lines[2] = first + " ** وتبخّرت " + second.split()[-1]  # one terse hemistich of twenty
    one = score("\n".join(lines), ref(form))
    assert score(text, ref(form)).reward - one.reward < 0.05, one
    assert one.reward >= 0.9


def test_honest_imperfect_is_between() -> None:
    s = score(_honest_imperfect(), ref("malzuma", script="arabic", stanzas="5", refrain="yes"))
    assert 0.3 < s.reward < 0.95


# --- no poem, no form ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("response", "refs", "why"),
    [
        (MALZUMA, {}, "no references.form"),
        (MALZUMA, {"form": "sonnet"}, "unknown form"),
        ("", {"form": "malzuma"}, "no poem"),
        ({"parts": [{"text": MALZUMA, "thought": True}]}, {"form": "malzuma"}, "no poem"),
        ({"parts": []}, {"form": "malzuma"}, "no poem"),
        ("   \n\n  ", {"form": "gsim"}, "no poem"),
    ],
)
def test_no_poem_or_no_form_is_minus_one_with_a_reason(response: object, refs: dict, why: str) -> None:
    s = score(response, refs)
    assert s.reward == -1.0
    assert why in s.reason


def test_form_aliases_and_case() -> None:
    assert lookup("Malzouma") is FORMS["malzuma"]
    assert lookup(" ملزومة ") is FORMS["malzuma"]
    assert score(MALZUMA, {"form": "MALZUMA"}).reward == score(MALZUMA, {"form": "malzuma"}).reward


# --- Arabic and Arabizi -------------------------------------------------------------------------------


def test_normalisation_folds_spelling_noise() -> None:
    assert normalize_arabic("صنــــــات") == "صنات"
    assert normalize_arabic("أَحْمَدُ") == "احمد"
    assert normalize_arabic("إلى") == "الي"
    assert normalize_arabic("مدرسة") == "مدرسه"
    assert normalize_arabic("سؤال") == "سءال"
    assert normalize_arabic("\ufeb3\ufefc\ufee1") == "سلام"  # presentation forms
    assert normalize_arabic("سابڨ") == "سابڨ"  # ڨ kept
    assert normalize_arabic("گال") == "ڨال"


def test_rhyme_keys_read_rawi_ridf_wasl() -> None:
    k = rhyme_key(normalize_arabic("وأريافي"))
    assert (k.rawi, k.ridf, k.wasl) == ("ف", "a", "i")
    assert rhyme_key(normalize_arabic("منكوسة")).rawi == rhyme_key(normalize_arabic("معفوسه")).rawi == "س"
    assert rhyme_key(normalize_arabic("كلامو")).rawi == "م"
    assert rhyme_key(normalize_arabic("الحرية")).rawi == "ي"
    assert rhyme_key(normalize_arabic("الحياة")).rawi == rhyme_key("الساعات").rawi == "ت"
    # a pronoun suffix is not the rhyme: -hā on different stems does not rhyme
    assert rhyme_key("كتبها").rawi != rhyme_key("شافها").rawi


def test_similarity_is_graded() -> None:
    k = lambda w: rhyme_key(normalize_arabic(w))  # noqa: E731
    exact = similarity(k("عماد"), k("سداد"))
    ridf_off = similarity(k("عماد"), k("عمود"))
    near = similarity(k("شارح"), k("شارخ"))
    none = similarity(k("عماد"), k("كتاب"))
    assert exact == 1.0 > ridf_off > near > none == 0.0


def test_arabizi_digits_follow_the_tunisian_table() -> None:
    assert arabizi_fold("9alb") == "9alb"  # 9 = ق in Tunisia
    assert rhyme_key("b3id").rawi == rhyme_key("jdid").rawi == "d"
    assert similarity(rhyme_key("ghaddar"), rhyme_key("nhar")) == 1.0
    assert similarity(rhyme_key("ra7"), rhyme_key("ra5")) == 0.25  # ح/خ near


def test_rhyme_by_final_letters_on_plain_generated_words() -> None:
    """The emulator builds poems from word lists: rhyme must come from final letters alone. Like the
    emulator's, one body carries a Tunisian adverb (برشا): a poem without any Derja evidence pays."""
    words_a = ["كتاب", "سحاب", "شباب", "باب", "غياب", "تراب", "ذهاب"]
    # three-word halves (not stubs), each body its own: one body with another rhyme word is a template
    firsts = ["قلت في قلبي", "شفت في المنام", "حكيت برشا لليل", "مشيت في الطريق", "سهرت مع النجوم",
              "بكيت على الفراق", "غنيت للحبيب"]  # fmt: skip
    seconds = ["وكتبت في الورقة", "وسمعت من بعيد", "وحلمت بالدار", "ونسيت الهموم", "وتفكرت الأيام",
               "ورجعت للحومة", "وضحكت مع الصحاب"]  # fmt: skip
    line = "{} {} ** {} {}"
    pairs = list(zip(words_a, reversed(words_a), strict=True))
    lines = [line.format(a, w, b, v) for a, b, (w, v) in zip(firsts, seconds, pairs, strict=True)]
    good = score("\n".join(lines), ref("qasida")).reward
    bad_lines = [*lines[:3], line.format(firsts[3], "سحاب", seconds[3], "قمر"),
                 line.format(firsts[4], "ريح", seconds[4], "شمس"), *lines[5:]]  # fmt: skip
    assert good > score("\n".join(bad_lines), ref("qasida")).reward
    assert good > 0.0


# --- catalogue ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("form", sorted(FORMS))
@pytest.mark.parametrize("language", LANGUAGES)
def test_instruction_wording_for_every_form_and_language(form: str, language: str) -> None:
    spec = FORMS[form]
    text = instruction(
        form, stanzas=spec.stanzas, refrain="yes", script="arabic", language=language, theme="البحر"
    )
    assert str(spec.stanzas) in text and "البحر" in text and spec.names[language] in text
    arabizi = instruction(form, script="arabizi", language=language)
    assert "3" in arabizi and "9" in arabizi


def test_instruction_refuses_unknown_things() -> None:
    with pytest.raises(ValueError):
        instruction("sonnet")
    with pytest.raises(ValueError):
        instruction("malzuma", language="xx")
    with pytest.raises(ValueError):
        instruction("malzuma", script="cyrillic")


def test_extract_text_shapes() -> None:
    assert extract_text("x") == "x"
    assert extract_text({"parts": [{"text": "a"}, {"text": "b", "thought": True}, {"text": "c"}]}) == "a\nc"
    assert extract_text([{"role": "user", "content": "q"}, {"role": "assistant", "content": "p"}]) == "p"
    assert extract_text({"parts": "nope"}) == ""
    assert extract_text(42) == ""


def test_parse_drops_prose_and_counts_it() -> None:
    poem = parse_poem("Here is your poem, which I wrote with great care for you today:\n\n" + MALZUMA)
    assert poem.prose_chars > 0
    assert len(poem.blocks) == 6


def test_the_prompts_that_ask_stanza_rhymes_to_change_are_the_strophic_wordings() -> None:
    """The distinct gate reads `rhymes_change` from the form: every strophic form's prompt asks a
    rhyme "that changes from stanza to stanza", the malzuma's only "ideally"."""
    for form in FORMS.values():
        wanted = "changes from stanza to stanza" in instruction(form.id, None, "no", "arabic", "en")
        assert form.rhymes_change == wanted, form.id
    assert {f.id for f in FORMS.values() if f.rhymes_change} == {
        "mugef",
        "muthallath",
        "mukhammas",
        "msaddes",
    }


def test_arabizi_and_and_article_written_apart_are_not_words_of_a_sentence() -> None:
    """A hemistich is prose when it holds more words than PROSE_WORDS_PER_HEMISTICH, counted as the
    Arabic script writes them: Arabizi's w and el written apart join the next word (والعيد)."""
    verse = "w 9bal el 3id to3jen el ma9roudh w tlemm el jiran mel 9rib wel b3id"  # 15 tokens, 10 words
    prose = "bech nod5el lel dar ba3d ma nkammel 5edmti kol youm fi sa3a tmanya m3a s7abi"  # 15 words
    assert len(verse.split()) == len(prose.split()) == PROSE_WORDS_PER_HEMISTICH + 1
    assert parse_poem(verse + "\nfel lil n7ebbek ya bledi").prose_chars == 0
    assert parse_poem(prose + "\nfel lil n7ebbek ya bledi").prose_chars == len(prose)


def test_reward_is_finite_for_odd_inputs() -> None:
    for text in ["*", "** ** **", "…" * 1000, "\u0640" * 500, "ا", "3" * 50, "\x00\x01", "a\n" * 5000]:
        for form in FORMS:
            r = score(text, ref(form)).reward
            assert math.isfinite(r) and -1.0 <= r <= 1.0


def test_every_factor_of_the_table_is_reported_and_their_product_is_what_the_quality_pays() -> None:
    """One table composes the reward (score.FACTORS): each factor appears in the sub-scores under its
    name, and a poem whose factors are all 1 is paid its form alone, while one factor under 1 lowers
    the quality by that factor (a title line: the frame factor)."""
    from scorer.score import FACTORS, NOT_THE_POEM_CAP

    poem = (SAMPLES / "malzuma.txt").read_text(encoding="utf-8")
    refs = {"form": "malzuma", "script": "arabic"}
    clean = score(poem, refs)
    assert {f.name for f in FACTORS} <= set(clean.subscores), clean.subscores
    assert all(clean.subscores[f.name] == 1.0 for f in FACTORS), clean.subscores
    titled = score("قصيدة الليل الطويل في تونس\n\n" + poem, refs)
    assert titled.subscores["frame"] <= NOT_THE_POEM_CAP and titled.reward <= 0.0, titled
    product = 1.0
    for f in FACTORS:
        product *= titled.subscores[f.name]
    assert product == pytest.approx(titled.subscores["quality"] / clean.subscores["quality"], abs=2e-3)


@pytest.mark.parametrize("form", ["qasida", "mugef"])
def test_stanzas_past_the_asked_count_are_lines_not_asked_for(form: str) -> None:
    """The prompt fixes the count: a poem one stanza (bayt) past it scores at most 0, two past it
    less, as added words do; the same poem asked for its own count keeps its reward."""
    poem = (SAMPLES / f"{form}.txt").read_text(encoding="utf-8")
    units = [b for b in poem.split("\n\n" if form == "mugef" else "\n") if b.strip()]
    refs = {"form": form, "script": "arabic"}
    own = score(poem, {**refs, "stanzas": str(len(units))})
    one = score(poem, {**refs, "stanzas": str(len(units) - 1)})
    two = score(poem, {**refs, "stanzas": str(len(units) - 2)})
    assert own.reward >= 0.8, own
    assert one.reward <= 0.0 and two.reward < one.reward, (one, two)
