"""A simulated policy that writes malzuma-like Tunisian poems and gets better as it trains.

No model is involved: poems are assembled from word lists grouped by rhyme letter. A poem's
*quality* is the probability that a line end keeps the rhyme the form asks for, and it rises with
the training step, so the rewards (and the curves built from them) rise the way an honest run's do.
The *hacking* policy instead learns to repeat one rhyme word at every line end and to paste the
refrain after every line: a naive structure reward loves that, the stand-in judge does not.

Shape (malzuma): an opening bayt `h1 ** h2`, both halves on rhyme A; stanzas of three lines on their
own rhyme plus one line back on A; after each stanza the refrain (h1, the opening's first half).
"""

from __future__ import annotations

import itertools
import random
from dataclasses import dataclass

RHYMES: dict[str, list[str]] = {
    "ر": ["الدار", "النار", "البحر", "القمر", "السهر", "الخبر", "الشجر", "المطر", "الصبر", "النظر", "العمر"],
    "ل": ["الجبل", "الأمل", "الغزال", "الجمال", "الليل", "الدليل", "الخيال", "الرجال", "الحال", "السؤال"],
    "ن": ["الزمان", "المكان", "الحنين", "العين", "السنين", "حزين", "البستان", "الألوان", "الإنسان", "الوطن"],
    "م": ["الحلم", "القلم", "النغم", "الألم", "الكرم", "العلم", "السلام", "الغرام", "الكلام", "الأيام"],
    "د": ["البلاد", "الورد", "الوعد", "المجد", "السعد", "بعيد", "جديد", "العيد", "النشيد", "الوداد"],
    "ب": ["القلب", "الحب", "الدرب", "الذهب", "العتاب", "الأحباب", "الباب", "السحاب", "الشباب", "الغياب"],
    "ع": ["الربيع", "بديع", "الدموع", "الشموع", "الضياع", "الوداع", "جميع", "الطلوع", "سريع", "رفيع"],
    "ق": ["الشوق", "العشق", "البرق", "الطريق", "الصديق", "الرفيق", "عميق", "الأفق", "الحريق", "بريق"],
}
FILLERS = [
    "يا",
    "في",
    "على",
    "من",
    "قلبي",
    "نحكيلك",
    "برشا",
    "توا",
    "هاك",
    "بلادي",
    "خويا",
    "عيني",
    "والله",
    "ما",
    "زين",
    "خاطري",
    "نمشي",
    "نستنى",
    "بين",
    "مع",
    "ريح",
    "ضي",
    "صوت",
    "كيف",
]
LETTERS = list(RHYMES)


def _line(rng: random.Random, end_word: str, words: int | None = None, babble: str | None = None) -> str:
    n = words if words is not None else rng.randint(3, 5)
    body = [babble] * n if babble else rng.sample(FILLERS, n)
    return " ".join([*body, end_word])


@dataclass
class Poem:
    """A generated response: the poem, the model's thinking, and token counts for the metrics."""

    text: str
    thought: str
    hacked: bool
    quality: float

    @property
    def output_tokens(self) -> int:
        return max(1, len(self.text) // 3)

    @property
    def thinking_tokens(self) -> int:
        return max(0, len(self.thought) // 3)

    def content(self, include_thought: bool = True) -> dict:
        """The poem as a Vertex `Content` (thought part first, as Gemini returns it)."""
        parts: list[dict] = []
        if include_thought and self.thought:
            parts.append({"text": self.thought, "thought": True})
        parts.append({"text": self.text})
        return {"role": "model", "parts": parts}


def quality_at(progress: float, scenario: str) -> float:
    """Probability that a line end keeps its required rhyme, at `progress` in [0, 1] of the run."""
    progress = min(max(progress, 0.0), 1.0)
    if scenario == "hacking":
        return 0.35 + 0.15 * progress
    return 0.35 + 0.6 * progress


def hack_probability(progress: float, scenario: str) -> float:
    """Share of samples that take the degenerate shortcut; zero for an honest policy."""
    if scenario != "hacking":
        return 0.0
    return min(0.95, 0.1 + 0.9 * progress)


def generate(
    rng: random.Random,
    progress: float,
    scenario: str = "honest",
    stanzas: int = 5,
    thinking: str = "HIGH",
) -> Poem:
    """One sampled response from the policy at `progress` (0 = base model, 1 = end of the run)."""
    q = quality_at(progress, scenario)
    stanzas = min(max(stanzas, 1), 8)
    letters = rng.sample(LETTERS, min(len(LETTERS), stanzas + 1))
    a = letters[0]
    if rng.random() < hack_probability(progress, scenario):
        # Two shortcuts: rhyme-perfect babble (passes a rhyme-topology check) or one rhyme word
        # everywhere with the refrain pasted between lines (passes only a naive one).
        if rng.random() < 0.7:
            text = _honest(rng, 1.0, letters, stanzas, babble=rng.choice(FILLERS))
        else:
            text = _hacked(rng, a, stanzas)
        hacked = True
    else:
        text = _honest(rng, q, letters, stanzas)
        hacked = False
    think_words = {"MINIMAL": 0, "LOW": 20, "MEDIUM": 60}.get(thinking, 120)
    think_words = int(think_words * (1.0 - 0.3 * progress))
    thought = " ".join(rng.choice(FILLERS) for _ in range(think_words))
    return Poem(text=text, thought=thought, hacked=hacked, quality=q)


def _end(rng: random.Random, q: float, letter: str, used: set[str]) -> str:
    """A line-end word that keeps `letter` with probability q, never reusing a word when it can."""
    if rng.random() >= q:
        letter = rng.choice([x for x in LETTERS if x != letter])
    choices = [w for w in RHYMES[letter] if w not in used] or RHYMES[letter]
    word = rng.choice(choices)
    used.add(word)
    return word


def _honest(rng: random.Random, q: float, letters: list[str], stanzas: int, babble: str | None = None) -> str:
    """Opening bayt `h1 ** h2` on A, stanzas `bbb A` each closed by the refrain h1.

    With `babble`, every line body is that one word repeated: rhyme-perfect gibberish.
    """
    a = letters[0]
    used: set[str] = set()
    first_half = _line(rng, _end(rng, 1.0, a, used), 3, babble)
    blocks = [f"{first_half} ** {_line(rng, _end(rng, q, a, used), None, babble)}"]
    for i in range(stanzas):
        own = letters[1 + i % (len(letters) - 1)]
        lines = [_line(rng, _end(rng, q, own, used), None, babble) for _ in range(3)]
        lines.append(_line(rng, _end(rng, q, a, used), None, babble))
        lines.append(first_half)
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks)


def _hacked(rng: random.Random, a: str, stanzas: int) -> str:
    """One rhyme word at every line end and the refrain pasted between lines: every rhyme "holds"."""
    word = rng.choice(RHYMES[a])
    refrain = f"{' '.join(rng.sample(FILLERS, 3))} {word}"
    blocks = [f"{refrain} ** {rng.choice(FILLERS)} {word}"]
    for _ in range(stanzas):
        blocks.append(
            "\n".join(
                [refrain, f"{rng.choice(FILLERS)} {word}", refrain, f"{rng.choice(FILLERS)} {word}", refrain]
            )
        )
    return "\n\n".join(blocks)


def judge_score(text: str, salt: int = 0) -> float:
    """The stand-in autorater: a deterministic heuristic of the text, in [-1, 1].

    It rewards varied line ends and stanzas whose lines rhyme together, and punishes repeated
    lines, one rhyme word used everywhere and lines that babble one word, the way a human judge of
    poetry would. A small hash-based jitter (seeded by the text and `salt`, the sample index)
    stands in for an LLM's variance.
    """
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    if not lines:
        return -1.0
    ends = [ln.split()[-1] for ln in lines]
    distinct_ends = len(set(ends)) / len(ends)
    duplicate_lines = 1.0 - len(set(lines)) / len(lines)
    blocks = [b for b in text.split("\n\n") if b.strip()]
    coherent = total = 0
    for b in blocks[1:]:
        bl = [ln.strip() for ln in b.splitlines() if ln.strip()]
        stanza_ends = [ln.split()[-1][-1] for ln in bl[:3] if ln.split()]
        for x, y in itertools.pairwise(stanza_ends):
            total += 1
            coherent += x == y
    coherence = coherent / total if total else 0.0
    bodies = [ln.replace("**", " ").split()[:-1] for ln in lines]
    bodies = [b for b in bodies if b]
    variety = sum(len(set(b)) / len(b) for b in bodies) / len(bodies) if bodies else 0.0
    raw = -0.6 + 0.8 * coherence + 0.9 * distinct_ends - 0.8 * duplicate_lines - 1.5 * (1.0 - variety)
    jitter = ((hash_text(f"{salt}:{text}") % 2001) / 1000.0 - 1.0) * 0.1
    return max(-1.0, min(1.0, raw + jitter))


def hash_text(s: str) -> int:
    """A stable (not per-process salted) hash, so judge scores repeat across runs."""
    h = 1469598103934665603
    for b in s.encode("utf-8"):
        h = ((h ^ b) * 1099511628211) & 0xFFFFFFFFFFFFFFFF
    return h
