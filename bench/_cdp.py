"""A small Chrome DevTools Protocol client over a pipe, for bench_live_browser.

Playwright attaches to every page of its browser and follows each page's network traffic
(a CDP event per request and response, relayed to its driver). With 21 pages on a 2-core
machine that bookkeeping takes CPU from the pages being measured. Here Debian's chromium is
started with `--remote-debugging-pipe` and the bench attaches to a page only when it must
act on it (opening it, the DJ's click, reading its clocks afterwards): between a click and
the change on the observers' pages, no debugger listens to them, as at a real table.
"""

from __future__ import annotations

import json
import os
import select
import subprocess
import time


class CDPError(RuntimeError):
    pass


class Browser:
    """One chromium process, driven through fds 3 (commands in) and 4 (answers out)."""

    def __init__(self, executable: str, args: list[str]) -> None:
        commands_r, commands_w = os.pipe()
        answers_r, answers_w = os.pipe()

        def pipes_as_3_and_4() -> None:
            # Copy both ends first: dup2 onto 3 or 4 may close the other one.
            commands, answers = os.dup(commands_r), os.dup(answers_w)
            os.dup2(commands, 3)
            os.dup2(answers, 4)

        self.process = subprocess.Popen(
            [executable, *args, "--remote-debugging-pipe"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            preexec_fn=pipes_as_3_and_4,
            pass_fds=(3, 4),
        )
        os.close(commands_r)
        os.close(answers_w)
        self._out = commands_w
        self._in = answers_r
        self._buffer = b""
        self._next = 0
        self.events: list[dict] | None = None  # a list: events are kept there (`record`)

    def send(self, method: str, params: dict | None = None, session: str | None = None) -> dict:
        """Send one command and wait for its answer (events met meanwhile are dropped,
        unless `record` keeps them)."""
        self._next += 1
        message = {"id": self._next, "method": method, "params": params or {}}
        if session is not None:
            message["sessionId"] = session
        data = json.dumps(message).encode() + b"\0"
        while data:
            data = data[os.write(self._out, data) :]
        deadline = time.monotonic() + 60
        while True:
            for raw in self._messages(deadline):
                answer = json.loads(raw)
                if "id" not in answer and self.events is not None:
                    self.events.append(answer)
                if answer.get("id") == self._next:
                    if "error" in answer:
                        raise CDPError(f"{method}: {answer['error'].get('message')}")
                    return answer.get("result", {})

    def record(self) -> None:
        """Keep the events met from now on in `events`."""
        self.events = []

    def wait_event(self, method: str, timeout: float = 60.0) -> dict:
        """The first recorded event `method` (waiting for it): its params."""
        assert self.events is not None, "record() first"
        deadline = time.monotonic() + timeout
        while True:
            for event in self.events:
                if event.get("method") == method:
                    self.events.remove(event)
                    return event.get("params", {})
            for raw in self._messages(deadline):
                self.events.append(json.loads(raw))

    def read_stream(self, handle: str) -> str:
        """The whole of an IO stream (a trace), as text."""
        chunks = []
        while True:
            part = self.send("IO.read", {"handle": handle, "size": 1 << 20})
            chunks.append(part.get("data", ""))
            if part.get("eof"):
                break
        self.send("IO.close", {"handle": handle})
        return "".join(chunks)

    def _messages(self, deadline: float):
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([self._in], [], [], left)[0]:
            raise CDPError("chromium did not answer within 60 s")
        chunk = os.read(self._in, 1 << 20)
        if not chunk:
            raise CDPError("chromium closed its DevTools pipe")
        self._buffer += chunk
        *whole, self._buffer = self._buffer.split(b"\0")
        return whole

    def close(self) -> None:
        try:
            self.send("Browser.close")
        except (CDPError, OSError):
            pass
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
        os.close(self._out)
        os.close(self._in)


def new_context(browser: Browser, cookies: list[dict]) -> str:
    """A browser context (its own cookies and connections, as a device) holding `cookies`."""
    context = browser.send("Target.createBrowserContext")["browserContextId"]
    browser.send("Storage.setCookies", {"cookies": cookies, "browserContextId": context})
    return context


class Page:
    """A page in its own browser context, or a tab of `context` when one is given."""

    def __init__(
        self, browser: Browser, url: str, cookies: list[dict], context: str | None = None
    ) -> None:
        self.browser = browser
        context = context or new_context(browser, cookies)
        self.target = browser.send(
            "Target.createTarget", {"url": url, "browserContextId": context}
        )["targetId"]
        self.session: str | None = None

    def attach(self) -> Page:
        if self.session is None:
            self.session = self.browser.send(
                "Target.attachToTarget", {"targetId": self.target, "flatten": True}
            )["sessionId"]
        return self

    def detach(self) -> None:
        if self.session is not None:
            self.browser.send("Target.detachFromTarget", {"sessionId": self.session})
            self.session = None

    def send(self, method: str, params: dict | None = None) -> dict:
        self.attach()
        return self.browser.send(method, params, session=self.session)

    def evaluate(self, function: str, arg=None):
        """Call a JavaScript function (source text) with one JSON argument; its value."""
        result = self.send(
            "Runtime.evaluate",
            {
                "expression": f"({function})({json.dumps(arg)})",
                "returnByValue": True,
                "awaitPromise": True,
            },
        )
        if "exceptionDetails" in result:
            details = result["exceptionDetails"]
            text = details.get("exception", {}).get("description") or details.get("text")
            raise CDPError(f"page script failed: {text}")
        return result["result"].get("value")

    def wait_for(self, expression: str, timeout: float = 15.0) -> None:
        """Wait until a JavaScript expression is true in the page (across its navigation)."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                if self.evaluate(f"() => Boolean({expression})"):
                    return
            except CDPError:
                pass  # the page was still navigating: its context went away
            if time.monotonic() > deadline:
                raise CDPError(f"timed out waiting for {expression}")
            time.sleep(0.05)
