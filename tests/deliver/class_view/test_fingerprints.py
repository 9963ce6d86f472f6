"""Is a student's code normalised and fingerprinted as copydetect does it, without importing copydetect?"""

import io
import itertools

import numpy as np
import pytest

from autograder import KIT_ROOT
from autograder.deliver.class_view.fingerprints import NOISE, class_fingerprints, fingerprints, normalised

copydetect = pytest.importorskip("copydetect")
from copydetect.utils import filter_code  # noqa: E402  (copydetect is the instructor extra)

SAMPLES = sorted(
    path
    for folder in ("cohort", "heldout", "fairness", "hostile")
    for path in (KIT_ROOT / "tests" / "data" / folder).rglob("*")
    if path.suffix in (".py", ".ipynb") and path.is_file()
)


def sample_texts() -> list[str]:
    texts = []
    for path in SAMPLES:
        try:
            texts.append(path.read_text(encoding="utf-8"))
        except (UnicodeDecodeError, OSError):
            continue
    return texts


@pytest.mark.slow
def test_the_normalised_code_is_copydetects():
    """On every sample submission of the kit (modules, notebooks' text, the hostile ones), is the normalised code
    exactly what copydetect's filter_code makes of it?"""
    texts = sample_texts()
    assert len(texts) > 150
    different = [i for i, text in enumerate(texts) if normalised(text) != filter_code(text, "s.py", "python")[0]]
    assert not different, [str(SAMPLES[i]) for i in different[:5]]


def test_two_students_share_fingerprints_where_copydetects_share():
    """Do two normalised codes share as many fingerprints here as copydetect's (its hash() of each run of NOISE
    characters), each code having as many as copydetect gives it?"""
    texts = [normalised(text) for text in sample_texts()[:24]]
    ours = class_fingerprints(texts)
    theirs = [copydetect.CodeFingerprint("s.py", NOISE, 1, filter=False, fp=io.StringIO(t)).hashes for t in texts]
    assert [len(p) for p in ours] == [len(h) for h in theirs]
    for i, j in itertools.combinations(range(len(texts)), 2):
        assert len(np.intersect1d(ours[i], ours[j])) == len(theirs[i] & theirs[j]), (i, j)


def test_a_run_is_a_fingerprint_wherever_it_stands():
    """Is a run the same fingerprint at any place, in any class, its fingerprints each once and sorted, and does
    a code shorter than a run have none (class_fingerprints as fingerprints one at a time)?"""
    run = "defF(V):returnV.V(V,V)+12"  # NOISE characters
    assert len(run) == NOISE
    texts = [run, "x" + run, run + run, run[:-1], "", "é" * 30]
    found = class_fingerprints(texts)
    assert all(np.array_equal(found[i], fingerprints(text)) for i, text in enumerate(texts))
    assert found[0][0] in found[1] and found[0][0] in found[2] and len(found[0]) == 1
    assert len(found[3]) == 0 and len(found[4]) == 0 and len(found[5]) == 1
    assert all(np.all(p[1:] > p[:-1]) for p in found)
    assert len(found[2]) == len({(run + run)[i : i + NOISE] for i in range(NOISE + 1)})
