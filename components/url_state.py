"""Views that can be shared: the URL carries benchmark, filters and the open row.

``?benchmark=<id>&models=balanced&task=...&category=...&wrong=1&dependent=1&flagged=1&q=text
&slice=gold+%3D+no&flip=...&item=<item_id>&model=<model>`` opens exactly that view (the Items
tab, the row in the inspector: ``item`` answered by ``model``). As the view changes, a small script
puts it in the address bar (``history.pushState``, one entry per change of the filters or of the
open item; the same view with its row closed, as another benchmark closes it, or with the model
of its item added, replaces the entry instead), so Back steps back: on
``popstate`` a hidden button hands the address to the server (:data:`POP_JS`), which puts that
view back in place in one answer, without reloading the page (the URL's item open, or none when
the address names none). The pure halves (:func:`params_of`, :func:`restore`, :func:`params_from`)
are tested without a browser.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any
from urllib.parse import parse_qsl

import gradio as gr

from analysis.benchmarks.slicing import describe, parse
from analysis.load.catalog import Catalog
from analysis.query import ALL, Filters, choices
from analysis.query.flips import describe_flip, parse_flip

FLAGS = (("wrong", "wrong_only"), ("dependent", "parser_dependent"), ("flagged", "flagged_only"))

PUSH_JS = """
(item, benchmark, models, task, category, wrong, dependent, flagged, search, slice, flip) => {
  if (!window.__hsViewRestored) return [];  // the URL's own view is still being put in place
  const p = new URLSearchParams();
  if (benchmark) p.set('benchmark', benchmark);
  if (models && models.length) p.set('models', models.join(','));
  if (task && task !== '(all)') p.set('task', task);
  if (category && category !== '(all)') p.set('category', category);
  if (wrong) p.set('wrong', '1');
  if (dependent) p.set('dependent', '1');
  if (flagged) p.set('flagged', '1');
  if (search) p.set('q', search);
  if (slice) p.set('slice', slice);
  if (flip) p.set('flip', flip);
  // the row: its item, the model that answered it and its benchmark ("id\u001fmodel\u001fbench",
  // see item_of); a row of another benchmark than the one chosen is being closed: never written
  const [rowId, model, rowBench] = (item || '').split('\u001f');
  const id = rowId && (!rowBench || rowBench === benchmark) ? rowId : '';
  if (id) p.set('item', id);
  if (id && model) p.set('model', model);
  // Gradio's own parameter (the light or dark theme) is the page's, not the view's: kept, so a
  // reload or a shared link keeps its theme (the written address used to drop it)
  const theme = new URLSearchParams(window.location.search).get('__theme');
  if (theme) p.set('__theme', theme);
  const query = '?' + p.toString();
  if (query === window.location.search) return [];
  // the same view with its row closed (another benchmark closes it) or completed (its model
  // added to a shared link's item) is that step, not a step of its own: replaced, not pushed
  const here = new URLSearchParams(window.location.search);
  const shownItem = here.get('item') || '';
  here.delete('item');
  here.delete('model');
  p.delete('item');
  p.delete('model');
  const sameView = here.toString() === p.toString() && (!id || id === shownItem);
  const write = sameView ? 'replaceState' : 'pushState';
  window.history[write]({halluscope: true}, '', window.location.pathname + query);
  return [];
}
"""

POP_ID = "url-pop"
"""The hidden button that Back and Forward click (:data:`HEAD`)."""

READY_JS = (
    "(...view) => { window.__hsStarted = true; "
    "if (window.__hsPopPending) { window.__hsPopPending = false; "
    f"const pop = document.getElementById('{POP_ID}'); if (pop) {{ pop.click(); return []; }} }} "
    f"window.__hsViewRestored = true; return ({PUSH_JS.strip()})(...view); }}"
)
"""Run once the URL's view is in place, with :data:`PUSH_JS`'s inputs: from then on, changes of the
view go to the URL. The view put in place is written at once, replacing the address's step: a link
that names an item but not the model gains the model whose answer it opened (its changes came
while the view was still being put in place, which :data:`PUSH_JS` skips). A Back or Forward
pressed while that view was being put back is put back now (the address is already its)."""

HEAD = f"""
<script>
window.addEventListener('popstate', () => {{
  const pop = document.getElementById('{POP_ID}');
  // before the page's own view is in place (or without the button) a reload restores the address
  if (!pop || !window.__hsStarted) {{ window.location.reload(); return; }}
  // another view is still being put back (Back pressed twice quickly): this one comes after it
  if (!window.__hsViewRestored) {{ window.__hsPopPending = true; return; }}
  window.__hsViewRestored = false;  // the view being put back is not a new step of history
  pop.click();
}});
</script>
"""

POP_JS = "(search) => [window.location.search]"
"""The address's query, handed to the server by the hidden button's click (Back, Forward)."""


def linked_benchmark(request: gr.Request | None, benchmark: str | None, selector: gr.Dropdown) -> str | None:
    """The benchmark the page's address names (one of ``selector``'s choices), else ``benchmark``.

    What a tab fills at load: the page is drawn with the first benchmark chosen, and a link's own
    view comes a moment later; filled with the chosen one, a link to another benchmark showed the
    first benchmark's leaderboards for about a second. An API call has no address: ``benchmark``.
    """
    params = getattr(request, "query_params", None) if request is not None else None
    named = params.get("benchmark") if params is not None else None
    known = [choice[1] if isinstance(choice, tuple) else choice for choice in selector.choices or []]
    return named if named in known else benchmark


def filled_at_load(fill: Callable[..., Any], selector: gr.Dropdown) -> Callable[..., Any]:
    """``fill(request, profile, benchmark)`` as a load handler: for the benchmark the link names.

    :func:`linked_benchmark`, for every tab that fills itself at load.
    """

    def at_load(request: gr.Request, profile: gr.OAuthProfile | None, benchmark: str | None) -> Any:
        return fill(request, profile, linked_benchmark(request, benchmark, selector))

    return at_load


def params_from(search: str) -> dict[str, str]:
    """The parameters of an address's query (``?benchmark=<id>&item=...``); the last of a repeated one."""
    return dict(parse_qsl((search or "").lstrip("?")))


def params_of(filters: Filters, item: str | None, model: str | None = None) -> dict[str, str]:
    """The query parameters of a view (what :data:`PUSH_JS` writes, in Python for tests).

    ``item`` and ``model`` name the open row: an item is answered by every model, and a link to
    one model's failure must open that model's answer (issue 20).
    """
    out: dict[str, str] = {}
    if filters.benchmark:
        out["benchmark"] = filters.benchmark
    if filters.models:
        out["models"] = ",".join(filters.models)
    if filters.task and filters.task != ALL:
        out["task"] = filters.task
    if filters.category and filters.category != ALL:
        out["category"] = filters.category
    for key, attr in FLAGS:
        if getattr(filters, attr):
            out[key] = "1"
    if filters.search:
        out["q"] = filters.search
    if filters.slice:
        out["slice"] = describe(filters.slice)
    if filters.flip:
        out["flip"] = describe_flip(filters.flip)
    if item:
        out["item"] = item
        if model:
            out["model"] = model
    return out


def restore(catalog: Catalog, params: Mapping[str, str]) -> tuple[Filters, str | None]:
    """The view a URL's parameters ask for; unknown benchmarks and values fall back to defaults."""
    benches = catalog.benchmarks()
    bench = params.get("benchmark")
    item = (params.get("item") or "").strip() or None
    if item:  # the row's benchmark, whatever the address says: never one benchmark's row in another
        rows = catalog.rows_of(item)
        bench = str(catalog.table.at[int(rows[0]), "benchmark"]) if rows.size else bench
    if bench not in benches:
        bench = benches[0] if benches else None
    offered = choices(catalog.table, bench)
    models = tuple(m for m in (params.get("models") or "").split(",") if m in offered["model"])
    task = params.get("task") if params.get("task") in offered["task"] else ALL
    category = params.get("category") if params.get("category") in offered["category"] else ALL
    flags = {attr: params.get(key) == "1" for key, attr in FLAGS}
    try:
        cut = parse(params.get("slice") or "")
    except ValueError:
        cut = ()  # a hand-edited URL: the view without its slice
    try:
        flip = parse_flip(params.get("flip") or "")
    except ValueError:
        flip = ()
    filters = Filters(
        benchmark=bench,
        models=models,
        task=task,
        category=category,
        search=params.get("q") or "",
        slice=cut,
        flip=flip,
        **flags,
    )
    return filters, item


ROW_SEP = "\x1f"
"""Between the item id, the model and the benchmark in :func:`item_of`'s value (none holds it)."""


def item_of(catalog: Catalog, row: int | None) -> str:
    """The open row for the URL: ``item_id``, its model and its benchmark, :data:`ROW_SEP` between.

    The benchmark lets :data:`PUSH_JS` leave out a row that another benchmark's view is closing.
    '' for no row.
    """
    if row is None or not 0 <= row < len(catalog.table):
        return ""
    item_id = str(catalog.table.at[row, "item_id"])
    model = str(catalog.table.at[row, "model"] or "")
    return ROW_SEP.join((item_id, model, str(catalog.table.at[row, "benchmark"])))


def model_of(params: Mapping[str, str]) -> str | None:
    """The ``model`` of a URL's row (None: any model's row of its item will do)."""
    return (params.get("model") or "").strip() or None


def values_of(updates: Sequence[Any]) -> list[Any]:
    """The values the filter updates of :func:`restore_updates` set (an update dict or a value)."""
    return [u.get("value") if isinstance(u, dict) else u for u in updates]


def opened(updates: Sequence[Any]) -> list[Any]:
    """The filter updates of :func:`restore_updates`, each also unlocking its widget."""
    return [
        {**u, "interactive": True} if isinstance(u, dict) else gr.update(value=u, interactive=True)
        for u in updates
    ]


def restore_updates(catalog: Catalog, params: Mapping[str, str]) -> tuple[Any, ...]:
    """Widget updates opening the view of a URL's parameters: filters, the jump box, and the tab."""
    filters, item = restore(catalog, params)
    offered = choices(catalog.table, filters.benchmark)
    wants_items = item is not None or any(
        k in params
        for k in ("models", "task", "category", "q", "slice", "flip", "wrong", "dependent", "flagged")
    )
    return (
        gr.update(value=filters.benchmark),
        gr.update(choices=offered["model"], value=list(filters.models)),
        gr.update(choices=[ALL, *offered["task"]], value=filters.task or ALL),
        gr.update(choices=[ALL, *offered["category"]], value=filters.category or ALL),
        filters.wrong_only,
        filters.parser_dependent,
        filters.flagged_only,
        filters.search,
        describe(filters.slice),
        describe_flip(filters.flip) if filters.flip else "",
        item or "",
        gr.Tabs(selected="items-tab") if wants_items else gr.skip(),
    )
