#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# run.sh - run a command as root inside a throw-away QEMU VM that sees the
# host's filesystem read-only, then judge the guest kernel log.
#
# usage: run.sh [-t TIMEOUT_S] [-r RESULTS_DIR] [-k KVER] [-m MEM_MB]
#               [-c CPUS] [-q] [-i] [-- COMMAND...]
#
# Exit status:
#   the command's own exit status, if the guest kernel log is clean;
#   120  bad kernel messages in dmesg (the command's status is in
#        RESULTS_DIR/result);
#   124  the run hit TIMEOUT_S and QEMU was killed;
#   125  the guest never reported a status (panic, crash, boot failure) or
#        the harness failed;
#   2    usage error.
# See Documentation/testing.rst.

set -euo pipefail

SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
readonly SCRIPT_DIR
REPO_ROOT=$(cd "$SCRIPT_DIR/../../.." && pwd)
readonly REPO_ROOT
# shellcheck source=tools/testing/vm/lib.sh
. "$SCRIPT_DIR/lib.sh"

readonly EXIT_DMESG=120 EXIT_TIMEOUT=124 EXIT_HARNESS=125
BUILD_DIR=${MPDT_VM_BUILD_DIR:-$REPO_ROOT/build/vm}
QEMU=${QEMU:-qemu-system-x86_64}
# How many default (auto-named) results directories to keep.
KEEP_RESULTS=${MPDT_VM_KEEP_RESULTS:-20}

# Options (see usage()).
timeout_s=${MPDT_VM_TIMEOUT:-900}
results_dir=
kver=${MPDT_VM_KVER:-}
mem_mb=${MPDT_VM_MEM:-2048}
cpus=${MPDT_VM_CPUS:-2}
slub_debug=${MPDT_VM_SLUB_DEBUG-FZPU,MPDT*,mpdt*}
interactive=0
quiet=0
timeout_given=0

usage() {
	cat >&2 <<-EOF
	usage: $0 [options] -- COMMAND...
	       $0 [options] -i
	Run COMMAND as root in a QEMU VM (TCG) that mounts the host's / read-only.
	  -t SECONDS   kill the VM after SECONDS (default $timeout_s; -i: none)
	  -r DIR       results directory, exported read-write at the same path
	               (default: a new directory under $BUILD_DIR/results)
	  -k KVER      guest kernel (default: newest /boot/vmlinuz-*-amd64 with modules)
	  -m MB        guest memory (default $mem_mb)
	  -c N         guest CPUs (default $cpus)
	  -q           do not copy the console to stdout (it is still logged)
	  -i           interactive shell instead of COMMAND
	A single COMMAND word is a shell command line (run.sh -- 'a; b');
	several words are one argv, run as given (run.sh -- sh -c 'exit 3').
	Exit: COMMAND's status; $EXIT_DMESG bad dmesg; $EXIT_TIMEOUT timeout;
	$EXIT_HARNESS guest crashed/no status.
	EOF
	exit 2
}

msg() { echo "run.sh: $*" >&2; }
die() {
	msg "$*"
	exit "$EXIT_HARNESS"
}

# Single-quote each argument for a POSIX shell (the guest's /bin/sh is dash,
# so bash's printf %q output would not do).
sh_quote() {
	local arg out=
	for arg in "$@"; do
		out+=" '${arg//\'/\'\\\'\'}'"
	done
	printf '%s' "${out# }"
}

# Newest Debian kernel that has both an image and its modules.
default_kver() {
	local img k
	# shellcheck disable=SC2012 # names are plain; ls -v sorts versions
	for img in $(ls -1v /boot/vmlinuz-*-amd64 2>/dev/null | tac); do
		k=${img#/boot/vmlinuz-}
		if [[ -d /lib/modules/$k ]]; then
			echo "$k"
			return 0
		fi
	done
	return 1
}

parse_args() {
	local opt
	while getopts ":t:r:k:m:c:qih" opt; do
		case $opt in
		t) timeout_s=$OPTARG; timeout_given=1 ;;
		r) results_dir=$OPTARG ;;
		k) kver=$OPTARG ;;
		m) mem_mb=$OPTARG ;;
		c) cpus=$OPTARG ;;
		q) quiet=1 ;;
		i) interactive=1 ;;
		*) usage ;;
		esac
	done
	shift $((OPTIND - 1))
	command_args=("$@")
	[[ $timeout_s =~ ^[0-9]+$ && $mem_mb =~ ^[0-9]+$ && $cpus =~ ^[1-9][0-9]*$ ]] ||
		usage
	if [[ $interactive == 1 ]]; then
		[[ ${#command_args[@]} -eq 0 ]] || usage
		[[ -t 0 && -t 1 ]] || { msg "-i needs a terminal"; exit 2; }
		[[ $timeout_given == 1 ]] || timeout_s=0
	else
		[[ ${#command_args[@]} -gt 0 ]] || usage
	fi
}

# Create (or clean) the results directory and resolve it to a physical path:
# the guest mounts it at exactly that path.
prepare_results_dir() {
	if [[ -z $results_dir ]]; then
		mkdir -p "$BUILD_DIR/results"
		prune_results
		results_dir=$(mktemp -d "$BUILD_DIR/results/$(date +%Y%m%d-%H%M%S).XXXX")
	fi
	mkdir -p "$results_dir"
	results_dir=$(cd "$results_dir" && pwd -P)
	rm -rf "$results_dir/.vm" "$results_dir/dmesg.txt" "$results_dir/console.log" \
		"$results_dir/result" "$results_dir/vm-state.txt"
	mkdir "$results_dir/.vm"
	qmp_sock=$results_dir/.vm/qmp.sock
}

# Old auto-named results directories pile up: keep the newest few, but never
# touch one younger than 3 hours, since another run.sh may still be using it.
prune_results() {
	local -a dirs
	local d
	# Names start with a timestamp, so glob order is age order.
	shopt -s nullglob
	dirs=("$BUILD_DIR"/results/[0-9]*.*)
	shopt -u nullglob
	((${#dirs[@]} >= KEEP_RESULTS)) || return 0
	for d in "${dirs[@]:0:${#dirs[@]}-KEEP_RESULTS+1}"; do
		[[ -n $(find "$d" -maxdepth 0 -mmin +180) ]] && rm -rf -- "$d"
	done
	return 0
}

# The guest's /init sources .vm/config and runs .vm/cmd with /bin/sh.
write_guest_files() {
	local cwd rows=24 cols=80 size
	cwd=$(pwd -P)
	case $cwd/ in
	/tmp/* | /run/* | /var/tmp/*)
		msg "warning: $cwd is hidden by a tmpfs in the guest; run from elsewhere" ;;
	esac
	if [[ $interactive == 1 ]] && size=$(stty size 2>/dev/null); then
		rows=${size% *}
		cols=${size#* }
	fi
	cat >"$results_dir/.vm/config" <<-EOF
	MPDT_VM_RESULTS=$(sh_quote "$results_dir")
	MPDT_VM_INTERACTIVE=$interactive
	MPDT_VM_ROWS=$rows
	MPDT_VM_COLS=$cols
	MPDT_VM_TERM=$(sh_quote "${TERM:-vt100}")
	EOF
	{
		echo "cd -- $(sh_quote "$cwd") || exit $EXIT_HARNESS"
		if [[ $interactive == 1 ]]; then
			echo 'if command -v bash >/dev/null; then exec bash -i; else exec sh -i; fi'
		elif [[ ${#command_args[@]} -eq 1 ]]; then
			echo "exec sh -c $(sh_quote "${command_args[0]}")"
		else
			echo "exec $(sh_quote "${command_args[@]}")"
		fi
	} >"$results_dir/.vm/cmd"
}

# prepare_kernel: print the image to boot. Debian's bzImage is xz-compressed
# and decompressing it under TCG costs ~3 s per boot, so the ELF vmlinux is
# extracted once (cached in BUILD_DIR) and booted through its PVH entry
# point. Falls back to the bzImage whenever that does not work out.
prepare_kernel() {
	local bz=/boot/vmlinuz-$kver elf=$BUILD_DIR/vmlinux-$kver stamp off
	mkdir -p "$BUILD_DIR"	# not made yet when -r names the results
	stamp=$(stat -c '%s %Y' "$bz")
	if [[ -s $elf && -r $elf.stamp && $(<"$elf.stamp") == "$stamp" ]]; then
		echo "$elf"
		return
	fi
	# The payload starts at the first xz magic (like scripts/extract-vmlinux).
	off=$(LC_ALL=C grep -abo -m1 $'\xfd7zXZ' "$bz" 2>/dev/null | head -n1 | cut -d: -f1) || true
	if [[ -n $off ]] && command -v readelf >/dev/null &&
		{ tail -c +$((off + 1)) "$bz" | xz -dcq >"$elf.tmp.$$" 2>/dev/null || true; } &&
		# XEN_ELFNOTE_PHYS32_ENTRY (0x12): the PVH entry QEMU needs.
		readelf -n "$elf.tmp.$$" 2>/dev/null | grep -q 'Unknown note type: (0x00000012)'; then
		mv -f "$elf.tmp.$$" "$elf"
		echo "$stamp" >"$elf.stamp"
		echo "$elf"
	else
		rm -f "$elf.tmp.$$"
		echo "$bz"
	fi
}

# shellcheck disable=SC2054 # the commas are QEMU's, inside one argument
build_qemu_cmd() {
	local kernel=/boot/vmlinuz-$kver initrd=$BUILD_DIR/initramfs-$kver.cpio.gz
	local append chardev
	[[ -r $kernel ]] || die "cannot read $kernel"
	kernel=$(prepare_kernel)
	"$SCRIPT_DIR/mkinitramfs.sh" "$initrd" "$kver" || die "initramfs build failed"

	# panic=-1: reboot at once on panic (and -no-reboot turns that into a
	# QEMU exit). No oops=panic: oopses are found in dmesg instead.
	# Stall/lockup thresholds are raised because TCG on a busy host can
	# starve a vCPU for seconds; a real deadlock still trips them.
	# slub_debug on our own caches only: catches use-after-free and
	# overruns in the module at no cost to the rest of the kernel.
	# Performance runs set MPDT_VM_SLUB_DEBUG empty to turn it off.
	append="console=ttyS0,115200 panic=-1 quiet loglevel=4 log_buf_len=4M"
	append+=" mitigations=off 8250.nr_uarts=1 random.trust_cpu=on"
	append+=" watchdog_thresh=20 rcupdate.rcu_cpu_stall_timeout=60"
	# Kernel addresses that vm-watchdog.py saves are those of any boot.
	append+=" nokaslr"
	[[ -n $slub_debug ]] && append+=" slub_debug=$slub_debug"
	append+=" ${MPDT_VM_CMDLINE:-}"

	# QEMU option values escape a comma by doubling it.
	local res=${results_dir//,/,,}
	# signal=off: ^C goes to the guest (interactive) or is handled by
	# run.sh's trap, never by QEMU's own stdio code.
	if [[ $quiet == 1 ]]; then
		chardev="file,id=con0,path=$res/console.log"
	else
		chardev="stdio,id=con0,signal=off,logfile=$res/console.log"
		[[ $interactive == 1 ]] && chardev+=",mux=on"
	fi

	qemu_cmd=("$QEMU"
		-nodefaults -no-user-config -display none -no-reboot
		-accel tcg,thread=multi -cpu max -smp "$cpus" -m "$mem_mb"
		-kernel "${kernel//,/,,}" -initrd "${initrd//,/,,}" -append "$append"
		-chardev "$chardev" -serial chardev:con0
		-virtfs "local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap"
		-virtfs "local,path=$res,mount_tag=results,security_model=none,multidevs=remap")
	if [[ $interactive == 1 ]]; then
		# Ctrl-a x quits, Ctrl-a c toggles the QEMU monitor.
		qemu_cmd+=(-mon chardev=con0,mode=readline)
	elif [[ ${#qmp_sock} -lt 100 ]]; then
		# For vm-watchdog.py; a socket path is at most 107 bytes.
		qemu_cmd+=(-qmp "unix:${qmp_sock//,/,,},server=on,wait=off")
	fi
}

# Run QEMU under the host-side timeout. Sets qemu_rc and timed_out.
# Unattended, vm-watchdog.py ends the VM at the timeout and saves its
# vCPUs' state first; timeout(1), a minute later, is the backstop.
run_qemu() {
	local tpid wpid=
	timed_out=0
	qemu_rc=0
	if [[ $interactive == 1 ]]; then
		# Foreground: QEMU owns the terminal.
		if [[ $timeout_s -gt 0 ]]; then
			timeout --foreground -k 10 "$timeout_s" "${qemu_cmd[@]}" || qemu_rc=$?
		else
			"${qemu_cmd[@]}" || qemu_rc=$?
		fi
	else
		# Background + wait, so that a signal to run.sh (CI cancelling the
		# job, ^C) runs the trap and takes QEMU down too. stdin is
		# /dev/null: the guest must never eat the caller's input, and this
		# works with no stdin at all.
		timeout --foreground -k 10 "$((timeout_s ? timeout_s + 60 : 0))" \
			"${qemu_cmd[@]}" </dev/null &
		tpid=$!
		if [[ $timeout_s -gt 0 ]]; then
			"$SCRIPT_DIR/vm-watchdog.py" "$timeout_s" "$tpid" "$qmp_sock" \
				"$results_dir/vm-state.txt" "$results_dir/.vm/timed-out" &
			wpid=$!
		fi
		# shellcheck disable=SC2064 # expand the pids now
		trap "kill -TERM $tpid $wpid 2>/dev/null; wait $tpid; exit 130" INT TERM HUP
		wait "$tpid" || qemu_rc=$?
		trap - INT TERM HUP
		if [[ -n $wpid ]]; then
			kill "$wpid" 2>/dev/null || true
			wait "$wpid" 2>/dev/null || true
		fi
		[[ -e $results_dir/.vm/timed-out ]] && timed_out=1
	fi
	# timeout(1) exits 124 when it had to stop QEMU, 137 when it had to
	# SIGKILL it as well.
	if [[ $timeout_s -gt 0 && ($qemu_rc == 124 || $qemu_rc == 137) ]]; then
		timed_out=1
	fi
}

# Decide run.sh's exit status from what the guest left behind.
judge() {
	local status='' dmesg_state=clean log exit_code
	[[ -r $results_dir/.vm/status ]] && status=$(<"$results_dir/.vm/status")

	log=$results_dir/dmesg.txt
	if [[ ! -s $log ]]; then
		# Panicked guests write no dmesg.txt, but the console has the
		# panic (the kernel turns the console verbose on an oops).
		log=$results_dir/console.log
		dmesg_state=missing
	fi
	if [[ -r $log ]] && ! mpdt_dmesg_scan "$log" >"$results_dir/.vm/bad-lines"; then
		dmesg_state=bad
		msg "FAIL: bad kernel messages in $log:"
		cat "$results_dir/.vm/bad-lines" >&2
	fi

	if [[ $timed_out == 1 ]]; then
		msg "FAIL: timeout: VM killed after ${timeout_s} s"
		[[ -s $results_dir/vm-state.txt ]] &&
			msg "its vCPUs' state: $results_dir/vm-state.txt"
		exit_code=$EXIT_TIMEOUT
	elif [[ -z $status ]]; then
		msg "FAIL: the guest did not report an exit status (crash, panic or" \
			"boot failure; QEMU exit $qemu_rc); see $results_dir/console.log"
		exit_code=$EXIT_HARNESS
	elif [[ $dmesg_state == bad ]]; then
		exit_code=$EXIT_DMESG
	else
		exit_code=$status
	fi

	cat >"$results_dir/result" <<-EOF
	exit=$exit_code
	command_status=${status:-none}
	dmesg=$dmesg_state
	timeout=$timed_out
	elapsed_s=$SECONDS
	EOF
	msg "exit $exit_code (command: ${status:-none}, dmesg: $dmesg_state," \
		"${SECONDS} s); results in $results_dir"
	final_exit=$exit_code
}

main() {
	parse_args "$@"
	command -v "$QEMU" >/dev/null || die "$QEMU not found (apt-get install qemu-system-x86)"
	[[ -n $kver ]] || kver=$(default_kver) || die "no /boot/vmlinuz-*-amd64 with modules"
	[[ -d /lib/modules/$kver ]] || die "no /lib/modules/$kver"
	prepare_results_dir
	write_guest_files
	build_qemu_cmd
	SECONDS=0
	run_qemu
	judge
	exit "$final_exit"
}

main "$@"
