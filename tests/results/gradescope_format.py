"""Gradescope's results.json format, as a JSON schema written from its documentation, and checks against it.

gradescope_results.schema.json says where each rule comes from. tests/conftest.py runs
``tree_problems`` after every test on what the test left in its tmp_path, so every
results.json the kit writes in any test's scenario is checked; test_gradescope_format.py
writes one in each way the kit can and checks those.
"""

import json
import os
from pathlib import Path

from jsonschema import Draft202012Validator

SCHEMA = json.loads(Path(__file__).with_name("gradescope_results.schema.json").read_text())
Draft202012Validator.check_schema(SCHEMA)
VALIDATOR = Draft202012Validator(SCHEMA)
DEPTH = 8  # the kit writes results.json at most a few folders down (out/students/<key>/results.json)


def _refuse(constant: str):
    raise ValueError(f"{constant} is not JSON (RFC 8259 has no NaN or Infinity)")


def problems(results) -> list[str]:
    """Where a results dict breaks the documented format, one line each (none when it follows it)."""
    found = []
    for error in sorted(VALIDATOR.iter_errors(results), key=lambda e: list(map(str, e.absolute_path))):
        where = "/".join(map(str, error.absolute_path)) or "(top level)"
        found.append(f"{where}: {error.message[:300]}")
    return found


def file_problems(path: Path) -> list[str]:
    """Where a results.json file breaks the format: not strict JSON (NaN), or against the schema."""
    text = path.read_text(encoding="utf-8")
    try:
        results = json.loads(text, parse_constant=_refuse)
    except ValueError as error:
        return [f"not JSON: {error}"]
    return problems(results)


def results_files(folder: Path) -> list[Path]:
    """The results.json files under folder, DEPTH levels down at most, links not followed (an explicit stack:
    a test may leave a tree thousands of levels deep)."""
    found, stack = [], [(Path(folder), 0)]
    while stack:
        here, depth = stack.pop()
        try:
            entries = list(os.scandir(here))
        except OSError:
            continue
        for entry in entries:
            if entry.is_dir(follow_symlinks=False) and depth < DEPTH:
                stack.append((Path(entry.path), depth + 1))
            elif entry.name == "results.json" and entry.is_file(follow_symlinks=False):
                found.append(Path(entry.path))
    return sorted(found)


def _written_by_a_test(path: Path) -> bool:
    """A file that is no JSON object at all is a test's own damaged fixture, never the kit's."""
    try:
        return not isinstance(json.loads(path.read_text(encoding="utf-8")), dict)
    except (ValueError, OSError, UnicodeDecodeError):
        return True


def tree_problems(folder: Path) -> list[str]:
    """Every results.json the kit left under folder that breaks Gradescope's format, with where."""
    found = []
    for path in results_files(folder):
        if not _written_by_a_test(path):
            found += [f"{path.relative_to(folder)}: {problem}" for problem in file_problems(path)]
    return found
