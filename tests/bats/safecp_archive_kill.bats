#!/usr/bin/env bats
# tests/bats/safecp_archive_kill.bats: `safecp -a` killed with SIGKILL at random instants
# (issue "cp's options and metadata"): no name ever shows a file without its metadata,
# or a hard link whose first name is not durable.
#
# The tree (archive_tree): 47 names and 5 directories, 13 hard-link groups (pairs across
# directories, triples, a group whose first name in walk order is not its shallowest, a
# first name larger than a window whose other names wait for its commit, a sparse file
# and its twin), a file with a name outside the tree, a symbolic link; user.* and
# trusted.* xattrs, ACLs, modes (setuid among them), owners, atimes and mtimes to the ns.
#
# The stick is ext4 on tests/faultdev (stick_up --faulty), throttled so that a copy lasts
# about two seconds. Every other round the stick is also pulled at the kill (faultdev's
# vanish, just before the SIGKILL): the image then holds only what the device had
# completed, so a name on it is a durable name; in the other rounds the kernel writes out
# what the killed copy left, so every name it made is seen. After each round the image is
# looked at afresh (stick_reattach: journal replayed, fsck, mounted again) and must be
# fsck-clean, and every name on it but safecp's hidden ones must be (names_whole):
#   - whole, with the source's mode, owner, group, atime and mtime to the ns, and every
#     extended attribute and ACL;
#   - in a hard-link group: one inode with the group's other names there, never there
#     without the group's first name in safecp's walk order (the leader, whose copy the
#     others are linked to: source_links.c);
#   - the sparse file: no more blocks than the source's, plus its extent tree.
# Then a rerun of `safecp -a` exits 0 and leaves the whole tree (tree_complete).
# The second test aims its kills with the pause points (SAFECP_TEST_PAUSE): in the commit
# that names the big leader, while its other names wait for the next batch (killed, then
# with the stick synced by another process and pulled), and before the sparse file's twin
# is named.
#
# SAFECP_KILL_ROUNDS sets the random rounds (6; 3 under tests/run --sanitize, which
# exports SAFECP_SANITIZE=1); SAFECP_KILL_SEED replays a printed seed.
#
# Seen failing with the code it guards broken: followers linked at once, not deferred
# (the first whole copy: "cannot create 'b/g01': No such file or directory"); followers
# linked to the leader's open file while it waits for its name (a kill round: b/g01..
# without their metadata, before a/f01..); a file's metadata set 30 ms after its name (a
# kill round: c/m5 at mode 600 without its xattr); holes written as zeros (65536 blocks
# for 8192). Not seen failing: the metadata set right after the name, with no time between.
#
# Three things this suite found safecp not doing are tests of their own: a directory's
# mtime after a hard link in it that waited for its leader's commit; a killed copy's
# follower linked under its temporary name (with -a every temporary has its source's
# owner, which the stale scan skipped as not root's), removed by the rerun; a follower
# linked to its leader's copy kept as identical.

load helpers
load safecp_common

setup() {
	require_tool safecp
	require_root
	require_cmd setfattr
	require_cmd getfattr
	require_cmd setfacl
	require_cmd xxhsum
	[[ -x $SAFECP_BUILD/tests/faultdev ]] ||
		skip "needs $SAFECP_BUILD/tests/faultdev (built when libfuse3-dev is installed)"
	SRC=$BATS_TEST_TMPDIR/src
	ERR=$BATS_TEST_TMPDIR/err
	# the partials' notes (partial_state.h) stay in the test's directory
	export XDG_STATE_HOME=$BATS_TEST_TMPDIR/state
	umask 022
	mkdir -p "$SRC"
}

teardown() {
	[[ -n ${SAFECP_PID-} ]] && { kill -9 "$SAFECP_PID" 2>/dev/null; wait "$SAFECP_PID" 2>/dev/null; }
	stick_down_all
}

RATE=$((12 * MIB))

# archive_tree DIR: the tree. safecp walks it in pre-order with each directory's names
# sorted by strcmp (source_walk.c), so a/ and b/ come before the top's own files. c/big
# is larger than a window (8.4 MiB on the stick, 10 MiB after stick_reattach, which
# leaves max_sectors_kb at the loop device's default): its batch commits before it.
archive_tree() {
	local d=$1 i n=0 f future
	local modes=(0640 0600 0644 0604 0755 0700 0444 0660 0750 0620 0400 0664)
	mkdir -p "$d/a" "$d/b" "$d/c" "$d/d" "$d/s"
	for ((i = 1; i <= 14; i++)); do make_file "$d/a/f$(printf %02d $i)" $((600000 + i * 7001)); done
	# pairs across directories
	for ((i = 1; i <= 8; i++)); do ln "$d/a/f0$i" "$d/b/g0$i"; done
	# a triple whose shallowest name is walked last: a/tri leads
	make_file "$d/tri" 90001
	ln "$d/tri" "$d/a/tri"
	ln "$d/tri" "$d/b/tri"
	# a big leader, its second name beside it (deferred to the next batch: the leader is
	# in the open one), its third in another directory, small files after them
	make_file "$d/c/big" $((12 * MIB + 17))
	ln "$d/c/big" "$d/c/big.2"
	ln "$d/c/big" "$d/d/big.3"
	for ((i = 1; i <= 6; i++)); do make_file "$d/c/m$i" $((512 * 1024 + i * 1001)); done
	# pairs and a triple in one directory, plain files between them
	make_file "$d/d/p1" 60001
	ln "$d/d/p1" "$d/d/p2"
	make_file "$d/d/q1" 70001
	ln "$d/d/q1" "$d/d/q2"
	ln "$d/d/q1" "$d/d/q3"
	for ((i = 1; i <= 3; i++)); do make_file "$d/d/r$i" $((30000 + i)); done
	# sparse: 32 MiB, 4 MiB of data in three extents, and its twin
	truncate -s $((32 * MIB)) "$d/s/sparse.img"
	for i in 1:1 12:2 30:1; do
		dd if=/dev/urandom of="$d/s/sparse.img" bs=1M seek="${i%%:*}" count="${i##*:}" \
			conv=notrunc status=none
	done
	ln "$d/s/sparse.img" "$d/s/sparse.twin"
	# its other name is outside the tree: on the stick a file of one name
	make_file "$d/out" 30001
	ln "$d/out" "$BATS_TEST_TMPDIR/outside"
	make_file "$d/zz" 1
	ln -s f01 "$d/a/ln"
	# each file (each inode once): a mode, an owner, xattrs, a mtime of its own
	while IFS= read -r f; do
		[[ -f $d/$f && ! -L $d/$f ]] || continue
		[[ $(stat -c %h "$d/$f") == 1 || -z $(getfattr --only-values -n user.n "$d/$f" 2>/dev/null) ]] ||
			continue
		n=$((n + 1))
		setfattr -n user.n -v "$f" "$d/$f"
		((n % 3)) || chown $((1000 + n)):$((2000 + n)) "$d/$f"
		((n % 5)) || chown nobody:nogroup "$d/$f"
		chmod "${modes[n % ${#modes[@]}]}" "$d/$f"
		touch -m -d "@$((1500000000 + n * 86413)).$(printf %09d $((n * 12345679 % 1000000000)))" "$d/$f"
	done < <(walk_order "$d")
	setfattr -n user.bin -v 0x00ff10 "$d/a/f02"
	setfattr -n trusted.k -v root-only "$d/a/f07"
	# (all of a file's xattrs share one block: 1 KiB on this stick)
	setfattr -n user.big -v "$(head -c 500 /dev/zero | tr '\0' x)" "$d/c/m2"
	setfacl -m u:nobody:rw,g:nogroup:r "$d/a/f03"
	setfacl -m u:nobody:r "$d/c/big"
	setfacl -m g:nogroup:rw "$d/d/q1"
	chown 1234:2345 "$d/a/f06"
	chmod 4755 "$d/a/f06"
	chown -h nobody:nogroup "$d/a/ln"
	touch -h -m -d '2020-01-02 03:04:05.123456789' "$d/a/ln"
	# directories last: their files changed their mtimes
	setfattr -n user.d -v c "$d/c"
	setfacl -d -m u:nobody:rx "$d/d"
	chmod 0750 "$d/b"
	chmod 0711 "$d/s"
	touch -m -d '2019-01-02 03:04:05.987654321' "$d/a" "$d/b" "$d/c" "$d/d" "$d/s" "$d"
	# atimes a day ahead, last: relatime then never moves them when a file is read
	future="$(date -d '+1 day' '+%Y-%m-%d %H:%M:%S').123456789"
	find "$d" -exec touch -h -a -d "$future" {} +
}

# walk_order DIR [PREFIX]: the names below DIR as safecp walks them (source_walk.c):
# pre-order, each directory's names sorted by strcmp (bytes: LC_ALL=C).
walk_order() {
	local f LC_ALL=C
	for f in "$1"/*; do
		[[ -e $f || -L $f ]] || continue
		echo "${2:+$2/}${f##*/}"
		if [[ -d $f && ! -L $f ]]; then walk_order "$f" "${2:+$2/}${f##*/}"; fi
	done
}

# link_groups DIR: each hard-link group below DIR, one a line: its names in walk order,
# the leader first. A file whose other names are outside DIR is no group.
link_groups() {
	walk_order "$1" | (cd "$1" && xargs -r -d '\n' stat -c '%h %i %n') | awk '
		$1 > 1 { if (!($2 in g)) order[++n] = $2; g[$2] = g[$2] " " $3 }
		END { for (i = 1; i <= n; i++) if (split(g[order[i]], x, " ") > 1) print substr(g[order[i]], 2) }'
}

# facts ROOT NAME...: of each name below ROOT, its type, mode, owner, group, atime and
# mtime to the ns (a symbolic link's own, and its target), then every extended attribute
# (ACLs are system.posix_acl_*), one "name<TAB>attr=hex" line each, sorted.
facts() {
	local root=$1
	shift
	(
		cd "$root" || exit 1
		stat -c '%n %F %a %u %g %.9X %.9Y %N' -- "$@"
		getfattr -h -d -m - -e hex -- "$@" 2>/dev/null |
			awk '/^# file: / { f = substr($0, 9); next } NF { print f "\t" $0 }' | LC_ALL=C sort
	)
}

# content ROOT NAME...: the XXH128 of each regular file among the names (sha256sum took
# seconds a round: the sparse file reads as 32 MiB, twice).
content() {
	(cd "$1" && shift && for f in "$@"; do [[ -f $f && ! -L $f ]] && echo "$f"; done |
		xargs -r -d '\n' xxhsum -q -H2 --)
}

# names_whole: every name under $STICK_MNT/t (but safecp's hidden ones) is whole with its
# metadata; each hard-link group's names there are one inode, and its leader is there
# whenever another of its names is; the sparse file has no more blocks than the
# source's (plus 64 KiB). Prints "NAMES GROUPS_PARTIAL" for the round's line.
names_whole() {
	local dst=$STICK_MNT/t names=() line g leader ino first here partial=0
	local -A inode=()
	[[ -d $dst ]] || { echo "0 0"; return 0; }
	mapfile -t names < <(cd "$dst" && find . -mindepth 1 ! -type d ! -name '.safecp-*' -printf '%P\n' |
		LC_ALL=C sort)
	((${#names[@]})) || { echo "0 0"; return 0; }
	diff <(facts "$SRC/t" "${names[@]}") <(facts "$dst" "${names[@]}") >&2 ||
		{ echo "names on the stick without their metadata (< source, > stick)" >&2; return 1; }
	diff <(content "$SRC/t" "${names[@]}") <(content "$dst" "${names[@]}") >&2 ||
		{ echo "names on the stick not whole" >&2; return 1; }
	while read -r ino line; do
		inode[$line]=$ino
	done < <(cd "$dst" && stat -c '%i %n' -- "${names[@]}")
	while read -r -a g; do
		leader=${g[0]} first='' here=0
		for line in "${g[@]}"; do
			[[ -n ${inode[$line]-} ]] || continue
			here=$((here + 1))
			[[ -n ${inode[$leader]-} ]] ||
				{ echo "'$line' is on the stick, its group's first name '$leader' is not" >&2; return 1; }
			: "${first:=${inode[$line]}}"
			[[ ${inode[$line]} == "$first" ]] || {
				echo "'$line' is not one file with '$leader' (inode ${inode[$line]}, not $first)" >&2
				return 1
			}
		done
		((here == 0 || here == ${#g[@]})) || partial=$((partial + 1))
	done <"$BATS_TEST_TMPDIR/groups"
	[[ -z ${inode[s/sparse.img]-} ]] || holes_kept
	echo "${#names[@]} $partial"
}

# holes_kept: the sparse file on the stick has no more blocks than the source's, plus
# 64 KiB (its extent tree; the stick's blocks are 1 KiB, the source's 4).
holes_kept() {
	local blocks src_blocks
	blocks=$(stat -c %b "$STICK_MNT/t/s/sparse.img")
	src_blocks=$(stat -c %b "$SRC/t/s/sparse.img")
	((blocks <= src_blocks + 128)) ||
		{ echo "s/sparse.img: $blocks blocks on the stick, $src_blocks in the source" >&2; return 1; }
}

# tree_complete: the whole tree on the stick: every entry with its metadata (directories'
# too), every file whole, every group one inode of as many links as names, the name
# linked from outside one file of one name, the holes kept, no temporary or partial left.
tree_complete() {
	local names g name ino links left
	local -A inode=() nlink=()
	mapfile -t names < <(walk_order "$SRC/t")
	diff <(printf '%s\n' "${names[@]}" | LC_ALL=C sort) \
		<(cd "$STICK_MNT/t" && find . -mindepth 1 ! -name '.safecp-*' -printf '%P\n' | LC_ALL=C sort)
	diff <(facts "$SRC/t" "${names[@]}") <(facts "$STICK_MNT/t" "${names[@]}")
	diff <(content "$SRC/t" "${names[@]}") <(content "$STICK_MNT/t" "${names[@]}")
	while read -r ino links name; do
		inode[$name]=$ino nlink[$name]=$links
	done < <(cd "$STICK_MNT/t" && stat -c '%i %h %n' -- "${names[@]}")
	while read -r -a g; do
		for name in "${g[@]}"; do
			[[ ${inode[$name]} == "${inode[${g[0]}]}" && ${nlink[$name]} == "${#g[@]}" ]] || {
				echo "group ${g[*]}: '$name' is inode ${inode[$name]} of ${nlink[$name]} links" >&2
				return 1
			}
		done
	done <"$BATS_TEST_TMPDIR/groups"
	[[ ${nlink[out]} == 1 ]]
	holes_kept
	# nothing hidden is left
	left=$(cd "$STICK_MNT" && find . -name '.safecp-*' -printf '%P\n' | LC_ALL=C sort)
	[[ -z $left ]] || { echo "left after the rerun: $left"; return 1; }
}

# prepare: the tree, its groups, and the stick (faulty, so that it can be pulled).
prepare() {
	archive_tree "$SRC/t"
	link_groups "$SRC/t" >"$BATS_TEST_TMPDIR/groups"
	echo "$(walk_order "$SRC/t" | wc -l) names, $(wc -l <"$BATS_TEST_TMPDIR/groups") hard-link groups:"
	sed 's/^/  /' "$BATS_TEST_TMPDIR/groups"
	# the groups are what the tree was made to have
	grep -qx 'a/tri b/tri tri' "$BATS_TEST_TMPDIR/groups"
	grep -qx 'c/big c/big.2 d/big.3' "$BATS_TEST_TMPDIR/groups"
	grep -qx 's/sparse.img s/sparse.twin' "$BATS_TEST_TMPDIR/groups"
	(($(stat -c %b "$SRC/t/s/sparse.img") < 5 * MIB / 512))
	stick_up --faulty --fs ext4 --size 128 --rate "$RATE"
	FAULT_FILE=$STICK_LOOPFILE
}

# fresh_stick RATE: the copy's tree gone for good, the stick on faultdev (a pulled
# round's look was at the image without it), throttled to RATE.
fresh_stick() {
	rm -rf "${STICK_MNT:?}/t" "$XDG_STATE_HOME"
	# durable: else a pull could find the last round's tree
	sync -f "$STICK_MNT"
	if [[ $STICK_LOOPFILE != "$FAULT_FILE" ]]; then
		fault clear
		stick_reattach "$STICK_ID" "$FAULT_FILE"
	fi
	stick_throttle "$STICK_ID" "$1"
}

# killed HOW: safecp ($SAFECP_PID) is killed with SIGKILL (HOW pull: the stick pulled
# the instant before, faultdev's vanish), then the stick is looked at afresh: from the
# image alone after a pull (the loop device then bypasses faultdev). It must be fsck-clean
# and its names whole (names_whole); sets SEEN to names_whole's line.
killed() {
	[[ $1 == pull ]] && fault vanish
	kill -9 "$SAFECP_PID" 2>/dev/null || true
	wait "$SAFECP_PID" 2>/dev/null || true
	SAFECP_PID=
	if [[ $1 == pull ]]; then
		stick_reattach "$STICK_ID"
	else
		stick_reattach "$STICK_ID" "$FAULT_FILE"
	fi
	((STICK_FSCK_RC == 0)) || { echo "$STICK_FSCK_OUT"; return 1; }
	SEEN=$(names_whole)
}

# rerun: safecp -a again completes the copy onto what the kill left, and it is whole.
rerun() {
	safecp -q -a "$SRC/t" "$STICK_MNT"/ 2>"$ERR" || { cat "$ERR"; return 1; }
	# a partial the kill left is resumed or copied again, with a note
	cat "$ERR"
	run -1 grep -v "^safecp: note: '$STICK_MNT/t/s/sparse.img': an interrupted copy " "$ERR"
	tree_complete
}

@test "-a killed at random instants, the stick pulled every other time: every name whole with its metadata, no link without its durable first name; a rerun completes" {
	local rounds=${SAFECP_KILL_ROUNDS:-$( ((${SAFECP_SANITIZE:-0})) && echo 3 || echo 6)}
	local seed=${SAFECP_KILL_SEED:-$((($$ * 7919 + ${EPOCHSECONDS:-0}) % 32768))}
	local round how delay t0 span_ms total
	echo "kill -9 rounds: $rounds, seed $seed (SAFECP_KILL_SEED=$seed replays them)"
	RANDOM=$seed
	prepare
	total=$(walk_order "$SRC/t" | wc -l)
	t0=${EPOCHREALTIME/./}
	safecp -q -a "$SRC/t" "$STICK_MNT"/
	span_ms=$(((${EPOCHREALTIME/./} - t0) * 12 / 10000 + 1))
	echo "a whole copy: $((span_ms * 10 / 12)) ms; kills within $span_ms ms"
	tree_complete
	for ((round = 1; round <= rounds; round++)); do
		how='kill'
		((round % 2)) || how=pull
		fresh_stick "$RATE"
		delay=$(((RANDOM * 32768 + RANDOM) % span_ms))
		delay=$(printf '%d.%03d' $((delay / 1000)) $((delay % 1000)))
		safecp -q -a "$SRC/t" "$STICK_MNT"/ 2>"$ERR" &
		SAFECP_PID=$!
		sleep "$delay"
		killed "$how"
		echo "round $round ($how): after $delay s: ${SEEN% *} of $total names whole with" \
			"their metadata, ${SEEN#* } groups in part, $(temporaries "$STICK_MNT" | wc -l) hidden"
		rerun
	done
}

# paused_at PATH HOW: the copy paused (SAFECP_TEST_PAUSE) before PATH is named, killed
# there (HOW: kill, or sync-pull: another process syncs the stick, then it is pulled),
# and the stick judged (killed). Unthrottled: the pause, not the time, is the instant.
paused_at() {
	fresh_stick 0
	SAFECP_TEST_PAUSE=publish:$1 safecp -q -a "$SRC/t" "$STICK_MNT"/ 2>"$ERR" &
	SAFECP_PID=$!
	wait_paused "$SAFECP_PID" || { cat "$ERR"; return 1; }
	if [[ $2 == sync-pull ]]; then
		sync -f "$STICK_MNT"
		killed pull
	else
		killed "$2"
	fi
	echo "paused before '$1' is named, $2: ${SEEN% *} names whole with their metadata," \
		"${SEEN#* } groups in part"
}

@test "-a killed while a big file's second name waits for its commit: the first name alone, with its metadata; a rerun completes" {
	require_hooks
	prepare
	# c/big's batch is named in entry order: before c/m1, c/big has its name, and its
	# other names, deferred to the next batch, have none
	paused_at /t/c/m1 kill
	[[ -f $STICK_MNT/t/c/big && ! -e $STICK_MNT/t/c/big.2 && ! -e $STICK_MNT/t/d/big.3 ]]
	rerun
	# the same instant, but another process syncs the stick before it is pulled: the
	# names made so far are durable before their commit, and must show whole files
	# with their metadata; the followers still wait
	paused_at /t/c/m1 sync-pull
	[[ -f $STICK_MNT/t/c/big && ! -e $STICK_MNT/t/c/big.2 && ! -e $STICK_MNT/t/d/big.3 ]]
	rerun
	# the sparse file's twin linked, paused before it is named: the sparse file is there
	# whole, with its holes
	paused_at /t/s/sparse.twin kill
	[[ -f $STICK_MNT/t/s/sparse.img && ! -e $STICK_MNT/t/s/sparse.twin ]]
	rerun
}

@test "-a keeps the mtime of a directory whose hard link waited for its leader's commit" {
	stick_up --fs ext4 --size 64 --rate 0
	mkdir -p "$SRC/t/a" "$SRC/t/b" "$SRC/t/c"
	make_file "$SRC/t/a/f" 100
	ln "$SRC/t/a/f" "$SRC/t/b/g"
	# larger than a window: the batch holding a/f commits before it, after b was left
	make_file "$SRC/t/c/big" $((12 * MIB))
	touch -m -d '2019-01-02 03:04:05.5' "$SRC/t/a" "$SRC/t/b" "$SRC/t/c" "$SRC/t"
	run -0 safecp -q -a "$SRC/t" "$STICK_MNT"/
	diff <(cd "$SRC" && stat -c '%n %.9Y' t t/a t/b t/c) \
		<(cd "$STICK_MNT" && stat -c '%n %.9Y' t t/a t/b t/c)
	[[ $(stat -c %i "$STICK_MNT/t/a/f") == "$(stat -c %i "$STICK_MNT/t/b/g")" ]]
}

# killed_at_follower: t/f and its second name t/g, safecp -a killed paused where t/g,
# linked under its temporary name, is to get its name
killed_at_follower() {
	require_hooks
	stick_up --fs ext4 --size 64 --rate 0
	mkdir -p "$SRC/t"
	make_file "$SRC/t/f" 1000
	ln "$SRC/t/f" "$SRC/t/g"
	SAFECP_TEST_PAUSE=publish:/t/g safecp -q -a "$SRC/t" "$STICK_MNT"/ &
	SAFECP_PID=$!
	wait_paused "$SAFECP_PID"
	kill -9 "$SAFECP_PID"
	wait "$SAFECP_PID" 2>/dev/null || true
	SAFECP_PID=
}

@test "-a killed while a hard link waits under its temporary name: the rerun removes that name" {
	killed_at_follower
	[[ -n $(temporaries "$STICK_MNT") ]]
	run -0 safecp -q -a "$SRC/t" "$STICK_MNT"/
	assert_no_temporaries "$STICK_MNT"
}

@test "-a --skip-identical after a kill: a further name whose first name is kept is linked to it" {
	killed_at_follower
	run -0 safecp -q -a --skip-identical "$SRC/t" "$STICK_MNT"/
	[[ $(stat -c %i "$STICK_MNT/t/f") == "$(stat -c %i "$STICK_MNT/t/g")" ]]
}
