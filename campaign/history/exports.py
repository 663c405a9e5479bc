"""A session's audit rows as files to take away: CSV for a spreadsheet, Markdown for
Discord or Obsidian. Each viewer's rows are already what they may see (history.audit)."""

import csv
import io

from django.utils import timezone
from django.utils.translation import gettext as _

from ..models import Campaign, GameSession
from .audit import Row


def _spreadsheet_safe(text: str) -> str:
    """A CSV cell a spreadsheet shows as text: one starting like a formula gets a quote
    first (names and reasons are typed by people)."""
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


def _md(text: str) -> str:
    """Typed text in a Markdown file, shown as text as on the pages: no "<" opens a tag."""
    return text.replace("<", "&lt;")


def _cell(text: str) -> str:
    return _md(text).replace("|", "\\|").replace("\n", " ")


def _headers(dj: bool) -> list[str]:
    headers = [
        "#",
        _("Recorded at"),
        _("Game time"),
        _("Round"),
        _("Turn"),
        _("By"),
        _("Who"),  # a PJ, a PNJ, the fight, everyone
        _("What"),
        _("Rules"),
        _("Voided"),
    ]
    if dj:
        headers.append(_("Secret"))  # what the players do not see named
    return headers


def _values(row: Row, dj: bool) -> list[str]:
    void = ""
    if row.is_void:
        void = _("voided by %(who)s: %(reason)s") % {
            "who": row.void_by or "?",
            "reason": row.void_reason,
        }
    return [
        str(row.seq),
        timezone.localtime(row.created_at).strftime("%Y-%m-%d %H:%M:%S"),  # as on the pages
        row.clock_text,
        str(row.round),
        row.turn,
        row.actor,
        row.who,
        row.label,
        row.plain_trail,
        void,
    ] + ([_("secret") if row.secret else ""] if dj else [])


def session_csv(rows: list[Row], *, dj: bool) -> str:
    """The rows as CSV, a header first (the DJ's with a Secret column)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(_headers(dj))
    for row in rows:
        writer.writerow([_spreadsheet_safe(value) for value in _values(row, dj)])
    return buffer.getvalue()


def session_markdown(campaign: Campaign, session: GameSession, rows: list[Row], *, dj: bool) -> str:
    """The session as Markdown: a title, its recap (the DJ's: their own note too), and the
    rows as a table (voided actions struck through)."""
    headers = _headers(dj)
    title = _("Session %(number)s") % {"number": session.number}
    if session.title:
        title += f": {session.title}"
    lines = [f"# {_md(campaign.name)} · {_md(title)}", ""]
    if session.recap:
        lines += [_md(session.recap), ""]
    if dj and session.dj_note:
        heading = _("DJ's note")
        lines += [f"## {_md(heading)}", "", _md(session.dj_note), ""]
    lines += ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    for row in rows:
        cells = _values(row, dj)
        if row.is_void:
            cells[7] = f"~~{cells[7]}~~"
        lines.append("| " + " | ".join(_cell(c) for c in cells) + " |")
    return "\n".join(lines) + "\n"
