"""A session's timeline drawn: the lanes of history.timeline as one <svg> element.

The result has no XML declaration, no <style>, no script and no `style` attribute (the
app's CSP), so the same string is a standalone .svg file and can be written into a page as
it is (session_svg_inline). Everything user-typed is escaped. The data attributes that tests
and pages read are listed in history.timeline.
"""

from __future__ import annotations

import math
from xml.sax.saxutils import escape, quoteattr

from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext as _

from rules import texts
from rules.vocab import GRADES, TYPES

from ..models import Character, GameSession
from ..present import lang
from ..present.figures import gap_words
from .timeline import Lane, Marker, Segment, _domain, _grade_label, _lanes, _load, when
from .timeline_axis import (
    FONT,
    MARGIN,
    PLOT_X0,
    PLOT_X1,
    WIDTH,
    Scale,
    axis_scale,
    label_x,
    text_width,
    ticks_at_moments,
    ticks_between,
)

# Geometry, in viewBox units (the width and the plot's: timeline_axis).
FONT_NAME = 21
FONT_TITLE = 23
BAND_H = 24
BAND_GAP = 3
STEP = 17  # between marker centres
ROWS = 3  # marker rows in a lane before they go into columns
MAX_COLS = 5  # columns of one cluster of markers before a "+N" badge
R = 6.5  # a marker's radius

# Fill and the letter's colour per grade; "none" is the band's own background.
GRADE_FILL = {
    None: "#eef1f5",
    "leve": "#f4c04e",
    "grave": "#c62f2f",
    "persistente": "#3d2d8c",
}
GRADE_INK = {"leve": "#3a2800", "grave": "#ffffff", "persistente": "#ffffff"}
INK = "#1f2933"
MUTED = "#4a5563"
LINE = "#c3cad3"
TEAL = "#0b6e82"
GREEN = "#17803d"
RED = "#b42318"


def _fit(text: str, size: float, width: float) -> str:
    if text_width(text, size) <= width:
        return text
    keep = max(1, int(width / (size * 0.56)) - 1)
    return text[:keep].rstrip() + "…"


# -- bands ----------------------------------------------------------------------------------


SEVERITY = {None: 0, "leve": 1, "grave": 2, "persistente": 3}
MIN_SEG = 1.5  # viewBox units: a narrower stretch could not be seen


def _merged(segments: list[Segment], x: Scale) -> list[tuple[Segment, int]]:
    """A band's stretches as drawn: runs of stretches too narrow to see become one stretch
    of the most serious grade among them (with how many were merged; 0 for one alone)."""
    out: list[tuple[Segment, int]] = []
    run: list[Segment] = []

    def close() -> None:
        if len(run) == 1:
            out.append((run[0], 0))
        elif run:
            worst = max(run, key=lambda g: SEVERITY[g.grade]).grade
            first, last = run[0], run[-1]
            merged = Segment(first.type, worst, first.start, last.end, first.p0, last.p1)
            out.append((merged, len(run)))
        run.clear()

    for seg in sorted(segments, key=lambda g: g.p0):
        if run and (x(seg.p1) - x(seg.p0) >= MIN_SEG or x(run[-1].p1) - x(run[0].p0) >= MIN_SEG):
            close()
        run.append(seg)
    close()
    return out


# -- markers ---------------------------------------------------------------------------------


def _layout(markers: list[Marker], x: Scale) -> tuple[int, list[tuple[float, int, list]]]:
    """Place each marker (x, row); returns the rows used and the "+N" badges.

    Markers closer than a marker's width form a cluster: it fills ROWS rows, then up to
    MAX_COLS columns around its time, and the rest goes into one badge with their texts.
    A cluster pushed by those before it against the right edge joins the one before it.
    """
    markers = sorted(markers, key=lambda m: (m.p, m.seq))
    clusters: list[list[Marker]] = []
    for m in markers:
        if clusters and x(m.p) - x(clusters[-1][0].p) < STEP * 0.75:
            clusters[-1].append(m)
        else:
            clusters.append([m])
    while (crowded := _placed(clusters, x)) is not None:
        clusters[crowded - 1] += clusters.pop(crowded)
    badges = []
    rows_used = 0
    for cluster, left, _cols in _spans(clusters, x):
        shown, hidden = _shown(cluster)
        for i, m in enumerate(shown):
            m.x, m.row = left + (i // ROWS) * STEP, i % ROWS
        if hidden:
            i = len(shown)
            badges.append((left + (i // ROWS) * STEP, i % ROWS, hidden))
        rows_used = max(rows_used, min(ROWS, len(shown) + (1 if hidden else 0)))
    return rows_used, badges


def _shown(cluster: list[Marker]) -> tuple[list[Marker], list[Marker]]:
    """A cluster's markers drawn, and those in its "+N" badge."""
    capacity = ROWS * MAX_COLS
    shown = cluster if len(cluster) <= capacity else cluster[: capacity - 1]
    return shown, cluster[len(shown) :]


def _spans(clusters: list[list[Marker]], x: Scale) -> list[tuple[list[Marker], float, int]]:
    """Each cluster with the x of its first column and its number of columns: centred on
    its markers' times, right of the one before it, inside the plot."""
    out = []
    right = -math.inf
    for cluster in clusters:
        shown, hidden = _shown(cluster)
        cols = math.ceil((len(shown) + (1 if hidden else 0)) / ROWS)
        centre = sum(x(m.p) for m in cluster) / len(cluster)
        left = centre - (cols - 1) * STEP / 2
        left = max(left, right + STEP, PLOT_X0)
        left = min(left, PLOT_X1 - (cols - 1) * STEP)
        out.append((cluster, left, cols))
        right = left + (cols - 1) * STEP
    return out


def _placed(clusters: list[list[Marker]], x: Scale) -> int | None:
    """The first cluster the right edge pushed onto the one before it, or None."""
    spans = _spans(clusters, x)
    for i in range(1, len(spans)):
        _cluster, left, _cols = spans[i]
        _before, before_left, before_cols = spans[i - 1]
        if left < before_left + before_cols * STEP - 0.01:
            return i
    return None


def _shape(m: Marker, cx: float, cy: float) -> str:
    """A marker's shape: a cross (void), a diamond (E.Esp), a disc or a ring (check)."""
    if m.kind == "void":
        d = R * 0.8
        return (
            f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="{R + 1}" fill="#ffffff" '
            f'fill-opacity="0.01"/><path d="M{cx - d:.1f} {cy - d:.1f}L{cx + d:.1f} '
            f'{cy + d:.1f}M{cx - d:.1f} {cy + d:.1f}L{cx + d:.1f} {cy - d:.1f}" '
            f'stroke="{INK}" stroke-width="3" stroke-linecap="round" fill="none"/>'
        )
    if m.kind == "especial":
        d = R + 1
        fill = TEAL if m.variant == "gained" else "#ffffff"
        return (
            f'<path d="M{cx:.1f} {cy - d:.1f}L{cx + d:.1f} {cy:.1f}L{cx:.1f} {cy + d:.1f}'
            f'L{cx - d:.1f} {cy:.1f}Z" fill="{fill}" stroke="{TEAL}" stroke-width="2"/>'
        )
    if m.variant == "success":
        return (
            f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="{R}" fill="{GREEN}" stroke="{GREEN}" '
            f'stroke-width="2"/>'
        )
    return (
        f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="{R - 0.5}" fill="#ffffff" stroke="{RED}" '
        f'stroke-width="3"/>'
    )


def _marker_svg(m: Marker, cx: float, cy: float, pj: int) -> str:
    attrs = (
        f'class="tl-marker tl-{m.kind}" data-kind="{m.kind}" data-seq="{m.seq}" '
        f'data-at="{m.at}" data-pj="{pj}"'
    )
    if m.variant:
        attrs += f' data-variant="{m.variant}"'
    for key, value in m.data.items():
        attrs += f" data-{key}={quoteattr(value)}"
    return f"<g {attrs}><title>{escape(m.title)}</title>{_shape(m, cx, cy)}</g>"


# -- drawing ---------------------------------------------------------------------------------


def _flow(items: list[tuple[str, str]], y: float, size: float) -> tuple[list[str], float]:
    """Legend items (swatch svg at 0,0 to 16,16; label) in rows; returns parts and height."""
    parts = []
    x0, x = float(MARGIN), float(MARGIN)
    for swatch, label in items:
        width = 22 + text_width(label, size, 0.55) + 18
        if x > x0 and x + width - 18 > WIDTH - MARGIN:
            x, y = x0, y + size + 10
        parts.append(
            f'<g transform="translate({x:.1f} {y - size + 3:.1f})">{swatch}</g>'
            f'<text x="{x + 22:.1f}" y="{y:.1f}" font-size="{size}" fill="{INK}">'
            f"{escape(label)}</text>"
        )
        x += width
    return parts, y


def _svg(
    *, ids: str, height: float, title: str, desc: str, body: list[str], extra: str = ""
) -> str:
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {height:.0f}" '
        f'width="100%" height="{height:.0f}" class="session-timeline" role="img" '
        f'aria-labelledby="{ids}-title {ids}-desc" preserveAspectRatio="xMidYMin meet" '
        f'font-family="system-ui, -apple-system, Segoe UI, Roboto, Helvetica, Arial, sans-serif"'
        f"{extra}>"
        f'<title id="{ids}-title">{escape(title)}</title>'
        f'<desc id="{ids}-desc">{escape(desc)}</desc>'
        f'<rect width="{WIDTH}" height="{height:.0f}" fill="#ffffff"/>' + "".join(body) + "</svg>"
    )


def _fill(ids: str, grade: str | None) -> str:
    return f"url(#{ids}-hatch)" if grade == "persistente" else GRADE_FILL[grade]


def _legend(ids: str, y: float, code: str) -> tuple[str, float]:
    """The legend, grades then markers, from `y` down; and the height it reached."""
    swatch = '<rect width="16" height="16" rx="3" fill="{}" stroke="{}" stroke-width="1"/>'
    grade_items = [(swatch.format(_fill(ids, None), LINE), _grade_label(None, code))] + [
        (
            swatch.format(_fill(ids, g), _fill(ids, g) if g != "persistente" else INK),
            _grade_label(g, code),
        )
        for g in GRADES
    ]
    samples = [
        (Marker("especial", 0, 0, "", "gained"), _("E.Esp gained")),
        (Marker("especial", 0, 0, "", "lost"), _("E.Esp lost")),
        (Marker("check", 0, 0, "", "success"), _("Check passed")),
        (Marker("check", 0, 0, "", "failure"), _("Check failed")),
        (Marker("void", 0, 0, ""), _("Voided")),
    ]
    marker_items = [(_shape(m, 8, 8), label) for m, label in samples]
    parts, y = _flow(grade_items + marker_items, y, FONT)
    return f'<g class="tl-legend">{"".join(parts)}</g>', y


def _axis(x: Scale, ticks: list[float], breaks: list[tuple[float, float]], y_text: float) -> str:
    """The game-time axis at `y_text`: its ticks, and a mark on each shortened stretch."""
    out = []
    for t in ticks:
        label = when(int(t))
        cx = label_x(x(t), label)
        out.append(
            f'<text x="{cx:.1f}" y="{y_text:.1f}" font-size="{FONT}" fill="{MUTED}" '
            f'text-anchor="middle" data-at="{int(t)}">{escape(label)}</text>'
        )
    for a, b in breaks:  # a shortened stretch: a break in the axis, with its length
        mid = (x(a) + x(b)) / 2
        gap = _("%(span)s without events (shortened)") % {"span": gap_words(int(b) - int(a))}
        out.append(
            f'<text x="{mid:.1f}" y="{y_text - FONT - 2:.1f}" font-size="{FONT}" '
            f'fill="{MUTED}" text-anchor="middle" class="tl-break" data-from="{int(a)}" '
            f'data-to="{int(b)}"><title>{escape(gap)}</title>≈</text>'
        )
    return f'<g class="tl-axis">{"".join(out)}</g>'


def _markers(lane: Lane, x: Scale, top: float) -> tuple[list[str], int]:
    """A lane's markers in their rows from `top`, each cluster too big ending in a "+N"
    badge; and how many rows they take."""
    pj = lane.character.pk
    rows_used, badges = _layout(lane.markers, x)
    out = [_marker_svg(m, m.x, top + m.row * STEP, pj) for m in lane.markers if m.row >= 0]
    for bx, row, hidden in badges:
        lines = [m.title for m in hidden[:25]]
        if len(hidden) > 25:
            lines.append("…")
        by = top + row * STEP
        count = f"+{len(hidden)}"
        out.append(
            f'<g class="tl-marker tl-more" data-kind="more" data-count="{len(hidden)}" '
            f'data-pj="{pj}"><title>{escape(chr(10).join(lines))}</title>'
            f'<rect x="{bx - 8:.1f}" y="{by - 8:.1f}" width="{8 + 8 * len(count)}" '
            f'height="16" rx="4" fill="{INK}"/><text x="{bx - 4:.1f}" y="{by + 4.5:.1f}" '
            f'font-size="13" font-weight="700" fill="#ffffff">{count}</text></g>'
        )
    return out, rows_used


def _band(lane: Lane, t: str, by: float, x: Scale, span: tuple[float, float], ids: str, code: str):
    """One E.Alt type's band of a lane at height `by`: its label, and a stretch per grade."""
    pj = lane.character.pk
    lo, hi = span
    type_label = texts.TYPE_LABELS[t][code]
    out = [
        f'<text x="{MARGIN}" y="{by + BAND_H - 7:.1f}" font-size="{FONT}" '
        f'fill="{INK}">{escape(type_label)}</text>'
        f'<rect x="{PLOT_X0 - 8}" y="{by:.1f}" width="{PLOT_X1 - PLOT_X0 + 16}" '
        f'height="{BAND_H}" fill="{GRADE_FILL[None]}" stroke="{LINE}" '
        f'stroke-width="1"/>'
    ]
    for seg, merged in _merged([g for g in lane.segments if g.type == t], x):
        x0 = x(seg.p0)
        w = max(x(seg.p1) - x0, 1.5)
        if seg.p0 == lo:
            x0, w = PLOT_X0 - 8, w + 8
        if seg.p1 == hi:
            w += 8
        tip = (
            f"{lane.character.name} · {type_label}: {_grade_label(seg.grade, code)} · "
            f"{when(seg.start)} – {when(seg.end)}"
        )
        if merged:
            tip += " · " + _("%(n)s changes, the most serious shown") % {"n": merged}
        out.append(
            f'<rect class="tl-seg" data-pj="{pj}" data-type="{t}" '
            f'data-grade="{seg.grade or "none"}" data-from="{seg.start}" '
            f'data-to="{seg.end}" x="{x0:.2f}" y="{by:.1f}" width="{w:.2f}" '
            f'height="{BAND_H}" fill="{_fill(ids, seg.grade)}"><title>{escape(tip)}</title>'
            f"</rect>"
        )
        letter = _grade_label(seg.grade, code)[:1] if seg.grade else ""
        if letter and w >= 16:
            out.append(
                f'<text x="{x0 + w / 2:.1f}" y="{by + BAND_H - 7:.1f}" '
                f'font-size="{FONT - 3}" font-weight="700" text-anchor="middle" '
                f'fill="{GRADE_INK[seg.grade or "leve"]}" pointer-events="none">{letter}</text>'
            )
    return out


def _lane(
    lane: Lane,
    x: Scale,
    ticks: list[float],
    span: tuple[float, float],
    y: float,
    ids: str,
    code: str,
) -> tuple[str, float]:
    """One PJ's lane from `y` down: its name, its markers, a band per type and the ticks'
    lines across them; and where it ends."""
    pj = lane.character.pk
    y += FONT_NAME + 8
    parts = [
        f'<text x="{MARGIN}" y="{y:.1f}" font-size="{FONT_NAME}" font-weight="700" '
        f'fill="{INK}" class="tl-name">'
        f"{escape(_fit(lane.character.name, FONT_NAME, WIDTH - 2 * MARGIN))}</text>"
    ]
    y += 6
    markers, rows_used = _markers(lane, x, y + R + 3)
    parts += markers
    y += rows_used * STEP + (6 if rows_used else 0)
    band_top = y
    for i, t in enumerate(TYPES):
        parts += _band(lane, t, band_top + i * (BAND_H + BAND_GAP), x, span, ids, code)
    bands_bottom = band_top + len(TYPES) * (BAND_H + BAND_GAP) - BAND_GAP
    for tick in ticks:
        parts.append(
            f'<line x1="{x(tick):.1f}" y1="{band_top:.1f}" x2="{x(tick):.1f}" '
            f'y2="{bands_bottom:.1f}" stroke="{INK}" stroke-opacity="0.3" '
            f'stroke-width="1" stroke-dasharray="3 3"/>'
        )
    svg = (
        f'<g class="tl-lane" data-pj="{pj}" aria-label={quoteattr(lane.character.name)}>'
        + "".join(parts)
        + "</g>"
    )
    return svg, bands_bottom + 14


def session_svg(
    *,
    session: GameSession,
    characters: list[Character] | None = None,
    for_player: bool = False,
) -> str:
    """The session's timeline as one <svg> element: a standalone .svg file as it is.

    `characters` restricts the lanes (a player's own PJ); `for_player` leaves out every
    name the DJ keeps secret and the words of secret events.
    """
    code = lang()
    ids = f"tl{session.pk}"
    heading = _("Session %(number)s") % {"number": session.number}
    if session.title:
        heading += f" · {session.title}"
    title = f"{session.campaign.name} · {heading}"

    def heading_svg(y: str) -> str:
        return (
            f'<text x="{MARGIN}" y="{y}" font-size="{FONT_TITLE}" font-weight="700" '
            f'fill="{INK}">{escape(_fit(heading, FONT_TITLE, WIDTH - 2 * MARGIN))}</text>'
        )

    snapshots, previous = _load(session, characters)
    if not snapshots:
        if for_player or characters is not None:
            empty = _("Your PJ have no events in this session.")
        else:
            empty = _("No events in this session yet.")
        body = [
            heading_svg("34"),
            f'<text x="{MARGIN}" y="72" font-size="{FONT}" fill="{MUTED}" '
            f'class="tl-empty">{escape(empty)}</text>',
        ]
        return _svg(ids=ids, height=96, title=title, desc=empty, body=body)

    lanes = _lanes(snapshots, previous, for_player=for_player, code=code)
    lo, hi = _domain(lanes)
    for lane in lanes:
        for t in TYPES:
            since, since_p, grade = lane.open_at[t]
            lane.segments.append(Segment(t, grade, since, max(int(hi), since), since_p, hi))
    x, breaks = axis_scale(lanes, lo, hi)
    ticks: list[float] = (
        [float(t) for t in ticks_between(math.ceil(lo), int(hi))]
        if not breaks and len(x.knots) == 2
        else ticks_at_moments(x)
    )

    # The patterns: persistente is hatched as well as dark, so it reads without colour.
    body = [
        f'<defs><pattern id="{ids}-hatch" width="6" height="6" patternUnits="userSpaceOnUse" '
        f'patternTransform="rotate(45)"><rect width="6" height="6" '
        f'fill="{GRADE_FILL["persistente"]}"/><rect width="2" height="6" fill="#ffffff" '
        f'fill-opacity="0.35"/></pattern></defs>'
    ]
    y = 32.0
    body.append(heading_svg(f"{y:.0f}"))
    y += 26
    first = min(lane.start for lane in lanes)
    last = max(lane.end for lane in lanes)
    span = when(first) if first == last else f"{when(first)} – {when(last)}"
    body.append(
        f'<text x="{MARGIN}" y="{y:.0f}" font-size="{FONT}" fill="{MUTED}">'
        f"{escape(_fit(f'{session.campaign.name} · {span}', FONT, WIDTH - 2 * MARGIN))}</text>"
    )
    legend, y = _legend(ids, y + 34, code)
    body.append(legend)
    y += 36
    body.append(_axis(x, ticks, breaks, y))
    y += 10
    for lane in lanes:
        drawn, y = _lane(lane, x, ticks, (lo, hi), y, ids, code)
        body.append(drawn)
        body.append(
            f'<line x1="{MARGIN}" y1="{y:.1f}" x2="{WIDTH - MARGIN}" y2="{y:.1f}" '
            f'stroke="{LINE}" stroke-width="1"/>'
        )
    if len(lanes) > 1:
        y += FONT + 12
        body.append(_axis(x, ticks, breaks, y))
    height = y + 14

    names = ", ".join(lane.character.name for lane in lanes)
    desc = _(
        "Game time from %(start)s to %(end)s for %(names)s: for each PJ, a band per E.Alt type "
        "shaded by its active grade, and markers for E.Esp gained or lost, checks and voided "
        "events."
    ) % {"start": when(int(lo)), "end": when(int(hi)), "names": names}
    extra = f' data-session="{session.number}" data-from="{int(lo)}" data-to="{int(hi)}" ' + (
        f'data-x0="{PLOT_X0}" data-x1="{PLOT_X1}"'
    )
    return _svg(ids=ids, height=height, title=title, desc=desc, body=body, extra=extra)


def session_svg_inline(
    *,
    session: GameSession,
    characters: list[Character] | None = None,
    for_player: bool = False,
) -> SafeString:
    """session_svg, marked safe for a template: the string is one escaped <svg> element."""
    return mark_safe(session_svg(session=session, characters=characters, for_player=for_player))
