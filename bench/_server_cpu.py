"""The server's CPU over bench_live_browser's clicks, by thread and by the hub's work.

`python bench/_server_cpu.py <out.json> -m uvicorn ...` runs the server as usual; SIGUSR1
marks the start of the clicks, SIGUSR2 their end, and the CPU spent between the two is
written to <out.json> as {stage: ms}:

- each thread's CPU (time.pthread_getcpuclockid): the event loop (the streams' messages,
  their JSON, gzip and sending, and HTTP itself), the hub's thread (each function it ran
  counted apart: rendering the parts, reading the new changes), the threads of the sync
  views (the tap's own request: its write and its answer);
- the part of the loop's time spent in the streams' compressor (campaign.middleware's
  stream_compressor) and in encoding the messages (campaign.live.views._event);

and when each change committed and each change message left the server (epoch ms), which
the bench sets against its clicks: how much of a click's latency is the server's.
"""

from __future__ import annotations

import json
import os
import runpy
import signal
import sys
import threading
import time
from collections import defaultdict
from pathlib import Path

spent: dict[str, float] = defaultdict(float)  # stage -> CPU seconds, counted as it runs
marks: dict[str, dict[str, float]] = {}
# When each change committed and each change message left, as (epoch ms, what): "commit",
# "sent dj", "sent player".
moments: list[tuple[float, str]] = []


def _thread_kind(thread: threading.Thread) -> str:
    if thread is threading.main_thread():
        return "event loop (streams, HTTP)"
    if thread.name.startswith("zodiac-live"):
        return "hub thread"
    if thread.name.startswith("ThreadPoolExecutor") or "asgiref" in thread.name:
        return "sync views (the tap's request)"
    return "other threads"


def _snapshot() -> dict[str, float]:
    found: dict[str, float] = defaultdict(float)
    for thread in threading.enumerate():
        try:
            clock = time.pthread_getcpuclockid(thread.ident)
            found[_thread_kind(thread)] += time.clock_gettime(clock)
        except (OSError, TypeError):
            continue
    for stage, seconds in spent.items():
        found[stage] += seconds
    return found


def _timed(stage: str, function):
    def wrapper(*args, **kwargs):
        start = time.thread_time()
        try:
            return function(*args, **kwargs)
        finally:
            spent[stage] += time.thread_time() - start

    return wrapper


def _patch() -> None:
    """Count the hub's functions, the streams' compressor and the messages' encoding, and
    the CPU of each thread that ends (a request's sync thread lives as long as its request)."""
    run = threading.Thread.run

    def counted_run(self) -> None:
        try:
            run(self)
        finally:
            spent[_thread_kind(self)] += time.thread_time()

    threading.Thread.run = counted_run  # type: ignore[method-assign]

    import django

    django.setup()
    from campaign import middleware
    from campaign.live import hub, views

    original = hub._in_hub_thread

    def in_hub_thread(function, /, *args, **kwargs):
        start = time.thread_time()
        try:
            return original(function, *args, **kwargs)
        finally:
            name = getattr(function, "__qualname__", str(function))
            spent[f"hub thread: {name}"] += time.thread_time() - start

    hub._in_hub_thread = in_hub_thread
    encode = _timed("event loop: encoding messages (json)", views._event)

    def event(name: str, data: dict, **kwargs) -> str:
        if name == "change":
            moments.append((time.time() * 1000, f"sent {data.get('view', '?')}"))
        return encode(name, data, **kwargs)

    views._event = event
    told = hub.changed

    def changed(*args, **kwargs) -> None:
        moments.append((time.time() * 1000, "commit"))
        told(*args, **kwargs)

    hub.changed = changed
    compressor = middleware.stream_compressor

    class Timed:
        def __init__(self) -> None:
            self.deflate = compressor()
            self.compress = _timed("event loop: the streams' gzip", self.deflate.compress)
            self.flush = _timed("event loop: the streams' gzip", self.deflate.flush)

    middleware.stream_compressor = Timed


def _write(out: str) -> None:
    before, after = marks.get("before", {}), marks.get("after", {})
    delta = {stage: (after[stage] - before.get(stage, 0.0)) * 1000 for stage in after}
    # Whole or not at all: the bench reads the file as soon as it exists.
    with open(out + ".part", "w") as f:
        json.dump({"cpu": {k: v for k, v in delta.items() if v > 0}, "moments": moments}, f)
    os.replace(out + ".part", out)


def main() -> None:
    out = sys.argv[1]
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    _patch()

    def before(signum, frame) -> None:
        marks["before"] = _snapshot()
        moments.clear()

    def after(signum, frame) -> None:
        marks["after"] = _snapshot()
        _write(out)

    signal.signal(signal.SIGUSR1, before)
    signal.signal(signal.SIGUSR2, after)
    module = sys.argv[3]
    sys.argv = [module, *sys.argv[4:]]
    runpy.run_module(module, run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    main()
