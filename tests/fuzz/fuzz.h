/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The libFuzzer entry point, shared by the fuzzer (built with clang and
 * -fsanitize=fuzzer when -Dfuzz=true) and by fuzz-replay, the unit test that
 * runs the seed corpus through the same code on every build.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
