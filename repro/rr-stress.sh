#!/usr/bin/env bash
# Record snafu stress under rr's chaos mode, where the machine allows it:
#
#   repro/rr-stress.sh [snafu stress arguments]      e.g. --kernel=2.6.11-rc4
#   rr replay                                         then debug the recorded hang
#
# rr needs hardware performance counters (and perf_event_paranoid <= 1). Where they are
# missing, as on most VMs and on this project's CI machines, this says so plainly and
# exits 3 without recording anything: use the simulator instead, where every run is a
# replay (`snafu replay --trace`, gdb on build/bin/snafu). Where rr is not installed, one
# line says how to get it (Debian package rr; ./build.sh test installs it), and the same.
# Exit: snafu's status, 2 for bad usage, 3 when rr cannot record here.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${SNAFU_BIN:-$root/build/bin}
[ -x "$bin/snafu-native" ] || { echo "rr-stress: $bin/snafu-native: expected a build (./build.sh)" >&2; exit 2; }
if ! command -v rr >/dev/null; then
	echo "rr-stress: rr is not installed; get it with apt-get install rr (Debian package rr) or ./build.sh test, which installs it; nothing recorded" >&2
	exit 3
fi
probe_dir=$(mktemp -d) # the probe's trace goes here, not into ~/.local/share/rr
trap 'rm -rf "$probe_dir"' EXIT
if ! _RR_TRACE_DIR=$probe_dir rr record -n true >/dev/null 2>"${TMPDIR:-/tmp}/rr-check.$$"; then
	echo "rr-stress: rr cannot record on this machine: $(grep -m1 -iE 'perf|counter|paranoid|error' "${TMPDIR:-/tmp}/rr-check.$$" || echo 'rr record failed')" >&2
	echo "rr-stress: it needs hardware performance counters; none here, so nothing was recorded" >&2
	rm -f "${TMPDIR:-/tmp}/rr-check.$$"
	exit 3
fi
rm -f "${TMPDIR:-/tmp}/rr-check.$$"
rm -rf "$probe_dir"
trap - EXIT
exec rr record --chaos "$bin/snafu-native" stress "$@"
