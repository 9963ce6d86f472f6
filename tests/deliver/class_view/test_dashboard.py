"""Does report.html show a class of 200 at a glance, escape everything a student wrote, and render in a browser?"""

import hashlib
import os
import random
import re
import shutil

import pytest

from autograder import assignments
from autograder.deliver.class_view.dashboard import render_dashboard
from autograder.deliver.class_view.report import class_figures
from autograder.deliver.class_view.similarity import Pair
from autograder.results.read import read_results
from tests.deliver.feedback.test_page import CHROMIUM, chromium

HOSTILE = '<img src=x onerror="alert(1)"><script>alert(2)</script>'
STUDENTS = 200


def class_of_200(mha):
    """200 students' results, groups per exercise (a few large ones, pairs, students on their own), alike pairs."""
    rng = random.Random(5)
    names = {f"student{i:03d}": f"Student {i}" for i in range(STUDENTS)}
    names["student007"] = HOSTILE  # a display name is the LMS's, hence the student's
    results, found, status = {}, [], {}
    for key in names:
        by_name = {}
        for name, points in mha.points.items():
            earned = points if rng.random() < 0.75 else round(points * rng.choice([0, 0.25, 0.5, 0.8]), 2)
            by_name[name] = {"score": earned, "max_score": points}
        mistakes = ["split_heads_reshapes_straight"] if rng.random() < 0.1 else []
        score = sum(entry["score"] for entry in by_name.values())
        results[key] = {"score": score, "extra_data": {"status": "graded", "by_name": by_name, "mistakes": mistakes}}
        status[key] = ("graded", "")
    for key in ("student197", "student198", "student199"):
        results[key] = {"extra_data": {"status": "not graded"}}
        status[key] = ("not graded", f"holds no notebook defining any graded name {HOSTILE}")
    keys = list(names)
    for exercise in mha.graded:
        sizes = [rng.choice([30, 14, 9]), 6, 3, 2, 2] + [1] * rng.randint(3, 12)
        for number, size in enumerate(sizes):
            members = sorted(rng.sample(keys[:197], size))
            found.append(
                {
                    "id": hashlib.sha256(f"{exercise} {number}".encode()).hexdigest()[:12],
                    "exercise": exercise,
                    "size": size,
                    "students": members,
                    "named": "split_heads_reshapes_straight" if number == 1 and exercise == "split_heads" else None,
                    "checks": [{"check": "keeps each head's features", "failed": 2, "of": 4}],
                    "excerpt": f"def {exercise}(x):\n    y = x.view(2, 3)  # {HOSTILE}\n    return y\n",
                    "unfinished": number == 2,
                    "note": "Reshape, then swap the axes." if number == 0 else None,
                }
            )
    pairs = [Pair(keys[2 * i], keys[2 * i + 1], round(0.98 - 0.02 * i, 4), 0.97, 0.99) for i in range(30)]
    pairs.insert(0, Pair("student007", "student008", 1.0, 1.0, 1.0))
    skipped = [(f"__MACOSX/{HOSTILE}", "macOS resource forks added by Archive Utility")]
    figures = class_figures(mha, {k: read_results(r) for k, r in results.items() if "by_name" in r["extra_data"]})
    return render_dashboard(mha, figures, found, pairs, status, skipped, names), found


@pytest.fixture(scope="module")
def rendered():
    return class_of_200(assignments.get("mha"))


@pytest.fixture(scope="module")
def page(rendered):
    return rendered[0]


def test_nothing_a_student_wrote_runs(page):
    """Names, code, reasons and file names with markup: is each shown as text, with no script, and no fetch allowed?"""
    assert "<script" not in page.lower() and "<img" not in page.lower()
    assert "&lt;img src=x onerror=&quot;alert(1)&quot;&gt;&lt;script&gt;alert(2)&lt;/script&gt;" in page
    assert "content=\"default-src 'none'; style-src 'unsafe-inline'\"" in page
    assert not re.search(r"""(src|href)=["']?(https?:|//)""", page)  # nothing from elsewhere


def test_a_class_of_200_reads_at_a_glance(rendered):
    """Every exercise's groups, a group's members and code folded away, students on their own folded into one
    line, the 20 most alike pairs, and the students not graded?"""
    page, found = rendered
    mha = assignments.get("mha")
    assert page.count("<details><summary>members and code</summary>") == len(found)
    assert all(f'id="group-{cluster["id"]}"' in page for cluster in found)
    assert len(re.findall(r"whose code fails it in a way of its own</summary>", page)) == len(mha.graded)
    assert page.count('<tr><td class="num">') == 20 and '<td class="num">100%</td>' in page  # the pairs shown
    assert 'href="students/student007/feedback.html"' in page
    assert page.count("holds no notebook defining any graded name") == 3
    assert '<span class="big">197</span>students graded' in page


@pytest.mark.slow
@pytest.mark.skipif(
    not CHROMIUM.exists(), reason="needs Debian's chromium at /usr/bin/chromium (apt-get install -y chromium)"
)
def test_the_dashboard_in_a_browser(page, tmp_path):
    """An instructor opens report.html: does the DOM hold the sections, and the screenshot the histogram and bars?"""
    from PIL import Image

    path = tmp_path / "report.html"
    path.write_text(page, encoding="utf-8")
    dom = chromium("--dump-dom", path.as_uri(), profile=tmp_path / "profile-dom")
    assert dom.returncode == 0, dom.stderr[-2000:]
    for section in ("scores", "exercises", "groups", "alike", "not-graded"):
        assert f'id="{section}"' in dom.stdout
    shot = tmp_path / "report.png"
    done = chromium(f"--screenshot={shot}", "--window-size=1280,7200", path.as_uri(), profile=tmp_path / "profile-shot")
    assert done.returncode == 0 and shot.exists(), done.stderr[-2000:]
    if os.environ.get("DASHBOARD_SCREENSHOT"):  # keep it for a person to look at
        shutil.copy(shot, os.environ["DASHBOARD_SCREENSHOT"])
    with Image.open(shot) as image:
        colours = {colour: count for count, colour in image.convert("RGB").getcolors(1280 * 7200)}
    assert 0.4 < colours.get((255, 255, 255), 0) / (1280 * 7200) < 0.97, "the page is blank or a solid block"
    for what, rgb in (
        ("histogram", (0x4C, 0x72, 0xB0)),
        ("full marks", (0x1A, 0x7F, 0x37)),
        ("alike", (0xCF, 0x22, 0x2E)),
    ):
        assert colours.get(rgb, 0) > 200, f"no {what} bar is drawn in {rgb}"


def test_a_student_without_a_feedback_page_is_named_without_a_link(mha):
    """A student graded for no one (the export does not tell whose files are whose) has no feedback page: is the
    Not graded table naming them without a link, and linking those who have one?"""
    status = {"ann": ("not graded", "holds no notebook"), "u999": ("not graded", "x.py: reads as two students")}
    page = render_dashboard(mha, class_figures(mha, {}), [], [], status, [], {"u999": "mallory"}, pages={"ann"})
    assert '<a href="students/ann/feedback.html">ann</a>' in page
    assert "<td>mallory <span class=muted>(u999)</span></td>" in page and "students/u999/" not in page
