"""The suite's own order (tests/conftest.py): the longest units first, the tests that share a module's fixture one unit,
and that unit named as pytest-xdist's --dist loadgroup reads it."""

from types import SimpleNamespace

import pytest
from xdist.scheduler import LoadGroupScheduling

from . import conftest


class FakeItem:
    """What the ordering reads of a collected test: its id, its slow (or takes) mark, the scopes of its fixtures."""

    def __init__(
        self, nodeid: str, seconds: float | None = None, scopes: tuple[str, ...] = ("function",), mark: str = "slow"
    ):
        self.nodeid = nodeid
        self.marks = [] if seconds is None else [getattr(pytest.mark, mark)(seconds=seconds).mark]
        self._fixtureinfo = SimpleNamespace(
            name2fixturedefs={f"f{i}": [SimpleNamespace(scope=scope)] for i, scope in enumerate(scopes)}
        )

    def get_closest_marker(self, name):
        return next((mark for mark in self.marks if mark.name == name), None)

    def add_marker(self, mark):
        self.marks.append(mark.mark)


def test_units_go_out_longest_first_and_a_shared_fixture_or_named_group_keeps_its_tests_together():
    items = [
        FakeItem("tests/a.py::test_fast"),
        FakeItem("tests/a.py::test_course_1", 10, ("module",)),
        FakeItem("tests/b.py::test_long", 30),
        FakeItem("tests/a.py::test_course_2", 25, ("module", "function")),
        FakeItem("tests/b.py::test_middle", 20),
        FakeItem("tests/c.py::test_one_uid", 8),
        FakeItem("tests/c.py::test_the_same_uid", 8),
        FakeItem("tests/d.py::test_cold_cache", 18, mark="takes"),  # not slow: make check runs it
    ]
    for item in items[5:7]:
        item.add_marker(pytest.mark.xdist_group("c-uids"))  # as a module names a group of its own
    conftest.pytest_collection_modifyitems(SimpleNamespace(getvalue=lambda name: False), items)
    assert [item.nodeid for item in items] == [
        "tests/a.py::test_course_1",  # with test_course_2: 35 s
        "tests/a.py::test_course_2",
        "tests/b.py::test_long",
        "tests/b.py::test_middle",
        "tests/d.py::test_cold_cache",  # 18 s by its takes mark, not a fast test's 0.05
        "tests/c.py::test_one_uid",  # 16 s together
        "tests/c.py::test_the_same_uid",
        "tests/a.py::test_fast",
    ]
    groups = {item.nodeid: [mark.args[0] for mark in item.marks if mark.name == "xdist_group"] for item in items}
    assert groups["tests/a.py::test_course_1"] == groups["tests/a.py::test_course_2"] == ["a"]
    assert groups["tests/c.py::test_one_uid"] == groups["tests/c.py::test_the_same_uid"] == ["c-uids"]
    assert groups["tests/b.py::test_long"] == groups["tests/a.py::test_fast"] == []


def test_a_grouped_tests_id_names_its_group_as_pytest_xdist_reads_it(request):
    """pytest 9 reads a test's id where pytest-xdist 3.8 no longer writes its group: the suite writes it there, and
    xdist's scheduler finds the group in it."""
    item, before = request.node, request.node._id
    try:
        conftest._name_with_group(item, "deliver/test_routes")
        conftest._name_with_group(item, "deliver/test_routes")  # once only
        assert item.nodeid == f"{before}@deliver/test_routes"
        assert LoadGroupScheduling._split_scope(None, item.nodeid) == "deliver/test_routes"
    finally:
        item._id = before
