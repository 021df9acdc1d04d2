"""Layout is not content (docs/scorer.md): every harmless layout of a genuine poem, alone or combined
with others, keeps the reward within 0.1 of the plain poem's.

The genuine corpus is every sample poem (``data/samples``, Arabic script and Arabizi) and every
genuine case of the red team's round 1. Each poem is read as stanzas of lines (a line may hold a
caesura), rewritten by line-level layouts (bullets, accents, tashkeel, a soft separator between
half-lines, a pause inside a half-line, a marked refrain), laid out (blank lines or none, an
asterism, stanza numbers, a stanza on one line), and framed (a title, a bismillah, a credit line,
CRLF, no-break spaces). Hypothesis draws the combinations.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

import pytest
from batches import each
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from sample_poems import Rewards, sample_poems

from scorer.catalogue import FORMS
from scorer.score import score

ROOT = Path(__file__).resolve().parent.parent
TOLERANCE = 0.1
_CAESURA = re.compile(r" \*\* | {3,}|\t")


def _corpus() -> list[tuple[str, str, dict[str, str]]]:
    """The sample poems and round 1's genuine ones, each in the asked layout (round 1 wrote some
    caesurae as a tab or three spaces: they are set as ` ** `, the layout the prompt names)."""
    out = sample_poems()
    for line in (ROOT / "tests" / "redteam_rounds" / "round1.jsonl").read_text(encoding="utf-8").splitlines():
        case = json.loads(line)
        if case["tier"] == "genuine":
            out.append((case["id"], case["text"], case["references"]))
    return [(name, _CAESURA.sub(" ** ", text), refs) for name, text, refs in out]


CORPUS = _corpus()
Blocks = list[list[str]]


def _blocks(text: str) -> Blocks:
    return [[ln.strip() for ln in b.split("\n") if ln.strip()] for b in text.strip().split("\n\n")]


def _refrains(blocks: Blocks) -> set[str]:
    """The lines sung again as the refrain: copies of the opening's first line or half-line."""
    first = blocks[0][0]
    return {first, _CAESURA.split(first)[0].strip()}


# --- line-level layouts: (blocks, script) -> blocks -----------------------------------------------------

LineLayout = Callable[[Blocks, str, dict[str, str]], Blocks]


def _each_line(fn: Callable[[str, int], str]) -> LineLayout:
    def apply(blocks: Blocks, _script: str, _refs: dict[str, str]) -> Blocks:
        n = 0
        out = []
        for b in blocks:
            nb = []
            for ln in b:
                n += 1
                nb.append(fn(ln, n))
            out.append(nb)
        return out

    return apply


def _soft(sep: str) -> LineLayout:
    """A softer separator between half-lines, on every line that has a caesura."""
    return _each_line(lambda ln, _n: _CAESURA.sub(sep, ln, count=1) if _CAESURA.search(ln) else ln)


def _pause(mark: str) -> LineLayout:
    """A pause (an ellipsis) after the second word of every half-line of four words or more."""

    def half(h: str) -> str:
        w = h.split()
        return " ".join([*w[:2], *([mark] if len(w) >= 4 else []), *w[2:]]).replace(f" {mark}", mark)

    def line(ln: str, _n: int) -> str:
        m = _CAESURA.search(ln)
        if not m:
            return half(ln)
        return half(ln[: m.start()]) + m.group() + half(ln[m.end() :])

    return _each_line(line)


def _accents(blocks: Blocks, script: str, _refs: dict[str, str]) -> Blocks:
    if script != "arabizi":
        return blocks
    acc = {"el": "él", "enti": "énti", "bled": "bléd", "ennes": "ennés", "ya": "yà"}
    return [[" ".join(acc.get(w, w) for w in ln.split(" ")) for ln in b] for b in blocks]


def _tashkeel(blocks: Blocks, script: str, _refs: dict[str, str]) -> Blocks:
    if script != "arabic":
        return blocks
    return [[re.sub(r"([بتدرسلمن])", "\\1\u064e", ln, count=3) for ln in b] for b in blocks]


def _letter_variants(blocks: Blocks, script: str, _refs: dict[str, str]) -> Blocks:
    if script != "arabic":
        return blocks

    def word(w: str) -> str:
        w = re.sub(r"^ا", "أ", w) if w.startswith("ان") or w.startswith("اح") else w
        return w[:-1] + "ى" if w.endswith("ي") and len(w) > 3 else w

    return [[" ".join(map(word, ln.split(" "))) for ln in b] for b in blocks]


def _bullets(mark: str) -> LineLayout:
    return _each_line(lambda ln, n: (f"{n}. " if mark == "n" else mark) + ln)


def _refrain_as(kind: str) -> LineLayout:
    """The malzuma's refrain lines marked: in bold, labelled, or sung as the opening's first half."""

    def apply(blocks: Blocks, _script: str, refs: dict[str, str]) -> Blocks:
        if refs.get("refrain") != "yes":
            return blocks
        refrains = _refrains(blocks)
        half = _CAESURA.split(blocks[0][0])[0].strip()
        if half == blocks[0][0]:
            words = half.split()
            half = " ".join(words[: max(2, (len(words) + 1) // 2)])

        def mark(ln: str) -> str:
            return {
                "bold": f"**{ln}**",
                "label_ar": f"اللازمة: {ln}",
                "label_paren": f"(Refrain) {ln}",
                "label_colon": f"Refrain: {ln}",
                "half": half,
                "paren": f"({ln})",
            }[kind]

        return [blocks[0]] + [[mark(ln) if ln in refrains else ln for ln in b] for b in blocks[1:]]

    return apply


LINE_LAYOUTS: dict[str, LineLayout] = {
    **{f"soft {sep!r}": _soft(sep) for sep in (" - ", " / ", ", ", "، ", " – ", " -- ", "  ")},
    # any separator run (scorer/caesura.py): a punctuation mark or symbol spaced apart (the hemistich
    # star U+066D, a double slash, a bullet, a colon, a tilde, a dingbat), or tatweel glued to both halves
    **{f"mark {sep!r}": _soft(sep) for sep in (" ٭ ", " // ", " • ", " : ", " ~ ", " ✿ ", " ★ ", "ـــــ")},
    **{f"pause {m}": _pause(m) for m in ("...", "…")},
    "accents": _accents,
    "tashkeel": _tashkeel,
    "alef and yaa variants": _letter_variants,
    **{f"bullets {m!r}": _bullets(m) for m in ("- ", "• ", "* ", "n")},
    **{
        f"refrain {k}": _refrain_as(k)
        for k in ("bold", "label_ar", "label_paren", "label_colon", "half", "paren")
    },
}

# --- the stanza layout: blocks -> text ------------------------------------------------------------------


def _render(kind: str) -> Callable[[Blocks, dict[str, str]], str]:
    def render(blocks: Blocks, refs: dict[str, str]) -> str:
        strophic = FORMS[refs["form"]].kind == "strophic"
        if kind == "table":  # a Markdown table, a bayt's halves in two columns under a header
            if strophic or not all(len(_CAESURA.split(ln)) == 2 for b in blocks for ln in b):
                return render_plain(blocks, refs)
            head = "| صدر | عجز |" if refs.get("script", "arabic") == "arabic" else "| sadr | 3ajz |"
            rows = [
                "| " + " | ".join(h.strip() for h in _CAESURA.split(ln)) + " |" for b in blocks for ln in b
            ]
            return "\n".join([head, "|---|---|", *rows])
        if kind == "hemistich lines":  # a bayt's halves each on a line of their own
            if strophic or not all(len(_CAESURA.split(ln)) == 2 for b in blocks for ln in b):
                return render_plain(blocks, refs)
            return "\n".join(h.strip() for b in blocks for ln in b for h in _CAESURA.split(ln))
        if kind == "plain" or not strophic:
            if kind == "spaced":
                return "\n\n".join("\n\n".join(b) for b in blocks)
            return "\n\n".join("\n".join(b) for b in blocks)
        if kind == "spaced":  # a blank line after every line, two between stanzas
            return "\n\n\n".join("\n\n".join(b) for b in blocks)
        if kind in ("⁂", "***", "* * *"):
            return f"\n\n{kind}\n\n".join("\n".join(b) for b in blocks)
        if kind == "numbered":
            return "\n\n".join(f"{i}.\n" + "\n".join(b) for i, b in enumerate(blocks, 1))
        if kind == "one line":  # each stanza on one line, its lines parted by ' / '
            return "\n\n".join(" / ".join(b) if len(b) >= 3 else "\n".join(b) for b in blocks)
        raise ValueError(kind)

    return render


render_plain = _render("plain")
RENDERS = {
    k: _render(k)
    for k in ("plain", "spaced", "⁂", "***", "* * *", "numbered", "one line", "table", "hemistich lines")
}

# --- the frame: text -> text -----------------------------------------------------------------------------


def _title(text: str, script: str) -> str:
    t = "يا بلادي يا ريحة الزيتون و الياسمين" if script == "arabic" else "ya bledi ya ri7et ezzitoun w yasmin"
    return f"{t}\n\n{text}"


FRAMES: dict[str, Callable[[str, str], str]] = {
    "title of seven words": _title,
    "markdown title": lambda t, s: "# " + ("الغربة" if s == "arabic" else "El ghorba") + "\n\n" + t,
    "bismillah": lambda t, _s: "بسم الله الرحمن الرحيم\n\n" + t,
    "credit line": lambda t, _s: t + "\n\n(شعر شعبي تونسي)",
    "credit line (latin)": lambda t, _s: t + "\n\n(Tunisian folk poem)",
    "title and credit line": lambda t, s: (
        ("الصبر\nبقلم: محمد" if s == "arabic" else "Sabr\n— Mohamed") + "\n\n" + t
    ),
    "credit: a closing word": lambda t, s: t + "\n\n" + ("تمّت" if s == "arabic" else "Fin."),
    "credit: place and date": lambda t, s: (
        t + "\n\n" + ("المهدية، صيف 2022" if s == "arabic" else "Sfax, 2023")
    ),
    "credit: a closing wish": lambda t, s: (
        t + "\n\n" + ("تحيا تونس" if s == "arabic" else "Hope you like it!")
    ),
    "credit: place and year in Arabic-Indic digits": lambda t, _s: t + "\n\nتونس، ٢٠٢٤",
    "credit: a long credit line": lambda t, _s: t + "\n\nكلمات: محمد الصغير بن علي، صفاقس، ربيع ٢٠٢٣",
    "title: a line introducing the poem": lambda t, s: (
        ("هاذي قصيدة كتبتها على قد ما طلبت:" if s == "arabic" else "Voici une qasida comme demandé :")
        + "\n\n"
        + t
    ),
    "CRLF": lambda t, _s: t.replace("\n", "\r\n"),
    "no-break spaces": lambda t, _s: t.replace(" ", "\u00a0"),
}


# --- what each change is, by the principle (docs/scorer.md): the reward pays for the asked format -----

SPELLING, LAYOUT, ADDED = "spelling", "layout", "added words"
"""The same poem spelled otherwise (normalisation folds it) stays within TOLERANCE; the same poem in
another layout scores at most the asked layout's reward; words that are not the poem make it <= 0."""
KIND = {
    **{k: LAYOUT for k in LINE_LAYOUTS if k.startswith(("soft", "mark", "bullets"))},
    **{k: SPELLING for k in LINE_LAYOUTS if k.startswith("pause")},
    "accents": SPELLING,
    "tashkeel": SPELLING,
    "alef and yaa variants": SPELLING,
    "refrain bold": LAYOUT,
    "refrain half": SPELLING,  # the refrain sung as the opening's first half: a form the poem may take
    "refrain paren": LAYOUT,  # brackets are layout: a line wholly in them is read, at LAYOUT_COST
    "refrain label_ar": ADDED,
    "refrain label_paren": ADDED,
    "refrain label_colon": ADDED,
    "plain": SPELLING,
    **{k: LAYOUT for k in ("spaced", "⁂", "***", "* * *", "numbered", "one line", "hemistich lines")},
    "table": ADDED,  # a Markdown table: its header row is words that are not the poem
    **{k: ADDED for k in FRAMES if k not in ("CRLF", "no-break spaces")},
    "CRLF": LAYOUT,
    "no-break spaces": LAYOUT,
}


def _reward(text: str, refs: dict[str, str]) -> float:
    return score({"parts": [{"text": text}]}, refs).reward


PLAIN = Rewards(CORPUS)


def _check(
    name: str, text: str, refs: dict[str, str], lines: list[str], render: str, frames: list[str]
) -> None:
    blocks = _blocks(text)
    script = refs.get("script", "arabic")
    kinds = set()  # of the changes that changed something (a refrain marking leaves a gsim as it is)
    for k in sorted(lines, key=lambda k: not k.startswith("pause")):  # a pause finds the caesura
        changed = LINE_LAYOUTS[k](blocks, script, refs)
        kinds |= {KIND[k]} if changed != blocks else set()
        blocks = changed
    out = RENDERS[render](blocks, refs)
    kinds |= {KIND[render]} if out != render_plain(blocks, refs) else set()
    for k in frames:
        framed = FRAMES[k](out, script)
        kinds |= {KIND[k]} if framed != out else set()
        out = framed
    got = _reward(out, refs)
    why = (name, lines, render, frames, PLAIN[name], got, out[:400])
    if ADDED in kinds:
        assert got <= 0.0, why
    elif LAYOUT in kinds:
        assert got <= PLAIN[name] + 1e-9, why
    else:
        assert abs(got - PLAIN[name]) <= TOLERANCE, why


def test_every_change_has_its_kind() -> None:
    assert set(KIND) == set(LINE_LAYOUTS) | set(RENDERS) | set(FRAMES)


@pytest.mark.parametrize("layout", sorted(LINE_LAYOUTS))
@each("poem", CORPUS)
def test_each_line_layout_keeps_its_tier(poem: tuple[str, str, dict[str, str]], layout: str) -> None:
    _check(*poem, [layout], "plain", [])


@pytest.mark.parametrize("render", sorted(RENDERS))
@each("poem", CORPUS)
def test_each_stanza_layout_keeps_its_tier(poem: tuple[str, str, dict[str, str]], render: str) -> None:
    _check(*poem, [], render, [])


@pytest.mark.parametrize("frame", sorted(FRAMES))
@each("poem", CORPUS)
def test_each_frame_is_words_that_are_not_the_poem(poem: tuple[str, str, dict[str, str]], frame: str) -> None:
    _check(*poem, [], "plain", [frame])


@settings(deadline=None, derandomize=True, max_examples=300)
@given(
    poem=st.sampled_from(CORPUS),
    lines=st.lists(st.sampled_from(sorted(LINE_LAYOUTS)), max_size=3, unique=True),
    render=st.sampled_from(sorted(RENDERS)),
    frames=st.lists(st.sampled_from(sorted(FRAMES)), max_size=3, unique=True),
)
def test_combined_layouts_keep_their_tier(
    poem: tuple[str, str, dict[str, str]], lines: list[str], render: str, frames: list[str]
) -> None:
    # one separator between half-lines and one bullet style at a time: they replace each other
    separators = sum(k.startswith(("soft", "mark")) for k in lines)
    assume(separators <= 1 and sum(k.startswith("bullets") for k in lines) <= 1)
    # one refrain marking, one title, one credit
    assume(sum(k.startswith("refrain") for k in lines) <= 1)
    assume(not any(sum(w in k for k in frames) > 1 for w in ("title", "credit")))
    _check(*poem, lines, render, frames)


# --- a form is complete or it pays ---------------------------------------------------------------------


def _units(text: str, form: str) -> tuple[list[str], list[str]]:
    """The poem as a head that stays (the malzuma's opening) and the units asked for by count:
    stanzas, or the bayts of the gsim and the qasida."""
    blocks = ["\n".join(b) for b in _blocks(text)]
    spec = FORMS[form]
    if spec.kind == "bayt":
        return [], [ln for b in blocks for ln in b.split("\n")]
    return (blocks[:1], blocks[1:]) if spec.opening else ([], blocks)


def _join(head: list[str], units: list[str], form: str) -> str:
    return ("\n" if FORMS[form].kind == "bayt" else "\n\n").join([*head, *units])


@each("poem", CORPUS)
def test_dropping_stanzas_never_raises_the_reward_and_half_pays(
    poem: tuple[str, str, dict[str, str]],
) -> None:
    name, text, refs = poem
    form = refs["form"]
    asked = int(refs.get("stanzas", FORMS[form].stanzas))
    head, units = _units(text, form)
    prev = PLAIN[name]
    for keep in range(len(units) - 1, 0, -1):
        r = _reward(_join(head, units[:keep], form), refs)
        assert r <= prev + 1e-9, (name, keep, prev, r)
        if 2 * keep <= asked:
            assert r <= 0.3, (name, keep, asked, r)
        prev = r


@each("poem", [c for c in CORPUS if c[2].get("refrain") == "yes"])
def test_an_asked_refrain_pays_for_every_stanza_without_it(poem: tuple[str, str, dict[str, str]]) -> None:
    """Missing once, an honest imperfection (0.2–0.9 and below the poem); missing everywhere, half
    the form (≤ 0.3)."""
    name, text, refs = poem
    blocks = _blocks(text)
    refrains = _refrains(blocks)
    carrying = [i for i, b in enumerate(blocks) if i and b[-1] in refrains]
    assert carrying, name
    once = [b[:-1] if i == carrying[1 if len(carrying) > 1 else 0] else b for i, b in enumerate(blocks)]
    never = [blocks[0]] + [[ln for ln in b if ln not in refrains] for b in blocks[1:]]
    r_once = _reward("\n\n".join("\n".join(b) for b in once), refs)
    r_never = _reward("\n\n".join("\n".join(b) for b in never), refs)
    assert 0.2 <= r_once <= min(0.9, PLAIN[name] - 0.02), (name, PLAIN[name], r_once)
    assert r_never <= 0.3, (name, r_never)


@each("poem", [c for c in CORPUS if c[2].get("refrain") == "yes"])
def test_a_refrain_of_the_opening_second_half_or_a_stub_is_the_refrain_left_out(
    poem: tuple[str, str, dict[str, str]],
) -> None:
    """The prompt asks the opening's first half-line, word for word, after every stanza: its second
    half sung instead (a traditional variant) or a two-word stub pays as much as a refrain left out
    everywhere, far less than the poem."""
    name, text, refs = poem
    blocks = _blocks(text)
    refrains = _refrains(blocks)
    halves = _CAESURA.split(blocks[0][0])
    second = halves[-1].strip() if len(halves) == 2 else blocks[0][1]
    stub = " ".join(second.split()[-2:])

    def sung(line: str) -> str:
        body = [[ln for ln in b if ln not in refrains] + [line] for b in blocks[1:]]
        return "\n\n".join("\n".join(b) for b in [blocks[0], *body])

    assert _reward(sung(second), refs) <= min(0.3, PLAIN[name] - 0.5), name
    assert _reward(sung(stub), refs) <= min(0.3, PLAIN[name] - 0.5), name


def test_an_arabizi_rhyme_word_is_one_word_with_the_article_assimilated() -> None:
    """ed-dar, eddar, wed-dar and dar are one rhyme word (īṭāʾ when it comes back); the article
    assimilates to sun letters only, so ammar (a name, m is a moon letter) is not mar."""
    from scorer.identity import rhyme_identity

    for words in (("ed-dar", "eddar", "wed-dar", "dar", "el-dar"), ("ech-chams", "chams"), ("ellil", "lil")):
        assert len({rhyme_identity(w) for w in words}) == 1, words
    assert rhyme_identity("ammar") != rhyme_identity("mar")
    assert rhyme_identity("el-bab") == rhyme_identity("bab")
    bayts = [
        "ya zitouna 9dima fi wost ed-dar ** ghrasek jeddi ki ken sghar",
        "3taitina zit w 3taitina dhell ** w 3ichna ta7tek fi wost {}",
        "ki yji ech-chta nlammou el 7abb ** w nghanniw m3a l'3ayla w el jar",
        "w ommi t3asser fil ma3sra ** w er-ri7a tfou7 fi kol {}",
        "ya zitouna ya 3omr ed-dar ** rabbi y5allik b3ezz w wa9ar",
    ]
    refs = {"form": "qasida", "script": "arabizi", "stanzas": "5"}
    fresh = score("\n".join(bayts).format("ed-dar", "nhar"), refs)
    reused = score("\n".join(bayts).format("ed-dar", "dar"), refs)
    assert fresh.subscores.get("p_ita", 0) == 0, fresh
    assert reused.subscores.get("p_ita", 0) > 0 and reused.reward < 1.0, (fresh, reused)


def test_arabizi_glide_rhymes_read_as_the_arabic_script_does() -> None:
    """-aya, -iya, -awa, -ouwa: the glide before the final vowel is the rawī in both scripts, so the
    same rhyme words rhyme alike (round 1's Arabizi muthallath on m3aya / 7kaya / dwaya / hwaya)."""
    from scorer.arabic import normalize_arabic, rhyme, rhyme_similarity

    pairs = [
        (("m3aya", "7kaya", "dwaya", "hwaya"), ("معايا", "حكاية", "دوايا", "هوايا")),
        (("3liya", "bniya", "3chiya"), ("عليّا", "بنيّة", "عشيّة")),
        (("9ahwa", "da3wa", "9ouwa"), ("قهوة", "دعوة", "قوّة")),
    ]
    for latin, arabic in pairs:
        for words in (latin, tuple(normalize_arabic(w) for w in arabic)):
            keys = [rhyme(w) for w in words]
            assert all(rhyme_similarity(keys[0], k) >= 0.7 for k in keys), words
        assert [rhyme(w)[1:3] for w in latin] == [rhyme(normalize_arabic(w))[1:3] for w in arabic], latin


# --- one honest flaw pays: a stanza a line short, a line off its stanza's rhyme ------------------------

FLAW_COST_REWARD = 0.1
"""What one flaw must cost at least (docs/scorer.md, "A form is complete or it pays")."""
IMPERFECT = (0.2, 0.9)
"""The red team's imperfect tier: an honest poem with one flaw is neither a pass nor a failure."""
OFF_RHYME = {
    "arabic": ("الشمس", "القلب", "البحر", "الطريق", "الورد"),
    "arabizi": ("chams", "9alb", "ba7r", "tri9", "ward"),
}
"""Real words to end a line with, each with its own rhyme: the first unrelated to the stanza's is used."""


def _stanza_at(blocks: Blocks, form: str) -> int:
    """A middle stanza (never the malzuma's opening, never the last, whose shortness is truncation)."""
    first = 1 if FORMS[form].opening else 0
    return max(first, (first + len(blocks) - 1) // 2)


def _a_line(stanza: list[str]) -> int:
    """A line in the stanza's own rhyme: the second (the first may be a genuine poem's loose one),
    or the first of a stanza written as two lines of two half-lines."""
    return 1 if len(stanza) >= 3 else 0


def _off_rhyme(line: str, script: str, others: list[str]) -> str:
    """``line`` ending on a real word whose rhyme is unrelated to every rhyme of ``others``."""
    from scorer.arabic import normalize_arabic, rhyme, rhyme_similarity
    from scorer.lexicon import is_arabic_word, is_arabizi_word

    def key(w: str) -> object:
        return rhyme(normalize_arabic(w) if script == "arabic" else w)

    keys = [key(o.split()[-1]) for o in others]
    for word in OFF_RHYME[script]:
        if all(rhyme_similarity(key(word), k) == 0.0 for k in keys):
            assert (is_arabic_word if script == "arabic" else is_arabizi_word)(normalize_arabic(word)), word
            return " ".join([*line.split()[:-1], word])
    raise AssertionError(("no unrelated rhyme word", line))


STROPHIC = [c for c in CORPUS if FORMS[c[2]["form"]].kind == "strophic"]


def _assert_one_flaw(name: str, flawed: Blocks, refs: dict[str, str]) -> float:
    r = _reward("\n\n".join("\n".join(b) for b in flawed), refs)
    lo, hi = IMPERFECT
    assert lo <= r <= min(hi, PLAIN[name] - FLAW_COST_REWARD), (name, PLAIN[name], r)
    return r


@each("poem", STROPHIC)
def test_a_stanza_one_line_short_pays(poem: tuple[str, str, dict[str, str]]) -> None:
    name, text, refs = poem
    blocks = _blocks(text)
    i = _stanza_at(blocks, refs["form"])
    _assert_one_flaw(
        name,
        [[ln for k, ln in enumerate(b) if j != i or k != _a_line(b)] for j, b in enumerate(blocks)],
        refs,
    )


@each("poem", STROPHIC)
def test_a_line_off_its_stanza_rhyme_pays_per_line(poem: tuple[str, str, dict[str, str]]) -> None:
    """One a-line ending off its stanza's rhyme is an imperfection; a second, in another stanza,
    costs as much again: the rule counts flaws, it does not recognise a case."""
    name, text, refs = poem
    script = refs.get("script", "arabic")
    blocks = _blocks(text)
    i = _stanza_at(blocks, refs["form"])

    def broken(bs: Blocks, j: int) -> Blocks:
        stanza = bs[j]
        return [
            [_off_rhyme(ln, script, stanza) if n == _a_line(stanza) else ln for n, ln in enumerate(stanza)]
            if k == j
            else b
            for k, b in enumerate(bs)
        ]

    once = broken(blocks, i)
    r1 = _assert_one_flaw(name, once, refs)
    twice = broken(once, i - 1 if i - 1 >= (1 if FORMS[refs["form"]].opening else 0) else i + 1)
    r2 = _reward("\n\n".join("\n".join(b) for b in twice), refs)
    assert r2 <= r1 - FLAW_COST_REWARD, (name, r1, r2)


@each("poem", [c for c in CORPUS if c[2]["form"] == "gsim"])
def test_a_gsim_first_half_off_its_rhyme_pays(poem: tuple[str, str, dict[str, str]]) -> None:
    """The gsim's first halves share a rhyme as a stanza's lines do: one off it is a flaw."""
    name, text, refs = poem
    script = refs.get("script", "arabic")
    lines = [ln for b in _blocks(text) for ln in b]
    halves = [_CAESURA.split(ln, maxsplit=1) for ln in lines]
    assert all(len(h) == 2 for h in halves), name
    sep = _CAESURA.search(lines[2])
    assert sep, name
    off = _off_rhyme(halves[2][0], script, [h[0] for h in halves])
    flawed = [*lines[:2], off.strip() + sep.group() + halves[2][1].strip(), *lines[3:]]
    _assert_one_flaw(name, [flawed], refs)
