#!/usr/bin/env bats
# tests/bats/cli.bats: behaviour every tool of the suite shares. The long options that
# `TOOL --help` prints are the contract: the man page and both completions must list
# exactly those (kmod's rule). Also --version, the exit code for a bad option, that
# write errors on stdout are reported at exit, the -v/-q rule (the last one counts), the
# shape of messages ("TOOL: ", "TOOL: note: ") and the framing of JSON events (every line
# starts with "event" and "t" with 6 decimals; one error event). Tools not built yet are
# skipped. Nothing here needs root: safeunmount and dirtystat read captured trees.

load helpers

DS_FIX=$SAFECP_SRC/tests/fixtures/dirtystat-usb
SU_FIX=$SAFECP_SRC/tests/fixtures/unmount-system

# help_options TOOL: long options from the option column of --help, one per line.
help_options() {
	"$SAFECP_BUILD/cmd/$1" --help |
		grep -oE '^[[:space:]]+(-[^-[:space:]],[[:space:]]+)?--[[:alnum:]][-[:alnum:]]*' |
		grep -oE -- '--[[:alnum:]][-[:alnum:]]*' | sort -u
}

# file_options FILE: every long option named anywhere in FILE.
file_options() {
	grep -oE -- '--[[:alpha:]][-[:alnum:]]*' "$1" | sort -u
}

need_tool() {
	require_tool "$1"
	HELP_OPTS=$(help_options "$1")
	[ -n "$HELP_OPTS" ] || { echo "'$1 --help' lists no long options" >&2; return 1; }
}

man_page() {
	local f
	for f in "$SAFECP_SRC"/man/"$1".*.scd; do
		[ -f "$f" ] && { echo "$f"; return 0; }
	done
	echo "no man page man/$1.*.scd" >&2
	return 1
}

# same_options TOOL FILE: FILE names each --help option, and none that --help lacks.
same_options() {
	[ -f "$2" ] || { echo "missing: $2" >&2; return 1; }
	local missing extra
	missing=$(comm -23 <(echo "$HELP_OPTS") <(file_options "$2"))
	extra=$(comm -13 <(echo "$HELP_OPTS") <(file_options "$2"))
	[ -z "$missing" ] || { echo "${2#"$SAFECP_SRC"/} lacks:" $missing >&2; return 1; }
	[ -z "$extra" ] || { echo "${2#"$SAFECP_SRC"/} lists options --help does not:" $extra >&2; return 1; }
}

# The man page may name other programs' options (lsblk --sysroot, ...) in prose; it must
# cover --help, and every option on an item line (one starting with *-) must be in --help.
man_covers_help() {
	local page missing extra
	page=$(man_page "$1")
	missing=$(comm -23 <(echo "$HELP_OPTS") <(file_options "$page"))
	[ -z "$missing" ] || { echo "${page#"$SAFECP_SRC"/} lacks:" $missing >&2; return 1; }
	extra=$(comm -13 <(echo "$HELP_OPTS") <(grep -E '^\*-' "$page" |
		grep -oE -- '--[[:alpha:]][-[:alnum:]]*' | sort -u))
	[ -z "$extra" ] || { echo "${page#"$SAFECP_SRC"/} documents options --help does not:" $extra >&2; return 1; }
}

check_version() {
	require_tool "$1"
	local version
	version=$(sed -nE "s/^[[:space:]]*version[[:space:]]*:[[:space:]]*'([^']+)'.*/\1/p" "$SAFECP_SRC/meson.build" | head -n1)
	run "$1" --version
	[ "$status" -eq 0 ]
	[[ $output == *"$version"* ]]
}

check_bad_option() {
	require_tool "$1"
	run --separate-stderr "$1" --no-such-option-xyz
	[ "$status" -eq 2 ]
	[[ $stderr == *"--no-such-option-xyz"* ]]
	[[ $stderr == "$1: "* ]]
	[ -z "$output" ]
}

# TOOL OPTION >/dev/full must fail with a message, not succeed and not die of a signal.
full_fails() {
	local rc=0 err=$BATS_TEST_TMPDIR/full.err
	"$1" "$2" >/dev/full 2>"$err" || rc=$?
	[ "$rc" -ne 0 ] && [ "$rc" -lt 128 ] || { echo "$1 $2 >/dev/full: exit $rc" >&2; return 1; }
	[ -s "$err" ] || { echo "$1 $2 >/dev/full: no message on stderr" >&2; return 1; }
}

check_full() {
	require_tool "$1"
	[ -w /dev/full ] || skip "/dev/full is not available"
	full_fails "$1" --help
	full_fails "$1" --version
}

@test "safecp: man page covers --help" { need_tool safecp; man_covers_help safecp; }
@test "safecp: bash completion lists exactly --help's options" {
	need_tool safecp
	same_options safecp "$SAFECP_SRC/completions/bash/safecp"
}
@test "safecp: zsh completion lists exactly --help's options" {
	need_tool safecp
	same_options safecp "$SAFECP_SRC/completions/zsh/_safecp"
}
@test "safecp: --version" { check_version safecp; }
@test "safecp: unknown option exits 2 naming it" { check_bad_option safecp; }
@test "safecp: write errors on stdout fail the exit status" { check_full safecp; }
# --features is for scripts (examples/offload-card read --help): names and values,
# the values those --help names, and nothing but identifiers.
@test "safecp: --features lists what it can do, a feature a line, as --help names it" {
	require_tool safecp
	local line f v algs
	run --separate-stderr safecp --features
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	while IFS= read -r line; do
		[[ $line =~ ^[a-z][-a-z]*( [a-z0-9][.a-z0-9-]*)*$ ]] ||
			{ echo "not a name and values: '$line'" >&2; return 1; }
	done <<<"$output"
	for f in direct-writes verify mhl skip-identical check udisks-unmount power-off; do
		grep -qx "$f" <<<"$output" || { echo "no line '$f'" >&2; return 1; }
	done
	grep -qxE 'destinations [0-9]+' <<<"$output"
	algs=$(sed -n 's/^checksums //p' <<<"$output")
	[[ $(safecp --help | tr -s ' \n' ' ') == *"${algs// /, } (a comma list)"* ]] ||
		{ echo "--help's --checksum does not list: $algs" >&2; return 1; }
	for v in $(sed -n 's/^pack //p' <<<"$output"); do
		safecp --help | grep -q -- "$v" || { echo "--help's --pack does not name $v" >&2; return 1; }
	done
	[ -w /dev/full ] && full_fails safecp --features
}

@test "safeunmount: man page covers --help" { need_tool safeunmount; man_covers_help safeunmount; }
@test "safeunmount: bash completion lists exactly --help's options" {
	need_tool safeunmount
	same_options safeunmount "$SAFECP_SRC/completions/bash/safeunmount"
}
@test "safeunmount: zsh completion lists exactly --help's options" {
	need_tool safeunmount
	same_options safeunmount "$SAFECP_SRC/completions/zsh/_safeunmount"
}
@test "safeunmount: --version" { check_version safeunmount; }
@test "safeunmount: unknown option exits 2 naming it" { check_bad_option safeunmount; }
@test "safeunmount: write errors on stdout fail the exit status" { check_full safeunmount; }

@test "dirtystat: man page covers --help" { need_tool dirtystat; man_covers_help dirtystat; }
@test "dirtystat: bash completion lists exactly --help's options" {
	need_tool dirtystat
	same_options dirtystat "$SAFECP_SRC/completions/bash/dirtystat"
}
@test "dirtystat: zsh completion lists exactly --help's options" {
	need_tool dirtystat
	same_options dirtystat "$SAFECP_SRC/completions/zsh/_dirtystat"
}
@test "dirtystat: --version" { check_version dirtystat; }
@test "dirtystat: unknown option exits 2 naming it" { check_bad_option dirtystat; }
@test "dirtystat: write errors on stdout fail the exit status" { check_full dirtystat; }

# ---------------------------------------------------------------- -v and -q: the last counts

# rule_documented TOOL: --help says the rule at -v and at -q, and so does the man page.
rule_documented() {
	local page
	[ "$("$1" --help | tr -s ' \n' ' ' | grep -o 'the last of -v and -q counts' | wc -l)" -eq 2 ] ||
		{ echo "'$1 --help' does not state the -v/-q rule at both options" >&2; return 1; }
	page=$(man_page "$1")
	tr -s ' \n\t' ' ' <"$page" | grep -q 'The last of \*-v\* and \*-q\* counts' ||
		{ echo "${page#"$SAFECP_SRC"/} does not state the -v/-q rule" >&2; return 1; }
}

@test "safecp: -v -q is quiet, -q -v verbose: the last one counts" {
	require_tool safecp
	rule_documented safecp
	local d=$BATS_TEST_TMPDIR
	mkdir "$d/src" "$d/dst"
	echo data >"$d/src/f"
	run -0 --separate-stderr safecp --system-disk -v -q --progress=none "$d/src/f" "$d/dst/a"
	[ -z "$output" ] && [ -z "$stderr" ]
	run -0 --separate-stderr safecp --system-disk -q -v --progress=none "$d/src/f" "$d/dst/b"
	[[ $output == *"'$d/src/f' -> '$d/dst/b'"* ]]
	cmp "$d/src/f" "$d/dst/a"
	cmp "$d/src/f" "$d/dst/b"
}

# su_fixture ARGS...: safeunmount on the captured tree, which only checks and says so.
su_fixture() {
	SAFECP_SYSROOT=$SU_FIX "$SAFECP_BUILD/cmd/safeunmount" "$@"
}

@test "safeunmount: -v -q is quiet, -q -v verbose: the last one counts" {
	require_tool safeunmount
	rule_documented safeunmount
	run -0 --separate-stderr su_fixture -v -q /media/stick1
	[ -z "$stderr" ]
	run -0 --separate-stderr su_fixture /media/stick1
	[ "$stderr" = "would unmount '/media/stick1' (SAFECP_SYSROOT is set: nothing is done)" ]
	run -0 --separate-stderr su_fixture -q -v /media/stick1
	[ "${stderr_lines[0]}" = "'/media/stick1' is mounted from '/dev/sdc1' (vfat)" ]
	[[ ${stderr_lines[1]} == "would unmount '/media/stick1'"* ]]
}

@test "dirtystat: -v -q is quiet, -q -v verbose: the last one counts" {
	require_tool dirtystat
	rule_documented dirtystat
	local root=$BATS_TEST_TMPDIR/nodebugfs
	cp -a "$DS_FIX" "$root"
	rm -r "$root/sys/kernel/debug"
	# quiet: no note; normal rows only (an estimate singles out no device but the stick)
	run -0 --separate-stderr dirtystat --sysroot "$root" -v -q
	[ -z "$stderr" ]
	[[ $output == *sdb* && $output != *sda* ]]
	# verbose: the note, and every device, the internal disk with nothing pending too
	run -0 --separate-stderr dirtystat --sysroot "$root" -q -v
	[[ $stderr == "dirtystat: note: debugfs bdi stats are not readable"* ]]
	[[ $output == *sdb* && $output == *sda* ]]
}

# ---------------------------------------------------------------- messages and JSON events

# framed LINES: every line is {"event":"NAME","t":SECONDS with 6 decimals, ...}.
framed() {
	local line n=0
	while IFS= read -r line; do
		n=$((n + 1))
		[[ $line =~ ^\{\"event\":\"[a-z-]+\",\"t\":[0-9]+\.[0-9]{6}[,}] ]] ||
			{ echo "not framed: $line" >&2; return 1; }
	done <<<"$1"
	((n > 0))
}

# error_events LINES TOOL STDERR: each error event has the shared fields, and its message
# is the tool's line on stderr without "TOOL: ".
error_events() {
	jq -se --arg tool "$2: " --arg err "$3" '
		map(select(.event == "error")) | length > 0 and all(
			((has("path") and (has("device") | not)) or (has("device") and (has("path") | not)))
			and has("errno") and has("errno_name") and has("error")
			and ((.errno == null) == (.errno_name == null))
			and ((.errno == null) == (.error == null))
			and (.message | type == "string")
			and (.message as $m | $err | split("\n") | any(.[]; . == $tool + $m)))' <<<"$1"
}

@test "dirtystat --json: reading and error events, framed like the other tools'" {
	require_tool dirtystat
	require_cmd jq
	run -0 --separate-stderr dirtystat --json --sysroot "$DS_FIX" --watch=0.05 --count=2
	framed "$output"
	jq -se 'length == 2 and all(.event == "reading")' <<<"$output"
	run -2 --separate-stderr dirtystat --json /nonexistent/x
	framed "$output"
	error_events "$output" dirtystat "$stderr"
	jq -e '.path == "/nonexistent/x" and .errno == 2 and .errno_name == "ENOENT"' <<<"$output"
	[ "$stderr" = "dirtystat: cannot access '/nonexistent/x': No such file or directory" ]
}

@test "safeunmount --progress=json: events framed like the other tools', the shared error event" {
	require_tool safeunmount
	require_cmd jq
	run -2 --separate-stderr safeunmount --progress=json /nonexistent/x
	framed "$output"
	error_events "$output" safeunmount "$stderr"
	jq -se '.[0] | .event == "error" and .path == "/nonexistent/x" and .errno_name == "ENOENT"
		and .step == null' <<<"$output"
	jq -se '.[-1].event == "done"' <<<"$output"
	# a refusal: no system call failed, so no errno
	run -2 --separate-stderr safeunmount --progress=json /
	framed "$output"
	error_events "$output" safeunmount "$stderr"
	jq -se '.[0] | .errno == null and .path == "/"' <<<"$output"
}

@test "safecp --progress=json: events framed like the other tools', the shared error event" {
	require_tool safecp
	require_cmd jq
	local d=$BATS_TEST_TMPDIR
	mkdir "$d/dst"
	echo data >"$d/f"
	# /proc/self/mem cannot be read at offset 0 (EIO): one error, the rest is copied
	run -1 --separate-stderr safecp --system-disk --progress=json /proc/self/mem "$d/f" "$d/dst/"
	framed "$output"
	error_events "$output" safecp "$stderr"
	jq -se 'map(select(.event == "error"))[0] | .path == "/proc/self/mem" and .errno == 5
		and .errno_name == "EIO" and .step == "read" and .fatal == false' <<<"$output"
}

@test "messages: 'TOOL: ' before an error, 'TOOL: note: ' before a note" {
	require_tool dirtystat
	require_tool safeunmount
	require_tool safecp
	local root=$BATS_TEST_TMPDIR/nodebugfs
	run -2 --separate-stderr dirtystat /nonexistent/x
	[[ $stderr == "dirtystat: cannot access '/nonexistent/x': "* ]]
	run -2 --separate-stderr safeunmount /nonexistent/x
	[[ $stderr == "safeunmount: cannot access '/nonexistent/x': "* ]]
	run -2 --separate-stderr safecp /nonexistent/x "$BATS_TEST_TMPDIR/"
	[[ $stderr == "safecp: cannot stat '/nonexistent/x': "* ]]
	cp -a "$DS_FIX" "$root"
	rm -r "$root/sys/kernel/debug"
	run -0 --separate-stderr dirtystat --sysroot "$root"
	[[ $stderr == "dirtystat: note: debugfs bdi stats are not readable"* ]]
}
