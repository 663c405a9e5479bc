"""The whole database to a file and back, for the server's owner (not one campaign: that is
the campaign backup beside this module).

SQLite: an online, consistent copy with `VACUUM INTO` (the server may keep running), and a
restore through SQLite's backup API, page by page, into the open database. PostgreSQL:
`pg_dump --format=custom` and `pg_restore --clean`, with the connection Django uses.
"""

import os
import shutil
import sqlite3
import subprocess
from pathlib import Path

from django.db import connection


class DatabaseCopyError(Exception):
    """The copy or the restore could not be made; the message says why."""


def _vendor() -> str:
    if connection.vendor not in ("sqlite", "postgresql"):
        raise DatabaseCopyError(f"No backup for a {connection.vendor} database.")
    return connection.vendor


def _pg_command(program: str) -> tuple[list[str], dict]:
    found = shutil.which(program)
    if found is None:
        raise DatabaseCopyError(
            f"{program} is not installed (Debian: apt install postgresql-client)."
        )
    settings = connection.settings_dict
    args = [found, "--no-password"]
    for flag, key in (("--host", "HOST"), ("--port", "PORT"), ("--username", "USER")):
        if settings.get(key):
            args += [flag, str(settings[key])]
    env = {**os.environ}
    if settings.get("PASSWORD"):
        env["PGPASSWORD"] = str(settings["PASSWORD"])
    return args, env


def database_backup(path: Path) -> None:
    """Write the whole database to `path` (which must not exist yet)."""
    vendor = _vendor()
    if path.exists():
        raise DatabaseCopyError(f"{path} exists already: choose a new file.")
    if vendor == "sqlite":
        connection.ensure_connection()
        with connection.cursor() as cursor:
            cursor.execute("VACUUM INTO %s", [str(path)])
        return
    args, env = _pg_command("pg_dump")
    args += ["--format=custom", "--file", str(path), connection.settings_dict["NAME"]]
    done = subprocess.run(args, env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        path.unlink(missing_ok=True)
        raise DatabaseCopyError(done.stderr.strip() or "pg_dump failed.")


def database_restore(path: Path) -> None:
    """Replace the whole database with the copy in `path` (stop the server first)."""
    vendor = _vendor()
    if not path.is_file():
        raise DatabaseCopyError(f"{path} is not a file.")
    if vendor == "sqlite":
        try:
            source = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
            source.execute("PRAGMA schema_version").fetchone()  # refuses a non-SQLite file
        except sqlite3.DatabaseError as err:
            raise DatabaseCopyError(f"{path} is not an SQLite database: {err}") from None
        connection.ensure_connection()
        try:
            source.backup(connection.connection)
        finally:
            source.close()
        return
    connection.close()  # pg_restore --clean drops what this connection may hold open
    args, env = _pg_command("pg_restore")
    args += [
        "--clean",
        "--if-exists",
        "--no-owner",
        "--single-transaction",
        "--dbname",
        connection.settings_dict["NAME"],
        str(path),
    ]
    done = subprocess.run(args, env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise DatabaseCopyError(done.stderr.strip() or "pg_restore failed.")
