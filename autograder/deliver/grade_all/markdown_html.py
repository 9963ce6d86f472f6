"""The course's own Markdown (a lesson's prose) as HTML a page shows as the notebook does, with no script.

Markdown as Jupyter renders it (emphasis, code, lists, tables, links), by mistune, the
parser nbconvert uses; math (``$...$``, ``$$...$$``) as MathML, by latex2mathml, which
browsers lay out with no script and nothing fetched. Only the course's text comes here,
never a student's: a student's text is shown escaped (results/text.py).

What may reach the page is held to an allow list all the same: raw HTML in the Markdown
is shown as text, an image as its alt text (nothing is fetched), a link with a harmful
scheme loses it (mistune's sanitize_url), and the MathML is rebuilt from its parsed tree
keeping only MathML's presentation elements and layout attributes (latex2mathml copies
``\\text{...}`` and ``\\href`` through as they are): a formula with anything else is
shown as its LaTeX, escaped. Without mistune or latex2mathml (the instructor's extra),
the text is shown as it is, escaped.
"""

from __future__ import annotations

import html
import importlib.util
from functools import cache
from xml.etree import ElementTree

MATHML = "http://www.w3.org/1998/Math/MathML"
# MathML's presentation elements (MathML Core and the common rest), and the attributes that only lay them out.
ELEMENTS = frozenset(
    "math mrow mi mn mo ms mtext mspace msub msup msubsup mfrac msqrt mroot mstyle merror mpadded mphantom "
    "mfenced menclose munder mover munderover mmultiscripts mprescripts none mtable mtr mtd mlabeledtr".split()
)
ATTRIBUTES = frozenset(
    "display mathvariant stretchy fence separator separators lspace rspace accent accentunder columnalign "
    "columnspacing rowspacing columnlines rowlines frame framespacing linethickness minsize maxsize "
    "movablelimits symmetric largeop form width height depth notation open close scriptlevel displaystyle".split()
)


def available() -> bool:
    """Whether mistune and latex2mathml are installed (the instructor extra)."""
    return all(importlib.util.find_spec(name) is not None for name in ("mistune", "latex2mathml"))


def markdown_html(text: str) -> str:
    """The course's Markdown as HTML: a fragment with no script, no raw HTML and nothing to fetch."""
    if not available():
        return f'<div class="text">{html.escape(text)}</div>'
    return str(_markdown()(text))


@cache
def _markdown():
    """mistune's Markdown with math, tables and strikethrough, raw HTML escaped, math as MathML, images as text."""
    import mistune  # here: mistune is the instructor's extra (see available())

    class Renderer(mistune.HTMLRenderer):
        def inline_math(self, text: str) -> str:
            return mathml(text, display=False)

        def block_math(self, text: str) -> str:
            return mathml(text, display=True) + "\n"

        def image(self, text: str, url: str, title: str | None = None) -> str:
            return html.escape(mistune.util.striptags(text))  # its alt text: a page of the kit fetches nothing

    return mistune.create_markdown(
        escape=True, renderer=Renderer(escape=True), plugins=["math", "table", "strikethrough"]
    )


def mathml(latex: str, display: bool) -> str:
    """A formula as MathML, rebuilt through the allow list; its LaTeX, escaped, where that cannot be done."""
    from latex2mathml.converter import convert  # here: latex2mathml is the instructor's extra (see available())

    shown = f'<code class="math">{html.escape(latex)}</code>'
    try:
        tree = ElementTree.fromstring(convert(latex, display="block" if display else "inline"))
        return _allowed(tree, root=True)
    except Exception:  # latex2mathml's own errors (an unbalanced brace...), XML it made badly, or a refused part
        return shown


def _allowed(node: ElementTree.Element, root: bool = False) -> str:
    """The MathML of a parsed tree, written anew with only allowed elements and attributes (ValueError otherwise)."""
    namespace, _, tag = node.tag.rpartition("}")
    if namespace.lstrip("{") != MATHML or tag not in ELEMENTS or (tag == "math") != root:
        raise ValueError(f"MathML element {node.tag!r} is not allowed")
    attributes = [(name, value) for name, value in sorted(node.attrib.items()) if name in ATTRIBUTES]
    if len(attributes) != len(node.attrib):
        raise ValueError(f"MathML attributes {sorted(node.attrib)} are not all allowed")
    written = "".join(f' {name}="{html.escape(value)}"' for name, value in attributes)
    if root:
        written = f' xmlns="{MATHML}"' + written
    inner = html.escape(node.text or "", quote=False) + "".join(
        _allowed(child) + html.escape(child.tail or "", quote=False) for child in node
    )
    return f"<{tag}{written}>{inner}</{tag}>"
