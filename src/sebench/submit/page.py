"""The leaderboard's Markdown table and its static HTML page (inline CSS, JavaScript and SVG: no network).

Every text from a bundle is escaped where it is rendered: HTML-escaped in the page and the SVG, and in the
Markdown table every character but letters, digits, spaces and `.,%/` written as an HTML character reference
(`&#60;` for `<`), which no Markdown extension reads as syntax (no tag, no emphasis, no table pipe, no
snippet marker), so a label is shown, never rendered, by a browser or by mkdocs. Before either, every
character that is not drawn but changes how others are (bidirectional overrides and isolates, zero-width
characters, controls: Unicode categories C*, Zl, Zp) is written as its code (`\\u202e`), so no text can reverse
or hide part of a row.
"""

from __future__ import annotations

import math
import re
import unicodedata
from html import escape as _escape

from sebench.report import p_value
from sebench.submit.entry import SPLITS, Cell, Entry

HEAD = ("band", "method", "level", "base model", "preset", "seeds", "tasks", "single %", "single Δ (p)",
        "multiple %", "multiple Δ (p)", "wall s", "judge calls", "tokens sampled", "tokens trained", "marks")
TEXT_COLUMNS = (1, 2, 3, 4, 5)
STYLE = """body{font-family:system-ui,sans-serif;margin:1em;max-width:80em}.scroll{overflow-x:auto;max-width:100%}
table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.25em .5em;text-align:right;white-space:nowrap}
td.text{text-align:left}td.marks{white-space:normal;min-width:16em}tr.reported,tr.unranked{color:#666}
tr.reported{font-style:italic}.mark{display:inline-block;border-radius:.3em;padding:0 .3em;margin:0 .1em;
background:#eef}.mark.no{background:#fdd}svg{max-width:100%;height:auto}svg text{font-size:11px}"""
READING = ("Closed-book accuracy in % with its 95% interval; Δ: the paired difference from the same base model, "
           "untrained, in points, with its p-value. Only reproduced entries are ranked, each benchmark (base "
           "model, preset with its changes, protocol, decoding) apart; in one band no entry's interval lies wholly "
           "above another's. Re-judged entries (their answers judged "
           "again, the answers resting on the submitter) and entries that fail verification are listed below, "
           "unranked. Reported rows are the paper's numbers, not re-run here.")
FILTER = """function filterBase(){var v=document.getElementById('base').value;
document.querySelectorAll('tr.entry,#plot .point').forEach(function(r){
r.style.display=(v===''||r.getAttribute('data-base')===v)?'':'none';});}
document.getElementById('base').addEventListener('change',filterBase);
var asked=decodeURIComponent(location.hash.replace(/^#base=/,''));
if(location.hash.indexOf('#base=')===0){document.getElementById('base').value=asked;filterBase();}
document.body.dataset.ready='1';"""
COLOURS = ("#1b4f9c", "#c0392b", "#27864a", "#8e44ad", "#d68910", "#148f99", "#6e2c00", "#5d6d7e")
SHAPES = ("circle", "square", "diamond", "triangle")
MARKDOWN_PLAIN = re.compile(r"[^\w .,%/]|_", re.UNICODE)


def visible(text: str) -> str:
    """`text` with every character that is not drawn written as its code (module docstring)."""
    return "".join(f"\\u{ord(c):04x}" if c != " " and unicodedata.category(c)[0] in "CZ" and
                   unicodedata.category(c) != "Zs" else c for c in text)


def escape(text: str) -> str:
    """`text` for HTML: visible, then escaped."""
    return _escape(visible(text))


def pct(cell: Cell | None) -> str:
    if cell is None:
        return ""
    ci = f" [{100 * cell.ci95[0]:.1f}, {100 * cell.ci95[1]:.1f}]" if cell.ci95 else ""
    return f"{100 * cell.accuracy:.1f}{ci}"


def delta(cell: Cell | None) -> str:
    if cell is None or cell.delta is None:
        return ""
    return f"{100 * cell.delta:+.1f} (p {p_value(cell.p)})" if cell.p is not None else f"{100 * cell.delta:+.1f}"


def number(value: object) -> str:
    if value is None:
        return ""
    return f"{value:.1f}" if isinstance(value, float) else f"{value:,}" if isinstance(value, int) else str(value)


def mark_texts(entry: Entry) -> list[tuple[str, bool]]:
    """Each mark as (text, good)."""
    m = entry.marks
    if entry.reported:
        return [(f"reported: {m['reported']}", True)]
    if "fails" in m:
        return [(f"fails verification: {m['fails']}", False)]
    out = []
    if m.get("re-run") is not None:
        out.append(("re-run reproduced" if m["re-run"] else "re-run differs", bool(m["re-run"])))
    if m.get("held-out"):
        single = m.get("held-out single")
        out.append((f"held-out seeds: {m['held-out']}" + (f", single {100 * single:.1f}%" if single is not None
                                                          else ""), True))
    out.append(("eligible" if m.get("eligible") else "not eligible", bool(m.get("eligible"))))
    network = m.get("network")
    out.append(("network: not recorded" if network is None else "network used" if network else "no network",
                network is False))
    out.append((f"isolation: {m.get('isolation') or 'not recorded'}", m.get("isolation") in ("bwrap", "landlock")))
    out.append((f"decoding: {m.get('decoding')}; protocol {m.get('protocol')}", True))
    return out


def cells(entry: Entry) -> list[str]:
    single, multiple = (entry.cells.get(s) for s in SPLITS)
    tasks = " + ".join(str(entry.tasks[s]) for s in SPLITS if entry.tasks.get(s) is not None)
    return [str(entry.band or ""), entry.method, entry.level, entry.base_model, entry.preset, entry.seeds, tasks,
            pct(single), delta(single), pct(multiple), delta(multiple),
            *(number(entry.cost.get(k)) for k in ("wall_seconds", "judge_calls", "tokens_sampled", "tokens_trained"))]


def markdown_text(text: str) -> str:
    """`text` shown as itself in a Markdown table cell (module docstring)."""
    return MARKDOWN_PLAIN.sub(lambda m: f"&#{ord(m.group())};", visible(text.replace("\n", " ")))


def markdown_table(entries: list[Entry], title: bool = True) -> str:
    """The leaderboard as a Markdown table, with how to read it (under a title unless `title` is False)."""
    lines = ["| " + " | ".join(HEAD) + " |", "|" + "---|" * len(HEAD)]
    for entry in entries:
        row = [*cells(entry), "; ".join(t for t, _ in mark_texts(entry))]
        lines.append("| " + " | ".join(markdown_text(c) for c in row) + " |")
    return (("# Leaderboard\n\n" if title else "") + READING + "\n\n" + "\n".join(lines) + "\n")


def html_row(entry: Entry) -> str:
    texts = cells(entry)
    tds = "".join(f'<td class="{"text" if i in TEXT_COLUMNS else "num"}">{escape(t)}</td>' for i, t in enumerate(texts))
    marks = "".join(f'<span class="mark{"" if good else " no"}">{escape(t)}</span>' for t, good in mark_texts(entry))
    kind = "entry reported" if entry.reported else "entry" if entry.band is not None else "entry unranked"
    return f'<tr class="{kind}" data-base="{escape(entry.base_model)}">{tds}<td class="text marks">{marks}</td></tr>'


def base_filter(entries: list[Entry]) -> str:
    options = "".join(f'<option value="{escape(b)}">{escape(b)}</option>'
                      for b in sorted({e.base_model for e in entries if e.base_model}))
    return f'<label>base model <select id="base"><option value="">all</option>{options}</select></label>'


def marker(shape: str, x: float, y: float, colour: str) -> str:
    """A point of `shape` at (x, y)."""
    if shape == "square":
        return f'<rect x="{x - 4:.1f}" y="{y - 4:.1f}" width="8" height="8" fill="{colour}"/>'
    if shape == "diamond":
        return f'<path d="M{x:.1f} {y - 5:.1f}L{x + 5:.1f} {y:.1f}L{x:.1f} {y + 5:.1f}L{x - 5:.1f} {y:.1f}Z" fill="{colour}"/>'
    if shape == "triangle":
        return f'<path d="M{x:.1f} {y - 5:.1f}L{x + 5:.1f} {y + 4:.1f}L{x - 5:.1f} {y + 4:.1f}Z" fill="{colour}"/>'
    return f'<circle cx="{x:.1f}" cy="{y:.1f}" r="4.5" fill="{colour}"/>'


PLACEABLE = (1e-3, 1e12)  # the wall times the log axis places, in s: 15 decades, each tick a finite float


def placeable(seconds: object) -> bool:
    """A wall time the log axis can place: a number within PLACEABLE (a cost the records state may be any
    non-negative number; 1e308 s or 5e-324 s would put a tick beyond what a float holds)."""
    return (isinstance(seconds, (int, float)) and not isinstance(seconds, bool)
            and PLACEABLE[0] <= seconds <= PLACEABLE[1])


def plot(entries: list[Entry], width: int = 640, height: int = 320, pad: int = 48) -> str:
    """Single-function accuracy (with its interval) against wall time (log scale): one point per entry, each its
    own colour and shape, labelled with the entry's name (its method and bundle)."""
    points = [e for e in entries if "single_test" in e.cells and placeable(e.cost.get("wall_seconds"))]
    logs = [math.log10(e.cost["wall_seconds"]) for e in points] or [0.0]
    lo, hi = math.floor(min(logs)), math.ceil(max(logs)) + (math.ceil(max(logs)) == math.floor(min(logs)))

    def xy(seconds: float, accuracy: float) -> tuple[float, float]:
        return (pad + (math.log10(seconds) - lo) / (hi - lo) * (width - 2 * pad),
                height - pad - accuracy * (height - 2 * pad))

    parts = [f'<line x1="{pad}" y1="{height - pad}" x2="{width - pad}" y2="{height - pad}" stroke="#000"/>',
             f'<line x1="{pad}" y1="{pad}" x2="{pad}" y2="{height - pad}" stroke="#000"/>',
             f'<text x="{width / 2}" y="{height - 10}" text-anchor="middle">training wall time, s (log)</text>',
             f'<text x="12" y="{height / 2}" transform="rotate(-90 12 {height / 2})" text-anchor="middle">'
             'closed-book accuracy, single %</text>']
    parts += [f'<text x="{xy(10.0 ** k, 0)[0]}" y="{height - pad + 14}" text-anchor="middle">{10 ** k:g}</text>'
              for k in range(lo, hi + 1)]
    parts += [f'<text x="{pad - 6}" y="{xy(10.0 ** lo, a / 100)[1] + 4}" text-anchor="end">{a}</text>'
              for a in (0, 25, 50, 75, 100)]
    for i, e in enumerate(points):
        c, colour, shape = e.cells["single_test"], COLOURS[i % len(COLOURS)], SHAPES[i // len(COLOURS) % len(SHAPES)]
        x, y = xy(e.cost["wall_seconds"], c.accuracy)
        bar = (f'<line x1="{x:.1f}" x2="{x:.1f}" y1="{xy(1, c.ci95[0])[1]:.1f}" y2="{xy(1, c.ci95[1])[1]:.1f}" '
               f'stroke="{colour}" stroke-opacity=".5"/>' if c.ci95 else "")
        anchor, dx = ("end", -7) if x > width / 2 else ("start", 7)
        label = escape(e.name)
        parts.append(f'<g class="point" data-base="{escape(e.base_model)}"><title>{label}</title>{bar}'
                     f'{marker(shape, x, y, colour)}<text x="{x + dx:.1f}" y="{y - 7 - 11 * (i % 2):.1f}" '
                     f'text-anchor="{anchor}" fill="{colour}">{label}</text></g>')
    return (f'<svg id="plot" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" width="{width}" '
            f'height="{height}" role="img" aria-label="accuracy against cost">{"".join(parts)}</svg>')


def html_page(entries: list[Entry]) -> str:
    """The whole page; it loads nothing from the network."""
    head = "".join(f"<th>{escape(h)}</th>" for h in HEAD)
    body = "\n".join(html_row(e) for e in entries)
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><title>SE-Bench leaderboard</title>"
            f"<style>{STYLE}</style></head><body><h1>SE-Bench leaderboard</h1>"
            f"<p>{escape(READING)}</p><p>{base_filter(entries)}</p>\n<div class=\"scroll\"><table id=\"board\"><thead>"
            f"<tr>{head}</tr></thead><tbody>\n{body}\n</tbody></table></div>\n<h2>Accuracy against cost</h2>\n"
            f"<div class=\"scroll\">{plot(entries)}</div>\n<script>{FILTER}</script></body></html>\n")
