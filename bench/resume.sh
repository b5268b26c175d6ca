#!/bin/bash
# bench/resume.sh: a large file's copy killed in the middle, and the rerun that goes on.
#
# Per round, on a fresh stick (tests/lib/stick.bash: ext4 on a loop device, 20 MiB/s write
# throttle, reads at twice that): the raw device rates first (dd oflag=direct of the file's
# size for writing, iflag=direct for reading, one each), then safecp of the file killed
# with -9 once its progress says KILL percent of it is on the device, then the same
# command again, timed from its start until it returns (safecp returns once everything is
# on the device and the device is idle). Beside it, the source's prefix read (what the
# rerun checks before the first byte) is timed by itself, cold (its pages dropped first).
#
#   missing   = the file's bytes - what the rerun's JSON says was kept (bytes_resumed)
#   floor     = missing / raw write rate + source prefix read
#   rerun     = the rerun's time;  ratio = rerun / floor          (target <= 1.05)
# With --verify, the rerun reads the kept part back from the device before the first
# byte and the whole file again before it is named:
#   floor_v   = missing / raw write rate + size / raw read rate + source prefix read
#   ratio_v   = rerun --verify / floor_v                          (target <= 1.05)
# The file is on /dev/shm: the source's read costs what the page cache costs.
#
# Usage: bench/resume.sh [--mib N] [--kill PERCENT] [--rate BYTES_PER_S] [--fs FS]
#                        [--rounds N] [--out DIR]
# Defaults: 1024 MiB, 60 %, 20971520 B/s, ext4, 1 round, bench/out/resume-DATE.
# Needs root. SAFECP_BUILD (default build/) holds cmd/safecp.
set -u

R_HERE=$(cd "$(dirname "$(readlink -f "$0")")" && pwd)
R_ROOT=$(dirname "$R_HERE")
# shellcheck source=../tests/lib/stick.bash
source "$R_ROOT/tests/lib/stick.bash"

MIB=1048576
R_MIB=1024 R_KILL=60 R_RATE=20971520 R_FS=ext4 R_ROUNDS=1 R_OUT=''
SC=${SAFECP_BUILD:-$R_ROOT/build}/cmd/safecp

die() { printf 'bench/resume: %s\n' "$*" >&2; exit 2; }
log() { printf 'bench/resume: %s\n' "$*" >&2; }

while (($#)); do
	case $1 in
	--mib) R_MIB=$2; shift 2 ;;
	--kill) R_KILL=$2; shift 2 ;;
	--rate) R_RATE=$2; shift 2 ;;
	--fs) R_FS=$2; shift 2 ;;
	--rounds) R_ROUNDS=$2; shift 2 ;;
	--out) R_OUT=$2; shift 2 ;;
	-h | --help) sed -n '/^# Usage:/,/^# Needs root/p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) die "unknown argument '$1' (see --help)" ;;
	esac
done
((EUID == 0)) || die "needs root (loop devices, mounts, blkio throttle)"
[[ -x $SC ]] || die "no $SC; build first or set SAFECP_BUILD"
command -v jq >/dev/null || die "needs jq"
R_OUT=${R_OUT:-$R_ROOT/bench/out/resume-$(date +%Y%m%d-%H%M%S)}
mkdir -p "$R_OUT" || die "cannot create '$R_OUT'"
R_TMP=$(mktemp -d /dev/shm/safecp-resume-bench.XXXXXX) || exit 1
R_SRC=$R_TMP/clip.mp4
# this machine's partials, for this run only
export XDG_STATE_HOME=$R_TMP/state

cleanup() {
	[[ -n ${R_PID-} ]] && kill -9 "$R_PID" 2>/dev/null
	stick_down_all
	rm -rf "$R_TMP"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

now() { echo "$EPOCHREALTIME"; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b - a }'; }

# raw_rates: R_WRITE_S and R_READ_S, dd of the file's size straight to and from the stick.
raw_rates() {
	local t0 t1
	t0=$(now)
	dd if="$R_SRC" of="$STICK_MNT/raw" bs=4M oflag=direct status=none || return 1
	t1=$(now)
	R_WRITE_S=$(secs "$t0" "$t1")
	t0=$(now)
	dd if="$STICK_MNT/raw" of=/dev/null bs=4M iflag=direct status=none || return 1
	t1=$(now)
	R_READ_S=$(secs "$t0" "$t1")
	rm "$STICK_MNT/raw"
	sync -f "$STICK_MNT"
}

# prefix_read BYTES: seconds to read the source's first BYTES, its pages dropped first.
prefix_read() {
	local t0 t1
	dd if="$R_SRC" iflag=nocache count=0 status=none
	t0=$(now)
	head -c "$1" "$R_SRC" >/dev/null
	t1=$(now)
	secs "$t0" "$t1"
}

# killed: safecp of the file killed once KILL percent is on the device.
killed() {
	local ev=$R_TMP/ev at=$((R_MIB * MIB * R_KILL / 100))
	"$SC" --progress=json "$R_SRC" "$STICK_MNT"/ >"$ev" 2>/dev/null &
	R_PID=$!
	until jq -R -n -e --argjson n "$at" '[inputs | fromjson? | select(.event == "progress"
		and .bytes_on_device >= $n)] | length > 0' "$ev" >/dev/null 2>&1; do
		kill -0 "$R_PID" 2>/dev/null || die "safecp ended before $R_KILL %"
		sleep 0.1
	done
	kill -9 "$R_PID"
	wait "$R_PID" 2>/dev/null
	R_PID=''
}

# rerun ARGS...: R_RERUN_S and R_KEPT of the same command again.
rerun() {
	local t0 t1 out=$R_TMP/rerun
	t0=$(now)
	"$SC" --progress=json "$@" "$R_SRC" "$STICK_MNT"/ >"$out" 2>/dev/null || die "the rerun failed"
	t1=$(now)
	R_RERUN_S=$(secs "$t0" "$t1")
	R_KEPT=$(jq -s '.[0].bytes_resumed' "$out")
	cmp -s "$R_SRC" "$STICK_MNT/clip.mp4" || die "the rerun's copy differs"
}

log "source: $R_MIB MiB on /dev/shm"
head -c $((R_MIB * MIB)) /dev/urandom >"$R_SRC"
printf 'round\tmode\traw_write_s\traw_read_s\tkept\tmissing\tprefix_read_s\tfloor_s\trerun_s\tratio\n' \
	>"$R_OUT/resume.tsv"
for ((round = 1; round <= R_ROUNDS; round++)); do
	for mode in plain verify; do
		stick_up --fs "$R_FS" --size $((R_MIB * 2 + 256)) --rate "$R_RATE" \
			--read-rate $((2 * R_RATE)) >/dev/null || die "stick_up failed"
		raw_rates || die "the raw rates could not be measured"
		killed
		if [[ $mode == verify ]]; then rerun --verify; else rerun; fi
		missing=$((R_MIB * MIB - R_KEPT))
		prefix=$(prefix_read "$R_KEPT")
		floor=$(awk -v m="$missing" -v s=$((R_MIB * MIB)) -v w="$R_WRITE_S" -v r="$R_READ_S" \
			-v p="$prefix" -v v=$([[ $mode == verify ]] && echo 1 || echo 0) \
			'BEGIN { printf "%.3f", m / s * w + v * r + p }')
		ratio=$(awk -v a="$R_RERUN_S" -v b="$floor" 'BEGIN { printf "%.3f", a / b }')
		printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$round" "$mode" "$R_WRITE_S" \
			"$R_READ_S" "$R_KEPT" "$missing" "$prefix" "$floor" "$R_RERUN_S" "$ratio" \
			| tee -a "$R_OUT/resume.tsv"
		stick_down_all
	done
done
log "results in $R_OUT/resume.tsv"
