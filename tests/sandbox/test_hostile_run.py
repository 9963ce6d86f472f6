"""Does the hostile set's check of the kit's files count every change but the machine's own to a CA bundle?"""

import pytest

from . import hostile_run

PEM = b"-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIUQ2xhc3Nyb29tUHJveHk=\n-----END CERTIFICATE-----\n"


@pytest.fixture
def kit(tmp_path, monkeypatch):
    """A kit of two files: a module, and certifi's CA bundle in its virtual environment."""
    bundle = tmp_path / ".venv" / "certifi" / "cacert.pem"
    bundle.parent.mkdir(parents=True)
    bundle.write_bytes(b"# bundle\n" + PEM)
    (tmp_path / "autograder.py").write_text("POINTS = 40\n")
    monkeypatch.setattr(hostile_run, "KIT_ROOT", tmp_path)
    return tmp_path


@pytest.mark.parametrize(
    "edit, counted",
    [
        (lambda kit: (kit / "autograder.py").write_text("POINTS = 41\n"), True),
        (lambda kit: (kit / "stray.py").write_text(""), True),
        (lambda kit: (kit / ".venv/certifi/cacert.pem").write_bytes(b"# bundle\n" + PEM + PEM), False),
        (lambda kit: (kit / ".venv/certifi/cacert.pem").write_bytes(b"# bundle\n" + PEM + b"import os\n"), True),
        (lambda kit: (kit / ".venv/certifi/cacert.pem").write_bytes(PEM + b"# bundle\n" + PEM), True),
        (lambda kit: (kit / ".venv/certifi/cacert.pem").write_bytes(b"# bundle\n"), True),
    ],
    ids=[
        "a module edited",
        "a file added",
        "a certificate appended to the bundle",
        "code appended to the bundle",
        "a certificate put first",
        "the bundle cut short",
    ],  # fmt: skip
)
def test_a_change_counts_unless_certificates_were_appended_to_a_ca_bundle(kit, edit, counted):
    before = hostile_run.kit_files()
    edit(kit)
    assert bool(hostile_run.changed_kit_files(before, hostile_run.kit_files())) is counted
