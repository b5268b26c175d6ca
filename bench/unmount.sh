#!/bin/bash
# bench/unmount.sh: safeunmount against plain umount for the same dirty state.
#
# Each round makes two fresh sticks in turn (tests/lib/stick.bash: ext4 on a loop device,
# 20 MiB/s write throttle by default), copies the same file onto each with plain cp, and
# times `umount` on one and `safeunmount --progress=json` on the other, from just before the
# command starts until it returns. The order alternates between rounds. Before each timed
# command the device must still hold the whole copy (BdiReclaimable + BdiWriteback), so
# both start from the same state. During safeunmount a sampler reads the disk's completed
# write sectors (stat field 7) every ~20 ms, timed before and after each read, to give the
# truth each displayed fraction is judged against:
#   shown   = bytes_written / (bytes_written + bytes_left) of a progress event at time t;
#   truth   = sectors completed since the start / all sectors of the run, bracketed by the
#             last reading that ended before t and the first that began after it;
#   off     = how far shown lies outside that bracket, in percentage points.
# The first display is the first progress event's t minus the command's start.
#
# Targets (issue 4): safeunmount <= 1.03 x umount; every fraction within 3 points; the
# first display within 0.5 s.
#
# Usage: bench/unmount.sh [--mib N] [--rate BYTES_PER_S] [--rounds N] [--fs FS] [--out DIR]
# Defaults: 500 MiB, 20971520 B/s, 3 rounds, ext4, bench/out/unmount-DATE. Needs root.
# SAFECP_BUILD (default build/) holds cmd/safeunmount.
set -u

U_HERE=$(cd "$(dirname "$(readlink -f "$0")")" && pwd)
U_ROOT=$(dirname "$U_HERE")
# shellcheck source=../tests/lib/stick.bash
source "$U_ROOT/tests/lib/stick.bash"

MIB=1048576
U_MIB=500 U_RATE=20971520 U_ROUNDS=3 U_FS=ext4 U_OUT=''
SU=${SAFECP_BUILD:-$U_ROOT/build}/cmd/safeunmount

die() { printf 'bench/unmount: %s\n' "$*" >&2; exit 2; }
log() { printf 'bench/unmount: %s\n' "$*" >&2; }

while (($#)); do
	case $1 in
	--mib) U_MIB=$2; shift 2 ;;
	--rate) U_RATE=$2; shift 2 ;;
	--rounds) U_ROUNDS=$2; shift 2 ;;
	--fs) U_FS=$2; shift 2 ;;
	--out) U_OUT=$2; shift 2 ;;
	-h | --help) sed -n '/^# Usage:/,/^# SAFECP_BUILD/p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) die "unknown argument '$1' (see --help)" ;;
	esac
done
((EUID == 0)) || die "needs root (loop devices, mounts, blkio throttle)"
[[ -x $SU ]] || die "no $SU; build first or set SAFECP_BUILD"
command -v jq >/dev/null || die "needs jq"
U_OUT=${U_OUT:-$U_ROOT/bench/out/unmount-$(date +%Y%m%d-%H%M%S)}
mkdir -p "$U_OUT" || die "cannot create '$U_OUT'"
U_SRC=/dev/shm/safeunmount-bench.$$

cleanup() {
	[[ -n ${U_SAMPLER-} ]] && kill "$U_SAMPLER" 2>/dev/null
	stick_down_all
	rm -f "$U_SRC"
}
trap cleanup EXIT
trap 'cleanup; trap - INT; kill -INT $$' INT
trap 'cleanup; trap - TERM; kill -TERM $$' TERM

# fresh_stick: a stick with the copy on it, still all in memory; U_PENDING is how much.
# (No function here runs in a subshell: a stick belongs to the shell that made it.)
fresh_stick() {
	# ext4 starts writeback early when delalloc data nears half the free space
	# (ext4_nonda_switch), so the filesystem is four times the copy
	stick_up --fs "$U_FS" --size $((U_MIB * 4 + 64)) --rate "$U_RATE" || die "stick_up failed"
	cp "$U_SRC" "$STICK_MNT/f" || die "cp failed"
	U_PENDING=$(stick_pending_bytes "$STICK_MAJMIN")
	((U_PENDING >= U_MIB * MIB * 98 / 100)) ||
		log "warning: only $((U_PENDING / MIB)) MiB pending before the unmount (writeback started early)"
}

sampler() {
	local s t0
	while :; do
		t0=$EPOCHREALTIME
		read -r -a s <"/sys/dev/block/$1/stat"
		echo "$t0 $EPOCHREALTIME ${s[6]}"
		read -r -t 0.02 <> <(:) || true
	done
}

# time_umount: U_UM, seconds of plain umount.
time_umount() {
	local t0 t1
	fresh_stick
	t0=$EPOCHREALTIME
	umount "$STICK_MNT" || die "umount failed"
	t1=$EPOCHREALTIME
	stick_down "$STICK_ID"
	U_UM=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')
}

# time_safeunmount ROUND: U_SU "seconds first_display worst_points events".
time_safeunmount() {
	local r=$1 t0 t1 rc=0 samples=$U_OUT/samples.$1 json=$U_OUT/safeunmount.$1.jsonl
	fresh_stick
	sampler "$STICK_MAJMIN" >"$samples" &
	U_SAMPLER=$!
	while [[ ! -s $samples ]]; do read -r -t 0.01 <> <(:) || true; done
	t0=$EPOCHREALTIME
	"$SU" --progress=json "$STICK_MNT" >"$json" || rc=$?
	t1=$EPOCHREALTIME
	read -r -t 0.1 <> <(:) || true
	kill "$U_SAMPLER"
	wait "$U_SAMPLER" 2>/dev/null
	U_SAMPLER=''
	((rc == 0)) || die "safeunmount failed with $rc (round $r; see $json)"
	stick_down "$STICK_ID"
	U_SU=$(jq -r 'select(.event == "progress") | [.t, .bytes_left, .bytes_written] | @tsv' "$json" |
		awk -v t0="$t0" -v t1="$t1" -v detail="$U_OUT/fractions.$r" '
		BEGIN { n = 0; worst = 0; events = 0 }
		FNR == NR { tb[n] = $1; ta[n] = $2; v[n] = $3; n++; next }
		{ t = $1; left = $2; written = $3
		  if (events == 0) first = t - t0
		  lo = v[0]; hi = v[n - 1]
		  for (i = 0; i < n; i++) if (ta[i] <= t) lo = v[i]
		  for (i = n - 1; i >= 0; i--) if (tb[i] >= t) hi = v[i]
		  total = (v[n - 1] - v[0]) * 512
		  f = (written + left) > 0 ? written / (written + left) : 1
		  flo = (lo - v[0]) * 512 / total; fhi = (hi - v[0]) * 512 / total
		  off = f < flo ? flo - f : (f > fhi ? f - fhi : 0)
		  printf "%.3f\t%.4f\t%.4f\t%.4f\t%.4f\n", t - t0, f, flo, fhi, off > detail
		  if (off > worst) worst = off
		  events++ }
		END { printf "%.3f %.3f %.2f %d\n", t1 - t0, first, worst * 100, events }' \
			"$samples" -)
}

log "source: $U_MIB MiB on /dev/shm; $U_FS sticks at $U_RATE B/s; $U_ROUNDS rounds; output $U_OUT"
head -c $((U_MIB * MIB)) /dev/urandom >"$U_SRC" || die "cannot make the source"
printf 'round\tumount_s\tsafeunmount_s\tratio\tfirst_display_s\tworst_points\tevents\n' \
	>"$U_OUT/results.tsv"
for ((r = 1; r <= U_ROUNDS; r++)); do
	if ((r % 2)); then
		time_umount
		time_safeunmount "$r"
	else
		time_safeunmount "$r"
		time_umount
	fi
	um=$U_UM
	read -r su first worst events <<<"$U_SU"
	[[ -n ${um-} && -n ${su-} ]] || die "round $r did not finish"
	ratio=$(awk -v a="$su" -v b="$um" 'BEGIN { printf "%.4f", a / b }')
	printf '%d\t%s\t%s\t%s\t%s\t%s\t%s\n' "$r" "$um" "$su" "$ratio" "$first" "$worst" "$events" |
		tee -a "$U_OUT/results.tsv" >&2
done

awk -F'\t' 'NR > 1 { r[NR - 1] = $4; if ($5 > first) first = $5; if ($6 > worst) worst = $6; n++ }
	END {
		# median ratio (n is small; insertion sort)
		for (i = 2; i <= n; i++) { x = r[i]; j = i - 1; while (j > 0 && r[j] > x) { r[j + 1] = r[j]; j-- } r[j + 1] = x }
		med = n % 2 ? r[(n + 1) / 2] : (r[n / 2] + r[n / 2 + 1]) / 2
		printf "median ratio safeunmount/umount %.4f (target <= 1.03): %s\n", med, med <= 1.03 ? "met" : "MISSED"
		printf "slowest first display %.3f s (target <= 0.5): %s\n", first, first <= 0.5 ? "met" : "MISSED"
		printf "worst fraction error %.2f points (target <= 3): %s\n", worst, worst <= 3 ? "met" : "MISSED"
	}' "$U_OUT/results.tsv" | tee "$U_OUT/summary.txt"
