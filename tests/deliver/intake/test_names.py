"""Names from an export: safe to print, and turned into keys (folder names) that are safe to write and unique."""

from __future__ import annotations

from pathlib import Path

import pytest

from autograder.deliver.intake import names
from autograder.deliver.intake.names import MAX_KEY_LENGTH


@pytest.mark.parametrize(
    "text, shown",
    [
        ("Zo\u00eb \u00dcnal", "Zo\u00eb \u00dcnal"),  # letters of any script are kept
        ("Zoe\u0301", "Zo\u00e9"),  # composed (NFC), as a terminal shows it
        ("caf\udce9", "caf\\xe9"),  # a byte os.fsdecode could not decode
        ("a\\x1b", "a\\\\x1b"),  # a backslash doubled, so an escape is never forged
        ("a\nb\tc\rd", "a\\nb\\tc\\rd"),
        ("evil\x1b[2J", "evil\\x1b[2J"),  # a terminal escape, printed not obeyed
        ("gpj.\u202eexe", "gpj.\\u202eexe"),  # a right-to-left override, which would show "exe.jpg"
        ("a\u2028b", "a\\u2028b"),  # a line separator
        ("\U000e0041", "\\U000e0041"),  # a tag character, outside the basic plane
    ],
)
def test_printable(text, shown):
    """Is every byte and character that could hide or rewrite what a terminal shows escaped, and letters kept?"""
    assert names.printable(text) == shown
    assert names.printable(text).isprintable()


@pytest.mark.parametrize(
    "text, slugged",
    [
        ("Jane Doe", "Jane_Doe"),
        ("M\u00fcller-J\u00fcrgen", "Muller-Jurgen"),  # accents dropped, the letter kept
        ("\u5f20\u4f1f", ""),  # nothing ASCII left
        ("a  /  b", "a_b"),  # a run of others is one '_'
        ("..hidden..name..", "hidden.name"),  # no '..', no dot at either end
        ("-rf", "rf"),  # never an option's shape
        ("_a_", "a"),
    ],
)
def test_slug(text, slugged):
    """Is a name made of ASCII letters, digits, '-', '_' and '.' only, with no '..' and nothing odd at its ends?"""
    assert names.slug(text) == slugged


def test_slug_keeps_within_its_limit_and_ends_clean():
    """Is a long name cut to the limit, and a cut that ends on '_' trimmed?"""
    assert names.slug("a" * 100) == "a" * MAX_KEY_LENGTH
    assert names.slug("abc def", limit=4) == "abc"


@pytest.mark.parametrize(
    "name, student_id, key",
    [
        ("Jane Doe", "1234567", "Jane_Doe-1234567"),
        ("octocat", "OctoCat", "octocat"),  # the id adds nothing where it is the name
        ("", "1234567", "1234567"),
        ("\u5f20\u4f1f", "", "student"),  # nothing left of either
        ("Summary", "", "student-Summary"),  # a file grade-all writes beside the students' folders
        ("report.csv", "", "student-report.csv"),
        ("nul", "", "student-nul"),  # a Windows device name
        ("com1", "7", "com1-7"),  # not a reserved stem once the id follows
    ],
)
def test_key_base(name, student_id, key):
    """Is a key the name, then the id where it differs, never empty and never a name grade-all or Windows reserves?"""
    assert names.key_base(name, student_id) == key


def test_key_base_is_never_longer_than_a_key():
    """Are a long name and a long id together cut to MAX_KEY_LENGTH, ending clean?"""
    key = names.key_base("n" * 60, "i" * 60)
    assert key == "n" * 40 + "-" + "i" * 23 and len(key) == MAX_KEY_LENGTH


def test_unique_counts_up_ignoring_case_within_the_length():
    """Is a key taken already (in any case) given -2, -3, ..., cut so that it still fits MAX_KEY_LENGTH?"""
    used: set[str] = set()
    assert [names.unique(base, used) for base in ("Zoe", "zoe", "ZOE", "Zoe-2")] == ["Zoe", "zoe-2", "ZOE-3", "Zoe-2-2"]
    assert used == {"zoe", "zoe-2", "zoe-3", "zoe-2-2"}
    long = "x" * MAX_KEY_LENGTH
    assert names.unique(long, used) == long and names.unique(long, used) == "x" * (MAX_KEY_LENGTH - 2) + "-2"


@pytest.mark.parametrize(
    "name, safe",
    [
        ("mha.ipynb", "mha.ipynb"),
        ("../../etc/passwd", "passwd"),
        ("C:\\Users\\ann\\mha.py", "mha.py"),
        ("a\x00b.py", "ab.py"),
        ("..", "fallback"),
        (".", "fallback"),
        ("dir/", "fallback"),
        ("  ", "fallback"),
    ],
)
def test_safe_file_name(name, safe):
    """Is a name a student gave a file one path component, never '.', '..' or empty?"""
    assert names.safe_file_name(name, "fallback") == safe


@pytest.mark.parametrize(
    "given, prefix",
    [
        (["mha-ann", "mha-bob"], "mha-"),
        (["hw1-lab-ann", "hw1-lab-bob"], "hw1-lab-"),  # cut after the last separator shared
        (["mha-ann"], ""),  # one name: nothing tells where its prefix ends
        (["ann", "bob"], ""),
        (["mha-", "mha-bob"], ""),  # a name that is the prefix alone would be left empty
        (["anna-x", "anne-y"], ""),  # no separator in what they share
    ],
)
def test_common_prefix(given, prefix):
    """Is the prefix the longest all names share cut after its last separator, and '' where it would empty a name?"""
    assert names.common_prefix(given, "-") == prefix


def test_dedupe_numbers_a_second_name_before_its_extension():
    """Are names repeated in one folder (in any case) given -2, -3 before the extension, or at the end without one?"""
    given = ["mha.ipynb", "MHA.ipynb", "mha.ipynb", "README", "README", ".env", ".env", "utils.py"]
    found = names.dedupe([(Path(str(i)), name) for i, name in enumerate(given)])
    assert [name for _, name in found] == [
        "mha.ipynb",
        "MHA-2.ipynb",
        "mha-3.ipynb",
        "README",
        "README-2",
        ".env",
        ".env-2",
        "utils.py",
    ]
    assert [path.name for path, _ in found] == [str(i) for i in range(len(given))]
