#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Runs the consumer's program (its path: $1) and checks its exit status
# and its line.
out=$("$1") || { echo "dispatch failed: $out"; exit 1; }
echo "$out"
expected="sum 499500 on the pinned pool of 2 threads (pthreadpool: 2; current: 1)"
[ "$out" = "$expected" ] || { echo "expected: $expected"; exit 1; }
