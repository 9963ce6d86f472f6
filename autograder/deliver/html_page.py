"""The one HTML page head of every page the kit writes (a student's feedback, the class's dashboard, the written
answers): self-contained, and unable to run or fetch anything.

Its Content-Security-Policy allows nothing but the inline style sheet: no script, no
image, font or style fetched from anywhere, no form sent; no referrer leaves with a link
followed. Whatever text the title and the body show is escaped by the page's writer
(results/text.py's html_text for text of a submission) before it gets here.
"""

from __future__ import annotations

CSP = "default-src 'none'; style-src 'unsafe-inline'"


def html_page(title: str, style: str, body: list[str]) -> str:
    """A whole page: the head (charset, viewport, the policy, no referrer, the title, the style sheet), then the
    body's parts, one per line, inside <main>; title and body are HTML already (escaped by their writer)."""
    return "\n".join(
        [
            "<!DOCTYPE html>",
            '<html lang="en">',
            "<head>",
            '<meta charset="utf-8">',
            '<meta name="viewport" content="width=device-width, initial-scale=1">',
            f'<meta http-equiv="Content-Security-Policy" content="{CSP}">',
            '<meta name="referrer" content="no-referrer">',
            f"<title>{title}</title>",
            f"<style>{style}</style>",
            "</head>",
            "<body>",
            "<main>",
            *body,
            "</main>",
            "</body>",
            "</html>",
            "",
        ]
    )
