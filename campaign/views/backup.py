"""Campaign backups in the app: the DJ downloads one, any logged-in user imports one.

The download streams (campaign.backup.export_chunks): under ASGI as an async iterator that
pulls the export in batches from the request's own thread, so it is never gathered in
memory. The import page takes a file of up to campaign.backup.MAX_BYTES; a file that cannot
be imported shows why (status 422) and writes nothing.
"""

from collections.abc import AsyncIterator, Iterator

from asgiref.sync import sync_to_async
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.handlers.asgi import ASGIRequest
from django.http import HttpResponse, StreamingHttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods

from .. import backup
from ..access import campaign_for_dj
from ..forms import BACKUP_MB, ImportForm
from ..requests import AuthedHttpRequest
from ..services.restore import campaign_import as campaign_import_file


@require_http_methods(["GET", "POST"])
@login_required
def campaign_import(request: AuthedHttpRequest) -> HttpResponse:
    """A backup file as a new campaign, directed by whoever imports it."""
    status = 200
    if request.method == "POST":
        form = ImportForm(request.POST, request.FILES)
        if not form.is_valid():
            too_large = any(e.code == "too_large" for e in form.errors.as_data().get("file", []))
            status = 422 if too_large else 200
        else:
            try:
                result = campaign_import_file(
                    form.cleaned_data["file"].read(),
                    dj=request.user,
                    name=form.cleaned_data["name"],
                    link_accounts=False,
                )
            except backup.BackupError as err:
                form.add_error("file", str(err))
                status = 422
            else:
                campaign = result.campaign
                messages.success(
                    request,
                    _("Campaign %(name)s imported: %(counts)s. You are its DJ.")
                    % {"name": campaign.name, "counts": result.counts},
                )
                for note in result.notes:
                    messages.warning(request, note)
                return redirect("board", slug=campaign.slug)
    else:
        form = ImportForm()
    context = {"form": form, "max_mb": BACKUP_MB}
    return render(request, "campaign/campaign_import.html", context, status=status)


@require_GET
@login_required
def campaign_export(request: AuthedHttpRequest, slug: str) -> StreamingHttpResponse:
    """The campaign's backup as a JSON download, for its DJ only."""
    campaign = campaign_for_dj(user=request.user, slug=slug)
    pieces = backup.export_batched(campaign)
    content = _pulled(pieces) if isinstance(request, ASGIRequest) else pieces
    response = StreamingHttpResponse(content, content_type="application/json; charset=utf-8")
    filename = backup.export_filename(campaign)
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    response["Cache-Control"] = "no-store"
    return response


async def _pulled(pieces: Iterator[bytes]) -> AsyncIterator[bytes]:
    """Each piece of a sync iterator, taken in the request's thread (and its connection)."""

    def take() -> bytes | None:
        return next(pieces, None)

    while True:
        piece = await sync_to_async(take, thread_sensitive=True)()
        if piece is None:
            return
        yield piece
