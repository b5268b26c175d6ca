# bench/lib/trees.bash: the workloads of issue 28 (a million files).
#
#   tree-100k   100000 files of 0-8 KiB (uniform 0..8192 bytes, inclusive) in 1000 leaf
#               directories of 100: d000-d009/s0-s9/t0-t9/ (depth 3; the upper two levels
#               hold only directories)                                  $B_SRC/tree-100k/
#   tree-1m     1000000 such files in 10000 leaf directories: d000-d099/s0-s9/t0-t9/;
#               tree-100k's files are its first 100000                  $B_SRC/tree-1m/
#   walk-1m     no copy: the walk of tree-1m, `safecp --dry-run -r SRC MNT/` (the whole
#               plan, nothing written) against `find SRC -printf ''`, warm (the source on
#               /dev/shm) and cold (a copy of it on an unthrottled ext4 stick, the "walk
#               card", with every clean cache dropped before each run)
#
# --size-scale 1/N divides the file counts (and the leaf directories) by N.
#
# Sources: lib/gentree.py carves the files from bench_stream (seed 28 for the bytes, 281
# for the sizes), a fork per file being far too slow for a million. Sticks: a tree stick
# is made as large as its files need (bench_wl_stick_mib: ext4's default 16 KiB of disk
# per inode, exFAT's 32 KiB clusters), at least --stick-size; sparse on /dev/shm, so only
# what is written costs memory.
#
# The copy workloads run the usual methods (cp, safecp; cp-sync if asked) through
# bench_run_one, which here also records when the stick's disk first completed a write
# (bench_first_write_start: /sys/block/loopN/stat field 7 polled every 10 ms from just
# before the command; firstwrite.tsv). The report (bench_trees_report) puts total time,
# max RSS, CPU and first write side by side, each also as a ratio to cp + umount.

B_TREE_WORKLOADS=(tree-100k tree-1m)
B_WALK_WORKLOADS=(walk-1m)
B_FIRST_POLL=0.01 # seconds between two reads of the disk's stat in bench_first_write_start

bench_wl_is_bigtree() { [[ " ${B_TREE_WORKLOADS[*]} " == *" $1 "* ]]; }
bench_wl_is_walk() { [[ " ${B_WALK_WORKLOADS[*]} " == *" $1 "* ]]; }

bench_tree_files() {
	case $1 in
	tree-100k) echo $((100000 / B_DIV)) ;;
	tree-1m | walk-1m) echo $((1000000 / B_DIV)) ;;
	esac
}

# Every directory of a tree of FILES files: leaves of 100, 10 x 10 leaves per top
# directory, and the parents of a partial last group.
bench_tree_dirs() {
	awk -F'\t' '{ d = $2; while (sub(/\/[^\/]*$/, "", d)) seen[d] = 1 } END { print length(seen) }' \
		"$B_SRC/$1.sizes"
}

_bench_gen_bigtree() {
	local name=$1 n total
	n=$(bench_tree_files "$name")
	bench_stream 281 $((n * 16 + 1024)) | python3 "$B_HERE/lib/gentree.py" sizes "$n" >"$B_SRC/$name.sizes" ||
		return 1
	total=$(awk -F'\t' '{ s += $1 } END { printf "%.0f\n", s }' "$B_SRC/$name.sizes")
	python3 "$B_HERE/lib/gentree.py" files "$B_SRC/$name" <"$B_SRC/$name.sizes" 3< <(bench_stream 28 "$total")
}

# shellcheck disable=SC2329 # called as _bench_gen_$KIND (lib/workloads.bash)
_bench_gen_tree-100k() { _bench_gen_bigtree tree-100k; }
# shellcheck disable=SC2329
_bench_gen_tree-1m() { _bench_gen_bigtree tree-1m; }

# ------------------------------------------------------------------- the sticks

# bench_tree_need_mib KIND FS: the MiB a stick of FS needs for the KIND tree.
#   ext4 (and xfs, btrfs, ntfs): 4 KiB blocks of data and one per directory, plus 15% and
#        512 MiB (journal, inode tables, reserved blocks); for ext4 at least 16 KiB per
#        inode with a fifth to spare (mke2fs's default inode_ratio: a million files need a
#        19 GiB ext4 stick, as they would a real one formatted with the defaults);
#   exfat, fat32: 32 KiB clusters (mkfs.exfat's for volumes up to 32 GiB) for every file
#        but the empty ones and every directory, plus 2% and 64 MiB. exFAT is kept at 32 GiB
#        at most: beyond, mkfs.exfat picks 128 KiB clusters and a million files would need
#        128 GiB (tree-1m needs 31 GiB).
bench_tree_need_mib() {
	local kind=$1 fs=$2 dirs
	dirs=$(bench_tree_dirs "$kind")
	awk -F'\t' -v fs="$fs" -v dirs="$dirs" -v mib="$MIB" '
	{ files++; blocks += int(($1 + 4095) / 4096); clusters += int(($1 + 32767) / 32768) }
	END {
		if (fs == "exfat" || fs == "fat32") {
			need = (clusters + dirs) * 32768 * 1.02 / mib + 64
			if (fs == "exfat" && need > 32768) need = 32768
		} else {
			need = (blocks + dirs) * 4096 * 1.15 / mib + 512
			inodes = (files + dirs) * 1.2 * 16384 / mib
			if (fs == "ext4" && inodes > need) need = inodes
		}
		printf "%d\n", need + 1
	}' "$B_SRC/$kind.sizes"
}

# bench_wl_stick_mib WORKLOAD: the size of its stick, --stick-size or what a tree needs.
bench_wl_stick_mib() {
	local need
	bench_wl_is_bigtree "$1" || bench_wl_is_walk "$1" || { echo "$B_STICK_MIB"; return 0; }
	need=$(bench_tree_need_mib "$(bench_wl_kind "$1")" "$B_FS")
	echo $((need > B_STICK_MIB ? need : B_STICK_MIB))
}

# ------------------------------------------------------------------- the first write

bench_wl_first_write() { bench_wl_is_bigtree "$1"; }

# _bench_first_write OUT MAJMIN BASE: polls the disk's completed write sectors (stat field
# 7) every B_FIRST_POLL seconds with builtins only, and writes bench_now's clock to OUT the
# first time they are above BASE. Any write counts: on ext4 cp's first one is often jbd2's
# commit of the metadata (every 5 s), not file data.
_bench_first_write() {
	local out=$1 majmin=$2 base=$3 fd s
	exec {fd}<>"$B_TMP/tick"
	while :; do
		read -r -a s <"/sys/dev/block/$majmin/stat"
		((s[6] > base)) && { echo "${EPOCHREALTIME/./}" >"$out"; return 0; }
		read -r -t "$B_FIRST_POLL" -u "$fd" _
	done
}

# bench_first_write_start OUT MAJMIN BASE: the poller in the background, stopped (if it
# has not seen a write yet) with the samplers.
bench_first_write_start() {
	[[ -p $B_TMP/tick ]] || mkfifo "$B_TMP/tick"
	rm -f "$1"
	_bench_first_write "$@" &
	B_SAMPLERS+=($!)
}

# bench_first_write_log WORKLOAD METHOD REP TC OUT: a row of firstwrite.tsv, the seconds
# from the command's start (TC) to the first write ("-": none seen).
bench_first_write_log() {
	local t=-
	[[ -s $B_OUT/firstwrite.tsv ]] || printf 'workload\tmethod\trep\tfirst_write_s\n' >"$B_OUT/firstwrite.tsv"
	[[ -s $5 ]] && t=$(bench_us_s $(($(<"$5") - $4)))
	printf '%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$t" >>"$B_OUT/firstwrite.tsv"
}

# ------------------------------------------------------------------- the walk

B_WALK_METHODS=(find find-stat safecp-dry-run)

# The walk card: the tree on an unthrottled ext4 stick, for the cold walks.
bench_walk_card_up() {
	local src mib
	src=$(bench_wl_src walk-1m)
	mib=$(B_FS=ext4 bench_wl_stick_mib walk-1m)
	stick_up --fs ext4 --size "$mib" --rate 0 --label WALK || return 1
	B_WALK_CARD_ID=$STICK_ID B_WALK_CARD_MNT=$STICK_MNT B_WALK_CARD_DEV=$STICK_DEV
	cp -a "$src" "$B_WALK_CARD_MNT/" && sync -f "$B_WALK_CARD_MNT" && sync "$B_WALK_CARD_DEV"
}

# bench_walk_cmd METHOD SRC DEST: B_CMD.
bench_walk_cmd() {
	# shellcheck disable=SC2034 # run by _bench_exec
	case $1 in
	find) B_CMD=(find "$2" -printf '') ;;
	# a stat per name, as a copy needs (sizes for the total and the space check)
	find-stat) B_CMD=(find "$2" -printf '%s') ;;
	safecp-dry-run) B_CMD=("$B_SAFECP" --progress=none --dry-run -r "${B_SAFECP_OPTS[@]}" "$2" "$3/") ;;
	esac
}

# One walk: B_CMD under _bench_exec; a row of walk.tsv. Cold: every clean page, dentry
# and inode dropped first (drop_caches empties everyone's caches on this machine; tmpfs,
# the warm source, keeps its own).
bench_walk_one() {
	local cache=$1 m=$2 rep=$3 src=$4 tc tr rc user sys rss
	bench_walk_cmd "$m" "$src" "$STICK_MNT"
	if [[ $cache == cold ]]; then
		sync -f "$B_WALK_CARD_MNT"
		echo 3 >/proc/sys/vm/drop_caches
	fi
	tc=$(bench_now)
	_bench_exec "$B_TMP/time.out"
	rc=$?
	tr=$(bench_now)
	read -r user sys rss < <(tail -n 1 "$B_TMP/time.out")
	((rc == 0)) || bench_warn "walk-1m/$cache/$m exited $rc: $(head -c 300 "$B_TMP/cmd.err")"
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$cache" "$m" "$rep" "$rc" "$(bench_us_s $((tr - tc)))" \
		"${user:-0}" "${sys:-0}" "${rss:-0}" >>"$B_OUT/walk.tsv"
	[[ $m == safecp-dry-run && $rep == 1 ]] && cp "$B_TMP/cmd.out" "$B_OUT/walk-$cache-dry-run.out"
	return 0
}

# walk-1m: a destination stick of --fs (the dry run plans for it; nothing is written to
# it), the walk card, then --repeat rounds of every (cache, method).
bench_run_walk() {
	local w=$1 n r cache m src dest_id
	[[ -n ${B_SAFECP_BUILT-} ]] || bench_warn "$w: no working safecp; find only"
	n=$(bench_wl_repeats "$w")
	printf 'cache\tmethod\trep\trc\twall_s\tuser_s\tsys_s\trss_kib\n' >"$B_OUT/walk.tsv"
	bench_walk_card_up || { bench_warn "$w: cannot make the walk card"; stick_down "${B_WALK_CARD_ID-}"; return 1; }
	stick_up --fs "$B_FS" --size "$(bench_wl_stick_mib "$w")" --rate 0 || return 1
	dest_id=$STICK_ID
	for ((r = 1; r <= n; r++)); do
		for cache in warm cold; do
			src=$(bench_wl_src "$w")
			[[ $cache == cold ]] && src=$B_WALK_CARD_MNT/${src##*/}
			for m in "${B_WALK_METHODS[@]}"; do
				[[ $m == safecp* && -z ${B_SAFECP_BUILT-} ]] && continue
				bench_log "$w: $m, $cache$( ((n > 1)) && echo " (run $r of $n)")"
				bench_walk_one "$cache" "$m" "$r" "$src"
			done
		done
	done
	stick_down "$dest_id"
	stick_down "$B_WALK_CARD_ID"
}

# ------------------------------------------------------------------- the report

# The tree workloads against cp + umount: each figure a median over the runs
# (results.tsv; firstwrite.tsv's own median).
_bench_trees_table() {
	awk 'BEGIN { FS = "\t" }
	function median(list,   a, k, i, j, x) {
		k = split(list, a, " ")
		for (i = 2; i <= k; i++) { x = a[i]; j = i - 1; while (j > 0 && a[j] + 0 > x + 0) { a[j + 1] = a[j]; j-- } a[j + 1] = x }
		return k % 2 ? a[(k + 1) / 2] : sprintf("%.3f", (a[k / 2] + a[k / 2 + 1]) / 2)
	}
	function ratio(a, b) { return (b > 0 && a != "-") ? sprintf("%.2f", a / b) : "-" }
	FNR == 1 { file++; next }
	file == 1 { if ($4 != "-") FW[$1, $2] = FW[$1, $2] " " $4; else NOFW[$1, $2] = 1; next }
	file == 2 && ($1 == "tree-100k" || $1 == "tree-1m") {
		n++; W[n] = $1; M[n] = $2; F[n] = $4; B[n] = $3; TOT[n] = $9; CPU[n] = $12 + $13; RSS[n] = $14 / 1024
		CHK[n] = $5 != 0 ? "exit " $5 : $16; RUNS[n] = $22
		if ($2 == "cp") { CT[$1] = $9; CC[$1] = $12 + $13; CR[$1] = $14 / 1024 }
	}
	END {
		print "| workload | files | MiB | method | total s (command + umount) | × cp | max RSS MiB | × cp | CPU user+sys s | × cp | first write s | × cp | runs | check |"
		print "|---|--:|--:|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|---|"
		for (i = 1; i <= n; i++) {
			fw = (W[i], M[i]) in FW ? median(FW[W[i], M[i]]) : "-"
			if ((W[i], "cp") in FW) cfw = median(FW[W[i], "cp"]); else cfw = 0
			printf "| %s | %d | %.1f | %s | %.3f | %s | %.1f | %s | %.3f | %s | %s | %s | %d | %s |\n", W[i], F[i], B[i] / 1048576,
			    M[i], TOT[i], ratio(TOT[i], CT[W[i]]), RSS[i], ratio(RSS[i], CR[W[i]]), CPU[i], ratio(CPU[i], CC[W[i]]),
			    fw, ratio(fw, cfw), RUNS[i], CHK[i]
		}
	}' "$B_OUT/firstwrite.tsv" "$B_OUT/results.tsv"
}

# walk-1m: the median wall time of each (cache, method), safecp's against find's.
_bench_walk_table() {
	awk 'BEGIN { FS = "\t" }
	function median(list,   a, k, i, j, x) {
		k = split(list, a, " ")
		for (i = 2; i <= k; i++) { x = a[i]; j = i - 1; while (j > 0 && a[j] + 0 > x + 0) { a[j + 1] = a[j]; j-- } a[j + 1] = x }
		return k % 2 ? a[(k + 1) / 2] : sprintf("%.3f", (a[k / 2] + a[k / 2 + 1]) / 2)
	}
	NR == 1 { next }
	{
		k = $1 SUBSEP $2
		if (!(k in N)) order[++nk] = k
		N[k]++; WALL[k] = WALL[k] " " $5; CPU[k] = CPU[k] " " ($6 + $7); RSS[k] = RSS[k] " " $8
		if (N[k] == 1 || $5 < MIN[k]) MIN[k] = $5
		if (N[k] == 1 || $5 > MAX[k]) MAX[k] = $5
		if ($4 != 0) BAD[k] = "exit " $4
		C[k] = $1; M[k] = $2
	}
	END {
		print "| cache | method | wall s (range, runs) | × find | CPU user+sys s | max RSS MiB | target |"
		print "|---|---|--:|--:|--:|--:|---|"
		for (i = 1; i <= nk; i++) {
			k = order[i]; f = C[k] SUBSEP "find"
			r = (f in WALL) ? median(WALL[k]) / median(WALL[f]) : 0
			tgt = "-"
			if (M[k] == "safecp-dry-run" && r > 0) tgt = r <= 1.2 ? "<= 1.2 × find: ok" : "<= 1.2 × find: **MISS**"
			if (k in BAD) tgt = BAD[k]
			label = M[k] == "find" ? "`find SRC -printf \"\"`" : M[k] == "find-stat" ? "`find SRC -printf %s` (a stat per name)" : "`safecp --dry-run -r SRC MNT/`"
			x = r > 0 ? sprintf("%.2f", r) : "-"
			printf "| %s | %s | %s (%s-%s, %d) | %s | %.3f | %.1f | %s |\n", C[k], label,
			    median(WALL[k]), MIN[k], MAX[k], N[k], x, median(CPU[k]), median(RSS[k]) / 1024, tgt
		}
	}' "$B_OUT/walk.tsv"
}

bench_trees_report() {
	if [[ -s $B_OUT/firstwrite.tsv ]]; then
		echo
		echo "Issue 28, many small files: each figure against cp + umount on the same workload (first write: the"
		echo "stick's disk first completed a write, since the command started; polled every ${B_FIRST_POLL} s):"
		echo
		_bench_trees_table
	fi
	if [[ -s $B_OUT/walk.tsv ]]; then
		echo
		echo "Issue 28, the walk of $(bench_tree_files walk-1m) entries: warm = the source on /dev/shm (tmpfs: every"
		echo "dentry and inode in memory); cold = its copy on an unthrottled ext4 stick, drop_caches before each run:"
		echo
		_bench_walk_table
	fi
	return 0
}
