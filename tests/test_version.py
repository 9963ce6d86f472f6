"""The kit has one version number: autograder.__version__, which the installed package reports too."""

import importlib.metadata
import re

from autograder import KIT_ROOT, __version__


def test_one_version_number():
    """Does the installed package report __version__, and does pyproject.toml take it from there, naming none itself?"""
    assert importlib.metadata.version("autograder") == __version__
    project = (KIT_ROOT / "pyproject.toml").read_text()
    assert not re.search(r"^version\s*=", project, re.MULTILINE)
    assert 'version = { attr = "autograder.__version__" }' in project
