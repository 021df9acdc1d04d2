"""What counts as a word, beyond the lexicon: the closed list of short words, and the shapes that are
pieces of words, not words (docs/scorer.md, "Every word counts").

The Arabic-script lexicon (wordfreq at Zipf ≥ 2) knows most two-letter strings and many word
fragments (`الح`, `الج`, `يله`), so a line of random letter pairs or of words cut in half read as
language. A word of one or two letters is therefore a word only if it is one of the short words
Tunisian poems use (particles, pronouns, and the few two-letter nouns and verbs: حب, رب, خد, جا …),
and the article with one letter after it (`الح`) is never one. The list is written normalised, as
`scorer.arabic.normalize_arabic` leaves a poem (hamzas on alef folded to ا, ة to ه, ى to ي).
Pure data and two set lookups: no I/O, nothing per call beyond them.
"""

from __future__ import annotations

SHORT_ARABIC = frozenset(
    """
    و ف ب ل ك ع
    يا في ما لا من عن مع كي لو هو هي هم ها او ان اي اه اش شي كل قد ذا
    لي لك له بي بك به يه مش تو
    حب رب خد جد حد بن اب ام اخ عم خو بو يد دم فم ضي نص رد جا صف شط ظل حق سر مر كف عز غم
    بر جو صح دق شد مد خط عش دف لف حس فن سد ضل ذل بت مي
    """.split()  # noqa: SIM905  (a table of words reads better as text)
)
"""Words of one or two letters that count as words in Arabic script (the poems of `data/samples` and
the genuine poems of `tests/redteam_rounds/` use only these)."""

FUNCTION_WORDS = frozenset(
    """
    انا انت انتي انتم انتوما هو هي هوما احنا نحنا اني
    هذا هذه هذي هاذا هاذي هاذوما هاك هذاك هذيك هاذاك هاذيك
    اللي الي الذي التي على علي الي الى علاش باش بش كان كيف كيفاش وقتاش وين فين شنوه شنو اش اشنوه
    عند عندي عندك متاع متاعي بين حتى حتي لين لين ياخي راهو راهي راني راك امالا ايا زاده زاده برشا
    توا ديما مازال لازم تحت فوق قدام وراء ورا مع معا كيما كما لكن اما اما او ولا والا ثم بعد قبل
    ماهو ماهي مانيش ماكش موش مش شي حد كل كلها كلهم برشه ياسر توه توه بلاش غير الا الا
    ya fi ma la min mel men 3la ala w wel el l b bel fel ki kif kifech ken kan ana enti inti enta
    houwa howa hiya hia hia a7na ahna e7na ena ntouma houma elli illi eli li bech besh bich 3lech alech chnowa
    chnoua ach wa9tech wakt win fin 3and 3and mte3 mta3 bin 7atta hatta lin yakhi raho rahi rani rak
    amala zeda barcha tawa taw dima mazel lazem ta7t fou9 9odem mouch moch mch mech ch chay 7ad kol
    """.split()  # noqa: SIM905
)
"""Function words (pronouns, particles, prepositions, demonstratives, interrogatives, common
adverbs), Arabic script normalised and Arabizi lower case: a hemistich whose body holds nothing
else says nothing (a line of particles ending in a rhyme word is not verse)."""

ARTICLE = "ال"


FUNCTION_WORD_LETTERS = 2
"""Words of at most this many letters (يا, في, ما, ya, fi, w, el) are function words."""


def is_function_word(word: str) -> bool:
    """One of FUNCTION_WORDS, or a word of at most FUNCTION_WORD_LETTERS letters (clitics, particles)."""
    return len(word) <= FUNCTION_WORD_LETTERS or word.lower() in FUNCTION_WORDS


def is_piece(word: str) -> bool:
    """A token that is not a word whatever the lexicon says: a short Arabic-script token off the closed
    list, or the article with at most one letter after it. Latin-script (Arabizi) tokens are judged
    by the Arabizi lexicon alone, which is curated and holds no such fragments."""
    n = len(word)
    if n > 3 or not word or word[0].isascii():
        return False
    if n <= 2:
        return word not in SHORT_ARABIC
    return word.startswith(ARTICLE)
