# Shortcuts for the scripts; the scripts are the source of truth (see README.md).
.PHONY: run test check-dockerfile

run:
	scripts/run

test:
	scripts/test

check-dockerfile:
	scripts/check-dockerfile
