"""Does the course's Markdown reach a page as the notebook shows it (math as MathML), with nothing that runs or fetches?"""

import pytest

from autograder.deliver.grade_all import markdown_html as module
from autograder.deliver.grade_all.markdown_html import markdown_html, mathml


def test_markdown_renders_as_jupyter_shows_it():
    """Are emphasis, code, lists and tables rendered, and a formula, inline or on its own, MathML?"""
    page = markdown_html(
        "**Explain** *why* `x @ W`:\n\n- one\n- two\n\n| a | b |\n|---|---|\n| 1 | $x^2$ |\n\n"
        "Divide by $\\sqrt{d_k}$.\n\n$$\\frac{QK^T}{\\sqrt{d_k}}$$\n"
    )
    assert "<strong>Explain</strong> <em>why</em> <code>x @ W</code>" in page
    assert "<li>one</li>" in page and "<td>1</td>" in page
    assert '<math xmlns="http://www.w3.org/1998/Math/MathML" display="inline"><mrow><msup><mi>x</mi><mn>2</mn>' in page
    assert "<msqrt><mrow><msub><mi>d</mi><mi>k</mi></msub></mrow></msqrt>" in page
    assert 'display="block"><mrow><mfrac>' in page and "$" not in page


@pytest.mark.parametrize(
    "text, shown, absent",
    [
        ("<script>alert(1)</script>", "&lt;script&gt;alert(1)&lt;/script&gt;", "<script"),
        ('<img src="x" onerror="alert(1)">', "&lt;img src=", "<img"),
        ("![a plot](https://example.org/plot.png)", "a plot", "<img"),
        ("[click](javascript:alert(1))", 'href="#harmful-link"', "javascript:"),
        ("$\\text{<script>alert(1)</script>}$", "\\text{&lt;script&gt;alert(1)&lt;/script&gt;}", "<script"),
        ("$\\href{javascript:alert(1)}{x}$", '<code class="math">\\href{javascript:alert(1)}{x}</code>', "href="),
        ("$\\frac{1}{$", '<code class="math">\\frac{1}{</code>', "<math"),
    ],
    ids=["raw HTML", "a handler", "an image", "a script link", "markup in \\text", "\\href", "a broken formula"],
)
def test_nothing_that_runs_or_fetches_reaches_the_page(text, shown, absent):
    """Is raw HTML shown as text, an image as its alt text, a harmful link made harmless, and a formula that
    latex2mathml would carry markup or a link through (or cannot read) shown as its escaped LaTeX?"""
    page = markdown_html(text)
    assert shown in page and absent not in page


def test_the_mathml_keeps_only_its_allow_list():
    """Is a formula rebuilt from MathML's presentation elements and layout attributes only, the text escaped?"""
    assert mathml("a < b", display=False) == (
        '<math xmlns="http://www.w3.org/1998/Math/MathML" display="inline"><mrow><mi>a</mi><mo>&lt;</mo>'
        "<mi>b</mi></mrow></math>"
    )


def test_without_the_instructors_extra_the_text_is_shown_escaped(monkeypatch):
    """Without mistune or latex2mathml, is the Markdown shown as it is, escaped?"""
    monkeypatch.setattr(module, "available", lambda: False)
    assert markdown_html("**a** <b>$x$</b>") == '<div class="text">**a** &lt;b&gt;$x$&lt;/b&gt;</div>'
