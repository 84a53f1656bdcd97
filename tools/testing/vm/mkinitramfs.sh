#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# mkinitramfs.sh OUT KVER
#
# Build the initramfs (gzip'd newc cpio) of the MPDT test VM for kernel KVER:
# busybox-static, tools/testing/vm/init as /init, and the (decompressed)
# modules needed to mount the host root over virtio-9p.
#
# Idempotent and cached: OUT.stamp records a hash of every input, and OUT is
# only rebuilt when that hash changes (new kernel, busybox, init, this
# script). OUT is replaced atomically, so concurrent runs never see half a
# file.

set -euo pipefail

# Top-level modules the guest needs; their dependencies are resolved with
# 'modprobe --show-depends' (fallback: the known 6.1 load order below).
readonly NEEDED_MODULES=(virtio_pci 9pnet_virtio 9p)
readonly FALLBACK_ORDER=(virtio_ring virtio virtio_pci_legacy_dev
	virtio_pci_modern_dev virtio_pci netfs fscache 9pnet 9pnet_virtio 9p)

SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
readonly SCRIPT_DIR
BUSYBOX=${BUSYBOX:-/bin/busybox}

die() {
	echo "mkinitramfs.sh: $*" >&2
	exit 1
}

usage() {
	echo "usage: $0 OUT KVER" >&2
	exit 2
}

# Print the absolute paths of the module files to load, in load order, one
# per line. Built-in modules print nothing.
module_paths() {
	local kver=$1 moddir=/lib/modules/$1 m line path
	if command -v modprobe >/dev/null &&
		modprobe -S "$kver" --show-depends virtio_pci >/dev/null 2>&1; then
		for m in "${NEEDED_MODULES[@]}"; do
			modprobe -S "$kver" --show-depends "$m" | while read -r line; do
				# "insmod PATH [opts]" or "builtin NAME"
				[[ $line == insmod\ * ]] || continue
				path=${line#insmod }
				echo "${path%% *}"
			done
		done | awk '!seen[$0]++'
		return
	fi
	for m in "${FALLBACK_ORDER[@]}"; do
		if grep -qE "/${m}\.ko\$" "$moddir/modules.builtin" 2>/dev/null; then
			continue
		fi
		path=$(find "$moddir/kernel" -name "$m.ko*" -print -quit)
		if [[ -n $path ]]; then
			echo "$path"
		else
			echo "mkinitramfs.sh: warning: module $m not found, skipping" >&2
		fi
	done
}

# Hash of everything the image is made from.
inputs_hash() {
	local kver=$1
	shift
	{
		echo "$kver"
		sha256sum "${BASH_SOURCE[0]}" "$SCRIPT_DIR/init" "$BUSYBOX" "$@"
	} | sha256sum | cut -d' ' -f1
}

# install_module SRC DESTDIR: copy a module, decompressing .xz/.zst/.gz since
# busybox insmod cannot load compressed modules. Prints the file name.
install_module() {
	local src=$1 dest=$2 base
	base=$(basename "$src")
	case $src in
	*.ko.xz) xz -dc "$src" >"$dest/${base%.xz}"; base=${base%.xz} ;;
	*.ko.zst) zstd -qdc "$src" >"$dest/${base%.zst}"; base=${base%.zst} ;;
	*.ko.gz) gzip -dc "$src" >"$dest/${base%.gz}"; base=${base%.gz} ;;
	*) cp "$src" "$dest/$base" ;;
	esac
	echo "$base"
}

build_image() {
	local out=$1 kver=$2 root=$3
	shift 3
	local mod applet

	mkdir -p "$root"/{bin,dev,etc/mpdt-vm,lib/modules,newroot,proc,results,sys,tmp}
	cp "$BUSYBOX" "$root/bin/busybox"
	for applet in $("$BUSYBOX" --list); do
		[[ $applet == busybox ]] || ln -s busybox "$root/bin/$applet"
	done
	install -m 0755 "$SCRIPT_DIR/init" "$root/init"
	: >"$root/etc/mpdt-vm/modules"
	for mod in "$@"; do
		install_module "$mod" "$root/lib/modules" >>"$root/etc/mpdt-vm/modules"
	done
	# The kernel's built-in initramfs already has /dev/console; this is only
	# for kernels without one and needs root, so failure is fine.
	mknod -m 600 "$root/dev/console" c 5 1 2>/dev/null || true

	(cd "$root" && find . -print0 | LC_ALL=C sort -z |
		cpio --null --create --format=newc --owner=0:0 --reproducible --quiet) |
		gzip -n -6 >"$out.tmp.$$"
	mv -f "$out.tmp.$$" "$out"
}

main() {
	[[ $# -eq 2 ]] || usage
	local out=$1 kver=$2 hash root
	local -a mods

	[[ -d /lib/modules/$kver ]] || die "no /lib/modules/$kver"
	[[ -x $BUSYBOX ]] || die "no $BUSYBOX (apt-get install busybox-static)"
	# Not "busybox --list | grep -q": with pipefail, grep's early exit
	# would fail the pipeline through SIGPIPE.
	[[ $'\n'$("$BUSYBOX" --list)$'\n' == *$'\n'cttyhack$'\n'* ]] ||
		die "$BUSYBOX lacks needed applets: is it busybox-static?"
	mapfile -t mods < <(module_paths "$kver")
	[[ ${#mods[@]} -gt 0 ]] || echo "mkinitramfs.sh: note: no modules needed (all built-in?)" >&2

	hash=$(inputs_hash "$kver" "${mods[@]}")
	if [[ -s $out && -r $out.stamp && $(cat "$out.stamp") == "$hash" ]]; then
		return 0
	fi

	echo "mkinitramfs.sh: building $out for $kver" >&2
	mkdir -p "$(dirname "$out")"
	root=$(mktemp -d "${TMPDIR:-/tmp}/mpdt-initramfs.XXXXXX")
	# shellcheck disable=SC2064 # expand now: $root is local
	trap "rm -rf '$root'" EXIT
	build_image "$out" "$kver" "$root" "${mods[@]}"
	echo "$hash" >"$out.stamp"
}

main "$@"
