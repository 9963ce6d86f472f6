"""junit.xml: one grading as the test report CI systems read (a testcase per hidden check of results.json)."""

from __future__ import annotations

from xml.etree.ElementTree import Element, SubElement, indent, tostring

from .model import Report
from .scoring import points_text
from .text import clean


def junit_xml(report: Report) -> str:
    """One testcase per hidden check of results.json; a failure wherever points were lost."""
    checks = report.graded_checks()
    failures = sum(check.score < check.max_score for check in checks)
    errors = sum(check.internal_error for check in checks)
    suite = Element(
        "testsuite",
        name=report.assignment,
        tests=str(len(checks)),
        failures=str(failures),
        errors=str(errors),
        time=f"{report.seconds:.3f}",
    )
    for check in checks:
        case = SubElement(suite, "testcase", classname=f"{report.assignment}.{check.name}", name=check.title)
        points = f"{points_text(check.score)} of {points_text(check.max_score)} points"
        message = clean(check.message)
        SubElement(case, "system-out").text = f"{points}\n{message}"
        if check.internal_error:
            SubElement(case, "error", message="the grading kit failed on this check").text = message
        elif check.score < check.max_score:
            SubElement(case, "failure", message=points).text = message
    indent(suite)
    return '<?xml version="1.0" encoding="utf-8"?>\n' + tostring(suite, encoding="unicode") + "\n"
