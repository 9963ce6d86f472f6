"""The kit has one version number: autograder.__version__, which the installed package reports too."""

import importlib.metadata
import sys

from autograder import KIT_ROOT, __version__

if sys.version_info >= (3, 11):
    import tomllib
else:
    import tomli as tomllib


def test_one_version_number():
    """Does the installed package report __version__, and does pyproject.toml take it from there, naming none itself?"""
    assert importlib.metadata.version("autograder") == __version__
    project = tomllib.loads((KIT_ROOT / "pyproject.toml").read_text())
    assert "version" not in project["project"] and "version" in project["project"]["dynamic"]
    assert project["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "autograder.__version__"}
