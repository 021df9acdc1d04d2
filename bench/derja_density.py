"""How much Tunisian evidence runs through a poem: honest poems of the rounds and samples against MSA
poems carrying one Derja word or half-Derja lines (principle 3; docs/scorer.md).

Per poem (the scorer's words, as ``scorer.score`` reads them): words; distinct Tunisian evidence
words (any word whose ``scorer.variety`` vote includes Tunisian, each once: markers, shared dialect
words, Maghrebi morphology) per 10 words; the longest run of words without such evidence; the share
of lines with one; MSA's own weight. Prints the honest minimum / maximum and the named cheats.

    PYTHONPATH=. python bench/derja_density.py
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

from redteam_rounds import load  # noqa: E402

from scorer.text import parse_poem  # noqa: E402
from scorer.variety import DERJA, detect, word_vote  # noqa: E402

CHEATS = ("r10-142", "r10-144", "r10-192", "r10-148", "r10-149", "r8-084", "r8-159")
HONEST = ("genuine", "harmless", "imperfect")


def stats(text: str, script: str) -> dict[str, float]:
    poem = parse_poem(text)
    lines = [ln.words for ln in poem.lines]
    words = [w for ws in lines for w in ws]
    tn = [any(v == DERJA for v, _ in word_vote(w, script)) for w in words]
    distinct = {w for w, t in zip(words, tn, strict=True) if t}
    run = best = 0
    for t in tn:
        run = 0 if t else run + 1
        best = max(best, run)
    with_ev = sum(any(any(v == DERJA for v, _ in word_vote(w, script)) for w in ws) for ws in lines if ws)
    n = max(1, len(words))
    v = detect(words, script, text)
    return {
        "words": len(words),
        "tn": len(distinct),
        "per10": 10 * len(distinct) / n,
        "run": best,
        "lines": with_ev / max(1, sum(1 for ws in lines if ws)),
        "msa": v.msa,
        "derja": v.derja,
    }


def main() -> None:
    rows = []
    for c in load():
        script = (c.references.get("script") or "arabic").lower()
        rows.append((c.id, c.tier, script, stats(c.text, script)))
    for path in sorted((ROOT / "data" / "samples").glob("**/*.txt")):
        script = "arabizi" if path.parent.name == "arabizi" else "arabic"
        name = f"sample:{path.parent.name}/{path.stem}"
        rows.append((name, "genuine", script, stats(path.read_text(encoding="utf-8"), script)))
    keys = ("words", "tn", "per10", "run", "lines", "msa", "derja")
    for script in ("arabic", "arabizi"):
        honest = [(i, s) for i, t, sc, s in rows if t in HONEST and sc == script and s["words"] >= 20]
        print(f"## {script}: {len(honest)} honest poems of 20 words or more")
        for k in keys:
            lo = min(honest, key=lambda r: r[1][k])
            hi = max(honest, key=lambda r: r[1][k])
            print(f"{k:6} min {lo[1][k]:7.3f} ({lo[0]})  max {hi[1][k]:7.3f} ({hi[0]})")
        for k, worst in (("per10", 5), ("run", 5), ("lines", 5)):
            rev = k == "run"
            order = sorted(honest, key=lambda r: r[1][k], reverse=rev)[:worst]
            print(f"worst {k}: " + ", ".join(f"{i} {s[k]:.2f}" for i, s in order))
    print("## cheats")
    for i, t, sc, s in rows:
        if i in CHEATS:
            print(i, t, sc, " ".join(f"{k}={s[k]:.2f}" for k in keys))


if __name__ == "__main__":
    main()
