"""Data: the emulated policy's forms and word lists (no logic; `policy` writes poems from them).

`FORMS` mirrors the scorer's catalogue (scorer/catalogue.py), never imported from it, so the
emulator reaches the scorer only over HTTP. `RHYMES` and `RHYMES_LATIN` are rhyme words grouped by
rhyme (Arabic script and Tunisian Arabizi); `FILLERS` are glue words (the thought's), `IMAGERY` the
images the judge rewards, `PADDING` the theme-free words of the hacking policy, and the phrase slots
(`PREPOSITIONS`, `VERBS`, …, `phrases` puts them in Derja order); each has an Arabizi twin.
tests/test_emulator_policy.py holds the rhyme groups to the real scorer.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Form:
    """The shape the policy writes, mirrored from the scorer's catalogue (never imported from it)."""

    kind: str  # "strophic" | "bayt"
    stanzas: int  # default count: stanzas, or bayts for bayt forms
    lines: int = 0  # segments per stanza, the closing line on the main rhyme included
    opening: bool = False
    refrain: bool = False
    shared_first: bool = False
    names: tuple[str, ...] = ()  # ids, names in every prompt language and aliases


FORMS: dict[str, Form] = {
    "malzuma": Form(
        "strophic", 5, 4, opening=True, refrain=True, names=("malzuma", "malzouma", "malzoma", "ملزومة")
    ),
    "gsim": Form("bayt", 10, shared_first=True, names=("gsim", "qsim", "qassim", "gsem", "ڨسيم", "قسيم")),
    "mugef": Form("strophic", 5, 4, names=("mugef", "mouguef", "mukef", "mouqef", "موڨف", "موقف")),
    "muthallath": Form("strophic", 6, 3, names=("muthallath", "mouthallath", "mutawallith", "مثلث")),
    "mukhammas": Form("strophic", 5, 5, names=("mukhammas", "moukhammas", "mkhammes", "مخمس")),
    "msaddes": Form(
        "strophic", 4, 6, names=("msaddes", "mseddes", "m'seddes", "mussaddes", "musaddas", "مسدس")
    ),
    "qasida": Form("bayt", 10, names=("qasida", "qaside", "kasida", "قصيدة")),
}
DEFAULT_FORM = "malzuma"


def _w(words: str) -> list[str]:
    return words.split()


# Rhyme words, one group per rhyme. Within a group every word has the same rhyme key for the scorer
# (rawī, ridf, waṣl); across groups the rawīs differ and are not near-articulation pairs (so ن and م,
# ق and ك, ت and ط… never both appear). tests/test_emulator_policy.py checks this with the real scorer.
RHYMES: dict[str, list[str]] = {
    "ار": _w(
        "الدار النار الأسرار الأخبار الأشجار الأمطار الأزهار البحّار الأنوار الأقدار المشوار النهار القرار "
        "الحوار الأفكار المطار المسار التيار الانتظار الجدار القطار الجوار الأوتار الأعمار الزوار الثمار "
        "الأنهار"
    ),
    "ان": _w(
        "الزمان المكان الأمان الحنان البستان الألوان الإنسان الفنان الرمان الأوطان الألحان النسيان السكان "
        "البلدان الأحيان الإيمان البيان الميدان العنوان المهرجان الجدران اللسان الدخان الريحان الفرسان "
        "الغزلان"
    ),
    "ال": _w(
        "الجمال الخيال الرجال الحال السؤال الجبال الآمال الظلال الهلال المحال الرمال الموال الأطفال "
        "الأعمال المال المثال المجال الشمال الأحوال الاحتفال الأبطال الأجيال البرتقال الغزال"
    ),
    "يد": _w(
        "جديد العيد النشيد الوعود الحدود العود السعيد الوريد الحديد الورود الخدود المزيد الوحيد البريد "
        "الشديد الجنود الموجود الصيد الوجود البعيد القيود التغريد التجديد"
    ),
    "اب": _w(
        "العتاب الأحباب الباب السحاب الشباب الغياب التراب الكتاب الجواب الصواب الضباب السراب الذهاب الشاب "
        "الألعاب الخطاب الأسباب الحساب الأبواب الركاب الأعشاب الاقتراب الإعجاب الشراب"
    ),
    "يع": _w(
        "الربيع بديع الدموع الشموع القطيع الطلوع سريع رفيع الرجوع الخشوع الضلوع الربوع الموضوع الأسبوع النوع "
        "المشروع البيع الجوع التوقيع الوقوع الركوع الينبوع الصقيع"
    ),
    "يق": _w(
        "الطريق الصديق الرفيق عميق الحريق بريق الشروق الشوق العروق السوق الرحيق العتيق الفريق الحقوق "
        "الدقيق الضيق العشيق الإبريق المضيق"
    ),
    "اس": _w(
        "الناس الساس الأجراس الكاس الإحساس الأنفاس الحراس القياس النعاس الأعراس اللباس الألماس الرأس "
        "الأساس النحاس الحماس الأكياس"
    ),
    "ات": _w(
        "الساعات الذكريات الكلمات البنات الحكايات السنوات الأبيات الأصوات النسمات الخطوات الغابات الحياة "
        "العلاقات الحالات الفتيات الجامعات الأغنيات الضحكات النظرات اللحظات الأمنيات"
    ),
    "يف": _w(
        "الخريف ضعيف الضيف الرصيف اللطيف الصيف الشريف النظيف الخوف مكشوف الحروف السيوف المعروف الظروف "
        "الوقوف الريف السيف الضيوف الصفوف الرغيف الطريف"
    ),
    "اح": _w(
        "الصباح الرياح الجراح الأفراح المفتاح السماح الملاح المصباح النجاح الفلاح الأرواح السلاح الجناح "
        "الأرباح الافتتاح التفاح الارتياح الكفاح الوشاح المزاح"
    ),
    "اش": _w("الفراش المعاش عطاش الرشاش القماش الخشخاش النقاش الانتعاش الارتعاش البشاش"),
    "اج": _w(
        "الأمواج السراج التاج الحاج الزواج الأبراج الديباج العلاج السياج الأفواج الزجاج الإنتاج الدجاج "
        "المزاج الأزواج الحجاج"
    ),
}
# Tunisian Arabizi (3=ع 5=خ 7=ح 9=ق 8/gh=غ): groups by ending, same rules as above.
RHYMES_LATIN: dict[str, list[str]] = {
    "ar": _w(
        "eddar ennar nhar lasrar le5bar l9mar lazhar lechjar lemchwar lebhar sghar lamtar dwar 9rar jdar "
        "ghbar 5yar 9tar kbar mzar"
    ),
    "an": _w(
        "zman mkan laman l7nan bostan lalwan fannan rayhan lawtan linsan nisyan romman ghezlan fersan "
        "jiran dokkan 3onwan mizan lsan"
    ),
    "al": _w(
        "jmal 5yal rjal l7al s2al jbal l2amal dlal lhlal lm7al rmal mawwal lmal 5al 3yal twal ghzal "
        "bortgal mthal chmal"
    ),
    "id": _w(
        "jdid l3id nchid s3id lwrid 7did lw3oud l7doud l3oud lwroud 5doud mdid 3bid wa7id jrid 9did tghrid"
    ),
    "ab": _w(
        "l3tab l7bab lbab s7ab chbab ghyab ettrab lektab jwab sswab dhbab srab dhhab chrab 7sab 3dhab "
        "ghrab tyab 3nab"
    ),
    "i3": _w(
        "rbi3 dmou3 chmou3 jmi3 tlou3 sri3 rfi3 rjou3 5chou3 dhlou3 rbou3 tbi3 wdi3 sni3 mti3 wsi3 rdhi3 "
        "chfi3"
    ),
    "i9": _w("tri9 sdi9 rfi9 3mi9 7ri9 bri9 chrou9 chou9 3rou9 sou9 dhi9 3ti9 ghri9 3chi9 rchi9 s7i9 wthi9"),
    "as": _w("ennas essas lajras lkas l7ses nfas l7ras n3as la3ras lalmas lbas 9yas 7mas wswas ghtas"),
    "at": _w(
        "sa3at dhikrayat klmat bnat 7kayat snawat labyat laswat nasmat 5twat da3wat ghabat ghnayat sahrat "
        "3adat 7alat zahrat lamsat nadhrat"
    ),
    "if": _w(
        "5rif dh3if dhif rsif ltif essif chrif ndhif 5ouf mkchouf l7rouf syouf rghif 5fif nsif tlif dhrif "
        "mnif"
    ),
    "a7": _w(
        "sba7 riya7 jra7 afra7 mefta7 sma7 mla7 msba7 nja7 rta7 fla7 arwa7 kfa7 wcha7 mza7 tfa7 lga7 9da7"
    ),
    "ach": _w("frach m3ach 3tach rchach 9mach bchach n9ach lkbach nti3ach rti3ach 3rach rmach ghchach 5mach"),
    "aj": _w(
        "lemwaj sraj ettaj el7aj ezzwaj labraj 3laj syaj zjaj lafwaj dbaj minhaj 7jaj mraj hyaj nsaj 5raj"
    ),
}
# Glue words: particles, pronouns and common verbs, neutral for the judge.
FILLERS = _w(
    "يا في على من نحكيلك برشا توا هاك خويا والله ما زين خاطري نمشي نستنى بين مع "
    "كيف غدوة نحب يما ديما معاك سهران نغني عمري نكتب ندور نشوف كيفاش وقتاش حلوة هاني"
)
FILLERS_LATIN = _w(
    "ya fi 3la men n7kilek barcha tawa hak 5ouya wallah ma zin 5atri nemchi nestanna "
    "bin m3a kif ghodwa n7eb yomma dima m3ak sahran nghanni 3omri nekteb ndour nchouf "
    "kifech waktech 7lowa hani"
)
# Images a poem on any of the dataset's themes is made of; the judge rewards them.
IMAGERY = _w(
    "قلبي بلادي عيني ريح ضي صوت البحر الموج الشمس القمر الليل النجمة الزيتون الياسمين الغيمة "
    "الوردة النخلة المطر الشراع الحنين الشوق الدمعة الجبل الصحراء الغربة الفجر الطير السنبلة "
    "الغابة النسمة السماء المرسى الفل الحمامة الوادي الشجرة الزهرة القنديل الشمعة السحاب الرمل الواحة "
    "الكرمة الرمان الحقل النسيم الندى الربيع العصفور البحيرة الصخرة"
)
IMAGERY_LATIN = _w(
    "galbi bledi 3ini ri7 dhaw sout lb7ar lmouj echams lgmar llil nejma zitouna yasmin ghima "
    "warda ne5la chta chra3 l7nin chou9 dam3a jbal sa7ra ghorba fjer tir sonbla ghaba nesma sma "
    "marsa fell 7mema wed chajra zahra cham3a s7ab rmel we7a karma romman 7a9l nsim rbi3 b7ira"
)
# Theme-free padding: distinct, normal-length words that say nothing (enough of them that eight drawn
# per line rarely repeat an earlier line's word pair, which the scorer reads as a copy). The hack's
# line bodies; the judge punishes them. The real scorer does not read words for sense and cannot tell
# them apart.
PADDING = _w(
    "حاجة شي كلام عادي يعني بالطبيعة مثلا أكيد بصراحة نورمال كيما زادة هاذاكا برك ياخي مالا "
    "هوكا كيفكيف بالحق اكاهو عاد حكاية موضوع نوع طريقة مسألة حالة شوية أمور ساعات بالكل "
    "خاصة عامة تقريبا حسب كذلك فمة مرات حتى باهي ولا واضح بسيط كامل عموما"
)
PADDING_LATIN = _w(
    "7aja chay klem 3adi ya3ni tabi3i mathalan akid bsara7a normal kima zada hadhaka brk ya5i mela "
    "howka kifkif bel7a9 akahaw 3ad 7kaya mawdhou3 nou3 tari9a mas2la 7ala chwaya oumour se3at "
    "belkol 5assa 3amma ta9riban 7asb kedhlek famma marrat 7atta behi walla wadhe7 bsit kamel"
)
# Phrase slots (`phrases` builds line bodies in Derja order from them): prepositions, first-person
# verbs, verbs of the negation ما …ش, pronouns and nouns that are neither image nor padding. The
# judge reads them as glue, neither sense nor padding.
PREPOSITIONS = _w("في على من مع كيف")
PREPOSITIONS_LATIN = _w("fi 3la men m3a kif")
VERBS = _w(
    "نحب نشوف نستنى نغني نكتب نحكي نعشق نتفكر نمشي نرجع نسهر نحلم نسمع نضحك نعيش نجري نطير نسافر "
    "نتمنى نعدي نشعل نزرع نرسم نتنفس نعاود نبني نحضن نشم نلمس"
)
VERBS_LATIN = _w(
    "n7eb nchouf nestanna nghanni nekteb n7ki n3ach9 netfakker nemchi narja3 n7lem nesma3 nedh7ak n3ich "
    "ntir nsafer netmanna n3addi nech3el nazra3 nersem netnaffes n3awed nebni nchom"
)
NEGATED = _w("ننساش نخافش نبعدش نرتاحش نلقاش نبكيش نرقدش نسكتش نقدرش نتعبش نرجعش نسمعش نشبعش")
NEGATED_LATIN = _w("nensech n5afech neb3edch nerta7ch nal9ach nebkich")
PRONOUNS = _w("انا انتي")
PRONOUNS_LATIN = _w("ena enti")
NOUNS = _w(
    "الدنيا الوقت العمر الكلام الخاطر الزمان الناس الدار الحومة الطريق الباب الحب الفرحة الذكرى الصبر "
    "الأمل البال الروح"
)
NOUNS_LATIN = _w(
    "eddenya lwa9t l3omr lklem l5ater ezzmen ennes eddar el7ouma ettri9 elbab el7ob elfar7a edhekra "
    "essabr el2amal elbal erou7"
)
# Tunisian adverbs an honest line in Arabic script carries now and then (برشا "a lot", توّا "now",
# ياسر "very"): real Derja holds such markers, and the scorer's variety gate costs a long poem that
# holds none.
ADVERBS = _w("برشا توّا ياسر")
# The filler hack's set phrases, theme-free, all of PADDING's words: a vocative of song refrains
# (يا ليل, يا عين), an oath and a shrug (والله ما نعرف), a "thing" (ما نقول شي, يعني حاجة) and a
# lead into the rhyme word (كيما: "like"), an adverb before it (بصراحة كيما). Enough of them that a
# poem's bodies need not repeat one another's word pairs (the scorer's copy rule).
PADDING_THINGS = _w("شي حاجة كلام حكاية مسألة موضوع نوع طريقة حالة أمور")
PADDING_THINGS_LATIN = _w("chay 7aja klem 7kaya mawdhou3 nou3 tari9a 7ala")
PADDING_ADVERBS = _w("بصراحة أكيد عموما زادة تقريبا بالكل مثلا عادي نورمال بالحق خاصة بالطبيعة")
PADDING_ADVERBS_LATIN = _w("bsara7a akid zada belkol mathalan 3adi normal bel7a9 5assa kedhlek tabi3i")
PADDING_LEADS = _w("كيما حتى")
PADDING_LEADS_LATIN = _w("kima 7atta")
PADDING_VERBS = _w("نعرف نقول نفهم نلقى نقصد نحسب نظن نشرح نلاحظ نتصور نعتبر نزيد")
PADDING_VERBS_LATIN = _w("na3ref n9oul nefhem nal9a n7seb nechra7 n3tabar nzid")
PADDING_CALLS = _w("ليل عين لالة سيدي جماعة خويا صاحبي ناس")
PADDING_CALLS_LATIN = _w("lil 3in lella sidi jma3a 5ouya sa7bi nes")
