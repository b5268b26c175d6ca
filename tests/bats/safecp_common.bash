# tests/bats/safecp_common.bash: what the safecp suites share (`load safecp_common`
# after `load helpers`): source trees of awkward sizes, tree digests, the checks that
# nothing partial or temporary is left, and samplers of a stick's counters.

MIB=1048576

# make_file PATH BYTES: random content, so a misplaced block cannot compare equal.
make_file() {
	head -c "$2" /dev/urandom >"$1"
}

# flip_byte FILE OFFSET: the byte at OFFSET becomes its complement, in place (a fixed
# byte written into random data leaves it as it was once in 256 runs).
flip_byte() {
	local b
	b=$(od -An -tu1 -j "$2" -N1 "$1" | tr -d ' ')
	[[ -n $b ]] || return 1
	# shellcheck disable=SC2059 # the octal escape is the format
	printf "\\$(printf '%03o' $((255 - b)))" | dd of="$1" bs=1 seek="$2" conv=notrunc status=none
}

# The sizes the issue names: empty, one byte, sector and page edges, 1 MiB and one
# past it, and a few unaligned ones.
AWKWARD_SIZES="0 1 511 512 513 4095 4096 4097 65537 1048576 1048577 3000001"

# make_tree DIR: files of AWKWARD_SIZES in nested directories, an empty directory,
# relative and absolute-free symlinks, and a name with blanks.
make_tree() {
	local d=$1 s
	mkdir -p "$d/a/b/c" "$d/empty" "$d/with space"
	for s in $AWKWARD_SIZES; do
		make_file "$d/f$s" "$s"
	done
	make_file "$d/a/x" 70000
	make_file "$d/a/b/y" 123457
	make_file "$d/a/b/c/z" $((2 * MIB + 3))
	make_file "$d/with space/odd name.bin" 999
	ln -s ../f1 "$d/a/link-to-f1"
	ln -s b/c "$d/a/link-to-dir"
	ln -s does-not-exist "$d/a/dangling"
}

# tree_digest DIR: one line per entry (type, path, link target) and the sha256 of
# every regular file: equal digests mean equal trees, links as links.
tree_digest() {
	(
		cd "$1" || exit 1
		find . -mindepth 1 -printf '%y %P %l\n' | LC_ALL=C sort
		find . -type f -print0 | LC_ALL=C sort -z | xargs -0 -r sha256sum
	)
}

# temporaries DIR: the engine's hidden temporary files left below DIR, one a line.
temporaries() {
	find "$1" -name '.safecp-*' 2>/dev/null
}

# drop_cached PATH...: the pages of the files at or below each PATH, once their
# filesystems are synced, so that the next read comes from the device; fails unless
# fincore then finds none. Scoped: drop_caches would empty what the suites in the
# other lane of tests/run rely on (a source left cached, a cached one dropped).
drop_cached() {
	local f left
	sync -f "$@"
	while IFS= read -r -d '' f; do
		dd if="$f" iflag=nocache count=0 status=none
	done < <(find "$@" -type f -print0)
	left=$(find "$@" -type f -exec fincore -b -n -o RES {} + | awk '{ s += $1 } END { print s + 0 }')
	((left == 0)) || { echo "drop_cached: $left bytes still cached below $*" >&2; return 1; }
}

# assert_no_temporaries DIR
assert_no_temporaries() {
	local left
	left=$(temporaries "$1")
	[[ -z $left ]] || { echo "temporary files left: $left" >&2; return 1; }
}

# assert_final_names_complete SRC DST: every regular file under a final name in DST
# has the content of its counterpart in SRC (a partial file would differ).
assert_final_names_complete() {
	local src=$1 dst=$2 f rel
	while IFS= read -r -d '' f; do
		rel=${f#"$dst"/}
		cmp -s "$src/$rel" "$f" || { echo "'$f' differs from '$src/$rel'" >&2; return 1; }
	done < <(find "$dst" -type f ! -name '.safecp-*' -print0)
}

# sample_sectors MAJ:MIN OUT: in the background, "REALTIME SECTORS_WRITTEN" lines every
# ~20 ms. The time is taken before the read, so a sample at time T shows at least what
# the device had completed at T. Sets SAMPLER_PID.
sample_sectors() {
	local stat="/sys/dev/block/$1/stat" out=$2
	(
		local t s
		while :; do
			t=$EPOCHREALTIME
			read -r -a s <"$stat" || exit 0
			printf '%s %s\n' "$t" "${s[6]}"
			sleep 0.02
		done
	) >"$out" &
	SAMPLER_PID=$!
}

# sample_pending MAJ:MIN OUT: in the background, debugfs BdiReclaimable+BdiWriteback
# (bytes) every ~50 ms. Sets SAMPLER_PID.
sample_pending() {
	local majmin=$1 out=$2
	(
		while :; do
			stick_pending_bytes "$majmin" || exit 0
			sleep 0.05
		done
	) >"$out" &
	SAMPLER_PID=$!
}

# stick_data_bdi: the bdi that accounts the stick's file data: the loop disk for
# block filesystems and fuseblk, btrfs-N for btrfs (doc/kernel.md 4.2).
stick_data_bdi() {
	local uuid
	if [[ $STICK_FS == btrfs ]]; then
		# probed, not from blkid's cache: loop devices are reused by sticks of
		# other filesystems, whose UUID the cache may still give
		uuid=$(blkid -p -s UUID -o value "$STICK_DEV") || return 1
		basename "$(readlink "/sys/fs/btrfs/$uuid/bdi")"
	else
		echo "$STICK_MAJMIN"
	fi
}

stop_sampler() {
	[[ -n ${SAMPLER_PID-} ]] || return 0
	kill "$SAMPLER_PID" 2>/dev/null || true
	wait "$SAMPLER_PID" 2>/dev/null || true
	SAMPLER_PID=
}

# The per-cpu error of one bdi counter is nr_cpu_ids * 8 * (1 + ilog2(nr_cpu_ids)) pages
# (doc/kernel.md 4.1); dirty + writeback sums two counters.
percpu_slack() {
	local n l=0
	n=$(($(sed 's/.*-//' /sys/devices/system/cpu/possible) + 1))
	while (((1 << (l + 1)) <= n)); do l=$((l + 1)); done
	echo $((2 * n * 8 * (1 + l) * $(getconf PAGESIZE)))
}

# json_confirmed_at_least FILE BYTES: FILE holds a progress event with at least BYTES on
# the device. A line still being written is skipped, not an error.
json_confirmed_at_least() {
	jq -R -n -e --argjson n "$2" '[inputs | fromjson?
		| select(.event == "progress" and .bytes_on_device >= $n)] | length > 0' \
		"$1" >/dev/null 2>&1
}

# json_has_confirmed FILE: some bytes are on the device (a signal sent then lands in the
# middle of the copy).
json_has_confirmed() {
	json_confirmed_at_least "$1" 1
}

# never_ahead JOINED BASE MIN: JOINED holds "E T BYTES" lines (an event at time T
# claims BYTES on the device) and "S T SECTORS" lines (sample_sectors); every event's
# bytes must be <= the device's completed bytes (SECTORS - BASE) * 512 at the first
# sample taken at or after T, and at least MIN events must have been checked.
never_ahead() {
	sort -k2,2g -k1,1 "$1" | awk -v base="$2" -v min="$3" '
		$1 == "E" { pending[++n] = $3; at[n] = $2; next }
		{ dev = ($3 - base) * 512
		  for (i = first + 1; i <= n; i++) {
			checked++
			if (pending[i] > dev) {
				printf "event at %s claims %d bytes, the device had %d\n", at[i], pending[i], dev
				bad = 1
			}
		  }
		  first = n }
		END { if (n - first > 0) { print n - first " events after the last sample"; bad = 1 }
		      if (checked < min) { print "only " checked " events checked"; bad = 1 }
		      exit bad }'
}

# events_never_ahead EVENTS SAMPLES BASE MIN: never_ahead over the progress and done
# events of EVENTS (--progress=json) and the sample_sectors lines of SAMPLES.
events_never_ahead() {
	local joined=$BATS_TEST_TMPDIR/joined.$RANDOM
	jq -r 'select(.event == "progress" or .event == "done") | "E \(.t) \(.bytes_on_device)"' \
		"$1" >"$joined"
	awk '{ print "S", $1, $2 }' "$2" >>"$joined"
	never_ahead "$joined" "$3" "$4"
}

# proc_state PID: the state letter of /proc/PID/stat, or nothing when it is gone.
proc_state() {
	local stat
	stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 0
	stat=${stat##*) }
	echo "${stat%% *}"
}

# wait_paused PID: until PID is stopped (a pause point's SIGSTOP), 30 s at most; fails
# if it is not stopped by then.
wait_paused() {
	local n
	for ((n = 0; n < 300; n++)); do
		[[ $(proc_state "$1") == T ]] && return 0
		sleep 0.1
	done
	[[ $(proc_state "$1") == T ]]
}

# paused_at_first_name FS: copies $SRC/t with safecp -r onto a fresh FS stick, paused
# (SAFECP_TEST_PAUSE) where the first file of the first batch, t/a, is about to be named;
# fails unless the device's cache then holds no more than the per-cpu slack: the
# batch is on the device before any of it has a name. $SRC/t must hold a file a.
paused_at_first_name() {
	require_hooks
	stick_up --fs "$1" --size 64 --rate 0
	SAFECP_TEST_PAUSE=publish:/t/a safecp -r "$SRC/t" "$STICK_MNT"/ \
		>"$BATS_TEST_TMPDIR/out" 2>&1 &
	local pid=$! pending slack rc=0
	wait_paused "$pid" || { kill "$pid"; wait "$pid"; cat "$BATS_TEST_TMPDIR/out"; return 1; }
	pending=$(bdi_pending_bytes "$STICK_MAJMIN")
	slack=$(percpu_slack)
	kill -CONT "$pid"
	wait "$pid" || rc=$?
	cat "$BATS_TEST_TMPDIR/out"
	echo "pending on the device at the first name: $pending (slack $slack)"
	((rc == 0)) && ((pending <= slack))
}

# symlinks_refused: on a stick that stores no symlinks, $SRC/t (a file f and a link l
# to it) warns in the dry run, fails the link with the advice to use -L (exit 1), and
# copies with -L into $STICK_MNT/u.
symlinks_refused() {
	mkdir "$SRC/t"
	make_file "$SRC/t/f" 1000
	ln -s f "$SRC/t/l"
	run -0 safecp -r --dry-run "$SRC/t" "$STICK_MNT"/
	[[ $output == *"symbolic links: this filesystem cannot store them; 1 would fail"* ]]
	run -1 --separate-stderr safecp -r "$SRC/t" "$STICK_MNT"/
	[[ $stderr == *"cannot create '$STICK_MNT/t/l'"*"use -L to copy what they point to"* ]]
	run -0 safecp -r -L "$SRC/t" "$STICK_MNT/u"
}

# require_hooks: skip unless the binaries have the pause points (a build configured
# with -Dtest_hooks=true, as tests/run configures its builds).
require_hooks() {
	grep -qs '^#define SAFECP_TEST_HOOKS 1' "$SAFECP_BUILD/config.h" ||
		skip "needs a build with the pause points: meson configure -Dtest_hooks=true (tests/run does)"
}

# fault COMMAND...: a command for the faulty stick's faultdev (tests/faultdev/faultdev.c).
fault() {
	echo "$*" >"$STICK_CTL"
}

# ctl_get KEY: a counter or state of the faulty stick's faultdev.
ctl_get() {
	awk -v k="$1" '$1 == k { print $2 }' "$STICK_CTL"
}

# fat_readback SRC DEST: the fat32 stick judged without fusefat. The stick is reattached
# (unmounted, its daemon gone, a new loop device) and fsck.vfat -n must find it clean;
# then mtools, which reads FAT from the specification, reads every regular file under SRC
# from the image at DEST (a path in the image: "/t", or "" for the root) and each must
# equal its source, and mdir must list no other file under DEST.
fat_readback() {
	local src=$1 dest=$2 f n=0 listed
	stick_reattach "$STICK_ID" || return 1
	((STICK_FSCK_RC == 0)) || { echo "fsck.vfat -n: $STICK_FSCK_OUT" >&2; return 1; }
	while IFS= read -r -d '' f; do
		LC_ALL=C.UTF-8 MTOOLS_SKIP_CHECK=1 mcopy -n -i "$STICK_IMG" "::$dest/${f#"$src"/}" - |
			cmp - "$f" || { echo "mtools: '::$dest/${f#"$src"/}' differs from '$f'" >&2; return 1; }
		n=$((n + 1))
	done < <(find "$src" -type f -print0)
	# (mdir says "not found" for an empty directory: then nothing is listed)
	listed=$(LC_ALL=C.UTF-8 MTOOLS_SKIP_CHECK=1 mdir -i "$STICK_IMG" -b -/ "::$dest/" 2>/dev/null |
		grep -vc '/$' || true)
	((listed == n)) || { echo "mdir lists $listed files under '::$dest', the source has $n" >&2; return 1; }
}

# A command as the unprivileged user nobody, without root's groups.
AS_NOBODY=(setpriv --reuid=nobody --regid=nogroup --clear-groups --)
