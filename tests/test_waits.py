"""No test times the machine: every test waits on a condition, never for a time.

CI runs on a shared two-core machine: a test that sleeps a fixed time, waits a short
timeout for something not to happen, or asserts how long something took fails when the
machine is busy. So tests/ is read for:

- a sleep: `time.sleep(...)`, a bare `sleep(...)`, `asyncio.sleep(x)` with x not 0 (a
  yield, `asyncio.sleep(0)`, is fine), Playwright's `wait_for_timeout(...)`;
- a short wait for nothing: a literal `timeout=` under the safety net (30 s; 30 000 ms for
  Playwright's `expect(...).to_...`/`wait_for...`), a literal `.wait(x)`, `.join(x)`,
  `asyncio.timeout(x)` or `asyncio.wait_for(_, x)` under 30 s, a `setTimeout(..., ms)`
  under 30 000 in the JavaScript a test runs in a page;
- a measured duration asserted: an `assert` on a difference of clock readings
  (`time.time()`, `monotonic()`, `perf_counter()`, a loop's `.time()`, or a name set from
  one), or a `performance.now()` in a page's JavaScript.

Each is named by file and line. Durations are bench/'s to measure. ALLOWED holds the few
places that match but are no wait a test depends on, each with why.

Plain files only: no database, no Django.
"""

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SAFETY_NET = 30  # seconds: the shortest a literal timeout may be in tests/

# (file, the code of its line, stripped), each with why it is no wait a test depends on.
ALLOWED = {
    # The one poll, for what nothing announces (a row of pg_stat_activity): the pause only
    # spaces two looks at the condition; the wait is on the condition, with a 30 s net.
    ("tests/waiting.py", "time.sleep(BETWEEN_LOOKS)"),
    # A server asked to stop has 10 s to end before it is killed: no test waits on that.
    ("tests/browser/conftest.py", "process.wait(timeout=10)"),
    # A pool to nowhere lends nothing: its timeout is the error under test, not a wait for
    # something to happen.
    ("tests/pool.py", "pool = ConnectionPool("),
}

CLOCKS = {
    "time",
    "monotonic",
    "perf_counter",
    "process_time",
    "thread_time",
    "time_ns",
    "monotonic_ns",
    "perf_counter_ns",
}
# Playwright's waits, in milliseconds.
PLAYWRIGHT_WAITS = re.compile(r"^(to_|not_to_|wait_for)")
# Calls whose first argument is JavaScript run in the page.
IN_PAGE = {"evaluate", "evaluate_handle", "wait_for_function", "add_init_script"}
_SET_TIMEOUT = re.compile(r"setTimeout\([^;]*?,\s*([\d_]+)\s*\)")


def _number(node: ast.AST) -> float | None:
    if isinstance(node, ast.Constant) and type(node.value) in (int, float):
        return node.value
    return None


def _name(func: ast.AST) -> str:
    if isinstance(func, ast.Attribute):
        return func.attr
    return func.id if isinstance(func, ast.Name) else ""


def _owner(func: ast.AST) -> str:
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
        return func.value.id
    return ""


class _Reader:
    """Finds the waits on time and the measured durations of one module."""

    def __init__(self, tree: ast.Module) -> None:
        self.found: list[tuple[int, str]] = []
        self.clocked: set[str] = set()  # names set to a clock reading (or sums of them)
        self.elapsed: set[str] = set()  # names set to a difference of readings
        nodes = list(ast.walk(tree))
        self.sleeps = {  # `sleep` as imported from time or asyncio
            alias.asname or alias.name
            for node in nodes
            if isinstance(node, ast.ImportFrom) and node.module in {"time", "asyncio"}
            for alias in node.names
            if alias.name == "sleep"
        }
        sets = [
            node
            for node in nodes
            if isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign) and node.value
        ]
        for _ in range(3):  # names set from names set from a clock, and so on
            for node in sets:
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                names = {t.id for t in targets if isinstance(t, ast.Name)}
                if self._clocked(node.value):
                    self.clocked |= names
                if self._is_difference(node.value):
                    self.elapsed |= names
        for node in nodes:
            if isinstance(node, ast.Assert):
                self.an_assert(node)
            elif isinstance(node, ast.Call):
                self.a_call(node)

    def _is_clock(self, node: ast.AST) -> bool:
        if not isinstance(node, ast.Call):
            return False
        name, owner = _name(node.func), _owner(node.func)
        if owner == "time" and name in CLOCKS:
            return True
        if name in {"monotonic", "perf_counter"} and isinstance(node.func, ast.Name):
            return True
        # A loop's clock: `loop.time()`, `asyncio.get_running_loop().time()`.
        return name == "time" and owner != "time" and not node.args and "loop" in ast.unparse(node)

    def _clocked(self, node: ast.AST) -> bool:
        """A clock reading, or arithmetic on one (`time.time() * 1000`, `int(...)`)."""
        if self._is_clock(node) or (isinstance(node, ast.Name) and node.id in self.clocked):
            return True
        if isinstance(node, ast.BinOp):
            return self._clocked(node.left) or self._clocked(node.right)
        if isinstance(node, ast.UnaryOp):
            return self._clocked(node.operand)
        if isinstance(node, ast.Call) and _name(node.func) in {"int", "float", "round", "abs"}:
            return any(self._clocked(arg) for arg in node.args)
        return False

    def _is_difference(self, node: ast.AST) -> bool:
        """A difference of clock readings (or a reading and anything): a duration."""
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Sub):
            return self._clocked(node.left) or self._clocked(node.right)
        if isinstance(node, ast.BinOp):
            return self._is_difference(node.left) or self._is_difference(node.right)
        if isinstance(node, ast.Call) and _name(node.func) in {"int", "float", "round", "abs"}:
            return any(self._is_difference(arg) for arg in node.args)
        return False

    def an_assert(self, node: ast.Assert) -> None:
        uses = {n.id for n in ast.walk(node.test) if isinstance(n, ast.Name)}
        if any(self._is_difference(n) for n in ast.walk(node.test)) or uses & self.elapsed:
            self.found.append((node.lineno, "asserts a measured duration (bench/ measures)"))

    def a_call(self, node: ast.Call) -> None:
        name, owner = _name(node.func), _owner(node.func)
        first = _number(node.args[0]) if node.args else None
        if name == "wait_for_timeout":
            self.found.append((node.lineno, "waits for a time: wait_for_timeout"))
        elif name == "sleep" and owner == "asyncio":
            if first != 0:
                self.found.append((node.lineno, "sleeps: asyncio.sleep of more than 0"))
        elif (name == "sleep" and owner == "time") or (
            isinstance(node.func, ast.Name) and name in self.sleeps
        ):
            self.found.append((node.lineno, "sleeps: sleep"))
        elif name in {"wait", "join"} and first is not None and first < SAFETY_NET:
            self.found.append((node.lineno, f"waits {first:g} s: under the safety net"))
        elif owner == "asyncio" and name in {"timeout", "wait_for"}:
            limit = first if name == "timeout" else _number(node.args[1]) if node.args[1:] else None
            if limit is not None and limit < SAFETY_NET:
                self.found.append((node.lineno, f"waits {limit:g} s: under the safety net"))
        for keyword in node.keywords:
            value = _number(keyword.value)
            if keyword.arg != "timeout" or value is None:
                continue
            ms = PLAYWRIGHT_WAITS.match(name) is not None and owner != "asyncio"
            if value < SAFETY_NET * (1000 if ms else 1):
                unit = "ms" if ms else "s"
                self.found.append((node.lineno, f"timeout={value:g} {unit}: under the safety net"))
        if name in IN_PAGE and node.args and isinstance(node.args[0], ast.Constant):
            script = str(node.args[0].value)
            for delay in _SET_TIMEOUT.findall(script):
                if int(delay.replace("_", "")) < SAFETY_NET * 1000:
                    self.found.append((node.lineno, f"setTimeout of {delay} ms in the page"))
            if "performance.now(" in script:
                self.found.append((node.lineno, "times the page: performance.now()"))


def timed_waits(root: Path) -> list[str]:
    """Every wait on time and measured duration in root/tests/, as "file:line: what",
    but those ALLOWED."""
    found = []
    for path in sorted((root / "tests").rglob("*.py")):
        relative = path.relative_to(root).as_posix()
        source = path.read_text(encoding="utf-8")
        lines = source.splitlines()
        for line, what in sorted(_Reader(ast.parse(source, filename=relative)).found):
            if (relative, lines[line - 1].strip()) in ALLOWED:
                continue
            found.append(f"{relative}:{line}: {what}")
    return found


def test_no_test_waits_for_a_time_or_asserts_a_duration():
    assert timed_waits(ROOT) == []


def test_every_allowed_place_is_still_there():
    """An allowance whose line went is removed too, so the list never holds more than it
    has to."""
    for file, code in ALLOWED:
        lines = [line.strip() for line in (ROOT / file).read_text(encoding="utf-8").splitlines()]
        assert code in lines, (file, code)


SAMPLE = """
import asyncio
import time
from time import sleep as nap

async def scenario(loop):
    await asyncio.sleep(0)
    await asyncio.sleep(0.05)
    start = loop.time()
    took = loop.time() - start
    assert took < 1
    async with asyncio.timeout(1):
        await asyncio.wait_for(scenario(loop), 2)

def test_it(page, stream, event):
    time.sleep(0.1)
    nap(1)
    sleep(hours=8)  # the game's, not the clock's
    page.wait_for_timeout(300)
    stream.message(timeout=0.5)
    stream.message(timeout=30)
    expect(page).to_have_title("x", timeout=500)
    expect(page).to_have_title("x", timeout=30_000)
    event.wait(0.2)
    event.wait(60)
    page.evaluate("() => new Promise((done) => setTimeout(done, 300))")
    page.evaluate("() => new Promise((done) => setTimeout(() => done(false), 30000))")
    page.evaluate("() => performance.now()")
    start = time.monotonic()
    elapsed = time.monotonic() - start
    assert elapsed < 2
    assert abs(stamp / 1000 - time.time()) < 5
    before = time.time()
    assert before <= stamp
"""


def test_the_check_sees_each_kind_of_wait_on_time(tmp_path):
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_sample.py").write_text(SAMPLE)

    found = [line.removeprefix("tests/test_sample.py:") for line in timed_waits(tmp_path)]

    assert found == [
        "8: sleeps: asyncio.sleep of more than 0",
        "11: asserts a measured duration (bench/ measures)",
        "12: waits 1 s: under the safety net",
        "13: waits 2 s: under the safety net",
        "16: sleeps: sleep",
        "17: sleeps: sleep",
        "19: waits for a time: wait_for_timeout",
        "20: timeout=0.5 s: under the safety net",
        "22: timeout=500 ms: under the safety net",
        "24: waits 0.2 s: under the safety net",
        "26: setTimeout of 300 ms in the page",
        "28: times the page: performance.now()",
        "31: asserts a measured duration (bench/ measures)",
        "32: asserts a measured duration (bench/ measures)",
    ]
