"""``halluscope report``: the HTML opens in Chromium with every network request refused, and shows
every chart and board. A screenshot goes to ``test-artifacts/screenshots/report.png``."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import SAMPLES, SHOTS, WAIT
from playwright.sync_api import Browser, Route, expect

from analysis.cli.main import main

pytestmark = [pytest.mark.filterwarnings("ignore::pandas.errors.Pandas4Warning")]


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("report") / "report.html"
    assert main(["report", str(SAMPLES), "--out", str(out), "--n-boot", "200"]) == 0
    return out


def test_the_report_opens_offline_and_draws_every_chart(browser: Browser, report: Path) -> None:
    asked: list[str] = []

    def refuse(route: Route) -> None:
        if not route.request.url.startswith("file://"):
            asked.append(route.request.url)
            route.abort()
        else:
            route.continue_()

    context = browser.new_context(viewport={"width": 1280, "height": 1000}, offline=True)
    context.route("**/*", refuse)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(report.as_uri())
    charts = page.locator(".js-plotly-plot")
    html = report.read_text(encoding="utf-8")
    expected = html.count("Plotly.newPlot(")
    assert expected >= 5 + 3  # an official chart per benchmark, plus bias charts
    expect(charts).to_have_count(expected, timeout=WAIT)
    for i in range(expected):
        expect(charts.nth(i).locator(".main-svg").first).to_be_attached(timeout=WAIT)
    boards = page.locator(".hs-board")
    assert boards.count() == 4 + 1 + 4 + 2 + 1  # every board of the five sample benchmarks
    expect(page.locator("section#cdh-bench")).to_contain_text("Audit findings")
    assert asked == [] and errors == []
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "report.png"), full_page=False)
    context.close()


def test_latex_and_markdown_write_the_leaderboards(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "table.tex"
    assert main(["report", str(SAMPLES), "--format", "latex", "--out", str(out), "--n-boot", "50"]) == 0
    tex = out.read_text(encoding="utf-8")
    assert tex.count("\\begin{tabular}") == 12 and "\\toprule" in tex and "yes\\_ratio" in tex
    capsys.readouterr()
    assert main(["report", str(SAMPLES), "--format", "markdown", "--n-boot", "50"]) == 0
    md = capsys.readouterr().out
    assert md.count("| model | n |") == 12


def test_html_needs_an_output_file(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["report", str(SAMPLES)]) == 2
    assert "--format html needs --out FILE" in capsys.readouterr().err
