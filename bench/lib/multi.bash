# bench/lib/multi.bash: one copy to several sticks at once (safecp -t DIR -t DIR...).
#
#   two-sticks  the 1gib file (on /dev/shm) to sticks at --rate and --rate/2
#   card3       the card, read-throttled to 3 x --rate, to three sticks at --rate
#   card-split  the card, read-throttled to --card-rate, to sticks at --rate and --rate/2
#   two-sticks-verify  two-sticks with --verify (issue 10, lib/offload.bash): the sticks
#               also read-throttled, at --read-rate and half that; safecp only (cp does not
#               read back); raw = bytes / write rate + bytes / read rate of each stick
#
# safecp: `safecp --progress=json [-r] SRC -t MNT1 -t MNT2...` (one reader, each
# destination at its own pace); cp: `cp [-r] SRC MNT1/ && cp [-r] SRC MNT2/ && ...`, one
# after the other as a user would, then every umount at once; safecp-each (opt-in): safecp
# to one destination at a time, the same way: "one destination times N", against which
# the issue holds safecp's CPU per byte with N (its times are cp's kind, not targets).
# When a destination is finished, i.e. its stick can be pulled:
#   safecp  its "dest-done" event (JSON t), or later if its device still completed writes
#           after that event and before safecp returned (the sampler, 50 ms);
#   cp      its umount returned, or later if its device still wrote after that.
# Its raw time is bytes / its write throttle; card-split's fast stick is judged against
# the card's measured raw read. Per destination also: peak dirty+writeback of its device,
# its write requests (stat field 5), dirty at return. Per run: CPU of the command and its
# umounts (own, kernel threads), max RSS, what safecp says it read from the source (done event:
# source_bytes_read, source_bytes_reread) and what the card's device read (stat field 3).
#
# Until safecp takes several -t, bench_multi_probe finds out (a tiny copy to two
# directories on /dev/shm, with --system-disk: since the hostile-stick work safecp
# refuses a tmpfs target without it, and the probe then wrongly left safecp out) and the safecp runs of these workloads are reported as not
# measured, with the reason; cp still runs.

bench_wl_is_multi() {
	case $1 in two-sticks | card3 | card-split | two-sticks-verify) return 0 ;; esac
	return 1
}

# The destinations' write throttles, in B/s.
bench_multi_rates() {
	case $1 in
	two-sticks | card-split | two-sticks-verify) echo "$B_RATE $((B_RATE / 2))" ;;
	card3) echo "$B_RATE $B_RATE $B_RATE" ;;
	esac
}

bench_multi_header() {
	printf 'workload\tmethod\treason\n' >"$B_OUT/multi-skipped.tsv"
	printf 'workload\tmethod\tdest\trate\tbytes\trc\tcmd_s\tdest_done_s\tumount_end_s\tfinish_s\tlast_write_s\tpeak_mib\tdirty_ret_mib\twrite_ios\twrite_bios\tcpu_user_s\tcpu_sys_s\trss_kib\tkthread_cpu_s\tsrc_read\tsrc_reread\tcard_read\toutcome\tverify\tndest\tdevice_idle_s\tread_rate\tread_bytes\tverified\n'
}

# B_MULTI_NO: why safecp's multi-destination runs are left out ('' when they are not).
# safecp before the multi-destination engine either refuses several -t or silently
# keeps the last, so the probe checks what arrived, not just the exit status.
bench_multi_probe() {
	local w need='' d=$B_TMP/probe rc=0 n
	B_MULTI_NO=''
	for w in "${B_WORKLOADS[@]}"; do bench_wl_is_multi "$w" && need=1; done
	[[ -n $need ]] || return 0
	[[ -n ${B_SAFECP_BUILT-} ]] || { B_MULTI_NO='no working safecp'; return 0; }
	mkdir -p "$d/a" "$d/b" && bench_stream 7 65536 >"$d/f" || return 1
	# /dev/shm is no disk: safecp refuses it unless told (--system-disk)
	"$B_SAFECP" --progress=json --system-disk "$d/f" -t "$d/a" -t "$d/b" </dev/null >"$d/out" 2>"$d/err" || rc=$?
	n=$(jq -r 'select(.event == "done") | .destinations | length' "$d/out" 2>/dev/null)
	if ((rc != 0)); then
		B_MULTI_NO="safecp refused 'SOURCE -t A -t B' (exit $rc: $(head -n 1 "$d/err"))"
	elif ! cmp -s "$d/f" "$d/a/f" || ! cmp -s "$d/f" "$d/b/f"; then
		B_MULTI_NO="safecp took 'SOURCE -t A -t B' but did not copy to both (it has no multi-destination engine yet)"
	elif [[ $n != 2 ]]; then
		B_MULTI_NO="safecp copied to two destinations but its done event has no 'destinations' list of 2"
	fi
	rm -rf "$d"
	[[ -z $B_MULTI_NO ]] || bench_warn "several destinations: $B_MULTI_NO; safecp's runs of two-sticks, card3 and card-split are left out"
	return 0
}

# The copy command into the mount points MNT...: B_CMD.
_bench_multi_cmd() {
	local m=$1 src=$2 r=() d t=()
	shift 2
	[[ -d $src ]] && r=(-r)
	for d; do t+=(-t "$d"); done
	# shellcheck disable=SC2034 # run by _bench_exec
	case $m in
	cp) B_CMD=(sh -c 'r=$1 src=$2; shift 2; for d; do cp $r "$src" "$d/" || exit; done' sh "${r[0]-}" "$src" "$@") ;;
	safecp) B_CMD=("$B_SAFECP" --progress=json "${r[@]}" "${B_SAFECP_OPTS[@]}" "$src" "${t[@]}") ;;
	safecp-each)
		# shellcheck disable=SC2016 # expanded by that bash
		B_CMD=(bash -c 'exe=$1 r=$2 src=$3 n=$4; shift 4; opts=("${@:1:n}"); shift "$n"
			for d; do "$exe" --progress=none $r "${opts[@]}" "$src" "$d/" || exit; done' \
			bash "$B_SAFECP" "${r[0]-}" "$src" "${#B_SAFECP_OPTS[@]}" "${B_SAFECP_OPTS[@]}" "$@") ;;
	safecp+*)
		local opts
		mapfile -t opts < <(bench_offload_opts "$w" "$m" "")
		B_CMD=("$B_SAFECP" --progress=json "${r[@]}" "${opts[@]}" "${B_SAFECP_OPTS[@]}" "$src" "${t[@]}") ;;
	safecp-*) B_CMD=("$B_SAFECP" --progress=json "${r[@]}" --strategy="${m#safecp-}" "${B_SAFECP_OPTS[@]}" "$src" "${t[@]}") ;;
	*) return 1 ;;
	esac
}

# _bench_multi_json FILE MNT T0_US: "dest_done_s outcome" of that destination, from
# safecp's JSON ('-' where there is none).
_bench_multi_json() {
	jq -r --arg d "$2" --argjson t0 "$3" '
		def me: (.dest // "" | rtrimstr("/")) == ($d | rtrimstr("/"));
		[(select(.event == "dest-done" and me) | .t - $t0 / 1e6 | . * 1000 | round / 1000 | tostring),
		 (select(.event == "done") | .destinations[]? | select(me) | .outcome + (if .error then ":" + .error else "" end))]
		| .[]' "$1" 2>/dev/null |
		awk 'NR == 1 && $0 ~ /^[0-9.-]+$/ { t = sprintf("%.3f", $0); next } { o = $0 } END { print (t == "" ? "-" : t), (o == "" ? "-" : o) }'
}

_bench_multi_source() {
	jq -r 'select(.event == "done") | "\(.source_bytes_read // "-") \(.source_bytes_reread // "-")"' "$1" 2>/dev/null |
		tail -n 1 | grep . || echo '- -'
}

# bench_run_multi WORKLOAD METHOD: one run, one row per destination in multi.tsv.
bench_run_multi() {
	local w=$1 m=$2 rates=() ids=() mnts=() majs=() stats=() bases=() ios0=() bios0=() ups=()
	local i n src t0 tc tr rc user sys rss card0=0 card1=0 srcr srcrr daemons='' kt rrates=() rd0=() rd1=() rr um
	if [[ $m == safecp* && -n ${B_MULTI_NO-} ]]; then
		printf '%s\t%s\t%s\n' "$w" "$m" "$B_MULTI_NO" >>"$B_OUT/multi-skipped.tsv"
		return 0
	fi
	read -r -a rates <<<"$(bench_multi_rates "$w")"
	n=${#rates[@]}
	for ((i = 0; i < n; i++)); do
		rr=$(bench_wl_read_rate "$w" "${rates[i]}")
		stick_up --fs "$B_FS" --size "$B_STICK_MIB" --rate "${rates[i]}" --iops "$(bench_wl_iops "$w")" \
			--read-rate "$rr" || { _bench_multi_down "${ids[@]}"; return 1; }
		ids+=("$STICK_ID") mnts+=("$STICK_MNT") majs+=("$STICK_MAJMIN") rrates+=("$rr")
		stats+=("$(bench_bdi_stats | tr '\n' ' ')")
		bench_is_fuse "$B_FS" && daemons+=" $(_bench_fuse_pid "$STICK_MNT")"
	done
	src=$(bench_wl_src "$w")
	_bench_multi_cmd "$m" "$src" "${mnts[@]}" || { _bench_multi_down "${ids[@]}"; return 1; }
	if bench_wl_is_card "$w"; then
		bench_card_rate "$(bench_wl_card_rate "$w")"
		bench_card_cold
		card0=$(bench_read_bytes "$B_CARD_MAJMIN")
	fi
	# shellcheck disable=SC2086 # pids
	bench_kthread_snap $daemons >"$B_TMP/kt0"
	t0=$(bench_now)
	for ((i = 0; i < n; i++)); do
		bases[i]=$(bench_sectors "${majs[i]}") ios0[i]=$(bench_write_ios "${majs[i]}")
		bios0[i]=$(bench_write_bios "${majs[i]}") rd0[i]=$(bench_read_bytes "${majs[i]}")
		# shellcheck disable=SC2086 # the stats files, blank-separated
		bench_sampler_start "$B_OUT/samples/$w-$m.d$((i + 1)).tsv" "$t0" "${majs[i]}" "${bases[i]}" ${stats[i]}
	done
	tc=$(bench_now)
	_bench_exec "$B_TMP/time.out"
	rc=$?
	tr=$(bench_now)
	for ((i = 0; i < n; i++)); do
		# shellcheck disable=SC2086
		bench_pending_kib ${stats[i]} >"$B_TMP/dret.$i"
		rd1[i]=$(bench_read_bytes "${majs[i]}")
	done
	# the read-backs are over: the umounts and the content checks go at full speed
	bench_wl_is_offload "$w" && bench_stick_read_lift "${ids[@]}"
	# shellcheck disable=SC2086
	bench_kthread_snap $daemons >"$B_TMP/kt1"
	# every stick's umount at once: each one's end is its own
	for ((i = 0; i < n; i++)); do
		(bench_umount "${mnts[i]}" "$B_TMP/umount.cpu.$i" || bench_warn "umount '${mnts[i]}' failed") &
		ups+=($!)
	done
	wait "${ups[@]}"
	# shellcheck disable=SC2048,SC2086
	_bench_wait_clean ${stats[*]} >/dev/null
	bench_sampler_stop
	# shellcheck disable=SC2086
	bench_kthread_snap $daemons >"$B_TMP/kt2"
	kt=$(bench_kthread_cpu "$B_TMP"/kt[012])
	bench_kthread_top "$B_TMP"/kt[012] >"$B_OUT/samples/$w-$m.kthreads.tsv"
	bench_wl_is_card "$w" && card1=$(bench_read_bytes "$B_CARD_MAJMIN")
	read -r user sys rss < <(tail -n 1 "$B_TMP/time.out")
	# the command's CPU and its umounts' (bench_umount)
	um="0 0"
	for ((i = 0; i < n; i++)); do
		um=$(bench_cpu_add "$um" "$(bench_umount_cpu "$B_TMP/umount.cpu.$i")")
	done
	bench_umount_log "$w" "$m" - "${user:-0} ${sys:-0}" "$um"
	read -r user sys < <(bench_cpu_add "${user:-0} ${sys:-0}" "$um")
	read -r srcr srcrr < <(_bench_multi_source "$B_TMP/cmd.out")
	[[ $m == safecp* ]] && cp "$B_TMP/cmd.out" "$B_OUT/samples/$w-$m.json"
	((rc == 0)) || bench_warn "$w/$m exited $rc: $(head -c 300 "$B_TMP/cmd.err")"
	for ((i = 0; i < n; i++)); do
		_bench_multi_row "$i"
	done
	_bench_multi_down "${ids[@]}"
}

# One destination's row; reads the locals of bench_run_multi.
_bench_multi_row() {
	local i=$1 samples="$B_OUT/samples/$w-$m.d$(($1 + 1)).tsv" tu done_s outcome lastw lastret peak fin idle verify=-
	local ios bios verified=-
	# before the check remounts it
	ios=$(($(bench_write_ios "${majs[i]}") - ios0[i])) bios=$(($(bench_write_bios "${majs[i]}") - bios0[i]))
	# the last word after the sampler stopped
	# shellcheck disable=SC2086
	printf '%s\t%d\t%d\n' "$(bench_us_s $(($(bench_now) - t0)))" "$(bench_pending_kib ${stats[i]})" \
		$((($(bench_sectors "${majs[i]}") - bases[i]) / 2)) >>"$samples"
	tu=$(bench_umount_end "$B_TMP/umount.cpu.$i")
	read -r done_s outcome < <(_bench_multi_json "$B_TMP/cmd.out" "${mnts[i]}" "$tc")
	[[ $m == cp ]] && outcome=-
	# files verified/mismatched, and whether the read-back bypassed the cache
	[[ $m == safecp* ]] && verified=$(jq -r --arg d "${mnts[i]}" 'select(.event == "done") | .destinations[]? |
		select((.dest // "" | rtrimstr("/")) == ($d | rtrimstr("/"))) |
		"\(.files_verified // "-")/\(.files_mismatched // "-")/\(.verify_cache_bypassed // "-")"' "$B_TMP/cmd.out" 2>/dev/null | tail -n 1)
	# the first sample showing the final count: overall, and before the command returned
	# (what umount writes later is not the copy's)
	read -r lastw lastret peak < <(awk -v c=$(((tc - t0) / 1000)) -v r=$(((tr - t0) / 1000)) '
		$3 > w { w = $3; t = $1 } $1 * 1000 <= r && $3 > wr { wr = $3; tr = $1 } $2 > p { p = $2 }
		END { printf "%.3f %.3f %.1f\n", (w > 0 ? t - c / 1000 : 0), (wr > 0 ? tr - c / 1000 : 0), p / 1024 }' "$samples")
	# the device's last write of the copy: all of it for cp (umount writes the data),
	# before the command returned for safecp
	idle=$lastret
	[[ $m == cp || $m == safecp-each ]] && idle=$lastw
	if [[ $m == cp || $done_s == - ]]; then
		fin=$(awk -v u="$(bench_us_s $((tu - tc)))" -v l="$lastw" 'BEGIN { printf "%.3f", (l > u + 0.1 ? l : u) }')
	else
		fin=$(awk -v d="$done_s" -v l="$lastret" 'BEGIN { printf "%.3f", (l > d + 0.1 ? l : d) }')
	fi
	# a destination that failed leaves the others to be checked
	if ((rc == 0)) || [[ $outcome == ok ]]; then
		stick_load "${ids[i]}" && verify=$(_bench_verify "$w")
	fi
	[[ $verify == DIFF ]] && bench_warn "$w/$m: the copy on destination $((i + 1)) differs from the source: $(head -n 3 "$B_TMP/verify.out")"
	printf '%s\t%s\t%d\t%d\t%d\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%d\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%d\t%s\t%s\t%d\t%s\t%d\t%d\t%s\n' \
		"$w" "$m" $((i + 1)) "${rates[i]}" "$(bench_wl_bytes "$w")" "$rc" "$(bench_us_s $((tr - tc)))" \
		"$done_s" "$(bench_us_s $((tu - tc)))" "$fin" "$lastw" "$peak" \
		"$(awk -v k="$(<"$B_TMP/dret.$i")" 'BEGIN { printf "%.1f", k / 1024 }')" \
		"$ios" "$bios" "${user:-0}" "${sys:-0}" "${rss:-0}" "$kt" \
		"$srcr" "$srcrr" $((card1 - card0)) "$outcome" "$verify" "$n" "$idle" "${rrates[i]}" $((rd1[i] - rd0[i])) \
		"${verified:--}" >>"$B_OUT/multi.tsv"
}

_bench_multi_down() {
	local id rc=0
	for id; do stick_down "$id" || rc=1; done
	return $rc
}

# The multi-destination tables and their targets (issue 9), after the main table.
bench_multi_report() {
	(($(cat "$B_OUT/multi.tsv" "$B_OUT/multi-skipped.tsv" | wc -l) > 2)) || return 0
	echo
	echo "Several destinations (one command; cp: one cp after the other, then every umount at once):"
	echo
	awk -v card_read="${B_CARD_READ_S:-0}" -v rate="$B_RATE" -v card3_rate=$((3 * B_RATE)) '
	BEGIN { FS = "\t" }
	FNR == 1 { next }
	FILENAME ~ /skipped/ { SKIP[++ns] = $1 "\t" $2 "\t" $3; next }
	{
		n++; W[n] = $1; M[n] = $2; D[n] = $3; R[n] = $4; B[n] = $5; RC[n] = $6; CMD[n] = $7
		DD[n] = $8; UE[n] = $9; FIN[n] = $10; PEAK[n] = $12; DRET[n] = $13; IOS[n] = $14; BIOS[n] = $15
		CPU[n] = $16 + $17; RSS[n] = $18; KT[n] = $19; SR[n] = $20; SRR[n] = $21; CARD[n] = $22
		OUT[n] = $23; VER[n] = $24; ND[n] = $25; IDLE[n] = $26; RR[n] = $27 + 0; RDB[n] = $28; VFD[n] = $29
		if ($2 == "cp") CPF[$1, $3] = $10
	}
	# the raw time of destination i: bytes / its rate; card-split fast stick: the card read
	# (measured); card3: the slower of the sticks and the card at its card3 rate
	function raw(i) {
		if (W[i] == "card-split" && D[i] == 1 && card_read > 0) return card_read
		if (RR[i] > 0) return B[i] / R[i] + B[i] / RR[i]  # with --verify: write, then read back
		if (W[i] == "card3" && B[i] / card3_rate > B[i] / R[i]) return B[i] / card3_rate
		return B[i] / R[i]
	}
	function target(i) { return W[i] == "card-split" ? 1.10 : 1.05 }
	function ratio(a, b) { return b > 0 ? sprintf("%.3f", a / b) : "-" }
	function mib(x) { return x == "-" || x == "" ? "-" : sprintf("%.1f", x / 1048576) }
	END {
		print "| workload | method | dest | MiB/s | returns s | dest-done s | device idle s | umount end s | finish s | raw s | × raw | × cp | peak dirty MiB | dirty at return MiB | write requests | write bios | outcome | check |"
		print "|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|---|---|"
		for (i = 1; i <= n; i++)
			printf "| %s | %s | %d | %s | %s | %s | %s | %s | %s | %.2f | %s | %s | %s | %s | %d | %d | %s | %s |\n",
			    W[i], M[i], D[i], sprintf("%.1f", R[i] / 1048576) (RR[i] > 0 ? sprintf(", reads %.1f", RR[i] / 1048576) : ""),
			    CMD[i], DD[i], IDLE[i], UE[i], FIN[i], raw(i),
			    ratio(FIN[i], raw(i)), ratio(FIN[i], CPF[W[i], D[i]]), PEAK[i], DRET[i], IOS[i], BIOS[i],
			    OUT[i], (RC[i] != 0 ? "exit " RC[i] : VER[i])
		print ""
		print "| workload | method | destinations | CPU user+sys s | kernel+daemon CPU s | max RSS MiB | source bytes read MiB (× bytes) | re-read MiB | card device read MiB (× bytes) |"
		print "|---|---|--:|--:|--:|--:|--:|--:|--:|"
		for (i = 1; i <= n; i++) {
			if (D[i] != 1) continue
			printf "| %s | %s | %d | %.3f | %s | %.1f | %s | %s | %s |\n", W[i], M[i], ND[i], CPU[i], KT[i],
			    RSS[i] / 1024, (SR[i] == "-" ? "-" : mib(SR[i]) " (" ratio(SR[i], B[i]) ")"), mib(SRR[i]),
			    (CARD[i] > 0 ? mib(CARD[i]) " (" ratio(CARD[i], B[i]) ")" : "-")
			if (M[i] == "cp") { CPCPU[W[i]] = CPU[i]; CPKT[W[i]] = KT[i] }
			if (M[i] == "safecp-each") { EACHCPU[W[i]] = CPU[i]; EACHKT[W[i]] = KT[i] }
		}
		print ""
		print "Targets (issue 9; two-sticks-verify: issue 10):"
		print ""
		for (k = 1; k <= ns; k++) { split(SKIP[k], s, "\t"); printf "- %s %s: not measured: %s\n", s[1], s[2], s[3] }
		for (i = 1; i <= n; i++) {
			if (M[i] !~ /^safecp/ || M[i] == "safecp-each") continue
			pre = sprintf("- %s %s dest %d (%.1f MiB/s)", W[i], M[i], D[i], R[i] / 1048576)
			if (RC[i] != 0 || VER[i] != "ok") { printf "%s: exit %s, copy %s, outcome %s: **MISS**\n", pre, RC[i], VER[i], OUT[i]; continue }
			if (W[i] != "card3") {
				r = FIN[i] / raw(i)
				printf "%s: finish %s s / raw %.2f s = %.3f (target <= %.2f): %s\n", pre, FIN[i], raw(i), r, target(i), (r <= target(i) ? "ok" : "**MISS**")
			} else if (FIN[i] > LAST[W[i]]) LAST[W[i]] = FIN[i]
			printf "%s: peak dirty %s MiB (target <= 24 MiB): %s\n", pre, PEAK[i], (PEAK[i] <= 24 ? "ok" : "**MISS**")
			if (RR[i] > 0)
				printf "%s: read back at %.1f MiB/s: files verified/mismatched/cache bypassed %s; the stick read %.1f MiB (%.3f × the bytes): %s\n", pre,
				    RR[i] / 1048576, VFD[i], RDB[i] / 1048576, RDB[i] / B[i], (RDB[i] >= B[i] ? "the read-back reached the device" : "**the read-back did not all reach the device**")
			if (D[i] != ND[i]) continue
			# once per run, on its last destination
			pre = sprintf("- %s %s", W[i], M[i])
			if (W[i] == "card3") {
				r = LAST[W[i]] / raw(i)
				printf "%s: total (last finish) %s s / raw %.2f s = %.3f (target <= 1.05): %s\n", pre, LAST[W[i]], raw(i), r, (r <= 1.05 ? "ok" : "**MISS**")
			}
			if (SR[i] == "-") printf "%s: source bytes read: not in the done event\n", pre
			else if (W[i] == "card3") printf "%s: source bytes read %s = %.4f × bytes (target 1.00): %s\n", pre, SR[i], SR[i] / B[i], (SR[i] / B[i] < 1.005 ? "ok" : "**MISS**")
			else printf "%s: source bytes read %s = %.4f × bytes, re-read %s (reported)\n", pre, SR[i], SR[i] / B[i], SRR[i]
			# safecp counts what it read, the device what came from the card: a re-read the
			# page cache served is in the first and not in the second
			if (CARD[i] > 0) printf "%s: card device read %d bytes = %.4f × bytes, safecp read %s (re-read %s): %s\n", pre,
			    CARD[i], CARD[i] / B[i], SR[i], SRR[i], (SRR[i] + 0 == 0 ? "no re-read" : \
			    CARD[i] + 1048576 < SR[i] + 0 ? "the re-read came from the page cache" : "the re-read came from the card")
			lim = 64 + 16 * ND[i]
			printf "%s: max RSS %.1f MiB (target <= %d MiB): %s\n", pre, RSS[i] / 1024, lim, (RSS[i] / 1024 <= lim ? "ok" : "**MISS**")
			if (W[i] in CPCPU) {
				printf "%s: CPU %.3f s vs cp %.3f s (target <= cp): %s\n", pre, CPU[i], CPCPU[W[i]], (CPU[i] <= CPCPU[W[i]] ? "ok" : "**MISS**")
				a = CPU[i] + KT[i]; b = CPCPU[W[i]] + CPKT[W[i]]
				printf "%s: CPU with kernel threads and daemon %.3f s vs cp %.3f s (%.3f) (target <= 1.1x cp (issue 9), noisy): %s\n", pre,
				    a, b, (b > 0 ? a / b : 0), (a <= 1.1 * b ? "ok" : "**MISS**")
			}
			# the same bytes to the same sticks, one safecp per destination
			if (M[i] == "safecp" && W[i] in EACHCPU) {
				printf "%s: CPU %.3f s vs one destination times %d (safecp-each) %.3f s (%s) (target <= 1x, noisy): %s\n", pre,
				    CPU[i], ND[i], EACHCPU[W[i]], ratio(CPU[i], EACHCPU[W[i]]), (CPU[i] <= EACHCPU[W[i]] ? "ok" : "**MISS**")
				a = CPU[i] + KT[i]; b = EACHCPU[W[i]] + EACHKT[W[i]]
				printf "%s: CPU with kernel threads and daemon %.3f s vs safecp-each %.3f s (%s) (target <= 1x, noisy): %s\n", pre,
				    a, b, ratio(a, b), (a <= b ? "ok" : "**MISS**")
			}
		}
	}' "$B_OUT/multi.tsv" "$B_OUT/multi-skipped.tsv"
}
