# Zodiac tracker. The two commands: `make run` and `make test` (and `make bench`).
SHELL := /bin/bash
.DEFAULT_GOAL := run

VENV := .venv
VPY := $(VENV)/bin/python
HOST ?= 127.0.0.1
PORT ?= 8000
PYTEST_ARGS ?=

# A Python >= 3.12: $(PYTHON) if set, else the first candidate that really runs as one
# (pyenv shims on the PATH exist but fail without PYENV_VERSION, so each is tried).
define find_python
for c in python3.13 python3.12 python3 \
  $$(command -v pyenv >/dev/null 2>&1 && ls -d "$$(pyenv root)"/versions/*/bin/python 2>/dev/null | sort -rV); do \
  if "$$c" -c 'import sys; sys.exit(sys.version_info < (3, 12))' >/dev/null 2>&1; then \
    command -v "$$c"; break; \
  fi; \
done
endef

MO_FILES := locale/es/LC_MESSAGES/django.mo locale/en/LC_MESSAGES/django.mo

.PHONY: run dev test quick deploy-check bench lint typecheck format messages clean venv-check audit

# The venv is remade when its Python is missing or older than 3.12.
venv-check:
	@if ! $(VPY) -c 'import sys; sys.exit(sys.version_info < (3, 12))' >/dev/null 2>&1; then \
	  py="$(PYTHON)"; \
	  if [ -n "$$py" ] && ! "$$py" -c 'import sys; sys.exit(sys.version_info < (3, 12))' >/dev/null 2>&1; then \
	    echo "PYTHON=$$py does not run as Python >= 3.12." >&2; exit 1; \
	  fi; \
	  [ -n "$$py" ] || py=$$($(find_python)); \
	  if [ -z "$$py" ]; then \
	    echo "No Python >= 3.12 found (tried \$$PYTHON, python3.13, python3.12, python3 and pyenv's versions)." >&2; \
	    echo "Install Python 3.12 or newer, or run: make PYTHON=/path/to/python3.12 ..." >&2; \
	    exit 1; \
	  fi; \
	  echo "Creating $(VENV) with $$py"; \
	  rm -rf $(VENV) && "$$py" -m venv $(VENV) && $(VPY) -m pip install -q --upgrade pip; \
	fi

$(VENV)/.run-installed: requirements.txt | venv-check
	$(VPY) -m pip install -q -r requirements.txt
	@touch $@

$(VENV)/.dev-installed: requirements.txt requirements-dev.txt | venv-check
	$(VPY) -m pip install -q -r requirements-dev.txt
	@touch $@ $(VENV)/.run-installed

# The page checks' tools (html-validate, axe-core), pinned in package-lock.json; needs npm.
NODE_CHECKS := node_modules/.installed
$(NODE_CHECKS): package.json package-lock.json
	@command -v npm >/dev/null 2>&1 || { echo "npm is needed for the page checks (Debian: apt install nodejs npm)." >&2; exit 1; }
	npm ci --no-audit --no-fund --loglevel=error
	@touch $@

# The .mo files are committed; they are compiled here only when missing (needs gettext).
$(MO_FILES): | $(VENV)/.run-installed
	$(VPY) manage.py compilemessages --ignore=.venv

# `make run` serves as a table's own server: DEBUG off (players meet the app's own error
# pages), plain HTTP on its Wi-Fi, a secret key of this checkout's own (.secret_key), the
# static files collected. The demo's public logins load on loopback only, unless DEMO=1.
LOOPBACK := $(filter $(HOST),127.0.0.1 localhost ::1)
DEMO ?= $(if $(LOOPBACK),1,0)
ALLOWED_HOSTS ?= $(if $(LOOPBACK),127.0.0.1$(comma)localhost,*)
comma := ,
SECRET_FILE := .secret_key
RUN_ENV = DEBUG=false HTTPS=false SECRET_KEY="$$(cat $(SECRET_FILE))" ALLOWED_HOSTS="$(ALLOWED_HOSTS)"

$(SECRET_FILE): | $(VENV)/.run-installed
	@umask 077 && $(VPY) -c 'import secrets; print(secrets.token_urlsafe(50))' > $@

run: venv-check $(VENV)/.run-installed $(MO_FILES) $(SECRET_FILE)
	$(RUN_ENV) $(VPY) manage.py migrate --noinput
	$(RUN_ENV) $(VPY) manage.py collectstatic --noinput -v0
	@if [ "$(DEMO)" = 1 ]; then $(RUN_ENV) $(VPY) manage.py demo; \
	else echo "No demo on $(HOST) (its passwords are public): make run DEMO=1 to load it. Sign up from the login page for the first account."; fi
	@echo "Serving http://$(HOST):$(PORT)/  (Ctrl+C to stop)"
	$(RUN_ENV) $(VENV)/bin/uvicorn config.asgi:application --host $(HOST) --port $(PORT) --lifespan off --timeout-graceful-shutdown 5

# Development: DEBUG on (Django's error pages, static files straight from static/), code
# reloaded on change, the demo loaded.
dev: venv-check $(VENV)/.run-installed $(MO_FILES)
	$(VPY) manage.py migrate --noinput
	$(VPY) manage.py demo
	@echo "Serving http://$(HOST):$(PORT)/ with DEBUG on  (Ctrl+C to stop)"
	$(VENV)/bin/uvicorn config.asgi:application --host $(HOST) --port $(PORT) --lifespan off --timeout-graceful-shutdown 5 --reload --reload-dir campaign --reload-dir config --reload-dir rules --reload-dir templates

test: venv-check $(VENV)/.dev-installed $(MO_FILES) $(NODE_CHECKS)
	$(VPY) -m pytest $(PYTEST_ARGS)

# The suite without the browser and slow tests (CI runs everything, through `make test`).
quick: venv-check $(VENV)/.dev-installed $(MO_FILES) $(NODE_CHECKS)
	$(VPY) -m pytest -m "not browser and not slow" $(PYTEST_ARGS)

# The hosted topology for real: PostgreSQL, four app processes and nginx over HTTPS on
# loopback, from deploy/'s own files (tests/deploy/; needs nginx, openssl, PostgreSQL).
deploy-check: venv-check $(VENV)/.dev-installed $(MO_FILES)
	$(VPY) -m pytest tests/deploy $(PYTEST_ARGS)

# Every benchmark runs; the ones that missed a target are named at the end (exit 1).
bench: venv-check $(VENV)/.dev-installed
	@found=0; missed=""; for f in bench/bench_*.py; do \
	  [ -e "$$f" ] || continue; found=1; echo "== $$f"; \
	  $(VPY) "$$f" || missed="$$missed $$f"; \
	done; [ $$found = 1 ] || echo "No benchmarks in bench/."; \
	if [ -n "$$missed" ]; then echo "Missed a target:$$missed"; exit 1; fi

# ruff, then mypy: CI's lint step (.ci/run), and what .pre-commit-config.yaml runs too.
lint: venv-check $(VENV)/.dev-installed
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy

# Types: mypy with django-stubs over campaign, rules and config ([tool.mypy] in pyproject.toml).
typecheck: venv-check $(VENV)/.dev-installed
	$(VENV)/bin/mypy

format: venv-check $(VENV)/.dev-installed
	$(VENV)/bin/ruff check --fix .
	$(VENV)/bin/ruff format .

# After editing locale/*/LC_MESSAGES/django.po (needs gettext's msgfmt).
messages: venv-check $(VENV)/.run-installed
	$(VPY) manage.py makemessages -l es -l en --ignore=.venv --ignore=staticfiles --no-obsolete
	$(VPY) manage.py compilemessages --ignore=.venv

clean:
	rm -rf $(VENV) node_modules staticfiles .pytest_cache .ruff_cache .hypothesis

# Known vulnerabilities in the pinned requirements (pip-audit asks PyPI's advisory data:
# the machine needs to reach pypi.org). In a venv of its own, so its packages never mix
# with the app's.
AUDIT_VENV := .venv-audit
audit: venv-check
	@[ -x $(AUDIT_VENV)/bin/pip-audit ] || { $(VPY) -m venv $(AUDIT_VENV) && $(AUDIT_VENV)/bin/pip install -q pip-audit==2.10.1; }
	$(AUDIT_VENV)/bin/pip-audit -r requirements.txt -r requirements-dev.txt
