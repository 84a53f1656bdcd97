#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Harness self-test: passes, and proves the guest environment is usable.
set -e
echo "kernel $(uname -r) in $(pwd)"
ip netns add mpdt-selftest
ip netns list | grep -q mpdt-selftest
ip netns del mpdt-selftest
modprobe veth
python3 -c 'print("python ok")'
