"""Tiny random-weight CLIP and DINOv2 checkpoints, saved like hub models (a few hundred KB each).

Built locally with ``save_pretrained`` from 2-layer configs (seeded): the pair-score code paths run
on them without the internet. Used by the tests and by ``bench/pair_scores.py``.
"""

from __future__ import annotations

from pathlib import Path

IMAGE = 32
PATCH = 8


def build(folder: Path) -> tuple[Path, Path]:
    """(CLIP folder, DINOv2 folder) under ``folder``, built once (reused when present)."""
    import torch
    import transformers

    transformers.utils.logging.set_verbosity_error()
    transformers.utils.logging.disable_progress_bar()
    clip, dino = folder / "tiny-clip", folder / "tiny-dinov2"
    if not (clip / "config.json").is_file():
        torch.manual_seed(0)
        config = transformers.CLIPConfig(
            text_config={"vocab_size": 99, "hidden_size": 32, "intermediate_size": 37, "num_hidden_layers": 2,
                         "num_attention_heads": 2, "max_position_embeddings": 16, "bos_token_id": 0,
                         "eos_token_id": 2, "pad_token_id": 1},
            vision_config={"image_size": IMAGE, "patch_size": PATCH, "hidden_size": 32,
                           "intermediate_size": 37, "num_hidden_layers": 2, "num_attention_heads": 2},
            projection_dim=16,
        )  # fmt: skip
        transformers.CLIPModel(config).save_pretrained(clip)
        transformers.CLIPImageProcessor(
            size={"shortest_edge": IMAGE}, crop_size={"height": IMAGE, "width": IMAGE}
        ).save_pretrained(clip)
    if not (dino / "config.json").is_file():
        torch.manual_seed(1)
        config = transformers.Dinov2Config(
            image_size=IMAGE, patch_size=PATCH, hidden_size=32, intermediate_size=37,
            num_hidden_layers=2, num_attention_heads=2,
        )  # fmt: skip
        transformers.Dinov2Model(config).save_pretrained(dino)
        transformers.BitImageProcessor(
            size={"shortest_edge": IMAGE}, crop_size={"height": IMAGE, "width": IMAGE}, do_center_crop=True
        ).save_pretrained(dino)
    return clip, dino
