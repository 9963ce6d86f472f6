"""Is every page the kit writes one head that can run and fetch nothing, around the body its writer escaped?"""

import re

from autograder.deliver.html_page import CSP, html_page


def test_the_page_allows_nothing_but_its_inline_style_and_keeps_the_body_in_order():
    """Does the head carry the policy (nothing but inline style), no referrer, the title and style as given, and the
    body's parts in order inside <main>?"""
    page = html_page("Ada &amp; Bob", "p{color:red}", ["<h1>one</h1>", "<p>two</p>"])
    assert f'<meta http-equiv="Content-Security-Policy" content="{CSP}">' in page
    assert CSP == "default-src 'none'; style-src 'unsafe-inline'"
    assert '<meta name="referrer" content="no-referrer">' in page
    assert "<title>Ada &amp; Bob</title>" in page and "<style>p{color:red}</style>" in page
    assert re.search(r"<main>\n<h1>one</h1>\n<p>two</p>\n</main>", page)
    assert page.startswith("<!DOCTYPE html>") and page.endswith("</html>\n")


def test_the_kits_pages_all_share_it(tmp_path):
    """Do the feedback page, the dashboard and the written answers' page all come through html_page (one head, one
    policy), so that none can be given a looser one alone?"""
    from pathlib import Path

    import autograder.deliver as deliver

    root = Path(deliver.__file__).parent
    writers = [p for p in root.rglob("*.py") if "<!DOCTYPE html>" in p.read_text() and p.name != "html_page.py"]
    assert writers == []
    users = {p.relative_to(root).as_posix() for p in root.rglob("*.py") if "html_page(" in p.read_text()}
    assert {"grade_all/answers.py", "class_view/dashboard.py", "feedback/page.py"} <= users
