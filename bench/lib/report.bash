# bench/lib/report.bash: the markdown table, the target check and the plots of one run.
#
# Raw device time ("× raw") of a workload:
#   1gib     the measured `dd oflag=direct` of the same bytes to the raw stick;
#   1000x1m, tree
#            bytes / (the raw write rate that dd measured in the same run): data only,
#            so file-system metadata is a cost the methods pay and raw does not;
#   card     the slower of the card's raw read (measured: dd iflag=direct from the card's
#            disk, same bytes, through the same read throttle) and the stick's raw write.
#   sparse   its data bytes / dd's rate: holes are nothing to write (issue 29)
#   mixed    as tree (data bytes / dd's rate); its sticks also take only 300 write
#            requests/s (unless --iops), which dd's 240 KiB requests never reach.
# "× cp" divides by the total of cp + umount on the same workload (where it has no cp row,
# cp -a's: links-500). Issue 29's safecp-preserve and safecp-a are also held to safecp -r's
# total on the same workload (<= 1.05 ×).
# tree and mixed run --repeat times; results.tsv holds the median of every column over
# those runs (bench_collapse: each figure its own median, so returns + umount need not add
# up to total exactly), and the table shows the range of the totals.
# A method is done when its total is over and the device has stopped writing: where the
# device's last write came more than 0.1 s (two samples) after the total (exfat-fuse's
# daemon after umount, a mount that another namespace kept alive), the ratios and the
# target checks use that later time, and the table shows it.

# awk program shared by the table and the target check: loads results.tsv into arrays.
_BENCH_AWK_LOAD='
BEGIN { FS = "\t" }
NR == 1 { next }
{
	n++; W[n] = $1; M[n] = $2; B[n] = $3; F[n] = $4; RC[n] = $5; CMD[n] = $6; DRET[n] = $7
	UM[n] = $8; TOT[n] = $9; CLEAN[n] = $10; PEAK[n] = $11; CPU[n] = $12 + $13; RSS[n] = $14
	HOST[n] = $15; VER[n] = $16; KT[n] = $17 == "" ? "-" : $17
	LASTW[n] = $18 == "" ? 0 : $18; WIOS[n] = $19; WBIOS[n] = $20; RD[n] = $21
	RUNS[n] = $22; TMIN[n] = $23; TMAX[n] = $24
	ALL[n] = $25 == "" ? CPU[n] + $17 : $25
	DONE[n] = LASTW[n] > TOT[n] + 0.1 ? LASTW[n] : TOT[n]
	if ($1 == "1gib" && $2 == "dd") { rate = $3 / DONE[n] }
	if ($1 == "verify" && ($2 == "dd" || $2 == "dd-read")) rawverify += DONE[n]
	if ($2 == "cp" || ($2 == "cp-a" && !($1 in CPT))) { CPT[$1] = DONE[n]; CPCPU[$1] = $12 + $13; CPKT[$1] = $17; CPALL[$1] = ALL[n]; CPIOS[$1] = $19; CPBIOS[$1] = $20 }
	if ($2 == "safecp") SAFECPT[$1] = DONE[n]
	if (!($1 in SEEN)) { SEEN[$1] = 1; order[++nw] = $1 }
	bytes[$1] = $3
}
function raw(w,   wr) {
	if (w == "1gib") return rawdd
	if (w == "verify") return rawverify
	if (w == "noop-rerun") return 0
	wr = rate > 0 ? bytes[w] / rate : 0
	if (w == "card" && card_read > wr) return card_read
	return wr
}
function ratio(a, b) { return b > 0 ? sprintf("%.3f", a / b) : "-" }
# issue 10 names its methods by what they add (lib/offload.bash)
function label(w, m) {
	if (m == "dd") return w == "verify" ? "dd oflag=direct (raw write)" : "dd oflag=direct (raw)"
	if (m == "dd-read") return "dd iflag=direct (raw read)"
	if (m == "safecp+verify") return "safecp --verify"
	if (m == "safecp+xxh128") return "safecp --checksum=xxh128 --sums"
	if (m == "safecp+skip") return "safecp --skip-identical (rerun)"
	return m
}
function finish() {
	for (i = 1; i <= n; i++) if (W[i] == "1gib" && M[i] == "dd") rawdd = DONE[i]
}
'

# bench_collapse: results.tsv from runs.tsv, one row per (workload, method) in run order:
# the median of each measured column, the first failure's exit code and check, the number
# of runs and the range of the totals.
bench_collapse() {
	bench_results_header >"$B_OUT/results.tsv"
	awk 'BEGIN { FS = OFS = "\t" }
	# an even count: the mean of the middle two, with as many decimals as they have
	function median(list,   a, k, i, j, x, d) {
		k = split(list, a, " ")
		for (i = 2; i <= k; i++) { x = a[i]; j = i - 1; while (j > 0 && a[j] + 0 > x + 0) { a[j + 1] = a[j]; j-- } a[j + 1] = x }
		if (k % 2) return a[(k + 1) / 2]
		d = index(a[k / 2], ".") ? length(a[k / 2]) - index(a[k / 2], ".") : 0
		return sprintf("%." d "f", (a[k / 2] + a[k / 2 + 1]) / 2)
	}
	# user and sys of the run whose user + sys is the median (of the two middle runs: their
	# means): the kernel splits a run'"'"'s CPU between the two by sampling ticks, so their own
	# medians need not add up to the median CPU of a run (they came out 0.024 s apart)
	function median_split(ul, sl,   u, s, t, o, k, i, j, x) {
		k = split(ul, u, " ")
		split(sl, s, " ")
		for (i = 1; i <= k; i++) { t[i] = u[i] + s[i]; o[i] = i }
		for (i = 2; i <= k; i++) { x = o[i]; j = i - 1; while (j > 0 && t[o[j]] > t[x]) { o[j + 1] = o[j]; j-- } o[j + 1] = x }
		if (k % 2) { MU = u[o[(k + 1) / 2]]; MS = s[o[(k + 1) / 2]]; return }
		MU = sprintf("%.3f", (u[o[k / 2]] + u[o[k / 2 + 1]]) / 2)
		MS = sprintf("%.3f", (s[o[k / 2]] + s[o[k / 2 + 1]]) / 2)
	}
	NR == 1 { next }
	{
		key = $1 SUBSEP $2
		if (!(key in N)) { order[++nk] = key; W[key] = $1; M[key] = $2; B[key] = $3; F[key] = $4; RC[key] = 0; VER[key] = $16 }
		N[key]++
		if ($5 != 0 && RC[key] == 0) RC[key] = $5
		if ($16 != "ok" && VER[key] == "ok") VER[key] = $16
		for (c = 6; c <= 21; c++) if (c != 16) V[key, c] = V[key, c] " " $c
		# own + kernel-thread CPU, per run: its median is the CPU target'"'"'s figure
		ALL[key] = ALL[key] " " sprintf("%.3f", $12 + $13 + $17)
		if (N[key] == 1 || $9 < MIN[key]) MIN[key] = $9
		if (N[key] == 1 || $9 > MAX[key]) MAX[key] = $9
	}
	END {
		for (k = 1; k <= nk; k++) {
			key = order[k]
			line = W[key] OFS M[key] OFS B[key] OFS F[key] OFS RC[key]
			median_split(V[key, 12], V[key, 13])
			for (c = 6; c <= 21; c++)
				line = line OFS (c == 16 ? VER[key] : c == 12 ? MU : c == 13 ? MS : median(V[key, c]))
			print line, N[key], MIN[key], MAX[key], median(ALL[key])
		}
	}' "$B_OUT/runs.tsv" >>"$B_OUT/results.tsv"
}

bench_report_table() {
	awk -v card_read="${B_CARD_READ_S:-0}" "$_BENCH_AWK_LOAD"'
END {
	finish()
	print "| workload | method | returns s | dirty at return MiB | umount s | total s | peak dirty MiB | × raw | × cp | write requests (× cp) | write bios (× cp) | CPU user+sys s | kernel+daemon CPU s | max RSS MiB | check |"
	print "|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|---|"
	for (k = 1; k <= nw; k++) {
		w = order[k]
		how = "bytes / dd rate"
		if (w == "card" && raw(w) == card_read) how = "card read, measured"
		if (w == "verify") how = "write + read, measured"
		if (w != "1gib" && w != "noop-rerun")
			printf "| %s | raw (%s) | | | | %.2f | | 1.000 | %s | | | | | | |\n", w, how,
			    raw(w), ratio(raw(w), CPT[w])
		for (i = 1; i <= n; i++) {
			if (W[i] != w) continue
			tot = TOT[i]
			if (DONE[i] > TOT[i]) tot = tot " (device writing until " DONE[i] ")"
			else if (CLEAN[i] > TOT[i] + 0.5) tot = tot " (clean " CLEAN[i] ")"
			if (RUNS[i] > 1) tot = tot " (" TMIN[i] "-" TMAX[i] ", median of " RUNS[i] ")"
			chk = VER[i]; if (RC[i] != 0) chk = "exit " RC[i]
			ios = WIOS[i] == "" ? "-" : sprintf("%d (%s)", WIOS[i], ratio(WIOS[i], CPIOS[w]))
			bios = WBIOS[i] == "" ? "-" : sprintf("%d (%s)", WBIOS[i], ratio(WBIOS[i], CPBIOS[w]))
			printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %.3f | %s | %.1f | %s |\n", w,
			    label(w, M[i]), CMD[i], DRET[i],
			    M[i] ~ /^dd/ ? "-" : UM[i], tot, PEAK[i], ratio(DONE[i], raw(w)),
			    ratio(DONE[i], CPT[w]), ios, bios, CPU[i], KT[i], RSS[i] / 1024, chk
		}
	}
}' "$B_OUT/results.tsv"
}

# One line per target and safecp row: the measured value, the target, ok or MISS.
bench_report_targets() {
	awk -v card_read="${B_CARD_READ_S:-0}" "$_BENCH_AWK_LOAD"'
function line(what, val, target, good) {
	printf "- %s %s: %s (target %s): %s\n", W[i], M[i], what " " val, target, good ? "ok" : "**MISS**"
}
END {
	finish()
	for (i = 1; i <= n; i++) {
		if (M[i] !~ /^safecp/) continue
		if (RC[i] != 0 || VER[i] != "ok") { printf "- %s %s: exit %s, copy %s: **MISS**\n", W[i], M[i], RC[i], VER[i]; continue }
		r = raw(W[i]) > 0 ? DONE[i] / raw(W[i]) : 0
		if (W[i] == "1gib") line("total/raw", sprintf("%.3f", r), "<= 1.03", r <= 1.03)
		if (W[i] == "card") line("total/raw", sprintf("%.3f", r), "<= 1.10", r <= 1.10)
		if (W[i] == "sparse") line("total/raw", sprintf("%.3f (cp+umount %s)", r, ratio(CPT[W[i]], raw(W[i]))),
		    "<= 1.05", r <= 1.05)
		if (W[i] == "1000x1m" || W[i] == "tree" || W[i] == "mixed")
			line("total", sprintf("%.2f s vs cp+umount %.2f s", DONE[i], CPT[W[i]]), "<= cp", DONE[i] <= CPT[W[i]])
		if ((M[i] == "safecp-a" || M[i] == "safecp-preserve") && SAFECPT[W[i]] > 0)
			line("total", sprintf("%.2f s vs safecp -r %.2f s (%s)", DONE[i], SAFECPT[W[i]], ratio(DONE[i], SAFECPT[W[i]])),
			    "<= 1.05x safecp (issue 29)", DONE[i] <= 1.05 * SAFECPT[W[i]])
		if (W[i] == "mixed" && CPIOS[W[i]] > 0)
			printf "- %s %s: write requests %d vs cp+umount %d (%.3f), bios %d vs %d (%.3f) (reported, no target)\n",
			    W[i], M[i], WIOS[i], CPIOS[W[i]], WIOS[i] / CPIOS[W[i]], WBIOS[i], CPBIOS[W[i]],
			    (CPBIOS[W[i]] > 0 ? WBIOS[i] / CPBIOS[W[i]] : 0)
		line("peak dirty", PEAK[i] " MiB", "<= 24 MiB", PEAK[i] <= 24)
		line("umount", UM[i] " s", "< 1 s", UM[i] < 1)
		if (W[i] in CPCPU) {
			line("CPU", sprintf("%.3f s vs cp %.3f s", CPU[i], CPCPU[W[i]]), "<= cp", CPU[i] <= CPCPU[W[i]])
			if (KT[i] != "-" && CPKT[W[i]] != "") {
				a = ALL[i]; b = CPALL[W[i]]
				line("CPU with kernel threads and daemon", sprintf("%.3f s vs cp %.3f s (%s)", a, b, ratio(a, b)),
				    "<= 1.1x cp (issue 9), noisy", a <= 1.1 * b)
			}
		}
		line("max RSS", sprintf("%.1f MiB", RSS[i] / 1024), "< 32 MiB", RSS[i] / 1024 < 32)
	}
}' "$B_OUT/results.tsv"
}

# _bench_event WORKLOAD METHOD FIELD: a time from events.tsv (4: the command returned).
_bench_event() {
	awk -F'\t' -v w="$1" -v m="$2" -v f="$3" '$1 == w && $2 == m { print $f; exit }' "$B_OUT/events.tsv"
}

# bench_report_plot WORKLOAD: device dirty and on-device MiB over time, cp vs safecp.
bench_report_plot() {
	local w=$1 m plots=() color arrows=
	declare -A colors=([cp]='#d62728' [cp-a]='#d62728' [cp-sync]='#ff7f0e' [safecp]='#1f77b4' [dd]='#7f7f7f')
	for m in "${B_METHODS[@]}"; do
		[[ $m == cp || $m == cp-a || $m == safecp* ]] || continue
		[[ -s $B_OUT/samples/$w-$m.tsv ]] || continue
		color=${colors[$m]:-#2ca02c}
		plots+=("'$B_OUT/samples/$w-$m.tsv' using 1:(\$2/1024) with lines lw 2 lc rgb '$color' title '$m: device dirty+writeback'")
		plots+=("'$B_OUT/samples/$w-$m.tsv' using 1:(\$3/1024) with lines lw 2 dt 2 lc rgb '$color' title '$m: on device (sectors written)'")
		arrows+="set arrow from $(_bench_event "$w" "$m" 4), graph 0 to $(_bench_event "$w" "$m" 4), graph 1 nohead dt 3 lc rgb '$color';"
	done
	((${#plots[@]})) || return 0
	local IFS=,
	gnuplot <<-EOF
		set terminal pngcairo size 1200,700 font 'sans,11'
		set output '$B_OUT/$w.png'
		set title "$w on a ${B_RATE} B/s $B_FS stick: command + umount (sampled every 50 ms)"
		set xlabel 'seconds since the command started (dotted: the command returned)'
		set ylabel 'MiB'
		set key left top
		set grid
		$arrows
		plot ${plots[*]}
	EOF
}

bench_report() {
	local w
	{
		echo "### $B_FS, $(date -d "@${B_START%.*}" '+%Y-%m-%d %H:%M'), stick write rate $( ((B_RATE)) && echo "$B_RATE B/s" || echo "unthrottled (--rate 0)")${B_CARD_RATE:+, card read rate $B_CARD_RATE B/s}, size scale 1/$B_DIV"
		echo
		bench_report_table
		echo
		if grep -q '	safecp' "$B_OUT/results.tsv"; then
			echo "Targets (issue 3):"
			echo
			bench_report_targets
		fi
		bench_multi_report
		bench_offload_report
		bench_pack_report
		bench_unpack_report
		bench_trees_report
		bench_links_report
	} >"$B_OUT/table.md"
	cat "$B_OUT/table.md"
	for w in "${B_WORKLOADS[@]}"; do
		bench_wl_is_multi "$w" && continue
		bench_wl_is_offload "$w" && continue # no cp to plot against
		bench_wl_is_unpack "$w" && continue
		bench_wl_is_walk "$w" && continue # no copy, no samples
		bench_report_plot "$w" || bench_warn "gnuplot failed for $w"
	done
}
