"""What the pages show: pure functions from data already read to what templates render.

Each screen's selector (`selectors.board_view`, `selectors.sheet_view`) reads everything a
screen needs; the presenters here turn it into the table's words and never query. The
rules' numbers (modifiers, the cap, a breakdown) come from `rules/`, never computed here.

- `card`: a character's condition card (the board's and the sheet's);
- `board`: the DJ's board: its panels (clock, fight, undo, recent events) and its cards;
- `sheet`: a player's sheet: its card and where its PJ stands in the fight;
- `calculator`: the modifier calculator's breakdown of one action;
- `events`: an event in words, its rule trail and its toast;
- `figures`: clocks, stretches of game time and signed modifiers as the table reads them.
"""

from django.utils import translation


def lang() -> str:
    """The active UI language as a two-letter code ("es", "en"): the one way to read it."""
    return (translation.get_language() or "es")[:2]
