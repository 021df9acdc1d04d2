"""Build the variety classifier's tables (scorer/ngrams.py) from real text of each variety.

Reads the corpora from git snapshots (``--mirror``, default /work/.mirror: one directory per
repository, ``owner+name/repo``, a git directory read with ``git show``; the TArC files come from
``bench/data/tarc``) and writes ``scorer/lexicon/varieties/model/arabic.tsv`` and ``arabizi.tsv``:
per feature (scorer.ngrams.features), its count in each variety's training text, and per order the
total counts. Deterministic: the same snapshots give the same files.

Sources, each at a fixed commit (licences in scorer/lexicon/varieties/model/NOTICE.md):

* Tunisian, Arabic script: TSAC (fbougares/TSAC), the comments written in Arabic letters only;
  Barcha (wa3dbk/Barcha, ``texts/``), its pieces that the scorer's markers read as Derja with no MSA
  weight (``derive_order.derja_pieces``, as for the word-order table). That reading checks a marker
  behind و/ف with this very table (``variety._clitic_confirmed``), so a change of sources is built
  until a rebuild gives the same bytes (the shipped table is such a fixed point: one rebuild after
  the first reached it).
* Tunisian, Latin script: TSAC's comments in Latin letters with no French function word, and
  TArC's ``arabizi`` tokens (bench/data/tarc/dev.tsv only; heldout.tsv is never read here).
* MSA: UD Arabic-PUD; ArSarcasm-v2 tweets labelled ``msa``.
* Egyptian: NLLB-Seed ``arz_Arab``; ArSarcasm-v2 ``egypt``.
* Gulf: ArSarcasm-v2 ``gulf``.
* Levantine: Shami corpus (Lebanese, Palestinian, Jordanian); ArSarcasm-v2 ``levant``; UD South
  Levantine Arabic-MADAR.
* Moroccan, Arabic script: NLLB-Seed ``ary_Arab``. Latin: DODa ``sentences.csv`` at its MIT commit.
* Algerian, Latin script: UD Maghrebi Arabic-French Arabizi, tokens tagged ``LangO=ar_dz``.
* French, English, Maltese: UD French-GSD (dev, test), English-EWT (dev, test), Maltese-MUDT.

**Split**: a line (a comment, tweet or sentence) is held out when ``crc32`` of its text is 0 mod
HELD_OUT_MOD (one in five); the model counts only the others. ``heldout(script)`` gives the
held-out lines for ``bench/bench_varieties.py --real``. Lines seen twice count once.

    python bench/build_variety_model.py [--mirror DIR]
"""

from __future__ import annotations

import argparse
import collections
import csv
import gzip
import io
import re
import subprocess
import sys
import zlib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from derive_order import derja_pieces  # noqa: E402

from scorer.arabic import ARABIC_LETTERS, normalize_arabic  # noqa: E402
from scorer.ngrams import MODEL_DIR, WHOLE, features, latin_spelling  # noqa: E402

MIRROR = Path("/work/.mirror")
TARC_DEV = ROOT / "bench" / "data" / "tarc" / "dev.tsv"
TARC_ASIDE = ("PUNC", "SYM", "NOUN_NUM", "NOUN_PROP", "ABBREV", "foreign")
HELD_OUT_MOD = 5
MIN_COUNT = 3
"""A feature is kept when its count over all varieties reaches this (rarer ones share the floor)."""
MAX_TRAIN_TOKENS = 600_000
"""Per variety, training tokens past this are not counted (lines in a fixed shuffled order): the
biggest corpora would otherwise dominate the table's size, not its accuracy. Barcha's Derja (about
470,000 words) is counted whole: social media's words are most of what Derja poems say."""
BARCHA_COMMIT = "961fd75fbce80aada6f3206d01bd81a8f2a4483f"
SEED_COMMIT = "4584967"
DODA_COMMIT = "f6b952cb53a1c22198c8e7ec7bfa45a3a77e3175"
ARSARCASM = ("ArSarcasm-v2/training_data.csv", "ArSarcasm-v2/testing_data.csv")

SCRIPTS: dict[str, tuple[str, ...]] = {
    "arabic": ("tunisian", "msa", "moroccan", "egyptian", "levantine", "gulf"),
    "arabizi": ("tunisian", "moroccan", "french", "english", "maltese", "algerian"),
}
"""The varieties each model tells apart, Tunisian first (the order of the table's columns)."""

_WORD = re.compile(r"[^\W_]+")
_URL = re.compile(r"https?://\S+|www\.\S+|@\w+|<LF>|_x000D_")
_ARABIC = re.compile("[\u0600-\u06ff]")
_LATIN = re.compile("[A-Za-z]")
_FRENCH = frozenset(
    [
        "je",
        "tu",
        "il",
        "elle",
        "nous",
        "vous",
        "ils",
        "les",
        "des",
        "est",
        "une",
        "pour",
        "pas",
        "c'est",
        "merci",
        "très",
        "tres",
        "avec",
        "dans",
        "que",
        "qui",
        "sur",
        "mais",
        "plus",
        "bien",
        "trop",
        "cette",
        "ce",
        "le",
        "la",
        "du",
        "au",
        "aux",
        "et",
        "un",
    ]
)
"""French function words: a TSAC comment in Latin letters holding one is French (or mixed) and
is not taken as Tunisian Arabizi."""


def _git_dir(repo: str, mirror: Path) -> str:
    base = mirror / repo / "repo"
    return str(base / ".git") if (base / ".git").is_dir() else str(base)


def show(repo: str, path: str, rev: str = "HEAD", mirror: Path = MIRROR) -> str:
    """A file of a snapshot at ``rev`` (empty when absent)."""
    out = subprocess.run(
        ["git", "--git-dir", _git_dir(repo, mirror), "show", f"{rev}:{path}"],
        capture_output=True,
        check=False,
    )
    return out.stdout.decode("utf-8", "replace")


def commit(repo: str, rev: str = "HEAD", mirror: Path = MIRROR) -> str:
    out = subprocess.run(
        ["git", "--git-dir", _git_dir(repo, mirror), "rev-parse", rev],
        capture_output=True,
        text=True,
        check=False,
    )
    return out.stdout.strip()


def _clean(line: str) -> str:
    return " ".join(_URL.sub(" ", line).split())


def _conllu_text(repo: str, files: tuple[str, ...], mirror: Path) -> list[str]:
    return [
        ln[9:]
        for f in files
        for ln in show(repo, f, mirror=mirror).splitlines()
        if ln.startswith("# text = ")
    ]


def _narabizi(mirror: Path) -> list[str]:
    """Sentences of UD Maghrebi Arabic-French Arabizi, keeping the surface tokens tagged
    ``LangO=ar_dz`` (a multiword token by its first part's tag); French tokens are left out."""
    repo = "UniversalDependencies+UD_Maghrebi_Arabic_French-Arabizi"
    out: list[str] = []
    for f in ("qaf_arabizi-ud-train.conllu", "qaf_arabizi-ud-dev.conllu", "qaf_arabizi-ud-test.conllu"):
        sent: list[str] = []
        skip_to = 0
        pending = ""
        for ln in show(repo, f, mirror=mirror).splitlines():
            if not ln.strip():
                if sent:
                    out.append(" ".join(sent))
                sent, skip_to, pending = [], 0, ""
                continue
            if ln.startswith("#"):
                continue
            cols = ln.split("\t")
            if len(cols) < 10:
                continue
            ident = cols[0]
            if "-" in ident:
                _lo, hi = ident.split("-")
                skip_to, pending = int(hi), cols[1]
                continue
            if "." in ident:
                continue
            i = int(ident)
            if pending:
                if "LangO=ar_dz" in cols[9]:
                    sent.append(pending)
                pending = ""
                continue
            if i <= skip_to:
                continue
            if "LangO=ar_dz" in cols[9]:
                sent.append(cols[1])
        if sent:
            out.append(" ".join(sent))
    return out


def _arsarcasm(mirror: Path) -> dict[str, list[str]]:
    by: dict[str, list[str]] = collections.defaultdict(list)
    for p in ARSARCASM:
        for row in csv.DictReader(io.StringIO(show("iabufarha+ArSarcasm-v2", p, mirror=mirror))):
            by[row["dialect"]].append(row["tweet"])
    return by


def _tsac(mirror: Path) -> tuple[list[str], list[str]]:
    """TSAC comments: (Arabic letters only, Latin letters only without French function words)."""
    lines: list[str] = []
    for f in ("train_pos.txt", "train_neg.txt", "test_pos.txt", "test_neg.txt"):
        lines += show("fbougares+TSAC", f, mirror=mirror).splitlines()
    arabic, latin = [], []
    for ln in lines:
        has_ar, has_la = bool(_ARABIC.search(ln)), bool(_LATIN.search(ln))
        if has_ar and not has_la:
            arabic.append(ln)
        elif has_la and not has_ar and _FRENCH.isdisjoint(ln.lower().split()):
            latin.append(ln)
    return arabic, latin


def _barcha(mirror: Path) -> list[str]:
    """Barcha's Arabic-script Derja pieces, each as its words joined by spaces. The snapshot may
    lack a file (a blob too large to mirror): the others are read."""
    git = ["git", "--git-dir", _git_dir("wa3dbk+Barcha", mirror)]
    listing = subprocess.run(
        [*git, "ls-tree", "-r", BARCHA_COMMIT, "texts"], capture_output=True, text=True, check=False
    ).stdout
    lines: list[str] = []
    for row in sorted(listing.splitlines(), key=lambda r: r.split("\t", 1)[-1]):
        meta, path = row.split("\t", 1)
        if not path.endswith(".txt.gz"):
            continue
        blob = subprocess.run([*git, "cat-file", "blob", meta.split()[2]], capture_output=True, check=False)
        try:
            lines += gzip.decompress(blob.stdout).decode("utf-8", "replace").splitlines()
        except (OSError, EOFError):
            continue
    return [" ".join(words) for words in derja_pieces(lines)]


def _tarc_dev() -> list[str]:
    """TArC's development sentences (bench/data/tarc/dev.tsv), ``arabizi`` tokens only."""
    out, sent = [], []
    for ln in TARC_DEV.read_text("utf-8").splitlines():
        if ln.startswith("#"):
            continue
        if not ln.strip():
            if sent:
                out.append(" ".join(sent))
            sent = []
            continue
        tok, cls, pos = ([*ln.split("\t"), "", ""])[:3]
        if cls == "arabizi" and not pos.startswith(TARC_ASIDE):
            sent.append(tok)
    if sent:
        out.append(" ".join(sent))
    return out


def corpora(mirror: Path = MIRROR) -> dict[str, dict[str, list[str]]]:
    """{script: {variety: lines}} of every source (train and held-out lines together)."""
    ars = _arsarcasm(mirror)
    tsac_ar, tsac_la = _tsac(mirror)
    seed = "openlanguagedata+seed"
    shami = "GU-CLASP+shami-corpus"
    ud = "UniversalDependencies+"
    doda = csv.DictReader(
        io.StringIO(show("darija-open-dataset+dataset", "sentences.csv", DODA_COMMIT, mirror))
    )
    return {
        "arabic": {
            "tunisian": tsac_ar + _barcha(mirror),
            "msa": _conllu_text(ud + "UD_Arabic-PUD", ("ar_pud-ud-test.conllu",), mirror) + ars["msa"],
            "moroccan": show(seed, "seed/ary_Arab", SEED_COMMIT, mirror).splitlines(),
            "egyptian": show(seed, "seed/arz_Arab", SEED_COMMIT, mirror).splitlines() + ars["egypt"],
            "levantine": [
                ln
                for f in ("Data/Lebanees.txt", "Data/Palestinian.txt", "Data/jordinian.txt")
                for ln in show(shami, f, mirror=mirror).splitlines()
            ]
            + ars["levant"]
            + _conllu_text(ud + "UD_South_Levantine_Arabic-MADAR", ("ajp_madar-ud-test.conllu",), mirror),
            "gulf": ars["gulf"],
        },
        "arabizi": {
            "tunisian": tsac_la + _tarc_dev(),
            "moroccan": [row["darija"] for row in doda],
            "french": _conllu_text(
                ud + "UD_French-GSD", ("fr_gsd-ud-dev.conllu", "fr_gsd-ud-test.conllu"), mirror
            ),
            "english": _conllu_text(
                ud + "UD_English-EWT", ("en_ewt-ud-dev.conllu", "en_ewt-ud-test.conllu"), mirror
            ),
            "maltese": _conllu_text(
                ud + "UD_Maltese-MUDT",
                ("mt_mudt-ud-train.conllu", "mt_mudt-ud-dev.conllu", "mt_mudt-ud-test.conllu"),
                mirror,
            ),
            "algerian": _narabizi(mirror),
        },
    }


def tokens(line: str, script: str) -> list[str]:
    """A line's words as the classifier reads them: normalised Arabic words of Arabic letters
    only, or lower-cased Latin words holding a letter."""
    if script == "arabic":
        return [w for w in _WORD.findall(normalize_arabic(line)) if ARABIC_LETTERS.issuperset(w)]
    words = _WORD.findall(line.lower())
    return [latin_spelling(w) for w in words if not w.isdigit() and not _ARABIC.search(w)]


def held_out(line: str) -> bool:
    return zlib.crc32(line.encode("utf-8")) % HELD_OUT_MOD == 0


def split(lines: list[str]) -> tuple[list[str], list[str]]:
    """(train, held-out) of a source's lines, cleaned, each distinct line once, in a fixed order."""
    seen: dict[str, None] = {}
    for ln in lines:
        c = _clean(ln)
        if c:
            seen[c] = None
    uniq = sorted(seen, key=lambda s: zlib.crc32(s.encode("utf-8")))
    return [s for s in uniq if not held_out(s)], [s for s in uniq if held_out(s)]


def heldout(script: str, mirror: Path = MIRROR) -> dict[str, list[str]]:
    """{variety: held-out lines} of one script (for the bench)."""
    return {v: split(lines)[1] for v, lines in corpora(mirror)[script].items()}


def count(script: str, by_variety: dict[str, list[str]]) -> tuple[dict[str, list[int]], dict[int, list[int]]]:
    """(feature → count per variety, order → total per variety) over the training lines."""
    order = SCRIPTS[script]
    k = len(order)
    feats: dict[str, list[int]] = {}
    totals: dict[int, list[int]] = {o: [0] * k for o in (WHOLE, 1, 2, 3, 4)}
    for i, v in enumerate(order):
        n = 0
        for line in split(by_variety[v])[0]:
            if n >= MAX_TRAIN_TOKENS:
                break
            for w in tokens(line, script):
                n += 1
                for o, f in features(w):
                    row = feats.get(f)
                    if row is None:
                        row = feats[f] = [0] * k
                    row[i] += 1
                    totals[o][i] += 1
    return feats, totals


def write(script: str, feats: dict[str, list[int]], totals: dict[int, list[int]], sources: str) -> Path:
    path = MODEL_DIR / f"{script}.tsv"
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = [
        f"# Variety classifier tables ({script}), built by bench/build_variety_model.py; sources and "
        "licences in NOTICE.md.",
        f"# {sources}",
        "variety\t" + "\t".join(SCRIPTS[script]),
    ]
    lines += [f"@total{o}\t" + "\t".join(map(str, t)) for o, t in sorted(totals.items())]
    kept = sorted(f for f, row in feats.items() if sum(row) >= MIN_COUNT)
    lines += [f + "\t" + "\t".join(map(str, feats[f])) for f in kept]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mirror", type=Path, default=MIRROR)
    args = ap.parse_args()
    data = corpora(args.mirror)
    for script in SCRIPTS:
        by = data[script]
        sizes = ", ".join(f"{v} {len(split(by[v])[0])} lines" for v in SCRIPTS[script])
        feats, totals = count(script, by)
        path = write(script, feats, totals, "training lines: " + sizes)
        print(f"{path.relative_to(ROOT)}: {path.stat().st_size / 1e6:.2f} MB; {sizes}")


if __name__ == "__main__":
    main()
