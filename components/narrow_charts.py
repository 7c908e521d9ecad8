"""Charts on a phone: panels side by side are stacked one above another when the chart is narrow.

The figures are built on the server, which does not know the reader's screen: a board chart with
five panels side by side is readable at 1280 px and a smear at 390 px (issue 20). A script for
``launch(head=...)`` watches the page's plotly charts; one narrower than :data:`NARROW_PX` with
two panels or more is laid out again in the browser: each panel gets the whole width and its
own band of the height, its title moves above it, and the legend goes below the panels. A
one-panel chart keeps its panel and moves a legend from its side to below it. On a narrow chart a
title longer than the width is broken into lines, and category names too many for a panel's
width (nine label types overlapped at 390 px) are turned upright. The
figure and its numbers are the server's; only where the panels sit changes. Wider charts are
left alone, and a chart is laid out once per drawing (a stacked one has every panel at full width).

The same script fits a chart drawn while its tab was hidden to its box once shown: plotly drew it
at its default 700 px, cut off on a phone (seen in issue 20's screenshots) and narrow at 1280 px.
"""

from __future__ import annotations

NARROW_PX = 560
"""A chart narrower than this stacks its panels."""

PANEL_PX = 230
"""The height each stacked panel gets."""

LEGEND_PX = 110
"""The room a one-panel chart adds below itself for its legend, moved there from its side."""

CHAR_EM = 0.6
"""The width of a character of the charts' sans-serif font, in ems (generous: a title or a tick
label judged to fit must fit)."""

HEAD = f"""
<script>
(() => {{
  // a title wider than a phone is cut at its right edge: it is broken into lines between words
  const fitTitle = (gd) => {{
    const title = gd.layout.title;
    const text = typeof title === 'string' ? title : (title && title.text) || '';
    const full = gd._fullLayout && gd._fullLayout.title;
    const size = (full && full.font && full.font.size) || 17;
    const room = Math.max(8, Math.floor((gd.clientWidth - 30) / ({CHAR_EM} * size)));
    if (!text || text.includes('<br>') || text.length <= room) return {{}};
    const lines = [''];
    text.split(' ').forEach((word) => {{
      const last = lines[lines.length - 1];
      if (last && (last + ' ' + word).length > room) lines.push(word);
      else lines[lines.length - 1] = last ? last + ' ' + word : word;
    }});
    const top = (gd.layout.margin || {{}}).t || 70;
    const added = Math.round(1.3 * size) * (lines.length - 1);
    return {{'title.text': lines.join('<br>'), 'margin.t': top + added}};
  }};
  // category names too many for a phone's width overlap: they are turned upright
  const upright = (gd, axes) => {{
    const turned = {{}};
    axes.forEach((k) => {{
      const full = gd._fullLayout && gd._fullLayout[k];
      if (!full || full.type !== 'category' || (gd.layout[k] || {{}}).tickangle === -90) return;
      const names = full._categories || [];
      const widest = (c) => Math.max(...String(c).split('<br>').map((l) => l.length));
      const longest = Math.max(0, ...names.map(widest));
      const each = gd.clientWidth * (full.domain[1] - full.domain[0]) / Math.max(names.length, 1);
      if (longest * {CHAR_EM} * 12 > each) turned[k + '.tickangle'] = -90;
    }});
    return turned;
  }};
  const stack = (gd) => {{
    const layout = gd.layout;
    // a chart in a hidden tab has no width yet: judged when it is shown
    if (!window.Plotly || !layout || !gd.clientWidth) return;
    // drawn while its tab was hidden, plotly took its default 700 px: fit it to its box now
    const drawn = gd._fullLayout && gd._fullLayout.width;
    if (layout.width === undefined && drawn && Math.abs(drawn - gd.clientWidth) > 1) {{
      // judged again once resized: a relayout meanwhile would keep the old width
      Promise.resolve(window.Plotly.Plots.resize(gd)).then(() => {{
        if (Math.abs(gd._fullLayout.width - gd.clientWidth) <= 1) stack(gd);
      }});
      return;
    }}
    if (gd.clientWidth >= {NARROW_PX}) return;
    const axes = Object.keys(layout).filter((k) => /^xaxis\\d*$/.test(k))
      .sort((a, b) => (parseInt(a.slice(5)) || 1) - (parseInt(b.slice(5)) || 1));
    const n = axes.length;
    const domain = (k) => (layout[k] && layout[k].domain) || [0, 1];
    const legend = layout.legend || {{}};
    const fitted = fitTitle(gd);
    if (axes.every((k) => domain(k)[0] === 0 && domain(k)[1] === 1)) {{
      // one panel (or panels already stacked): a legend at the side takes half a phone's width
      if (n === 1 && layout.showlegend !== false && legend.orientation !== 'h') {{
        const height = (gd._fullLayout && gd._fullLayout.height) || 450;
        window.Plotly.relayout(gd, {{...fitted, height: height + {LEGEND_PX}, 'legend.orientation': 'h',
          'legend.x': 0, 'legend.xanchor': 'left', 'legend.y': -{LEGEND_PX} / height,
          'legend.yanchor': 'top', 'margin.b': ((layout.margin || {{}}).b || 80) + {LEGEND_PX}}});
        return;
      }}
      const ticks = {{...fitted, ...upright(gd, axes)}};
      if (Object.keys(ticks).length) window.Plotly.relayout(gd, ticks);
      return;
    }}
    const band = 1 / n;
    // the legend below the panels gets a line for every two entries (a phone fits two a line)
    const entries = (gd.data || []).filter((t) => t.showlegend !== false && t.name).length;
    const below = 40 + 22 * Math.ceil(entries / 2);
    const update = {{...fitted, height: {PANEL_PX} * n + 60 + below, 'legend.orientation': 'h', 'legend.x': 0,
                    'legend.y': -0.3 * band, 'legend.yanchor': 'top', 'margin.b': below}};
    const tops = [];
    axes.forEach((k, i) => {{
      const suffix = k.slice(5);
      const top = 1 - i * band;
      tops.push([domain(k), top]);
      update[k + '.domain'] = [0, 1];
      // below each panel room for its tick labels (three lines of a wrapped category name)
      update['yaxis' + suffix + '.domain'] = [top - band + 0.32 * band, top - 0.16 * band];
    }});
    // panel titles sit above their panel: found by the column whose old domain held them
    update.annotations = (layout.annotations || []).map((a) => {{
      if (a.xref !== 'paper' || a.yref !== 'paper') return a;
      const hit = tops.find(([d]) => a.x >= d[0] - 1e-9 && a.x <= d[1] + 1e-9);
      return hit ? {{...a, x: 0.5, y: hit[1] - 0.15 * band, yanchor: 'bottom'}} : a;
    }});
    window.Plotly.relayout(gd, update);
  }};
  const scan = () => document.querySelectorAll('.js-plotly-plot').forEach(stack);
  new MutationObserver(() => {{ clearTimeout(window.__hsStackTimer);
    window.__hsStackTimer = setTimeout(scan, 150); }})
    .observe(document.documentElement, {{childList: true, subtree: true}});
  window.addEventListener('resize', scan);
}})();
</script>
"""
