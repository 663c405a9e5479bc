from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class CampaignConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "campaign"
    verbose_name = _("Campaigns")

    def ready(self) -> None:
        from django.contrib.auth.signals import user_logged_out

        from . import fastpath

        def forget_fast_refreshes(sender, request, **kwargs) -> None:
            fastpath.revoke(session_key=getattr(request.session, "session_key", None))

        user_logged_out.connect(forget_fast_refreshes, dispatch_uid="fastpath-logout")
