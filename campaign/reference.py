"""The pages built from docs/: the rules reference (docs/reglas.md in Spanish, docs/rules.md
in English, at /reglas/) and the guide (docs/guia.md, docs/guide.md, at /guia/), as safe HTML.

Each document is rendered once per language and kept in memory: the files do not change
while the server runs. Headings "R11 · …" get the stable anchor id "R11", which
`rule_url()` links to.
"""

import re
import unicodedata
from dataclasses import dataclass, field
from functools import lru_cache

from django.conf import settings
from django.urls import reverse
from django.utils import translation
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext as _
from markdown_it import MarkdownIt
from markdown_it.token import Token
from mdit_py_plugins.anchors import anchors_plugin

DOCS = {"es": "reglas.md", "en": "rules.md"}
GUIDE_DOCS = {"es": "guia.md", "en": "guide.md"}
RULE_COUNT = 27
_RULE_HEADING = re.compile(r"(R\d+)\s*·\s*(.*)")
_RULE_ID = re.compile(r"R([1-9]\d?)")


@dataclass(frozen=True)
class Section:
    """A group of rules (a level-2 heading) and the rules under it, for the contents."""

    anchor: str
    title: str
    rules: list[tuple[str, str]] = field(default_factory=list)  # (anchor "R4", short title)


@dataclass(frozen=True)
class RulesPage:
    """A rendered reference: the title and intro, the contents and the body."""

    title: str
    intro: SafeString
    sections: list[Section]
    body: SafeString


def _slug(title: str) -> str:
    """ "R11 · Shock: …" → "R11"; any other heading → an ASCII slug ("tiempo-sueno-y-dias")."""
    if match := _RULE_HEADING.match(title):
        return match.group(1)
    plain = unicodedata.normalize("NFKD", title)
    plain = "".join(ch for ch in plain if not unicodedata.combining(ch)).lower()
    return "-".join(re.findall(r"[a-z0-9]+", plain)) or "section"


def _wrap_table(open_: bool):
    # Long tables scroll inside their own box, so a phone never scrolls the whole page. The
    # box takes the focus (a keyboard scrolls it with the arrows) and is a region: a section
    # named after the table (its "table_label", set by _name_tables).
    def render(self, tokens: list[Token], idx: int, options, env) -> str:
        html = self.renderToken(tokens, idx, options, env)
        if not open_:
            return f"{html}</section>\n"
        label = escape(tokens[idx].meta.get("table_label", ""))
        return f'<section class="table-wrap" tabindex="0" aria-label="{label}">{html}'

    return render


def _plain(inline: Token) -> str:
    """A heading's words without their Markdown (emphasis, code marks)."""
    return "".join(t.content for t in inline.children or () if t.type in ("text", "code_inline"))


def _name_tables(tokens: list[Token], language: str) -> None:
    """Give each table the name of the heading above it: "Tabla: Lo básico"."""
    heading = ""
    for i, token in enumerate(tokens):
        if token.type == "heading_open":
            heading = _plain(tokens[i + 1])
        elif token.type == "table_open":
            with translation.override(language):
                token.meta["table_label"] = _("Table: %(title)s") % {"title": heading}


def _markdown() -> MarkdownIt:
    # CommonMark with raw HTML off: whatever the Markdown holds comes out escaped.
    md = MarkdownIt("commonmark", {"html": False}).enable("table")
    anchors_plugin(md, min_level=2, max_level=3, slug_func=_slug)
    md.add_render_rule("table_open", _wrap_table(True))
    md.add_render_rule("table_close", _wrap_table(False))
    return md


def render_recap(text: str) -> SafeString:
    """A DJ's recap: CommonMark with raw HTML shown as text and unsafe links refused."""
    return mark_safe(MarkdownIt("commonmark", {"html": False}).render(text))


def render_markdown(text: str, language: str = "es") -> RulesPage:
    """Render a reference document in `language`; the part before its first `##` is the
    intro."""
    md = _markdown()
    tokens = md.parse(text)
    _name_tables(tokens, language)
    title = ""
    if len(tokens) > 2 and tokens[0].type == "heading_open" and tokens[0].tag == "h1":
        # The h1 becomes the page's own heading (and <title>) in the template.
        title, tokens = tokens[1].content, tokens[3:]
    sections: list[Section] = []
    split = len(tokens)
    for i, token in enumerate(tokens):
        if token.type != "heading_open":
            continue
        heading = tokens[i + 1].content
        if token.tag == "h2":
            split = min(split, i)
            sections.append(Section(anchor=str(token.attrGet("id")), title=heading))
        elif token.tag == "h3" and sections and (match := _RULE_HEADING.match(heading)):
            sections[-1].rules.append((match.group(1), match.group(2)))
    render = md.renderer.render
    return RulesPage(
        title=title,
        intro=mark_safe(render(tokens[:split], md.options, {})),
        sections=sections,
        body=mark_safe(render(tokens[split:], md.options, {})),
    )


def _doc_page(docs: dict[str, str], language: str) -> RulesPage:
    code = language.split("-")[0]
    if code not in docs:
        code = "es"
    return render_markdown(
        (settings.BASE_DIR / "docs" / docs[code]).read_text(encoding="utf-8"), code
    )


@lru_cache(maxsize=len(DOCS))
def rules_page(language: str) -> RulesPage:
    """The reference in a language ("es" or "en"; anything else gets Spanish), cached."""
    return _doc_page(DOCS, language)


@lru_cache(maxsize=len(GUIDE_DOCS))
def guide_page(language: str) -> RulesPage:
    """The DJ's and players' guide in a language (as `rules_page`), cached."""
    return _doc_page(GUIDE_DOCS, language)


def rule_url(rule: str) -> str:
    """The link to one rule of the reference: rule_url("R11") == "/reglas/#R11"."""
    match = _RULE_ID.fullmatch(rule)
    if not match or int(match.group(1)) > RULE_COUNT:
        raise ValueError(f"no rule {rule!r}: expected R1 to R{RULE_COUNT}")
    return f"{reverse('rules')}#{rule}"
