# One way to lint, type-check, test and build; .ci/run calls these targets too.
UV ?= uv
export UV_PYTHON_DOWNLOADS := never
RUN := $(UV) run --locked --all-packages

.DEFAULT_GOAL := help
.PHONY: help sync lint format typecheck test e2e host host-record check versions build smoke walkthrough release-check bench soak mutate faults new-agent compliance

# The name column is as wide as the longest target's name, so every description starts in one column.
help: ## Show the targets
	@grep -E '^[a-z0-9-]+:.*## ' $(MAKEFILE_LIST) | awk 'BEGIN {FS = ":.*## "} \
		{name[NR] = $$1; text[NR] = $$2; if (length($$1) > width) width = length($$1)} \
		END {format = "  make %-" width "s  %s\n"; for (i = 1; i <= NR; i++) printf format, name[i], text[i]}'

sync: ## Install every package and the dev tools from uv.lock into .venv
	$(UV) sync --locked --all-packages

lint: ## ruff: lint rules and formatting
	$(RUN) ruff check .
	$(RUN) ruff format --check .

format: ## Apply ruff's fixes and formatting
	$(RUN) ruff check --fix .
	$(RUN) ruff format .

typecheck: ## pyright, strict on every package's src/
	$(RUN) pyright

# Coverage of every package's src/ ([tool.coverage.run] source), combined across the xdist workers,
# then held at 90% for each package on its own by tools/coverage_check.py (entire_sim, a test tool, is
# reported only: its soak and simulator paths run under the e2e tests, which coverage does not see).
test: ## pytest on all cores (xdist): all but the real-agent e2e tests (and the wheel walkthrough: make walkthrough); coverage >= 90% per package
	$(RUN) pytest -n auto -m "not e2e and not host" --cov --cov-report=term --cov-report=json:build/coverage.json
	$(RUN) python tools/coverage_check.py build/coverage.json --min 90 --report-only entire_sim

# Skipped with a one-line reason where `unshare -n` or the agents cannot be had (macOS); required,
# so failing instead, with CI=true or ENTIRE_E2E=1 (.ci/run sets it).
e2e: ## The real-agent end-to-end tests only (marker e2e): each agent's window against a scripted model server
	$(RUN) pytest -m e2e

# The real Entire CLI, named by ENTIRE_BIN (never built here), drives the plugins installed from their
# wheels and the real agents; without ENTIRE_BIN each test skips with one line (ENTIRE_HOST=1: fails).
host: ## The real Entire CLI in the loop (marker host): ENTIRE_BIN=/path/to/entire make host
	$(RUN) pytest -m host -p no:randomly -p no:cacheprovider

host-record: ## Re-record tests/data/host/<agent>.json from the real host (needs ENTIRE_BIN; AGENT=qwen: one agent's): what make test replays
	@test -n "$(ENTIRE_BIN)" || { echo 'host-record: needs ENTIRE_BIN=<path to a built Entire CLI v0.10.3>' >&2; exit 2; }
	ENTIRE_HOST=1 ENTIRE_HOST_RECORD=$(CURDIR)/tests/data/host $(RUN) pytest -m host tests/host -k "git-refs$(if $(AGENT), and $(AGENT))" -p no:randomly -p no:cacheprovider

check: lint typecheck test e2e ## Lint, type check, tests, end-to-end tests (CI then runs release-check)

versions: ## Check that versions, __version__, core requirements, uv.lock and CHANGELOG agree
	$(RUN) python tools/release/bump.py --check

# Private members (tools/entire-sim) are built too, then removed: dist/ holds only what may be uploaded.
build: ## Build every wheel and sdist into dist/ and check their metadata strictly
	rm -rf dist
	$(UV) build --all-packages --no-sources --out-dir dist
	$(RUN) python tools/release/check_dist.py dist --prune-private

smoke: ## Install each agent from dist/ into fresh environments (pip, uv tool) and run its contract suite
	$(RUN) python tools/release/smoke.py dist

# The wheelhouse (third-party wheels pinned by uv.lock) is the smoke test's; fetching it is the only
# step that uses the network, and it happens here, not in the test.
walkthrough: ## A new user's first hour from a fresh copy: wheels, uv tool install, enable, a turn each, uninstall
	house="$$($(RUN) python tools/release/smoke.py --wheelhouse)" && \
	ENTIRE_WHEELHOUSE="$$house" ENTIRE_WALKTHROUGH_REQUIRED=1 $(RUN) pytest tests/test_walkthrough.py -p no:cacheprovider -q

release-check: versions build smoke walkthrough ## What CI runs after the tests: version skew, build, smoke test, walkthrough

# turnend generates sessions of 1 MB, 100 MB and 1 GB once and caches them in $XDG_CACHE_HOME/entire-bench.
bench: ## Benchmarks: each agent from its wheel, each subcommand, each agent's TurnEnd, against bare interpreter start-up
	$(RUN) python tools/bench/bench.py wheels
	$(RUN) python tools/bench/bench.py hooks
	$(RUN) python tools/bench/bench.py subcommands
	$(RUN) python tools/bench/bench.py lifecycle
	$(RUN) python tools/bench/bench.py turnend

soak: ## Issue 10: a 300 MB Codex and a 100 MB Gemini session replayed turn by turn through entire-sim
	$(RUN) entire-sim soak --agent openai-codex --size 300M
	$(RUN) entire-sim soak --agent google-gemini --size 100M

# Not in CI: a full run took 72 minutes on 2 cores (2026-12-02, beside other jobs), most of it offsets and
# views. Survivors that behave exactly as the original are listed, with the reason, in
# tools/mutate/equivalent.toml. MODULES=... runs some of them.
mutate: ## Mutation testing of core's hook-path modules: killed, survived, equivalent per module (>= 90% each)
	$(RUN) python tools/mutate/mutate.py $(MODULES)

# HOST=1 (tools/faults/host.py): each step driven by the real Entire CLI named by ENTIRE_BIN (never built here).
# Not in CI: KILLS per agent (300: 1,198 in all, Qwen Code's 149 points each with both signals; 250 took about 40 minutes on two cores, 300 with CASES=10 about 70); a fixed-seed subset runs in make test
# (tools/faults/tests). Each run prints its seed; SEED=... repeats it. README: "Killed mid-write: make faults".
faults: ## Issue 37: each agent's bundled session, the plugin killed (SIGKILL, SIGTERM) at sampled write, fsync, rename, lock and answer points, then crowded and starved (tools/faults/cases.py), and what must hold checked after each (KILLS=300: every point once, then again with the other signal, CASES=10 runs of each case per agent, AGENT=, SEED=; under the real host, no cases: ENTIRE_BIN=/path/to/entire make faults HOST=1 KILLS=40)
	$(RUN) python tools/faults/faults.py --kills $(or $(KILLS),300) --cases $(or $(CASES),$(if $(HOST),0,10)) $(if $(AGENT),--agent $(AGENT)) $(if $(SEED),--seed $(SEED)) $(if $(HOST),--host)

# The README's "Adding an agent" says what is left to write after this.
new-agent: ## A new agent package wired into the workspace: make new-agent NAME=<name> [TITLE="Display Name"] [BINARY=cmd] [CONFIG_DIR=.dir]
	@test -n "$(NAME)" || { echo 'new-agent: give the registry name, e.g. make new-agent NAME=acme-coder' >&2; exit 2; }
	$(RUN) python tools/scaffold/new_agent.py $(if $(TITLE),--title "$(TITLE)") $(if $(BINARY),--binary "$(BINARY)") $(if $(CONFIG_DIR),--config-dir "$(CONFIG_DIR)") -- $(NAME)

# SUITE is Go's suite, built from github.com/entireio/external-agents-tests (README.md says how); it
# runs `go test`, so Go must be on PATH, or named with GO=. Each agent runs in a loopback-only namespace.
compliance: ## Go's compliance suite against every agent: make compliance SUITE=path [GO=path]
	$(if $(SUITE),,$(error SUITE is required: the path to a built external-agents-tests binary; build it from github.com/entireio/external-agents-tests with `go build -o external-agents-tests .` (README.md: "Go's compliance suite")))
	$(RUN) python tools/compliance/run.py --suite "$(SUITE)" $(if $(GO),--go "$(GO)")
