#!/usr/bin/env bats
# tests/bats/safecp_hostile.bats: safecp run as root on a tree and a stick that someone
# else controls (issue 7). Each race is held open with a pause point (lib/test_hook.h:
# the build of tests/run has them): safecp runs as root in the background and stops
# itself at the point, the attacker's steps run as nobody (setpriv), then SIGCONT.
#
# Every test also checks the invariant: nothing on the stick outside DEST changed,
# nothing in a root-owned victim tree off the stick changed (it holds a 0600 file with a
# random marker), and the marker is nowhere on the stick, not even in freed blocks of
# its backing image.
#
# Items (issue 7): 1 writes outside DEST, 2 chmod/utimes through a swapped directory,
# 3 setuid bits, 4 source leak (symlink, FIFO, /dev/zero; a directory swapped or mounted
# on between the walk's stat and its entering), 6 failure isolation, 7 a
# DEST longer than PATH_MAX, 9 -n race, 10 counters, 12 modes after an interrupt and
# predictable temporary names; the last test is the whole attacker scenario of item 1.

# The attacker's scripts are single-quoted on purpose: they expand in nobody's shell;
# bats' `run --separate-stderr` sets $stderr.
# shellcheck disable=SC2016,SC2154

load helpers
load safecp_common

# The limit for a paused safecp to stop, and for a continued one to finish.
HOSTILE_WAIT=30

setup() {
	require_tool safecp
	require_root
	require_cmd jq
	require_cmd setpriv
	CP_PID='' IMMUTABLE='' WALK_MOUNT=''
	EV=$BATS_TEST_TMPDIR/events ERR=$BATS_TEST_TMPDIR/err
	# off the stick and outside bats' private (0700) temporary directory, so that
	# nobody can reach the source and root's symlink targets resolve
	SRC=$(mktemp -d /tmp/safecp-hostile-src.XXXXXX)
	chmod 0755 "$SRC"
	chown nobody:nogroup "$SRC"
	VICTIM=$(mktemp -d /tmp/safecp-victim.XXXXXX)
	chmod 0755 "$VICTIM"
	MARKER=root-only-$(head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n')
	SECRET=$VICTIM/secret
	(umask 077 && for _ in 1 2 3 4; do echo "$MARKER"; done >"$SECRET")
	mkdir "$VICTIM/dir"
	echo "victim's own file" >"$VICTIM/dir/a.jpg"
	touch -d '2001-02-03 04:05:06' "$SECRET" "$VICTIM/dir/a.jpg"
}

teardown() {
	hostile_kill
	[[ -z ${WALK_MOUNT-} ]] || umount "$WALK_MOUNT" || true
	[[ -z $IMMUTABLE ]] || chattr -i "$IMMUTABLE" || true
	[[ $SRC == /tmp/safecp-hostile-src.* ]] && rm -rf "$SRC"
	[[ $VICTIM == /tmp/safecp-victim.* ]] && rm -rf "$VICTIM"
	stick_down_all
}

# ---------------------------------------------------------------------------- helpers

# as_nobody CMD...: the attacker.
as_nobody() {
	"${AS_NOBODY[@]}" "$@"
}

# nobody_sh SCRIPT: the attacker's steps as one shell script ($DEST, $SRC, $SECRET,
# $VICTIM exported).
nobody_sh() {
	DEST=$DEST SRC=$SRC SECRET=$SECRET VICTIM=$VICTIM "${AS_NOBODY[@]}" sh -ec "$1"
}

# stick [STICK_UP ARGS]: a small, unthrottled stick with DEST=$STICK_MNT/dest, owned and
# writable by nobody (so nobody can attack what is in it; FUSE mounts are root's only).
stick() {
	stick_up --size 64 --rate 0 "$@"
	DEST=$STICK_MNT/dest
	mkdir "$DEST"
	[[ $STICK_FS == exfat || $STICK_FS == fat32 || $STICK_FS == ntfs ]] || chown nobody:nogroup "$DEST"
}

# hostile_start POINT[:SUBSTRING] CMD...: CMD (safecp ...) in the background with the
# pause point set, stdout in $EV, stderr in $ERR; returns once it has stopped itself.
# Sets CP_PID.
hostile_start() {
	local point=$1 n state
	shift
	require_hooks
	SAFECP_TEST_PAUSE=$point "$@" >"$EV" 2>"$ERR" 3>&- &
	CP_PID=$!
	for ((n = 0; n < HOSTILE_WAIT * 10; n++)); do
		state=$(proc_state "$CP_PID")
		[[ $state == T ]] && return 0
		if [[ -z $state || $state == Z ]]; then
			echo "safecp ended before it reached the pause point '$point':" >&2
			cat "$ERR" >&2
			return 1
		fi
		sleep 0.1
	done
	echo "safecp did not reach the pause point '$point' within $HOSTILE_WAIT s" >&2
	return 1
}

# hostile_finish: SIGCONT, then wait (bounded) for the end; sets CP_RC. A safecp that is
# still running after $HOSTILE_WAIT s is killed and the call fails.
hostile_finish() {
	local n state
	kill -CONT "$CP_PID"
	for ((n = 0; n < HOSTILE_WAIT * 10; n++)); do
		state=$(proc_state "$CP_PID")
		[[ -z $state || $state == Z ]] && break
		# it may stop again only if the hook were broken; keep it going
		[[ $state == T ]] && kill -CONT "$CP_PID"
		sleep 0.1
	done
	if [[ -n $state && $state != Z ]]; then
		echo "safecp did not finish within $HOSTILE_WAIT s after SIGCONT (state $state); killed" >&2
		hostile_kill
		CP_RC=hung
		return 1
	fi
	CP_RC=0
	wait "$CP_PID" || CP_RC=$?
	CP_PID=''
	echo "safecp exit status: $CP_RC" >&2
	echo "stderr:" >&2
	cat "$ERR" >&2
	return 0
}

hostile_kill() {
	[[ -n ${CP_PID-} ]] || return 0
	kill -KILL "$CP_PID" 2>/dev/null || true
	kill -CONT "$CP_PID" 2>/dev/null || true
	wait "$CP_PID" 2>/dev/null || true
	CP_PID=''
}

# snapshot: everything on the stick outside DEST, and the victim tree: type, path, mode,
# owner, size, mtime, link target, and the sha256 of each file.
snapshot() {
	{
		find "$STICK_MNT" -path "$DEST" -prune -o -printf '%y %p %m %u %s %T@ %l\n'
		find "$STICK_MNT" -path "$DEST" -prune -o -type f -exec sha256sum {} +
		find "$VICTIM" -printf '%y %p %m %u %s %T@ %l\n'
		find "$VICTIM" -type f -exec sha256sum {} +
	} | LC_ALL=C sort
}

# invariant_begin / invariant_check: nothing outside DEST changed in between, and no
# byte of the root-only secret reached the stick (files, or the image's freed blocks).
invariant_begin() {
	snapshot >"$BATS_TEST_TMPDIR/before"
}

invariant_check() {
	snapshot >"$BATS_TEST_TMPDIR/after"
	diff -u "$BATS_TEST_TMPDIR/before" "$BATS_TEST_TMPDIR/after" >&2 ||
		{ echo "something outside DEST changed (above)" >&2; return 1; }
	if grep -r -a -l -F "$MARKER" "$STICK_MNT" >&2; then
		echo "the root-only secret was copied to the stick (files above)" >&2
		return 1
	fi
	sync -f "$STICK_MNT"
	if grep -q -a -F "$MARKER" "$STICK_BACKING_DIR/safecp-$STICK_ID.img"; then
		echo "the root-only secret was written to the stick (in its image)" >&2
		return 1
	fi
}

# json_select FILTER: the events of $EV (one compact object a line) that FILTER selects.
json_select() {
	jq -R -c "fromjson? | select($1)" "$EV"
}

# json_done FIELD: that field of the done event.
json_done() {
	jq -R -n -r "[inputs | fromjson? | select(.event == \"done\")] | last | .$1" "$EV"
}

# json_names NAME: a jq condition: one of the event's path fields ends in /NAME.
json_names() {
	echo "([.file, .path, .source, .dest] | map(select(type == \"string\")) |
		any(test(\"(^|/)$1\$\")))"
}

# json_reports_file NAME: an "error" or "changed" event names a file ending in /NAME.
json_reports_file() {
	local hits
	hits=$(json_select "(.event == \"error\" or .event == \"changed\") and $(json_names "$1")")
	[[ -n $hits ]] || { echo "no error or changed event for '$1'; events:" >&2; cat "$EV" >&2; return 1; }
}

# counters_sane: no progress or done event shows more bytes on the device than in total.
counters_sane() {
	local bad
	bad=$(json_select '(.event == "progress" or .event == "done") and .bytes_on_device > .bytes_total')
	[[ -z $bad ]] || { echo "bytes_on_device above bytes_total: $bad" >&2; return 1; }
}

# src_file REL BYTES: a random file in the source tree, owned by nobody.
src_file() {
	mkdir -p "$(dirname "$SRC/$1")"
	make_file "$SRC/$1" "$2"
	chown -R nobody:nogroup "$SRC"
}

# mode_of PATH: octal permission bits, as stat prints them (755, 6755).
mode_of() {
	stat -c %a "$1"
}

# ---------------------------------------------------------------------------- 1

# A victim directory on the stick, beside DEST, with a root-owned file.
plant_stick_victim() {
	mkdir "$STICK_MNT/victim"
	echo "root's a.jpg on the stick" >"$STICK_MNT/victim/a.jpg"
	touch -d '2001-02-03 04:05:06' "$STICK_MNT/victim/a.jpg"
}

# swap_photos_test PREPARE ATTACK: photos/a.jpg, photos/b.jpg and top.txt copied as
# root, the attack at plan-done.
swap_photos_test() {
	stick
	plant_stick_victim
	src_file photos/a.jpg 5000
	src_file photos/b.jpg 6000
	src_file top.txt 700
	[[ -z $1 ]] || nobody_sh "$1"
	invariant_begin
	hostile_start plan-done safecp -r --progress=json "$SRC/photos" "$SRC/top.txt" "$DEST"/
	nobody_sh "$2"
	hostile_finish
	invariant_check
	[[ ! -e $STICK_MNT/victim/b.jpg ]]
	[[ $CP_RC == 1 ]]
	grep -q -F "$DEST/photos" "$ERR" || { echo "no error names '$DEST/photos'" >&2; false; }
	cmp "$SRC/top.txt" "$DEST/top.txt"
	assert_no_temporaries "$DEST"
}

@test "1: DEST/photos planted as a symlink to ../victim after the plan: nothing written there, exit 1" {
	swap_photos_test '' 'ln -s ../victim "$DEST/photos"'
}

@test "1: DEST/photos, a real directory at plan time, swapped for a symlink: nothing written there, exit 1" {
	swap_photos_test 'mkdir "$DEST/photos"' 'mv "$DEST/photos" "$DEST/photos.old" && ln -s ../victim "$DEST/photos"'
}

# ---------------------------------------------------------------------------- 2

@test "2: a new directory renamed aside before its mode and times, a symlink in its place: the target is untouched" {
	stick
	src_file newdir/inside 1000
	chmod 0777 "$SRC/newdir"
	touch -d '2010-01-01 00:00:00' "$SRC/newdir"
	invariant_begin
	hostile_start dir-attrs:/newdir safecp -r --preserve=mode --progress=json "$SRC/newdir" "$DEST"/
	nobody_sh 'mv "$DEST/newdir" "$DEST/newdir.moved" && ln -s "$SECRET" "$DEST/newdir"'
	hostile_finish
	invariant_check
	[[ $(mode_of "$SECRET") == 600 ]]
	[[ $CP_RC == 0 || $CP_RC == 1 ]]
	# the mode went to the directory that was made, through its fd
	[[ $(mode_of "$DEST/newdir.moved") == 777 ]]
}

# ---------------------------------------------------------------------------- 3

@test "3: setuid and setgid bits are dropped without ownership, a directory's sticky bit kept as cp keeps it; --no-preserve=mode gives new-file modes" {
	stick
	src_file t/suid 3000
	src_file t/sticky/f 10
	# after the chown of src_file, which clears setuid and setgid
	chmod 6755 "$SRC/t/suid"
	chmod 1777 "$SRC/t/sticky"
	chmod 0640 "$SRC/t/sticky/f"
	[[ $(stat -c '%a %U' "$SRC/t/suid") == "6755 nobody" ]]
	invariant_begin
	run -0 safecp -r --preserve=mode --progress=none "$SRC/t" "$DEST"/
	invariant_check
	[[ $(mode_of "$DEST/t/suid") == 755 ]]
	[[ $(mode_of "$DEST/t/sticky") == 1777 ]]
	[[ $(mode_of "$DEST/t/sticky/f") == 640 ]]
	mkdir "$DEST/np"
	run -0 bash -c 'umask 027 && exec safecp -r --progress=none --no-preserve=mode "$1" "$2"/' \
		_ "$SRC/t" "$DEST/np"
	[[ $(mode_of "$DEST/np/t/suid") == 640 ]]
	[[ $(mode_of "$DEST/np/t/sticky") == 1750 ]]
	[[ $(mode_of "$DEST/np/t/sticky/f") == 640 ]]
	[[ $(mode_of "$DEST/np/t") == 750 ]]
}

# ---------------------------------------------------------------------------- 4

# leak_setup: f1 (3 MiB) and f2 in a source directory nobody owns.
leak_setup() {
	stick
	src_file s/f1 $((3 * MIB))
	src_file s/f2 4000
}

@test "4: a source swapped for a symlink to a root-only file: not read, f1 reported, f2 copied, exit 1" {
	leak_setup
	invariant_begin
	hostile_start source-open:/s/f1 safecp -r --progress=json "$SRC/s" "$DEST"/
	nobody_sh 'rm "$SRC/s/f1" && ln -s "$SECRET" "$SRC/s/f1"'
	hostile_finish
	invariant_check
	[[ $CP_RC == 1 ]]
	json_reports_file f1
	cmp "$SRC/s/f2" "$DEST/s/f2"
	assert_no_temporaries "$DEST"
}

@test "4: a source swapped for a FIFO: no hang, exit 1 within $HOSTILE_WAIT s" {
	leak_setup
	invariant_begin
	hostile_start source-open:/s/f1 safecp -r --progress=json "$SRC/s" "$DEST"/
	nobody_sh 'rm "$SRC/s/f1" && mkfifo "$SRC/s/f1"'
	hostile_finish
	invariant_check
	[[ $CP_RC == 1 ]]
	json_reports_file f1
	cmp "$SRC/s/f2" "$DEST/s/f2"
	assert_no_temporaries "$DEST"
}

@test "4: with -L a source swapped for a symlink to /dev/zero: not read past the plan, exit 1" {
	leak_setup
	local planned written
	invariant_begin
	written=$(stick_written_bytes "$STICK_MAJMIN")
	hostile_start source-open:/s/f1 safecp -L -r --progress=json "$SRC/s" "$DEST"/
	nobody_sh 'rm "$SRC/s/f1" && ln -s /dev/zero "$SRC/s/f1"'
	hostile_finish
	invariant_check
	written=$(($(stick_written_bytes "$STICK_MAJMIN") - written))
	[[ $CP_RC == 1 ]]
	json_reports_file f1
	planned=$(json_select '.event == "start"' | jq -r .bytes_total)
	[[ -n $planned ]]
	# the plan's bytes, with room for the journal and metadata
	((written <= planned + 8 * MIB)) ||
		{ echo "the device wrote $written bytes for a plan of $planned" >&2; false; }
	[[ -z $(json_select ".event == \"progress\" and .bytes_written > $planned") ]] ||
		{ echo "more than the planned $planned bytes written" >&2; false; }
	[[ -z $(find "$DEST" -type f -size +$((3 * MIB))c) ]]
	cmp "$SRC/s/f2" "$DEST/s/f2"
	assert_no_temporaries "$DEST"
}

# walk_swap_setup: t/a of 40 files (the walk stats their names ahead, in two halves),
# then t/b: its stat is taken with t/a's, long before the walk enters it.
walk_swap_setup() {
	local i
	stick
	for ((i = 0; i < 40; i++)); do src_file "t/a/f$i" 100; done
	src_file t/b/ok 100
}

# walk_swap_refused: the copy stopped at t/b before the first byte, nothing outside DEST
# touched, nothing in it.
walk_swap_refused() {
	invariant_check
	[[ $CP_RC == 2 ]]
	grep -qF "'$SRC/t/b' changed while the copy was planned" "$ERR"
	[[ -z $(ls -A "$DEST") ]]
}

@test "4: a directory swapped between the walk's stat and its entering: refused before the first byte, exit 2" {
	walk_swap_setup
	invariant_begin
	hostile_start walk-enter:/t/b safecp -r --progress=json "$SRC/t" "$DEST"/
	nobody_sh 'mv "$SRC/t/b" "$SRC/t/b.old" && mkdir "$SRC/t/b" && echo planted >"$SRC/t/b/new"'
	hostile_finish
	walk_swap_refused
}

@test "4: -x: a filesystem mounted on a directory after the walk's stat: refused, not walked, exit 2" {
	walk_swap_setup
	invariant_begin
	hostile_start walk-enter:/t/b safecp -x -r --progress=json "$SRC/t" "$DEST"/
	mount -t tmpfs -o size=1m safecp-walk-test "$SRC/t/b"
	WALK_MOUNT=$SRC/t/b
	echo planted >"$SRC/t/b/new"
	hostile_finish
	umount "$WALK_MOUNT"
	WALK_MOUNT=''
	walk_swap_refused
}

# ---------------------------------------------------------------------------- 6

@test "6: a file that cannot be created in a merged directory: reported, every other file copied, exit 1" {
	stick
	src_file tree/a/a1 100000
	src_file tree/b/b1 100000
	src_file tree/c/c1 100000
	src_file tree/c/c2 100000
	src_file tree/z1 100000
	# merged: DEST/tree is nobody's, DEST/tree/b root's (nobody cannot create in it)
	mkdir -p "$DEST/tree/b"
	chown nobody:nogroup "$DEST/tree"
	invariant_begin
	run -1 --separate-stderr "${AS_NOBODY[@]}" "$SAFECP_BUILD/cmd/safecp" -r --progress=json "$SRC/tree" "$DEST"/
	invariant_check
	printf '%s\n' "$output" >"$EV"
	printf 'stderr: %s\n' "$stderr" >&2
	[[ $stderr == *"'$DEST/tree/b/b1'"* ]]
	[[ "$output $stderr" != *"Input/output error"* ]]
	json_reports_file b1
	local f
	for f in a/a1 c/c1 c/c2 z1; do cmp "$SRC/tree/$f" "$DEST/tree/$f"; done
	[[ ! -e $DEST/tree/b/b1 ]]
	assert_no_temporaries "$DEST"
}

@test "6: a directory that cannot be made: that subtree reported, siblings and later directories copied, exit 1" {
	require_cmd chattr
	stick
	src_file tree/a/a1 1000
	src_file tree/sub/inner/x 1000
	src_file tree/sub/inner/y 1000
	src_file tree/sub/s1 1000
	src_file tree/z/z1 1000
	src_file tree/zz/deep/z2 1000
	mkdir -p "$DEST/tree/sub"
	IMMUTABLE=$DEST/tree/sub
	chattr +i "$IMMUTABLE"
	invariant_begin
	run -1 --separate-stderr safecp -r --progress=json "$SRC/tree" "$DEST"/
	invariant_check
	printf '%s\n' "$output" >"$EV"
	printf 'stderr: %s\n' "$stderr" >&2
	[[ $stderr == *"'$DEST/tree/sub/inner'"* ]]
	local f
	for f in a/a1 z/z1 zz/deep/z2; do cmp "$SRC/tree/$f" "$DEST/tree/$f"; done
	# x, y and s1 failed (the directory itself may count as one more)
	[[ $(json_done errors) == 3 || $(json_done errors) == 4 ]]
	[[ $(json_done files) == 3 ]]
	assert_no_temporaries "$DEST"
}

# ---------------------------------------------------------------------------- 7

@test "7: a DEST of PATH_MAX bytes or more is refused before the first byte, exit 2" {
	stick
	src_file new 1234
	echo "the file at the shorter path" >"$DEST/victim"
	local pre rem dots long
	# a path whose first PATH_MAX - 1 bytes name $DEST/victim
	pre="$DEST/"
	rem=$((4095 - ${#pre} - 6))
	((rem % 2 == 0)) || { pre+=/; rem=$((rem - 1)); }
	dots=$(printf './%.0s' $(seq $((rem / 2))))
	long="$pre$dots"victim-and-more
	((${#long} >= 4096))
	[[ ${long:0:4095} == "$pre${dots}victim" ]]
	invariant_begin
	run -2 safecp --progress=json "$SRC/new" "$long"
	invariant_check
	[[ $(<"$DEST/victim") == "the file at the shorter path" ]]
	[[ $(ls -A "$DEST") == victim ]]
	# the form the issue gives
	run -2 safecp --progress=json "$SRC/new" "$DEST/$(printf './%.0s' {1..2100})x"
	invariant_check
	[[ $(ls -A "$DEST") == victim ]]
}

# ---------------------------------------------------------------------------- 9

@test "9: -n: a file that appears at the destination during the copy is never overwritten" {
	stick
	src_file nclob.txt 5000
	local point
	for point in publish:/dest/nclob.txt plan-done; do
		rm -f "$DEST/nclob.txt"
		invariant_begin
		hostile_start "$point" safecp -n --progress=json "$SRC/nclob.txt" "$DEST"/
		nobody_sh 'echo "nobody was here first" >"$DEST/nclob.txt"'
		hostile_finish
		invariant_check
		[[ $CP_RC == 0 || $CP_RC == 1 ]]
		echo "nobody was here first" | cmp -s - "$DEST/nclob.txt" ||
			{ echo "$point: DEST/nclob.txt was overwritten" >&2; false; }
		assert_no_temporaries "$DEST"
	done
}

# ---------------------------------------------------------------------------- 10

# symlinks_fail_counted FS: test 10 on FS.
symlinks_fail_counted() {
	stick --fs "$1"
	src_file tree/f1 10
	src_file tree/f2 20
	ln -s "$(printf 'long-target-%.0s' {1..20})" "$SRC/tree/l1"
	ln -s f1 "$SRC/tree/l2"
	invariant_begin
	run -1 --separate-stderr safecp -r --progress=json "$SRC/tree" "$DEST"/
	printf '%s\n' "$output" >"$EV"
	printf 'stderr: %s\n' "$stderr" >&2
	invariant_check
	[[ $(json_done bytes_total) == 30 ]]
	counters_sane
	[[ "$output $stderr" != *EiB* ]]
	mkdir "$DEST/plain"
	run -1 safecp -r --progress=plain "$SRC/tree" "$DEST/plain"/
	[[ $output != *EiB* ]]
	cmp "$SRC/tree/f1" "$DEST/tree/f1"
	cmp "$SRC/tree/f2" "$DEST/tree/f2"
}

@test "10: on exfat, failed symlinks leave bytes_total at the regular files' sum, exit 1" {
	symlinks_fail_counted exfat
}

@test "10: on fat32, failed symlinks leave bytes_total at the regular files' sum, exit 1" {
	require_cmd fusefat
	symlinks_fail_counted fat32
}

# ntfs-3g stores symlinks (its row does not count on it): nothing fails there
@test "10: on ntfs, symlinks are stored and bytes_total is the regular files' sum, exit 0" {
	require_cmd ntfs-3g
	stick --fs ntfs
	src_file tree/f1 10
	src_file tree/f2 20
	ln -s "$(printf 'long-target-%.0s' {1..20})" "$SRC/tree/l1"
	ln -s f1 "$SRC/tree/l2"
	run -0 --separate-stderr safecp -r --progress=json "$SRC/tree" "$DEST"/
	printf '%s\n' "$output" >"$EV"
	[[ $(json_done bytes_total) == 30 ]]
	[[ $(readlink "$DEST/tree/l2") == f1 ]]
	cmp "$SRC/tree/f2" "$DEST/tree/f2"
}

# changed_test ATTACK [OLD]: f (3 MiB) changes while it is copied; with OLD, DEST/f held
# that content before.
changed_test() {
	stick
	src_file c/f $((3 * MIB))
	src_file c/g 1000
	mkdir "$DEST/c"
	[[ -z ${2-} ]] || echo "$2" >"$DEST/c/f"
	invariant_begin
	hostile_start source-open:/c/f safecp -r --progress=json "$SRC/c" "$DEST"/
	nobody_sh "$1"
	hostile_finish
	invariant_check
	[[ $CP_RC == 1 ]]
	[[ -n $(json_select ".event == \"changed\" and $(json_names f)") ]] ||
		{ echo "no changed event for f:" >&2; cat "$EV" >&2; false; }
	counters_sane
	if [[ -n ${2-} ]]; then
		[[ $(<"$DEST/c/f") == "$2" ]]
	else
		[[ ! -e $DEST/c/f ]]
	fi
	cmp "$SRC/c/g" "$DEST/c/g"
	assert_no_temporaries "$DEST"
	# a rerun copies it
	run -0 safecp -r --progress=none "$SRC/c" "$DEST"/
	cmp "$SRC/c/f" "$DEST/c/f"
}

@test "10: a source that grows while it is copied: event changed, not published, exit 1; a rerun copies it" {
	changed_test 'head -c 1048576 /dev/urandom >>"$SRC/c/f"'
}

@test "10: a source that shrinks while it is copied: event changed, the old copy kept, exit 1; a rerun copies it" {
	changed_test 'truncate -s 1000000 "$SRC/c/f"' "the old content of f"
}

# mapped_test ATTACK: f (3 MiB, so it is mapped, not read) changes after the reader
# mapped it and before its write read the bytes: the write's own check must see it.
mapped_test() {
	stick
	src_file c/f $((3 * MIB))
	src_file c/g 1000
	invariant_begin
	hostile_start chunk-write:/c/f safecp -r --progress=json "$SRC/c" "$DEST"/
	nobody_sh "$1"
	hostile_finish
	invariant_check
	[[ $CP_RC == 1 ]]
	[[ -n $(json_select ".event == \"changed\" and $(json_names f)") ]] ||
		{ echo "no changed event for f:" >&2; cat "$EV" >&2; false; }
	[[ -z $(json_select ".event == \"error\"") ]] ||
		{ echo "a change of the source was reported as an error:" >&2; cat "$EV" >&2; false; }
	[[ ! -e $DEST/c/f ]]
	cmp "$SRC/c/g" "$DEST/c/g"
	assert_no_temporaries "$DEST"
}

@test "10: a mapped source truncated before its write: event changed (not a write error), not published" {
	mapped_test 'truncate -s 0 "$SRC/c/f"'
}

@test "10: a mapped source rewritten in place before its write: event changed, not published" {
	mapped_test 'dd if=/dev/urandom of="$SRC/c/f" bs=1024 count=1 conv=notrunc status=none'
}

# ---------------------------------------------------------------------------- 12

@test "12: directories made by an interrupted copy get their modes (0755, not 0700), exit 130" {
	stick
	src_file d/a 1000
	src_file d/big $((16 * MIB))
	chmod 0755 "$SRC/d"
	# --window 64K (rounded up to a chunk): d/big is larger than a window, so d/a is
	# published before it is read, and the interrupt comes while d/big is streamed
	hostile_start publish:/dest/d/a safecp -r --window=64K --progress=json "$SRC/d" "$DEST"/
	kill -INT "$CP_PID"
	hostile_finish
	[[ $CP_RC == 130 ]]
	[[ -d $DEST/d ]]
	[[ $(mode_of "$DEST/d") == 755 ]]
	assert_no_temporaries "$DEST"
}

# planted_temps_untouched FS: test 12 on FS.
planted_temps_untouched() {
	stick --fs "$1"
	src_file t/a 3000
	src_file t/b 5000
	mkdir "$DEST/t"
	hostile_start plan-done safecp -r --progress=json "$SRC/t" "$DEST"/
	local i
	for i in $(seq 64); do
		echo "planted $i" >"$DEST/.safecp-$CP_PID-$i.tmp"
		echo "planted $i" >"$DEST/t/.safecp-$CP_PID-$i.tmp"
	done
	(cd "$DEST" && find . -name '.safecp-*' -exec sha256sum {} + | LC_ALL=C sort) >"$BATS_TEST_TMPDIR/planted"
	invariant_begin
	hostile_finish
	invariant_check
	[[ $CP_RC == 0 ]]
	cmp "$SRC/t/a" "$DEST/t/a"
	cmp "$SRC/t/b" "$DEST/t/b"
	diff -u "$BATS_TEST_TMPDIR/planted" \
		<(cd "$DEST" && find . -name '.safecp-*' -exec sha256sum {} + | LC_ALL=C sort)
}

@test "12: on exfat, files under the predictable temporary names do not stop the copy, and stay untouched" {
	planted_temps_untouched exfat
}

@test "12: on fat32, files under the predictable temporary names do not stop the copy, and stay untouched" {
	require_cmd fusefat
	planted_temps_untouched fat32
}

@test "12: on ntfs, files under the predictable temporary names do not stop the copy, and stay untouched" {
	require_cmd ntfs-3g
	planted_temps_untouched ntfs
}

# ---------------------------------------------------------------------------- 1, end to end

@test "1 end to end: nobody fills the stick and the source, root copies, nobody strikes mid-copy: nothing outside DEST, no secret" {
	stick
	plant_stick_victim
	# the attacker's own material: a source tree and a real DEST/photos
	nobody_sh '
		mkdir -p "$SRC/card/photos" "$SRC/card/videos"
		head -c 20000 /dev/urandom >"$SRC/card/photos/a.jpg"
		head -c 30000 /dev/urandom >"$SRC/card/photos/b.jpg"
		head -c 40000 /dev/urandom >"$SRC/card/videos/v.mp4"
		head -c 500 /dev/urandom >"$SRC/card/readme.txt"
		mkdir -p "$DEST/card/photos"'
	invariant_begin
	# right before DEST/card/photos is opened: the directory becomes a link to root's
	# tree off the stick, and a photo a link to root's secret
	hostile_start dir-create:/dest/card/photos safecp -r --progress=json "$SRC/card" "$DEST"/
	nobody_sh '
		mv "$DEST/card/photos" "$DEST/card/photos.old"
		ln -s "$VICTIM/dir" "$DEST/card/photos"
		rm "$SRC/card/photos/a.jpg"
		ln -s "$SECRET" "$SRC/card/photos/a.jpg"'
	hostile_finish
	invariant_check
	[[ $CP_RC == 1 ]]
	[[ ! -e $VICTIM/dir/b.jpg ]]
	grep -q -F "$DEST/card/photos" "$ERR"
	cmp "$SRC/card/videos/v.mp4" "$DEST/card/videos/v.mp4"
	cmp "$SRC/card/readme.txt" "$DEST/card/readme.txt"
	assert_no_temporaries "$DEST"
}
