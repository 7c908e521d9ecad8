"""Shared views: a URL's parameters give the view, and a view gives the parameters back."""

from __future__ import annotations

import pytest

from analysis.load.catalog import SAMPLE_MANIFEST, Catalog, load_manifest
from analysis.query import ALL, Filters
from components.url_state import ROW_SEP, item_of, model_of, params_of, restore


@pytest.fixture(scope="module")
def cat() -> Catalog:
    return load_manifest(SAMPLE_MANIFEST)


def test_a_view_survives_the_round_trip_through_its_url(cat: Catalog) -> None:
    item = str(cat.table.loc[cat.table["benchmark"] == "cmm", "item_id"].iloc[3])
    view = Filters(
        benchmark="cmm",
        models=("balanced",),
        category="visual-language",
        wrong_only=True,
        flagged_only=True,
        search="dog",
    )
    params = params_of(view, item)
    assert params == {
        "benchmark": "cmm",
        "models": "balanced",
        "category": "visual-language",
        "wrong": "1",
        "flagged": "1",
        "q": "dog",
        "item": item,
    }
    back, back_item = restore(cat, params)
    assert back == Filters(
        benchmark="cmm",
        models=("balanced",),
        task=ALL,
        category="visual-language",
        wrong_only=True,
        flagged_only=True,
        search="dog",
    )
    assert back_item == item


def test_unknown_values_fall_back_instead_of_failing(cat: Catalog) -> None:
    view, item = restore(cat, {"benchmark": "nope", "models": "ghost,balanced", "task": "<script>"})
    assert view.benchmark == cat.benchmarks()[0]
    assert view.models == ("balanced",) and view.task == ALL and item is None


def test_an_item_alone_opens_its_benchmark(cat: Catalog) -> None:
    row = int((cat.table["benchmark"] == "cdh-bench").to_numpy().nonzero()[0][0])
    item, model, bench = item_of(cat, row).split(ROW_SEP)
    assert item == cat.table.at[row, "item_id"] and model == cat.table.at[row, "model"]
    assert bench == "cdh-bench"
    view, found = restore(cat, {"item": item})
    assert view.benchmark == "cdh-bench" and found == item
    # an address naming another benchmark than its row's opens the row's (never a mixed view)
    view, found = restore(cat, {"benchmark": "cmm", "item": item, "wrong": "1"})
    assert view.benchmark == "cdh-bench" and found == item and view.wrong_only
    assert item_of(cat, None) == "" and item_of(cat, 10**9) == ""


def test_a_shared_row_opens_the_model_it_showed_not_the_first(cat: Catalog) -> None:
    # Issue 20: the URL carried the item, not the model, so a link to commonsense-prior's failure
    # opened yes-biased's answer to the same item.
    from components.browse import navigate

    table = cat.table
    rows = table[(table["benchmark"] == "cmm")]
    item = str(rows["item_id"].iloc[0])
    answers = rows[rows["item_id"] == item]
    assert answers["model"].nunique() >= 2
    last = str(answers["model"].iloc[-1])  # not the row an item id alone opens
    params = params_of(Filters(benchmark="cmm"), item, last)
    assert params["item"] == item and params["model"] == last
    assert model_of(params) == last and model_of({"item": item}) is None
    values = ["cmm", [], ALL, ALL, False, False, False, "", "", ""]
    row = navigate.find_item(cat, item, values, model_of(params))[0]
    assert table.at[row, "model"] == last and table.at[row, "item_id"] == item
    first = navigate.find_item(cat, item, values)[0]
    assert table.at[first, "model"] != last  # without the model: the first row, as before
    ghost = navigate.find_item(cat, item, values, "no-such-model")[0]
    assert ghost == first  # an unknown model falls back to the item's row


def test_a_slice_survives_the_round_trip_and_a_broken_one_is_dropped(cat: Catalog) -> None:
    view = Filters(benchmark="cmm", models=("balanced",), slice=(("gold", "no"), ("modality", "audio")))
    params = params_of(view, None)
    assert params["slice"] == "gold = no & modality = audio"
    back, _ = restore(cat, params)
    assert back.slice == (("gold", "no"), ("modality", "audio"))
    broken, _ = restore(cat, {**params, "slice": "no equals sign here"})
    assert broken.slice == () and broken.models == ("balanced",)  # the rest of the view stands


def test_a_flip_cell_survives_the_round_trip_and_a_broken_one_is_dropped(cat: Catalog) -> None:
    view = Filters(benchmark="cmm", flip=("balanced", "yes-biased", "only A wrong"))
    params = params_of(view, None)
    assert params["flip"] == "only A wrong · A = balanced · B = yes-biased"
    assert restore(cat, params)[0].flip == ("balanced", "yes-biased", "only A wrong")
    assert restore(cat, {**params, "flip": "sometimes wrong · A = x · B = y"})[0].flip == ()


def test_a_tab_filled_at_load_takes_the_benchmark_the_link_names_if_it_is_one() -> None:
    # a ?benchmark=cmm link filled its tabs with the selector's first benchmark first; a name that
    # is not a benchmark of the page, or a request without an address (the API), keeps the selector's
    import gradio as gr
    from starlette.requests import Request

    from components.url_state import filled_at_load

    selector = gr.Dropdown(["avhbench", "cmm"], value="avhbench")  # no app: no event loop left
    fill = filled_at_load(lambda request, profile, benchmark: benchmark, selector)

    def page(query: str) -> gr.Request:
        scope = {"type": "http", "method": "GET", "path": "/", "query_string": query.encode(), "headers": []}
        return gr.Request(Request(scope))

    assert fill(page("benchmark=cmm&item=x"), None, "avhbench") == "cmm"
    assert fill(page("benchmark=nope"), None, "avhbench") == "avhbench"
    assert fill(page("benchmark=%3Cscript%3E"), None, "avhbench") == "avhbench"
    assert fill(page(""), None, "avhbench") == "avhbench"
    assert fill(gr.Request(), None, "cmm") == "cmm"  # no address: an API call
