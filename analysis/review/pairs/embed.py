"""CLIP and DINOv2 clip embeddings from local checkpoints, and DINO-HEAL style saliency.

A benchmark may select clip pairs that mean nearly the same and look different: a high CLIP
similarity and a low DINOv2 one (its :class:`~analysis.benchmarks.base.PairRule`,
``docs/pair-scores.md``). A clip's
embedding is the mean of its frames' L2-normalised embeddings, normalised again: CLIP's projected
image features, DINOv2's CLS token. Checkpoints are folders on local disk (``save_pretrained``);
nothing is ever downloaded (``local_files_only``, the hub's offline switch set). torch and
transformers are the optional ``embed`` extra: without them every entry point raises
:class:`~analysis.errors.UsageError` saying what to install.

Saliency (DINO-HEAL): the last layer's attention from the CLS token to every patch, averaged over
heads, reshaped to the patch grid and divided by its sum, so each frame's map sums to 1. It needs
the eager attention implementation: with the default (SDPA) one, ``output_attentions`` returns
nothing in current transformers.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from analysis.errors import UsageError

Floats = npt.NDArray[np.float32]
INSTALL = "pairs score needs torch and transformers: pip install 'halluscope[embed]'"


def _libraries() -> tuple[Any, Any]:
    """(torch, transformers), quiet and offline; UsageError naming the install otherwise."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    try:
        import torch
        import transformers
    except ImportError:
        raise UsageError(INSTALL) from None
    transformers.utils.logging.set_verbosity_error()  # type: ignore[no-untyped-call]
    transformers.utils.logging.disable_progress_bar()  # type: ignore[no-untyped-call]
    return torch, transformers


def weights_digest(folder: Path) -> str:
    """SHA-256 (first 16 hex digits) of a checkpoint's weight files, in name order."""
    digest = hashlib.sha256()
    files = sorted(
        p for p in folder.iterdir() if p.name.startswith(("model", "pytorch_model")) and p.is_file()
    )
    for path in files:
        digest.update(path.name.encode())
        with path.open("rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
    return digest.hexdigest()[:16]


def check_checkpoint(folder: Path, what: str) -> None:
    """UsageError in one line unless ``folder`` holds a saved model (config and weights)."""
    if not folder.is_dir():
        raise UsageError(f"--{what} {folder}: no such folder (give a checkpoint saved with save_pretrained)")
    has_weights = any(folder.glob("model*.safetensors")) or any(folder.glob("pytorch_model*.bin"))
    if not (folder / "config.json").is_file() or not has_weights:
        raise UsageError(
            f"--{what} {folder}: not a checkpoint (expected config.json and model weights, "
            "as save_pretrained writes them)"
        )
    wanted = _MODEL_TYPES.get(what.removeprefix("pair-"))
    try:
        model_type = json.loads((folder / "config.json").read_text(encoding="utf-8")).get("model_type")
    except (OSError, ValueError, AttributeError):
        model_type = None  # loading it says what is wrong
    if wanted is not None and isinstance(model_type, str) and model_type not in wanted:
        # loaded anyway, the wrong model blamed every video ("cannot be read (Input image size...)")
        raise UsageError(f"--{what} {folder}: a {model_type} checkpoint, expected {' or '.join(wanted)}")


_MODEL_TYPES = {"clip": ("clip",), "dino": ("dinov2",)}
"""The ``model_type`` (config.json) each option's checkpoint must have."""


@dataclass
class Encoder:
    """One loaded checkpoint: its model, image processor and identity."""

    kind: str
    """``clip`` or ``dino``."""
    folder: Path
    digest: str
    model: Any
    processor: Any

    @property
    def label(self) -> str:
        """``folder@digest``: the checkpoint as the output rows name it."""
        return f"{self.folder}@{self.digest}"

    def embed(self, frames: Sequence[Any]) -> Floats:
        """One L2-normalised embedding per frame (PIL images), as a (frames, dim) array."""
        torch, _ = _libraries()
        inputs = self.processor(images=list(frames), return_tensors="pt")
        with torch.no_grad():
            if self.kind == "clip":
                out = self.model.get_image_features(pixel_values=inputs["pixel_values"])
                features = out if isinstance(out, torch.Tensor) else out.pooler_output
            else:
                features = self.model(pixel_values=inputs["pixel_values"]).last_hidden_state[:, 0]
        array = features.float().numpy()
        return normalise(array)

    def saliency(self, frames: Sequence[Any]) -> tuple[Floats, Any]:
        """(maps of shape (frames, rows, cols), each summing to 1; the processed images' size)."""
        torch, _ = _libraries()
        if self.kind != "dino":
            raise ValueError("saliency is DINOv2's CLS attention")
        inputs = self.processor(images=list(frames), return_tensors="pt")
        pixels = inputs["pixel_values"]
        with torch.no_grad():
            out = self.model(pixel_values=pixels, output_attentions=True)
        if not out.attentions:
            raise UsageError(f"{self.folder}: the model returned no attentions (eager attention is needed)")
        last = out.attentions[-1].float().numpy()  # (frames, heads, tokens, tokens)
        patch = int(self.model.config.patch_size)
        rows, cols = pixels.shape[-2] // patch, pixels.shape[-1] // patch
        cls_to_patches = last[:, :, 0, -rows * cols :].mean(
            axis=1
        )  # registers, if any, sit before the patches
        maps = cls_to_patches.reshape(len(frames), rows, cols)
        maps = maps / maps.sum(axis=(1, 2), keepdims=True)
        return maps.astype(np.float32), (pixels.shape[-1], pixels.shape[-2])


def load_encoder(folder: Path, kind: str) -> Encoder:
    """A CLIP (``kind="clip"``) or DINOv2 (``"dino"``) checkpoint from a local folder."""
    check_checkpoint(folder, kind)
    _, transformers = _libraries()
    try:
        processor = transformers.AutoImageProcessor.from_pretrained(folder, local_files_only=True)
        if kind == "clip":
            model = transformers.CLIPModel.from_pretrained(folder, local_files_only=True)
        else:
            model = transformers.AutoModel.from_pretrained(
                folder, local_files_only=True, attn_implementation="eager"
            )
    except (OSError, ValueError, KeyError) as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise UsageError(f"--{kind} {folder}: cannot be loaded ({first[:200]})") from None
    model.eval()
    return Encoder(kind, folder, weights_digest(folder), model, processor)


def normalise(array: npt.NDArray[Any]) -> Floats:
    """Rows scaled to unit length (a zero row stays zero)."""
    norms = np.linalg.norm(array, axis=-1, keepdims=True)
    return (array / np.where(norms == 0, 1.0, norms)).astype(np.float32)


def clip_embedding(per_frame: Floats) -> Floats:
    """A clip's embedding: the mean of its frames' normalised embeddings, normalised."""
    out: Floats = normalise(per_frame.mean(axis=0, keepdims=True))[0]
    return out


def cosine(a: Floats, b: Floats) -> float:
    """Cosine similarity of two unit vectors, clipped to [-1, 1]."""
    return float(np.clip(np.dot(a, b), -1.0, 1.0))
