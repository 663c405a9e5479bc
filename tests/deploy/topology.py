"""The hosted topology on one machine, from deploy/'s own files: PostgreSQL, N app
processes and nginx over HTTPS, on loopback, in a temporary folder.

deploy/render.py renders the templates a host installs into that folder, with ports and
paths of the run's own; each app process is started as its systemd unit says (its
ExecStart, WorkingDirectory and EnvironmentFile, the instance `%i` its port), and nginx
with the rendered nginx.conf, its pid, logs and temporary files in the folder. The
certificate is a self-signed one made for the run (openssl); nothing secret is kept.

nginx never runs as root: run by root (CI), it runs as `nobody`. The app processes run as
whoever runs this (under CI root: the venv's Python may sit in root's home). PostgreSQL
runs as `postgres` when this is root (bench/_pg.py).

One process can reach PostgreSQL through a relay of this process's (`relay_for`), which
`cut()` closes: that process's database connection is dead, and new ones are refused,
until `restore()`.
"""

from __future__ import annotations

import asyncio
import contextlib
import grp
import json
import os
import pwd
import re
import resource
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from tests.deploy.clients import Site
from tests.waiting import wait_until

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))

from _pg import free_port, throwaway_postgresql  # noqa: E402

DOMAIN = "localhost"
STARTUP = 60.0  # seconds for a server to say it listens: a safety net, never a measure
UNPRIVILEGED = "nobody"  # who runs nginx when this runs as root


def raise_open_files() -> None:
    """Every open page is a connection: the soft limit up to the hard one (inherited)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


def read_env_file(path: Path) -> dict[str, str]:
    """A systemd EnvironmentFile: KEY=VALUE lines, comments and blanks skipped."""
    found = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        line = line.strip()
        if line and not line.startswith("#") and "=" in line:
            key, value = line.split("=", 1)
            found[key.strip()] = value.strip()
    return found


def unit_field(unit: str, name: str) -> str:
    found = re.search(rf"^{name}=(.+)$", unit, re.M)
    if found is None:
        raise RuntimeError(f"zodiac@.service has no {name}=")
    return found.group(1).strip()


class Relay:
    """A TCP relay to PostgreSQL for one app process, which the check can cut."""

    def __init__(self, target: tuple[str, int]) -> None:
        self.target = target
        self.port = free_port()
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.server: asyncio.Server | None = None
        self.pipes: set[asyncio.StreamWriter] = set()
        self.restore()

    def _call(self, coroutine):
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result(timeout=STARTUP)

    async def _pipe(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while data := await reader.read(1 << 16):
                writer.write(data)
                await writer.drain()
        except (OSError, asyncio.CancelledError):
            pass
        finally:
            writer.close()

    async def _client(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            up_reader, up_writer = await asyncio.open_connection(*self.target)
        except OSError:
            writer.close()
            return
        self.pipes |= {writer, up_writer}
        await asyncio.gather(self._pipe(reader, up_writer), self._pipe(up_reader, writer))
        self.pipes -= {writer, up_writer}

    def restore(self) -> None:
        """Accept connections again (on the same port)."""

        async def listen():
            self.server = await asyncio.start_server(self._client, "127.0.0.1", self.port)

        self._call(listen())

    def cut(self) -> None:
        """Close every connection through the relay and refuse new ones."""

        async def close():
            if self.server is not None:
                self.server.close()
                self.server = None
            for writer in list(self.pipes):
                writer.transport.abort()
            self.pipes.clear()

        self._call(close())

    def close(self) -> None:
        self.cut()
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(timeout=STARTUP)


@dataclass
class LogLine:
    """One request in nginx's access log (the `zodiac` format of deploy/nginx/zodiac.conf)."""

    request: str
    status: int
    upstreams: list[str]  # the app processes tried, in order ("127.0.0.1:8001")
    upstream_statuses: list[str]


LOG_LINE = re.compile(
    r'"(?P<request>[^"]*)" (?P<status>\d{3}) .* up="(?P<up>[^"]*)" us="(?P<us>[^"]*)"'
)


class Topology:
    """PostgreSQL, `processes` app processes and nginx, from deploy/'s files (a context
    manager: everything is stopped and removed on exit)."""

    def __init__(self, processes: int = 4, *, relay_last: bool = False) -> None:
        self.count = processes
        self.relay_last = relay_last
        self.stack = contextlib.ExitStack()
        self.apps: dict[int, subprocess.Popen] = {}
        self.listening: dict[int, threading.Event] = {}
        self.relay: Relay | None = None
        self.nginx: subprocess.Popen | None = None

    # --- start and stop ------------------------------------------------------------------

    def __enter__(self) -> Topology:
        try:
            self._start()
        except BaseException:
            self.stack.close()
            raise
        return self

    def __exit__(self, *exc) -> None:
        self.stack.close()

    def _start(self) -> None:
        raise_open_files()
        self.tmp = Path(tempfile.mkdtemp(prefix="zodiac-topology."))
        self.tmp.chmod(0o755)
        if not os.environ.get("KEEP_TOPOLOGY"):  # KEEP_TOPOLOGY=1 keeps its logs to read
            self.stack.callback(shutil.rmtree, self.tmp, ignore_errors=True)
        url = self.stack.enter_context(throwaway_postgresql("the topology's PostgreSQL"))
        if url is None:
            raise RuntimeError("PostgreSQL cannot run here (see above): the check needs it")
        self.database_url = url
        self.https_port, self.http_port = free_port(), free_port()
        first = free_port()
        while any(not _free(port) for port in range(first, first + self.count)):
            first = free_port()
        self.ports = list(range(first, first + self.count))
        self._certificate()
        self._render()
        self.env = self._process_env()
        self.manage("migrate", "--noinput", "-v0")
        self.manage("collectstatic", "--noinput", "-v0")
        if self.relay_last:
            parts = urlsplit(self.database_url)
            self.relay = Relay((parts.hostname or "127.0.0.1", parts.port or 5432))
            self.stack.callback(self.relay.close)
        self.stack.callback(self._stop_apps)
        for port in self.ports:
            self.start_app(port)
        for port in self.ports:
            self.wait_listening(port)
        self._start_nginx()
        self.site = Site(DOMAIN, self.https_port, self.cert)

    def _certificate(self) -> None:
        tls = self.tmp / "tls"
        tls.mkdir()
        self.cert, self.key = tls / "cert.pem", tls / "key.pem"
        subprocess.run(
            ["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1"]
            + ["-nodes", "-days", "2", "-subj", f"/CN={DOMAIN}"]
            + ["-addext", f"subjectAltName=DNS:{DOMAIN}", "-keyout", str(self.key)]
            + ["-out", str(self.cert)],
            check=True,
            capture_output=True,
            timeout=STARTUP,
        )

    def _render(self) -> None:
        self.root = self.tmp / "root"
        self.nginx_dir = self.tmp / "nginx"
        self.nginx_dir.mkdir()
        self.static_root = self.tmp / "static"
        subprocess.run(
            [sys.executable, ROOT / "deploy" / "render.py", self.root, "--domain", DOMAIN]
            + ["--app-dir", str(ROOT), "--user", pwd.getpwuid(os.geteuid()).pw_name]
            + ["--processes", str(self.count), "--first-port", str(self.ports[0])]
            + ["--https-port", str(self.https_port), "--http-port", str(self.http_port)]
            + ["--listen", "127.0.0.1", "--cert", str(self.cert), "--key", str(self.key)]
            + ["--static-root", str(self.static_root), "--database-url", self.database_url]
            + ["--nginx-prefix", str(self.nginx_dir)],
            check=True,
            capture_output=True,
            timeout=STARTUP,
        )
        self.unit = (self.root / "etc/systemd/system/zodiac@.service").read_text()

    def _process_env(self) -> dict[str, str]:
        """What systemd gives a unit: a plain PATH, and its EnvironmentFile."""
        env_file = Path(unit_field(self.unit, "EnvironmentFile"))
        return {
            "PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
            "LANG": "C.UTF-8",
            "HOME": str(self.tmp),
            **read_env_file(env_file),
        }

    def manage(self, *args: str) -> str:
        """manage.py with the processes' settings; its standard output."""
        result = subprocess.run(
            [sys.executable, "manage.py", *args],
            cwd=ROOT,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=600,
        )
        if result.returncode:
            raise RuntimeError(f"manage.py {args[0]} failed: {result.stderr[-2000:]}")
        return result.stdout

    def django(self, code: str) -> object:
        """Run `code` in a Django shell with the processes' settings; the JSON it prints
        last."""
        out = self.manage("shell", "--no-imports", "-c", code)
        return json.loads(out.strip().splitlines()[-1])

    def start_app(self, port: int) -> None:
        """Start the app process on `port` as its unit does (and as Restart= does)."""
        command = shlex.split(unit_field(self.unit, "ExecStart").replace("%i", str(port)))
        env = dict(self.env)
        if self.relay is not None and port == self.ports[-1]:
            env["DATABASE_URL"] = re.sub(
                r"@[^/]+/", f"@127.0.0.1:{self.relay.port}/", env["DATABASE_URL"]
            )
        log = open(self.tmp / f"app-{port}.log", "ab")
        process = subprocess.Popen(
            command,
            cwd=unit_field(self.unit, "WorkingDirectory"),
            env=env,
            stdout=log,
            stderr=subprocess.PIPE,
            start_new_session=True,
        )
        listening = threading.Event()

        def read() -> None:
            with log:
                for line in process.stderr:
                    log.write(line)
                    log.flush()
                    if b"Uvicorn running on" in line:
                        listening.set()

        threading.Thread(target=read, daemon=True).start()
        self.apps[port], self.listening[port] = process, listening

    def wait_listening(self, port: int) -> None:
        process = self.apps[port]
        if not self.listening[port].wait(STARTUP):
            raise RuntimeError(f"the app process on {port} did not start: {self.log(port)}")
        if process.poll() is not None:
            raise RuntimeError(f"the app process on {port} exited: {self.log(port)}")

    def log(self, port: int) -> str:
        return (self.tmp / f"app-{port}.log").read_text(errors="replace")[-3000:]

    def kill(self, port: int, sig: int = signal.SIGKILL) -> None:
        process = self.apps[port]
        os.kill(process.pid, sig)
        process.wait(timeout=STARTUP)

    def _stop_apps(self) -> None:
        for process in self.apps.values():
            if process.poll() is None:
                process.terminate()
        for process in self.apps.values():
            try:
                process.wait(timeout=STARTUP)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout=STARTUP)

    def pid(self, port: int) -> int:
        return self.apps[port].pid

    def _start_nginx(self) -> None:
        conf = self.root / "etc/nginx/nginx.conf"
        command = ["/usr/sbin/nginx", "-e", "stderr", "-c", str(conf), "-g", "daemon off;"]
        # nginx never runs as root here. Switched to directly (not through runuser's PAM
        # session, which sets the open files back to 1,024), it keeps this process's limit.
        user = {}
        if os.geteuid() == 0:
            shutil.chown(self.nginx_dir, UNPRIVILEGED)
            shutil.chown(self.key, UNPRIVILEGED)
            user = {
                "user": UNPRIVILEGED,
                "group": grp.getgrgid(pwd.getpwnam(UNPRIVILEGED).pw_gid).gr_name,
                "extra_groups": [],
            }
        check = subprocess.run(
            [*command[:-2], "-t"], capture_output=True, text=True, timeout=STARTUP, **user
        )
        if check.returncode:
            raise RuntimeError(f"nginx -t failed: {check.stderr}")
        self.nginx = subprocess.Popen(
            command,
            **user,
            stdout=subprocess.DEVNULL,
            stderr=open(self.nginx_dir / "stderr.log", "ab"),
            start_new_session=True,
        )
        self.stack.callback(self._stop_nginx)
        wait_until(lambda: self.nginx.poll() is not None or not _free(self.https_port), "nginx")
        if self.nginx.poll() is not None:
            raise RuntimeError(f"nginx exited: {(self.nginx_dir / 'stderr.log').read_text()}")

    def _stop_nginx(self) -> None:
        if self.nginx is not None and self.nginx.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.nginx.pid, signal.SIGTERM)
            try:
                self.nginx.wait(timeout=STARTUP)
            except subprocess.TimeoutExpired:
                os.killpg(self.nginx.pid, signal.SIGKILL)
                self.nginx.wait(timeout=STARTUP)

    # --- what the check reads --------------------------------------------------------------

    def access_log(self) -> list[LogLine]:
        path = self.nginx_dir / "zodiac.access.log"
        if not path.exists():
            return []
        found = []
        for line in path.read_text(errors="replace").splitlines():
            match = LOG_LINE.search(line)
            if match:
                found.append(
                    LogLine(
                        match["request"],
                        int(match["status"]),
                        [u.strip() for u in re.split(r"[,:] ", match["up"]) if u.strip() != "-"],
                        [s.strip() for s in re.split(r"[,:] ", match["us"]) if s.strip() != "-"],
                    )
                )
        return found

    def address(self, port: int) -> str:
        return f"127.0.0.1:{port}"

    def established(self, port: int) -> int:
        """How many connections the app process on `port` holds open now."""
        return _established(self.pid(port), port)


def _free(port: int) -> bool:
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
        return True


def _established(pid: int, port: int) -> int:
    inodes = set()
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        fields = line.split()
        if fields[3] == "01" and int(fields[1].rsplit(":", 1)[1], 16) == port:
            inodes.add(f"socket:[{fields[9]}]")
    count = 0
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        with contextlib.suppress(OSError):
            count += os.readlink(fd) in inodes
    return count
