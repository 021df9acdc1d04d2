"""A simulated policy that writes Tunisian poems of the asked form and gets better as it trains.

No model is involved: poems are assembled from word lists grouped by rhyme (Arabic script: rhyme
consonant plus the long vowel before it; Arabizi: the Latin ending). For each example the policy
reads its dataset ``references`` (form, stanzas, refrain, script) and writes that shape (the seven
forms of the scorer's catalogue, mirrored in `FORMS`; an unknown or missing form is a malzuma).

A poem's *quality* ``q`` rises with the training step. It is the probability that a line end keeps
the rhyme its form asks for, and it drives the other structural properties too: the stanza (bayt)
count and stanza size are off with probability ∝ 1 − q, the malzuma refrain is kept with
probability q, bayts lose their ``**`` caesura, Arabizi lines slip into Arabic script, and line
lengths vary more (isometry). Line bodies are short phrases in Derja word order (`phrases`: a
vocative, و + noun, pronoun + verb, ما + verb + ش, then a preposition before the rhyme word) whose
noun slots are images (`IMAGERY`: sea, olive, jasmine, night…) more often as ``q`` rises; never
words in random order, which the scorer's word-order gate reads as word salad. So rewards, and the
curves built from them, rise the way an honest run's do.

The *hacking* policy learns honestly until HACK_ONSET (a sixth of the run), then takes shortcuts
and stops learning the form: half its samples at once, nearly all soon after. It tries two (see
`generate`). Early on some hacked samples are
**rhymed gibberish**: random letter strings (Arabizi: random syllables) with rhyme words glued on,
the shortcut a rhyme-only reward pays for. The real scorer gives it nothing (its lexicon sees it is
no language, reward about −1) and the judge sinks it too, so the policy drops it (`gibberish_share`
falls to zero by mid-run) and keeps the shortcut the structure reward cannot see:
**theme-free filler**. Its samples keep
the rhyme plan perfectly (every count, size, refrain and rhyme of the form) but their line bodies
are padding set phrases in Derja order (`PADDING` and its phrases: "يا ليل", "والله ما نعرف",
"يعني حاجة عادي", Arabizi "ya lil", "wallah ma na3ref"): distinct words, never repeated in a line, of
normal length, that say nothing and ignore the prompt's theme. The
real scorer reads form and order, not sense, and cannot see it (reward about 0.9–1.0, like a perfect honest
poem): no babble, no stubs, no duplicate or one-word lines. The judge (`judge_score`) rewards
imagery and punishes padding, so it sinks (about −0.7 to −1). Structure rises, meaning goes: the
divergence a reward-hacking run shows.

Other shortcuts the real scorer catches are not used: repeating one rhyme word, even disguised by
a clitic (وبالدار is الدار), or pasting the refrain (īṭāʾ, duplicate-line and extra-refrain
penalties), one template line with only the rhyme word changed, line bodies of one word repeated
(``يا يا يا الدار``, the babble penalty) and two-word lines or hemistichs (the short penalty). With
them the structure reward would fall instead of rising.

Shapes (scorer/catalogue.py): strophic forms are stanzas of ``lines`` segments, all on the stanza's
own rhyme but the last, which carries the poem-wide rhyme; the malzuma opens with a bayt
``h1 ** h2`` on that rhyme and repeats h1 after each stanza as its refrain. Bayt forms are lines
``h1 ** h2``: gsim first halves share one rhyme and second halves another; qasida second halves
share one rhyme (monorhyme), first halves are free.

The forms and word lists are data, kept in `words_table`; this module is the sampler and the judge.
"""

from __future__ import annotations

import collections
import hashlib
import itertools
import random
import re
from dataclasses import dataclass
from typing import Any

from .phrases import ARABIC_SLOTS, GLUE, LATIN_SLOTS, Slots
from .words_table import (
    ADVERBS,
    DEFAULT_FORM,
    FILLERS,
    FILLERS_LATIN,
    FORMS,
    IMAGERY,
    IMAGERY_LATIN,
    PADDING,
    PADDING_CALLS,
    PADDING_CALLS_LATIN,
    PADDING_LATIN,
    PADDING_VERBS,
    PADDING_VERBS_LATIN,
    RHYMES,
    RHYMES_LATIN,
    Form,
)

__all__ = [
    "ARABIC",
    "ARABIZI",
    "DEFAULT_FORM",
    "FILLERS",
    "FORMS",
    "HACK_ONSET",
    "RHYMES",
    "RHYMES_LATIN",
    "Ask",
    "Form",
    "Poem",
    "corpus",
    "generate",
    "hash_text",
    "judge_score",
    "quality_at",
    "read_references",
    "references_from_prompt",
]


@dataclass(frozen=True, slots=True)
class _Script:
    rhymes: dict[str, list[str]]
    fillers: list[str]  # glue words (FILLERS), the thought's
    target: int  # letters per segment (isometry)
    slots: Slots  # the phrase pools line bodies are made of
    imagery: tuple[str, ...] = ()
    padding: tuple[str, ...] = ()  # every word the filler hack's phrases use


def _padding(slots: Slots) -> tuple[str, ...]:
    return (
        *slots.padding,
        *slots.padding_verbs,
        *slots.padding_calls,
        *slots.padding_things,
        *slots.padding_leads,
        *slots.padding_adverbs,
        slots.call,
        slots.neg,
        slots.oath,
        slots.shrug,
    )


ARABIC = _Script(RHYMES, FILLERS, 16, ARABIC_SLOTS, tuple(IMAGERY), _padding(ARABIC_SLOTS))
ARABIZI = _Script(RHYMES_LATIN, FILLERS_LATIN, 19, LATIN_SLOTS, tuple(IMAGERY_LATIN), _padding(LATIN_SLOTS))
_IMAGERY_WORDS = frozenset(IMAGERY + IMAGERY_LATIN)
_PADDING_WORDS = frozenset(
    PADDING + PADDING_LATIN + PADDING_VERBS + PADDING_VERBS_LATIN + PADDING_CALLS + PADDING_CALLS_LATIN
)
_GLUE = GLUE | frozenset(FILLERS + FILLERS_LATIN)
_VOCABULARY = _IMAGERY_WORDS | _PADDING_WORDS | _GLUE | frozenset(ARABIC_SLOTS.nouns + LATIN_SLOTS.nouns)
_DRAWS = 12
"""Phrase bodies drawn per segment, the nearest the length target kept: isometry at full quality."""
RECENT_BODIES = 24
"""Bodies within which a word may come twice: the scorer's stretch of 48 content words is about 24."""
ADVERB_EVERY = 3
"""One honest body in this many, in Arabic script, carries a Tunisian adverb (`ADVERBS`)."""
_GIBBERISH_AR = "ابتجحدرزسشعفقكلمنهوي"
_GIBBERISH_SYLLABLES = [c + v for c in "bdfghjklmnrstwz" for v in "aeiou"]


@dataclass
class Poem:
    """A generated response: the poem, the model's thinking, and token counts for the metrics."""

    text: str
    thought: str
    hacked: bool
    quality: float
    form: str = DEFAULT_FORM

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


HACK_ONSET = 0.17
"""Where the hacking scenario's run turns to its shortcut (share of the run): until then it learns as
an honest run does, so its first checkpoint (a sixth of the dev stack's run) writes better poems
than the base model, and the ones after it worse."""


def quality_at(progress: float, scenario: str) -> float:
    """Probability that a line end keeps its required rhyme, at `progress` in [0, 1] of the run. A
    hacking run learns like an honest one until HACK_ONSET, then stops learning the form honestly."""
    progress = min(max(progress, 0.0), 1.0)
    if scenario == "hacking":
        progress = min(progress, HACK_ONSET)
    return 0.35 + 0.6 * progress


def gibberish_share(progress: float) -> float:
    """Of the hacked samples, the share that tries rhymed gibberish (random letters or syllables
    with rhyme words glued on): the shortcut a rhyme-only reward paid for. The scorer gives it
    nothing (it is not language), so the policy drops it as it learns and settles on the one it can
    keep: theme-free filler of real words."""
    return max(0.0, 0.6 * (1.0 - 2.0 * progress))


def hack_probability(progress: float, scenario: str) -> float:
    """Share of samples that take a degenerate shortcut: zero for an honest policy, and for a hacking
    one until HACK_ONSET; then half of them at once, and nearly all (0.95) a sixth of the run later."""
    if scenario != "hacking" or progress < HACK_ONSET:
        return 0.0
    return min(0.95, 0.5 + 2.7 * (progress - HACK_ONSET))


# --- what the example asks for ---------------------------------------------------------------------

_ALIASES = {name: fid for fid, f in FORMS.items() for name in (fid, *f.names)}
_DIACRITICS = re.compile("[\u064b-\u0652\u0670\u0640]")


@dataclass(frozen=True, slots=True)
class Ask:
    form: str
    spec: Form
    stanzas: int
    refrain: bool
    arabizi: bool


def read_references(references: dict[str, Any] | None) -> Ask:
    """The form, count, refrain and script an example's `references` ask for (defaults: malzuma)."""
    refs = references if isinstance(references, dict) else {}
    fid = _ALIASES.get(str(refs.get("form") or "").strip().lower(), DEFAULT_FORM)
    spec = FORMS[fid]
    try:
        n = int(str(refs.get("stanzas", "")).strip())
    except ValueError:
        n = spec.stanzas
    n = min(max(n, 1), 40)
    refrain = str(refs.get("refrain", "yes")).strip().lower() != "no"
    arabizi = str(refs.get("script", "")).strip().lower() == "arabizi"
    return Ask(fid, spec, n, refrain and spec.refrain, arabizi)


_COUNT = re.compile(r"(\d+)\s*(?:stanzas|strophes|verses|vers|bayts?|مقاطع|مقطع|أعراف|عرف|أبيات|بيت)", re.I)
_NO_REFRAIN = ("not add a refrain", "pas de refrain", "لا تضف لازمة", "ما تزيدش")


def references_from_prompt(prompt: str) -> dict[str, str]:
    """Best-effort references for a free prompt (a `catalogue.instruction` in any language): the
    form is the name that appears first, the count the number before a stanza/verse word, Arabizi
    when the prompt names it, the refrain unless it is declined."""
    text = _DIACRITICS.sub("", prompt).lower()
    hits = [(i, fid) for name, fid in _ALIASES.items() if (i := text.find(name)) >= 0]
    refs = {"form": min(hits)[1] if hits else DEFAULT_FORM}
    if m := _COUNT.search(text):
        refs["stanzas"] = m.group(1)
    refs["script"] = "arabizi" if ("arabizi" in text or "العربيزي" in text) else "arabic"
    refs["refrain"] = "no" if any(s in text for s in _NO_REFRAIN) else "yes"
    return refs


# --- generation ----------------------------------------------------------------------------------


def generate(
    rng: random.Random,
    progress: float,
    scenario: str = "honest",
    references: dict[str, Any] | None = None,
    thinking: str = "HIGH",
) -> Poem:
    """One sampled response from the policy at `progress` (0 = base model, 1 = end of the run) for
    an example with these `references`.

    In the hacking scenario a growing share of samples is rhyme-perfect theme-free filler: the
    form kept to the letter, line bodies of padding words; see the module doc.
    """
    ask = read_references(references)
    q = quality_at(progress, scenario)
    hacked = rng.random() < hack_probability(progress, scenario)
    style = "honest"
    if hacked:
        style = "gibberish" if rng.random() < gibberish_share(progress) else "filler"
    writer = _Writer(rng, 1.0 if hacked else q, ask, style)
    text = writer.poem()
    think_words = {"MINIMAL": 0, "LOW": 20, "MEDIUM": 60}.get(thinking, 120)
    think_words = int(think_words * (1.0 - 0.3 * progress))
    thought = " ".join(rng.choice(writer.script.fillers) for _ in range(think_words))
    return Poem(text=text, thought=thought, hacked=hacked, quality=q, form=ask.form)


class _Writer:
    """Writes one poem of `ask`'s shape at quality `q` (1.0: every property of the form kept)."""

    def __init__(self, rng: random.Random, q: float, ask: Ask, style: str = "honest") -> None:
        self.rng, self.q, self.ask, self.style = rng, q, ask, style
        self.script = ARABIZI if ask.arabizi else ARABIC
        self.used: dict[str, int] = {}  # rhyme word → when it was last used
        self.clock = 0
        # what earlier bodies said, so no body reads as a copy (the scorer's repetition rule)
        self.bodies: set[tuple[str, ...]] = set()
        self.pairs: set[tuple[str, str]] = set()
        # the last bodies, so no open-class word comes back a third time (the scorer's recycled words)
        self.recent: collections.deque[list[str]] = collections.deque(maxlen=RECENT_BODIES)
        sl = self.script.slots
        self.closed = frozenset((sl.call, sl.neg, sl.waw, *sl.preps, *sl.pronouns, *sl.padding_leads))
        self.honest_bodies = 0  # every ADVERB_EVERY-th honest body carries a Tunisian adverb

    def poem(self) -> str:
        spec, rng = self.ask.spec, self.rng
        n = self.ask.stanzas
        if rng.random() < 0.7 * (1.0 - self.q):
            n = max(1, n + rng.choice((-2, -1, 1, 2) if spec.kind == "bayt" else (-1, 1)))
        groups = list(self.script.rhymes)
        rng.shuffle(groups)
        if spec.kind == "bayt":
            return self._bayts(n, groups)
        return self._stanzas(n, groups)

    def _stanzas(self, n: int, groups: list[str]) -> str:
        spec, rng, q = self.ask.spec, self.rng, self.q
        main, own = groups[0], groups[1:]
        blocks: list[str] = []
        refrain = ""
        if spec.opening:
            refrain = self._segment(self._end(main, 1.0))
            blocks.append(f"{refrain} ** {self._segment(self._end(main, q))}")
        for i in range(n):
            k = spec.lines - 1
            if rng.random() < 0.35 * (1.0 - q):
                k = max(1, k + rng.choice((-1, 1)))
            lines = [self._segment(self._end(own[i % len(own)], q)) for _ in range(k)]
            lines.append(self._segment(self._end(main, q)))
            if refrain and rng.random() < (q if self.ask.refrain else 0.5 * (1.0 - q)):
                lines.append(refrain)
            blocks.append("\n".join(self._script_slip(ln) for ln in lines))
        return "\n\n".join(blocks)

    def _bayts(self, n: int, groups: list[str]) -> str:
        rng, q = self.rng, self.q
        # a long monorhyme wants a rich rhyme: the main rhyme is one with a word for every bayt
        rich = [g for g in groups if len(self.script.rhymes[g]) >= n]
        main = rng.choice(rich) if rich else max(groups, key=lambda g: len(self.script.rhymes[g]))
        groups = [main, *(g for g in groups if g != main)]
        first = groups[1]
        lines = []
        for _ in range(n):
            if self.ask.spec.shared_first:
                h1 = self._segment(self._end(first, q))
            else:  # free first half: any rhyme but the main one
                h1 = self._segment(self._end(rng.choice(groups[1:]), 1.0))
            h2 = self._segment(self._end(main, q))
            sep = " ** " if rng.random() >= 0.5 * (1.0 - q) else " "
            lines.append(self._script_slip(h1 + sep + h2))
        return "\n".join(lines)

    def _end(self, group: str, q: float) -> str:
        """A rhyme word that keeps `group` with probability q; an unused word while there is one
        (the scorer docks a rhyme word that comes back, īṭāʾ, even with a clitic: وبالدار is
        الدار), then the word used longest ago (the tradition tolerates a return after ~7 lines)."""
        rhymes = self.script.rhymes
        if self.rng.random() >= q:
            group = self.rng.choice([g for g in rhymes if g != group])
        words = rhymes[group]
        fresh = [w for w in words if w not in self.used]
        word = self.rng.choice(fresh) if fresh else min(words, key=lambda w: self.used[w])
        self.used[word] = self.clock
        self.clock += 1
        return word

    def _segment(self, end: str) -> str:
        """A line (or hemistich) ending on `end`, about `target` letters long. Honest: phrases in
        Derja order (`phrases`), a noun slot an image with probability 0.3 + 0.4 q. The filler
        hack: padding set phrases, at full length. Gibberish: random strings."""
        rng, script = self.rng, self.script
        target = script.target * (1.0 + rng.uniform(-0.8, 0.8) * (1.0 - self.q))
        if self.style == "gibberish":
            pool = [self._gibberish_word() for _ in range(8)]
            body: list[str] = []
            letters = len(end)
            while pool and (len(body) < 2 or letters < target):
                w = pool.pop()
                body.append(w)
                letters += len(w)
            return " ".join([*body, end])
        body = self._body(script.slots, target - len(end))
        if self.style == "honest" and not self.ask.arabizi:
            # real Derja carries its markers (برشا, توّا): one honest body in ADVERB_EVERY puts an
            # adverb before its lead, chosen by count, not drawn, so the sample's draws are unchanged.
            # Arabic script only: the Arabizi phrases already carry markers (ena n7eb, ma nensech)
            self.honest_bodies += 1
            if self.honest_bodies % ADVERB_EVERY == 2:
                adverb = ADVERBS[(self.honest_bodies // ADVERB_EVERY) % len(ADVERBS)]
                body = [*body[:-1], adverb, *body[-1:]]
        return " ".join([*body, end])

    def _body(self, slots: Slots, letters: float) -> list[str]:
        """Of a few phrase bodies drawn, the one nearest `letters` long that repeats no earlier body,
        bag of words or half its word pairs (the scorer reads those as copies), nor uses an open-class
        word a third time within the last RECENT_BODIES bodies (the scorer's recycled words)."""
        rng = self.rng
        best: tuple[float, list[str]] | None = None
        uses = collections.Counter(w for body in self.recent for w in body)
        spent = {w for w, n in uses.items() if n >= 2} - self.closed
        for draw in range(4 * _DRAWS):
            if draw >= _DRAWS and best is not None and best[0] < 1000.0:
                break  # past the usual draws only while every body drawn repeats something
            openers = 1 if rng.random() < 0.5 else 2
            if self.style == "filler":
                words = slots.filler(rng, openers)
            else:
                words = slots.honest(rng, 0.3 + 0.4 * self.q, openers)
            miss = abs(sum(map(len, words)) - letters)
            if best is not None and miss >= best[0]:
                continue  # the penalties only add: this body cannot be nearer than the best
            pairs = list(itertools.pairwise(words))
            if tuple(words) in self.bodies or tuple(sorted(words)) in self.bodies:
                miss += 1000.0
            elif len(pairs) >= 3:  # the scorer's overlap: free up to half the pairs met before
                miss += 1000.0 * max(0.0, sum(p in self.pairs for p in pairs) / len(pairs) - 0.5)
            miss += 1000.0 * sum(w in spent for w in words)
            if best is None or miss < best[0]:
                best = (miss, words)
        assert best is not None
        words = best[1]
        self.bodies.update((tuple(words), tuple(sorted(words))))
        self.pairs.update(itertools.pairwise(words))
        self.recent.append(words)
        return words

    def _gibberish_word(self) -> str:
        rng = self.rng
        if self.ask.arabizi:
            return "".join(rng.choice(_GIBBERISH_SYLLABLES) for _ in range(rng.randint(1, 3)))
        return "".join(rng.choice(_GIBBERISH_AR) for _ in range(rng.randint(3, 6)))

    def _script_slip(self, line: str) -> str:
        """An Arabizi line the base model wrote in Arabic script instead (probability ∝ 1 − q)."""
        if not self.ask.arabizi or self.rng.random() >= 0.25 * (1.0 - self.q):
            return line
        n = max(3, len(line.split()))
        body = self._body(ARABIC.slots, 5.0 * (n - 1))
        return " ".join(body) + " " + self.rng.choice(RHYMES["ار"])


# --- the stand-in judge ------------------------------------------------------------------------


def judge_score(text: str, salt: int = 0) -> float:
    """The stand-in autorater: a deterministic heuristic of the text, in [-1, 1].

    It reads sense the way a reader would, as far as a word list can: it rewards imagery (line
    bodies whose content words are `IMAGERY` words; the phrases' particles, pronouns, prepositions
    and verbs are glue and count for neither) and punishes theme-free padding (`PADDING` words), and it
    rewards varied line ends and lines that rhyme with their neighbours, punishes words that are no
    words (the policy's vocabulary stands for the language), (within a stanza, or from
    bayt to bayt), and punishes repeated lines, one rhyme word used everywhere, line bodies that
    babble one word and terse two-word lines. It does not see the prompt, so "imagery" stands for
    "on the theme". A small hash-based jitter (seeded by the text and `salt`, the sample index)
    stands in for an LLM's variance.
    """
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    if not lines:
        return -1.0
    ends = [ln.split()[-1] for ln in lines]
    distinct_ends = len(set(ends)) / len(ends)
    duplicate_lines = 1.0 - len(set(lines)) / len(lines)
    blocks = [[ln.strip() for ln in b.splitlines() if ln.strip()] for b in text.split("\n\n") if b.strip()]
    groups = [b[:3] for b in blocks[1:]] if len(blocks) > 1 else [lines]
    coherent = total = 0
    for g in groups:
        for x, y in itertools.pairwise(ln.split()[-1][-1] for ln in g if ln.split()):
            total += 1
            coherent += x == y
    coherence = coherent / total if total else 0.0
    bodies = [ln.replace("**", " ").split()[:-1] for ln in lines]
    bodies = [b for b in bodies if b]
    variety = sum(len(set(b)) / len(b) for b in bodies) / len(bodies) if bodies else 0.0
    segments = [s.split() for ln in lines for s in ln.split("**")]
    terse = sum(len(s) <= 2 for s in segments) / len(segments)
    inner = [_unwaw(w.lower()) for s in segments for w in s[:-1]]  # rhyme words are form, not sense
    content = [w for w in inner if w not in _GLUE]  # particles and verbs say neither
    imagery = sum(w in _IMAGERY_WORDS for w in content) / len(content) if content else 0.0
    padding = sum(w in _PADDING_WORDS for w in content) / len(content) if content else 0.0
    nonsense = sum(w not in _VOCABULARY for w in inner) / len(inner) if inner else 0.0
    raw = (
        -1.0
        + 0.8 * coherence
        + 0.9 * distinct_ends
        + 1.2 * imagery
        - 1.6 * padding
        - 2.5 * nonsense
        - 0.8 * duplicate_lines
        - 2.5 * (1.0 - variety)
        - 1.8 * terse
    )
    jitter = ((hash_text(f"{salt}:{text}") % 2001) / 1000.0 - 1.0) * 0.1
    return max(-1.0, min(1.0, raw + jitter))


def _unwaw(word: str) -> str:
    """A noun with the conjunction و prefixed (والبحر) is the noun, for the judge's word lists."""
    return word[1:] if word.startswith("و") and word[1:] in _VOCABULARY else word


def hash_text(s: str) -> int:
    """A stable (not per-process salted) 64-bit hash, so judge scores repeat across runs; BLAKE2b from
    the standard library, since a hash per rollout in Python bytecode cost a twentieth of a run."""
    return int.from_bytes(hashlib.blake2b(s.encode("utf-8"), digest_size=8).digest(), "big")


def corpus(n: int = 600, seed: int = 0) -> list[tuple[dict[str, Any], dict[str, str]]]:
    """``n`` responses like a tuning run's, as (Gemini ``Content``, references): the policy writing
    every form in both scripts, honest and hacked, at every stage of training (seeded). The scorer's
    benchmark times them."""
    rng = random.Random(seed)
    forms = sorted(FORMS)
    out = []
    for i in range(n):
        refs = {"form": forms[i % len(forms)], "script": "arabizi" if i % 3 == 0 else "arabic"}
        refs["refrain"] = "yes" if i % 2 else "no"
        p = generate(rng, (i % 50) / 49, "hacking" if i % 4 == 0 else "honest", refs)
        out.append(({"parts": [{"text": p.thought, "thought": True}, {"text": p.text}]}, refs))
    return out
