/* Pages with summaries and charts: "as of" staleness, sortable tables, intraday charts.
 *
 * Chart data is JSON the server builds (a <script type="application/json"> per chart, named
 * by the chart's data-source); a push that replaces that JSON redraws the chart. Nothing
 * here computes a figure.
 */
(() => {
  "use strict";

  /* ---- "As of": the stale badge appears past twice the refresh interval ---- */
  function showStaleness() {
    for (const elt of document.querySelectorAll(".asof")) {
      const fetched = Date.parse(elt.dataset.fetched);
      const limit = Number(elt.dataset.staleAfter);
      const stale = Number.isNaN(fetched) || (Date.now() - fetched) / 1000 > limit;
      const badge = elt.querySelector(".badge-stale");
      if (badge && badge.hidden === stale) badge.hidden = !stale;
      elt.dataset.stale = stale ? "yes" : "no";
    }
  }

  /* ---- "Last change N s ago": a pushed body carries only when it last changed ---- */
  function showAges() {
    for (const elt of document.querySelectorAll("time.ago[datetime]")) {
      const s = Math.max(
        0,
        Math.floor((Date.now() - Date.parse(elt.getAttribute("datetime"))) / 1000),
      );
      if (Number.isNaN(s)) continue;
      const text = s < 60 ? `${s} s ago` : `${Math.floor(s / 60)} min ago`;
      if (elt.textContent !== text) elt.textContent = text;
    }
  }

  /* ---- Sortable tables: the choice is kept in the URL, rows sort on every push ---- */
  function sortTables() {
    const params = new URLSearchParams(location.search);
    const key = params.get("sort") || "";
    const desc = params.get("dir") === "desc";
    for (const table of document.querySelectorAll("table.sortable")) {
      const button = key && table.querySelector(`button.sort[data-key="${CSS.escape(key)}"]`);
      for (const b of table.querySelectorAll("button.sort")) {
        const th = b.closest("th");
        if (b === button) th.setAttribute("aria-sort", desc ? "descending" : "ascending");
        else th.removeAttribute("aria-sort");
      }
      if (!button) continue;
      const numeric = button.hasAttribute("data-numeric");
      const value = (row) => (numeric ? Number(row.dataset[key]) : row.dataset[key] || "");
      const body = table.tBodies[0];
      const rows = [...body.rows].filter((r) => r.dataset[key] !== undefined);
      rows.sort((a, b) => {
        const x = value(a);
        const y = value(b);
        return (x < y ? -1 : x > y ? 1 : 0) * (desc ? -1 : 1);
      });
      for (const row of rows) body.appendChild(row);
    }
  }
  document.addEventListener("click", (e) => {
    const button = e.target.closest("button.sort");
    if (!button) return;
    const params = new URLSearchParams(location.search);
    const same = params.get("sort") === button.dataset.key;
    params.set("sort", button.dataset.key);
    params.set("dir", same && params.get("dir") !== "desc" ? "desc" : "asc");
    history.replaceState(null, "", `?${params}`);
    sortTables();
  });

  /* ---- Intraday charts (uPlot) ---- */
  const COLOURS = ["#3b82f6", "#f59e0b", "#10b981", "#ef4444"];
  const FILLS = ["rgba(59,130,246,.35)", "rgba(245,158,11,.35)", "rgba(16,185,129,.35)"];
  const BANDS = ["rgba(59,130,246,.2)", "rgba(245,158,11,.2)", "rgba(16,185,129,.2)"];
  const AXES = { calls: "calls", "%": "%", s: "seconds" };
  const hhmm = uPlot.fmtDate("{HH}:{mm}");
  const fromZero = (_u, _min, max) => [0, max > 0 ? Math.ceil(max * 1.1) : 1]; // counts, seconds

  function drawChart(elt) {
    const source = document.getElementById(elt.dataset.source);
    if (!source) return;
    const text = source.textContent;
    if (elt.dataset.drawn === text && elt.firstChild) return; // already shows this data
    elt.dataset.drawn = text;
    if (elt.plot) {
      elt.plot.destroy();
      elt.plot = null;
    }
    elt.replaceChildren();
    const d = JSON.parse(text);
    const mid = d.x.map((t) => t + d.step_s / 2); // bars sit on the middle of their interval
    const first = d.x[0];
    const last = d.x[d.x.length - 1] + d.step_s;
    if (!d.x.length) {
      const p = document.createElement("p");
      p.className = "empty";
      p.textContent = elt.dataset.empty || "No data yet.";
      elt.appendChild(p);
      showNote(elt, d);
      return;
    }
    const tzDate = (ts) => uPlot.tzDate(new Date(ts * 1e3), d.tz); // the organisation's zone
    const ink = getComputedStyle(document.body).color;
    const grid = { stroke: "rgba(128,128,128,.2)" };
    const scales = [...new Set(d.series.map((s) => s.scale))];
    // Last week's series (`dash`), the normal's band edges (`band`) and the forecast take
    // the colour of the series they follow (`like`).
    const colour = [];
    let next = 0;
    d.series.forEach((s, i) => {
      colour[i] = s.dash || s.band || s.forecast ? colour[s.like] : next++;
    });
    // The normal's band: shaded between its high and low edges (uPlot counts x as 0).
    const bands = [];
    d.series.forEach((s, i) => {
      if (s.band !== "high") return;
      const low = d.series.findIndex((o) => o.band === "low" && o.like === s.like);
      if (low >= 0) bands.push({ series: [i + 1, low + 1], fill: BANDS[colour[i] % BANDS.length] });
    });
    // The band's edges in the page's ink, so they show over the bars of its own colour.
    const edge = ink.replace(/^rgb\((.*)\)$/, "rgba($1, .55)");
    const stroke = (s, i) => (s.band ? edge : COLOURS[colour[i] % COLOURS.length]);
    const opts = {
      width: Math.max(elt.clientWidth, 300),
      height: Number(elt.dataset.height) || 220,
      cursor: { drag: { x: false, y: false } },
      bands,
      tzDate,
      scales: {
        // From the first interval's start to the last one's end, and a few hours at least
        // (uPlot's own range for a single point of seconds spans years).
        x: { time: true, range: () => [first, Math.max(last, first + 8 * d.step_s)] },
        ...Object.fromEntries(scales.map((s) => [s, { range: s === "%" ? [0, 100] : fromZero }])),
      },
      series: [
        {},
        ...d.series.map((s, i) => ({
          label: s.label,
          scale: s.scale,
          stroke: stroke(s, i),
          width: s.band ? 1 : s.dash ? 1.5 : 2,
          dash: s.dash ? [6, 4] : s.forecast ? [2, 3] : undefined,
          fill: s.kind === "bars" ? FILLS[colour[i] % FILLS.length] : undefined,
          paths: s.kind === "bars" ? uPlot.paths.bars({ size: [0.7, 40] }) : undefined,
          points: { show: s.kind !== "bars" && !s.dash && !s.band && !s.forecast, size: 5 },
        })),
      ],
      axes: [
        {
          stroke: ink,
          grid,
          space: 60,
          values: (_u, splits) => splits.map((t) => hhmm(tzDate(t))),
        },
        ...scales.map((s, i) => ({
          scale: s,
          stroke: ink,
          side: i === 0 ? 3 : 1,
          label: AXES[s] || s,
          grid: i === 0 ? grid : { show: false },
        })),
      ],
    };
    elt.plot = new uPlot(opts, [mid, ...d.series.map((s) => s.values)], elt);
    // One legend entry per band: its high edge's row is hidden.
    const rows = elt.querySelectorAll(".u-legend .u-series");
    d.series.forEach((s, i) => {
      if (s.band === "high" && rows[i + 1]) rows[i + 1].hidden = true;
    });
    showNote(elt, d);
  }
  /* The chart's sentence (the forecast, or why there is no normal band) under it. */
  function showNote(elt, d) {
    if (!d.note) return;
    const p = document.createElement("p");
    p.className = "chart-note";
    p.textContent = d.note;
    elt.appendChild(p);
  }
  function drawCharts() {
    for (const elt of document.querySelectorAll(".chart[data-source]")) drawChart(elt);
  }
  window.addEventListener("resize", () => {
    for (const elt of document.querySelectorAll(".chart[data-source]")) {
      if (elt.plot)
        elt.plot.setSize({ width: Math.max(elt.clientWidth, 300), height: elt.plot.height });
    }
  });

  /* ---- Pushes replace fragments: redraw, resort, recheck ---- */
  document.body.addEventListener("htmx:oobAfterSwap", (e) => {
    const elt = e.target; // chart data, or a body with charts, summaries or a table
    if (elt.nodeType !== 1) return;
    if (elt.tagName !== "SCRIPT" && !elt.querySelector(".chart, .asof, table.sortable")) return;
    drawCharts();
    sortTables();
    showStaleness();
    showAges();
  });

  drawCharts();
  sortTables();
  showStaleness();
  showAges();
  setInterval(() => {
    showStaleness();
    showAges();
  }, 1000);
})();
