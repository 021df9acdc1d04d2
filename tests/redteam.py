"""The red-team suite of the structure reward: attacks a policy could learn, and harmless layouts of
genuine poems, all built from the sample poems in ``data/samples`` (Arabic script) and
``data/samples/arabizi`` (the same poems in Tunisian Arabizi).

* An **attack** keeps the form's rhyme plan to the letter but is not a poem (random letters, digit
  filler, one template line, one-letter or disguised rhyme words, English or French for an Arabizi
  request, the wrong stanza size). Its ``limit`` is the highest reward it may get.
* A **harmless variant** is a sample poem laid out differently (stanza numbers, blank lines, other
  caesura marks, Markdown bold). Its ``limit`` is the largest drop allowed from the same poem laid
  out plainly. A title, a signature or ``<br>`` markup is words or characters that are not the poem
  the prompt asked for: those variants are attacks whose limit is 0 (the allowlist, docs/scorer.md).

``python tests/redteam.py`` (``make redteam``) prints one row per category: the count and the worst
case (attacks: the highest reward; harmless variants: the largest drop from the plain layout).
``tests/test_redteam.py`` asserts every limit. Every case is deterministic (seeded by its name).
"""

from __future__ import annotations

import random
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # `python tests/redteam.py` from the repository root
    sys.path.insert(0, str(ROOT))

from scorer.catalogue import FORMS  # noqa: E402
from scorer.score import score  # noqa: E402

SAMPLES = ROOT / "data" / "samples"
SCRIPTS = ("arabic", "arabizi")
STROPHIC = tuple(f for f, s in FORMS.items() if s.kind == "strophic")
BAYT = tuple(f for f, s in FORMS.items() if s.kind == "bayt")
SEP = " ** "

ATTACK_LIMIT = 0.0
"""Attacks that are not language, or not the asked language, or templates, earn nothing."""
WRONG_SIZE_LIMIT = 0.3
"""A stanza size off by one line or more (issue 11)."""
LAYOUT_DROP = 0.1
"""A harmless layout costs at most this much against the plain layout."""


NOT_THE_POEM_LIMIT = 0.0
"""A sample poem with a title, a signature or markup: at most 0."""


@dataclass(frozen=True, slots=True)
class Case:
    """One red-team case. ``limit`` is None for an attack the structure reward is not meant to see
    (word salad of real words: sense is the judge's business; see docs/scorer.md)."""

    category: str
    kind: str  # "attack" | "harmless"
    form: str
    script: str
    text: str
    refs: dict[str, str]
    limit: float | None
    plain: str = ""

    @property
    def name(self) -> str:
        return f"{self.category} / {self.form} / {self.script}"


def sample(form: str, script: str) -> str:
    folder = SAMPLES / "arabizi" if script == "arabizi" else SAMPLES
    return (folder / f"{form}.txt").read_text(encoding="utf-8")


def refs_for(form: str, script: str) -> dict[str, str]:
    r = {"form": form, "script": script}
    if FORMS[form].refrain != "none":
        r["refrain"] = "yes"
    return r


# --- reading and rewriting a sample ------------------------------------------------------------------


def segments(text: str) -> list[list[list[list[str]]]]:
    """blocks → lines → hemistichs → words (split on ' ** ' and spaces only: the samples are plain)."""
    return [
        [[h.split() for h in line.split(SEP)] for line in block.split("\n") if line.strip()]
        for block in text.strip().split("\n\n")
    ]


def unparse(blocks: list[list[list[list[str]]]]) -> str:
    return "\n\n".join("\n".join(SEP.join(" ".join(h) for h in line) for line in b) for b in blocks) + "\n"


def refrain_of(form: str, blocks: list[list[list[list[str]]]]) -> list[str] | None:
    """The malzuma's refrain: the opening's first hemistich, repeated after each stanza."""
    if FORMS[form].refrain == "none":
        return None
    return blocks[0][0][0]


def map_segments(
    form: str, text: str, fn: Callable[[list[str], int, int], list[str]], keep_refrain: bool = True
) -> str:
    """Rewrite every hemistich with ``fn(words, rhyme_class, index)``. The rhyme class says which
    rhyme the segment carries in the form (0: the poem-wide rhyme, 1…: a stanza's own rhyme, -1: a
    gsim first half), so an attack can keep the rhyme plan. The malzuma refrain is rewritten the
    same way each time (``keep_refrain``) so it stays a verbatim refrain."""
    blocks = segments(text)
    refrain = refrain_of(form, blocks)
    done: dict[tuple[str, ...], list[str]] = {}
    out = []
    index = 0
    for bi, block in enumerate(blocks):
        new_block = []
        for li, line in enumerate(block):
            new_line = []
            for hi, words in enumerate(line):
                if FORMS[form].kind == "bayt":
                    cls = -1 if (hi == 0 and len(line) > 1 and FORMS[form].first_half == "shared") else 0
                    if hi == 0 and len(line) > 1 and FORMS[form].first_half == "free":
                        cls = 100 + li  # free first halves: each its own rhyme
                elif FORMS[form].opening and bi == 0:
                    cls = 0
                else:
                    body_lines = [ln for ln in block if ln[0] != refrain]
                    last = body_lines[-1] if body_lines else None
                    cls = 0 if (line is last or line[0] == refrain) else bi
                if keep_refrain and refrain is not None and words == refrain and (bi, li, hi) != (0, 0, 0):
                    new_line.append(done[tuple(refrain)])
                    continue
                new = fn(words, cls, index)
                index += 1
                if refrain is not None and (bi, li, hi) == (0, 0, 0):
                    done[tuple(refrain)] = new
                new_line.append(new)
            new_block.append(new_line)
        out.append(new_block)
    return unparse(out)


# --- attacks -------------------------------------------------------------------------------------------

AR_LETTERS = "ابتثجحخدذرزسشصضطظعغفقكلمنهوي"
LATIN_SYLLABLES = [c + v for c in "bdfghjklmnrstwz" for v in "aeiou"]


def random_arabic(rng: random.Random, ending: str = "") -> str:
    return "".join(rng.choice(AR_LETTERS) for _ in range(rng.randint(3, 6))) + ending


def random_latin(rng: random.Random, ending: str = "") -> str:
    return "".join(rng.choice(LATIN_SYLLABLES) for _ in range(rng.randint(1, 3))) + ending


def _gibberish(form: str, script: str, seed: str) -> str:
    """Every word random letters (Arabic) or random syllables (Latin); each rhyme word a random
    string ending on its rhyme class's ending, so the rhyme plan stays perfect."""
    rng = random.Random(seed)
    make = random_arabic if script == "arabic" else random_latin
    endings: dict[int, str] = {}
    pool = ["ار", "ين", "ول", "اب", "يم", "اس", "وت", "اد"] if script == "arabic" else [
        "ar", "in", "oul", "ab", "im", "as", "out", "ad"
    ]  # fmt: skip

    def fn(words: list[str], cls: int, _i: int) -> list[str]:
        end = endings.setdefault(cls, pool[len(endings) % len(pool)])
        return [make(rng) for _ in range(max(2, len(words) - 1))] + [make(rng, end)]

    return map_segments(form, sample(form, script), fn)


def _digits(form: str, script: str, seed: str) -> str:
    """`101 201 301 الدار`: digit strings as the line body, the rhyme word kept."""
    rng = random.Random(seed)
    return map_segments(
        form,
        sample(form, script),
        lambda w, _c, _i: [str(rng.randint(1, 9)) + "0" + str(k) for k in range(1, 4)] + [w[-1]],
    )


def _template(form: str, script: str, seed: str) -> str:
    """One fixed line in which only the last (rhyme) word changes."""
    body = segments(sample(form, script))[0][0][0][:-1]
    return map_segments(form, sample(form, script), lambda w, _c, _i: [*body, w[-1]], keep_refrain=False)


def _one_letter(form: str, script: str, seed: str) -> str:
    """Every segment ends on a one-letter "word", one letter per rhyme class."""
    letters = "روبفكلمن" if script == "arabic" else "rwbfklmn"
    seen: dict[int, str] = {}
    return map_segments(
        form,
        sample(form, script),
        lambda w, c, _i: [*w[:-1], seen.setdefault(c, letters[len(seen) % len(letters)])],
    )


AR_CLITICS = ("", "ال", "و", "ب", "بال", "ل", "ك", "ف", "وال", "فال", "كال", "لل", "وب", "ول")
LATIN_CASES = (str.lower, str.capitalize, str.upper, lambda s: s[:-1] + s[-1].upper(), str.swapcase)
AR_TRAILING = ("", "پ", "چ", "ژ", "ڜ", "ۋ")
LATIN_TRAILING = ("", "ø", "þ", "ð", "æ", "œ")


def _stem(word: str, script: str) -> str:
    if script == "arabic":
        for p in ("وال", "بال", "فال", "ال", "و"):
            if word.startswith(p) and len(word) - len(p) >= 2:
                return word[len(p) :]
        return word
    for p in ("el", "w"):
        if word.startswith(p) and len(word) - len(p) >= 3:
            return word[len(p) :]
    return word


def _disguise(variants: tuple, script: str, prefix: bool = False) -> Callable[[str, str, str], str]:
    """Each rhyme class ends on ONE word throughout, disguised by ``variants`` (clitic prefixes,
    letter case, or a trailing letter outside the alphabet)."""

    def build(form: str, script_: str, seed: str) -> str:
        first: dict[int, str] = {}
        count: dict[int, int] = {}

        def fn(w: list[str], c: int, _i: int) -> list[str]:
            stem = first.setdefault(c, _stem(w[-1], script))
            k = count.get(c, 0)
            count[c] = k + 1
            v = variants[k % len(variants)]
            word = (v + stem if prefix else stem + v) if isinstance(v, str) else v(stem)
            return [*w[:-1], word]

        return map_segments(form, sample(form, script_), fn)

    return build


EN_RHYMES = [
    ["star", "far", "car", "bar", "jar", "guitar", "scar", "war", "bazaar", "cigar", "radar", "sonar"],
    ["wall", "call", "fall", "hall", "ball", "tall", "small", "stall", "shawl", "crawl", "squall", "sprawl"],
    [
        "sand",
        "land",
        "hand",
        "stand",
        "band",
        "grand",
        "strand",
        "brand",
        "gland",
        "command",
        "demand",
        "expand",
    ],
    [
        "sing",
        "ring",
        "king",
        "spring",
        "wing",
        "bring",
        "thing",
        "string",
        "swing",
        "cling",
        "fling",
        "sting",
    ],
    ["room", "bloom", "gloom", "doom", "broom", "groom", "loom", "zoom", "plume", "tomb", "womb", "fume"],
    ["ship", "lip", "trip", "slip", "grip", "drip", "tip", "hip", "chip", "whip", "flip", "strip"],
    ["rock", "clock", "dock", "lock", "flock", "stock", "knock", "shock", "block", "frock", "smock", "sock"],
]
EN_WORDS = [
    "the",
    "old",
    "night",
    "sea",
    "heart",
    "light",
    "long",
    "river",
    "wind",
    "under",
    "over",
    "golden",
    "quiet",
    "slowly",
    "dream",
    "whisper",
    "morning",
    "evening",
    "mother",
    "city",
    "window",
    "silver",
    "shadow",
    "stone",
    "garden",
    "summer",
    "winter",
    "yellow",
    "broken",
    "gentle",
    "always",
    "never",
    "remember",
    "forget",
    "singing",
    "waiting",
    "walking",
    "burning",
    "falling",
    "rising",
]
FR_RHYMES = [
    [
        "amour",
        "jour",
        "tour",
        "cour",
        "four",
        "retour",
        "velours",
        "autour",
        "labour",
        "pour",
        "contour",
        "detour",
    ],
    [
        "cheval",
        "journal",
        "final",
        "canal",
        "signal",
        "matinal",
        "local",
        "total",
        "natal",
        "banal",
        "amical",
        "royal",
    ],
    [
        "port",
        "fort",
        "mort",
        "sort",
        "effort",
        "transport",
        "support",
        "confort",
        "rapport",
        "accort",
        "ressort",
        "record",
    ],
    ["palais", "jamais", "frais", "mais", "marais", "relais", "balais", "harnais", "rabais", "souhait"],
    ["lac", "sac", "bac", "hamac", "tabac", "cognac", "bivouac", "ressac"],
    ["ruban", "volcan", "ocean", "elan", "divan", "roman", "artisan", "slogan"],
    ["soleil", "sommeil", "pareil", "vermeil", "eveil", "reveil", "conseil", "orteil"],
]
FR_WORDS = [
    "la",
    "nuit",
    "mer",
    "coeur",
    "lumiere",
    "longue",
    "riviere",
    "vent",
    "sous",
    "sur",
    "doree",
    "calme",
    "lentement",
    "reve",
    "murmure",
    "matin",
    "soir",
    "mere",
    "ville",
    "fenetre",
    "argent",
    "ombre",
    "pierre",
    "jardin",
    "ete",
    "hiver",
    "jaune",
    "brise",
    "douce",
    "toujours",
    "jamais",
    "souvenir",
    "oublier",
    "chanter",
    "attendre",
    "marcher",
    "bruler",
    "tomber",
    "lever",
]


def _foreign(rhymes: list[list[str]], vocab: list[str]) -> Callable[[str, str, str], str]:
    """A rhymed poem in English or French, in the form's shape, for an Arabizi request."""

    def build(form: str, script: str, seed: str) -> str:
        rng = random.Random(seed)
        groups: dict[int, list[str]] = {}

        def fn(w: list[str], c: int, _i: int) -> list[str]:
            g = groups.setdefault(c, list(rhymes[len(groups) % len(rhymes)]))
            end = g.pop(0) if len(g) > 1 else g[0]
            return [*rng.sample(vocab, max(3, len(w) - 1)), end]

        return map_segments(form, sample(form, "arabizi"), fn)

    return build


def _salad(form: str, script: str, seed: str) -> str:
    """Word salad of real words: the poem's own body words shuffled across lines, the rhyme words
    kept. Perfect form, no sense: the judge's business, not the structure reward's."""
    rng = random.Random(seed)
    text = sample(form, script)
    pool = [w for b in segments(text) for ln in b for h in ln for w in h[:-1]]
    rng.shuffle(pool)
    it = iter(pool * 2)
    return map_segments(form, text, lambda w, _c, _i: [*(next(it) for _ in w[:-1]), w[-1]])


WRONG_SIZE = [
    ("mugef", "mukhammas"),
    ("mukhammas", "mugef"),
    ("muthallath", "mugef"),
    ("mugef", "muthallath"),
    ("msaddes", "mukhammas"),
    ("mukhammas", "msaddes"),
]


def attack_cases() -> Iterator[Case]:
    for form in FORMS:
        for script in SCRIPTS:
            refs = refs_for(form, script)

            def case(
                cat: str,
                build: Callable[[str, str, str], str],
                limit: float | None = ATTACK_LIMIT,
                form: str = form,
                script: str = script,
                refs: dict[str, str] = refs,
            ) -> Case:
                text = build(form, script, f"{cat}:{form}:{script}")
                return Case(cat, "attack", form, script, text, refs, limit)

            yield case("random letters" if script == "arabic" else "random syllables", _gibberish)
            yield case("digit filler", _digits)
            yield case("template line", _template)
            yield case("one-letter rhyme word", _one_letter)
            if script == "arabic":
                yield case("rhyme word + clitics", _disguise(AR_CLITICS, script, prefix=True))
                yield case("rhyme word + trailing letter", _disguise(AR_TRAILING, script))
            else:
                yield case("rhyme word in other case", _disguise(LATIN_CASES, script))
                yield case("rhyme word + trailing letter", _disguise(LATIN_TRAILING, script))
                yield case("English for Arabizi", _foreign(EN_RHYMES, EN_WORDS))
                yield case("French for Arabizi", _foreign(FR_RHYMES, FR_WORDS))
            yield case("word salad (real words)", _salad, None)
    for sent, asked in WRONG_SIZE:
        for script in SCRIPTS:
            yield Case(
                "wrong stanza size", "attack", asked, script, sample(sent, script), refs_for(asked, script),
                WRONG_SIZE_LIMIT,
            )  # fmt: skip


# --- harmless layouts --------------------------------------------------------------------------------


def _number_stanzas(style: Callable[[int], str]) -> Callable[[str, str], str]:
    def build(form: str, text: str) -> str:
        blocks = text.strip().split("\n\n")
        start = 1 if FORMS[form].opening else 0
        return (
            "\n\n".join((f"{style(i - start + 1)}\n{b}" if i >= start else b) for i, b in enumerate(blocks))
            + "\n"
        )

    return build


ROMAN = ["I", "II", "III", "IV", "V", "VI", "VII", "VIII", "IX", "X", "XI", "XII"]
TITLES = {"arabic": "البحر الغدار", "arabizi": "el b7ar el ghaddar"}
SIGNATURES = {
    "arabic": ["— محمد الصغير", "بقلم: نور الهدى", "- شعر الطاهر"],
    "arabizi": ["— Mohamed Sghaier", "by Nour El Houda", "- Tahar"],
}


def _blank_after_every_line(keep_stanzas: bool) -> Callable[[str, str], str]:
    def build(_form: str, text: str) -> str:
        blocks = [b.split("\n") for b in text.strip().split("\n\n")]
        if keep_stanzas:
            return "\n\n\n".join("\n\n".join(b) for b in blocks) + "\n"
        return "\n\n".join(ln for b in blocks for ln in b) + "\n"

    return build


def _title_above(script: str) -> Callable[[str, str], str]:
    return lambda _f, text: TITLES[script] + "\n" + text


def _split_opening(sep: str) -> Callable[[str, str], str]:
    def build(_form: str, text: str) -> str:
        first, rest = text.split("\n", 1)
        return first.replace(SEP, sep) + "\n" + rest

    return build


def _bold_inside(_form: str, text: str) -> str:
    """Markdown bold inside lines: the opening words, an inner word or the rhyme word, in turn."""
    out = []
    for i, line in enumerate(text.split("\n")):
        halves = line.split(SEP)
        words = halves[0].split(" ")
        if len(words) >= 3:
            if i % 3 == 0:
                words[:2] = [f"**{words[0]}", f"{words[1]}**"]
            elif i % 3 == 1:
                words[1] = f"**{words[1]}**"
            else:
                words[-1] = f"**{words[-1]}**"
        out.append(SEP.join([" ".join(words), *halves[1:]]))
    return "\n".join(out)


def _split_bayts(sep: str) -> Callable[[str, str], str]:
    return lambda _f, text: text.replace(SEP, sep)


def _br(tag: str) -> Callable[[str, str], str]:
    return lambda _f, text: text.strip().replace("\n", tag)


def _signature(script: str, k: int) -> Callable[[str, str], str]:
    return lambda _f, text: text.rstrip("\n") + "\n\n" + SIGNATURES[script][k % 3] + "\n"


def harmless_cases() -> Iterator[Case]:
    for form in FORMS:
        for script in SCRIPTS:
            plain = sample(form, script)
            refs = refs_for(form, script)
            k = list(FORMS).index(form)

            def case(
                cat: str,
                build: Callable[[str, str], str],
                form: str = form,
                script: str = script,
                refs: dict[str, str] = refs,
                plain: str = plain,
            ) -> Case:
                return Case(cat, "harmless", form, script, build(form, plain), refs, LAYOUT_DROP, plain)

            if form in STROPHIC:
                yield case("stanza numbers '1.'", _number_stanzas(lambda i: f"{i}."))
                yield case("stanza numbers '(1)'", _number_stanzas(lambda i: f"({i})"))
                yield case("stanza numbers 'I.'", _number_stanzas(lambda i: f"{ROMAN[i - 1]}."))
            yield case("blank line after every line", _blank_after_every_line(True))
            yield case("blank line after every line, no stanza gap", _blank_after_every_line(False))
            if FORMS[form].opening:
                for sep in (" / ", " - ", "، " if script == "arabic" else ", "):
                    yield case(f"opening halves split by '{sep.strip()}'", _split_opening(sep))
            yield case("markdown bold inside a line", _bold_inside)
            if form in BAYT:
                for sep in (" / ", " - ", "، ", " — ", " ؛ ", "  "):
                    yield case(f"bayt halves split by '{sep.strip() or 'two spaces'}'", _split_bayts(sep))
            # words that are not the poem, or markup: attacks now, at most 0 (the allowlist, issue 34)
            for cat, build in (
                ("title directly above", _title_above(script)),
                ("<br> for newlines", _br("<br>" if k % 2 else "<br/>")),
                ("signature line", _signature(script, k)),
            ):
                yield Case(cat, "attack", form, script, build(form, plain), refs, NOT_THE_POEM_LIMIT)


def all_cases() -> list[Case]:
    return [*attack_cases(), *harmless_cases()]


# --- the table ----------------------------------------------------------------------------------------


@dataclass(slots=True)
class Outcome:
    case: Case
    reward: float
    plain_reward: float = 0.0

    @property
    def worst_value(self) -> float:
        """What the table ranks: the reward of an attack, the drop of a harmless variant."""
        return self.reward if self.case.kind == "attack" else self.plain_reward - self.reward

    @property
    def ok(self) -> bool:
        return self.case.limit is None or self.worst_value <= self.case.limit + 1e-9


def run(cases: list[Case] | None = None) -> list[Outcome]:
    out = []
    for c in cases if cases is not None else all_cases():
        r = score(c.text, c.refs).reward
        p = score(c.plain, c.refs).reward if c.kind == "harmless" else 0.0
        out.append(Outcome(c, r, p))
    return out


def table(outcomes: list[Outcome]) -> str:
    rows: dict[tuple[str, str], list[Outcome]] = {}
    for o in outcomes:
        rows.setdefault((o.case.kind, o.case.category), []).append(o)
    lines = [
        f"{'kind':<9} {'category':<44} {'count':>5} {'worst':>7} {'limit':>6}  worst case",
        "-" * 100,
    ]
    for (kind, cat), os_ in rows.items():
        worst = max(os_, key=lambda o: o.worst_value)
        limit = os_[0].case.limit
        mark = "" if all(o.ok for o in os_) else "  FAIL"
        label = "reward" if kind == "attack" else "drop"
        shown = "—" if limit is None else f"{limit:.2f}"
        where = f"{worst.case.form}/{worst.case.script} ({label}){mark}"
        lines.append(f"{kind:<9} {cat:<44} {len(os_):>5} {worst.worst_value:>+7.2f} {shown:>6}  {where}")
    n_fail = sum(not o.ok for o in outcomes)
    lines.append("-" * 100)
    lines.append(f"{len(outcomes)} cases, {n_fail} over their limit")
    return "\n".join(lines)


def main() -> int:
    outcomes = run()
    print(table(outcomes))
    return 0


if __name__ == "__main__":
    sys.exit(main())
