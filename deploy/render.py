"""Render deploy/'s templates for one host: nginx, the app's systemd units, its settings.

    sudo python3 deploy/render.py --domain zodiac.example.org /

writes, under the folder given (`/` on the host itself):

    etc/nginx/nginx.conf                   Debian's, with room for the live streams
    etc/nginx/sites-available/zodiac       HTTPS in front of the app processes
    etc/nginx/sites-enabled/zodiac         a link to it
    etc/systemd/system/zodiac@.service     one app process (the instance is its port)
    etc/systemd/system/zodiac.target       every app process
    etc/zodiac/zodiac.env                  the app's settings, only when missing (a fresh
                                           secret key; never overwritten)

A file it replaces with other content is kept once beside it as FILE.before-zodiac.
The topology check (`make deploy-check`) renders the same templates into a temporary
folder, with its own ports and paths (`--nginx-prefix`: an nginx that runs as any user).
Python's standard library only: it runs with the host's python3 before any venv exists.
"""

from __future__ import annotations

import argparse
import os
import pwd
import secrets
import shutil
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent

# template -> where it goes under the destination folder
FILES = {
    "nginx/nginx.conf": "etc/nginx/nginx.conf",
    "nginx/zodiac.conf": "etc/nginx/sites-available/zodiac",
    "systemd/zodiac@.service": "etc/systemd/system/zodiac@.service",
    "systemd/zodiac.target": "etc/systemd/system/zodiac.target",
}
ENV_TEMPLATE, ENV_FILE = "zodiac.env", "etc/zodiac/zodiac.env"


def ports(first: int, count: int) -> list[int]:
    return list(range(first, first + count))


def values(args: argparse.Namespace, dest: Path) -> dict[str, str]:
    """Each @NAME@ of the templates and what it becomes."""
    etc = (dest.resolve() / "etc").as_posix()
    https = f"{args.domain}" if args.https_port == 443 else f"{args.domain}:{args.https_port}"

    def listen(port: int, extra: str = "") -> str:
        if args.listen:
            return f"\tlisten {args.listen}:{port}{extra};"
        return f"\tlisten {port}{extra};\n\tlisten [::]:{port}{extra};"

    if args.nginx_prefix:  # an nginx of its own, run by whoever starts it
        prefix = Path(args.nginx_prefix).resolve().as_posix()
        nginx = {
            "NGINX_USER": "# No `user`: this nginx runs as whoever starts it.",
            "NGINX_PID": f"{prefix}/nginx.pid",
            "NGINX_LOGS": prefix,
            "NGINX_TEMP": prefix,
        }
    else:  # Debian's paths
        nginx = {
            "NGINX_USER": "user www-data;",
            "NGINX_PID": "/run/nginx.pid",
            "NGINX_LOGS": "/var/log/nginx",
            "NGINX_TEMP": "/var/lib/nginx",
        }
    app = Path(args.app_dir).resolve().as_posix()
    processes = ports(args.first_port, args.processes)
    return {
        **nginx,
        "ETC": etc,
        "DOMAIN": args.domain,
        "APP_DIR": app,
        "USER": args.user,
        "STATIC_ROOT": args.static_root or f"{app}/staticfiles",
        "TLS_CERT": args.cert or f"/etc/letsencrypt/live/{args.domain}/fullchain.pem",
        "TLS_KEY": args.key or f"/etc/letsencrypt/live/{args.domain}/privkey.pem",
        "HTTPS_AUTHORITY": https,
        "LISTEN_HTTP": listen(args.http_port, " default_server"),
        "LISTEN_HTTPS": listen(args.https_port, " ssl http2"),
        "LISTEN_HTTPS_DEFAULT": listen(args.https_port, " ssl http2 default_server"),
        "UPSTREAM_SERVERS": "\n".join(
            f"\tserver 127.0.0.1:{port} max_fails=1 fail_timeout=5s;" for port in processes
        ),
        "INSTANCES": " ".join(f"zodiac@{port}.service" for port in processes),
        "DATABASE_URL": args.database_url,
    }


def render(template: str, found: dict[str, str]) -> str:
    text = (HERE / template).read_text(encoding="utf-8")
    for name, value in found.items():
        text = text.replace(f"@{name}@", value)
    if "@" in text.replace("zodiac@", ""):
        left = [word for word in text.split() if word.count("@") >= 2 and "zodiac@" not in word]
        if left:
            raise SystemExit(f"{template}: placeholders left unrendered: {left}")
    return text


def write(path: Path, text: str, mode: int = 0o644) -> None:
    """Write `path`, keeping what it held before once as FILE.before-zodiac."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.exists() and path.read_text(encoding="utf-8") != text:
        kept = path.with_name(path.name + ".before-zodiac")
        if not kept.exists():
            shutil.copy2(path, kept)
    path.write_text(text, encoding="utf-8")
    path.chmod(mode)
    print(f"wrote {path}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dest", type=Path, help="the folder to write under: / on the host")
    parser.add_argument("--domain", required=True, help="the site's name, e.g. zodiac.example.org")
    parser.add_argument("--app-dir", default=str(HERE.parent), help="the checkout (this one)")
    parser.add_argument("--user", default="zodiac", help="the app processes' user (zodiac)")
    parser.add_argument("--processes", type=int, default=4, help="app processes (4)")
    parser.add_argument("--first-port", type=int, default=8001, help="the first one's (8001)")
    parser.add_argument("--https-port", type=int, default=443)
    parser.add_argument("--http-port", type=int, default=80)
    parser.add_argument("--listen", default="", help="nginx's address (default: every one)")
    parser.add_argument("--cert", help="the certificate chain (default: Let's Encrypt's)")
    parser.add_argument("--key", help="its private key (default: Let's Encrypt's)")
    parser.add_argument("--static-root", help="collectstatic's folder (APP_DIR/staticfiles)")
    parser.add_argument("--database-url", default="postgres:///zodiac")
    parser.add_argument(
        "--nginx-prefix", help="pid, logs and temporary files of an nginx run as any user"
    )
    args = parser.parse_args(argv)
    if args.processes < 1:
        parser.error("--processes must be at least 1")
    found = values(args, args.dest)
    for template, target in FILES.items():
        write(args.dest / target, render(template, found))
    link = args.dest / "etc/nginx/sites-enabled/zodiac"
    link.parent.mkdir(parents=True, exist_ok=True)
    if not link.is_symlink():
        link.symlink_to("../sites-available/zodiac")
        print(f"linked {link}")
    env = args.dest / ENV_FILE
    if env.exists():
        print(f"kept {env} (it holds the secret key: edit it by hand)")
    else:
        found["SECRET_KEY"] = secrets.token_urlsafe(50)
        write(env, render(ENV_TEMPLATE, found), mode=0o640)
        if os.geteuid() == 0:
            try:
                group = pwd.getpwnam(args.user).pw_gid
            except KeyError:
                print(f"no user {args.user} yet: chgrp {args.user} {env} once it exists")
            else:
                os.chown(env, 0, group)
    if (args.dest / "etc/nginx/sites-enabled/default").exists():
        print("Debian's default site is enabled too: rm /etc/nginx/sites-enabled/default")
    return 0


if __name__ == "__main__":
    sys.exit(main())
