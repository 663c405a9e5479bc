"""`python -m rules replay FILE.json`: print the state a log leads to, as JSON."""

from __future__ import annotations

import argparse
import json
import sys

from rules import RuleError, replay, replay_trail


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m rules")
    sub = parser.add_subparsers(dest="command", required=True)
    rp = sub.add_parser("replay", help="fold an event log and print the final state")
    rp.add_argument("file", help='a JSON list of events, or {"events": [...], "options": {...}}')
    rp.add_argument("--trail", action="store_true", help="also print each event's effects")
    rp.add_argument("--lang", choices=("es", "en"), default="en", help="language of errors")
    args = parser.parse_args(argv)

    try:
        with open(args.file, encoding="utf-8") as fh:
            data = json.load(fh)
    except (OSError, json.JSONDecodeError) as exc:
        print(f"cannot read {args.file}: {exc}", file=sys.stderr)
        return 2
    if isinstance(data, dict):
        events, options = data.get("events"), data.get("options")
    else:
        events, options = data, None
    if not isinstance(events, list) or not (options is None or isinstance(options, dict)):
        print("expected a list of events, or {'events': [...], 'options': {...}}", file=sys.stderr)
        return 2
    try:
        if args.trail:
            state, trail = replay_trail(events, options)
            out: dict = {"state": state, "effects": trail}
        else:
            out = replay(events, options)
    except RuleError as err:
        where = "" if err.index is None else f"event {err.index}: "
        print(where + err.message(args.lang), file=sys.stderr)
        return 1
    json.dump(out, sys.stdout, ensure_ascii=False, indent=2)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
