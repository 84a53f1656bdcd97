#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Harness self-test: skips on purpose (KSFT_SKIP).
echo "this test skips on purpose"
exit 4
