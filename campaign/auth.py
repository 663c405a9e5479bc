"""Logging in by username whatever its case: "Mei" and "mei" are one account."""

from django.contrib.auth import get_user_model
from django.contrib.auth.backends import ModelBackend


class UsernameAnyCaseBackend(ModelBackend):
    """Django's ModelBackend, finding the account by its username in any case first.
    Sign-up keeps usernames unique whatever their case (campaign.forms.AccountForm)."""

    def authenticate(self, request, username=None, password=None, **kwargs):
        if isinstance(username, str) and username:
            users = get_user_model()._default_manager.filter(username__iexact=username)
            found = list(users.values_list("username", flat=True)[:2])
            if len(found) == 1:
                username = found[0]
        return super().authenticate(request, username=username, password=password, **kwargs)
