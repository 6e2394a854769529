"""The page's stylesheet and script, served from this server (no other host, no build step)."""

from __future__ import annotations

STYLESHEET = """
:root { color-scheme: light dark; --fg: #1d2126; --bg: #fbfbfa; --muted: #5b6470; --line: #d8dbe0;
  --accent: #1f5fbf; --bad: #b3261e; --ok: #1e7a3c; --warn: #8a5a00; --card: #ffffff; }
@media (prefers-color-scheme: dark) { :root { --fg: #e6e8eb; --bg: #15181c; --muted: #9aa3ad;
  --line: #333a42; --accent: #7fb0ff; --bad: #ff8a80; --ok: #7dd79a; --warn: #e0b060; --card: #1c2026; } }
* { box-sizing: border-box; }
body { margin: 0; font: 15px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--fg);
  background: var(--bg); }
a { color: var(--accent); }
a:focus, button:focus, input:focus, select:focus, textarea:focus { outline: 3px solid var(--accent);
  outline-offset: 1px; }
header { border-bottom: 1px solid var(--line); background: var(--card); }
header nav { max-width: 1100px; margin: 0 auto; padding: .5rem 1rem; display: flex; gap: 1rem;
  align-items: baseline; flex-wrap: wrap; }
header nav .brand { font-weight: 700; margin-right: 1rem; color: var(--fg); text-decoration: none; }
header nav a[aria-current="page"] { font-weight: 700; text-decoration: none; color: var(--fg); }
main { max-width: 1100px; margin: 0 auto; padding: 1rem; }
h1 { font-size: 1.4rem; margin: .5rem 0 1rem; }
h2 { font-size: 1.1rem; margin: 1.5rem 0 .5rem; }
.skip { position: absolute; left: -999px; } .skip:focus { left: 1rem; top: .5rem; background: var(--card); }
form.filters { display: flex; flex-wrap: wrap; gap: .5rem 1rem; align-items: end; margin-bottom: 1rem; }
form.filters label { display: flex; flex-direction: column; font-size: .85rem; color: var(--muted); }
input, select, textarea, button { font: inherit; color: inherit; background: var(--card);
  border: 1px solid var(--line); border-radius: 4px; padding: .3rem .5rem; }
input[type=search] { min-width: 22rem; }
button { cursor: pointer; border-color: var(--accent); color: var(--accent); }
button.danger { border-color: var(--bad); color: var(--bad); }
button.primary { background: var(--accent); color: var(--card); }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: .35rem .5rem; border-bottom: 1px solid var(--line); vertical-align: top; }
th { font-size: .85rem; color: var(--muted); font-weight: 600; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
.muted { color: var(--muted); } .small { font-size: .85rem; }
.tag { display: inline-block; padding: 0 .4rem; border-radius: 3px; border: 1px solid var(--line);
  font-size: .8rem; margin-right: .25rem; }
.tag.active { color: var(--ok); border-color: var(--ok); } .tag.conflicted { color: var(--warn);
  border-color: var(--warn); } .tag.forgotten, .tag.superseded { color: var(--muted); }
.tag.stale { color: var(--bad); border-color: var(--bad); }
.notice { padding: .5rem .75rem; border-radius: 4px; margin: 0 0 1rem; border: 1px solid var(--ok); }
.notice.error { border-color: var(--bad); color: var(--bad); }
.card { background: var(--card); border: 1px solid var(--line); border-radius: 6px; padding: .75rem 1rem;
  margin-bottom: 1rem; }
.content { white-space: pre-wrap; font-size: 1.05rem; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: .2rem 1rem; margin: 0; }
dl.facts dt { color: var(--muted); }
.actions { display: flex; flex-wrap: wrap; gap: .5rem; align-items: start; }
.actions form { margin: 0; }
.diff-old { color: var(--bad); text-decoration: line-through; } .diff-new { color: var(--ok); }
.row-actions { display: flex; gap: .35rem; flex-wrap: wrap; }
svg text { fill: var(--fg); font-size: 11px; } svg .axis { stroke: var(--line); }
.legend span { margin-right: 1rem; } .swatch { display: inline-block; width: .8rem; height: .8rem;
  margin-right: .3rem; vertical-align: middle; }
"""

# Confirmation of destructive buttons and "/" to focus the search box. Pages work without it.
SCRIPT = """
"use strict";
document.addEventListener("submit", function (event) {
  var form = event.target;
  var question = form.getAttribute("data-confirm");
  if (question && !window.confirm(question)) { event.preventDefault(); }
});
document.addEventListener("keydown", function (event) {
  if (event.key !== "/" || event.ctrlKey || event.metaKey || event.altKey) { return; }
  var tag = (document.activeElement && document.activeElement.tagName) || "";
  if (tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT") { return; }
  var box = document.getElementById("q");
  if (box) { event.preventDefault(); box.focus(); }
});
"""

PALETTE = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f")
