"""Media path resolution: finds what the benchmark files name, never anything outside the roots."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from analysis.files.media import MediaResolver, reference_parts


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "root"
    for name in (
        "reorg_raw_files/visual/tree/1.mp4",
        "TSH_videos/inner/clip_9.mp4",
        "00191.mp4",
        "images/Body_Parts/Pair_1/counterfactual.png",
        "images/Body_Parts/Pair_2/counterfactual.png",
    ):
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(b"x")
    (tmp_path / "secret.txt").write_text("outside")
    return root


def test_a_declared_alias_finds_the_other_spelling_of_the_first_folder(tree: Path) -> None:
    aliases = (("raw_files", "reorg_raw_files"),)
    found = MediaResolver([tree], aliases).resolve("./raw_files/visual/tree/1.mp4")
    assert found == (tree / "reorg_raw_files/visual/tree/1.mp4").resolve()
    assert MediaResolver([tree], aliases).resolve("reorg_raw_files/visual/tree/1.mp4") == found


def test_the_none_string_and_blank_mean_no_file(tree: Path) -> None:
    resolver = MediaResolver([tree])
    assert [resolver.resolve(v) for v in ("None", "", "  ", None, "null")] == [None] * 5


def test_absolute_author_path_is_matched_by_its_tail(tree: Path) -> None:
    found = MediaResolver([tree]).resolve(
        "/home/author/CDH-Bench/images/Body_Parts/Pair_2/counterfactual.png"
    )
    assert found == (tree / "images/Body_Parts/Pair_2/counterfactual.png").resolve()


def test_bare_name_found_one_folder_deeper_when_unique(tree: Path) -> None:
    resolver = MediaResolver([tree])
    assert resolver.resolve("clip_9.mp4") == (tree / "TSH_videos/inner/clip_9.mp4").resolve()
    # "counterfactual.png" exists in two pair folders: guessing would show the wrong image.
    assert resolver.resolve("Pair_3/counterfactual.png") is None


def test_dot_dot_never_climbs_out(tree: Path) -> None:
    resolver = MediaResolver([tree])
    assert resolver.resolve("../secret.txt") is None
    assert resolver.resolve("../../" + str(tree.parent / "secret.txt")) is None
    assert reference_parts("../a/./b\\c") == ("a", "b", "c")


def test_a_link_leaving_the_root_is_refused(tree: Path) -> None:
    link = tree / "escape.txt"
    os.symlink(tree.parent / "secret.txt", link)
    resolver = MediaResolver([tree])
    assert resolver.resolve("escape.txt") is None
    assert not resolver.contains(link)


def test_missing_roots_are_dropped(tmp_path: Path) -> None:
    assert MediaResolver([tmp_path / "nope"]).roots == ()
    assert MediaResolver([tmp_path / "nope"]).resolve("x.mp4") is None


_segment = st.sampled_from(
    [
        "..",
        ".",
        "",
        "root",
        "secret.txt",
        "00191.mp4",
        "raw_files",
        "reorg_raw_files",
        "visual",
        "tree",
        "1.mp4",
        "~",
        "/",
        "\\",
        "C:",
        "%2e%2e",
        "\x00",
    ]
)


@settings(max_examples=300, suppress_health_check=[HealthCheck.function_scoped_fixture], deadline=None)
@given(
    parts=st.lists(_segment, max_size=8),
    prefix=st.sampled_from(["", "/", "./", "../", "\\\\", "C:\\"]),
    free=st.text(max_size=20),
)
def test_whatever_the_reference_the_result_is_inside_a_root(
    tree: Path, parts: list[str], prefix: str, free: str
) -> None:
    resolver = MediaResolver([tree])
    for reference in (prefix + "/".join(parts), prefix + free, str(tree.parent) + "/" + "/".join(parts)):
        found = resolver.resolve(reference)
        if found is not None:
            assert found.is_file()
            assert found.resolve().is_relative_to(tree.resolve())
            assert found.name != "secret.txt"
