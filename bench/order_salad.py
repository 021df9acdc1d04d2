"""Word salad against the word-order gate: how many random salads of common Derja words, laid out in
each form's rhyme pattern, the reward pays (score > 0).

A salad attacker draws 3 random common Derja words plus a rhyme word per line and keeps the best of
8 seeds: an RL policy does the same at scale, so the figure that matters is the pass rate over many
draws, not the mean. The vocabularies below are such an attacker's (Derja markers, verbs and nouns,
rhyme words per rhyme; Tunisian place names, dishes and French loanwords mixed with markers). Run
``python bench/order_salad.py [--draws N]``: it prints, per script and generator, the draws scored,
the pass rate and the 95th percentile of the reward. Figures, not a test (tests/test_scorer_order.py
holds the properties).
"""

from __future__ import annotations

import argparse
import random
import sys
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _w(text: str) -> list[str]:
    return text.split()


V = _w(
    "برشا ياسر زادة توّة باهي برّا شنوّة علاش كيفاش فمّا ماكش نستنّى نحب نحكي نمشي نقعد نشوف نخمّم نجري "
    "نلقى خويا ختي بابا أمّي حومة كسكسي بريك هريسة لبلابي شكشوكة ديما مازال ياخي يزّي بالحق هكّا هاذي "
    "متاعي متاعك شوية فيسع بكري عشيّة زعمة يعيشك بربّي"
)
VZ = _w(
    "barcha yesser zeda tawa behi barra chnowa 3lech kifech famma mech nestanna n7eb ne7ki nemchi n9a3ed "
    "nchouf nkhammem njri nal9a khouya okhti baba ommi 7ouma kosksi brik harissa lablebi chakchouka dima "
    "mazel yekhi yezzi bel7a9 haka hedhi mte3i mte3ek chwaya fissa3 bekri 3chiya za3ma y3aychek barabbi"
)
RA = [
    _w("دار نار نهار بحار قرار صغار نوّار أسرار أخبار مشوار"),
    _w("بعيد سعيد جديد شديد وحيد يزيد نشيد تغريد"),
    _w("حزين عين حين سنين حنين ياسمين مسكين زين"),
    _w("مغلوب مكتوب تذوب قلوب محبوب ذنوب جنوب"),
    _w("ليالي بالي عالي غالي حالي خالي"),
    _w("جيران مكان أحزان زمان بستان ألوان"),
    _w("تطول مشغول نقول الفصول مقبول"),
    _w("سلام ظلام غرام كلام أيام منام"),
    _w("صباح رياح مرتاح مفتاح جناح مراح"),
    _w("طبيب غريب حبيب مغيب صبيب نصيب"),
    _w("رمال جمال حال بال أطفال خيال"),
    _w("حدود تقود عهود وعود تعود عمود"),
]
RZ = [
    _w("dar nar nhar b7ar 9rar sghar nouwar asrar akhbar mechwar"),
    _w("b3id sa3id jdid chdid w7id yzid nchid"),
    _w("7zin 3in 7in snin 7nin yasmin meskin"),
    _w("maghloub mektoub tdoub 9loub ma7boub dhnoub jnoub"),
    _w("lyeli bali 3ali ghali 7ali khali"),
    _w("jiran mkan a7zan zman bostan alwan"),
    _w("slam dhlam gharam klam ayyem mnam"),
    _w("sba7 riya7 merte7 mofte7 jne7 mra7"),
    _w("tbib gharib 7bib mghib sbib nsib"),
    _w("rmal jmal 7al bal atfal khyal"),
    _w("7doud t9oud 3houd w3oud t3oud 3moud"),
]
MARK = _w("برشا ياسر زادة توّة باهي شنوّة علاش كيفاش فمّا ماكش نستنّى ديما")
MARK_Z = _w("barcha yesser zeda tawa behi chnowa 3lech kifech famma mech nestanna dima")
PLACES = _w(
    "تونس صفاقس سوسة قابس بنزرت نابل قفصة القيروان المنستير "
    "المهدية جربة توزر قبلي الكاف باجة جندوبة زغوان سليانة"
)
FOOD = _w(
    "كسكسي بريك لبلابي شكشوكة هريسة مقرونة عصبان ملوخية كفتاجي فريكاسي بمبالوني "
    "مخارق زلابية بسيسة ملثوث حلالم طاجين سلاطة"
)
FRENCH_Z = _w("mon amour chérie bonjour merci ça va trop bien voiture copain portable weekend")
FORMS = {"malzuma": 5, "gsim": 6, "qasida": 6, "mugef": 4, "muthallath": 4, "mukhammas": 3, "msaddes": 3}
LINES = {"mugef": 4, "muthallath": 3, "mukhammas": 5, "msaddes": 6, "malzuma": 4}


def salad(form: str, n: int, rnd: random.Random, vocab: list[str], rhymes: list[list[str]], k: int) -> str:
    """One salad as the attacker's generator draws it: k random words and a rhyme word per line, the
    rhyme words in the form's pattern (a malzuma's opening line as its refrain)."""

    def line(w: str) -> str:
        return " ".join(rnd.sample(vocab, k)) + " " + w

    groups = sorted(rhymes, key=lambda g: (-len(g), rnd.random()))
    main, second, others = groups[0], groups[1], groups[1:]
    rnd.shuffle(others)

    def take(group: list[str], m: int) -> list[str]:
        ws = list(group)
        rnd.shuffle(ws)
        return ws[:m]

    if form in ("gsim", "qasida"):
        a, b = take(main, n), take(second, n)
        if form == "qasida":
            return "\n".join(" ".join(rnd.sample(vocab, k + 1)) + "\t" + line(b[i]) for i in range(n))
        return "\n".join(line(a[i]) + "\t" + line(b[i]) for i in range(n))
    size = LINES[form]
    bw = take(main, n + 2)
    stanzas = [[line(w) for w in take(others[i], size - 1)] + [line(bw[i + 2])] for i in range(n)]
    if form == "malzuma":
        opening = [line(bw[0]), line(bw[1])]
        return "\n\n".join(["\n".join(opening), *("\n".join([*s, opening[0]]) for s in stanzas)])
    return "\n\n".join("\n".join(s) for s in stanzas)


GENERATORS: dict[str, tuple[str, Callable[[random.Random], tuple[list[str], int]]]] = {
    "derja k=3": ("arabic", lambda r: (V, 3)),
    "derja k=2": ("arabic", lambda r: (V, 2)),
    "derja k=5": ("arabic", lambda r: (V, 5)),
    "places+markers": ("arabic", lambda r: (PLACES + MARK, 3)),
    "dishes+markers": ("arabic", lambda r: (FOOD + MARK, 3)),
    "derja k=3 ": ("arabizi", lambda r: (VZ, 3)),
    "derja k=2 ": ("arabizi", lambda r: (VZ, 2)),
    "derja k=5 ": ("arabizi", lambda r: (VZ, 5)),
    "french+markers": ("arabizi", lambda r: (FRENCH_Z + MARK_Z, 3)),
}


def draws(name: str, count: int, seed: int = 0) -> list[tuple[str, dict[str, str]]]:
    """`count` salads of one generator, cycling through the forms (both the text and its references)."""
    script, pick = GENERATORS[name]
    rnd = random.Random(f"{name}/{seed}")
    out = []
    forms = list(FORMS)
    for i in range(count):
        form = forms[i % len(forms)]
        n = FORMS[form]
        vocab, k = pick(rnd)
        text = salad(form, n, rnd, vocab, RA if script == "arabic" else RZ, k)
        refs = {"form": form, "script": script, "stanzas": str(n)}
        refs["refrain"] = "yes" if form == "malzuma" else "no"
        out.append((text, refs))
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--draws", type=int, default=500, help="salads per generator (default 500)")
    args = parser.parse_args()
    from scorer.score import score

    print("| script | generator | draws | pass (> 0) | p95 reward | max |")
    print("|---|---|---|---|---|---|")
    totals: dict[str, list[int]] = {}
    for name, (script, _) in GENERATORS.items():
        rewards = sorted(score({"parts": [{"text": t}]}, refs).reward for t, refs in draws(name, args.draws))
        passed = sum(r > 0 for r in rewards)
        tot = totals.setdefault(script, [0, 0])
        tot[0] += passed
        tot[1] += len(rewards)
        p95 = rewards[int(0.95 * (len(rewards) - 1))]
        rate = passed / len(rewards)
        print(
            f"| {script} | {name.strip()} | {len(rewards)} | {rate:.1%} | {p95:+.2f} | {rewards[-1]:+.2f} |"
        )
    for script, (passed, n) in totals.items():
        print(f"| {script} | all | {n} | {passed / n:.1%} | | |")
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    sys.exit(main())
