"""The app's CSS (passed to ``launch(css=...)``): inspector layout, verdict and span colours.

Span colours differ in hue and in decoration (underline, dashed border), so hits, false alarms and
misses stay apart for colour-blind readers too.
"""

from __future__ import annotations

CSS = """
:root { --hs-subdued: #57606a; --hs-rule: #d0d7de; }
.dark { --hs-subdued: #9ba3ad; --hs-rule: #3d444d; }
.hs-media-row { display: flex; flex-wrap: wrap; gap: 12px; align-items: flex-start; }
.hs-media { margin: 0; flex: 1 1 180px; min-width: 0; max-width: 100%; }
.hs-media figcaption { font-size: 0.85em; color: var(--hs-subdued); margin-bottom: 4px; }
.hs-media video, .hs-media img { width: 100%; max-height: 280px; object-fit: contain;
  background: #111; border-radius: 6px; }
.hs-media img { background: transparent; }
.hs-media audio { width: 100%; }
.hs-missing p { font-size: 0.85em; color: #b42318; }
.hs-none { color: var(--hs-subdued); font-style: italic; }
.hs-meta { font-size: 0.85em; color: var(--hs-subdued); margin-bottom: 6px; }
.hs-source { margin-left: 6px; }
.hs-question { font-weight: 600; margin: 6px 0; white-space: pre-wrap; }
.hs-options { margin: 4px 0 8px 1.2em; }
.hs-answer { white-space: pre-wrap; padding: 8px; border-radius: 6px;
  background: var(--background-fill-secondary);
  max-height: 220px; overflow-y: auto; }
mark.hs-parsed { background: #ffe58f; color: #1f2328; padding: 0 2px; border-radius: 3px; font-weight: 600; }
#item table.hs-facts, #item table.hs-others, #others table.hs-others {
  border-collapse: collapse; margin-top: 8px; border: none;
  font-size: 0.92em; width: 100%; }
table.hs-facts th { text-align: left; width: 9em; font-weight: 500;
  color: var(--hs-subdued); }
table.hs-facts th, table.hs-facts td,
table.hs-others th, table.hs-others td { padding: 3px 6px; border: none;
  border-bottom: 1px solid var(--border-color-primary); vertical-align: top; }
table.hs-others th { text-align: left; }
#item table.hs-facts tr, #item table.hs-others tr, #others table.hs-others tr { border: none; }
/* Plotly draws its figures white, with inline colours (the report and the downloads keep them).
   In dark mode the app lays them on its own background: stylesheet !important beats inline style.
   The hover labels keep plotly's own contrast (their text is not in these layers). */
.dark .js-plotly-plot .main-svg { background: transparent !important; }
.dark .js-plotly-plot .bg, .dark .js-plotly-plot .legend rect.bg { fill: transparent !important; }
.dark .js-plotly-plot :is(.infolayer, .xaxislayer-above, .yaxislayer-above, .annotation) text {
  fill: var(--body-text-color) !important; }
.dark .js-plotly-plot :is(.gridlayer, .zerolinelayer) path { stroke: var(--hs-rule) !important; }
.dark .js-plotly-plot :is(.xlines-above, .ylines-above) { stroke: #6e7681 !important; }
.dark .js-plotly-plot .modebar-btn path { fill: var(--body-text-color) !important; opacity: 0.75; }
/* plotly's toolbar sits on a half-white bar: pale icons on light grey in dark mode */
.dark .js-plotly-plot .modebar-group { background-color: transparent !important; }
/* a phone's narrow chart: the toolbar wraps inside it instead of running past its right edge */
.js-plotly-plot .modebar { display: flex; flex-wrap: wrap; justify-content: flex-end; max-width: 100%; }
/* marks drawn black (the gold-yes line, its legend entry) turn light */
.dark .js-plotly-plot path[style*="stroke: rgb(0, 0, 0)"] { stroke: #e6edf3 !important; }
/* the intervals' bars, drawn dark grey for a white page, were all but invisible on the dark one */
.dark .js-plotly-plot g.errorbar path { stroke: #e6edf3 !important; }
.hs-correct { color: #1a7f37; font-weight: 600; }
.hs-wrong { color: #cf222e; font-weight: 600; }
.dark .hs-correct { color: #56d364; }
.dark .hs-wrong { color: #ff7b72; }
.hs-unscored { color: var(--hs-subdued); }
.hs-caption { line-height: 1.7; white-space: pre-wrap; }
/* dark text on the light highlight, in light and in dark mode alike (>= 4.5:1 in both) */
.hs-hit { background: #b7e4c7; color: #1f2328; border-bottom: 2px solid #1a7f37; }
.hs-fa { background: #ffd8a8; color: #1f2328; border-bottom: 2px dashed #d9480f; }
.hs-miss { background: #e5dbff; color: #1f2328; border-bottom: 2px dotted #5f3dc4; }
.hs-nc { color: var(--hs-subdued); }
.hs-legend span { padding: 0 6px; margin-right: 4px; border-radius: 3px; }
.hs-legend .hs-note { color: var(--hs-subdued); font-size: 0.85em; }
.hs-scores { font-size: 0.88em; margin-top: 6px; color: var(--hs-subdued); }
.hs-invalid { color: #b42318; font-weight: 600; margin-bottom: 6px; }
.hs-errors { border-left: 4px solid #cf222e; padding: 6px 10px; background: #fff1f0; color: #5c0011; }
.hs-errors code { white-space: pre-wrap; }
#items { font-size: 0.9em; }
#pager { align-items: center; gap: 8px; }
#pager #page input { text-align: center; }
#page-info, #item-status { align-self: center; }
#item-nav { align-items: center; gap: 8px; }
#main-col > #to-filters { display: none; }
@media (max-width: 640px) {
  /* a phone stacks the two columns: the tabs (the per-model numbers) first, the filters after,
     with a button at the top that scrolls down to them */
  #main-row > #main-col { order: -1; }
  #main-col > #to-filters { display: block; align-self: flex-end; width: auto; }
  /* the item's place in the view gets a line of its own under the two buttons (beside them it
     was squeezed into a 30 px column, a few letters a line) */
  #item-nav { flex-wrap: wrap; }
  #item-nav #item-status { flex: 1 1 100%; min-width: 0; }
  /* a table wider than the phone scrolls sideways in its own box: the page clips what overflows
     (every model's answer lost its verdict columns, what the corrections change its last ones) */
  table.hs-others, table.hs-facts, table.hs-changes { display: block; max-width: 100%; overflow-x: auto; }
  /* tables whose columns are shares of the width: at a phone's width those shares broke words a
     letter a line ("b/e/n/c/h"); they keep a readable width and scroll sideways in their box */
  #fail-slices .table-container, #fail-diffs .table-container, #findings .table-container {
    overflow-x: auto;
  }
  #fail-slices .table-wrap, #fail-diffs .table-wrap, #findings .table-wrap { min-width: 1040px; }
  /* the review queues too: an item id broke five letters a line in its fifth of 390 px */
  #rv-queue-items .table-container { overflow-x: auto; }
  /* and wide enough that an id of the usual length keeps one line in its fifth (at 860 px "cdh-"
     sat over its hash); a longer one wraps, whole, rather than being cut at the cell's edge */
  #rv-queue-items .table-wrap { min-width: 1000px; }
}
"""
