#!/usr/bin/env bats
# tests/bats/safecp_replacing.bats: what becomes of a file a copy replaces, as cp's -i and
# -b/--backup/-S ask (issue 29), on simulated sticks:
# - -i asks about each existing file during the plan: every question is on the terminal
#   before the first byte is written (a new file that sorts first is not there yet at the
#   last question); a line starting with y replaces, n or the end of input keeps;
#   -i and -n: the last counts;
# - --backup's names are cp's: the same sequence of copies with cp into a directory on
#   the system disk and with safecp onto the stick leaves the same names, each backup
#   holding the bytes it held (simple, numbered, existing, -S, VERSION_CONTROL,
#   SIMPLE_BACKUP_SUFFIX); -b with -n, an unknown or ambiguous CONTROL are refused
#   before the first byte;
# - the backups are made on FAT32 (no journal: synced before the new names) and with
#   --verify (named at the commit); a backup name taken by a directory fails that file
#   alone (exit 1), the old one left under its name, the message naming both.

load helpers
load safecp_common

setup() {
	require_tool safecp
	require_root
	SRC=$BATS_TEST_TMPDIR/src
	mkdir -p "$SRC"
	echo new-a >"$SRC/a"
	echo new-b >"$SRC/b"
	echo new-0 >"$SRC/0new"
}

teardown() {
	[[ -z ${FEED_FD-} ]] || exec {FEED_FD}>&-
	stick_down_all
}

# old_files DIR: a and b as they were before the copy
old_files() {
	mkdir -p "$1"
	echo old-a >"$1/a"
	echo old-b >"$1/b"
}

# prompts_at_least FILE N: FILE holds N questions or more
prompts_at_least() {
	(($(grep -o 'overwrite' "$1" 2>/dev/null | wc -l) >= $2))
}

# wait_prompts FILE N: until FILE holds N questions (fails after 10 s)
wait_prompts() {
	wait_for 10 prompts_at_least "$@"
}

@test "-i: every question before the first byte; y replaces, n keeps, the new file copied after" {
	stick_up --size 32 --rate 0
	old_files "$STICK_MNT/d"
	local fifo=$BATS_TEST_TMPDIR/answers err=$BATS_TEST_TMPDIR/err pid rc=0
	mkfifo "$fifo"
	safecp -i "$SRC/0new" "$SRC/a" "$SRC/b" "$STICK_MNT/d/" <"$fifo" 2>"$err" &
	pid=$!
	exec {FEED_FD}>"$fifo"
	wait_prompts "$err" 1
	# asked about a: nothing written yet, not even the new file that sorts first
	[[ $(<"$err") == "safecp: overwrite '$STICK_MNT/d/a'? " ]]
	[[ $(ls -A "$STICK_MNT/d") == $'a\nb' ]]
	echo y >&"$FEED_FD"
	wait_prompts "$err" 2
	[[ $(ls -A "$STICK_MNT/d") == $'a\nb' ]]
	[[ $(<"$STICK_MNT/d/a") == old-a ]]
	echo n >&"$FEED_FD"
	exec {FEED_FD}>&-
	wait "$pid" || rc=$?
	cat "$err"
	((rc == 0))
	[[ $(<"$STICK_MNT/d/a") == new-a ]]
	[[ $(<"$STICK_MNT/d/b") == old-b ]]
	[[ $(<"$STICK_MNT/d/0new") == new-0 ]]
	[[ $(grep -c overwrite "$err") == 1 ]] # one line: the prompts, answers not echoed
	[[ $(grep -o overwrite "$err" | wc -l) == 2 ]]
}

@test "-i: the end of input keeps every file; no question without an existing file; -i and -n: the last counts" {
	stick_up --size 32 --rate 0
	old_files "$STICK_MNT/d"
	run -0 --separate-stderr safecp -i "$SRC/a" "$SRC/b" "$STICK_MNT/d/" </dev/null
	[[ $stderr == "safecp: overwrite '$STICK_MNT/d/a'? safecp: overwrite '$STICK_MNT/d/b'?" ]]
	[[ $(<"$STICK_MNT/d/a") == old-a && $(<"$STICK_MNT/d/b") == old-b ]]
	# the dry run asks too, and says why the files are kept
	run -0 safecp -i --dry-run "$SRC/a" "$STICK_MNT/d/" </dev/null
	[[ $output == *"kept: 1 existing file (answered no)"* ]]
	# nothing there: nothing asked
	run -0 --separate-stderr safecp -i "$SRC/a" "$STICK_MNT/e" </dev/null
	[[ -z $stderr && $(<"$STICK_MNT/e") == new-a ]]
	# -n after -i: nothing asked, kept; -i after -n: asked
	run -0 --separate-stderr safecp -i -n "$SRC/a" "$STICK_MNT/d/" <<<y
	[[ -z $stderr && $(<"$STICK_MNT/d/a") == old-a ]]
	run -0 --separate-stderr safecp -n -i "$SRC/a" "$STICK_MNT/d/" <<<yes
	[[ $stderr == "safecp: overwrite '$STICK_MNT/d/a'?" && $(<"$STICK_MNT/d/a") == new-a ]]
	# -u first: only what -u would replace is asked about
	touch -d '2001-01-01' "$SRC/b"
	run -0 --separate-stderr safecp -i -u "$SRC/b" "$STICK_MNT/d/" </dev/null
	[[ -z $stderr ]]
}

# both_copy OPTS... FILE: the same copy of FILE with cp into $CPD and with safecp into
# $SCD.  cp runs in $CPD: cp 9.1 renames an old file onto an existing simple backup in
# its current directory, not beside the file (strace: renameat(dirfd, "b", AT_FDCWD,
# "b~"); fixed in later coreutils); safecp keeps every backup beside its file.
both_copy() {
	local src=${*: -1}
	(cd "$CPD" && cp "${@:1:$#-1}" "$src" ./)
	safecp -q "${@:1:$#-1}" "$src" "$SCD/"
}

# same_dirs: the two directories hold the same names with the same bytes
same_dirs() {
	local f
	diff <(ls -A "$CPD") <(ls -A "$SCD")
	for f in "$CPD"/*; do cmp "$f" "$SCD/${f##*/}"; done
}

@test "--backup: cp's names for each CONTROL, -S, VERSION_CONTROL, SIMPLE_BACKUP_SUFFIX; each backup the old bytes" {
	stick_up --size 32 --rate 0
	CPD=$BATS_TEST_TMPDIR/cp SCD=$STICK_MNT/sc
	old_files "$CPD"
	old_files "$SCD"
	local n
	for n in 1 2 3; do
		echo "round $n" >"$SRC/a"
		both_copy -b "$SRC/a"
	done
	same_dirs
	[[ $(<"$SCD/a~") == "round 2" ]]
	for n in 1 2; do
		echo "numbered $n" >"$SRC/a"
		both_copy --backup=numbered "$SRC/a"
	done
	echo "t" >"$SRC/a"
	both_copy --backup=t "$SRC/a"
	same_dirs
	[[ $(<"$SCD/a.~1~") == "round 3" && $(<"$SCD/a.~3~") == "numbered 2" ]]
	# existing: numbered for a (it has some), simple for b; -S implies --backup
	both_copy --backup=existing "$SRC/a"
	both_copy --backup=nil "$SRC/b"
	echo "s" >"$SRC/b"
	both_copy -S .bak "$SRC/b"
	echo "abbrev" >"$SRC/b"
	both_copy --backup=sim "$SRC/b"
	VERSION_CONTROL=numbered both_copy -b "$SRC/b"
	VERSION_CONTROL=off both_copy -b "$SRC/0new"
	both_copy --backup=none "$SRC/0new"
	same_dirs
	ls -A "$SCD"
	SIMPLE_BACKUP_SUFFIX=.old VERSION_CONTROL=never both_copy --backup "$SRC/b"
	same_dirs
	[[ $(<"$SCD/b.bak") == new-b && $(<"$SCD/b~") == s && $(<"$SCD/b.old") == abbrev ]]
	[[ ! -e $SCD/0new~ ]]
}

@test "--backup refused before the first byte: with -n, an unknown or ambiguous CONTROL, a bad -S" {
	stick_up --size 32 --rate 0
	old_files "$STICK_MNT/d"
	local args
	for args in "-b -n" "-n --backup=numbered" "-S .x -n" "--backup=bogus" "--backup=n" \
		"-S a/b" "-S="; do
		# shellcheck disable=SC2086
		run -2 --separate-stderr safecp $args "$SRC/a" "$STICK_MNT/d/"
		echo "$args: $stderr"
		[[ $(wc -l <<<"$stderr") == 1 && $stderr == "safecp: "* ]]
		[[ $(<"$STICK_MNT/d/a") == old-a && $(ls -A "$STICK_MNT/d") == $'a\nb' ]]
	done
	[[ $stderr == *"invalid suffix"* ]]
	run -2 --separate-stderr safecp -b -n "$SRC/a" "$STICK_MNT/d/"
	[[ $stderr == *"--backup and --no-clobber are mutually exclusive"* ]]
	run -2 --separate-stderr safecp --backup=n "$SRC/a" "$STICK_MNT/d/"
	[[ $stderr == *"ambiguous argument 'n' for --backup"* ]]
	VERSION_CONTROL=bogus run -2 --separate-stderr safecp -b "$SRC/a" "$STICK_MNT/d/"
	[[ $stderr == *"invalid argument 'bogus' for \$VERSION_CONTROL"* ]]
}

@test "--backup on FAT32 (synced before the new names), with --verify, and onto a tree with -r" {
	require_cmd fusefat
	stick_up --fs fat32 --size 64 --rate 0
	old_files "$STICK_MNT/d"
	run -0 safecp -b "$SRC/a" "$SRC/b" "$STICK_MNT/d/"
	[[ $(<"$STICK_MNT/d/a~") == old-a && $(<"$STICK_MNT/d/a") == new-a ]]
	[[ $(<"$STICK_MNT/d/b~") == old-b && $(<"$STICK_MNT/d/b") == new-b ]]
	stick_down_all
	stick_up --size 32 --rate 0
	old_files "$STICK_MNT/src"
	run -0 safecp --verify --backup=numbered "$SRC/a" "$STICK_MNT/src/"
	[[ $(<"$STICK_MNT/src/a.~1~") == old-a && $(<"$STICK_MNT/src/a") == new-a ]]
	# a tree merged into: each replaced file backed up, the new ones not
	run -0 safecp -r -b "$SRC" "$STICK_MNT/"
	[[ $(<"$STICK_MNT/src/a.~1~") == old-a && $(<"$STICK_MNT/src/a.~2~") == new-a ]]
	[[ $(<"$STICK_MNT/src/b~") == old-b && ! -e $STICK_MNT/src/0new~ ]]
}

@test "--backup: a backup name that cannot be taken fails that file alone, the old one left" {
	stick_up --size 32 --rate 0
	old_files "$STICK_MNT/d"
	mkdir "$STICK_MNT/d/a~"
	touch "$STICK_MNT/d/a~/x"
	run -1 --separate-stderr safecp -b "$SRC/a" "$SRC/b" "$STICK_MNT/d/"
	echo "$stderr"
	[[ $stderr == *"cannot back up '$STICK_MNT/d/a' as '$STICK_MNT/d/a~'"* ]]
	[[ $(<"$STICK_MNT/d/a") == old-a ]]
	[[ $(<"$STICK_MNT/d/b") == new-b && $(<"$STICK_MNT/d/b~") == old-b ]]
	assert_no_temporaries "$STICK_MNT"
}

@test "--backup onto links as cp -b: a link to a file and one that leads nowhere are backed up, the copy a new file" {
	stick_up --size 32 --rate 0
	CPD=$BATS_TEST_TMPDIR/cp SCD=$STICK_MNT/sc
	local d
	for d in "$CPD" "$SCD"; do
		mkdir -p "$d"
		echo old >"$d/t"
		chmod 600 "$d/t"
		ln -s t "$d/lnk"
		ln -s nowhere "$d/dang"
		echo old-a >"$d/a"
		chmod 600 "$d/a"
	done
	chmod 644 "$SRC/a"
	both_copy -b "$SRC/a"
	(cd "$CPD" && cp -b "$SRC/a" lnk && cp -b "$SRC/a" dang)
	safecp -q -b "$SRC/a" "$SCD/lnk"
	safecp -q -b "$SRC/a" "$SCD/dang"
	diff <(cd "$CPD" && find . -printf '%p %y %m %l\n' | LC_ALL=C sort) \
		<(cd "$SCD" && find . -printf '%p %y %m %l\n' | LC_ALL=C sort)
	# the new files have a new file's mode, as cp -b gives them
	[[ $(stat -c %a "$SCD/a" "$SCD/lnk") == $'644\n644' && $(<"$SCD/t") == old ]]
}

@test "a link to a file as DEST is followed only on its own filesystem; one off it is replaced, what it leads to untouched" {
	stick_up --size 32 --rate 0
	echo victim >"$BATS_TEST_TMPDIR/victim"
	ln -s "$BATS_TEST_TMPDIR/victim" "$STICK_MNT/far"
	echo near >"$STICK_MNT/near"
	ln -s near "$STICK_MNT/lnk"
	run -0 safecp -q "$SRC/a" "$STICK_MNT/far"
	[[ $(<"$BATS_TEST_TMPDIR/victim") == victim && ! -L $STICK_MNT/far ]]
	[[ $(<"$STICK_MNT/far") == new-a ]]
	run -0 safecp -q "$SRC/a" "$STICK_MNT/lnk"
	[[ -L $STICK_MNT/lnk && $(<"$STICK_MNT/near") == new-a ]]
}
