"""Campaign backups in the app: the DJ downloads one, any logged-in user imports one.

The download streams (campaign.backup.export_chunks): under ASGI as an async iterator that
pulls the export in batches from the request's own thread, so it is never gathered in
memory. The import page takes a file of up to campaign.backup.MAX_BYTES; a file that cannot
be imported shows why (status 422) and writes nothing.
"""

from collections.abc import AsyncIterator, Iterator

from asgiref.sync import sync_to_async
from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.handlers.asgi import ASGIRequest
from django.http import HttpRequest, HttpResponse, StreamingHttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_GET, require_http_methods

from .. import backup
from ..access import campaign_for_dj
from ..models import Campaign

_MB = backup.MAX_BYTES // (1024 * 1024)


class ImportForm(forms.Form):
    file = forms.FileField(
        label=gettext_lazy("Backup file"),
        widget=forms.FileInput(attrs={"accept": ".json,application/json"}),
        error_messages={"required": gettext_lazy("Choose the backup file to import.")},
    )
    name = forms.CharField(
        label=gettext_lazy("Name"),
        required=False,
        max_length=Campaign._meta.get_field("name").max_length,
        help_text=gettext_lazy("Leave it blank to keep the name in the file."),
    )

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.fields["file"].help_text = _(
            "A .json file saved from a campaign's settings (Backup), up to %(mb)s MB."
        ) % {"mb": _MB}

    def clean_file(self):
        upload = self.cleaned_data["file"]
        if upload.size > backup.MAX_BYTES:
            raise forms.ValidationError(
                _("The file is larger than %(mb)s MB, the most this page takes.") % {"mb": _MB},
                code="too_large",
            )
        return upload


@require_http_methods(["GET", "POST"])
@login_required
def campaign_import(request: HttpRequest) -> HttpResponse:
    """A backup file as a new campaign, directed by whoever imports it."""
    status = 200
    if request.method == "POST":
        form = ImportForm(request.POST, request.FILES)
        if not form.is_valid():
            too_large = any(e.code == "too_large" for e in form.errors.as_data().get("file", []))
            status = 422 if too_large else 200
        else:
            try:
                result = backup.campaign_import(
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
                    _(
                        "Campaign %(name)s imported: %(characters)s PJ, %(sessions)s sessions, "
                        "%(events)s events. You are its DJ."
                    )
                    % {
                        "name": campaign.name,
                        "characters": result.characters,
                        "sessions": result.sessions,
                        "events": result.events,
                    },
                )
                for note in result.notes:
                    messages.warning(request, note)
                return redirect("board", slug=campaign.slug)
    else:
        form = ImportForm()
    context = {"form": form, "max_mb": _MB}
    return render(request, "campaign/campaign_import.html", context, status=status)


@require_GET
@login_required
def campaign_export(request: HttpRequest, slug: str) -> StreamingHttpResponse:
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
    while True:
        piece = await sync_to_async(next, thread_sensitive=True)(pieces, None)
        if piece is None:
            return
        yield piece
