"""Derive ``scorer/lexicon/frame_words.txt``: the common words of English and French, the languages a
Tunisian poem's frame (an intro, a title, a note) is written in besides Derja, for
``scorer.hidden.foreign_frame`` (docs/scorer.md, "A frame in another language").

The words come from wordfreq 3.1.1 (Robyn Speer; data CC BY-SA 4.0, from Wikipedia, OpenSubtitles,
Google Books Ngrams, SUBTLEX, the Leeds Internet Corpus and ParaCrawl, among others): the TOP most
frequent of each language (Zipf frequency about 3, once per million words, at that rank), folded
as the parser folds a response (``normalize_arabic``, lower case), letters only, three or more.
wordfreq is a tool of this script, not of the scorer: run it by hand in an environment that has it,

    python -m venv /tmp/wf && /tmp/wf/bin/pip install wordfreq==3.1.1
    TUNIFOLK_SCORER_PURE=1 /tmp/wf/bin/python bench/derive_frame_words.py

and commit the file it writes.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "scorer" / "lexicon" / "frame_words.txt"
TOP = 30_000
LANGUAGES = ("en", "fr")
_WORD = re.compile("[a-z\u00c0-\u024f]{3,}")

HEADER = """\
# Common English and French words (the {top} most frequent of each), folded as the parser folds a
# response: the frame of a poem in these languages is no frame in another language
# (scorer/hidden.py, foreign_frame). Derived by bench/derive_frame_words.py from wordfreq 3.1.1 by
# Robyn Speer (https://github.com/rspeer/wordfreq), whose data is licensed CC BY-SA 4.0
# (https://creativecommons.org/licenses/by-sa/4.0/) and derived from Wikipedia, OpenSubtitles 2018
# (opensubtitles.org), Google Books Ngrams (http://books.google.com/ngrams), SUBTLEX (Brysbaert et
# al.), the Leeds Internet Corpus and ParaCrawl, among others. This file is under CC BY-SA 4.0.
"""


def main() -> int:
    try:
        from wordfreq import top_n_list
    except ImportError:
        print("wordfreq is not installed: see this script's docstring", file=sys.stderr)
        return 2
    sys.path.insert(0, str(ROOT))
    from scorer.arabic import normalize_arabic

    words: set[str] = set()
    for lang in LANGUAGES:
        for w in top_n_list(lang, TOP):
            folded = normalize_arabic(w).lower()
            if _WORD.fullmatch(folded):
                words.add(folded)
    OUT.write_text(HEADER.format(top=f"{TOP:,}") + "\n".join(sorted(words)) + "\n", encoding="utf-8")
    print(f"{OUT.relative_to(ROOT)}: {len(words):,} words")
    return 0


if __name__ == "__main__":
    sys.exit(main())
