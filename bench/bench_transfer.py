"""Bytes on the wire: each page and live part plain and gzipped, and what gzip costs.

Target (the transfer audit: "HTML pages go uncompressed"): every page below at least 3x
smaller gzipped, as a browser that sends `Accept-Encoding: gzip` (every one does) gets it:
the demo's board and history (`manage.py demo`), the heavy board (bench_board's heaviest
state, 8 PJ in a fight), its history, a PJ's sheet, a card's answer to a tap (htmx), the
board's live refresh (`refrescar`).

Reported without a target: a live `change` message for 1 and for 8 cards, as the DJ's
stream carries it (the cards and panels rendered), plain and gzipped, both first on a
fresh stream and after other messages (the stream keeps one compressor, whose window holds
what came before); the CPU time of gzip per page and per message; and the memory each
stream's compressor holds.

Sizes are of the body (the headers are the same either way but for `Content-Encoding`).
Pages go through Django's test client in this process, through the whole middleware chain.
The stream's messages are compressed with the stream's own compressor
(campaign.middleware.stream_compressor, what gzip_events runs: a chunk per message, each
flushed with Z_SYNC_FLUSH), beside Django's compress_sequence (what GZipMiddleware would
wrap the stream in: a GzipFile per stream) for comparison; that they also arrive one by
one through uvicorn is a test's (tests/campaign/test_live_server.py). The database is a
throwaway SQLite file.
"""

from __future__ import annotations

import gzip
import io
import statistics
import sys
import time
import zlib
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_board  # sets Django up on a throwaway database
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.test import Client
from django.utils.text import compress_sequence, compress_string

from campaign.live import parts
from campaign.live.views import _event
from campaign.management.commands.demo import DEMO_SLUG
from campaign.middleware import stream_compressor

RATIO = 3.0  # each page at least this many times smaller gzipped
GZIP = {"Accept-Encoding": "gzip, deflate"}
HX = {"HX-Request": "true"}
RUNS = 200
STREAMS = 200  # compressors held at once to measure the memory of one


def cpu_ms(work, runs: int = RUNS) -> float:
    """The median process CPU time of `work()`, in ms."""
    samples = []
    for _ in range(runs):
        t0 = time.process_time()
        work()
        samples.append(time.process_time() - t0)
    return statistics.median(samples) * 1000


def page(client: Client, method: str, url: str, data=None, headers=None) -> tuple[int, int]:
    """(plain bytes, gzipped bytes) of one answer, checked to be the same page."""
    call = client.post if method == "POST" else client.get
    headers = headers or {}
    plain = call(url, data, headers=headers)
    if method == "POST":
        data = {**data, "key": data["key"] + "-gz"}
    packed = call(url, data, headers={**headers, **GZIP})
    assert plain.status_code == packed.status_code == 200, (url, plain.status_code)
    assert "Content-Encoding" not in plain, url
    assert packed["Content-Encoding"] == "gzip", url
    assert len(gzip.decompress(packed.content)) == len(plain.content) or method == "POST", url
    return len(plain.content), len(packed.content)


def change_message(campaign, pks: list[int], cursor: int) -> str:
    """A DJ's `change` message for the cards `pks`, rendered as the stream renders it."""
    rendered = parts.render(campaign.pk, "es", parts.dj_keys(pks))
    data = {
        "campaign": campaign.pk,
        "after": cursor - 1,
        "cursor": cursor,
        "pj": pks,
        "all": False,
        "parts": {parts.key_name(k): html for k, html in rendered.items()},
        "view": "dj",
        "now": int(time.time() * 1000),
    }
    return _event("change", data, id=f"{campaign.pk}:{cursor}")


def flushed(compressor, message: bytes) -> bytes:
    """One message through a stream's compressor, flushed: what the stream sends for it."""
    return compressor.compress(message) + compressor.flush(zlib.Z_SYNC_FLUSH)


def stream_bytes(messages: list[str]) -> list[int]:
    """The bytes each message takes in one gzipped stream (its first chunk carries the
    10-byte gzip header)."""
    compressor = stream_compressor()
    return [len(flushed(compressor, m.encode())) for m in messages]


def rss_kib() -> int:
    status = Path("/proc/self/status").read_text()
    return next(int(line.split()[1]) for line in status.splitlines() if line[:6] == "VmRSS:")


def memory_per_stream(messages: list[bytes]) -> tuple[float, float]:
    """The resident KiB one stream's compressor holds once `messages` went through it: the
    stream's own, then Django's GzipFile (both kept, so neither reuses the other's memory)."""
    ours, djangos = [], []
    before = rss_kib()
    for _ in range(STREAMS):
        compressor = stream_compressor()
        for message in messages:
            flushed(compressor, message)
        ours.append(compressor)
    middle = rss_kib()
    for _ in range(STREAMS):
        sequence = compress_sequence(iter(messages), max_random_bytes=100)
        for _ in range(len(messages) + 1):  # its header, then a chunk per message
            next(sequence)
        djangos.append(sequence)
    return (middle - before) / STREAMS, (rss_kib() - middle) / STREAMS


def main() -> int:
    call_command("migrate", verbosity=0)
    heavy, party, dj = bench_board.build_heavy()
    client = Client()
    client.force_login(dj)
    slug, pj = heavy.slug, party[0]
    client.get(f"/c/{slug}/")  # warm the template and translation caches

    call_command("demo", stdout=io.StringIO())
    demo = Client()
    demo.force_login(get_user_model().objects.get(username="dj"))
    rows = {
        "demo board": page(demo, "GET", f"/c/{DEMO_SLUG}/"),
        "demo history": page(demo, "GET", f"/c/{DEMO_SLUG}/historia/"),
        "heavy board (8 PJ)": page(client, "GET", f"/c/{slug}/"),
        "heavy history": page(client, "GET", f"/c/{slug}/historia/"),
        "heavy sheet": page(client, "GET", f"/c/{slug}/pj/{pj.pk}/hoja/"),
        "card answer (tap)": page(
            client,
            "POST",
            f"/c/{slug}/pj/{pj.pk}/accion/",
            {"action": "suffer", "type_grade": "fatiga:leve", "key": "t1"},
            HX,
        ),
        "live refresh, 8 cards": page(client, "GET", f"/c/{slug}/refrescar/", {"all": "1"}, HX),
    }
    ok = True
    print(f"{'page':<24} {'plain':>9} {'gzip':>9} {'ratio':>6}")
    for name, (plain, packed) in rows.items():
        met = plain / packed >= RATIO
        ok &= met
        print(
            f"{name:<24} {plain:>9,} {packed:>9,} {plain / packed:>5.1f}x"
            f"{'' if met else f'  MISSED (target >= {RATIO:.0f}x)'}"
        )

    board = client.get(f"/c/{slug}/").content
    board_cpu = cpu_ms(lambda: compress_string(board, max_random_bytes=100), runs=50)
    print(f"gzip CPU of the heavy board: median {board_cpu:.2f} ms")

    heavy.refresh_from_db()
    cursor = heavy.change_cursor
    one = change_message(heavy, [pj.pk], cursor)
    eight = change_message(heavy, [p.pk for p in party], cursor)
    hello = _event("hello", {"now": 0, "gone": [], "access": {}}, id=f"{heavy.pk}:{cursor}")
    # First on a fresh stream, then after the other kind: what a stream really sends.
    fresh_one, fresh_eight = stream_bytes([one])[0], stream_bytes([eight])[0]
    warm = stream_bytes([hello, eight, one, eight, one])
    print()
    print(f"{'live change message':<24} {'plain':>9} {'gzip':>9} {'ratio':>6}")
    for name, plain, packed in (
        ("1 card, fresh stream", len(one.encode()), fresh_one),
        ("1 card, in a stream", len(one.encode()), warm[4]),
        ("8 cards, fresh stream", len(eight.encode()), fresh_eight),
        ("8 cards, in a stream", len(eight.encode()), warm[3]),
    ):
        print(f"{name:<24} {plain:>9,} {packed:>9,} {plain / packed:>5.1f}x")

    def in_stream(message: bytes, runs: int = RUNS) -> float:
        """CPU ms of one message through a stream's compressor after the same message
        (the window warm: the stream's usual case, a card much as it was)."""
        compressor = stream_compressor()
        flushed(compressor, message)  # the window is warm from here on
        return cpu_ms(lambda: flushed(compressor, message), runs=runs)

    def in_django_stream(message: bytes, runs: int = RUNS) -> float:
        """The same through Django's compress_sequence (a GzipFile: write, flush)."""
        compressor = compress_sequence(iter([message] * (runs + 1)), max_random_bytes=100)
        next(compressor)  # the header
        next(compressor)  # the first message
        return cpu_ms(lambda: next(compressor), runs=runs)

    def fresh(message: bytes) -> float:
        """CPU ms of one message as the first of a stream (the compressor made for it)."""
        return cpu_ms(lambda: flushed(stream_compressor(), message))

    for name, message in (("1 card", one.encode()), ("8 cards", eight.encode())):
        print(
            f"gzip CPU per message and stream, {name}: {in_stream(message):.3f} ms in a "
            f"stream ({in_django_stream(message):.3f} ms through Django's GzipFile), "
            f"{fresh(message):.3f} ms first on a fresh stream"
        )
    ours, django = memory_per_stream([m.encode() for m in (hello, eight, one, eight, one)])
    print(
        f"memory per stream's compressor, {STREAMS} held: {ours:.0f} KiB "
        f"(Django's GzipFile: {django:.0f} KiB)"
    )
    print("OK" if ok else "MISSED A TARGET")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
