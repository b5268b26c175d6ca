#!/usr/bin/env bats
# tests/bats/safecp_beneath.bats: --beneath=DIR, a destination that may not leave a
# stick someone else prepared (issue 24, H1). The stick holds links, a mount on the way
# or a "..", planted before the copy or swapped in while it is paused (plan-done);
# every test checks that a victim tree off the stick is unchanged and that nothing
# of the source landed outside the stick.

load helpers
load safecp_common


setup() {
	require_tool safecp
	require_root
	SRC=$BATS_TEST_TMPDIR/src
	mkdir -p "$SRC/card/DCIM"
	make_file "$SRC/card/DCIM/IMG_0001.JPG" 70000
	make_file "$SRC/card/DCIM/IMG_0002.JPG" 3000
	VICTIM=$(mktemp -d /tmp/safecp-beneath-victim.XXXXXX)
	chmod 0755 "$VICTIM"
	mkdir "$VICTIM/.ssh"
	echo ORIGINAL-KEY >"$VICTIM/.ssh/authorized_keys"
	BIND=''
	PID=''
	stick_up --size 64 --rate 0
	victim_snapshot >"$BATS_TEST_TMPDIR/victim.before"
}

teardown() {
	[[ -z $PID ]] || { kill -KILL "$PID" 2>/dev/null; kill -CONT "$PID" 2>/dev/null; wait "$PID" 2>/dev/null; } || true
	[[ -z $BIND ]] || umount "$BIND" || true
	[[ $VICTIM == /tmp/safecp-beneath-victim.* ]] && rm -rf "$VICTIM"
	stick_down_all
}

victim_snapshot() {
	{
		find "$VICTIM" -printf '%y %p %m %u %s %T@ %l\n'
		find "$VICTIM" -type f -exec sha256sum {} +
	} | LC_ALL=C sort
}

# victim_unchanged: the tree off the stick is as it was, and no photo reached it.
victim_unchanged() {
	victim_snapshot | diff -u "$BATS_TEST_TMPDIR/victim.before" - >&2 ||
		{ echo "the victim tree off the stick changed (above)" >&2; return 1; }
}

@test "--beneath: a DEST on the stick is copied to as without it" {
	mkdir "$STICK_MNT/2026-12-05"
	run -0 safecp -q -r --beneath="$STICK_MNT" "$SRC/card" "$STICK_MNT/2026-12-05/"
	cmp "$SRC/card/DCIM/IMG_0001.JPG" "$STICK_MNT/2026-12-05/card/DCIM/IMG_0001.JPG"
	# DEST as the copy's own name, the root itself, and a trailing slash on DIR
	run -0 safecp -q -r --beneath="$STICK_MNT/" "$SRC/card" "$STICK_MNT/named"
	cmp "$SRC/card/DCIM/IMG_0002.JPG" "$STICK_MNT/named/DCIM/IMG_0002.JPG"
	run -0 safecp -q --beneath="$STICK_MNT" "$SRC/card/DCIM/IMG_0002.JPG" "$STICK_MNT"
	cmp "$SRC/card/DCIM/IMG_0002.JPG" "$STICK_MNT/IMG_0002.JPG"
	victim_unchanged
}

@test "--beneath: a symbolic link on the stick, at the top or deeper, is refused before the first byte" {
	ln -s "$VICTIM" "$STICK_MNT/2026-12-05"
	mkdir "$STICK_MNT/d"
	ln -s "$VICTIM/.ssh" "$STICK_MNT/d/card"
	for dest in "$STICK_MNT/2026-12-05/" "$STICK_MNT/2026-12-05/x" "$STICK_MNT/d/card"; do
		run -2 --separate-stderr safecp -r --beneath="$STICK_MNT" -t "$dest" "$SRC/card/DCIM"
		[[ $stderr == *"refusing to copy to '$dest'"*"symbolic link"*"'$STICK_MNT'"* ]]
	done
	# the copy into the link's place as a new name replaces nothing behind it
	run -2 --separate-stderr safecp -r --beneath="$STICK_MNT" "$SRC/card/DCIM" "$STICK_MNT/2026-12-05/x"
	[[ $stderr == *"symbolic link"* ]]
	[[ ! -e $VICTIM/DCIM && ! -e $VICTIM/x && ! -e $VICTIM/.ssh/DCIM ]]
	victim_unchanged
}

@test "--beneath: '..', a path not written under DIR and another mount are refused" {
	mkdir "$STICK_MNT/sub"
	run -2 --separate-stderr safecp -r --beneath="$STICK_MNT" "$SRC/card" "$STICK_MNT/sub/../../"
	[[ $stderr == *"leads out of '$STICK_MNT'"* ]]
	run -2 --separate-stderr safecp -r --beneath="$STICK_MNT" "$SRC/card" "$VICTIM/"
	[[ $stderr == *"destination '$VICTIM/' is not under '$STICK_MNT'"* ]]
	# a prefix of a name is not a parent: /media/usb does not hold /media/usb2
	run -2 --separate-stderr safecp -r --beneath="${STICK_MNT%/*}/x" "$SRC/card" "${STICK_MNT%/*}/xy/"
	[[ $stderr == *"is not under"* ]]
	mkdir "$STICK_MNT/mnt"
	mount --bind "$VICTIM" "$STICK_MNT/mnt"
	BIND=$STICK_MNT/mnt
	run -2 --separate-stderr safecp -r --beneath="$STICK_MNT" "$SRC/card" "$STICK_MNT/mnt/"
	[[ $stderr == *"refusing to copy to '$STICK_MNT/mnt/'"*"another mount"* ]]
	umount "$BIND"
	BIND=''
	victim_unchanged
}

@test "--beneath: each -t DIR is held to its own stick" {
	local first=$STICK_MNT
	stick_up --size 64 --rate 0
	mkdir "$first/a" "$STICK_MNT/b"
	run -0 safecp -q -r --beneath="$first" --beneath="$STICK_MNT" \
		-t "$first/a" -t "$STICK_MNT/b" "$SRC/card"
	cmp "$SRC/card/DCIM/IMG_0001.JPG" "$first/a/card/DCIM/IMG_0001.JPG"
	cmp "$SRC/card/DCIM/IMG_0001.JPG" "$STICK_MNT/b/card/DCIM/IMG_0001.JPG"
	rm -r "$STICK_MNT/b"
	ln -s "$VICTIM" "$STICK_MNT/b"
	run -2 --separate-stderr safecp -r --beneath="$first" --beneath="$STICK_MNT" \
		-t "$first/a" -t "$STICK_MNT/b" "$SRC/card"
	[[ $stderr == *"refusing to copy to '$STICK_MNT/b'"* ]]
	victim_unchanged
}

@test "--beneath: --pack and --unpack destinations are held too" {
	ln -s "$VICTIM" "$STICK_MNT/l"
	run -2 --separate-stderr safecp --pack=tar --beneath="$STICK_MNT" "$SRC/card" "$STICK_MNT/l/"
	[[ $stderr == *"symbolic link"* ]]
	(cd "$SRC" && tar -cf "$BATS_TEST_TMPDIR/card.tar" card)
	run -2 --separate-stderr safecp --unpack --beneath="$STICK_MNT" "$BATS_TEST_TMPDIR/card.tar" "$STICK_MNT/l"
	[[ $stderr == *"symbolic link"* ]]
	victim_unchanged
}

@test "--beneath: a directory swapped for a link after the plan is not written through" {
	require_hooks
	mkdir "$STICK_MNT/day"
	chown nobody:nogroup "$STICK_MNT"
	SAFECP_TEST_PAUSE=plan-done safecp -r --beneath="$STICK_MNT" "$SRC/card" "$STICK_MNT/day/" \
		>"$BATS_TEST_TMPDIR/out" 2>&1 &
	PID=$!
	wait_paused "$PID"
	"${AS_NOBODY[@]}" sh -ec 'mv "$1/day" "$1/day.old"; ln -s "$2" "$1/day"' sh "$STICK_MNT" "$VICTIM"
	kill -CONT "$PID"
	rc=0
	wait "$PID" || rc=$?
	PID=''
	cat "$BATS_TEST_TMPDIR/out"
	((rc != 0))
	grep -q "'$STICK_MNT/day/card'.*a symbolic link is on the way" "$BATS_TEST_TMPDIR/out"
	[[ ! -e $VICTIM/card ]]
	victim_unchanged
}

@test "--beneath: --progress=json says why in a refused event" {
	ln -s "$VICTIM" "$STICK_MNT/l"
	run -2 --separate-stderr safecp -r --progress=json --beneath="$STICK_MNT" "$SRC/card" "$STICK_MNT/l/"
	jq -e -s 'map(select(.event == "refused")) | length == 1 and .[0].kind == "dest-not-beneath"' <<<"$output"
	victim_unchanged
}

@test "--beneath: usage: an empty DIR, and --check refuses it" {
	run -2 --separate-stderr safecp --beneath= "$SRC/card/DCIM/IMG_0002.JPG" "$STICK_MNT"
	[[ $stderr == *"--beneath needs a directory"* ]]
	run -2 --separate-stderr safecp --check="$STICK_MNT" --beneath="$STICK_MNT"
	[[ $stderr == *"--beneath"* ]]
}
