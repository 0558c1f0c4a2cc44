/* SPDX-License-Identifier: LGPL-2.1-or-later */
// The libFuzzer entry point of the API harness (api_fuzz.cc), also called
// by the corpus test under the ordinary compilers and sanitizers.
#ifndef RCUPOOL_TESTS_FUZZ_API_FUZZ_H
#define RCUPOOL_TESTS_FUZZ_API_FUZZ_H

#include <stddef.h>
#include <stdint.h>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

// Destroys the manager the harness carries from one input to the next
// (aborts if that fails: every input releases its pins).
void ApiFuzzDestroyCarriedManager();

#endif
