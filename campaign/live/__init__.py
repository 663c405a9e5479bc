"""The live channel: every open page of a campaign shows a change made elsewhere.

- `channel`: writers advance the campaign's change cursor in their transaction.
- `hub`: each server process follows the cursors of the campaigns its streams show.
- `parts`: the rendered parts of a change, once per kind of viewer.
- `views`: the event stream (one per browser, shared by its tabs) and polling.
"""
