"""Does junit.xml give CI one testcase per hidden check of results.json, failed where points were lost?"""

from xml.etree.ElementTree import fromstring

from autograder.results.junit import junit_xml
from autograder.results.write import gradescope_json

from ..deliver.students import student_report


def test_a_testcase_per_hidden_check_of_results_json():
    """Are the testcases results.json's hidden tests, a failure where points were lost, the counts on the suite?"""
    report = student_report()
    suite = fromstring(junit_xml(report))
    hidden = [t for t in gradescope_json(report)["tests"] if t["extra_data"]["kind"] == "hidden"]
    cases = suite.findall("testcase")
    assert [f"{c.get('classname').split('.', 1)[1]}: {c.get('name')}" for c in cases] == [t["name"] for t in hidden]
    lost = [t for t in hidden if t["score"] < t["max_score"]]
    assert [c.get("name") for c in cases if c.find("failure") is not None] == [
        t["name"].split(": ", 1)[1] for t in lost
    ]
    assert (suite.get("tests"), suite.get("failures"), suite.get("errors")) == (str(len(hidden)), str(len(lost)), "0")
    first = next(c for c in cases if c.find("failure") is not None)
    assert first.find("failure").get("message").endswith(" points")
