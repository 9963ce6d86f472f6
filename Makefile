# Two commands do everything, set-up included:
#   make demo   build the release with nbgrader and grade the bundled sample submissions
#   make test   run the kit's whole test suite
# The first run creates .venv/ and installs the pinned dependencies into it.
PYTHON ?= python3
VENV := .venv
KIT := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: demo test clean

demo: $(STAMP)
	$(KIT) -m autograder demo

test: $(STAMP)
	$(KIT) -m pytest

$(STAMP): requirements.lock pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(KIT) -m pip install --quiet --disable-pip-version-check -r requirements.lock
	$(KIT) -m pip install --quiet --disable-pip-version-check --no-deps --no-build-isolation -e .
	touch $@

clean:
	rm -rf $(VENV)
