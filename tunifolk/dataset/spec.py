"""What a dataset line is, shared by the builder and the checker: the service's limits, the
reference keys and scripts the scorer reads, the system instructions (one per instruction language,
read back by the checker's statistics) and the conservative token estimate both sides apply.

One definition of each so the builder can never write a line the checker would reject for a limit
it does not know about.
"""

from __future__ import annotations

import math
from typing import Any

# --- service limits (docs/vertex.md, "Limits") -------------------------------------------------------

TRAIN_LIMIT = 5_000
VALIDATION_LIMIT = 500
INPUT_TOKEN_LIMIT = 32_768
FILE_BYTES_LIMIT = 1_000_000_000
"""1 GB read as 10⁹ bytes, the stricter reading of the documented limit."""

MAX_DUPLICATE_SHARE = 0.05
"""The share of a file's examples that may repeat an earlier prompt before `dataset check` calls it a
problem (exit 1); below it each repeat is a warning. Not a service limit (Google accepts repeats):
every prompt is sampled `samplesPerPrompt` times per step, so a repeated prompt weighs double in the
reward's gradient, and a few repeats are a slip while many are a builder bug."""

REFERENCE_KEYS = ("form", "stanzas", "refrain", "script", "theme")
SCRIPTS = ("arabic", "arabizi")

SYSTEM_INSTRUCTIONS: dict[str, str] = {
    "en": (
        "You are a Tunisian folk poet. You know the malzuma, the gsim and the other forms of Tunisian "
        "popular poetry, and you keep a form exactly: its rhymes, its number of stanzas and its refrain. "
        "Answer with the poem only."
    ),
    "fr": (
        "Tu es un poète populaire tunisien. Tu connais la malzouma, le gsim et les autres formes de la "
        "poésie populaire tunisienne, et tu respectes une forme exactement : ses rimes, son nombre de "
        "strophes et son refrain. Réponds seulement par le poème."
    ),
    "msa": (
        "أنت شاعر شعبي تونسي. تعرف الملزومة والقسيم وسائر أشكال الشعر الشعبي التونسي، وتلتزم بالشكل "
        "بدقة: قوافيه وعدد مقاطعه ولازمته. أجب بالقصيدة وحدها."
    ),
    "derja": (
        "إنت شاعر شعبي تونسي. تعرف الملزومة والڨسيم وأشكال الشعر الشعبي التونسي الكل، وتحترم الشكل كيف ما "
        "هو: قوافيه وعدد أعرافه والردّة متاعو. جاوب بالشعر برك."
    ),
}
"""One system instruction per instruction language; the language of a line is read back from it."""


# --- token estimate -------------------------------------------------------------------------------


def estimate_tokens(text: str) -> int:
    """A conservative (high) token count with no tokenizer at hand: one token per non-ASCII
    character (Arabic letters are 2 UTF-8 bytes: bytes / 2), one per 3 ASCII characters. Real
    Gemini tokenizers give about 4 ASCII characters and 2–3 Arabic letters per token, so the
    estimate overshoots, which is the safe side of a limit."""
    non_ascii = sum(1 for ch in text if ord(ch) > 127)
    return non_ascii + math.ceil((len(text) - non_ascii) / 3)


def example_tokens(example: dict[str, Any]) -> int:
    """Estimated input tokens of one well-formed line: system instruction and every turn's text,
    plus 4 tokens of framing per turn and per part."""
    total = 0
    contents = [example.get("systemInstruction") or {"parts": []}, *example.get("contents", [])]
    for content in contents:
        total += 4
        for part in content.get("parts", []):
            total += 4 + estimate_tokens(part.get("text", "") if isinstance(part, dict) else "")
    return total
