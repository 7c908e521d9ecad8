"""Synthetic media for the samples: labelled moving sprites, synthetic sounds, mp4 and wav writers.

Videos are 160x120 at 10 fps, drawn frame by frame with Pillow and encoded with moviepy 2
(libx264, AAC; ffmpeg from imageio-ffmpeg). Sounds are 16 kHz numpy signals, one synthesiser
per sound source, so a reviewer can hear which source is present. Noise comes from numpy
generators seeded through :func:`_gen_common.int_seed`.
"""

from __future__ import annotations

import math
import tempfile
import wave
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import numpy.typing as npt
from _gen_common import int_seed
from PIL import Image, ImageDraw, ImageFont

W, H = 160, 120
FPS = 10
SR = 16000
Color = tuple[int, int, int]
Signal = npt.NDArray[np.float64]
FONT = ImageFont.load_default(size=10)


# ---------------------------------------------------------------- sprites


def _person(d: ImageDraw.ImageDraw, x: float, y: float, t: float, pose: str, c: Color) -> None:
    """A stick figure whose limbs move according to ``pose`` (an action name)."""
    w = 2 * math.pi * t
    arm_l, arm_r, leg_l, leg_r, dy = 200.0, 340.0, 250.0, 290.0, 0.0
    if pose == "jumping":
        dy = -14 * abs(math.sin(w * 1.2))
        arm_l, arm_r = 220.0, 320.0
    elif pose in ("running", "walking"):
        k = 3.0 if pose == "running" else 1.2
        swing = (35 if pose == "running" else 20) * math.sin(w * k)
        leg_l, leg_r, arm_l, arm_r = 270 + swing, 270 - swing, 250 - swing, 290 + swing
    elif pose == "waving":
        arm_r = 300 + 40 * math.sin(w * 2)
    elif pose == "clapping":
        arm_l, arm_r = 330 - 30 * abs(math.sin(w * 2)), 210 + 30 * abs(math.sin(w * 2))
    elif pose == "squatting":
        dy = 8 * abs(math.sin(w * 0.8))
        leg_l, leg_r = 230 - dy * 3, 310 + dy * 3
    elif pose == "spinning":
        arm_l, arm_r = math.degrees(w * 1.5), math.degrees(w * 1.5) + 180
    elif pose == "kicking":
        leg_r = 290 + 60 * max(0.0, math.sin(w * 1.5))
    y += dy
    d.ellipse((x - 5, y - 22, x + 5, y - 12), outline=c, width=2)
    d.line((x, y - 12, x, y + 4), fill=c, width=2)
    for ang, (ox, oy), ln in ((arm_l, (x, y - 8), 11), (arm_r, (x, y - 8), 11)):
        d.line(
            (ox, oy, ox + ln * math.cos(math.radians(ang)), oy - ln * math.sin(math.radians(ang))),
            fill=c,
            width=2,
        )
    for ang in (leg_l, leg_r):
        d.line(
            (x, y + 4, x + 13 * math.cos(math.radians(ang)), y + 4 - 13 * math.sin(math.radians(ang))),
            fill=c,
            width=2,
        )


def _draw_object(d: ImageDraw.ImageDraw, kind: str, x: float, y: float, t: float, c: Color) -> None:
    """Draw one named object centred at (x, y); unknown kinds are a plain disc."""
    if kind == "man":
        _person(d, x, y, t, "walking", c)
    elif kind == "dog":
        d.ellipse((x - 12, y - 5, x + 8, y + 5), fill=c)
        d.ellipse((x + 5, y - 10, x + 14, y - 1), fill=c)
        d.line((x - 9, y + 4, x - 9, y + 11), fill=c, width=2)
        d.line((x + 5, y + 4, x + 5, y + 11), fill=c, width=2)
    elif kind in ("car", "ambulance"):
        d.rectangle((x - 16, y - 6, x + 16, y + 5), fill=c)
        d.rectangle((x - 8, y - 12, x + 8, y - 6), fill=c)
        d.ellipse((x - 13, y + 2, x - 5, y + 10), fill=(20, 20, 20))
        d.ellipse((x + 5, y + 2, x + 13, y + 10), fill=(20, 20, 20))
        if kind == "ambulance":
            d.line((x - 4, y, x + 4, y), fill=(220, 0, 0), width=2)
            d.line((x, y - 4, x, y + 4), fill=(220, 0, 0), width=2)
    elif kind == "bird":
        flap = 6 * math.sin(2 * math.pi * t * 3)
        d.polygon(((x - 10, y - flap), (x, y + 3), (x + 10, y - flap)), fill=c)
    elif kind == "tree":
        d.rectangle((x - 2, y + 4, x + 2, y + 14), fill=(110, 70, 30))
        d.polygon(((x - 12, y + 6), (x, y - 16), (x + 12, y + 6)), fill=c)
    elif kind == "guitar":
        d.ellipse((x - 9, y - 4, x + 7, y + 12), fill=c)
        d.line((x, y, x + 10, y - 14), fill=(90, 50, 20), width=3)
    elif kind == "train":
        d.rectangle((x - 26, y - 9, x + 26, y + 6), fill=c)
        for k in range(-18, 20, 12):
            d.rectangle((x + k, y - 6, x + k + 6, y - 1), fill=(230, 230, 255))
    elif kind == "clock":
        d.ellipse((x - 11, y - 11, x + 11, y + 11), fill=(250, 250, 250), outline=c, width=2)
        a = 2 * math.pi * t / 3
        d.line((x, y, x + 9 * math.sin(a), y - 9 * math.cos(a)), fill=c, width=2)
    elif kind in ("pan", "kettle"):
        d.ellipse((x - 12, y - 4, x + 8, y + 6), fill=c)
        d.line((x + 8, y, x + 20, y - 2), fill=c, width=3)
    else:
        d.ellipse((x - 8, y - 8, x + 8, y + 8), fill=c)


@dataclass(frozen=True)
class Sprite:
    """A labelled object moving along a smooth path (positions in pixels, motion in Hz)."""

    kind: str
    color: Color
    x: float
    y: float
    dx: float = 20.0
    dy: float = 0.0
    hz: float = 0.4
    phase: float = 0.0
    label: str | None = None
    pose: str | None = None
    """For people: the action they perform (``jumping``, ``waving``...)."""

    def draw(self, d: ImageDraw.ImageDraw, t: float) -> None:
        """Draw the sprite at time ``t``."""
        a = 2 * math.pi * self.hz * t + self.phase
        x, y = self.x + self.dx * math.sin(a), self.y + self.dy * math.cos(a)
        if self.pose is not None:
            _person(d, x, y, t, self.pose, self.color)
        else:
            _draw_object(d, self.kind, x, y, t, self.color)
        if self.label:
            d.text((x, y + 18), self.label, fill=(0, 0, 0), font=FONT, anchor="mt")


@dataclass(frozen=True)
class Scene:
    """A background (sky/ground colours, optional pattern and caption) with sprites on it."""

    sky: Color
    ground: Color
    sprites: Sequence[Sprite] = ()
    pattern: str = ""
    """``tiles``, ``grass``, ``stripes``, ``waves``, ``grid`` or empty."""
    caption: str = ""
    horizon: int = 70


@dataclass
class Timeline:
    """Scenes shown one after the other (a scene change or an action sequence)."""

    scenes: Sequence[Scene]
    cuts: Sequence[float] = field(default_factory=list)
    """Start times of scenes 2.. in seconds."""


def _background(s: Scene) -> Image.Image:
    img = Image.new("RGB", (W, H), s.sky)
    d = ImageDraw.Draw(img)
    d.rectangle((0, s.horizon, W, H), fill=s.ground)
    dark = tuple(max(0, v - 40) for v in s.ground)
    if s.pattern == "tiles":
        for gx in range(0, W, 16):
            d.line((gx, s.horizon, gx, H), fill=dark)
        for gy in range(s.horizon, H, 12):
            d.line((0, gy, W, gy), fill=dark)
    elif s.pattern == "grass":
        for gx in range(3, W, 9):
            d.line((gx, H - 3, gx + 2, H - 12), fill=dark, width=1)
    elif s.pattern == "stripes":
        for gx in range(0, W, 24):
            d.rectangle(
                (gx, (s.horizon + H) // 2 - 1, gx + 12, (s.horizon + H) // 2 + 1), fill=(240, 240, 240)
            )
    elif s.pattern == "waves":
        for gy in range(s.horizon + 6, H, 10):
            d.arc((0, gy - 4, W, gy + 4), 0, 180, fill=(230, 240, 255))
    elif s.pattern == "grid":
        for gx in range(0, W, 20):
            d.line((gx, 0, gx, s.horizon), fill=tuple(max(0, v - 25) for v in s.sky))
    if s.caption:
        d.text((4, 3), s.caption, fill=(0, 0, 0), font=FONT)
    return img


def frame_function(timeline: Timeline) -> Callable[[float], npt.NDArray[np.uint8]]:
    """A moviepy frame function drawing the timeline's current scene at time ``t``."""
    backgrounds = [_background(s) for s in timeline.scenes]

    def frame(t: float) -> npt.NDArray[np.uint8]:
        k = sum(1 for cut in timeline.cuts if t >= cut)
        img = backgrounds[k].copy()
        d = ImageDraw.Draw(img)
        for sprite in timeline.scenes[k].sprites:
            sprite.draw(d, t)
        return np.asarray(img, dtype=np.uint8)

    return frame


# ---------------------------------------------------------------- sounds


def _t(duration: float) -> Signal:
    return np.arange(round(duration * SR), dtype=np.float64) / SR


def _bursts(t: Signal, every: float, length: float, offset: float = 0.1) -> Signal:
    """Envelope: decaying bursts of ``length`` s every ``every`` s."""
    local = np.mod(t - offset, every)
    return np.where((t >= offset) & (local < length), np.exp(-local / (length / 3)), 0.0)


def _noise(duration: float, key: str) -> Signal:
    return np.random.default_rng(int_seed("noise", key)).standard_normal(len(_t(duration)))


def _smooth(x: Signal, n: int) -> Signal:
    return np.convolve(x, np.ones(n) / n, mode="same")


def sound(source: str, duration: float, key: str) -> Signal:
    """The synthetic sound of ``source``; its pitch and rhythm identify the source."""
    t = _t(duration)
    two_pi = 2 * np.pi
    if source == "dog":
        return _bursts(t, 0.6, 0.15) * (np.sin(two_pi * 520 * t) + 0.5 * np.sin(two_pi * 1040 * t))
    if source in ("car", "engine"):
        saw: Signal = 2 * np.mod(85 * t, 1.0) - 1
        return (0.6 + 0.4 * np.sin(two_pi * 3 * t)) * saw * 0.6 + 0.1 * _smooth(_noise(duration, key), 8)
    if source in ("man", "speech"):
        syll: Signal = np.clip(np.sin(two_pi * 4 * t), 0, None)
        f0 = 150 + 20 * np.sin(two_pi * 0.7 * t)
        phase = two_pi * np.cumsum(f0) / SR
        voiced: Signal = syll * (np.sin(phase) + 0.6 * np.sin(2 * phase) + 0.3 * np.sin(3 * phase))
        return voiced * 0.6
    if source == "bird":
        local = np.mod(t, 0.3)
        f = 3000 + 15000 * local
        return _bursts(t, 0.3, 0.08, 0.0) * np.sin(two_pi * f * local)
    if source == "guitar":
        out = np.zeros_like(t)
        for k, note in enumerate((196.0, 247.0, 294.0, 392.0) * 2):
            start = k * duration / 8
            env = np.where(t >= start, np.exp(-(t - start) * 4), 0.0)
            out += env * (np.sin(two_pi * note * t) + 0.4 * np.sin(two_pi * 2 * note * t))
        return out * 0.5
    if source in ("siren", "ambulance"):
        f = 750 + 250 * np.sin(two_pi * 0.5 * t)
        return np.sin(two_pi * np.cumsum(f) / SR) * 0.7
    if source == "train":
        clack = _bursts(t, 0.4, 0.05) * np.sin(two_pi * 900 * t)
        return 0.4 * _smooth(_noise(duration, key), 30) * 4 + 0.4 * np.sin(two_pi * 60 * t) + clack * 0.5
    if source == "clock":
        return _bursts(t, 0.5, 0.02, 0.05) * np.sin(two_pi * 2500 * t)
    if source == "rain":
        return 0.35 * _noise(duration, key)
    if source == "wind":
        return 0.8 * _smooth(_noise(duration, key), 60) * 6 * (0.6 + 0.4 * np.sin(two_pi * 0.3 * t))
    if source == "sizzle":
        n = _noise(duration, key)
        return 0.3 * (n - _smooth(n, 4)) * (0.5 + (np.abs(_smooth(n, 400)) > 0.05))
    if source == "beep":
        return _bursts(t, 0.8, 0.25, 0.2) * np.sin(two_pi * 1000 * t)
    if source == "waves":
        return 0.5 * _smooth(_noise(duration, key), 20) * 3 * (0.5 + 0.5 * np.sin(two_pi * 0.25 * t))
    if source == "tone-low":
        return 0.5 * np.sin(two_pi * 220 * t)
    raise ValueError(f"no synthesiser for sound source {source!r}")


def mix(sources: Sequence[str], duration: float, key: str) -> Signal:
    """Sum the sources' sounds and normalise to a peak of 0.5 (silence stays silent)."""
    out = np.zeros(len(_t(duration)))
    for name in sources:
        out += sound(name, duration, f"{key}/{name}")
    peak = float(np.max(np.abs(out))) if len(out) else 0.0
    return out * (0.5 / peak) if peak > 0 else out


# ---------------------------------------------------------------- writers

_BITEXACT = ["-fflags", "+bitexact", "-flags:v", "+bitexact", "-flags:a", "+bitexact", "-map_metadata", "-1"]


def write_video(path: Path, timeline: Timeline, duration: float, audio: Signal | None = None) -> None:
    """Encode the timeline as H.264 mp4; with ``audio`` an AAC track is embedded, else none."""
    from moviepy import VideoClip
    from moviepy.audio.AudioClip import AudioArrayClip

    path.parent.mkdir(parents=True, exist_ok=True)
    clip = VideoClip(frame_function=frame_function(timeline), duration=duration)
    if audio is not None:
        # moviepy 2.1 writes a mono array at twice its length: hand it two identical channels.
        clip = clip.with_audio(AudioArrayClip(np.stack([audio, audio], axis=1), fps=SR))
    with tempfile.TemporaryDirectory() as tmp:
        clip.write_videofile(
            str(path),
            fps=FPS,
            codec="libx264",
            audio=audio is not None,
            audio_codec="aac",
            audio_fps=SR,
            audio_bitrate="32k",
            preset="medium",
            threads=1,
            logger=None,
            temp_audiofile_path=tmp + "/",
            ffmpeg_params=_BITEXACT,
        )
    clip.close()


def write_wav(path: Path, signal: Signal) -> None:
    """Write a 16 kHz mono 16-bit PCM wav (the standard library writer: byte-identical runs)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    pcm = (np.clip(signal, -1.0, 1.0) * 32767).astype("<i2")
    with wave.open(str(path), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(SR)
        w.writeframes(pcm.tobytes())


def write_truncated_video(path: Path, timeline: Timeline, duration: float, keep: int = 1500) -> None:
    """A deliberately unreadable mp4: a real encoding cut after ``keep`` bytes (no index atom)."""
    write_video(path, timeline, duration)
    path.write_bytes(path.read_bytes()[:keep])
