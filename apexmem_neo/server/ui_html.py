"""The HTML of the ``/ui`` timeline page, written with f-strings: every piece of memory text
(names, values, turns, scopes) goes through ``html.escape`` before it reaches the page, so a
value such as ``<script>...`` shows as text and never runs.

Bars and markers are placed with percentages of the plotted span, so the page reads without
its script; ``timeline.js`` only shows a clicked bar's turn in a panel and submits the form
when a choice changes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from html import escape
from typing import Final

from apexmem_neo.ontology import Entity, value_text
from apexmem_neo.server.timeline import Bar, Held, Timeline
from apexmem_neo.store.protocol import ChangeRecord

ENDED_LABEL: Final = "ended"
MONTH_STEPS: Final = (1, 2, 3, 6, 12, 24, 60, 120)
"""Tick spacings tried, in months, until the axis has at most ``MAX_TICKS`` ticks."""
MAX_TICKS: Final = 10
PAD: Final = 0.04
"""Margin on each side of the plotted span, as a share of it."""
LONG_TAIL: Final = 0.5
"""Now lies "far past" the facts when the gap to it exceeds this share of their span."""
SPLIT: Final = 0.84
"""Where the break falls on such a plot; the rest of the width runs on to now."""
STYLE: Final = """
:root { --names: 190px; font-family: system-ui, sans-serif; color: #1d2430; }
body { margin: 0; background: #f6f7f9; }
header { display: flex; gap: 16px; align-items: center; padding: 10px 20px;
  background: #1d2430; color: #fff; flex-wrap: wrap; }
header h1 { font-size: 18px; margin: 0 12px 0 0; }
header form { display: flex; gap: 8px; align-items: center; margin: 0; }
header label { font-size: 13px; }
header select, header input, header button { font-size: 14px; padding: 3px 6px; }
main { padding: 14px 20px; max-width: 1400px; }
h2 { margin: 4px 0 12px; font-size: 22px; }
h2 small { font-weight: normal; color: #5b6472; font-size: 14px; }
h3 { font-size: 16px; margin: 0 0 8px; }
.plot { position: relative; background: #fff; border: 1px solid #d6dae0;
  border-radius: 6px; padding: 6px 10px 10px; }
.axis, .row { display: flex; }
.axis { height: 22px; font-size: 12px; color: #5b6472; }
.name { width: var(--names); flex: none; font-size: 13px; font-weight: 600; line-height: 40px;
  padding-right: 8px; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
.axis .name { line-height: 22px; }
.track { position: relative; flex: 1; height: 40px; border-top: 1px solid #eef0f3; }
.axis .track { border: 0; height: 22px; }
.tick { position: absolute; top: 2px; transform: translateX(-50%); white-space: nowrap; }
.tick.gap { font-weight: bold; color: #1d2430; }
.bar { position: absolute; top: 7px; height: 26px; border-radius: 4px; background: #4a78c2;
  color: #fff; font-size: 13px; line-height: 26px; padding: 0 6px; box-sizing: border-box;
  overflow: hidden; white-space: nowrap; text-overflow: ellipsis; text-decoration: none;
  border-left: 3px solid #23487f; min-width: 4px; }
.bar:nth-child(even) { background: #2f9e8f; border-left-color: #1b6158; }
.bar.open { background-image: linear-gradient(90deg, transparent 85%, rgba(255,255,255,.35)); }
.bar.ended { background: repeating-linear-gradient(45deg, #eceef1 0 6px, #dcdfe4 6px 12px);
  color: #8a2d2d; border-left: 3px solid #b3261e; font-style: italic; }
.bar:hover, .bar:focus, .bar.chosen { outline: 2px solid #f2a900; z-index: 2; }
.marker { position: absolute; top: 0; bottom: 0; width: 0; pointer-events: none;
  left: calc(10px + var(--names) + (100% - 20px - var(--names)) * var(--at)); }
.marker.now { border-left: 2px solid #b3261e; }
.marker.asof { border-left: 2px dashed #1f5fbf; }
.marker.gap { border-left: 2px dotted #aab1bb; top: 22px; }
.marker span { position: absolute; bottom: -20px; transform: translateX(-50%);
  font-size: 12px; white-space: nowrap; padding: 0 3px; background: #f6f7f9; }
.marker.now span { color: #b3261e; bottom: auto; top: -2px; background: #fff;
  transform: translateX(-100%); }
.marker.asof span { color: #1f5fbf; }
.said { margin: 28px 0 0; padding: 10px 14px; background: #fffbe6;
  border: 1px solid #f2d675; border-radius: 6px; }
.columns { display: flex; gap: 24px; margin-top: 26px; flex-wrap: wrap; }
.columns > div { flex: 1; min-width: 320px; background: #fff; border: 1px solid #d6dae0;
  border-radius: 6px; padding: 10px 14px; }
ul, ol { margin: 0; padding-left: 20px; font-size: 14px; line-height: 1.6; }
time { font-variant-numeric: tabular-nums; color: #5b6472; }
.value { font-weight: 600; }
.none { color: #8a2d2d; font-style: italic; }
.facts li:target { background: #fffbe6; }
.quote { color: #3a4250; }
.notice { padding: 10px 14px; background: #fdecea; border: 1px solid #f5c2bd;
  border-radius: 6px; margin: 0 0 12px; }
.login { max-width: 420px; margin: 80px auto; background: #fff; padding: 20px 24px;
  border: 1px solid #d6dae0; border-radius: 6px; }
.login input { width: 100%; box-sizing: border-box; font-size: 15px; padding: 6px; }
"""


@dataclass(frozen=True)
class Choices:
    """What the page's form offers: the caller's scopes and the chosen scope's entities."""

    scopes: Sequence[str]
    scope: str | None
    entities: Sequence[Entity]
    entity_id: str | None
    at: str
    logout: bool


def e(text: object) -> str:
    """``text`` escaped for HTML text and for attribute values."""
    return escape(str(text), quote=True)


def day(moment: datetime | str) -> str:
    """The date part of a time, as the page shows it."""
    return (moment.isoformat() if isinstance(moment, datetime) else moment)[:10]


def document(title: str, body: str) -> str:
    """A whole page around ``body`` (the style inline, the one script from the server)."""
    return (
        '<!doctype html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>{e(title)}</title>"
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f'<style>{STYLE}</style><script src="/ui/timeline.js" defer></script>'
        f"</head><body>{body}</body></html>"
    )


def login_page(message: str | None = None) -> str:
    """The key form: the key goes in a POST body, never in a URL."""
    notice = f'<p class="notice">{e(message)}</p>' if message else ""
    return document(
        "apexmem timeline: sign in",
        '<main class="login"><h2>apexmem timeline</h2>'
        f'{notice}<form method="post" action="/ui/login">'
        '<p><label for="key">API key (<code>apexmem keys create --scope NAME</code>)</label></p>'
        '<p><input id="key" name="key" type="password" autocomplete="current-password" '
        'required autofocus></p><p><button type="submit">Open</button></p></form></main>',
    )


def selected(chosen: bool) -> str:
    return " selected" if chosen else ""


def header(choices: Choices) -> str:
    """The bar on top: scope, entity and as-of date, and a way to log out."""
    scopes = "".join(
        f'<option value="{e(s)}"{selected(s == choices.scope)}>{e(s)}</option>'
        for s in choices.scopes
    )
    entities = "".join(
        f'<option value="{e(x.entity_id)}"{selected(x.entity_id == choices.entity_id)}>'
        f"{e(x.name)} ({e(x.entity_type.value)})</option>"
        for x in choices.entities
    )
    logout = (
        '<form method="post" action="/ui/logout"><button type="submit">Log out</button></form>'
        if choices.logout
        else ""
    )
    return (
        '<header><h1>apexmem timeline</h1><form method="get" action="/ui" id="pick">'
        f'<label>scope <select name="scope" id="scope">{scopes}</select></label>'
        f'<label>entity <select name="entity" id="entity">{entities}</select></label>'
        f'<label>as of <input type="date" name="at" id="at" value="{e(choices.at)}"></label>'
        f'<button type="submit">Show</button></form>{logout}</header>'
    )


def notice_page(title: str, choices: Choices, message: str) -> str:
    """The page with its form and one message in place of a timeline."""
    body = f'{header(choices)}<main><p class="notice">{e(message)}</p></main>'
    return document(title, body)


def timeline_page(choices: Choices, timeline: Timeline) -> str:
    """The timeline of one entity: bars, markers, the turn panel, what held, the changes."""
    ent = timeline.entity
    notice = (
        '<p class="notice">This entity has more facts than the page draws; the oldest are '
        "shown.</p>"
        if timeline.truncated
        else ""
    )
    body = (
        f"{header(choices)}<main>"
        f"<h2>{e(ent.name)} <small>{e(ent.entity_type.value)} · scope {e(choices.scope)}"
        f"</small></h2>{notice}{plot(timeline)}"
        '<div id="said" class="said" hidden></div>'
        f'<section class="columns"><div>{held_list(timeline)}</div>'
        f"<div>{change_list(timeline.changes)}</div></section>"
        f'<section class="columns"><div>{fact_list(timeline)}</div></section></main>'
    )
    return document(f"{ent.name}: apexmem timeline", body)


@dataclass(frozen=True)
class Scale:
    """Times to fractions of the plot's width. The facts' span takes the width, unless now
    lies far past it: then the stretch from the last dated fact to now is drawn shorter, past
    a break (from ``split`` on), so recent years of no change do not squeeze the changes."""

    start: datetime
    end: datetime
    now: datetime
    split: float = 1.0

    @classmethod
    def of(cls, timeline: Timeline) -> Scale:
        dated = [b.start for r in timeline.rows for b in r.bars]
        dated += [b.end for r in timeline.rows for b in r.bars if not b.open]
        low = min([*dated, timeline.at, timeline.now])
        high = max([*dated, timeline.at])
        pad = max((high - low) * PAD, timedelta(days=1))
        if timeline.now - high <= (high - low) * LONG_TAIL:
            last = max(high, timeline.now) + pad
            return cls(low - pad, last, last)
        return cls(low - pad, high + pad, timeline.now + pad, split=SPLIT)

    def at(self, moment: datetime) -> float:
        """Where ``moment`` falls, from 0 (start) to 1 (now and a margin)."""
        if moment <= self.end or self.split == 1.0:
            return self.split * ((moment - self.start) / (self.end - self.start))
        past = (moment - self.end) / (self.now - self.end)
        return self.split + (1 - self.split) * min(past, 1.0)

    def pct(self, moment: datetime) -> str:
        return f"{100 * self.at(moment):.3f}%"


def plot(timeline: Timeline) -> str:
    """The axis, one row of bars per property, and the now and as-of markers."""
    scale = Scale.of(timeline)
    anchors = fact_anchors(timeline)
    rows = "".join(
        f'<div class="row"><div class="name" title="{e(r.property)}">{e(r.property)}</div>'
        f'<div class="track">{"".join(bar(b, scale, anchors) for b in r.bars)}</div></div>'
        for r in timeline.rows
    )
    if not timeline.rows:
        rows = '<p class="none">No facts about this entity yet.</p>'
    markers = marker("now", f"now, {day(timeline.now)}", timeline.now, scale) + marker(
        "asof", f"as of {day(timeline.at)}", timeline.at, scale
    )
    if scale.split < 1.0:
        markers += (
            f'<div class="marker gap" style="--at:{scale.split:.5f}" '
            'title="the years to now are drawn shorter past this line"></div>'
        )
    return (
        f'<div class="plot"><div class="axis"><div class="name"></div>'
        f'<div class="track">{ticks(scale)}</div></div>{rows}{markers}</div>'
    )


def marker(kind: str, label: str, moment: datetime, scale: Scale) -> str:
    return (
        f'<div class="marker {kind}" style="--at:{scale.at(moment):.5f}" '
        f'title="{e(label)}: {e(day(moment))}"><span>{e(label)}</span></div>'
    )


def ticks(scale: Scale) -> str:
    """Dated ticks on the axis, at whole months, at most ``MAX_TICKS`` of them."""
    months = (scale.end.year - scale.start.year) * 12 + scale.end.month - scale.start.month
    step = next((s for s in MONTH_STEPS if months / s <= MAX_TICKS), MONTH_STEPS[-1])
    out: list[str] = []
    index = scale.start.year * 12 + scale.start.month  # the month after the start
    index += (-index) % step
    while (tick := datetime(index // 12, index % 12 + 1, 1)) < scale.end:
        label = tick.strftime("%Y") if step >= 12 else tick.strftime("%b %Y")
        out.append(f'<span class="tick" style="left:{scale.pct(tick)}">{label}</span>')
        index += step
    if scale.split < 1.0:
        out.append(f'<span class="tick gap" style="left:{100 * scale.split:.3f}%">⋯</span>')
    return "".join(out)


def bar(item: Bar, scale: Scale, anchors: dict[str, str]) -> str:
    """One fact's bar: its value (or "ended"), its interval, its turn on hover."""
    label = ENDED_LABEL if item.ended else value_text(item.fact.value)
    until = "now" if item.open else day(item.end)
    hover = f"{label}: {day(item.start)} → {until}"
    if item.said is not None:
        hover += f"\n{item.said.speaker}, {day(item.said.at)}: “{item.said.text}”"
    classes = "bar" + (" ended" if item.ended else "") + (" open" if item.open else "")
    width = max(scale.at(item.end) - scale.at(item.start), 0.0)
    return (
        f'<a class="{classes}" href="#{anchors[item.fact.fact_id]}" '
        f'style="left:{scale.pct(item.start)};width:{100 * width:.3f}%" '
        f'title="{e(hover)}">{e(label)}</a>'
    )


def fact_anchors(timeline: Timeline) -> dict[str, str]:
    """The id of each fact's entry in the fact list (its place, not its stored id)."""
    facts = [b.fact.fact_id for r in timeline.rows for b in r.bars]
    return {fact_id: f"f{i}" for i, fact_id in enumerate(facts)}


def value_html(value: object) -> str:
    """A value for a list: an end reads as "ended"."""
    if value is None:
        return f'<span class="none">{ENDED_LABEL}</span>'
    return f'<span class="value">{e(value_text(value))}</span>'


def held_list(timeline: Timeline) -> str:
    """What held for each property at the as-of time."""
    items = "".join(held_item(h) for h in timeline.held) or "<li>nothing</li>"
    return f'<h3>Held on {e(day(timeline.at))}</h3><ul class="held">{items}</ul>'


def held_item(held: Held) -> str:
    if held.fact is None:
        return f'<li>{e(held.property)}: <span class="none">nothing known</span></li>'
    since = f" <time>since {e(day(held.fact.t_from))}</time>"
    return f"<li>{e(held.property)}: {value_html(held.fact.value)}{since}</li>"


def change_list(changes: Sequence[ChangeRecord]) -> str:
    """Every change of value, oldest first: date, property, old -> new."""
    items = "".join(
        f'<li><time datetime="{e(c.changed_at)}">{e(day(c.changed_at))}</time> '
        f"{e(c.property)}: {value_html(c.old_value)} → {value_html(c.new_value)}</li>"
        for c in changes
    )
    return f'<h3>Changes</h3><ol class="changes">{items or "<li>none</li>"}</ol>'


def fact_list(timeline: Timeline) -> str:
    """Every drawn fact with its interval and the turn that said it (the bars link here)."""
    items = []
    anchors = fact_anchors(timeline)
    for row in timeline.rows:
        for item in row.bars:
            said = ""
            if item.said is not None:
                said = (
                    f"<br>said by <b>{e(item.said.speaker)}</b> on "
                    f"<time>{e(day(item.said.at))}</time>: "
                    f'<span class="quote">“{e(item.said.text)}”</span>'
                )
            until = "now" if item.open else day(item.end)
            items.append(
                f'<li id="{anchors[item.fact.fact_id]}">{e(row.property)}: '
                f"{value_html(item.fact.value)} <time>{e(day(item.start))} → {e(until)}</time>"
                f"{said}</li>"
            )
    return f'<h3>Facts and the turns that said them</h3><ol class="facts">{"".join(items)}</ol>'
