/*
 * shim.h - libFuzzer's driver entry point, for remvvm-fuzz.
 *
 * libFuzzer (linked by `-sanitize=fuzzer`) brings its own `main`, but SwiftPM links every executable with
 * `main` aliased to the module's entry point, so the executable keeps its own `main` and hands control to
 * libFuzzer through LLVMFuzzerRunDriver (LLVM 11 and later). The symbol exists only in a fuzzer build:
 * only code compiled with REMVVM_FUZZ refers to it.
 */
#ifndef CLIBFUZZER_SHIM_H
#define CLIBFUZZER_SHIM_H

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

#endif
