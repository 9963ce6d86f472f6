"""Do the README and the docs stay true: the README a front door, every link leading somewhere, every command
and make target they show one the kit has?"""

import re
import shlex
from pathlib import Path

import pytest

from autograder import KIT_ROOT
from autograder.cli import build_parser

DOCS = [KIT_ROOT / "README.md", KIT_ROOT / "CONTRIBUTING.md", *sorted((KIT_ROOT / "docs").rglob("*.md"))]
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
CODE = re.compile(r"`([^`]+)`")


def named(path: Path) -> str:
    return path.relative_to(KIT_ROOT).as_posix()


def slug(heading: str) -> str:
    """GitHub's anchor of a heading: lower case, punctuation dropped (but - and _), spaces to hyphens."""
    text = re.sub(r"[`*]", "", heading.strip().lower())
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def anchors(path: Path) -> set[str]:
    return {slug(line.lstrip("#")) for line in path.read_text().splitlines() if re.match(r"#{1,6} ", line)}


def code_lines(path: Path) -> list[str]:
    """Every line of the fenced blocks, and every inline code span, of a Markdown file."""
    found, fenced = [], False
    for line in path.read_text().splitlines():
        if line.lstrip().startswith("```"):
            fenced = not fenced
            continue
        found += [line.strip()] if fenced else CODE.findall(line)
    return found


def test_the_readme_is_a_front_door():
    """Is the README about 150 lines, with the two commands, a numbered first-semester walkthrough, and a link
    to every page of docs/ and to CONTRIBUTING.md?"""
    text = (KIT_ROOT / "README.md").read_text()
    assert len(text.splitlines()) <= 170
    assert "make demo" in text and "make test" in text
    steps = re.findall(r"^(\d+)\. \*\*", text, flags=re.MULTILINE)
    assert steps == [str(n) for n in range(1, len(steps) + 1)] and len(steps) >= 6
    linked = {target.split("#")[0] for target in LINK.findall(text)}
    pages = {named(path) for path in DOCS if path.name != "README.md" or path.parent != KIT_ROOT}
    assert pages - linked == set()


@pytest.mark.parametrize("path", DOCS, ids=named)
def test_every_link_leads_to_a_file_and_heading_that_exist(path):
    """Does each relative link of the page name a file of the repository, and each #anchor a heading there?"""
    broken = []
    for target in LINK.findall(path.read_text()):
        if re.match(r"[a-z]+:", target):
            continue  # https:, mailto:: outside the repository
        file, _, anchor = target.partition("#")
        where = (path.parent / file).resolve() if file else path
        if not where.exists():
            broken.append(f"{target}: no such file")
        elif anchor and where.suffix == ".md" and anchor not in anchors(where):
            broken.append(f"{target}: no heading #{anchor} in {named(where)}")
    assert not broken, broken


@pytest.mark.parametrize("path", DOCS, ids=named)
def test_every_command_shown_is_one_the_kit_has(path):
    """Does each `python -m autograder ...` the page shows name a real subcommand, with options it takes?"""
    parser = build_parser()
    problems = []
    commands = set(_subparser_choices(parser))
    for line in code_lines(path):
        if "python -m autograder " in line:
            line = line.split("python -m autograder ", 1)[1]
        elif not (line.split(" ", 1)[0] in commands and " -" in line):
            continue  # a command written without its prefix is checked where it shows an option
        words = shlex.split(line.split("#")[0].replace("[", " ").replace("]", " "), posix=True)
        if not words or words[0] in ("COMMAND", "...") or words[0].startswith("-"):
            continue
        sub = _subparser(parser, words)
        if sub is None:
            problems.append(f"{line}: no command {words[0]!r}")
            continue
        known = set(sub._option_string_actions)
        problems += [
            f"{line}: {word} is no option of it"
            for word in words
            if word.startswith("-") and word.split("=")[0] not in known
        ]
    assert not problems, problems


def _subparser_choices(parser) -> dict:
    return next(action.choices for action in parser._actions if hasattr(action, "add_parser"))


def _subparser(parser, words):
    """The parser of the command the words name (one level, or two: push canvas)."""
    for level in range(2):
        choices = next(
            (
                action.choices
                for action in parser._actions
                if getattr(action, "choices", None) and hasattr(action, "add_parser")
            ),
            None,
        )
        if choices is None:
            return parser if level else None
        if not words or words[0] not in choices:
            return None if level == 0 else parser
        parser, words = choices[words[0]], words[1:]
    return parser


@pytest.mark.parametrize("path", DOCS, ids=named)
def test_every_make_target_shown_exists(path):
    """Does each `make X` the page shows name a target of the Makefile?"""
    targets = set(re.findall(r"^([\w.-]+):", (KIT_ROOT / "Makefile").read_text(), flags=re.MULTILINE))
    shown = {m for line in code_lines(path) for m in re.findall(r"(?:^|\s)make ([a-z][\w-]*)", line)}
    assert shown <= targets, shown - targets


def test_every_command_ci_runs_is_in_the_readme():
    """Does the README show each make command CI (.ci/run) runs, as CI writes it, so that the README stays true?"""
    ci = (KIT_ROOT / ".ci" / "run").read_text()
    commands = [line.strip() for line in ci.splitlines() if line.strip().startswith("make ")]
    readme = (KIT_ROOT / "README.md").read_text()
    assert commands and [c for c in commands if c not in readme] == []
