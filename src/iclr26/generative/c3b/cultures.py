"""The eight fictional cultures of the offline C3B split, and the question and answer text in four languages.

Paper: "Culture In a Frame: C^3B as a Comic-Based Benchmark for Multimodal Culturally Awareness" (Song et al.,
ICLR 2026, arXiv 2510.00041). The real benchmark uses real cultures; the offline split uses fictional ones
(``C1..C8``) so that every answer follows exactly from a table and no real culture is stereotyped.

Each culture is a row of visual markers (palette colour, clothing/wall pattern, headgear, dish shape, festival
symbol), a greeting word, and two norms: a taboo greeting gesture and a taboo colour for a held flower. A guest
conflicts with the host culture's custom when they make the host's taboo gesture or hold a flower of the host's
taboo colour.
"""

from __future__ import annotations

from dataclasses import dataclass

from iclr26.checks import check_choice

__all__ = [
    "CHARACTERS",
    "CULTURES",
    "FLOWER_COLOURS",
    "GESTURES",
    "LANGUAGES",
    "NONE_WORD",
    "QUESTIONS",
    "Culture",
    "check_language",
    "greeting_reference",
]

LANGUAGES = ("en", "zh", "es", "fr")
GESTURES = ("bow", "wave", "raise")
FLOWER_COLOURS = {
    "red": (220, 40, 40),
    "blue": (40, 80, 230),
    "yellow": (240, 210, 30),
    "white": (250, 250, 250),
}
CHARACTERS = (
    "Kai",
    "Lumi",
    "Noor",
)  # fixed left-to-right; no capital stands alone, so no clash with A-D labels


@dataclass(frozen=True)
class Culture:
    """One fictional culture: its markers, greeting word and norms (all ground truth of the generator)."""

    key: str
    name: str
    palette: tuple[int, int, int]
    pattern: str
    headgear: str
    dish: str
    symbol: str
    greeting: str
    taboo_gesture: str
    taboo_colour: str


CULTURES: tuple[Culture, ...] = (
    Culture("C1", "Aldar", (200, 60, 50), "stripes", "cone", "bowl", "star", "Amaru", "bow", "white"),
    Culture("C2", "Brenn", (50, 110, 200), "dots", "flat", "cake", "moon", "Belosh", "wave", "red"),
    Culture("C3", "Cashi", (60, 160, 70), "checks", "band", "skewer", "sun", "Chenta", "raise", "yellow"),
    Culture("C4", "Doruv", (230, 150, 30), "zigzag", "crown", "pie", "leaf", "Dovri", "bow", "blue"),
    Culture("C5", "Elyth", (140, 70, 170), "dots", "cone", "skewer", "leaf", "Elunai", "wave", "yellow"),
    Culture("C6", "Fenno", (30, 160, 160), "stripes", "crown", "cake", "sun", "Fessa", "raise", "white"),
    Culture("C7", "Gorsa", (200, 80, 150), "zigzag", "band", "bowl", "moon", "Gorukh", "raise", "red"),
    Culture("C8", "Hiral", (120, 90, 40), "checks", "flat", "pie", "star", "Hiyomi", "wave", "blue"),
)

NONE_WORD = {"en": "none", "zh": "无", "es": "ninguno", "fr": "aucun"}

# the same three questions in four languages (hand-written, same semantics)
QUESTIONS = {
    1: {
        "en": "Which culture does the dish on the table belong to?",
        "zh": "桌上的菜属于哪种文化？",
        "es": "¿A qué cultura pertenece el plato de la mesa?",
        "fr": "À quelle culture appartient le plat sur la table ?",
    },
    2: {
        "en": "Which character's action conflicts with the host culture's custom?",
        "zh": "哪个角色的行为与东道主文化的习俗相冲突？",
        "es": "¿Qué personaje actúa en contra de la costumbre de la cultura anfitriona?",
        "fr": "Quel personnage agit contre la coutume de la culture hôte ?",
    },
    3: {
        "en": "Write the greeting the guest should use in panel 3, in English.",
        "zh": "请用中文写出第3格中客人应该使用的问候语。",
        "es": "Escribe el saludo que el invitado debe usar en la viñeta 3, en español.",
        "fr": "Écris la salutation que l'invité doit utiliser dans la case 3, en français.",
    },
}

_GREETING_TEMPLATE = {
    "en": 'Say "{word}" to greet your hosts.',
    "zh": "请说“{word}”来问候主人。",
    "es": "Di «{word}» para saludar a tus anfitriones.",
    "fr": "Dites « {word} » pour saluer vos hôtes.",
}


def check_language(language: object) -> str:
    """``language`` as one of :data:`LANGUAGES`; anything else is a clear error."""
    check_choice("language", language, LANGUAGES)
    return str(language)


def greeting_reference(culture: Culture, language: str) -> str:
    """The L3 reference: the host culture's greeting word inside the target language's template sentence."""
    return _GREETING_TEMPLATE[check_language(language)].format(word=culture.greeting)
