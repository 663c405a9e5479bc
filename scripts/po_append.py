"""Append translations to the .po files: `python scripts/po_append.py MODULE.py`.

MODULE defines T = {English msgid: Spanish} and optionally PLURALS = {(singular, plural):
(es singular, es plural)}. Entries already in a .po file are left alone; English gets the
msgid back. Then run `manage.py compilemessages`.
"""

import importlib.util
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def existing(po: str) -> set[str]:
    ids = set()
    for block in po.split("\n\n"):
        match = re.search(r'^msgid ((?:".*"\n?)+)', block, re.M)
        if match:
            ids.add("".join(re.findall(r'"(.*)"', match.group(1))).replace('\\"', '"'))
    return ids


def main(module_path: str) -> None:
    spec = importlib.util.spec_from_file_location("translations", module_path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    singles = module.T
    plurals = getattr(module, "PLURALS", {})
    for lang in ("es", "en"):
        path = ROOT / "locale" / lang / "LC_MESSAGES" / "django.po"
        po = path.read_text(encoding="utf-8")
        have = existing(po)
        added = []
        for msgid, es in singles.items():
            if msgid in have:
                continue
            msgstr = es if lang == "es" else msgid
            added.append(f"msgid {quote(msgid)}\nmsgstr {quote(msgstr)}\n")
        for (one, many), (es_one, es_many) in plurals.items():
            if one in have:
                continue
            a, b = (es_one, es_many) if lang == "es" else (one, many)
            forms = [a, b]
            # Spanish has a third form (millions); it reads like the plural.
            nplurals = int(re.search(r"nplurals=(\d+)", po).group(1))
            forms += [b] * (nplurals - len(forms))
            lines = "".join(f"msgstr[{i}] {quote(f)}\n" for i, f in enumerate(forms))
            added.append(f"msgid {quote(one)}\nmsgid_plural {quote(many)}\n{lines}")
        if added:
            path.write_text(po.rstrip("\n") + "\n\n" + "\n".join(added), encoding="utf-8")
        print(f"{lang}: {len(added)} added")


if __name__ == "__main__":
    main(sys.argv[1])
