"""The form catalogue: every form the run teaches, as data, read by both the scorer and the dataset
builder, so a prompt can never ask for a shape the scorer does not expect.

Topology notation (docs/scorer.md): capitals are poem-wide rhymes, lower case change per
stanza, ``R`` is a verbatim refrain. Two kinds of form exist:

* ``strophic``: stanzas of ``lines`` segments; all segments but the last share the stanza's own
  rhyme, the last carries the poem-wide rhyme (malzuma, mugef, muthallath, mukhammas, msaddes).
  The malzuma also opens with a couplet (maṭlaʿ) in the poem-wide rhyme and may repeat the
  couplet's first half-line after each stanza as a refrain.
* ``bayt``: lines of two hemistichs; the second halves share one rhyme; in the gsim the first
  halves also share one (different) rhyme, in the qasida they are free.

Where the tradition is unsettled (the reference marks these UNCONFIRMED) the choice made here is a
parameter of the entry:

* malzuma: 3 stanza lines + 1 closing line by default (2–6 stanza lines allowed), 5 stanzas (4–6);
  the opening is one bayt (``A ** A``) or two lines; the refrain is the opening's first hemistich,
  optional unless ``references.refrain == "yes"``; stanza rhymes must differ from A and
  differing from each other is rewarded.
* mugef: one unit is four segments, written as four lines or as two lines of two hemistichs.
* msaddes: no source gives its scheme; ``aaaaaB`` (the mugef pattern) is the default.
* muthallath: the general Arabic ``aaB`` three-part stanza; Tunisian use is unconfirmed.
* gsim and qasida: ``references.stanzas`` counts bayts (lines), since they have no stanzas.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal


@dataclass(frozen=True, slots=True)
class FormSpec:
    """One poetic form. Counts are (default, (min, max)) pairs; see the module doc."""

    id: str
    kind: Literal["strophic", "bayt"]
    pattern: str
    names: dict[str, str]
    stanzas: int
    stanzas_range: tuple[int, int]
    lines: int = 0
    lines_range: tuple[int, int] = (0, 0)
    opening: bool = False
    refrain: Literal["none", "optional"] = "none"
    first_half: Literal["shared", "free"] = "free"
    aliases: tuple[str, ...] = field(default_factory=tuple)

    @property
    def template(self) -> str:
        """The prompt's wording for the form (`_T`): the malzuma, the gsim and the qasida have their
        own; every other strophic form shares one."""
        return self.id if self.id in ("malzuma", "gsim", "qasida") else "strophic"

    @property
    def rhymes_change(self) -> bool:
        """Whether the prompt asks each stanza for a rhyme of its own that changes from stanza to
        stanza (the strophic wording); the malzuma's asks it only "ideally"."""
        return self.template == "strophic"


FORMS: dict[str, FormSpec] = {
    f.id: f
    for f in (
        FormSpec(
            id="malzuma",
            kind="strophic",
            pattern="AA | bbbA R | cccA R | dddA R | eeeA R | fffA R",
            names={"derja": "ملزومة", "msa": "ملزومة", "fr": "malzouma", "en": "malzuma"},
            stanzas=5,
            stanzas_range=(4, 6),
            lines=4,
            lines_range=(3, 7),
            opening=True,
            refrain="optional",
            aliases=("malzouma", "malzoma", "ملزومة", "الملزومة"),
        ),
        FormSpec(
            id="gsim",
            kind="bayt",
            pattern="a|B a|B a|B …",
            names={"derja": "ڨسيم", "msa": "قسيم", "fr": "gsim", "en": "gsim"},
            stanzas=10,
            stanzas_range=(6, 24),
            first_half="shared",
            aliases=("qsim", "qassim", "gsem", "ڨسيم", "قسيم", "القسيم"),
        ),
        FormSpec(
            id="mugef",
            kind="strophic",
            pattern="aaaB cccB dddB …",
            names={"derja": "موڨف", "msa": "موقف", "fr": "mouguef", "en": "mugef"},
            stanzas=5,
            stanzas_range=(3, 8),
            lines=4,
            lines_range=(4, 4),
            aliases=("mouguef", "mukef", "mouqef", "موڨف", "موقف", "الموقف"),
        ),
        FormSpec(
            id="muthallath",
            kind="strophic",
            pattern="aaB ccB ddB …",
            names={"derja": "مثلّث", "msa": "مثلّث", "fr": "mouthallath", "en": "muthallath"},
            stanzas=6,
            stanzas_range=(3, 10),
            lines=3,
            lines_range=(3, 3),
            aliases=("mutawallith", "mouthallath", "مثلث", "المثلث"),
        ),
        FormSpec(
            id="mukhammas",
            kind="strophic",
            pattern="aaaaB ccccB …",
            names={"derja": "مخمّس", "msa": "مخمّس", "fr": "moukhammas", "en": "mukhammas"},
            stanzas=5,
            stanzas_range=(3, 8),
            lines=5,
            lines_range=(5, 5),
            aliases=("moukhammas", "mkhammes", "مخمس", "المخمس"),
        ),
        FormSpec(
            id="msaddes",
            kind="strophic",
            pattern="aaaaaB cccccB …",
            names={"derja": "مسدّس", "msa": "مسدّس", "fr": "m'seddes", "en": "msaddes"},
            stanzas=4,
            stanzas_range=(3, 8),
            lines=6,
            lines_range=(6, 6),
            aliases=("mseddes", "m'seddes", "mussaddes", "musaddas", "مسدس", "المسدس"),
        ),
        FormSpec(
            id="qasida",
            kind="bayt",
            pattern="x|A x|A x|A …",
            names={"derja": "قصيدة", "msa": "قصيدة عمودية", "fr": "qasida", "en": "qasida"},
            stanzas=10,
            stanzas_range=(5, 30),
            first_half="free",
            aliases=("qasida", "qaside", "kasida", "قصيدة", "القصيدة"),
        ),
    )
}

_ALIASES: dict[str, str] = {}
for _f in FORMS.values():
    _ALIASES[_f.id] = _f.id
    for _a in _f.aliases:
        _ALIASES[_a] = _f.id


def lookup(form: str | None) -> FormSpec | None:
    """The form for an id or a known alias (case and surrounding space ignored), else None."""
    if not form:
        return None
    return FORMS.get(_ALIASES.get(form.strip().lower(), ""))


LANGUAGES = ("derja", "msa", "fr", "en")
_LANG_ALIASES = {
    "tn": "derja",
    "aeb": "derja",
    "tunisian": "derja",
    "darija": "derja",
    "ar": "msa",
    "arabic": "msa",
    "fusha": "msa",
    "french": "fr",
    "français": "fr",
    "english": "en",
}

# Wording, per language. {name} form name, {n} count, {k} segments per stanza, {m} = k - 1,
# {theme} the theme clause (may be empty), {script} the script sentence.
_T: dict[str, dict[str, str]] = {
    "en": {
        "theme": " about {theme}",
        "malzuma": (
            "Write a Tunisian {name}{theme}. Open with one verse of two half-lines separated by ' ** ', "
            "both half-lines on the same main rhyme. Then write {n} stanzas, separated by blank lines; "
            "each stanza has {m} lines sharing a rhyme of their own (different from the main rhyme and, "
            "ideally, from the other stanzas) and one closing line that returns to the main rhyme."
        ),
        "refrain_yes": (
            " After each stanza, repeat the first half-line of the opening, word for word, as a refrain."
        ),
        "refrain_no": " Do not add a refrain.",
        "strophic": (
            "Write a Tunisian {name}{theme}: {n} stanzas of {k} lines, separated by blank lines. In each "
            "stanza the first {m} lines share a rhyme of their own that changes from stanza to stanza, "
            "and the last line carries one rhyme kept through the whole poem."
        ),
        "gsim": (
            "Write a Tunisian {name}{theme}: {n} verses, one per line, each split into two half-lines by "
            "' ** '. All first half-lines share one rhyme and all second half-lines share another rhyme."
        ),
        "qasida": (
            "Write a classical {name}{theme}: {n} verses, one per line, each split into two half-lines by "
            "' ** '. Every second half-line ends on the same rhyme letter (monorhyme)."
        ),
        "arabic": " Write in Tunisian Arabic, in Arabic script.",
        "arabizi": " Write in Tunisian Arabizi (Latin letters, with 3, 5, 7, 9 for ع, خ, ح, ق).",
        "end": " Give only the poem: no title, no explanation.",
    },
    "fr": {
        "theme": " sur le thème : {theme}",
        "malzuma": (
            "Écris une {name} tunisienne{theme}. Commence par un vers de deux hémistiches séparés par "
            "' ** ', tous deux sur la même rime principale. Puis écris {n} strophes séparées par une ligne "
            "vide ; chaque strophe a {m} vers sur une rime propre (différente de la rime principale et, si "
            "possible, des autres strophes) et un vers final qui revient à la rime principale."
        ),
        "refrain_yes": (
            " Après chaque strophe, reprends mot pour mot le premier hémistiche de l'ouverture comme refrain."
        ),
        "refrain_no": " N'ajoute pas de refrain.",
        "strophic": (
            "Écris un {name} tunisien{theme} : {n} strophes de {k} vers, séparées par une ligne vide. Dans "
            "chaque strophe, les {m} premiers vers partagent une rime propre qui change d'une strophe à "
            "l'autre, et le dernier vers porte une rime unique gardée dans tout le poème."
        ),
        "gsim": (
            "Écris un {name} tunisien{theme} : {n} vers, un par ligne, chacun coupé en deux hémistiches par "
            "' ** '. Tous les premiers hémistiches riment ensemble, et tous les seconds sur une autre rime."
        ),
        "qasida": (
            "Écris une {name} classique{theme} : {n} vers, un par ligne, chacun coupé en deux hémistiches "
            "par ' ** '. Tous les seconds hémistiches finissent sur la même rime (monorime)."
        ),
        "arabic": " Écris en dialecte tunisien, en alphabet arabe.",
        "arabizi": " Écris en arabizi tunisien (lettres latines, avec 3, 5, 7, 9 pour ع, خ, ح, ق).",
        "end": " Donne seulement le poème : pas de titre, pas d'explication.",
    },
    "msa": {
        "theme": " عن {theme}",
        "malzuma": (
            "اكتب {name} تونسية{theme}. ابدأ بمطلع من بيت واحد شطراه مفصولان بـ ' ** ' وعلى القافية الرئيسية "
            "نفسها. ثم اكتب {n} أعراف يفصل بينها سطر فارغ؛ في كل عرف {m} أسطر على قافية خاصة به (تختلف عن "
            "القافية الرئيسية، ويُستحسن أن تختلف عن قوافي الأعراف الأخرى) وسطر أخير يعود إلى القافية الرئيسية."
        ),
        "refrain_yes": " بعد كل عرف كرّر الشطر الأول من المطلع بلفظه لازمةً.",
        "refrain_no": " لا تضف لازمة.",
        "strophic": (
            "اكتب {name} تونسيًا{theme}: {n} مقاطع في كل منها {k} أسطر، يفصل بينها سطر فارغ. في كل مقطع تشترك "
            "الأسطر الـ{m} الأولى في قافية خاصة تتغير من مقطع إلى آخر، ويحمل السطر الأخير قافية واحدة ثابتة "
            "في القصيدة كلها."
        ),
        "gsim": (
            "اكتب {name} تونسيًا{theme}: {n} أبيات، بيت في كل سطر، شطراه مفصولان بـ ' ** '. تتفق الأشطر "
            "الأولى كلها في قافية، والأشطر الثانية كلها في قافية أخرى."
        ),
        "qasida": (
            "اكتب {name}{theme}: {n} أبيات، بيت في كل سطر، شطراه مفصولان بـ ' ** '. تنتهي الأشطر الثانية "
            "كلها بالروي نفسه."
        ),
        "arabic": " اكتب باللهجة التونسية وبالحروف العربية.",
        "arabizi": " اكتب بالعربيزي التونسي (حروف لاتينية مع 3 و5 و7 و9 للعين والخاء والحاء والقاف).",
        "end": " اكتب القصيدة وحدها: بلا عنوان ولا شرح.",
    },
    "derja": {
        "theme": " على {theme}",
        "malzuma": (
            "اكتبلي {name}{theme}. ابدا بمطلع بيت واحد، شطريه مفرّقين بـ ' ** ' والزوز على القافية الكبيرة. "
            "من بعد اكتب {n} أعراف، بين عرف وعرف سطر فارغ؛ كل عرف فيه {m} سطور على قافية متاعو وحدو (موش "
            "كيف القافية الكبيرة، وخير كان ما تشبهش لقوافي الأعراف لخرين) وسطر لخراني يرجع للقافية الكبيرة."
        ),
        "refrain_yes": " من بعد كل عرف عاود الشطر الأول متاع المطلع كيف ما هو، هو الردّة.",
        "refrain_no": " ما تزيدش ردّة.",
        "strophic": (
            "اكتبلي {name}{theme}: {n} مقاطع، كل مقطع فيه {k} سطور، وبين مقطع ومقطع سطر فارغ. في كل مقطع "
            "الـ{m} سطور اللولين على قافية وحدة تتبدّل من مقطع لمقطع، والسطر لخراني على قافية وحدة تلمّ "
            "القصيدة الكل."
        ),
        "gsim": (
            "اكتبلي {name}{theme}: {n} بيت، كل بيت في سطر، شطريه مفرّقين بـ ' ** '. الأشطر اللولة الكل على "
            "قافية وحدة، والأشطر الثانية الكل على قافية أخرى."
        ),
        "qasida": (
            "اكتبلي {name}{theme}: {n} بيت، كل بيت في سطر، شطريه مفرّقين بـ ' ** '. الأشطر الثانية الكل "
            "يوفاو بنفس الروي."
        ),
        "arabic": " اكتب بالتونسي وبالحروف العربية.",
        "arabizi": " اكتب بالعربيزي التونسي (حروف لاتينية و 3 و 5 و 7 و 9 في بلاصة ع خ ح ق).",
        "end": " اعطيني الشعر برك، بلا عنوان وبلا شرح.",
    },
}


def instruction(
    form: str,
    stanzas: int | str | None = None,
    refrain: str | bool | None = None,
    script: str = "arabic",
    language: str = "derja",
    theme: str = "",
) -> str:
    """The prompt text for one dataset line, worded from the same entry the scorer reads.

    ``stanzas`` (stanzas, or bayts for gsim/qasida) defaults to the form's default; ``refrain``
    (``"yes"``/``"no"``/bool) only applies to forms with a refrain; ``script`` is ``arabic`` or
    ``arabizi``; ``language`` is ``derja``, ``msa``, ``fr`` or ``en`` (the language of the
    instruction, not of the poem). Raises ``ValueError`` for an unknown form, language or script,
    since a dataset line with a wrong prompt must never be written.
    """
    spec = lookup(form)
    if spec is None:
        raise ValueError(f"unknown form {form!r}; known: {', '.join(FORMS)}")
    lang = _LANG_ALIASES.get(language.strip().lower(), language.strip().lower())
    if lang not in _T:
        raise ValueError(f"unknown language {language!r}; known: {', '.join(LANGUAGES)}")
    if script not in ("arabic", "arabizi"):
        raise ValueError(f"unknown script {script!r}; use 'arabic' or 'arabizi'")
    t = _T[lang]
    n = int(stanzas) if stanzas not in (None, "") else spec.stanzas
    if n < 1:
        raise ValueError("stanzas must be a positive whole number")
    k = spec.lines
    theme_clause = t["theme"].format(theme=theme.strip()) if theme and theme.strip() else ""
    template = spec.template
    text = t[template].format(name=spec.names[lang], theme=theme_clause, n=n, k=k, m=max(k - 1, 1))
    if spec.refrain != "none":
        want = refrain if isinstance(refrain, bool) else str(refrain or "yes").strip().lower() == "yes"
        text += t["refrain_yes"] if want else t["refrain_no"]
    return text + t[script] + t["end"]
