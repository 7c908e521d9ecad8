"""The SimCSE loader and the STH description through a real (tiny, random) RoBERTa from local files."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from analysis.benchmarks import vidhalluc
from analysis.benchmarks.vidhalluc import sth
from analysis.benchmarks.vidhalluc.embedder import SIMCSE_ENV, cosine, load_simcse

torch = pytest.importorskip("torch", reason="torch is an optional dependency (pip install .[embed])")
transformers = pytest.importorskip("transformers", reason="transformers is an optional dependency")


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A 2-layer, 32-wide RoBERTa with a byte-level vocabulary and no merges, saved like a hub model."""
    from tokenizers.pre_tokenizers import ByteLevel

    folder = tmp_path_factory.mktemp("tiny-roberta")
    vocab = {token: i for i, token in enumerate(["<s>", "<pad>", "</s>", "<unk>", "<mask>"])}
    for symbol in sorted(ByteLevel.alphabet()):
        vocab.setdefault(symbol, len(vocab))
    tokenizer = transformers.RobertaTokenizer(vocab=vocab, merges=[], model_max_length=120)
    tokenizer.save_pretrained(folder)
    torch.manual_seed(0)
    config = transformers.RobertaConfig(
        vocab_size=len(vocab),
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=64,
        max_position_embeddings=130,
        pad_token_id=1,
    )
    transformers.RobertaModel(config).save_pretrained(folder)
    return folder


def write(tmp_path: Path, name: str, data: Any) -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_loads_from_a_local_folder_and_embeds(tiny_model: Path) -> None:
    embedder, reason = load_simcse(tiny_model)
    assert embedder is not None and reason is None
    vectors = embedder.embed(["a kitchen", "a garden", "a kitchen"])
    assert vectors.shape == (3, 32) and vectors.dtype == np.float32
    assert np.array_equal(vectors[0], vectors[2])
    assert not np.array_equal(vectors[0], vectors[1])
    assert np.array_equal(embedder.embed(["a kitchen"])[0], vectors[0])  # deterministic, no padding effects
    # an identical pair: cosine 1, so the side scores 1
    assert cosine(vectors[0], vectors[2]) == pytest.approx(1.0, abs=1e-6)
    assert sth.side_score(cosine(vectors[0], vectors[2])) == pytest.approx(1.0, abs=1e-5)


def test_description_through_the_tiny_model(tiny_model: Path, tmp_path: Path) -> None:
    gold = write(
        tmp_path,
        "sth.json",
        {
            "a": {"Scene change": "Yes", "Locations": "from a kitchen to a garden."},
            "b": {"Scene change": "Yes", "Locations": "from a street to a shop."},
            "c": {"Scene change": "No", "Locations": "None"},
        },
    )
    pred = write(
        tmp_path,
        "p.json",
        {
            "a": "Scene change: Yes, Locations: from a kitchen to a garden.",
            "b": "Scene change: Yes, Locations: from the road to a store.",
            "c": "Scene change: No, Locations: None",
        },
    )
    table = vidhalluc.load(pred, gold=gold, task="sth")
    embedder, _ = load_simcse(str(tiny_model))
    first = vidhalluc.score(table, task="sth", embedder=embedder)["overall"]
    second = vidhalluc.score(table, task="sth", embedder=embedder)["overall"]
    assert first == second
    description = first["description_score"]
    assert isinstance(description, float) and 0.0 <= description <= 1.0
    # id a's two sides are identical (1 each), so description >= (1 + 1) / (2 x 2) = 0.5
    assert description >= 0.5 - 1e-6
    assert first["mcc"] == 1.0 and first["score"] == pytest.approx(0.6 + 0.4 * description)


def test_environment_variable_feeds_the_default(
    tiny_model: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(SIMCSE_ENV, str(tiny_model))
    gold = write(tmp_path, "sth.json", {"a": {"Scene change": "Yes", "Locations": "from x to y."}})
    pred = write(tmp_path, "p.json", {"a": "Scene change: Yes, Locations: from x to y."})
    report = vidhalluc.score(vidhalluc.load(pred, gold=gold, task="sth"), task="sth")
    assert report["overall"]["description_score"] == pytest.approx(1.0, abs=1e-5)


def test_unavailable_models_give_a_reason_not_an_exception(tmp_path: Path) -> None:
    embedder, reason = load_simcse(tmp_path / "missing")
    assert embedder is None and reason and "no model folder" in reason
    empty = tmp_path / "empty-folder"
    empty.mkdir()
    embedder, reason = load_simcse(empty)
    assert embedder is None and reason and "cannot load" in reason
    embedder, reason = load_simcse("nobody-here/not-a-cached-model")
    assert embedder is None and reason and "not-a-cached-model" in reason


def test_importing_the_module_loads_no_torch() -> None:
    import subprocess
    import sys

    code = (
        "import sys, analysis.benchmarks.vidhalluc; "
        "print('torch' in sys.modules or 'transformers' in sys.modules)"
    )
    result = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        cwd=Path(__file__).parents[3],
    )
    assert result.stdout.strip() == "False"
