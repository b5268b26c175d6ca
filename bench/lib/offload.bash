# bench/lib/offload.bash: the workloads of issue 10 (read-back verify, checksums, reruns).
#
#   verify              the 1gib file to one stick with `safecp --verify`, against the raw
#                       write (dd oflag=direct) + raw read (dd iflag=direct of the same
#                       bytes) measured in the same run
#   checksum            the 1gib file with and without `--checksum=xxh128 --sums=MNT/...`
#                       (--repeat runs, taking turns): what the hash costs in CPU per GiB
#   noop-rerun          1000 files of 32 KiB copied once, the stick remounted (a cold
#                       cache, as after a replug), then `safecp --skip-identical` again:
#                       what is measured is the rerun
#   two-sticks-verify   two-sticks with `--verify` (lib/multi.bash): each destination's
#                       finish against its own raw write + raw read
#
# Their sticks also get a blkio read throttle: --read-rate (default twice --rate; real
# sticks read faster than they write), scaled with each stick's write rate (two-sticks-
# verify: 40 and 20 MiB/s). stick_up --read-rate sets it as a step of the stick, so
# stick_down (and the EXIT trap's stick_down_all, and `tests/stick cleanup` after a kill -9)
# lifts it; the bench also lifts it right after the measured command, so that the
# content check reads at full speed.

B_OFFLOAD_WORKLOADS=(verify checksum noop-rerun two-sticks-verify)
B_NOOP_FILES=1000 B_NOOP_SIZE=32768

bench_wl_is_offload() { [[ " ${B_OFFLOAD_WORKLOADS[*]} " == *" $1 "* ]]; }

# The options of safecp that WORKLOAD needs.
_bench_wl_needs() {
	case $1 in
	verify | two-sticks-verify) echo --verify ;;
	checksum) echo --checksum --sums ;;
	noop-rerun) echo --skip-identical ;;
	esac
}

# Why safecp cannot run WORKLOAD ('' when it can): a missing option is "not available",
# reported as such instead of failing (--skip-identical is still being written).
bench_wl_unavailable() {
	local opt help
	bench_wl_is_offload "$1" || return 0
	[[ -n ${B_SAFECP_BUILT-} ]] || { echo 'no working safecp'; return 0; }
	help=$("$B_SAFECP" --help 2>/dev/null)
	for opt in $(_bench_wl_needs "$1"); do
		grep -qE -e "(^|[ ,])$opt([]=[ ,]|\$)" <<<"$help" ||
			{ echo "not available: this safecp has no $opt (safecp --help)"; return 0; }
	done
}

# The methods of an issue-10 workload, in run order (not --methods: each workload has
# the comparison its target is about).
bench_offload_methods() {
	case $1 in
	verify) echo dd dd-read safecp+verify ;;
	checksum) echo safecp safecp+xxh128 ;;
	noop-rerun) echo safecp+skip ;;
	two-sticks-verify) echo safecp+verify ;;
	esac
}

# Extra safecp options of (WORKLOAD, METHOD) into DEST, one per line.
bench_offload_opts() {
	local m=$2 dest=$3
	case $m in
	safecp+verify) echo --verify ;;
	safecp+xxh128) echo --checksum=xxh128; echo "--sums=$dest/big.sums" ;;
	safecp+skip) echo --skip-identical ;;
	esac
	return 0
}

# ------------------------------------------------------------------- the read throttle

# bench_wl_read_rate WORKLOAD RATE: the read throttle (stick_up --read-rate) of a stick
# of WORKLOAD that writes at RATE: --read-rate scaled like the write rate; 0 (none)
# outside issue 10's workloads.
bench_wl_read_rate() {
	bench_wl_is_offload "$1" || { echo 0; return 0; }
	((B_RATE > 0)) || { echo "$B_READ_RATE"; return 0; } # --rate 0: no throttle to scale with
	echo $(($2 * B_READ_RATE / B_RATE))
}

# bench_stick_read_lift ID...: lift the sticks' read rules now, the measurement being
# over (stick_down would lift them too, later); only while the loop device is the stick's.
bench_stick_read_lift() {
	local id dev rc=0 STICK_MAJMIN STICK_DISK STICK_LOOPFILE
	for id; do
		eval "$(grep -E '^STICK_(MAJMIN|DISK|LOOPFILE)=' "$STICK_REGISTRY/$id/vars" 2>/dev/null)"
		dev=$(readlink -f "/sys/dev/block/$STICK_MAJMIN" 2>/dev/null) || continue
		_stick_loop_is_ours "/dev/${dev##*/}" "$STICK_LOOPFILE" || continue
		echo "$STICK_MAJMIN 0" >"$_BLKIO_READ" || { bench_warn "could not lift the read throttle of $STICK_MAJMIN (stick $id)"; rc=1; }
	done
	return $rc
}

# ------------------------------------------------------------------- before the run

# Anything a method needs on its fresh stick before the measured command (the stick is up,
# throttled; STICK_* are set):
#   verify/dd-read   the same bytes written to the raw disk first (unthrottled, so it
#                    takes a second), so that the raw read reads what dd wrote
#   noop-rerun       the first copy (timed, logged), then umount and mount again: the
#                    rerun starts with nothing of the stick in the page cache
bench_offload_prepare() {
	local w=$1 m=$2 rep=$3 src t0 rc=0
	src=$(bench_wl_src "$w")
	case $w/$m in
	verify/dd-read)
		stick_throttle "$STICK_ID" 0 || return 1
		dd if="$src" of="$STICK_DISK" bs=4M iflag=fullblock oflag=direct conv=fsync status=none || rc=1
		stick_throttle "$STICK_ID" "$B_RATE" "$(bench_wl_iops "$w")" || rc=1
		return $rc ;;
	noop-rerun/*)
		t0=$(bench_now)
		"$B_SAFECP" --progress=none -r "$src" "$STICK_MNT/" </dev/null >"$B_TMP/first.out" 2>&1 ||
			{ bench_warn "$w: the first copy failed: $(head -c 300 "$B_TMP/first.out")"; return 1; }
		_bench_remount || return 1
		t0=$(bench_us_s $(($(bench_now) - t0)))
		bench_log "$w: the first copy and the remount took $t0 s"
		printf '%s\t%s\t%s\tfirst_copy_s\t%s\n' "$w" "$m" "$rep" "$t0" >>"$B_OUT/offload.tsv" ;;
	esac
	return 0
}

# umount and mount the stick again, as stick_up mounted it (its undo still matches).
_bench_remount() {
	umount "$STICK_MNT" || { bench_warn "umount '$STICK_MNT' failed"; return 1; }
	if bench_is_fuse "$STICK_FS"; then
		local n
		# the daemon still holds the device for a moment after umount
		for ((n = 0; n < 100 && $(_bench_fuse_pid "$STICK_MNT") != 0; n++)); do sleep 0.1; done
		bench_fuse_mount rw || return 1
	else
		mount -t "$STICK_FS" "$STICK_DEV" "$STICK_MNT" || return 1
	fi
}

# After the measured command (the stick unmounted, SAMPLES complete): what only these
# workloads look at. Appends "workload method rep key value" lines to offload.tsv.
bench_offload_after() {
	local w=$1 m=$2 rep=$3 samples=$4 json
	[[ $m == safecp+skip ]] || return 0
	json=$B_OUT/samples/$w-$m.json
	((rep > 1)) && json=$B_OUT/samples/$w-$m.r$rep.json
	cp "$B_TMP/cmd.out" "$json"
	{
		jq -r 'select(.event == "done") | "bytes_on_device\t\(.bytes_on_device // "-")", "bytes_total\t\(.bytes_total // "-")",
			"files\t\(.files // "-")", "skipped_identical\t\(.skipped_identical // "-")"' "$json" 2>/dev/null
		jq -r 'select(.event == "start") | "skipped_identical_bytes\t\(.skipped_identical_bytes // "-")"' "$json" 2>/dev/null
		jq -r 'select(.event == "progress") | "bytes_written\t\(.bytes_written // "-")"' "$json" 2>/dev/null | tail -n 1
		printf 'file_events\t%s\n' "$(jq -r 'select(.event == "file") | .state' "$json" 2>/dev/null | sort | uniq -c | awk '{ printf "%s%s %s", (NR > 1 ? ", " : ""), $1, $2 }')"
		# what reached the device during the rerun and its umount, metadata included
		printf 'device_written_kib\t%s\n' "$(tail -n 1 "$samples" | cut -f3)"
	} | sed "s/^/$w\t$m\t$rep\t/" >>"$B_OUT/offload.tsv"
}

# Inside the content check (the stick mounted read-only): the xxh128 list that safecp
# wrote on the stick against xxhsum of the source.
bench_offload_check() {
	local w=$1 m=$2 rep=$3 f
	[[ $m == safecp+xxh128 && -n $B_SRC_XXH128 ]] || return 0
	f=$(awk '{ print $1; exit }' "$STICK_MNT/big.sums.xxh128" 2>/dev/null)
	printf '%s\t%s\t%s\tsums\t%s\n' "$w" "$m" "$rep" \
		"$([[ $f == "$B_SRC_XXH128" ]] && echo ok || echo "DIFF (${f:-no list})")" >>"$B_OUT/offload.tsv"
}

# xxhsum of the 1gib source, once, for the check of the sums lists ('' without xxhsum).
bench_offload_sources() {
	B_SRC_XXH128=''
	printf 'workload\tmethod\trep\tkey\tvalue\n' >"$B_OUT/offload.tsv"
	printf 'workload\treason\n' >"$B_OUT/offload-skipped.tsv"
	[[ " ${B_WORKLOADS[*]} " == *" checksum "* ]] || return 0
	command -v xxhsum >/dev/null || { bench_warn "no xxhsum: the sums lists are not checked"; return 0; }
	B_SRC_XXH128=$(xxhsum -H2 "$(bench_wl_src checksum)" | awk '{ print $1 }')
}

# 10 directories of 100 files, as a camera names them; carved like tree (lib/workloads.bash).
_bench_gen_noop() {
	local n
	for ((n = 0; n < B_NOOP_FILES; n++)); do
		printf '%d\tDCIM/%dSAFE/IMG_%04d.JPG\n' "$B_NOOP_SIZE" $((100 + n / 100)) "$n"
	done >"$B_SRC/noop.sizes" && _bench_gen_files noop 6
}

# ------------------------------------------------------------------- the report

# Targets of issue 10, from results.tsv, runs.tsv, offload.tsv and multi.tsv (the
# two-sticks-verify lines are in the multi-destination section).
bench_offload_report() {
	local any=''
	for w in "${B_WORKLOADS[@]}"; do bench_wl_is_offload "$w" && any=1; done
	[[ -n $any ]] || return 0
	echo
	echo "Targets (issue 10; sticks read at --read-rate $B_READ_RATE B/s, scaled with their write rate):"
	echo
	awk -F'\t' '$1 != "workload" { printf "- %s: %s\n", $1, $2 }' "$B_OUT/offload-skipped.tsv"
	[[ " ${B_WORKLOADS[*]} " == *" two-sticks-verify "* ]] &&
		echo "- two-sticks-verify: with the targets of several destinations, above"
	awk -v gib=1073741824 '
	BEGIN { FS = "\t" }
	FNR == 1 { file++; next }
	file == 1 {
		key = $1 SUBSEP $2
		TOT[key] = $9; CMD[key] = $6; UM[key] = $8; U[key] = $12; S[key] = $13; B[key] = $3; RC[key] = $5
		VER[key] = $16; RD[key] = $21; RUNS[key] = $22; SEEN[$1] = 1; LASTW[key] = $18
		DONE[key] = $18 > $9 + 0.1 ? $18 : $9
		next
	}
	file == 2 { if ($1 == "checksum") { PER[$2] = PER[$2] " " sprintf("%.2f", $12 + $13) } next }
	# a failed check in any repetition is the one shown
	file == 3 { k = $1 SUBSEP $2 SUBSEP $4; if (!(k in X) || X[k] == "ok") X[k] = $5; next }
	function ok(c) { return c ? "ok" : "**MISS**" }
	function failed(w, m) {
		if (RC[w, m] == 0 && VER[w, m] == "ok") return 0
		printf "- %s %s: exit %s, copy %s: **MISS**\n", w, m, RC[w, m], VER[w, m]
		return 1
	}
	END {
		if (("verify", "safecp+verify") in TOT && !failed("verify", "safecp+verify")) {
			raw = DONE["verify", "dd"] + DONE["verify", "dd-read"]
			r = raw > 0 ? DONE["verify", "safecp+verify"] / raw : 0
			printf "- verify safecp --verify: total %.3f s / (raw write %.3f s + raw read %.3f s = %.3f s) = %.3f (target <= 1.05): %s\n",
			    DONE["verify", "safecp+verify"], DONE["verify", "dd"], DONE["verify", "dd-read"], raw, r, ok(r > 0 && r <= 1.05)
			printf "- verify safecp --verify: the stick read %.1f MiB during the run (%.3f × the bytes; raw read %.1f MiB): the read-back %s\n",
			    RD["verify", "safecp+verify"] / 1048576, RD["verify", "safecp+verify"] / B["verify", "safecp+verify"],
			    RD["verify", "dd-read"] / 1048576, (RD["verify", "safecp+verify"] >= B["verify", "safecp+verify"] ? "reached the device" : "**did not all reach the device**")
		}
		if (("checksum", "safecp") in TOT && ("checksum", "safecp+xxh128") in TOT &&
		    !failed("checksum", "safecp") && !failed("checksum", "safecp+xxh128")) {
			a = U["checksum", "safecp"] + S["checksum", "safecp"]
			b = U["checksum", "safecp+xxh128"] + S["checksum", "safecp+xxh128"]
			d = (b - a) * gib / B["checksum", "safecp"]
			printf "- checksum: CPU user+sys without %.2f s (user %.2f, sys %.2f), with --checksum=xxh128 --sums %.2f s (user %.2f, sys %.2f), medians of %d runs\n",
			    a, U["checksum", "safecp"], S["checksum", "safecp"], b, U["checksum", "safecp+xxh128"], S["checksum", "safecp+xxh128"], RUNS["checksum", "safecp"]
			printf "- checksum: every run, without:%s; with:%s\n", PER["safecp"], PER["safecp+xxh128"]
			printf "- checksum: the hash costs %+.2f s of CPU per GiB (target <= 0.1 s): %s\n", d, ok(d <= 0.1)
			printf "- checksum: total with %.3f s vs without %.3f s (reported)\n", DONE["checksum", "safecp+xxh128"], DONE["checksum", "safecp"]
			if (("checksum", "safecp+xxh128", "sums") in X)
				printf "- checksum: the xxh128 list on the stick against xxhsum -H2 of the source: %s\n", X["checksum", "safecp+xxh128", "sums"]
		}
		if (("noop-rerun", "safecp+skip") in TOT && !failed("noop-rerun", "safecp+skip")) {
			t = DONE["noop-rerun", "safecp+skip"]
			bw = X["noop-rerun", "safecp+skip", "bytes_written"]
			if (bw == "") bw = "- (no progress event)"
			printf "- noop-rerun: the first copy (safecp -r, then umount and mount) took %s s\n", X["noop-rerun", "safecp+skip", "first_copy_s"]
			printf "- noop-rerun safecp --skip-identical: total %.3f s (returns %s s + umount %s s) (target < 1 s): %s\n",
			    t, CMD["noop-rerun", "safecp+skip"], UM["noop-rerun", "safecp+skip"], ok(t < 1)
			printf "- noop-rerun safecp --skip-identical: bytes copied (the last progress event: bytes_written) %s; done event: bytes_on_device %s, bytes_total %s (target 0 copied): %s\n",
			    bw, X["noop-rerun", "safecp+skip", "bytes_on_device"], X["noop-rerun", "safecp+skip", "bytes_total"], ok(bw == "0")
			si = X["noop-rerun", "safecp+skip", "skipped_identical"]
			printf "- noop-rerun safecp --skip-identical: skipped as identical %s of %d files, %s bytes (target all): %s\n",
			    si, nfiles, X["noop-rerun", "safecp+skip", "skipped_identical_bytes"], ok(si == nfiles)
			printf "- noop-rerun safecp --skip-identical: file events: %s; during the rerun and its umount the stick read %d KiB (a cold cache) and wrote %s KiB (metadata) (reported)\n",
			    X["noop-rerun", "safecp+skip", "file_events"], RD["noop-rerun", "safecp+skip"] / 1024, X["noop-rerun", "safecp+skip", "device_written_kib"]
		}
	}' nfiles="$B_NOOP_FILES" "$B_OUT/results.tsv" "$B_OUT/runs.tsv" "$B_OUT/offload.tsv"
}
