from django.urls import path

from .live import views as live
from .views import (
    backup,
    board,
    fight,
    health,
    history,
    home,
    party,
    players,
    pnj,
    pwa,
    reference,
    setup,
    sheet,
    timeline,
)

urlpatterns = [
    path("", home.home, name="home"),
    path("reglas/", reference.rules, name="rules"),
    path("guia/", reference.guide, name="guide"),
    path("salud/", health.health, name="health"),
    path("campanas/nueva/", home.campaign_new, name="campaign_new"),
    # The DJ's table
    path("c/<slug:slug>/", board.board, name="board"),
    path("c/<slug:slug>/refrescar/", board.refresh, name="board_refresh"),
    path("c/<slug:slug>/pj/<int:pk>/tarjeta/", board.card, name="card"),
    path("c/<slug:slug>/pj/<int:pk>/accion/", board.act, name="act"),
    path("c/<slug:slug>/pj/<int:pk>/secreto/", board.secret, name="secret"),
    path("c/<slug:slug>/pj/<int:pk>/al-dia/", board.catch_up, name="catch_up"),
    path("c/<slug:slug>/pj/<int:pk>/elegir/<slug:kind>/", board.ask, name="ask"),
    path("c/<slug:slug>/ronda/", party.next_round, name="next_round"),
    path("c/<slug:slug>/tiempo/", party.party_time, name="party_time"),
    path("c/<slug:slug>/descanso/", party.party_descanso, name="party_descanso"),
    path("c/<slug:slug>/deshacer/", party.undo, name="undo"),
    path("c/<slug:slug>/anular/", party.void, name="void"),
    path("c/<slug:slug>/combate/", fight.fight_setup, name="fight_setup"),
    path("c/<slug:slug>/combate/turno/", fight.fight_pass, name="fight_pass"),
    path("c/<slug:slug>/combate/fin/", fight.fight_end, name="fight_end"),
    path("c/<slug:slug>/calculadora/", board.calculator, name="calculator"),
    # Setting a campaign up
    path("c/<slug:slug>/ajustes/", setup.campaign_settings, name="campaign_settings"),
    path("c/<slug:slug>/pj/", setup.character_list, name="character_list"),
    path("c/<slug:slug>/pj/nuevo/", setup.character_new, name="character_new"),
    path("c/<slug:slug>/pj/<int:pk>/editar/", setup.character_edit, name="character_edit"),
    path("c/<slug:slug>/pj/<int:pk>/archivar/", setup.character_archive, name="character_archive"),
    path("c/<slug:slug>/pj/<int:pk>/restaurar/", setup.character_restore, name="character_restore"),
    path("c/<slug:slug>/pnj/", pnj.pnj_list, name="pnj_list"),
    path("c/<slug:slug>/pnj/nuevos/", pnj.pnj_new, name="pnj_new"),
    path("c/<slug:slug>/pnj/<int:pk>/editar/", pnj.pnj_edit, name="pnj_edit"),
    path("c/<slug:slug>/pnj/<int:pk>/archivar/", pnj.pnj_archive, name="pnj_archive"),
    path("c/<slug:slug>/pnj/<int:pk>/restaurar/", pnj.pnj_restore, name="pnj_restore"),
    path("c/<slug:slug>/pnj/plantillas/nueva/", pnj.template_new, name="template_new"),
    path("c/<slug:slug>/pnj/plantillas/<int:pk>/", pnj.template_edit, name="template_edit"),
    path(
        "c/<slug:slug>/pnj/plantillas/<int:pk>/crear/",
        pnj.template_copies,
        name="template_copies",
    ),
    path(
        "c/<slug:slug>/pnj/plantillas/<int:pk>/borrar/",
        pnj.template_delete,
        name="template_delete",
    ),
    path("c/<slug:slug>/catalogo/", setup.catalogue, name="catalogue"),
    path("c/<slug:slug>/catalogo/<int:pk>/", setup.catalogue_edit, name="catalogue_edit"),
    path(
        "c/<slug:slug>/catalogo/<int:pk>/borrar/", setup.catalogue_delete, name="catalogue_delete"
    ),
    path("c/<slug:slug>/sesion/empezar/", setup.session_start, name="session_start"),
    path("c/<slug:slug>/sesion/terminar/", setup.session_end, name="session_end"),
    path(
        "c/<slug:slug>/sesion/<int:number>/linea.svg",
        timeline.session_timeline_svg,
        name="session_timeline_svg",
    ),
    # Players: invitations (the DJ's side), joining, and each player's sheet
    path("c/<slug:slug>/jugadores/", players.players, name="players"),
    path("c/<slug:slug>/pj/<int:pk>/invitar/", players.invite, name="invite"),
    path(
        "c/<slug:slug>/invitacion/<int:pk>/cancelar/",
        players.invitation_cancel,
        name="invitation_cancel",
    ),
    path("c/<slug:slug>/pj/<int:pk>/quitar-jugador/", players.player_remove, name="player_remove"),
    path("unirse/", players.join_code, name="join_code"),
    path("c/<slug:slug>/jugadores/<int:pk>/clave/", players.password_link, name="password_link"),
    path("unirse/<str:token>/", players.join, name="join"),
    path("c/<slug:slug>/pj/<int:pk>/hoja/", sheet.sheet, name="sheet"),
    path("c/<slug:slug>/pj/<int:pk>/hoja/refrescar/", sheet.sheet_refresh, name="sheet_refresh"),
    path("c/<slug:slug>/pj/<int:pk>/hoja/tirar/", sheet.sheet_roll, name="sheet_roll"),
    # Session history: the audit trail, recaps, end-of-session sheets, exports
    path("c/<slug:slug>/historia/", history.campaign_history, name="history"),
    path("c/<slug:slug>/sesion/<int:number>/", history.session_detail, name="session_detail"),
    path("c/<slug:slug>/sesion/<int:number>/resumen/", history.session_recap, name="session_recap"),
    path("c/<slug:slug>/sesion/<int:number>/hojas/", history.session_sheets, name="session_sheets"),
    path(
        "c/<slug:slug>/sesion/<int:number>/registro.<str:fmt>",
        history.session_log,
        name="session_log",
    ),
    path("c/<slug:slug>/evento/<int:seq>/", history.event_detail, name="event_detail"),
    path("c/<slug:slug>/evento/<int:seq>/anular/", history.event_void, name="event_void"),
    path("c/<slug:slug>/pj/<int:pk>/cartas/", history.character_cards, name="character_cards"),
    # Backups: the DJ's download of a campaign, and importing one as a new campaign
    path("c/<slug:slug>/copia/", backup.campaign_export, name="campaign_export"),
    path("campanas/importar/", backup.campaign_import, name="campaign_import"),
    # The installable app: its service worker must be served from the root to cover it all
    path("sw.js", pwa.service_worker, name="service_worker"),
    # The live channel: one stream per browser, for every campaign its pages show (SSE, and
    # polling where SSE cannot pass)
    path("en-vivo/", live.stream, name="live_stream"),
    path("en-vivo/cambios/", live.changes, name="live_changes"),
]
