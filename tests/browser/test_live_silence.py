"""A network that stops passing anything without closing the connection (a flaky Wi-Fi, a
phone between cells): the page hears nothing, and nothing tells the browser the stream is
dead. The server says something at least every 15 s, so a page that heard nothing for
longer says it is reconnecting, opens the stream anew, and catches up once the network
passes again (static/js/live/stream.js, SILENT_MS)."""

import re
import socket
import threading
from urllib.parse import urlsplit

from playwright.sync_api import expect

from tests.browser.conftest import log_in, screenshot
from tests.browser.test_sheet import PHONE, make_table, record

SILENT = 90_000  # ms: the page's 40 s of silence, then a reconnection (a safety net)


class Stall:
    """A TCP relay to the app that can stop passing bytes, both ways, without closing."""

    def __init__(self, target: tuple[str, int]) -> None:
        self.target = target
        self.flowing = threading.Event()
        self.flowing.set()
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.closed = False
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while not self.closed:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            upstream = socket.create_connection(self.target)
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pipe, args=(a, b), daemon=True).start()

    def _pipe(self, source: socket.socket, sink: socket.socket) -> None:
        try:
            while chunk := source.recv(65536):
                self.flowing.wait()  # stalled: held here, the connection left open
                sink.sendall(chunk)
        except OSError:
            pass
        finally:
            for end in (source, sink):
                try:
                    end.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

    def close(self) -> None:
        self.closed = True
        self.flowing.set()
        self.listener.close()


def test_a_sheet_whose_network_went_silent_says_so_and_catches_up(browser, app_url):
    table = make_table()
    aiko = table["aiko"]
    where = urlsplit(app_url)
    stall = Stall((where.hostname, where.port))
    base = f"http://127.0.0.1:{stall.port}"
    context = browser.new_context(viewport=PHONE, locale="es-ES", service_workers="block")
    log_in(context, base, table["mei"])
    page = context.new_page()
    try:
        page.goto(f"{base}/c/kiso/pj/{aiko.pk}/hoja/")
        live = page.locator("#live")
        expect(live).to_have_attribute("data-state", "open")
        banner = page.locator("#offline")

        stall.flowing.clear()  # the network passes nothing, and closes nothing
        record(aiko, kind="suffer", type="heridas", grade="leve")  # the DJ goes on

        expect(live).to_have_attribute("data-state", "reconnecting", timeout=SILENT)
        expect(banner).to_have_text(re.compile(r"^Sin conexión · actualizado \d\d:\d\d$"))
        screenshot(page, "sheet-silent-network-360")
        expect(page.get_by_role("img", name="Heridas leve: marcada")).to_have_count(0)

        stall.flowing.set()  # the network passes again
        expect(page.get_by_role("img", name="Heridas leve: marcada")).to_be_visible()
        expect(live).to_have_attribute("data-state", "open")
        expect(banner).to_be_hidden()
    finally:
        context.close()
        stall.close()
