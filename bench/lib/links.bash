# bench/lib/links.bash: issue 29's hard links: does the stick hold each pair once?
#
# links-500 (lib/workloads.bash) is 1000 files, 500 of them with a second name in another
# directory. Its methods are those that keep hard links: cp-a (`cp -a`) and safecp-a
# (`safecp -a`); cp and safecp would copy each pair twice. After every run, on the
# read-only remount that compares the copy with its source (_bench_verify), one line of
# links.tsv:
#   src_du, copy_du   `du -s --block-size=1` of the source and of the copy. du counts an
#                     inode once, however many names it has; a copy that broke the links
#                     would have src_du_names instead (du -l: every name counted). The
#                     copy's directories take a 4 KiB block each on ext4, none on tmpfs.
#   stick_used        bytes the stick's file system uses (statfs: blocks - free, times the
#                     block size) after the run, less those of the fresh stick: data,
#                     directories, and any extent or xattr blocks
#   pairs             second names that are the same inode as their first name, of 500
# The report gives the medians and the target: the copy's du within 1% of the source's.

bench_wl_is_links() { [[ $1 == links-500 ]]; }

# _bench_fs_used DIR: bytes in use on the file system of DIR.
_bench_fs_used() {
	stat -f -c '%b %f %S' "$1" | awk '{ printf "%.0f\n", ($1 - $2) * $3 }'
}

# _bench_du DIR [DU_OPT]: du's bytes for DIR.
_bench_du() {
	du -s --block-size=1 "${@:2}" "$1" | cut -f1
}

# Before the command, on the fresh stick.
bench_links_before() {
	B_LINKS_USED0=$(_bench_fs_used "$STICK_MNT")
}

# bench_links_check WORKLOAD METHOD REP SRC DST: a line of links.tsv (the stick mounted).
bench_links_check() {
	local w=$1 m=$2 rep=$3 src=$4 dst=$5 list pairs
	list=$B_SRC/$(bench_wl_kind "$w").links
	[[ -s $B_OUT/links.tsv ]] ||
		printf 'workload\tmethod\trep\tsrc_du\tsrc_du_names\tcopy_du\tstick_used\tpairs\tpairs_of\n' >"$B_OUT/links.tsv"
	pairs=$(awk -F'\t' 'FNR == NR { ino[$2] = $1; next }
		($1 in ino) && ($2 in ino) && ino[$1] == ino[$2] { k++ } END { print k + 0 }' \
		<(find "$dst" -type f -printf '%i\t%P\n') "$list")
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$w" "$m" "$rep" "$(_bench_du "$src")" \
		"$(_bench_du "$src" -l)" "$(_bench_du "$dst")" $(($(_bench_fs_used "$STICK_MNT") - B_LINKS_USED0)) \
		"$pairs" "$(wc -l <"$list")" >>"$B_OUT/links.tsv"
}

# The medians of links.tsv per workload and method, each against the source's du, the
# total time (results.tsv's median) against cp -a's, and the target, which every run must
# meet.
bench_links_report() {
	[[ -s $B_OUT/links.tsv ]] || return 0
	echo
	echo "Hard links (issue 29; medians; du counts an inode once, du -l every name):"
	echo
	echo "| workload | method | total s (× cp-a) | source du B | source du -l B | copy du B (× source) | stick used B (× source du) | pairs linked |"
	echo "|---|---|--:|--:|--:|--:|--:|--:|"
	awk -F'\t' '
	function median(list,   a, k, i, j, x) {
		k = split(list, a, " ")
		for (i = 2; i <= k; i++) { x = a[i]; j = i - 1; while (j > 0 && a[j] + 0 > x + 0) { a[j + 1] = a[j]; j-- } a[j + 1] = x }
		return k % 2 ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2
	}
	FNR == 1 { file++; next }
	file == 1 { TOT[$1, $2] = $9; if ($2 == "cp-a") CPA[$1] = $9; next }
	{
		key = $1 SUBSEP $2
		if (!(key in N)) { order[++nk] = key; W[key] = $1; M[key] = $2 }
		N[key]++
		for (c = 4; c <= 9; c++) V[key, c] = V[key, c] " " $c
		# the target holds for every run: the worst of them
		d = $6 / $4 - 1; if (d < 0) d = -d
		if (N[key] == 1 || d > WORST[key]) WORST[key] = d
		if (N[key] == 1 || $8 < FEWEST[key]) FEWEST[key] = $8
	}
	END {
		for (k = 1; k <= nk; k++) {
			key = order[k]
			for (c = 4; c <= 9; c++) v[c] = median(V[key, c])
			r = CPA[W[key]] > 0 ? sprintf("%.3f", TOT[key] / CPA[W[key]]) : "-"
			printf "| %s | %s | %s (%s) | %d | %d | %d (%.4f) | %d (%.4f) | %d of %d |\n", W[key], M[key],
			    TOT[key], r, v[4], v[5], v[6], v[6] / v[4], v[7], v[7] / v[4], v[8], v[9]
			line[k] = sprintf("- %s %s: copy du %d B vs source %d B (%.4f; in the worst of %d runs %.2f%% apart, %d of %d pairs linked) (target: du within 1%%, every pair linked): %s",
			    W[key], M[key], v[6], v[4], v[6] / v[4], N[key], 100 * WORST[key], FEWEST[key], v[9],
			    (WORST[key] <= 0.01 && FEWEST[key] == v[9]) ? "ok" : "**MISS**")
		}
		print ""
		for (k = 1; k <= nk; k++) print line[k]
	}' "$B_OUT/results.tsv" "$B_OUT/links.tsv"
}
