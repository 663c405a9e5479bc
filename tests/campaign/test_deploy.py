"""Production settings: `check --deploy` is clean, and an unsafe setup refuses to start."""

import os
import secrets
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def manage(*args: str, **env: str) -> subprocess.CompletedProcess:
    environment = {k: v for k, v in os.environ.items() if k not in ("DEBUG", "SECRET_KEY")}
    environment.update(env)
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=environment,
        capture_output=True,
        text=True,
        timeout=120,
    )


PRODUCTION = {
    "DEBUG": "false",
    "SECRET_KEY": secrets.token_urlsafe(50),
    "ALLOWED_HOSTS": "zodiac.example.com",
    "CSRF_TRUSTED_ORIGINS": "https://zodiac.example.com",
}


def test_check_deploy_is_clean_in_production_settings():
    result = manage("check", "--deploy", "--fail-level", "WARNING", **PRODUCTION)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout


def test_production_settings_use_secure_cookies_and_hsts():
    code = (
        "from django.conf import settings as s; "
        "print(s.SESSION_COOKIE_SECURE, s.CSRF_COOKIE_SECURE, s.SECURE_HSTS_SECONDS > 0, "
        "s.SECURE_SSL_REDIRECT, s.DEBUG)"
    )
    result = manage("shell", "--no-imports", "-c", code, **PRODUCTION)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["True", "True", "True", "True", "False"]


def test_production_refuses_to_start_without_a_real_secret_key():
    unset = {k: v for k, v in PRODUCTION.items() if k != "SECRET_KEY"}
    result = manage("check", **unset)
    assert result.returncode != 0
    assert "SECRET_KEY" in result.stderr

    weak = manage("check", **{**PRODUCTION, "SECRET_KEY": "django-insecure-" + "x" * 60})
    assert weak.returncode != 0
    assert "SECRET_KEY" in weak.stderr


def test_a_debug_value_that_is_not_yes_or_no_is_refused():
    result = manage("check", DEBUG="maybe")
    assert result.returncode != 0
    assert "DEBUG" in result.stderr


def render(dest: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "deploy/render.py", str(dest), "--domain", "zodiac.example.com", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )


def env_file(path: Path) -> dict[str, str]:
    lines = path.read_text().splitlines()
    return dict(line.split("=", 1) for line in lines if line and not line.startswith("#"))


def test_the_settings_deploy_renders_are_the_hosts_behind_nginx(tmp_path):
    render(tmp_path, "--database-url", "postgres://zodiac@127.0.0.1:5432/zodiac")
    settings = env_file(tmp_path / "etc/zodiac/zodiac.env")
    code = (
        "from django.conf import settings as s; "
        "print(s.SECURE_PROXY_SSL_HEADER, s.SESSION_COOKIE_SECURE, s.CSRF_COOKIE_SECURE, "
        "s.SECURE_HSTS_SECONDS, s.CSRF_TRUSTED_ORIGINS, "
        "s.DATABASES['default']['OPTIONS']['pool']['max_size'], sep='|')"
    )

    checked = manage("check", "--deploy", "--fail-level", "WARNING", **settings)
    result = manage("shell", "--no-imports", "-c", code, **settings)

    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().split("|") == [
        "('HTTP_X_FORWARDED_PROTO', 'https')",
        "True",
        "True",
        "31536000",
        "['https://zodiac.example.com']",
        "8",
    ]


def test_rendering_again_keeps_the_secret_key_and_what_a_file_held_before(tmp_path):
    site = tmp_path / "etc/nginx/sites-available/zodiac"
    site.parent.mkdir(parents=True)
    site.write_text("the host's own site\n")
    render(tmp_path)
    key = env_file(tmp_path / "etc/zodiac/zodiac.env")["SECRET_KEY"]

    again = render(tmp_path, "--processes", "2")

    assert env_file(tmp_path / "etc/zodiac/zodiac.env")["SECRET_KEY"] == key
    assert "kept" in again.stdout
    assert (tmp_path / "etc/nginx/sites-available/zodiac.before-zodiac").read_text() == (
        "the host's own site\n"
    )
    assert site.read_text().count("server 127.0.0.1:") == 2
    assert len(key) >= 50 and (tmp_path / "etc/zodiac/zodiac.env").stat().st_mode & 0o007 == 0
