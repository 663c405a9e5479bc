"""The time axis of a session's timeline (history.timeline_svg draws the rest): where a
place on it (game time, with its events' steps: timeline.Places) is drawn, the stretches
it shortens, and the times it labels."""

from __future__ import annotations

import bisect
import math

from .timeline import Lane, when

# Geometry, in viewBox units. 520 wide: a font of 18 is 10 px in a picture 290 px wide.
WIDTH = 520
MARGIN = 12
GUTTER = 92  # the band labels, left of the plot
PLOT_X0 = MARGIN + GUTTER + 8  # the first game second
PLOT_X1 = WIDTH - MARGIN - 8  # the last one
FONT = 18

TICK_STEPS = (
    1, 2, 5, 10, 15, 30,
    60, 120, 300, 600, 900, 1200, 1800,
    3600, 7200, 10800, 14400, 21600, 28800, 43200,
    86400, 2 * 86400, 7 * 86400, 14 * 86400, 28 * 86400,
)  # fmt: skip


def text_width(text: str, size: float, em: float = 0.56) -> float:
    """An estimate of a sans-serif text's width (no font metrics on the server)."""
    return len(text) * size * em


# -- the axis -----------------------------------------------------------------------------------


def ticks_between(lo: int, hi: int) -> list[int]:
    """Round game times inside [lo, hi]: the shortest step whose labels do not touch."""
    span = max(hi - lo, 1)
    plot = PLOT_X1 - PLOT_X0
    ticks: list[int] = []
    for step in TICK_STEPS:
        if span / step > plot / 40:
            continue  # never room for that many labels
        ticks = list(range(math.ceil(lo / step) * step, hi + 1, step))
        room = max((text_width(when(t), FONT, 0.54) for t in ticks), default=0) + 14
        if step * plot / span >= room:
            return ticks
    return ticks


class Scale:
    """A place on the axis (game time, with its events' steps: timeline.Places) to x:
    linear between knots (t, x), in order. Two knots make the plain linear axis; more give
    each moment where something happens its room (axis_scale)."""

    def __init__(self, knots: list[tuple[float, float]]) -> None:
        self.knots = knots
        self.lo, self.hi = knots[0][0], knots[-1][0]

    @classmethod
    def linear(cls, lo: float, hi: float) -> Scale:
        return cls([(lo, PLOT_X0), (hi, PLOT_X1)])

    def __call__(self, t: float) -> float:
        knots = self.knots
        i = bisect.bisect_right([k for k, _x in knots], t) - 1
        i = min(max(i, 0), len(knots) - 2)
        (t0, x0), (t1, x1) = knots[i], knots[i + 1]
        return x0 if t1 == t0 else x0 + (t - t0) / (t1 - t0) * (x1 - x0)


MIN_GAP = 4.0  # viewBox units: moments closer than this on a linear axis are crowded
BREAK = 3600  # seconds: a longer stretch where nothing happens is shortened, and marked


def axis_scale(lanes: list[Lane], lo: float, hi: float) -> tuple[Scale, list[tuple[float, float]]]:
    """The axis for these lanes, and the stretches it shortened.

    Linear when every two moments where something happens (a band changes grade, a
    marker, a lane starts or ends) stand apart; else each gap between moments gets a
    share of the width by its kind, not its length: a step between events of one game
    second (a fight's turns) 0.5, a minute or less 1, up to an hour 1.5, longer 2
    (shortened, and marked on the axis). So a fight of a few rounds in a two-day session
    is drawn wide enough to read, and a Shock leve lost with its turn is seen."""
    seen = {lo, hi}
    for lane in lanes:
        seen.update((float(lane.start), lane.p_end))
        seen.update(m.p for m in lane.markers)
        for seg in lane.segments:
            seen.update((seg.p0, seg.p1))
    moments = sorted(t for t in seen if lo <= t <= hi)
    plot = PLOT_X1 - PLOT_X0
    gaps = list(zip(moments, moments[1:], strict=False))
    if all((b - a) / (hi - lo) * plot >= MIN_GAP for a, b in gaps):
        return Scale.linear(lo, hi), []

    def weight(gap: float) -> float:
        return 0.5 if gap < 1 else 1.0 if gap <= 60 else 1.5 if gap <= BREAK else 2.0

    total = sum(weight(b - a) for a, b in gaps)
    knots, x = [(moments[0], float(PLOT_X0))], float(PLOT_X0)
    for a, b in gaps:
        x += weight(b - a) / total * plot
        knots.append((b, x))
    return Scale(knots), [(a, b) for a, b in gaps if b - a > BREAK]


def label_x(at: float, label: str) -> float:
    """Where a time's label is centred: under its time, kept inside the picture."""
    half = text_width(label, FONT) / 2
    return min(max(at, MARGIN + half), WIDTH - MARGIN - half)


def ticks_at_moments(x: Scale) -> list[float]:
    """On an axis of moments: label the moments themselves, as many as fit (a minute's
    label once), and the axis's end."""
    ticks: list[float] = []
    last, said = -1e9, ""

    def fits(at: float, label: str) -> bool:
        return label_x(at, label) - last >= text_width(label, FONT, 0.54) + 14

    for t, at in x.knots:
        label = when(int(t))
        if fits(at, label) and label != said:
            ticks.append(t)
            last, said = label_x(at, label), label
    # The axis's end is labelled, in place of the labels before it that it would touch.
    end, end_at = x.knots[-1]
    label = when(int(end))
    if ticks and ticks[-1] != end and label != said:
        while len(ticks) > 1 and not fits(end_at, label):
            ticks.pop()
            t = ticks[-1]
            last = label_x(x(t), when(int(t)))
        ticks.append(end)
    return ticks
