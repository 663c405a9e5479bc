"""The history wing: what happened, in words and pictures, and whether the sheets still
say what the log says.

- `log`: a campaign's events as rows a viewer may read, and a PJ's state around one event.
- `words`: an event in words: labels, the toast after a tap, the rule trail.
- `timeline`: a session's timeline picture (SVG).
- `replay`: re-folding whole logs to check (and rewrite) the stored sheets.
"""
