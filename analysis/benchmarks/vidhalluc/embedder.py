"""Sentence embedders for scores that compare free text by meaning (VidHalluc STH descriptions).

The official STH scorer embeds each location phrase with ``princeton-nlp/sup-simcse-roberta-large``
and takes the CLS vector of the last hidden state. :func:`load_simcse` builds that embedder from
files already on disk; it never downloads. torch and transformers are optional dependencies
(``pip install .[embed]``) and are imported only inside :func:`load_simcse`, so ``analysis``
imports without them.

Any object with an ``embed(list[str]) -> np.ndarray`` method (one row per sentence) can stand in
for SimCSE: tests use a tiny random RoBERTa, other projects may plug their own model.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

SIMCSE_NAME = "princeton-nlp/sup-simcse-roberta-large"
"""The model the official STH scorer uses, looked up in the local Hugging Face cache."""

SIMCSE_ENV = "HALLUSCOPE_SIMCSE_PATH"
"""Environment variable naming a local folder that holds the SimCSE model."""

FloatMatrix = npt.NDArray[np.float32]


@runtime_checkable
class SentenceEmbedder(Protocol):
    """Anything that turns sentences into vectors, one row per sentence."""

    def embed(self, sentences: list[str]) -> FloatMatrix:
        """Return a ``(len(sentences), dim)`` array."""
        ...


class TransformerCLSEmbedder:
    """A Hugging Face encoder used the official way: CLS vector of the last hidden state.

    Each sentence is encoded on its own (no padding), as the official scorer does, so batching can
    never move a number.
    """

    def __init__(self, tokenizer: Any, model: Any, torch: Any) -> None:
        self._tokenizer = tokenizer
        self._model = model
        self._torch = torch

    def embed(self, sentences: list[str]) -> FloatMatrix:
        """Embed each sentence separately and stack the CLS vectors."""
        rows: list[FloatMatrix] = []
        with self._torch.no_grad():
            for sentence in sentences:
                inputs = self._tokenizer(sentence, return_tensors="pt", truncation=True)
                output = self._model(**inputs)
                rows.append(output.last_hidden_state[0, 0, :].float().numpy())
        if not rows:
            return np.zeros((0, 0), dtype=np.float32)
        return np.stack(rows).astype(np.float32, copy=False)


def load_simcse(path_or_name: str | Path | None = None) -> tuple[SentenceEmbedder | None, str | None]:
    """Load the SimCSE embedder from local files only; never raises, never downloads.

    Looks at ``path_or_name`` (a folder or a hub name), else the ``HALLUSCOPE_SIMCSE_PATH``
    environment variable, else :data:`SIMCSE_NAME` in the local Hugging Face cache. Returns
    ``(embedder, None)``, or ``(None, reason)`` when the model or the optional packages are missing.
    """
    source = _source(path_or_name)
    if isinstance(source, Path) and not source.is_dir():
        return None, f"no model folder at {source}"
    try:
        import torch
        from transformers import AutoModel, AutoTokenizer
    except ImportError as exc:  # the [embed] extra is not installed
        return None, f"torch and transformers are needed (pip install halluscope[embed]): {exc}"
    try:
        tokenizer = AutoTokenizer.from_pretrained(str(source), local_files_only=True)
        model = AutoModel.from_pretrained(str(source), local_files_only=True)
    except Exception as exc:  # any failure to load means "unavailable", with its reason
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        return None, f"cannot load {source} from local files ({first})"
    model.eval()
    return TransformerCLSEmbedder(tokenizer, model, torch), None


def _source(path_or_name: str | Path | None) -> str | Path:
    """A folder as a Path, a hub name (``owner/name``) as a string for the local cache."""
    if path_or_name is None:
        env = os.environ.get(SIMCSE_ENV, "").strip()
        return Path(env).expanduser() if env else SIMCSE_NAME
    if isinstance(path_or_name, Path):
        return path_or_name.expanduser()
    candidate = Path(path_or_name).expanduser()
    if candidate.exists() or not _looks_like_hub_name(path_or_name):
        return candidate
    return path_or_name


def _looks_like_hub_name(text: str) -> bool:
    parts = text.split("/")
    return len(parts) == 2 and all(parts) and not text.startswith((".", "~"))


def cosine(a: Any, b: Any) -> float:
    """Cosine similarity as the official scorer computes it (scikit-learn, in float32).

    Both rows are normalised in float32 first; a zero vector gives 0, as scikit-learn's
    ``normalize`` leaves it at zero.
    """
    x = np.asarray(a, dtype=np.float32).ravel()
    y = np.asarray(b, dtype=np.float32).ravel()
    nx = np.float32(np.sqrt(np.dot(x, x)))
    ny = np.float32(np.sqrt(np.dot(y, y)))
    x = x / (nx if nx != 0 else np.float32(1))
    y = y / (ny if ny != 0 else np.float32(1))
    return float(np.dot(x, y))
