# bench/lib/measure.bash: one measured run of one (workload, method) on a fresh stick.
#
# A run: make a fresh stick; start the sampler; run the copy under /usr/bin/time in its own
# session (so an interruption can end it and its children by process group); read the
# device's dirty bytes the moment it returns; umount; wait until the device is clean; stop
# the sampler; remount and compare the copy with its source; tear the stick down.
#
# "Device dirty" = BdiReclaimable + BdiWriteback (debugfs, doc/kernel.md 4.1) summed over every
# bdi that can hold the stick's pages: the disk's (ext4, xfs, and the FUSE daemons exfat-fuse,
# fusefat and ntfs-3g, which dirty the disk's page cache, doc/kernel.md 4.2) plus btrfs's own anonymous bdi `btrfs-N`
# (found through /sys/fs/btrfs/FSID/bdi). "On device" = the disk's completed write sectors
# (stat field 7) since the run began. The sampler reads both every 50 ms with builtins only
# (read -t on a FIFO nobody writes is the sleep), so it costs no forks.

B_CLEAN_KIB=512 # per-cpu counter error on 2 CPUs is 128 KiB per counter (doc/kernel.md 4.1)
B_SAMPLERS=()

bench_now() { echo "${EPOCHREALTIME/./}"; }

# bench_us_s MICROSECONDS: seconds with 3 decimals.
bench_us_s() {
	local us=$1 sign=''
	((us < 0)) && sign=- us=$((-us))
	printf '%s%d.%03d' "$sign" $((us / 1000000)) $((us % 1000000 / 1000))
}

# The debugfs stats files of every bdi that accounts this stick's dirty pages.
bench_bdi_stats() {
	local uuid link
	echo "/sys/kernel/debug/bdi/$STICK_MAJMIN/stats"
	if [[ $STICK_FS == btrfs ]]; then
		uuid=$(blkid -o value -s UUID "$STICK_DEV") &&
			link=$(readlink -f "/sys/fs/btrfs/$uuid/bdi") &&
			echo "/sys/kernel/debug/bdi/${link##*/}/stats"
	fi
	return 0
}

# bench_pending_kib STATSFILE...: the sum of BdiReclaimable + BdiWriteback in KiB.
bench_pending_kib() {
	local f k v _ kib=0
	for f; do
		[[ -e $f ]] || continue # btrfs's bdi goes away with its umount
		while read -r k v _; do
			case $k in BdiReclaimable: | BdiWriteback:) kib=$((kib + v)) ;; esac
		done <"$f"
	done
	echo "$kib"
}

bench_sectors() {
	local s
	read -r -a s <"/sys/dev/block/$1/stat"
	echo "${s[6]}"
}

# Completed write requests of MAJ:MIN (stat field 5, "write I/Os").
bench_write_ios() {
	local s
	read -r -a s <"/sys/dev/block/$1/stat"
	echo "${s[4]}"
}

# Write bios of MAJ:MIN that passed the blkio throttle (blkio.throttle.io_serviced):
# what write_iops_device limits. blk-throttle counts bios before the scheduler merges them,
# so this is larger than the device's requests (stat field 5) wherever small bios merge
# (ext4's journal and metadata blocks are one bio each).
bench_write_bios() {
	local dev op n
	while read -r dev op n; do
		[[ $dev == "$1" && $op == Write ]] && { echo "$n"; return 0; }
	done </sys/fs/cgroup/blkio/blkio.throttle.io_serviced
	echo 0
}

# Bytes read from MAJ:MIN (stat field 3, sectors read, x 512).
bench_read_bytes() {
	local s
	read -r -a s <"/sys/dev/block/$1/stat"
	echo $((s[2] * 512))
}

# Busy jiffies of the whole machine: user nice system irq softirq steal.
bench_host_jiffies() {
	local _c u n s _i _w irq sirq st _
	read -r _c u n s _i _w irq sirq st _ </proc/stat
	echo $((u + n + s + irq + sirq + st))
}

# CPU of kernel threads. cp only dirties pages; their writeback runs in flusher kworkers and
# is not in cp's rusage, while safecp's sync_file_range and O_DIRECT submit I/O in its own
# context. Counting kernel threads evens this out. A thread's CPU leaves with it, and
# jbd2 or btrfs-transaction exit at umount, so we snapshot "pid:starttime nanoseconds name" of
# every kernel thread (kthreadd's children) before the command, before umount and at the
# end, and count per thread the last value seen minus the first (0 for threads born during
# the run). A kernel thread's time is its schedstat runtime, to the nanosecond: its
# utime+stime are 10 ms ticks, charged to whichever kworker a tick happens to hit. Other
# people's writeback is counted too: a noisy upper bound. The FUSE daemon, whose work cp
# and safecp also leave out of their rusage, is counted with them (PID... given), in ticks:
# its stat adds up the threads that have exited, which per-thread schedstat would lose.
bench_kthread_snap() {
	local p st f extra=" $* " ns comm _
	for p in /proc/[0-9]*/stat; do
		read -r st 2>/dev/null <"$p" || continue
		st=${st##*) }
		read -r -a f <<<"$st"
		[[ ${f[1]} == 2 || $extra == *" ${p//[^0-9]/} "* ]] || continue
		ns=$(((f[11] + f[12]) * 10000000))
		[[ ${f[1]} == 2 ]] && { read -r ns _ 2>/dev/null <"${p%stat}schedstat" || continue; }
		read -r comm 2>/dev/null <"${p%stat}comm" || comm='?'
		# a daemon names itself: one word, never empty, for the awk below
		comm=${comm//[[:space:]]/_} comm=${comm:-?}
		p=${p#/proc/}
		printf '%s:%s %s %s\n' "${p%/stat}" "${f[19]}" "$ns" "$comm"
	done
}

# _bench_kthread_deltas SNAP0 SNAP...: "nanoseconds name" of every thread that ran between
# the first snapshot and the later ones (its last value seen minus its first, or minus 0 for
# a thread born since).
_bench_kthread_deltas() {
	awk 'FNR == 1 { file++ }
		file == 1 { first[$1] = $2; next }
		{ last[$1] = $2; name[$1] = $3 }
		END { for (k in last) { d = last[k] - (k in first ? first[k] : 0)
			if (d > 0) printf "%.0f %s\n", d, name[k] } }' "$@"
}

# bench_kthread_cpu SNAP0 SNAP...: seconds of kernel-thread CPU between the first snapshot
# and the later ones.
bench_kthread_cpu() {
	_bench_kthread_deltas "$@" | awk '{ s += $1 } END { printf "%.3f", s / 1e9 }'
}

# bench_kthread_top SNAP0 SNAP...: "seconds  name" of every thread that ran 1 ms or more
# between the snapshots, most first: what the kernel-thread CPU of a run was. A kworker's
# name is the work it was doing at the last snapshot, not all it did.
bench_kthread_top() {
	_bench_kthread_deltas "$@" | awk '$1 >= 1e6 { printf "%.3f\t%s\n", $1 / 1e9, $2 }' | sort -k1,1nr
}

# _bench_sampler OUT T0_US MAJMIN BASE_SECTORS STATSFILE...: lines "t_s pending_kib ondev_kib".
_bench_sampler() {
	local out=$1 t0=$2 majmin=$3 base=$4 fd now kib sec
	shift 4
	exec {fd}<>"$B_TMP/tick"
	while :; do
		now=${EPOCHREALTIME/./}
		kib=0
		for f; do
			[[ -e $f ]] || continue
			while read -r k v _; do
				case $k in BdiReclaimable: | BdiWriteback:) kib=$((kib + v)) ;; esac
			done <"$f"
		done
		read -r -a sec <"/sys/dev/block/$majmin/stat"
		now=$((now - t0))
		printf '%d.%03d\t%d\t%d\n' $((now / 1000000)) $((now % 1000000 / 1000)) "$kib" $(((sec[6] - base) / 2))
		read -r -t 0.05 -u "$fd" _
	done >"$out"
}

# One sampler per device; a multi-destination run starts several.
bench_sampler_start() {
	[[ -p $B_TMP/tick ]] || mkfifo "$B_TMP/tick"
	_bench_sampler "$@" &
	B_SAMPLERS+=($!)
}

bench_sampler_stop() {
	local p
	for p in "${B_SAMPLERS[@]}"; do
		kill "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	B_SAMPLERS=()
}

# The copy command of METHOD for WORKLOAD into DEST, as words in B_CMD.
bench_method_cmd() {
	local w=$1 m=$2 dest=$3 src r=()
	src=$(bench_wl_src "$w")
	[[ -d $src ]] && r=(-r)
	bench_wl_is_pack "$w" && { bench_pack_cmd "$m" "$dest"; return; }
	case $m in
	cp) B_CMD=(cp "${r[@]}" "$src" "$dest/") ;;
	cp-a) B_CMD=(cp -a "$src" "$dest/") ;; # issue 29: hard links kept (links-500)
	cp-sync)
		# sync(2) scoped to this stick: syncfs of its fs, then fsync of its block device
		# (sync(2) would also wait for other engineers' throttled sticks).
		B_CMD=(sh -c 'cp "$@" && sync -f "$DEST" && sync "$DEV"' sh "${r[@]}" "$src" "$dest/") ;;
	safecp) B_CMD=("$B_SAFECP" --progress=none "${r[@]}" "${B_SAFECP_OPTS[@]}" "$src" "$dest/") ;;
	# issue 29: the fullest metadata set safecp keeps (-a but hard links)
	safecp-preserve) B_CMD=("$B_SAFECP" --progress=none "${r[@]}" -p --preserve=xattr \
		"${B_SAFECP_OPTS[@]}" "$src" "$dest/") ;;
	# issue 29: -a, which is -dR --preserve=all: that set and the hard links
	safecp-a) B_CMD=("$B_SAFECP" --progress=none -a "${B_SAFECP_OPTS[@]}" "$src" "$dest/") ;;
	safecp-*) B_CMD=("$B_SAFECP" --progress=none "${r[@]}" --strategy="${m#safecp-}" \
		"${B_SAFECP_OPTS[@]}" "$src" "$dest/") ;;
	safecp+unpack) # lib/unpack.bash: the tree's tar, extracted
		B_CMD=("$B_SAFECP" --progress=none --unpack "${B_SAFECP_OPTS[@]}" "$B_SRC/unpack.tar" "$dest/") ;;
	safecp+*)
		# issue 10's methods (lib/offload.bash); --skip-identical's rerun says in JSON what it skipped
		local opts progress=none
		mapfile -t opts < <(bench_offload_opts "$w" "$m" "$dest")
		[[ $m == safecp+skip ]] && progress=json
		B_CMD=("$B_SAFECP" --progress="$progress" "${r[@]}" "${opts[@]}" "${B_SAFECP_OPTS[@]}" "$src" "$dest/") ;;
	dd) B_CMD=(dd if="$src" of="$STICK_DISK" bs=4M iflag=fullblock oflag=direct conv=fsync status=none) ;;
	dd-read) B_CMD=(dd if="$STICK_DISK" of=/dev/null bs=4M count=$(($(bench_wl_bytes "$w") / (4 * MIB))) iflag=direct status=none) ;;
	*) return 1 ;;
	esac
}

# Runs B_CMD in its own session under /usr/bin/time; B_CHILD is the session leader. TF gets
# one line "user_s sys_s maxrss_kib". The CPU comes from bash's `times` (the children's
# getrusage, printed to the millisecond) in a shell between time and the command, since
# time's %U and %S print 10 ms steps, a tenth of a small tree's whole CPU; time keeps %M,
# the largest child's RSS, which is the command's.
_bench_exec() {
	local tf=$1 rc user sys rss
	# shellcheck disable=SC2016 # expanded by the inner shell
	DEST=$STICK_MNT DEV=$STICK_DEV setsid /usr/bin/time -f '%M' -o "$tf.rss" \
		bash -c 'f=$1; shift; "$@"; rc=$?; times >"$f"; exit $rc' _ "$tf.times" "${B_CMD[@]}" \
		</dev/null >"$B_TMP/cmd.out" 2>"$B_TMP/cmd.err" &
	B_CHILD=$!
	wait "$B_CHILD"
	rc=$?
	B_CHILD=''
	# the second line of `times` is the children's: "0m0.052s 0m0.013s"
	read -r user sys < <(sed -n '2{s/\([0-9]*\)m\([0-9.]*\)s/\1 \2/g;p}' "$tf.times" 2>/dev/null |
		awk '{ printf "%.3f %.3f\n", $1 * 60 + $2, $3 * 60 + $4 }')
	rss=$(tail -n 1 "$tf.rss" 2>/dev/null)
	echo "${user:-0} ${sys:-0} ${rss:-0}" >"$tf"
	rm -f "$tf.times" "$tf.rss"
	return $rc
}

# bench_umount MNT OUT: umount MNT; OUT gets "END user sys": bench_now's clock the moment
# umount returned (read in the shell that ran it, so no parsing here counts as umount time)
# and the umount's CPU in seconds, to the millisecond as _bench_exec. Every method is "the
# command, then umount": cp leaves the page cache of what it wrote to the umount (it evicts
# every page of the filesystem), while safecp drops its pages as it goes, in its own CPU; so
# the umount's CPU is the method's.
bench_umount() {
	local mnt=$1 out=$2 rc end cpu
	# shellcheck disable=SC2016 # expanded by the inner shell
	bash -c 'umount "$1"; rc=$?; end=${EPOCHREALTIME/./}; times >"$2"; echo "$end" >>"$2"; exit $rc' \
		_ "$mnt" "$out.times"
	rc=$?
	end=$(tail -n 1 "$out.times" 2>/dev/null)
	cpu=$(sed -n '2{s/\([0-9]*\)m\([0-9.]*\)s/\1 \2/g;p}' "$out.times" 2>/dev/null |
		awk '{ printf "%.3f %.3f", $1 * 60 + $2, $3 * 60 + $4 }')
	echo "${end:-$(bench_now)} ${cpu:-0 0}" >"$out"
	rm -f "$out.times"
	return $rc
}

# bench_umount_end OUT, bench_umount_cpu OUT: the two parts of what bench_umount wrote.
bench_umount_end() { cut -d' ' -f1 "$1"; }
bench_umount_cpu() { cut -d' ' -f2,3 "$1"; }

# bench_umount_log WORKLOAD METHOD REP "USER SYS" "USER SYS": a row of umount_cpu.tsv (the
# command's CPU, then the umount's).
bench_umount_log() {
	printf '%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "${4// /$'\t'}" "${5// /$'\t'}" >>"$B_OUT/umount_cpu.tsv"
}

# bench_cpu_add A B: "user sys" of A plus B's, each "user sys".
bench_cpu_add() {
	awk -v a="$1" -v b="$2" 'BEGIN { split(a, x, " "); split(b, y, " ")
		printf "%.3f %.3f\n", x[1] + y[1], x[2] + y[2] }'
}

bench_child_kill() {
	[[ -n ${B_CHILD-} ]] || return 0
	kill -TERM -- "-$B_CHILD" 2>/dev/null
	wait "$B_CHILD" 2>/dev/null
	B_CHILD=''
}

# Polls until the stick's bdis are clean (after umount: a FUSE daemon may still be
# writing). Echoes the time it became clean.
_bench_wait_clean() {
	local deadline=$(($(bench_now) + 600000000)) fd
	exec {fd}<>"$B_TMP/tick"
	while (($(bench_pending_kib "$@") > B_CLEAN_KIB)) && (($(bench_now) < deadline)); do
		read -r -t 0.05 -u "$fd" _
	done
	exec {fd}<&-
	bench_now
}

# bench_is_fuse FS: the stick's filesystem is served by a FUSE daemon (fuseblk).
bench_is_fuse() {
	[[ $1 == exfat || $1 == fat32 || $1 == ntfs ]]
}

# The FUSE daemon (exfat-fuse, fusefat, ntfs-3g) serving DIR on a $STICK_FS stick: its
# argv ends with the mount point.
_bench_fuse_pid() {
	local p args comm
	case $STICK_FS in
	fat32) comm=fusefat ;;
	ntfs) comm=ntfs-3g ;;
	*) comm=mount.exfat-fu ;;
	esac
	for p in /proc/[0-9]*; do
		[[ $(<"$p/comm") == "$comm"* ]] 2>/dev/null || continue
		mapfile -d '' -t args 2>/dev/null <"$p/cmdline" || continue
		((${#args[@]})) && [[ ${args[-1]} == "$1" ]] && { echo "${p#/proc/}"; return 0; }
	done
	echo 0
}

# bench_fuse_mount OPTS: mount the FUSE stick again as stick_up did (OPTS: rw or ro).
bench_fuse_mount() {
	case $STICK_FS in
	exfat) mount.exfat-fuse -o "$1" "$STICK_DEV" "$STICK_MNT" >/dev/null 2>&1 ;;
	# fusefat takes neither rw nor nothing: ro, or rw+ ("I accept the risk")
	fat32) fusefat -o "$([[ $1 == rw ]] && echo rw+ || echo ro),blkdev,fsname=$STICK_DEV" "$STICK_DEV" \
		"$STICK_MNT" >/dev/null 2>&1 </dev/null ;;
	ntfs) ntfs-3g -o "$1" "$STICK_DEV" "$STICK_MNT" >/dev/null 2>&1 </dev/null ;;
	esac
}

# _bench_verify WORKLOAD [METHOD REP]: remounts the stick and compares the copy with its
# source: "ok" or "DIFF" (issue 10's workloads also check what they wrote beside it).
_bench_verify() {
	local w=$1 m=${2-} rep=${3-1} src dst pid=0 res=ok
	src=$(bench_wl_src "$w")
	dst=$STICK_MNT/${src##*/}
	if bench_is_fuse "$STICK_FS"; then
		bench_fuse_mount ro || { echo MOUNT; return; }
		pid=$(_bench_fuse_pid "$STICK_MNT")
	else
		mount -t "$STICK_FS" -o ro "$STICK_DEV" "$STICK_MNT" || { echo MOUNT; return; }
	fi
	if bench_wl_is_pack "$w"; then
		res=$(bench_pack_verify)
	elif [[ -d $src ]]; then
		diff -rq --no-dereference "$src" "$dst" >"$B_TMP/verify.out" 2>&1 || res=DIFF
	else
		cmp "$src" "$dst" >"$B_TMP/verify.out" 2>&1 || res=DIFF
	fi
	bench_wl_is_offload "$w" && bench_offload_check "$w" "$m" "$rep"
	bench_wl_is_links "$w" && bench_links_check "$w" "$m" "$rep" "$src" "$dst"
	umount "$STICK_MNT" || res=UMOUNT
	while ((pid > 0)) && [[ -d /proc/$pid ]]; do sleep 0.1; done
	echo "$res"
}

# The columns of one run (runs.tsv: the last column is the repetition; results.tsv, made
# by bench_collapse: the number of runs and the range of total_s instead).
bench_results_header() {
	printf 'workload\tmethod\tbytes\tfiles\trc\tcmd_s\tdirty_ret_mib\tumount_s\ttotal_s\tclean_s\tpeak_mib\tcpu_user_s\tcpu_sys_s\trss_kib\thost_cpu_s\tverify\tkthread_cpu_s\tlast_write_s\twrite_ios\twrite_bios\tread_bytes'
	if [[ ${1-} == runs ]]; then printf '\trep\n'; else printf '\truns\ttotal_min_s\ttotal_max_s\tcpu_all_s\n'; fi
}

# bench_run_one WORKLOAD METHOD [REP]: measures and appends one row to runs.tsv; samples
# in samples/ (WORKLOAD-METHOD.tsv for the first repetition, .rN.tsv for the others).
bench_run_one() {
	local w=$1 m=$2 rep=${3:-1} fs=$B_FS stats t0 tc tr tu tcl base rc hj0 hj1 dret peak verify=- umount_us=0 daemon=''
	local user sys rss um lastw ios0 bios0 ios1 bios1 rd0 rd1 samples="$B_OUT/samples/$w-$m.tsv"
	((rep > 1)) && samples="$B_OUT/samples/$w-$m.r$rep.tsv"
	# --pack's target is exfat-fuse's (lib/pack.bash)
	bench_wl_is_pack "$w" && fs=exfat
	[[ $m == dd* ]] && fs=none
	stick_up --fs "$fs" --size "$(bench_wl_stick_mib "$w")" --rate "$B_RATE" --iops "$(bench_wl_iops "$w")" \
		--read-rate "$(bench_wl_read_rate "$w" "$B_RATE")" || return 1
	bench_offload_prepare "$w" "$m" "$rep" || { stick_down "$STICK_ID"; return 1; }
	bench_wl_is_links "$w" && bench_links_before
	mapfile -t stats < <(bench_bdi_stats)
	bench_method_cmd "$w" "$m" "$STICK_MNT" || return 1
	bench_wl_is_card "$w" && { bench_card_rate "$(bench_wl_card_rate "$w")"; bench_card_cold; }
	base=$(bench_sectors "$STICK_MAJMIN")
	ios0=$(bench_write_ios "$STICK_MAJMIN") bios0=$(bench_write_bios "$STICK_MAJMIN")
	rd0=$(bench_read_bytes "$STICK_MAJMIN")
	hj0=$(bench_host_jiffies)
	bench_is_fuse "$fs" && daemon=$(_bench_fuse_pid "$STICK_MNT")
	bench_kthread_snap "$daemon" >"$B_TMP/kt0"
	t0=$(bench_now)
	bench_sampler_start "$samples" "$t0" "$STICK_MAJMIN" "$base" "${stats[@]}"
	bench_wl_first_write "$w" && bench_first_write_start "$B_TMP/first" "$STICK_MAJMIN" "$base"
	tc=$(bench_now)
	_bench_exec "$B_TMP/time.out"
	rc=$?
	tr=$(bench_now)
	dret=$(bench_pending_kib "${stats[@]}")
	bench_kthread_snap "$daemon" >"$B_TMP/kt1"
	if [[ -n $STICK_MNT ]]; then
		bench_umount "$STICK_MNT" "$B_TMP/umount.cpu" || bench_warn "umount '$STICK_MNT' failed"
		tu=$(bench_umount_end "$B_TMP/umount.cpu")
		umount_us=$((tu - tr))
	fi
	tcl=$(_bench_wait_clean "${stats[@]}")
	bench_sampler_stop
	bench_wl_first_write "$w" && bench_first_write_log "$w" "$m" "$rep" "$tc" "$B_TMP/first"
	# The last word: the sampler may have slept through the final completions.
	printf '%s\t%d\t%d\n' "$(bench_us_s $(($(bench_now) - t0)))" "$(bench_pending_kib "${stats[@]}")" \
		$((($(bench_sectors "$STICK_MAJMIN") - base) / 2)) >>"$samples"
	hj1=$(bench_host_jiffies)
	bench_kthread_snap "$daemon" >"$B_TMP/kt2"
	ios1=$(bench_write_ios "$STICK_MAJMIN") bios1=$(bench_write_bios "$STICK_MAJMIN")
	rd1=$(bench_read_bytes "$STICK_MAJMIN")
	if bench_wl_is_offload "$w"; then
		# the content check and the teardown read and go at full speed, without the rule
		bench_stick_read_lift "$STICK_ID"
		bench_offload_after "$w" "$m" "$rep" "$samples"
	fi
	peak=$(awk -v r="$dret" 'BEGIN { p = r } $2 > p { p = $2 } END { print p }' "$samples")
	# when the device completed its last write, since the command started: the first
	# sample that shows the final count (50 ms resolution)
	lastw=$(awk -v c=$(((tc - t0) / 1000)) '$3 > w { w = $3; t = $1 }
		END { printf "%.3f", (w > 0 ? t - c / 1000 : 0) }' "$samples")
	read -r user sys rss < <(tail -n 1 "$B_TMP/time.out")
	if [[ -n $STICK_MNT ]]; then
		um=$(bench_umount_cpu "$B_TMP/umount.cpu")
		bench_umount_log "$w" "$m" "$rep" "${user:-0} ${sys:-0}" "$um"
		read -r user sys < <(bench_cpu_add "${user:-0} ${sys:-0}" "$um")
	fi
	bench_kthread_top "$B_TMP"/kt[012] >"${samples%.tsv}.kthreads.tsv"
	[[ -n $STICK_MNT && $rc == 0 ]] && verify=$(_bench_verify "$w" "$m" "$rep")
	[[ $m == dd* ]] && verify=raw
	((rc == 0)) || bench_warn "$w/$m exited $rc: $(head -c 300 "$B_TMP/cmd.err")"
	[[ $verify == DIFF ]] && bench_warn "$w/$m: the copy differs from the source: $(head -n 3 "$B_TMP/verify.out")"
	printf '%s\t%s\t%d\t%d\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%d\t%d\t%d\t%d\n' "$w" "$m" \
		"$(bench_wl_bytes "$w")" "$(bench_wl_files "$w")" "$rc" "$(bench_us_s $((tr - tc)))" \
		"$(awk -v k="$dret" 'BEGIN { printf "%.1f", k / 1024 }')" "$(bench_us_s "$umount_us")" \
		"$(bench_us_s $((tr - tc + umount_us)))" "$(bench_us_s $((tcl - tc)))" \
		"$(awk -v k="$peak" 'BEGIN { printf "%.1f", k / 1024 }')" "${user:-0}" "${sys:-0}" "${rss:-0}" \
		"$(awk -v j=$((hj1 - hj0)) 'BEGIN { printf "%.2f", j / 100 }')" "$verify" \
		"$(bench_kthread_cpu "$B_TMP"/kt[012])" "$lastw" $((ios1 - ios0)) $((bios1 - bios0)) $((rd1 - rd0)) "$rep" >>"$B_OUT/runs.tsv"
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$w" "$m" "$(bench_us_s $((tc - t0)))" "$(bench_us_s $((tr - t0)))" \
		"$(bench_us_s $((tr - t0 + umount_us)))" "$(bench_us_s $((tcl - t0)))" "$rep" >>"$B_OUT/events.tsv"
	stick_down "$STICK_ID"
}
