#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Harness self-test: fails on purpose.
echo "this test fails on purpose"
exit 1
