"""The emulator's simulated policy, checked in-process against the REAL scorer core.

The emulator itself never imports the scorer (it calls it over HTTP); tests may, to prove that the
poems it writes have the shape the scorer reads for every form and script, and that quality, and
the hacks, move the reward the way the run curves assume.
"""

from __future__ import annotations

import functools
import random
import statistics

import pytest

from scorer.arabic import normalize_arabic, rhyme_key, similarity
from scorer.catalogue import FORMS, instruction
from scorer.identity import rhyme_identity
from scorer.score import score
from tunifolk.emulator import policy
from tunifolk.emulator.phrases import distinct

SCRIPTS = ("arabic", "arabizi")


def refs(form: str, script: str, refrain: str = "yes") -> dict[str, str]:
    n = {"gsim": "14", "qasida": "20", "muthallath": "9"}.get(form, "5")
    return {"form": form, "stanzas": n, "refrain": refrain, "script": script, "theme": "البحر"}


def rewards(r: dict[str, str], q: float, style: str = "honest", n: int = 24) -> list[float]:
    """The rewards of n seeded poems (the same every call: several tests ask for the start's)."""
    return list(_rewards(tuple(sorted(r.items())), q, style, n))


@functools.cache
def _rewards(r: tuple[tuple[str, str], ...], q: float, style: str, n: int) -> tuple[float, ...]:
    out = []
    for seed in range(n):
        writer = policy._Writer(random.Random(seed), q, policy.read_references(dict(r)), style)
        out.append(score(writer.poem(), dict(r)).reward)
    return tuple(out)


@pytest.mark.parametrize(("n", "k"), [(6, 1), (6, 2), (4, 1), (4, 2), (6, 6), (21, 3)])
def test_distinct_draws_what_random_sample_draws(n: int, k: int) -> None:
    """The phrase kinds' picks keep the seeded runs' texts: the same numbers as ``rng.sample`` and the
    generator left in the same state after them."""
    for seed in range(200):
        a, b = random.Random(seed), random.Random(seed)
        assert distinct(b, n, k) == a.sample(range(n), k) and a.random() == b.random(), seed


def test_the_policy_knows_the_catalogue_forms() -> None:
    assert set(policy.FORMS) == set(FORMS)
    for fid, spec in FORMS.items():
        mine = policy.FORMS[fid]
        assert (mine.kind, mine.stanzas, mine.lines) == (spec.kind, spec.stanzas, spec.lines)
        assert mine.opening == spec.opening and mine.refrain == (spec.refrain != "none")
        assert mine.shared_first == (spec.first_half == "shared")


@pytest.mark.parametrize("groups", [policy.RHYMES, policy.RHYMES_LATIN], ids=["arabic", "arabizi"])
def test_rhyme_groups_rhyme_inside_and_differ_across(groups: dict[str, list[str]]) -> None:
    reps = {}
    for g, words in groups.items():
        keys = {rhyme_key(normalize_arabic(w))[:3] for w in words}
        assert len(keys) == 1, (g, keys)
        # distinct rhyme words even for the scorer's clitic folding (الدار = بالدار)
        assert len({rhyme_identity(normalize_arabic(w)) for w in words}) == len(words), g
        reps[g] = rhyme_key(normalize_arabic(words[0]))
    assert len(reps) >= 11  # a muthallath of 10 stanzas never repeats a rhyme
    for a in reps:
        for b in reps:
            assert a == b or similarity(reps[a], reps[b]) == 0.0, (a, b)


@pytest.mark.parametrize("script", SCRIPTS)
@pytest.mark.parametrize("form", list(FORMS))
def test_full_quality_keeps_the_form_and_the_start_does_not(form: str, script: str) -> None:
    r = refs(form, script)
    full, start = rewards(r, 1.0), rewards(r, policy.quality_at(0.0, "honest"))
    assert min(full) >= 0.8
    assert statistics.mean(start) < statistics.mean(full) - 0.6
    # the end of an honest run (q 0.95) keeps most of the form; its few slips (a caesura written
    # otherwise, a line in the other script) cost as another layout and the other script's letters do
    assert statistics.mean(rewards(r, policy.quality_at(1.0, "honest"))) >= 0.6


@pytest.mark.parametrize("script", SCRIPTS)
@pytest.mark.parametrize("form", list(FORMS))
def test_the_filler_hack_pleases_the_scorer_not_the_judge(form: str, script: str) -> None:
    """Theme-free filler keeps the form to the letter: the real scorer cannot see it (no babble, no
    stubs, reward as high as a perfect honest poem's); the judge sinks it below the hacking run's
    honest start."""
    r = refs(form, script)
    start = statistics.mean(rewards(r, policy.quality_at(0.0, "hacking")))
    hacked = rewards(r, 1.0, "filler")
    # a chance echo of an earlier line's word pair may cost a sample a little (repetition is overlap)
    assert min(hacked) >= 0.85 and statistics.mean(hacked) > start + 0.6
    ask = policy.read_references(r)
    pad = set(policy.ARABIZI.padding if script == "arabizi" else policy.ARABIC.padding)
    for seed in range(8):
        honest = policy._Writer(random.Random(seed), policy.quality_at(0.0, "hacking"), ask, "honest").poem()
        poem = policy._Writer(random.Random(seed), 1.0, ask, "filler").poem()
        s = score(poem, r)
        assert not {"p_babble", "p_short", "p_dup", "p_ita"} & set(s.subscores), s
        for segment in poem.replace(" ** ", "\n").split("\n"):
            words = segment.split()
            if words:  # distinct padding words of normal length, then the rhyme word
                assert len(words) >= 3 and len(set(words)) == len(words) and set(words[:-1]) <= pad
        assert policy.judge_score(poem) < -0.5 < policy.judge_score(honest) - 0.5


def _rewrite_bodies(poem: str, body: list[str] | None) -> str:
    """Every hemistich's words but the rhyme word replaced by `body` (None: by one glue word)."""
    return "\n".join(
        " ** ".join(
            " ".join(
                [
                    *(body if body is not None else [policy.FILLERS[len(h) % len(policy.FILLERS)]]),
                    h.split()[-1],
                ]
            )
            for h in line.split(" ** ")
        )
        if line.strip()
        else line
        for line in poem.split("\n")
    )


@pytest.mark.parametrize("script", SCRIPTS)
@pytest.mark.parametrize("form", list(FORMS))
def test_the_old_shortcuts_no_longer_pay(form: str, script: str) -> None:
    """Babble (one word repeated) and stubs (two-word lines) on a perfect rhyme plan score at most 0
    and below the filler a hacking run ends with (they would not be learned), so theme-free filler
    is the shortcut left."""
    r = refs(form, script)
    filler = statistics.mean(rewards(r, 1.0, "filler", n=8))
    ask = policy.read_references(r)
    word = "ya" if script == "arabizi" else "يا"
    for seed in range(4):
        perfect = policy._Writer(random.Random(seed), 1.0, ask, "honest").poem()
        for hacked in (_rewrite_bodies(perfect, [word] * 3), _rewrite_bodies(perfect, None)):
            reward = score(hacked, r).reward
            assert reward <= 0.0 and reward < filler - 0.1, (reward, filler)


def test_refrain_follows_the_references() -> None:
    ask_yes, ask_no = (policy.read_references(refs("malzuma", "arabic", x)) for x in ("yes", "no"))
    yes = policy._Writer(random.Random(1), 1.0, ask_yes, "honest").poem()
    no = policy._Writer(random.Random(1), 1.0, ask_no, "honest").poem()
    refrain = yes.split(" ** ")[0]
    assert yes.count(refrain) == 6 and no.count(no.split(" ** ")[0]) == 1
    assert score(no, refs("malzuma", "arabic", "no")).reward >= 0.95


def test_unknown_or_missing_form_is_a_malzuma() -> None:
    for r in (None, {}, {"form": "sonnet"}, {"form": "ملزومة", "stanzas": "x"}):
        assert policy.generate(random.Random(0), 1.0, references=r).form == "malzuma"
    assert policy.generate(random.Random(0), 1.0, references={"form": "Mouguef"}).form == "mugef"


@pytest.mark.parametrize("language", ["en", "fr", "msa", "derja"])
def test_references_are_read_back_from_any_prompt_language(language: str) -> None:
    for i, form in enumerate(FORMS):
        script = SCRIPTS[i % 2]
        refrain = "no" if i % 3 == 0 else "yes"
        n = FORMS[form].stanzas + 1
        prompt = instruction(form, n, refrain, script, language, theme="الغربة")
        got = policy.references_from_prompt(prompt)
        assert got["form"] == form, prompt
        assert got["script"] == script and got["stanzas"] == str(n)
        if FORMS[form].refrain != "none":
            assert got["refrain"] == refrain
    assert policy.references_from_prompt("hello") == {"form": "malzuma", "script": "arabic", "refrain": "yes"}


@pytest.mark.parametrize("script", SCRIPTS)
@pytest.mark.parametrize("form", list(FORMS))
def test_the_gibberish_hack_is_punished_by_the_scorer_and_the_judge(form: str, script: str) -> None:
    """Rhymed gibberish keeps the rhyme plan (a rhyme-only reward paid ~1.0 for it); the real
    scorer's lexicon sees it is no language and the judge sinks it: the hacking run drops it."""
    r = refs(form, script)
    start = statistics.mean(rewards(r, policy.quality_at(0.0, "hacking")))
    gibberish = rewards(r, 1.0, "gibberish", n=8)
    assert max(gibberish) <= 0.0 and statistics.mean(gibberish) < start
    ask = policy.read_references(r)
    for seed in range(4):
        poem = policy._Writer(random.Random(seed), 1.0, ask, "gibberish").poem()
        assert score(poem, r).subscores["language"] < 0.5
        assert policy.judge_score(poem) < -0.5


def test_a_hacking_run_learns_honestly_until_the_onset() -> None:
    """Before HACK_ONSET no sample is hacked and the form improves as an honest run's does: the first
    checkpoint of the dev stack's run (a sixth of it) is the one to ship (tunifolk eval)."""
    rng = random.Random(0)
    r = refs("mugef", "arabic")
    before = [policy.generate(rng, policy.HACK_ONSET - 0.01, "hacking", r) for _ in range(200)]
    after = [policy.generate(rng, policy.HACK_ONSET + 0.01, "hacking", r) for _ in range(200)]
    assert not any(p.hacked for p in before)
    assert sum(p.hacked for p in after) > 60
    assert policy.quality_at(policy.HACK_ONSET - 0.01, "hacking") == policy.quality_at(
        policy.HACK_ONSET - 0.01, "honest"
    )
    assert policy.quality_at(0.9, "hacking") < policy.quality_at(0.9, "honest")


@pytest.mark.slow  # scores 800 generated poems: over 2 s
def test_a_hacking_run_tries_gibberish_early_and_settles_on_filler() -> None:
    rng = random.Random(0)
    r = refs("mugef", "arabic")
    early = [policy.generate(rng, policy.HACK_ONSET + 0.02, "hacking", r) for _ in range(400)]
    late = [policy.generate(rng, 0.9, "hacking", r) for _ in range(400)]

    def gibberish(poems: list[policy.Poem]) -> int:
        return sum(p.hacked and score(p.text, r).subscores["language"] < 0.5 for p in poems)

    assert gibberish(early) > 10 and gibberish(late) == 0
    assert sum(p.hacked for p in late) > 300
