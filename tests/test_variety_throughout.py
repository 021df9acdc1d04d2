"""Derja evidence must run through the poem, not sit in its opening (issue 18, principle 3; docs/scorer.md,
"Positive evidence: no marker is not free"): a genuine poem whose later lines are replaced by MSA scores
at most 0, and so does a poem with no Tunisian marker at all from UNPROVEN_WORDS' end."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from variety_swaps import detect_text, reward, samples

from scorer.score import UNPROVEN_GATE, UNPROVEN_WORDS, score
from scorer.variety import DERJA

MSA_LINES = (
    "الليل الذي طال على قلبي الحزين",
    "سوف أبقى أنتظر الفجر مهما طال الانتظار",
    "لن أنسى وجوه الأحبة في المساء",
    "ليس في الدنيا ما يعوضني عن وطني",
    "والناس يمضون إلى أعمالهم كل صباح",
    "تلك الأيام التي عشناها لا تعود",
    "إنني أحمل في صدري حنينا لا ينتهي",
    "ولكنني أعلم أن الصبر مفتاح الفرج",
    "هؤلاء الذين رحلوا تركوا لنا الذكرى",
)
"""A genuine MSA text, as a model drifting to its poetry register writes it: every line carries one
of MSA's own forms (الذي, سوف, لن, ليس, an -ūn verb, the أ- first person)."""
MARKER_FREE_MSA = (
    "يا قمرا يضيء سماء المدينة\nوينشر النور على البيوت الحزينة\nوالريح تحمل عطر الياسمين\n"
    "إلى قلوب العاشقين المتعبين\n\nفي الليل تسهر عيون الساهرين\nوتحكي النجوم حكايات السنين\n"
    "والبحر يغني للسفن البعيدة\nويحرس الشاطئ بالأمواج الجديدة\n\nيا وطنا في القلب مقيما\n"
    "ويا حبا في الروح عظيما\nنحمل اسمك في كل مكان\nونرفع رايتك فوق الزمان"
)
"""MSA written around every listed marker (as round 8's r8-085…089 are): 54 words, no vote at all."""
WORD = re.compile(r"[^\W_]+")


def test_the_msa_text_has_no_derja_and_msa_on_every_line() -> None:
    for line in MSA_LINES:
        got = detect_text(line, "arabic", raw=True)
        assert got.counts[DERJA] == 0.0 and got.msa >= 1.0, (line, got)


@settings(max_examples=40, deadline=None, derandomize=True)
@given(data=st.data())
def test_genuine_opening_then_msa_scores_at_most_zero(data: st.DataObject) -> None:
    """Property: a genuine sample keeps its first lines (up to a third, its Tunisian evidence with
    them) and the rest become MSA lines of a genuine MSA text: the reward is at most 0."""
    name, text, refs, plain = data.draw(st.sampled_from([s for s in samples() if s[2]["script"] == "arabic"]))
    lines = text.strip("\n").split("\n")
    body = [i for i, ln in enumerate(lines) if ln.strip()]
    keep = data.draw(st.integers(1, max(1, len(body) // 3)))
    start = data.draw(st.integers(0, len(MSA_LINES) - 1))
    out = list(lines)
    for n, i in enumerate(body[keep:]):
        out[i] = MSA_LINES[(start + n) % len(MSA_LINES)]
    got = reward("\n".join(out), refs)
    assert plain >= 0.8, (name, plain)
    assert got <= 0.0, (name, keep, start, got)


@pytest.mark.parametrize("form", ["mugef", "malzuma", "muthallath", "mukhammas"])
def test_marker_free_msa_scores_at_most_zero(form: str) -> None:
    """54 words with no Tunisian marker: past UNPROVEN_WORDS' end the variety gate is UNPROVEN_GATE
    and the reward at most 0, whatever the form makes of it."""
    n = len(WORD.findall(MARKER_FREE_MSA))
    assert n >= UNPROVEN_WORDS[1] and not any(
        detect_text(MARKER_FREE_MSA, "arabic", raw=True).counts.values()
    )
    got = score({"parts": [{"text": MARKER_FREE_MSA}]}, {"form": form, "script": "arabic"})
    assert got.subscores["variety"] == UNPROVEN_GATE and got.reward <= 0.0, got
