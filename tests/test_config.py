"""Does every front end get the same grading options, defaults and help from GradingConfig?"""

import argparse
from dataclasses import fields

import pytest

from autograder.config import GiB, GradingConfig


def parser_with(prefix: str = "") -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser()
    GradingConfig.add_arguments(parser, prefix)
    return parser


def test_no_option_gives_the_defaults():
    """Does a command line without options give GradingConfig's defaults?"""
    assert GradingConfig.from_arguments(parser_with().parse_args([])) == GradingConfig()


def test_each_option_parses_to_its_fields_type():
    """Are numbers parsed as numbers, choices kept, and the switch a bool, for every field?"""
    words = ["--device", "auto", "--timeout", "2.5", "--wall-factor", "4", "--memory", "0.5", "--processes", "8"]
    words += ["--grader-memory", "1.5", "--isolation", "uid", "--allow-unsandboxed", "--gpu-memory", "0.5"]
    made = GradingConfig.from_arguments(parser_with().parse_args(words))
    assert made == GradingConfig("auto", 2.5, 4.0, 0.5, 8, 1.5, "uid", True, 0.5)
    assert {item.name for item in fields(GradingConfig)} == {
        "device",
        "timeout",
        "wall_factor",
        "memory",
        "processes",
        "grader_memory",
        "isolation",
        "allow_unsandboxed",
        "gpu_memory",
    }


def test_a_value_outside_the_choices_is_refused(capsys):
    """Is --isolation with an unknown tier refused by argparse, listing the choices?"""
    with pytest.raises(SystemExit):
        parser_with().parse_args(["--isolation", "docker"])
    assert "choose from 'auto', 'hardened', 'userns', 'uid', 'process'" in capsys.readouterr().err


def test_the_help_gives_each_options_default():
    """Does --help say each option's default (the switch has none to say)?"""
    text = parser_with().format_help()
    assert "(default 10.0)" in text and "(default cpu)" in text and "(default 32)" in text
    assert "NOT isolated" in text


def test_as_arguments_gives_back_the_same_config():
    """Do the options written for another process parse back to the config, listing only what differs from the defaults?"""
    changed = GradingConfig(timeout=3.0, memory=1.5, allow_unsandboxed=True)
    words = changed.as_arguments()
    assert words == ["--timeout", "3.0", "--memory", "1.5", "--allow-unsandboxed"]
    assert GradingConfig.from_arguments(parser_with().parse_args(words)) == changed
    assert GradingConfig().as_arguments() == []


class PytestOptions:
    """What a pytest plugin has: a parser with addoption, a config with getoption."""

    def __init__(self):
        self.options = {}

    def addoption(self, name, default=None, **extra):
        self.options[name] = default

    def getoption(self, name):
        return self.options[name]


def test_the_pytest_route_declares_and_reads_prefixed_options():
    """Does the pytest route get --grade-<option> for every field and read them back through getoption?"""
    options = PytestOptions()
    GradingConfig.add_arguments(options, prefix="grade-")
    assert sorted(options.options) == sorted(f"--grade-{item.name.replace('_', '-')}" for item in fields(GradingConfig))
    options.options["--grade-timeout"] = 7.0
    assert GradingConfig.from_arguments(options.getoption, prefix="grade-") == GradingConfig(timeout=7.0)


def test_limits_give_the_memory_in_bytes():
    """Are the student's limits the config's, with its GiB (of memory, of GPU memory) turned into bytes?"""
    limits = GradingConfig(timeout=4.0, wall_factor=2.0, memory=1.5, processes=5, gpu_memory=0.5).limits()
    assert (limits.timeout, limits.wall_factor, limits.memory_bytes, limits.processes) == (4.0, 2.0, int(1.5 * GiB), 5)
    assert limits.gpu_memory_bytes == GiB // 2


def test_with_options_changes_only_what_it_is_given():
    """Does with_options return a new config with the named options changed, the original untouched?"""
    base = GradingConfig()
    changed = base.with_options(memory=1.5)
    assert changed.memory == 1.5 and base.memory == 2.0
    assert changed == GradingConfig(memory=1.5)
