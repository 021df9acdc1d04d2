"""The combined reward: does any cheat the structure reward still pays beat an honest imperfect poem?

The run's reward is the weighted sum of the structure reward and the judge (`tunifolk:rewards` in
Pulumi.dev.yaml: the weights are read from there). For every cheat of the red-team rounds that still
scores above 0 on structure, with the judge modelled at -1, -0.5 and 0 (a judge it fooled to neutral),
this prints its combined reward beside the honest imperfect poems' (judge +0.5, a judge that sees a
flawed but real poem), and the margin: cheat minus the weakest imperfect poem. A positive margin is
a cheat GRPO would prefer to honest work (docs/scorer.md, "The combined reward").
"""

from __future__ import annotations

import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from redteam_rounds import judge, load  # noqa: E402

JUDGED = (-1.0, -0.5, 0.0)
HONEST_JUDGE = 0.5


def weights() -> tuple[float, float]:
    """(structure, judge) weights of the dev stack, normalised to sum 1."""
    rewards = yaml.safe_load((ROOT / "Pulumi.dev.yaml").read_text())["config"]["tunifolk:rewards"]
    w = {r["name"]: float(r.get("weight", 1.0)) for r in rewards}
    total = sum(w.values())
    return w["structure"] / total, w["poetic_quality"] / total


def main() -> int:
    ws, wj = weights()
    results = judge(load())
    honest = sorted(ws * r + wj * HONEST_JUDGE for c, r, _ in results if c.tier == "imperfect")
    cheats = sorted(((r, c) for c, r, _ in results if c.tier == "cheat" and r > 0), key=lambda x: -x[0])
    print(f"weights: structure {ws:.2f}, judge {wj:.2f}; {len(honest)} honest imperfect poems (judge +0.5)")
    if honest:
        print(f"honest imperfect combined: min {honest[0]:+.3f}, median {honest[len(honest) // 2]:+.3f}")
    print(f"{len(cheats)} cheats above 0 on structure")
    print("id        structure  " + "  ".join(f"judge {j:+.1f}" for j in JUDGED) + "   margin at judge 0")
    for r, c in cheats:
        combined = [ws * r + wj * j for j in JUDGED]
        margin = combined[-1] - honest[0] if honest else float("nan")
        print(f"{c.id:9} {r:+.3f}     " + "     ".join(f"{x:+.3f}" for x in combined) + f"     {margin:+.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
