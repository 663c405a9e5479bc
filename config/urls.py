"""URL routes: the campaign app, authentication, language switch and admin."""

from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path, reverse_lazy

from campaign.views import accounts

urlpatterns = [
    path("", include("campaign.urls")),
    path("accounts/login/", accounts.LoginView.as_view(), name="login"),
    path("accounts/registro/", accounts.signup, name="signup"),
    # The one-time link a DJ gives a player who forgot their password (no e-mail).
    path(
        "accounts/nueva-clave/<uidb64>/<token>/",
        auth_views.PasswordResetConfirmView.as_view(
            success_url=reverse_lazy("password_reset_complete")
        ),
        name="password_reset_confirm",
    ),
    path(
        "accounts/nueva-clave/hecho/",
        auth_views.PasswordResetCompleteView.as_view(),
        name="password_reset_complete",
    ),
    path("accounts/logout/", accounts.LogoutView.as_view(), name="logout"),
    path(
        "accounts/contrasena/",
        auth_views.PasswordChangeView.as_view(),
        name="password_change",
    ),
    path(
        "accounts/contrasena/hecho/",
        auth_views.PasswordChangeDoneView.as_view(),
        name="password_change_done",
    ),
    path("i18n/", include("django.conf.urls.i18n")),
    path("admin/", admin.site.urls),
]

# The 500 page, or the 503 one while this process cannot reach its database.
handler500 = "campaign.views.errors.server_error_page"
