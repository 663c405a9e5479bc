"""A game session's timeline picture: GET /c/<slug>/sesion/<number>/linea.svg.

The campaign's DJ sees every PJ's and PNJ's lane; a player of the campaign sees only their
own PJ, without what the DJ keeps secret; anyone else gets 404. `?descargar=1` makes it a download.
"""

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpResponse
from django.views.decorators.http import require_GET

from .. import selectors
from ..access import membership_for
from ..history.timeline_svg import session_svg
from ..models import Membership
from ..requests import AuthedHttpRequest


@require_GET
@login_required
def session_timeline_svg(request: AuthedHttpRequest, slug: str, number: int) -> HttpResponse:
    membership = membership_for(user=request.user, slug=slug)
    campaign = membership.campaign
    session = selectors.session_by_number(campaign=campaign, number=number)
    if session is None:
        raise Http404("No such session.")
    session.campaign = campaign
    if membership.role == Membership.Role.DJ:
        svg = session_svg(session=session)
    else:
        # Their PJ's lanes only: no lane, and no name, of anyone else (a PNJ above all).
        own = [
            c
            for c in selectors.characters_played_by(campaign=campaign, user=request.user)
            if not c.is_pnj
        ]
        svg = session_svg(session=session, characters=own, for_player=True)
    response = HttpResponse(svg, content_type="image/svg+xml; charset=utf-8")
    filename = f"zodiac-{campaign.slug}-sesion-{session.number}.svg"
    disposition = "attachment" if request.GET.get("descargar") == "1" else "inline"
    response["Content-Disposition"] = f'{disposition}; filename="{filename}"'
    response["Cache-Control"] = "private, no-cache"
    return response
