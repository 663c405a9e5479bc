"""The history wing: what happened, in words and pictures, and whether the sheets still
say what the log says.

- `audit`: a campaign's events as rows a viewer may read, and a PJ's state around one event.
- `exports`: a session's rows as CSV or Markdown.
- `fights`: a fight's turn order in words, each PNJ named as the viewer may read it.
- `timeline`: a session's timeline picture read from the snapshots; `timeline_svg` draws it.
- `replay`: re-folding whole logs to check the stored sheets (the rewrite is services.refold).

An event in words (labels, toasts, the rule trail) is present.events'.
"""
