"""DetailVerifyBench sample images and captions: ten Pillow drawings over the five domains.

Captions are written with edit markers ``[original|hallucinated|Label|p]``: the clean caption
keeps ``original``, the checked caption has ``hallucinated`` (tagged in the gold). An empty
``original`` is an insertion (a leading space in ``hallucinated`` stays outside the tag). The
optional ``p`` marks a plausible hallucination, the kind a commonsense-prior model misses.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from PIL import Image, ImageDraw, ImageFont

Draw = Callable[[ImageDraw.ImageDraw], None]
W, H = 320, 240


def _text(block: str) -> str:
    """A caption written over several source lines, as one line with single spaces."""
    return " ".join(block.split())


def _font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    return ImageFont.load_default(size=size)


@dataclass(frozen=True)
class Entry:
    """One image with its marked caption and phrases a model may wrongly flag."""

    domain: str
    filename: str
    bg: tuple[int, int, int]
    draw: Draw
    caption: str
    decoys: tuple[str, ...]

    def image(self) -> Image.Image:
        """Render the image."""
        img = Image.new("RGB", (W, H), self.bg)
        self.draw(ImageDraw.Draw(img))
        return img


def _bar(d: ImageDraw.ImageDraw) -> None:
    d.text((160, 8), "Quarterly Sales 2023", fill=(0, 0, 0), font=_font(14), anchor="mt")
    for v in range(0, 251, 50):
        y = 210 - v * 0.7
        d.line((40, y, 300, y), fill=(215, 215, 215))
        d.text((34, y), str(v), fill=(60, 60, 60), font=_font(9), anchor="rm")
    for k, (q, v) in enumerate((("Q1", 120), ("Q2", 180), ("Q3", 150), ("Q4", 210))):
        x = 60 + k * 60
        d.rectangle((x, 210 - v * 0.7, x + 36, 210), fill=(40, 90, 200))
        d.text((x + 18, 206 - v * 0.7), str(v), fill=(0, 0, 0), font=_font(9), anchor="mb")
        d.text((x + 18, 214), q, fill=(40, 40, 40), font=_font(9), anchor="mt")


def _line(d: ImageDraw.ImageDraw) -> None:
    d.text((160, 8), "Average Temperature", fill=(0, 0, 0), font=_font(14), anchor="mt")
    d.text((12, 30), "°C", fill=(60, 60, 60), font=_font(10))
    for v in range(0, 26, 5):
        y = 210 - v * 6.5
        d.line((40, y, 300, y), fill=(220, 220, 220))
        d.text((34, y), str(v), fill=(60, 60, 60), font=_font(9), anchor="rm")
    pts = [(60 + k * 46, 210 - v * 6.5) for k, v in enumerate((3, 5, 9, 14, 18, 22))]
    d.line(pts, fill=(210, 30, 30), width=3)
    for (x, y), m in zip(pts, ("Jan", "Feb", "Mar", "Apr", "May", "Jun"), strict=True):
        d.ellipse((x - 4, y - 4, x + 4, y + 4), fill=(210, 30, 30))
        d.text((x, 216), m, fill=(40, 40, 40), font=_font(9), anchor="mt")


def _street(d: ImageDraw.ImageDraw) -> None:
    d.rectangle((0, 150, W, 210), fill=(45, 45, 55))
    d.ellipse((270, 40, 296, 66), fill=(240, 240, 220))
    d.line((60, 150, 60, 60), fill=(30, 30, 30), width=4)
    d.polygon(((20, 150), (60, 62), (100, 150)), fill=(120, 110, 50))
    d.ellipse((52, 56, 68, 68), fill=(255, 220, 80))
    for x, h, c in ((95, 46, (130, 130, 130)), (115, 34, (25, 25, 30))):
        d.ellipse((x - 5, 150 - h - 10, x + 5, 150 - h), fill=c)
        d.rectangle((x - 6, 150 - h, x + 6, 150), fill=c)
    d.rectangle((200, 128, 290, 152), fill=(190, 25, 25))
    d.rectangle((220, 112, 270, 128), fill=(190, 25, 25))
    d.rectangle((0, 0, W, 28), fill=(0, 0, 0))
    d.rectangle((0, 212, W, H), fill=(0, 0, 0))


def _room(d: ImageDraw.ImageDraw) -> None:
    d.rectangle((0, 170, W, H), fill=(70, 50, 35))
    d.rectangle((30, 50, 110, 130), fill=(15, 20, 45), outline=(60, 45, 30), width=4)
    d.chord((75, 62, 95, 82), 90, 270, fill=(235, 235, 210))
    d.rectangle((190, 130, 290, 140), fill=(120, 80, 40))
    d.line((200, 140, 200, 180), fill=(100, 65, 30), width=4)
    d.line((280, 140, 280, 180), fill=(100, 65, 30), width=4)
    d.polygon(((255, 100), (285, 100), (292, 118), (248, 118)), fill=(240, 200, 40))
    d.line((270, 118, 270, 130), fill=(60, 60, 60), width=3)
    d.ellipse((205, 88, 225, 108), fill=(35, 30, 30))
    d.rectangle((202, 108, 228, 150), fill=(35, 30, 30))


def _mountains(d: ImageDraw.ImageDraw) -> None:
    for k in range(6):
        d.rectangle((0, k * 20, W, k * 20 + 20), fill=(250, 150 + k * 15, 60 + k * 20))
    d.ellipse((203, 80, 233, 110), fill=(245, 110, 20))
    for x0, top in ((20, 40), (120, 30), (250, 50)):
        d.polygon(((x0 - 70, 150), (x0 + 30, top), (x0 + 130, 150)), fill=(120, 120, 130))
        d.polygon(((x0 + 12, top + 18), (x0 + 30, top), (x0 + 48, top + 18)), fill=(250, 250, 250))
    d.rectangle((0, 150, W, 190), fill=(70, 160, 70))
    d.rectangle((0, 190, W, H), fill=(50, 100, 190))
    d.rectangle((225, 196, 250, 200), fill=(250, 170, 90))


def _tree(d: ImageDraw.ImageDraw) -> None:
    d.ellipse((40, 30, 100, 55), fill=(255, 255, 255))
    d.ellipse((220, 45, 270, 65), fill=(255, 255, 255))
    d.rectangle((0, 180, W, H), fill=(150, 210, 120))
    d.rectangle((150, 110, 170, 185), fill=(110, 70, 35))
    d.ellipse((100, 40, 220, 130), fill=(60, 150, 60))
    for x, y in ((120, 60), (150, 50), (190, 70), (130, 100), (175, 105), (205, 95), (160, 80)):
        d.ellipse((x - 4, y - 4, x + 4, y + 4), fill=(245, 150, 190))
    d.line((170, 140, 195, 132), fill=(110, 70, 35), width=4)
    d.ellipse((185, 120, 199, 132), fill=(240, 210, 30))


def _jazz(d: ImageDraw.ImageDraw) -> None:
    d.text((160, 20), "SUMMER JAZZ NIGHT", fill=(250, 215, 40), font=_font(24), anchor="mt")
    d.ellipse((110, 70, 210, 170), fill=(250, 215, 40))
    d.text((160, 120), "AUG 14", fill=(255, 255, 255), font=_font(20), anchor="mm")
    d.text((160, 210), "CITY PARK STAGE · 8 PM", fill=(255, 255, 255), font=_font(12), anchor="mt")


def _sale(d: ImageDraw.ImageDraw) -> None:
    d.text((160, 18), "Spring Sale", fill=(40, 150, 60), font=_font(26), anchor="mt")
    d.polygon(((0, 95), (W, 80), (W, 150), (0, 165)), fill=(210, 30, 40))
    d.text((160, 122), "50% OFF", fill=(255, 255, 255), font=_font(30), anchor="mm")
    for x, y in ((16, 16), (304, 16), (16, 224), (304, 224)):
        d.ellipse((x - 10, y - 10, x + 10, y + 10), fill=(245, 160, 200))
    d.text((160, 205), "This weekend only", fill=(0, 0, 0), font=_font(11), anchor="mt")


def _login(d: ImageDraw.ImageDraw) -> None:
    d.text((160, 22), "Welcome back", fill=(30, 30, 40), font=_font(20), anchor="mt")
    for k, label in enumerate(("Email", "Password")):
        y = 70 + k * 46
        d.text((70, y - 14), label, fill=(80, 80, 80), font=_font(10))
        d.rectangle((70, y, 250, y + 26), fill=(255, 255, 255), outline=(180, 180, 180))
    d.rounded_rectangle((70, 165, 250, 193), radius=6, fill=(40, 110, 230))
    d.text((160, 179), "Sign in", fill=(255, 255, 255), font=_font(12), anchor="mm")
    d.text((160, 210), "Forgot password?", fill=(40, 110, 230), font=_font(10), anchor="mt")


def _settings(d: ImageDraw.ImageDraw) -> None:
    d.rectangle((0, 0, W, 40), fill=(35, 35, 45))
    d.text((16, 20), "Settings", fill=(255, 255, 255), font=_font(16), anchor="lm")
    for k, (label, on) in enumerate((("Wi-Fi", True), ("Bluetooth", False), ("Airplane mode", False))):
        y = 70 + k * 44
        d.text((16, y), label, fill=(20, 20, 20), font=_font(13), anchor="lm")
        d.rounded_rectangle(
            (256, y - 10, 296, y + 10), radius=10, fill=(60, 190, 90) if on else (190, 190, 190)
        )
        knob = 286 if on else 266
        d.ellipse((knob - 8, y - 8, knob + 8, y + 8), fill=(255, 255, 255))
        d.line((0, y + 22, W, y + 22), fill=(225, 225, 225))


ENTRIES: tuple[Entry, ...] = (
    Entry(
        "Chart",
        "bar_1.png",
        (255, 255, 255),
        _bar,
        _text("""
        The image shows a vertical bar chart titled "Quarterly Sales 2023" on a white
        background. Four [blue|green|Object Color|p] bars represent the quarters Q1 to Q4 from
        left to right. The first bar reaches 120, the second rises to 180, the third drops
        slightly to [150|130|OCR|p], and the fourth bar is the tallest at 210. Light gray
        horizontal gridlines mark intervals of 50 along the vertical axis, which is labelled
        with values from 0 to 250. Each bar carries its value printed in black just above its
        top edge. There is no legend, and the quarter labels are written in a small dark font
        beneath the bars.
        """),
        ("the fourth bar is the tallest at 210", "There is no legend"),
    ),
    Entry(
        "Chart",
        "line_2.png",
        (255, 255, 255),
        _line,
        _text("""
        A line chart titled "Average Temperature" plots monthly values from January to June. A
        single red line with round markers climbs steadily from 3 degrees in January to 22
        degrees in June, passing 5, 9, 14 and 18 degrees in the months between. The horizontal
        axis lists the abbreviated month names, and the vertical axis, labelled "°C", runs from
        0 to 25 in steps of 5. Pale gray gridlines cross the white plotting area. The chart has
        no legend and no data labels beyond the markers themselves.
        """),
        ("in steps of 5", "no data labels"),
    ),
    Entry(
        "Movie",
        "K3J9QX2L.jpg",
        (20, 25, 60),
        _street,
        _text("""
        This cinematic still shows a city street at night, framed by black letterbox bars at the
        top and bottom of the image. A tall street lamp on the left casts a warm yellow pool of
        light onto the wet pavement. [Two|Three|Object Number] figures stand near the lamp: the
        taller one wears a long gray coat[| and holds an open umbrella|Other|p], while the
        shorter one is dressed in dark clothing. On the right side of the frame, a
        [red|blue|Object Color|p] car is parked along the curb with its headlights off. The sky
        is a deep navy blue, and a pale full moon hangs in the upper right corner. The
        composition is static, with the figures small in the frame, which gives the scene a
        lonely, quiet mood.
        """),
        ("a pale full moon", "with its headlights off"),
    ),
    Entry(
        "Movie",
        "P8W2MD5T.jpg",
        (120, 90, 60),
        _room,
        _text("""
        The frame shows a dim interior at night. A rectangular window on the [left|right|Spatial
        Relation] wall reveals a dark sky with a [thin crescent|bright full|Object Shape|p]
        moon. On the right, a seated figure rests both arms on a small wooden table, beside a
        lamp with a yellow shade that provides the only warm light in the room. The walls are
        painted a muted brown, and the floor is a darker shade of the same colour. No other
        furniture is visible. The image uses [a wide shot|a close-up|Camera] with the camera at
        eye level, and the soft lighting leaves the corners of the room in shadow.
        """),
        ("a lamp with a yellow shade", "No other furniture is visible."),
    ),
    Entry(
        "Nature",
        "test_00101.jpg",
        (250, 170, 90),
        _mountains,
        _text("""
        A mountain landscape at sunset fills the frame. [Three|Four|Object Number] gray peaks
        with white snow caps rise across the middle of the image, and a low orange sun sits
        between the two peaks on the right. The sky glows in bands of orange and pale yellow.
        Below the mountains, a green meadow slopes down to a calm blue lake[| beside a small
        wooden cabin|Other|p] in the foreground, whose surface reflects a streak of the sun's
        light. There are no people, animals or buildings in the scene. The colours are saturated
        and the shapes are simple, giving the picture a flat, illustrated look.
        """),
        ("a low orange sun", "flat, illustrated look"),
    ),
    Entry(
        "Nature",
        "test_00245.jpg",
        (150, 200, 250),
        _tree,
        _text("""
        A single tree stands in the middle of a grassy field under a clear blue sky with two
        small white clouds. The tree has a thick brown trunk and a round green crown dotted with
        pink blossoms. A small yellow bird perches on the lowest branch on the right side of the
        trunk. The grass in the foreground is a uniform light green, and the horizon is flat.
        The light is even, as on a bright spring day, and there are no shadows that suggest a
        particular time of day.
        """),
        ("two small white clouds", "A small yellow bird"),
    ),
    Entry(
        "Poster",
        "poster_7.png",
        (90, 40, 130),
        _jazz,
        _text("""
        This poster advertises a music event on a deep [purple|blue|Object Color] background.
        The title "SUMMER JAZZ NIGHT" runs across the top in large bold yellow capital letters.
        Below it, a yellow circle resembling a spotlight sits in the centre, with the date "AUG
        [14|24|OCR|p]" written in white inside it. At the bottom, a white line of smaller text
        reads "CITY PARK STAGE · [8 PM|9 PM|OCR|p]". The layout is symmetrical and uses only
        three colours, purple, yellow and white, in a flat graphic style without photographs.
        """),
        ("large bold yellow capital letters", "The layout is symmetrical"),
    ),
    Entry(
        "Poster",
        "poster_12.png",
        (255, 255, 255),
        _sale,
        _text("""
        A promotional poster with a white background announces a seasonal sale. The words
        "Spring Sale" appear at the top in green letters. A wide red banner crosses the middle
        of the poster, carrying the text "[50%|70%|OCR|p] OFF" in large white characters. Small
        pink flower shapes decorate the [four|two|Object Number] corners. At the bottom, a short
        line of black text reads "This weekend only". The design is [flat and
        minimalist|photographic|Image Style], with plenty of empty space around the central
        banner.
        """),
        ("A wide red banner", "in green letters"),
    ),
    Entry(
        "UI",
        "ui_3.png",
        (235, 236, 240),
        _login,
        _text("""
        The screenshot shows a mobile login screen on a light gray background. At the top, the
        heading "Welcome back" is written in bold dark text. Below it are two white input fields
        with thin borders, labelled "Email" and "Password".[| A checkbox labelled "Remember me"
        follows the fields.|Other|p] A wide [blue|green|Object Color] button with the white
        label "Sign in" sits under the fields, and a small blue link reading "Forgot password?"
        is centred beneath the button. There are no images, icons or social login options on the
        screen.
        """),
        ("two white input fields", "centred beneath the button"),
    ),
    Entry(
        "UI",
        "ui_12.png",
        (255, 255, 255),
        _settings,
        _text("""
        This image is a settings screen from a phone interface. A dark top bar displays the
        title "Settings" in white. [Three|Four|Object Number] rows follow on a white background,
        each with a label on the left and a toggle switch on the right. The first row, "Wi-Fi",
        has its toggle switched on and coloured green. The second row, "Bluetooth", and the
        third row, "Airplane mode", both have gray toggles that are switched [off|on|Other].
        Thin gray divider lines separate the rows, and the rest of the screen below them is
        empty.
        """),
        ('the title "Settings"', "Thin gray divider lines"),
    ),
)
