#!/bin/bash
# bench/requests.sh: where the write requests of the mixed workload go (issue 28).
#
# The mixed workload's source and stick are made as bench/run makes them (its libraries,
# sourced): ext4 on a 3 GiB loop device (--direct-io, max_sectors_kb 240) on /dev/shm,
# throttled to --rate bytes/s and --iops write bios/s by the cgroup-v1 blkio throttle.
# For each method (`cp -r SRC MNT/`, `safecp --progress=none -r SRC MNT/`), each followed
# by `umount MNT`, the block layer's tracepoints on the stick's loop device are recorded in
# a private tracefs instance (instances/safecp-requests.PID, filtered in the kernel on the
# device, so other people's tracing and devices are untouched):
#   block_bio_queue    a bio entering the device (fired once blk-throttle lets it go:
#                      what write_iops_device counts; cross-checked with io_serviced)
#   block_split        a bio split at max_sectors_kb
#   block_rq_issue     a request the loop driver is given (bios merged; what the stat file's
#                      "write I/Os" count on completion)
#   block_rq_complete
# After the umount every write (bio and request) is classified by its first 4 KiB block,
# from the filesystem as it is then: superblocks and group descriptors, block and inode
# bitmaps, inode tables (dumpe2fs), the journal (debugfs `blocks <8>`), the orphan file,
# directory blocks and file data (debugfs `blocks` of every directory and file of the
# source's tree under MNT), and "other" (extent tree blocks, blocks freed since). A
# request that runs past its category is counted by its first block and reported as
# spanning. Zero-length writes are flushes (REQ_PREFLUSH without data).
#
# Output (OUT, default bench/out/requests-DATE): trace-METHOD-REP.txt (the raw trace),
# layout-METHOD-REP.tsv, timeline-METHOD-REP.tsv (bios and bytes let through per 100 ms), counts.tsv (method rep kind phase category n bytes spanning),
# runs.tsv (times and counters), strace-METHOD.txt with --strace, and table.md.
#
# Usage: bench/requests.sh [--methods cp,safecp] [--repeat N] [--rate BYTES_PER_S]
#                          [--iops N] [--size-scale 1/N] [--out DIR] [--strace]
#                          [--safecp-opt OPT]...
#   --strace  one more run of each method (not traced, not timed) under
#             strace -f -e fsync,fdatasync,sync_file_range,syncfs,...: the sync calls
# Needs root. SAFECP_BUILD (default build/) holds cmd/safecp. Request counts do not depend
# on what else runs on the machine; times do.
set -u

R_HERE=$(cd "$(dirname "$(readlink -f "$0")")" && pwd)
B_HERE=$R_HERE
B_ROOT=$(dirname "$R_HERE")
# shellcheck source=../tests/lib/stick.bash
source "$B_ROOT/tests/lib/stick.bash"
source "$B_HERE/lib/workloads.bash"
source "$B_HERE/lib/measure.bash"
source "$B_HERE/lib/offload.bash"
source "$B_HERE/lib/pack.bash"
source "$B_HERE/lib/unpack.bash"
source "$B_HERE/lib/multi.bash"

R_TRACEFS=/sys/kernel/debug/tracing
R_EVENTS=(block_bio_queue block_split block_rq_issue block_rq_complete)
R_INST=''

r_log() { printf 'requests: %s\n' "$*" >&2; }
r_die() { printf 'requests: %s\n' "$*" >&2; exit 2; }
# what the sourced libraries call (bench/run defines them too)
bench_log() { r_log "$@"; }
bench_warn() { r_log "warning: $*"; }

usage() {
	sed -n '/^# Usage:/,/^# Needs root/p' "$0" | sed 's/^# \{0,1\}//'
}

# shellcheck disable=SC2034 # B_* are read by the sourced bench libraries
r_parse() {
	# what bench/run's mixed workload uses
	B_FS=ext4 B_RATE=20971520 B_READ_RATE=41943040 B_DIV=1 B_STICK_MIB=3072 B_IOPS=''
	B_SAFECP_OPTS=() B_WORKLOADS=(mixed)
	R_METHODS=(cp safecp) R_REPEAT=1 R_OUT='' R_STRACE=0
	local opt val
	while (($#)); do
		opt=$1
		shift
		case $opt in
		-h | --help) usage; exit 0 ;;
		--strace) R_STRACE=1; continue ;;
		--*=*) val=${opt#*=} opt=${opt%%=*} ;;
		--*) (($#)) || r_die "option '$opt' needs a value"; val=$1; shift ;;
		*) r_die "unexpected argument '$opt' (see --help)" ;;
		esac
		case $opt in
		--methods) IFS=, read -r -a R_METHODS <<<"$val" ;;
		--repeat) R_REPEAT=$val ;;
		--rate) B_RATE=$val ;;
		--iops) B_IOPS=$val ;;
		--size-scale) [[ $val =~ ^(1/)?([0-9]+)$ ]] || r_die "--size-scale takes 1/N"; B_DIV=${BASH_REMATCH[2]} ;;
		--out) R_OUT=$val ;;
		--safecp-opt) B_SAFECP_OPTS+=("$val") ;;
		*) r_die "unknown option '$opt' (see --help)" ;;
		esac
	done
	[[ $R_REPEAT =~ ^[1-9][0-9]*$ && $B_RATE =~ ^[1-9][0-9]*$ ]] || r_die "--repeat and --rate take numbers above 0"
	[[ -z $B_IOPS || $B_IOPS =~ ^[0-9]+$ ]] || r_die "--iops takes a number"
	local m
	for m in "${R_METHODS[@]}"; do
		case $m in cp | safecp | safecp-*) ;; *) r_die "unknown method '$m' (cp, safecp, safecp-STRATEGY)" ;; esac
	done
	((EUID == 0)) || r_die "needs root (loop devices, mounts, blkio throttles, tracefs)"
	[[ -d $R_TRACEFS/events/block ]] || r_die "no block tracepoints in $R_TRACEFS"
}

r_find_safecp() {
	local build=${SAFECP_BUILD:-$B_ROOT/build}
	B_SAFECP=$build/cmd/safecp
	"$B_SAFECP" --version >/dev/null 2>&1 || r_die "no working '$B_SAFECP' (SAFECP_BUILD)"
	R_SAFECP_SHA=$(sha256sum "$B_SAFECP" | cut -c1-12)
	cp "$B_SAFECP" "$B_TMP/safecp" && B_SAFECP=$B_TMP/safecp
}

# ------------------------------------------------------------------------- tracing

# A private instance: its events, filters and buffer are its own; rmdir removes them all.
r_trace_start() {
	local majmin=$1 dev ev
	dev=$(((${majmin%%:*} << 20) | ${majmin##*:}))
	R_INST=$R_TRACEFS/instances/safecp-requests.$$
	mkdir "$R_INST" || return 1
	echo 0 >"$R_INST/tracing_on"
	echo 16384 >"$R_INST/buffer_size_kb"
	for ev in "${R_EVENTS[@]}"; do
		echo "dev == $dev" >"$R_INST/events/block/$ev/filter" || return 1
		echo 1 >"$R_INST/events/block/$ev/enable" || return 1
	done
	: >"$R_INST/trace"
	echo 1 >"$R_INST/tracing_on"
}

r_trace_mark() { [[ -n $R_INST ]] && echo "$1" >"$R_INST/trace_marker"; }

# Saves the trace to FILE (and the lost-event count beside it), then removes the instance.
r_trace_stop() {
	local out=${1-} ev cpu lost=0 n
	[[ -n $R_INST && -d $R_INST ]] || { R_INST=''; return 0; }
	echo 0 >"$R_INST/tracing_on"
	if [[ -n $out ]]; then
		cat "$R_INST/trace" >"$out"
		for cpu in "$R_INST"/per_cpu/cpu*; do
			n=$(awk '/^overrun:/ { print $2 }' "$cpu/stats" 2>/dev/null)
			lost=$((lost + ${n:-0}))
		done
		echo "$lost" >"$out.lost"
	fi
	for ev in "${R_EVENTS[@]}"; do
		echo 0 >"$R_INST/events/block/$ev/enable"
		echo 0 >"$R_INST/events/block/$ev/filter"
	done
	rmdir "$R_INST" || r_log "warning: cannot remove the tracefs instance $R_INST"
	R_INST=''
}

# ------------------------------------------------------------------------- the layout

# r_layout DEV SRCDIR: "first_block last_block category" of every block with a known
# role, from the unmounted filesystem on DEV; SRCDIR's tree is under / on it.
r_layout() {
	local dev=$1 src=$2 cmds=$B_TMP/debugfs.cmds orphan
	dumpe2fs "$dev" 2>/dev/null | awk '
		function range(s, cat,   a) { n = split(s, a, "-"); print a[1], (n > 1 ? a[2] : a[1]), cat }
		{ for (i = 1; i <= NF; i++) {
			if ($i == "superblock" && $(i + 1) == "at") range($(i + 2), "sb+gdt")
			if ($i == "descriptors" && $(i + 1) == "at") range($(i + 2), "sb+gdt")
			if ($i == "GDT" && $(i + 1) == "blocks" && $(i + 2) == "at") range($(i + 3), "sb+gdt")
			if ($i == "bitmap" && $(i + 1) == "at") range($(i + 2), "bitmaps")
			if ($i == "table" && $(i + 1) == "at") range($(i + 2), "inode-table")
		} }' | tr -d ','
	{
		echo "blocks <8>"
		orphan=$(dumpe2fs -h "$dev" 2>/dev/null | awk -F: '/^Orphan file inode/ { gsub(/ /, "", $2); print $2 }')
		[[ -n $orphan ]] && echo "blocks <$orphan>"
		echo "blocks /"
		echo "blocks /lost+found"
		(cd "$(dirname "$src")" && find "$(basename "$src")" -type d -printf 'blocks /%p\n')
		echo "blocks <8>" # separates the directories from the files
		(cd "$(dirname "$src")" && find "$(basename "$src")" -type f -printf 'blocks /%p\n')
	} >"$cmds"
	debugfs -f "$cmds" "$dev" 2>&1 | awk -v orphan="${orphan:-x}" '
		/^debugfs: blocks / { arg = $3; seen8 += (arg == "<8>")
			cat = arg == "<8>" ? "journal" : arg == "<" orphan ">" ? "orphan" : seen8 >= 2 ? "data" : "dir"
			next }
		{ for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+$/) print $i, $i, cat }'
}

# ------------------------------------------------------------------------- classifying

# r_classify LAYOUT TRACE METHOD REP TIMELINE: rows "method rep kind phase category n bytes spanning"
# kind: bio (block_bio_queue), req (block_rq_issue), split; phase: cmd (before the command
# returned), umount, all.
r_classify() {
	awk -v m="$3" -v rep="$4" -v timeline="$5" '
	FNR == NR { for (b = $1; b <= $2; b++) cat[b] = $3; next }
	/tracing_mark_write: cmd-return/ { phase = "umount"; next }
	/block_bio_queue:|block_rq_issue:|block_split:/ {
		if (phase == "") phase = "cmd"
		kind = /block_bio_queue:/ ? "bio" : /block_split:/ ? "split" : "req"
		for (i = 1; i <= NF; i++) if ($i ~ /^block_/) break
		rwbs = $(i + 2)
		if (rwbs !~ /W/ && rwbs != "FF") next          # writes and flushes only
		spans = 0
		if (kind == "split") {                           # the piece blk-throttle counts again
			nsec = 0; b0 = int($(i + 3) / 8); c = (b0 in cat) ? cat[b0] : "other"
			n["bio", phase, c]++; n["bio", "all", c]++
		} else {
			j = kind == "req" ? i + 5 : i + 3            # the sector: req has bytes and (cmd) first
			sec = $j; nsec = $(j + 2)
			if (nsec == 0) c = "flush"
			else {
				b0 = int(sec / 8); b1 = int((sec + nsec - 1) / 8)
				c = (b0 in cat) ? cat[b0] : "other"
				for (b = b0 + 1; b <= b1; b++)
					if (((b in cat) ? cat[b] : "other") != c) { spans = 1; break }
			}
		}
		n[kind, phase, c]++; by[kind, phase, c] += nsec * 512; span[kind, phase, c] += spans
		n[kind, "all", c]++; by[kind, "all", c] += nsec * 512; span[kind, "all", c] += spans
		if (rwbs ~ /F/) { fl[kind, phase]++; fl[kind, "all"]++ }
		if (rwbs ~ /^F/) { pf[kind, phase]++; pf[kind, "all"]++ }
		if (rwbs ~ /.F/ && rwbs !~ /^FF$/) { fua[kind, phase]++; fua[kind, "all"]++ }
		# the timeline: what blk-throttle let through, per 100 ms (its slice)
		if (kind != "req") { t = $(i - 1) + 0; if (t0 == "") t0 = t
			s = int((t - t0) * 10); if (s > smax) smax = s
			tn[s]++; tb[s] += nsec * 512; tc[s, c]++; tph[s] = phase }
	}
	END {
		for (k in n) { split(k, a, SUBSEP); printf "%s\t%s\t%s\t%s\t%s\t%d\t%.0f\t%d\n", m, rep, a[1], a[2], a[3], n[k], by[k], span[k] }
		for (k in fl) { split(k, a, SUBSEP); printf "%s\t%s\t%s\t%s\t%s\t%d\t0\t0\n", m, rep, a[1], a[2], "with-F", fl[k] }
		for (k in pf) { split(k, a, SUBSEP); printf "%s\t%s\t%s\t%s\t%s\t%d\t0\t0\n", m, rep, a[1], a[2], "preflush", pf[k] }
		for (k in fua) { split(k, a, SUBSEP); printf "%s\t%s\t%s\t%s\t%s\t%d\t0\t0\n", m, rep, a[1], a[2], "fua", fua[k] }
		printf "t_s\tphase\tbios\tbytes\tdata\tjournal\tdir\tinode-table\tflush\n" >timeline
		for (s = 0; s <= smax; s++)
			printf "%.1f\t%s\t%d\t%d\t%d\t%d\t%d\t%d\t%d\n", s / 10, tph[s], tn[s], tb[s], tc[s, "data"],
				tc[s, "journal"], tc[s, "dir"], tc[s, "inode-table"], tc[s, "flush"] >timeline
	}' "$1" "$2" | sort
}

# ------------------------------------------------------------------------- one run

r_run_one() {
	local m=$1 rep=$2 iops tc tr tu rc ios0 bios0 ios1 bios1 sec0 sec1 trace
	iops=$(bench_wl_iops mixed)
	stick_up --fs ext4 --size "$B_STICK_MIB" --rate "$B_RATE" --iops "$iops" || return 1
	bench_method_cmd mixed "$m" "$STICK_MNT" || return 1
	trace=$R_OUT/trace-$m-$rep.txt
	r_trace_start "$STICK_MAJMIN" || { r_trace_stop; return 1; }
	ios0=$(bench_write_ios "$STICK_MAJMIN") bios0=$(bench_write_bios "$STICK_MAJMIN")
	sec0=$(bench_sectors "$STICK_MAJMIN")
	tc=$(bench_now)
	_bench_exec "$B_TMP/time.out"
	rc=$?
	tr=$(bench_now)
	r_trace_mark cmd-return
	bench_umount "$STICK_MNT" "$B_TMP/umount.cpu" || r_log "warning: umount '$STICK_MNT' failed"
	tu=$(bench_umount_end "$B_TMP/umount.cpu")
	ios1=$(bench_write_ios "$STICK_MAJMIN") bios1=$(bench_write_bios "$STICK_MAJMIN")
	sec1=$(bench_sectors "$STICK_MAJMIN")
	r_trace_stop "$trace"
	((rc == 0)) || r_log "warning: $m exited $rc: $(head -c 500 "$B_TMP/cmd.err")"
	r_layout "$STICK_DISK" "$(bench_wl_src mixed)" >"$R_OUT/layout-$m-$rep.tsv"
	r_classify "$R_OUT/layout-$m-$rep.tsv" "$trace" "$m" "$rep" "$R_OUT/timeline-$m-$rep.tsv" >>"$R_OUT/counts.tsv"
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%d\t%d\t%d\t%s\n' "$m" "$rep" "$rc" \
		"$(bench_us_s $((tr - tc)))" "$(bench_us_s $((tu - tr)))" "$(bench_us_s $((tu - tc)))" \
		$((ios1 - ios0)) $((bios1 - bios0)) $(((sec1 - sec0) * 512)) "$(<"$trace.lost")" >>"$R_OUT/runs.tsv"
	stick_down "$STICK_ID"
}

# One untimed run under strace: the sync calls the method makes, and when.
r_strace_one() {
	local m=$1 out
	out=$R_OUT/strace-$m.txt
	stick_up --fs ext4 --size "$B_STICK_MIB" --rate "$B_RATE" --iops "$(bench_wl_iops mixed)" || return 1
	bench_method_cmd mixed "$m" "$STICK_MNT" || return 1
	strace -f -qq -tt -o "$out.log" \
		-e trace=fsync,fdatasync,sync_file_range,syncfs,sync,renameat2,renameat,rename,linkat,fadvise64 \
		"${B_CMD[@]}" </dev/null >/dev/null 2>"$B_TMP/cmd.err" || r_log "warning: $m under strace failed"
	umount "$STICK_MNT"
	awk '{ c = $3; sub(/\(.*/, "", c); if (c ~ /^[a-z_0-9]+$/) n[c]++ }
		END { for (k in n) printf "%s\t%d\n", k, n[k] }' "$out.log" |
		sed 's/^syscall_0x1c3\t/cachestat\t/' | sort >"$out" # 451: older strace has no name
	stick_down "$STICK_ID"
}

# ------------------------------------------------------------------------- the table

r_table() {
	local bytes
	bytes=$(bench_wl_bytes mixed)
	awk -F'\t' -v rate="$B_RATE" -v iops="$(bench_wl_iops mixed)" -v wbytes="$bytes" '
	FILENAME ~ /runs.tsv$/ { if (FNR == 1) next
		runs[$1]++; cmd[$1] = cmd[$1] " " $4; um[$1] = um[$1] " " $5; tot[$1] = tot[$1] " " $6
		ios[$1] = ios[$1] " " $7; bios[$1] = bios[$1] " " $8; wr[$1] = wr[$1] " " $9
		if (!($1 in order)) { order[$1] = ++nm; name[nm] = $1 }
		next }
	$4 == "all" { v[$1, $3, $5] += $6; b[$1, $3, $5] += $7; s[$1, $3, $5] += $8 }
	$4 != "all" && $3 == "bio" && $5 !~ /with-F|preflush|fua/ { ph[$1, $4] += $6 }
	function med(list,   a, n, i, j, t) { n = split(list, a, " ")
		for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
		return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
	END {
		ncat = split("data journal inode-table bitmaps dir sb+gdt orphan other flush", cats, " ")
		printf "| method | kind |"; for (c = 1; c <= ncat; c++) printf " %s |", cats[c]; printf " total |\n"
		printf "|---|---|"; for (c = 1; c <= ncat + 1; c++) printf "---|"; printf "\n"
		for (i = 1; i <= nm; i++) { m = name[i]; r = runs[m]
			split("bio req", kinds, " ")
			for (k = 1; k <= 2; k++) { kd = kinds[k]; tn = 0; tb = 0
				printf "| %s | %s |", m, kd == "bio" ? "bios (throttled)" : "requests"
				for (c = 1; c <= ncat; c++) { x = v[m, kd, cats[c]] / r; y = b[m, kd, cats[c]] / r; tn += x; tb += y
					sp = s[m, kd, cats[c]] / r
					printf " %.0f / %.2f MiB%s |", x, y / 1048576, (sp >= 0.5 ? sprintf(" (%.0f span)", sp) : "") }
				printf " %.0f / %.2f MiB |\n", tn, tb / 1048576 }
		}
		printf "\nmean over the runs; \"N / X MiB\": write bios or requests / their bytes, by the category of their first block (\"span\": that many ran into another category). bios: every bio block_bio_queue saw plus every piece block_split cut off (blk-throttle counts both; the sum is io_serviced).\n\n"
		printf "| method | runs | command s | umount s | total s (median) | x raw (bytes / rate) | bios (io_serviced) | requests (stat) | bytes written MiB | flush-only bios / reqs | bios with F | floor s: max(bytes/rate, bios/%d) | floor x raw | requests/%d s | bios during the command / umount |\n", iops, iops
		printf "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n"
		raw = wbytes / rate
		for (i = 1; i <= nm; i++) { m = name[i]; r = runs[m]
			bi = med(bios[m]); rq = med(ios[m]); w = med(wr[m]); t = med(tot[m])
			fl = (v[m, "bio", "flush"] / r) " / " (v[m, "req", "flush"] / r)
			ff = v[m, "bio", "with-F"] / r
			floor = w / rate; if (iops > 0 && bi / iops > floor) floor = bi / iops
			printf "| %s | %d | %.3f | %.3f | %.3f | %.3f | %d | %d | %.1f | %s | %.0f | %.2f | %.3f | %.2f | %.0f / %.0f |\n", m, r, med(cmd[m]), med(um[m]), t, t / raw, bi, rq, w / 1048576, fl, ff, floor, floor / raw, (iops > 0 ? rq / iops : 0), ph[m, "cmd"] / r, ph[m, "umount"] / r }
		printf "\nraw = %d bytes / %d B/s = %.3f s.\n", wbytes, rate, raw
	}' "$R_OUT/runs.tsv" "$R_OUT/counts.tsv"
}

# ------------------------------------------------------------------------- main

r_cleanup() {
	local rc=$?
	trap - EXIT INT TERM HUP
	bench_child_kill
	r_trace_stop
	stick_down_all || rc=1
	[[ -n ${B_TMP-} ]] && rm -rf "$B_TMP"
	exit "$rc"
}

r_main() {
	local r m
	r_parse "$@"
	R_OUT=${R_OUT:-$B_HERE/out/requests-$(date +%Y%m%d-%H%M%S)}
	mkdir -p "$R_OUT" || r_die "cannot create '$R_OUT'"
	trap r_cleanup EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM
	trap 'exit 129' HUP
	B_TMP=$(mktemp -d /dev/shm/safecp-requests-tmp.XXXXXX) || exit 1
	# shellcheck disable=SC2034 # read by the sourced bench libraries
	B_SRC=$B_TMP/src
	r_find_safecp
	bench_gen_sources || exit 1
	{
		echo "date	$(date -Is)"
		echo "command	$0 $*"
		echo "kernel	$(uname -r)"
		echo "commit	$(git -C "$B_ROOT" rev-parse --short HEAD 2>/dev/null)$([[ -z $(git -C "$B_ROOT" status --porcelain 2>/dev/null) ]] || echo ' (+ uncommitted changes)')"
		echo "safecp	${SAFECP_BUILD:-$B_ROOT/build}/cmd/safecp, sha256 $R_SAFECP_SHA"
		echo "stick	ext4, ${B_STICK_MIB} MiB, write throttle $B_RATE B/s, $(bench_wl_iops mixed) write bios/s, max_sectors_kb 240"
		echo "workload	mixed: $(bench_wl_files mixed) files, $(bench_wl_bytes mixed) bytes"
	} >"$R_OUT/meta.tsv"
	printf 'method\trep\trc\tcmd_s\tumount_s\ttotal_s\twrite_reqs\twrite_bios\twritten_bytes\tlost_events\n' >"$R_OUT/runs.tsv"
	: >"$R_OUT/counts.tsv"
	for ((r = 1; r <= R_REPEAT; r++)); do
		for m in "${R_METHODS[@]}"; do
			r_log "$m (run $r of $R_REPEAT)"
			r_run_one "$m" "$r" || r_log "warning: $m run $r failed"
		done
	done
	if ((R_STRACE)); then
		for m in "${R_METHODS[@]}"; do
			r_log "$m under strace"
			r_strace_one "$m" || r_log "warning: $m under strace failed"
		done
	fi
	r_table | tee "$R_OUT/table.md"
	r_log "results in $R_OUT"
}

r_main "$@"
