"""Two runs compared: the flip table equals a hand count, the paired tests, where A loses."""

from __future__ import annotations

import pytest

from analysis.benchmarks import REGISTRY
from analysis.failures.compare import board_differences, flip_table, where_a_loses
from analysis.load.catalog import SAMPLE_MANIFEST, load_manifest
from analysis.query.flips import CELLS, describe_flip, paired_rows, parse_flip

from .planted import PLANTED, planted_table


@pytest.fixture(scope="module")
def table():  # type: ignore[no-untyped-def]
    return load_manifest(SAMPLE_MANIFEST).table


@pytest.mark.parametrize("key", REGISTRY)
def test_the_flip_table_equals_a_hand_count_on_the_samples(table, key: str) -> None:  # type: ignore[no-untyped-def]
    rows = table[table["benchmark"] == key]
    verdicts: dict[str, dict[tuple[str, str], bool]] = {"yes-biased": {}, "balanced": {}}
    for row in rows.itertuples():
        if row.model in verdicts and row.scored and row.correct is not None and str(row.correct) != "<NA>":
            verdicts[row.model].setdefault((str(row.item_id), str(row.task)), bool(row.correct))
    a, b = verdicts["yes-biased"], verdicts["balanced"]
    hand = dict.fromkeys(CELLS, 0)
    for key in a.keys() & b.keys():
        hand[CELLS[[a[key] and b[key], not a[key] and b[key], a[key] and not b[key], True].index(True)]] += 1
    counted = flip_table(paired_rows(rows, "yes-biased", "balanced"))
    assert counted == hand
    assert sum(counted.values()) > 0


def test_board_differences_are_a_minus_b_and_holm_corrected(table) -> None:  # type: ignore[no-untyped-def]
    rows = table[table["benchmark"] == "avhbench"]
    ab = board_differences(rows, "avhbench", "yes-biased", "balanced", n_boot=200)
    ba = board_differences(rows, "avhbench", "balanced", "yes-biased", n_boot=200)
    assert len(ab) >= 2
    for x, y in zip(ab, ba, strict=True):
        assert x.difference == pytest.approx(x.a - x.b) and x.difference == pytest.approx(-y.difference)
        assert x.interval[0] <= x.difference <= x.interval[1]
        assert x.test == "mcnemar" and x.p == pytest.approx(y.p)
        assert x.p_holm >= x.p
    ps = sorted(d.p for d in ab)
    assert min(d.p_holm for d in ab) == pytest.approx(min(1.0, ps[0] * len(ps)))


def test_where_a_loses_finds_the_slice_planted_against_a() -> None:
    found, tested = where_a_loses(planted_table(4, models=("a", "b")), "cmm", "a", "b", max_depth=2)
    assert tested > 20
    assert found[0].model == "a vs b"
    assert found[0].conditions == PLANTED


def test_the_report_compares_two_runs_in_html_and_latex(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    from analysis.cli.main import main

    out = tmp_path / "report.html"
    args = ["report", str(SAMPLE_MANIFEST), "--n-boot", "200", "--compare", "yes-biased", "balanced"]
    assert main([*args, "--out", str(out)]) == 0
    html = out.read_text()
    assert html.count("<h3>yes-biased (A) against balanced (B)</h3>") == len(REGISTRY)
    assert "Where yes-biased loses to balanced" in html
    capsys.readouterr()
    assert main([*args, "--format", "latex"]) == 0
    latex = capsys.readouterr().out
    assert latex.count("yes-biased (A) against balanced (B)") == len(REGISTRY)
    assert "p (Holm)" in latex
    assert main([*args[:-2], "nobody", "balanced", "--format", "latex"]) == 2


@pytest.mark.parametrize(
    ("text", "flip", "why"),
    [
        ("only A wrong · A = m1 · B = m2", ("m1", "m2", "only A wrong"), "as describe_flip writes it"),
        ("both wrong · A = a · b · B = c", ("a · b", "c", "both wrong"), "a model name holding ' · '"),
        ("   ", (), "blank: no cell"),
    ],
)
def test_a_flip_cell_reads_back_from_its_text(text: str, flip: tuple[str, ...], why: str) -> None:
    assert parse_flip(text) == flip, why
    if flip:
        assert parse_flip(describe_flip(flip)) == flip  # type: ignore[arg-type]


@pytest.mark.parametrize("text", ["only A wrong", "mostly wrong · A = a · B = b", "A = a · B = b"])
def test_text_that_is_no_flip_cell_is_refused(text: str) -> None:
    with pytest.raises(ValueError, match="flip-table cell"):
        parse_flip(text)
