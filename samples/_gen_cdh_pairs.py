"""CDH-Bench sample pairs: gold definitions and the Pillow drawings of both sides of each pair.

Each pair's two images differ in one counterfactual detail (six fingers, a red banana, a shadow
pointing at the sun...). Three gold errors are seeded on purpose, as in the real file: Pair 11
has inverted yes/no polarity, Pair 8 the same mc gold on both sides, Pair 6 duplicate options.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from PIL import Image, ImageDraw

SIZE = 224
Draw = Callable[[ImageDraw.ImageDraw, bool], None]


@dataclass(frozen=True)
class Pair:
    """One commonsense/counterfactual pair with both tasks' gold."""

    number: int
    name: str
    category: str
    subcategory: str
    qa: str
    qa_gt: tuple[str, str]
    """(commonsense, counterfactual) gold of the direct question."""
    mc: str
    options: tuple[str, ...]
    mc_gt: tuple[str, str]
    draw: Draw
    sky: tuple[int, int, int] = (235, 240, 250)

    @property
    def pair_id(self) -> str:
        """``Pair N`` as the release writes it."""
        return f"Pair {self.number}"

    def image(self, counterfactual: bool) -> Image.Image:
        """Render one side."""
        img = Image.new("RGB", (SIZE, SIZE), self.sky)
        self.draw(ImageDraw.Draw(img), counterfactual)
        return img


SKIN, WOOD = (235, 190, 150), (140, 95, 50)


def _hand(d: ImageDraw.ImageDraw, cf: bool) -> None:
    n = 6 if cf else 5
    d.ellipse((72, 120, 152, 200), fill=SKIN, outline=(150, 100, 70), width=2)
    for k in range(n):
        a = math.radians(150 - k * (120 / (n - 1)))
        x0, y0 = 112 + 36 * math.cos(a), 160 - 36 * math.sin(a)
        d.line((x0, y0, x0 + 48 * math.cos(a), y0 - 48 * math.sin(a)), fill=SKIN, width=11)


def _bird(d: ImageDraw.ImageDraw, cf: bool) -> None:
    d.ellipse((70, 70, 160, 130), fill=(220, 180, 40))
    d.ellipse((140, 55, 175, 90), fill=(220, 180, 40))
    d.polygon(((175, 70), (195, 76), (175, 82)), fill=(240, 120, 0))
    for x in (100, 115, 130) if cf else (100, 128):
        d.line((x, 128, x, 175), fill=(240, 120, 0), width=4)
    d.line((40, 177, 190, 177), fill=WOOD, width=6)


def _clock(d: ImageDraw.ImageDraw, cf: bool) -> None:
    n = 13 if cf else 12
    d.ellipse((22, 22, 202, 202), fill=(255, 255, 255), outline=(30, 30, 30), width=4)
    for k in range(n):
        a = 2 * math.pi * k / n
        d.line(
            (112 + 70 * math.sin(a), 112 - 70 * math.cos(a), 112 + 84 * math.sin(a), 112 - 84 * math.cos(a)),
            fill=(30, 30, 30),
            width=4,
        )
    d.line((112, 112, 112, 55), fill=(30, 30, 30), width=4)
    d.line((112, 112, 150, 130), fill=(30, 30, 30), width=5)


def _table(d: ImageDraw.ImageDraw, cf: bool) -> None:
    d.polygon(((40, 90), (184, 90), (204, 120), (20, 120)), fill=WOOD)
    xs = (35, 80, 144, 189, 112) if cf else (35, 80, 144, 189)
    for x in xs:
        d.line((x, 120, x, 195), fill=(100, 65, 30), width=8)


def _banana(d: ImageDraw.ImageDraw, cf: bool) -> None:
    colour = (210, 30, 30) if cf else (245, 215, 40)
    d.chord((30, 50, 194, 180), 20, 160, fill=colour)
    d.chord((40, 40, 184, 150), 20, 160, fill=(235, 240, 250))
    d.line((188, 100, 200, 92), fill=(90, 70, 20), width=6)


def _leaf(d: ImageDraw.ImageDraw, cf: bool) -> None:
    colour = (40, 80, 220) if cf else (50, 160, 60)
    d.ellipse((40, 60, 190, 160), fill=colour)
    d.line((30, 150, 180, 70), fill=(30, 60, 30), width=3)


def _car(d: ImageDraw.ImageDraw, cf: bool) -> None:
    d.rectangle((0, 170, SIZE, SIZE), fill=(120, 120, 120))
    d.rectangle((35, 110, 190, 150), fill=(30, 90, 200))
    d.rectangle((70, 80, 160, 110), fill=(30, 90, 200))
    for x in (70, 155):
        box = (x - 18, 140, x + 18, 176)
        (d.rectangle if cf else d.ellipse)(box, fill=(20, 20, 20))


def _ant(d: ImageDraw.ImageDraw, cf: bool) -> None:
    d.rectangle((0, 170, SIZE, SIZE), fill=(120, 170, 90))
    d.rectangle((130, 110, 200, 170), fill=(200, 80, 60))
    d.polygon(((122, 110), (165, 75), (208, 110)), fill=(120, 40, 30))
    scale = 5.0 if cf else 0.6
    x, y = 60.0, 170 - 8 * scale
    for k in range(3):
        r = (3 + k % 2) * scale
        d.ellipse((x + (k - 1) * 7 * scale - r, y - r, x + (k - 1) * 7 * scale + r, y + r), fill=(20, 20, 20))


def _shadow(d: ImageDraw.ImageDraw, cf: bool) -> None:
    d.rectangle((0, 150, SIZE, SIZE), fill=(200, 190, 150))
    d.ellipse((15, 15, 55, 55), fill=(255, 210, 0))
    d.line((112, 150, 112, 80), fill=(60, 60, 60), width=8)
    d.polygon(
        ((112, 150), (40, 170), (40, 176), (112, 156))
        if cf
        else ((112, 150), (200, 170), (200, 176), (112, 156)),
        fill=(90, 90, 90),
    )


def _ball(d: ImageDraw.ImageDraw, cf: bool) -> None:
    d.rectangle((0, 170, SIZE, SIZE), fill=(120, 170, 90))
    y = 60 if cf else 140
    d.ellipse((92, y, 132, y + 30), fill=(220, 60, 60))
    d.ellipse((95, 172, 129, 178), fill=(80, 120, 60))


def _candle(d: ImageDraw.ImageDraw, cf: bool) -> None:
    d.rectangle((97, 100, 127, 200), fill=(250, 250, 240), outline=(180, 180, 170))
    d.line((112, 100, 112, 90), fill=(30, 30, 30), width=2)
    flame = ((112, 90), (100, 112), (124, 112)) if cf else ((112, 45), (100, 88), (124, 88))
    d.polygon(flame, fill=(255, 150, 0))


def _smoke(d: ImageDraw.ImageDraw, cf: bool) -> None:
    d.rectangle((50, 120, 174, 200), fill=(190, 90, 70))
    d.polygon(((40, 120), (112, 70), (184, 120)), fill=(110, 50, 40))
    d.rectangle((140, 70, 160, 105), fill=(90, 90, 90))
    for k in range(4):
        y = 50 - k * 12 if not cf else 110 + k * 18
        x = 150 + k * 10
        d.ellipse((x - 10 - 2 * k, y - 8, x + 10 + 2 * k, y + 8), fill=(170, 170, 170))


COUNT, ATTR, PHYS = "Counting Anomalies", "Attribute Anomalies", "Physical Law Anomalies"
PAIRS: tuple[Pair, ...] = (
    Pair(
        1,
        "6 fingers vs 5 fingers",
        COUNT,
        "Body Parts",
        "Does the hand have five fingers?",
        ("yes", "no"),
        "How many fingers does the hand have?",
        ("A. 5 fingers", "B. 6 fingers", "C. 4 fingers", "D. 7 fingers"),
        ("A", "B"),
        _hand,
    ),
    Pair(
        2,
        "3 legs vs 2 legs",
        COUNT,
        "Body Parts",
        "Does the bird stand on two legs?",
        ("yes", "no"),
        "How many legs does the bird have?",
        ("A. 1", "B. 2", "C. 3", "D. 4"),
        ("B", "C"),
        _bird,
    ),
    Pair(
        3,
        "13 hour marks vs 12 hour marks",
        COUNT,
        "Everyday Objects",
        "Does the clock have 12 hour marks?",
        ("yes", "no"),
        "How many hour marks are on the clock face?",
        ("A. 10", "B. 11", "C. 12", "D. 13"),
        ("C", "D"),
        _clock,
    ),
    Pair(
        4,
        "5 table legs vs 4 table legs",
        COUNT,
        "Everyday Objects",
        "Does the table have four legs?",
        ("yes", "no"),
        "How many legs does the table have?",
        ("A. 3", "B. 4", "C. 5", "D. 6"),
        ("B", "C"),
        _table,
    ),
    Pair(
        5,
        "red banana vs yellow banana",
        ATTR,
        "Color",
        "Is the banana yellow?",
        ("yes", "no"),
        "What color is the banana?",
        ("A. Yellow", "B. Red", "C. Green", "D. Brown"),
        ("A", "B"),
        _banana,
    ),
    Pair(
        6,
        "blue leaf vs green leaf",
        ATTR,
        "Color",
        "Is the leaf green?",
        ("yes", "no"),
        "What color is the leaf?",
        ("A. Green", "B. Blue", "C. Brown", "D. Brown"),
        ("A", "B"),
        _leaf,
    ),
    Pair(
        7,
        "square wheels vs round wheels",
        ATTR,
        "Shape/Size",
        "Are the car's wheels round?",
        ("yes", "no"),
        "What shape are the car's wheels?",
        ("A. Triangular", "B. Square", "C. Round", "D. Oval"),
        ("C", "B"),
        _car,
    ),
    Pair(
        8,
        "giant ant vs tiny ant",
        ATTR,
        "Shape/Size",
        "Is the ant much smaller than the house?",
        ("yes", "no"),
        "How big is the ant compared with the house?",
        ("A. Much smaller", "B. About the same size", "C. Larger", "D. There is no ant"),
        ("A", "A"),
        _ant,
    ),
    Pair(
        9,
        "shadow toward the sun vs away from the sun",
        PHYS,
        "Light/Shadow",
        "Does the pole's shadow point away from the sun?",
        ("yes", "no"),
        "Which way does the pole's shadow point?",
        ("A. Away from the sun", "B. Toward the sun", "C. Straight down", "D. There is no shadow"),
        ("A", "B"),
        _shadow,
    ),
    Pair(
        10,
        "floating ball vs resting ball",
        PHYS,
        "Gravity",
        "Is the ball resting on the ground?",
        ("yes", "no"),
        "Where is the ball?",
        ("A. On the ground", "B. In the air with no support", "C. In a tree", "D. In a box"),
        ("A", "B"),
        _ball,
    ),
    Pair(
        11,
        "downward flame vs upward flame",
        PHYS,
        "Fire/Smoke",
        "Is the candle flame pointing upward?",
        ("no", "yes"),
        "Which way does the candle flame point?",
        ("A. Upward", "B. Downward", "C. Sideways", "D. There is no flame"),
        ("A", "B"),
        _candle,
    ),
    Pair(
        12,
        "sinking smoke vs rising smoke",
        PHYS,
        "Fire/Smoke",
        "Is the smoke rising from the chimney?",
        ("yes", "no"),
        "Which way is the smoke from the chimney moving?",
        ("A. Upward", "B. Downward", "C. Into the house", "D. There is no smoke"),
        ("A", "B"),
        _smoke,
    ),
)


def folder(pair: Pair) -> str:
    """``images/<subcategory>/<pair>`` with the release's character replacements."""
    return f"images/{pair.subcategory.replace(' ', '_').replace('/', '_')}/{pair.pair_id.replace(' ', '_')}"
