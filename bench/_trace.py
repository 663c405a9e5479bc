"""Where Chromium's CPU goes, from a trace (CDP Tracing) of bench_live_browser's clicks.

Each thread's CPU is the sum of its top-level tasks' thread time (`tdur` of the
`toplevel` category's task events); inside a renderer's main thread, each devtools
timeline event's own thread time (its children's taken off) is put in a stage: script,
parsing HTML, style, layout, paint and the rest. Processes are told apart by the trace's
own metadata: the renderer that shows a sheet, the DJ's board's, the browser, the GPU
process, the utility processes (the network service).

`python bench/_trace.py trace.json [clicks]` prints the table of a saved trace.
"""

from __future__ import annotations

import json
import sys
from collections import defaultdict

# Top-level tasks: what a thread's message loop runs (their thread time is its CPU).
TASKS = {"ThreadControllerImpl::RunTask", "ThreadPool_RunTask"}

# A renderer main thread's events, by stage (their own time, children taken off).
STAGES = {
    "script": {
        "FunctionCall",
        "EvaluateScript",
        "EventDispatch",
        "TimerFire",
        "FireAnimationFrame",
        "RunMicrotasks",
        "v8.compile",
        "v8.compileModule",
        "v8.evaluateModule",
        "V8.Execute",
        "v8.run",
        "v8.callFunction",
        "V8.DeoptimizeCode",
        "FireIdleCallback",
        "XHRReadyStateChange",
        "XHRLoad",
        "ResourceReceivedData",
        "ResourceFinish",
        "ResourceReceiveResponse",
        "ResourceSendRequest",
        "V8.BytecodeBudgetInterrupt",
        "V8.HandleInterrupts",
        "BlinkScheduler_PerformMicrotaskCheckpoint",
    },
    "garbage collection": {
        "MinorGC",
        "MajorGC",
        "BlinkGC.AtomicPhase",
        "BlinkGC.IncrementalMarkingStep",
        "CppGC.AtomicPhase",
        "CppGC.IncrementalMark",
        "ThreadState::performIdleLazySweep",
        "BlinkGC.LazySweepInIdle",
    },
    "parsing HTML": {"ParseHTML", "ParseAuthorStyleSheet"},
    "style": {"UpdateLayoutTree", "RecalculateStyles", "ScheduleStyleRecalculation"},
    "layout": {
        "Layout",
        "UpdateLayerTree",
        "InvalidateLayout",
        "IntersectionObserverController::computeIntersections",
    },
    "paint": {
        "PrePaint",
        "Paint",
        "Layerize",
        "PaintImage",
        "UpdateLayer",
        "CompositeLayers",
        "Commit",
        "Document::updateStyleAndLayout",
        "HitTest",
    },
}
STAGE_OF = {name: stage for stage, names in STAGES.items() for name in names}


def _threads(events: list[dict]) -> dict[tuple[int, int], list[dict]]:
    """Complete events ('X', and B/E pairs made complete) by thread, in time order."""
    by_thread: dict[tuple[int, int], list[dict]] = defaultdict(list)
    open_: dict[tuple[int, int], list[dict]] = defaultdict(list)
    for event in sorted(
        (e for e in events if e.get("ph") in ("X", "B", "E")), key=lambda e: e["ts"]
    ):
        key = (event["pid"], event["tid"])
        if event["ph"] == "X":
            by_thread[key].append(event)
        elif event["ph"] == "B":
            open_[key].append(event)
        elif open_[key]:
            begin = open_[key].pop()
            whole = dict(begin, ph="X", dur=event["ts"] - begin["ts"])
            if "tts" in begin and "tts" in event:
                whole["tdur"] = event["tts"] - begin["tts"]
            by_thread[key].append(whole)
    for key in by_thread:
        by_thread[key].sort(key=lambda e: (e["ts"], -e.get("dur", 0)))
    return by_thread


def _self_times(events: list[dict]) -> dict[str, float]:
    """Each event name's own thread time (µs) on one thread, nested events taken off."""
    own: dict[str, float] = defaultdict(float)
    stack: list[tuple[float, dict]] = []  # (end, event), with the children's time taken off

    def close(until: float) -> None:
        while stack and stack[-1][0] <= until:
            stack.pop()

    for event in events:
        dur = event.get("dur", 0)
        cpu = event.get("tdur", dur if "tts" not in event else 0)
        close(event["ts"])
        if stack:
            parent = stack[-1][1]
            own[parent["name"]] -= cpu
        own[event["name"]] += cpu
        stack.append((event["ts"] + dur, event))
    return own


def _labels(events: list[dict]) -> tuple[dict[int, str], dict[tuple[int, int], str]]:
    """Each process's label and each thread's name. A renderer that sent a POST (the
    clicks) is the DJ's board; one that ran the service worker (sheets register it) is a
    sheet's; other renderers did nothing of the bench's."""
    names: dict[int, str] = {}
    threads: dict[tuple[int, int], str] = {}
    posted: set[int] = set()
    worker: set[int] = set()
    for event in events:
        data = event.get("args", {}).get("data", {})
        if event.get("ph") == "M" and event.get("name") == "process_name":
            names[event["pid"]] = event["args"]["name"]
        elif event.get("ph") == "M" and event.get("name") == "thread_name":
            name = event["args"]["name"]
            threads[(event["pid"], event["tid"])] = name.rstrip("0123456789/") or name
        elif event.get("name") == "ResourceSendRequest" and data.get("requestMethod") == "POST":
            posted.add(event["pid"])
        elif event.get("name") == "TracingSessionIdForWorker":
            worker.add(event["pid"])
    labels = {}
    for pid, name in names.items():
        if name == "Renderer":
            labels[pid] = (
                "renderer, the DJ's board"
                if pid in posted
                else "renderer, a sheet"
                if pid in worker
                else "renderer, other"
            )
        else:
            labels[pid] = {"Browser": "browser", "GPU Process": "GPU process"}.get(
                name, name.lower()
            )
    return labels, threads


def _stage(name: str) -> str:
    if name in TASKS:
        return "other (in a task, outside the events above)"
    return STAGE_OF.get(name, "other: " + name)


def summarize(trace: dict | list) -> dict:
    """{"processes": {label: {thread: cpu ms}}, "stages": {label: {stage: ms}},
    "count": {label: processes}}, over the whole trace."""
    events = trace["traceEvents"] if isinstance(trace, dict) else trace
    labels, thread_names = _labels(events)
    processes: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    stages: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    counts: dict[str, set[int]] = defaultdict(set)
    for (pid, tid), thread in _threads(events).items():
        who = labels.get(pid, "?")
        counts[who].add(pid)
        tname = thread_names.get((pid, tid), "?")
        cpu = sum(e.get("tdur", 0) for e in thread if e["name"] in TASKS)
        processes[who][tname] += cpu / 1000
        if tname == "CrRendererMain":
            for name, us in _self_times(thread).items():
                stages[who][_stage(name)] += us / 1000
    return {
        "processes": {k: dict(v) for k, v in processes.items()},
        "stages": {k: dict(v) for k, v in stages.items()},
        "count": {k: len(v) for k, v in counts.items()},
    }


def report(summary: dict, clicks: int) -> str:
    """The summary as text, in ms per click: each kind of process (and each one of a kind),
    its busiest threads, and its main thread by stage."""
    lines = []
    total = 0.0
    kinds = sorted(summary["processes"].items(), key=lambda kv: -sum(kv[1].values()))
    for who, threads in kinds:
        cpu = sum(threads.values()) / clicks
        total += cpu
        count = summary["count"].get(who, 1)
        each = f", {cpu / count:.1f} each" if count > 1 else ""
        lines.append(f"  {who} ({count} process{'es' if count > 1 else ''}): {cpu:.1f}{each}")
        for thread, ms in sorted(threads.items(), key=lambda kv: -kv[1]):
            if ms / clicks / count >= 0.1:
                lines.append(f"      thread {thread}: {ms / clicks / count:.2f} each")
        stages = summary["stages"].get(who, {})
        for stage, ms in sorted(stages.items(), key=lambda kv: -kv[1]):
            if ms / clicks / count >= 0.05:
                lines.append(f"      main thread, {stage}: {ms / clicks / count:.2f} each")
    lines.append(f"  Chromium's traced tasks: {total:.1f} ms per click")
    return "\n".join(lines)


def profile_report(profile: dict, clicks: int, top: int = 25) -> str:
    """A CPU profile (CDP Profiler) as its functions' own time per click, heaviest first."""
    nodes = {node["id"]: node for node in profile["nodes"]}
    gaps = profile.get("timeDeltas", [])
    own: dict[str, float] = defaultdict(float)
    for sample, gap in zip(profile.get("samples", [])[1:], gaps[1:], strict=False):
        frame = nodes[sample]["callFrame"]
        where = frame.get("url", "").rsplit("/", 1)[-1]
        name = frame.get("functionName") or "(anonymous)"
        own[f"{name} {where}:{frame.get('lineNumber', -1) + 1}" if where else name] += gap
    lines = ["  one sheet's profile, own time per click (ms):"]
    for name, us in sorted(own.items(), key=lambda kv: -kv[1])[:top]:
        lines.append(f"      {name}: {us / 1000 / clicks:.2f}")
    return "\n".join(lines)


if __name__ == "__main__":
    with open(sys.argv[1]) as f:
        data = json.load(f)
    print(report(summarize(data), int(sys.argv[2]) if len(sys.argv) > 2 else 1))
