"""Data table: the themes of the tuning prompts, one text per instruction language.

This module is data (the ``THEMES`` table and its record type), exempt from the 500-line module
limit for that reason; logic that uses the themes lives in ``tunifolk.dataset.build``.

Each theme is written once per language the catalogue's ``instruction`` speaks (``derja``, ``msa``,
``fr``, ``en``), as a noun phrase that reads right after that language's theme clause ("about …",
"sur le thème : …", "عن …", "على …"). The scorer never reads the theme (rhyme topology does not
depend on it); it is there so the policy learns the form across subjects instead of tying a form to
one subject, and so the prompts of a run are many and distinct.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Theme:
    """One theme: a stable id (used for statistics) and its text in each instruction language."""

    id: str
    en: str
    fr: str
    msa: str
    derja: str

    def text(self, language: str) -> str:
        """The theme in ``language`` (one of the catalogue's ``LANGUAGES``)."""
        return getattr(self, language)


THEMES: tuple[Theme, ...] = (
    Theme(
        "sea-sidi-bou-said",
        "the sea at Sidi Bou Said",
        "la mer à Sidi Bou Saïd",
        "البحر في سيدي بوسعيد",
        "البحر في سيدي بوسعيد",
    ),
    Theme(
        "olive-harvest-sfax",
        "the olive harvest in Sfax",
        "la cueillette des olives à Sfax",
        "جني الزيتون في صفاقس",
        "جني الزيتون في صفاقس",
    ),
    Theme(
        "medina", "the medina of Tunis", "la médina de Tunis", "مدينة تونس العتيقة", "المدينة العربي في تونس"
    ),
    Theme("ramadan-nights", "Ramadan nights", "les nuits de Ramadan", "ليالي رمضان", "سهريات رمضان"),
    Theme("mothers-kitchen", "a mother's kitchen", "la cuisine d'une mère", "مطبخ الأم", "كوجينة الأم"),
    Theme(
        "emigration",
        "emigration across the sea",
        "l'émigration de l'autre côté de la mer",
        "الهجرة وراء البحر",
        "الحرقة والغربة وراء البحر",
    ),
    Theme("desert-douz", "the desert at Douz", "le désert à Douz", "الصحراء في دوز", "الصحرا في دوز"),
    Theme(
        "wedding",
        "a wedding night in the village",
        "une nuit de noces au village",
        "ليلة عرس في القرية",
        "ليلة العرس في البلاد",
    ),
    Theme(
        "kairouan",
        "the Great Mosque of Kairouan",
        "la Grande Mosquée de Kairouan",
        "جامع عقبة في القيروان",
        "جامع عقبة في القيروان",
    ),
    Theme("djerba", "the island of Djerba", "l'île de Djerba", "جزيرة جربة", "جربة وبحرها"),
    Theme("tozeur-oasis", "the oasis of Tozeur", "l'oasis de Tozeur", "واحة توزر", "واحة توزر ونخلها"),
    Theme(
        "jasmine",
        "jasmine sellers on summer evenings",
        "les vendeurs de jasmin les soirs d'été",
        "بائعي الياسمين في أمسيات الصيف",
        "بيّاعة المشموم في عشيات الصيف",
    ),
    Theme(
        "tabouna-bread",
        "bread from the tabouna oven",
        "le pain de la tabouna",
        "خبز الطابونة",
        "خبز الطابونة",
    ),
    Theme(
        "friday-couscous",
        "Friday couscous with the family",
        "le couscous du vendredi en famille",
        "كسكسي الجمعة مع العائلة",
        "كسكسي نهار الجمعة مع العايلة",
    ),
    Theme(
        "kerkennah-fishermen",
        "the fishermen of Kerkennah",
        "les pêcheurs de Kerkennah",
        "صيادي قرقنة",
        "البحّارة في قرقنة",
    ),
    Theme(
        "neighbourhood-cafe",
        "the café of the old neighbourhood",
        "le café du vieux quartier",
        "مقهى الحي القديم",
        "القهوة في الحومة",
    ),
    Theme(
        "rain-after-drought",
        "rain after a long drought",
        "la pluie après une longue sécheresse",
        "المطر بعد جفاف طويل",
        "الشتا بعد الجفاف",
    ),
    Theme(
        "kef-shepherd",
        "a shepherd in the hills of El Kef",
        "un berger dans les collines du Kef",
        "راعٍ في تلال الكاف",
        "راعي في جبال الكاف",
    ),
    Theme(
        "wheat-harvest-beja",
        "the wheat harvest in Béja",
        "la moisson du blé à Béja",
        "حصاد القمح في باجة",
        "الحصيدة في باجة",
    ),
    Theme(
        "dates-djerid",
        "the date harvest in the Djerid",
        "la récolte des dattes au Djérid",
        "جني التمر في الجريد",
        "جني الدڨلة في الجريد",
    ),
    Theme(
        "grandmother-tales",
        "a grandmother's tales by the fire",
        "les contes de la grand-mère au coin du feu",
        "حكايات الجدة قرب النار",
        "خرافات الجدة حذا الكانون",
    ),
    Theme("first-love", "first love", "le premier amour", "الحب الأول", "أول حب"),
    Theme(
        "longing-paris",
        "longing for home, from Paris",
        "la nostalgie du pays, depuis Paris",
        "الحنين إلى الوطن من باريس",
        "الوحشة للبلاد من باريس",
    ),
    Theme("eid-morning", "the morning of Eid", "le matin de l'Aïd", "صباح العيد", "صباح العيد والحلو"),
    Theme("spice-souk", "the spice souk", "le souk des épices", "سوق التوابل", "سوق العطارين"),
    Theme(
        "chechia-makers",
        "the chechia makers of the souk",
        "les artisans de la chéchia",
        "صانعي الشاشية في السوق",
        "الشواشية في سوق الشواشية",
    ),
    Theme(
        "nabeul-potters",
        "the potters of Nabeul",
        "les potiers de Nabeul",
        "خزّافي نابل",
        "صنايعية الفخّار في نابل",
    ),
    Theme("carthage", "the ruins of Carthage", "les ruines de Carthage", "آثار قرطاج", "آثار قرطاج"),
    Theme("freedom", "freedom", "la liberté", "الحرية", "الحرية"),
    Theme(
        "tunis-derby",
        "the football derby in Tunis",
        "le derby de Tunis",
        "ديربي العاصمة",
        "الدربي في العاصمة",
    ),
    Theme("henna-night", "the henna night before a wedding", "la nuit du henné", "ليلة الحنّاء", "ليلة الحنّة"),
    Theme("hammam", "the hammam on Saturday", "le hammam du samedi", "الحمّام يوم السبت", "الحمّام نهار السبت"),
    Theme(
        "ain-draham",
        "the cork-oak forests of Aïn Draham",
        "les forêts de chênes-lièges d'Aïn Draham",
        "غابات الفلين في عين دراهم",
        "غابة الفرنان في عين دراهم",
    ),
    Theme("jebel-chambi", "Mount Chambi", "le mont Chambi", "جبل الشعانبي", "جبل الشعانبي"),
    Theme(
        "zarda-horsemen",
        "the horsemen at a village zarda",
        "les cavaliers d'une zerda de village",
        "الفرسان في زردة القرية",
        "الفرسان في الزردة",
    ),
    Theme(
        "old-friend", "an old friend who went away", "un vieil ami parti", "صديق قديم رحل", "صاحب قديم مشى"
    ),
    Theme(
        "summer-terrace",
        "a summer night on the roof terrace",
        "une nuit d'été sur la terrasse",
        "ليلة صيف على السطح",
        "ليلة صيف في السطح",
    ),
    Theme(
        "train-south", "the train to the south", "le train vers le sud", "القطار نحو الجنوب", "التران للجنوب"
    ),
    Theme(
        "young-graduate",
        "a young graduate looking for work",
        "un jeune diplômé qui cherche du travail",
        "شاب متخرّج يبحث عن عمل",
        "شاب قاري يلوّج على خدمة",
    ),
    Theme(
        "chott-el-djerid", "the salt lake of Chott el Djerid", "le chott el-Djérid", "شط الجريد", "شط الجريد"
    ),
)
"""Forty themes. Ids are unique, and within one language no two texts are equal (tested)."""
