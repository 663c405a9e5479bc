"""URL routes: the campaign app, authentication, language switch and admin."""

from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path

from campaign.views import accounts

urlpatterns = [
    path("", include("campaign.urls")),
    path(
        "accounts/login/",
        auth_views.LoginView.as_view(redirect_authenticated_user=True),
        name="login",
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
