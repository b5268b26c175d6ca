#!/usr/bin/env bats
# tests/bats/api_clients.bats: libsafecp as a program that is not ours meets it: the
# build dir installed into a temporary DESTDIR (no rebuild), examples/api/copy-one.c
# compiled against the installed headers, .so and safecp.pc alone with a client's
# strict flags, and examples/api/copy-one.py run with python3 and ctypes on the
# installed libsafecp.so.1. Both copy files onto a stick with a line of progress a
# second that counts only what the device confirmed, are refused as safecp refuses
# (a destination on the system disk or no disk: exit 2 naming the kind), and stop on
# SIGINT with exit 130, nothing partial under a final name.

load helpers
load safecp_common

setup_file() {
	local root=$BATS_FILE_TMPDIR/root flags libdir san
	meson install -C "$SAFECP_BUILD" --no-rebuild --quiet --destdir "$root" >/dev/null 2>&1 || return 0
	libdir=$(dirname "$(find "$root" -name libsafecp.so.1 -print -quit)")
	export API_LIBDIR=$libdir
	export PKG_CONFIG_PATH=$libdir/pkgconfig PKG_CONFIG_SYSROOT_DIR=$root
	flags=$(pkg-config --cflags --libs safecp) || return 0
	# a sanitized library (tests/run --sanitize) needs its runtime first in the program:
	# the C client is linked with it, python3 gets it preloaded
	san=$(meson introspect --buildoptions "$SAFECP_BUILD" |
		python3 -c 'import json,sys; print([o["value"] for o in json.load(sys.stdin) if o["name"] == "b_sanitize"][0])')
	[[ $san == none ]] || flags+=" -fsanitize=$san"
	export API_PRELOAD=
	[[ $san == none ]] || API_PRELOAD=$(ldd "$libdir/libsafecp.so.1" | awk '/libasan/ { print $3 }')
	# shellcheck disable=SC2086
	cc -std=c99 -Wall -Wextra -Werror -pedantic -o "$BATS_FILE_TMPDIR/copy-one" \
		"$SAFECP_SRC/examples/api/copy-one.c" $flags >"$BATS_FILE_TMPDIR/cc.log" 2>&1 || true
}

setup() {
	require_root
	require_cmd python3
	[[ -x $BATS_FILE_TMPDIR/copy-one ]] || {
		cat "$BATS_FILE_TMPDIR/cc.log" >&2
		false
	}
	SRC=$BATS_TEST_TMPDIR/src
	mkdir -p "$SRC"
	make_file "$SRC/a.jpg" 300000
	make_file "$SRC/b.mov" $((6 * MIB + 3))
	make_file "$SRC/c.txt" 1
}

# client c|py ARGS...: the example, on the installed library only; exec, so that a
# client started with & is the process $! names
client() {
	if [[ $1 == c ]]; then
		shift
		LD_LIBRARY_PATH=$API_LIBDIR exec "$BATS_FILE_TMPDIR/copy-one" "$@"
	else
		shift
		# (python3 itself leaks what LeakSanitizer would report at its exit)
		SAFECP_LIB=$API_LIBDIR/libsafecp.so.1 LD_PRELOAD=$API_PRELOAD \
			ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
			exec python3 "$SAFECP_SRC/examples/api/copy-one.py" "$@"
	fi
}

# progress_honest OUT TOTAL: every line "N of T bytes on the device, F files" with N
# never above T and never going back, and the last one the whole copy
progress_honest() {
	awk -v total="$2" '
		!/^[0-9]+ of [0-9]+ bytes on the device, [0-9]+ files(, syncing)?$/ { print "bad line: " $0; bad = 1 }
		{ if ($1 > $3 || $1 < last) { print "not honest: " $0; bad = 1 }; last = $1; n++; final = $0 }
		END {
			if (n < 2) { print n " progress lines"; bad = 1 }
			if (final !~ "^" total " of " total " bytes on the device, 3 files") { print "last: " final; bad = 1 }
			exit bad
		}' "$1"
}

copies_onto_a_stick() {
	stick_up --size 64 --rate $((4 * MIB))
	local out=$BATS_TEST_TMPDIR/out total
	total=$(cat "$SRC"/* | wc -c)
	(client "$1" "$SRC/a.jpg" "$SRC/b.mov" "$SRC/c.txt" "$STICK_MNT") >"$out"
	cat "$out"
	progress_honest "$out" "$total"
	for f in a.jpg b.mov c.txt; do cmp "$SRC/$f" "$STICK_MNT/$f"; done
	assert_no_temporaries "$STICK_MNT"
	# nothing left to write when it returned (the bdi counters are per-cpu sums)
	(($(stick_pending_bytes "$STICK_MAJMIN") <= $(percpu_slack)))
}

refuses_the_system_disk() {
	local dir=$BATS_TEST_TMPDIR/not-a-stick rc=0
	mkdir -p "$dir"
	(client "$1" "$SRC/c.txt" "$dir") 2>"$BATS_TEST_TMPDIR/err" || rc=$?
	cat "$BATS_TEST_TMPDIR/err"
	((rc == 2))
	grep -qE '^copy-one: refused \((system-disk|no-disk)\): ' "$BATS_TEST_TMPDIR/err"
	[[ -z $(ls -A "$dir") ]]
}

stops_on_sigint() {
	stick_up --size 64 --rate $((2 * MIB))
	local out=$BATS_TEST_TMPDIR/out pid rc=0
	make_file "$SRC/big.mov" $((24 * MIB))
	client "$1" "$SRC/big.mov" "$STICK_MNT" >"$out" &
	pid=$!
	wait_for 30 grep -qE '^[1-9][0-9]* of' "$out"
	kill -INT "$pid"
	wait "$pid" || rc=$?
	cat "$out"
	((rc == 130))
	[[ ! -e $STICK_MNT/big.mov ]]
	assert_no_temporaries "$STICK_MNT"
}

@test "copy-one.c, built from the installed headers and pkg-config: honest progress, files on the stick, nothing left to write" {
	copies_onto_a_stick c
}

@test "copy-one.py through ctypes: the same" {
	copies_onto_a_stick py
}

@test "copy-one.c and copy-one.py refuse a destination that is not a stick, as safecp does (exit 2)" {
	refuses_the_system_disk c
	refuses_the_system_disk py
}

@test "copy-one.c on SIGINT: exit 130, nothing partial under a final name" {
	stops_on_sigint c
}

@test "copy-one.py on SIGINT: exit 130, nothing partial under a final name" {
	stops_on_sigint py
}
