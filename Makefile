# Shortcuts for the scripts; the scripts are the source of truth (see README.md).
.PHONY: run test check-dockerfile

run:
	scripts/run

test:
	scripts/test

check-dockerfile:
	scripts/check-dockerfile

# --- Benchmarks (bench/; never part of the tests) ---------------------------------------------------
# `make bench`: every scenario, 10 s wrk runs, medians of 3 (10-15 minutes); `make bench-quick`:
# 3 s runs, one of each (about 3 minutes). Results: the printed table and bench/bin/results.md;
# BENCHMARKS.md explains them. `make bench-profile` records a perf profile of the server under load;
# `make bench-budget` measures how much work per request the dispatch target leaves (the floor with work added);
# `make bench-placement` runs the dispatch load with the two workers placed by hand (together, apart, free);
# `make bench-resumes` counts the worker wake-ups by resumes in the 10,000-session long-poll fan-out;
# `make bench-cachesim` counts what one change of that fan-out touches cold (valgrind's cache simulation);
# `make bench-cpusplit` splits that fan-out's CPU into the server's user and system time, the client's, and the
# whole machine's user, system, interrupt and idle time over its window.
.PHONY: bench bench-quick bench-profile bench-budget bench-placement bench-resumes bench-cachesim bench-cpusplit

bench:
	bench/run.sh

bench-quick:
	BENCH_DURATION=3 BENCH_REPEAT=1 bench/run.sh

bench-profile:
	bench/profile.sh

bench-budget:
	bench/budget.sh

bench-placement:
	bench/placement.sh

bench-resumes:
	bench/resumes.sh

bench-cachesim:
	bench/cachesim.sh

bench-cpusplit:
	bench/cpusplit.sh

# --- Reliability (RELIABILITY.md; the API fuzzing also runs in `make test`) -------------------------
.PHONY: api-fuzz fuzz sanitize-address sanitize-thread soak

api-fuzz:
	scripts/api-fuzz

fuzz:
	scripts/fuzz

sanitize-address:
	scripts/sanitize address

sanitize-thread:
	scripts/sanitize thread

soak:
	scripts/soak
