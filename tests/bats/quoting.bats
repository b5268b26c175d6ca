#!/usr/bin/env bats
# tests/bats/quoting.bats: hostile names (escape sequences, BEL, newlines, C1 controls as
# UTF-8 and as raw bytes, bytes that are not UTF-8, a right-to-left override, a quote)
# through the real binaries: every human-readable line shows them quoted (cmd/quote.h),
# with no control byte reaching the terminal, and bash turns each printed name back into
# its exact bytes; JSON keeps the exact name and adds *_b64 for one that is not UTF-8.
#
# The copies run on plain directories and need no root; the unreadable file (as
# nobody), safeunmount's busy list and the stale temporary use sticks and root.

load helpers
load safecp_common

# The names every tree holds; none ends in a newline or holds ": " or " -> ", which the
# parsing below splits on.
NAMES=(
	$'esc\e[31mred' $'bel\a' $'new\nline' $'c1\xc2\x9bx' $'raw\x9bx' $'bad\xffname'
	$'rlo\xe2\x80\xaetxt.exe' "it's" $'osc\e]0;title\a'
)

setup() {
	require_tool safecp
	T=$BATS_TEST_TMPDIR
	SRC=$T/src
	DST=$T/dst
	mkdir -p "$SRC" "$DST"
	SU_KILL=
}

teardown() {
	local p
	for p in ${SU_KILL-}; do
		kill "$p" 2>/dev/null && wait "$p" 2>/dev/null
	done
	stick_down_all
}

# hostile_tree DIR: a file of each name, and a directory of one holding another.
hostile_tree() {
	local n
	for n in "${NAMES[@]}"; do
		printf '%s' "$n" >"$1/$n"
	done
	mkdir "$1/dir"$'\e[2J'
	printf x >"$1/dir"$'\e[2J'/$'in\nside'
}

# assert_clean FILE: no C0 byte but the newline ending each line, no DEL, valid UTF-8
# (so no raw 0x9b or 0xff), no C1 control as UTF-8, no bidi or invisible control.
assert_clean() {
	if LC_ALL=C grep -naP '[\x00-\x09\x0b-\x1f\x7f]' "$1" >"$1.bad"; then
		cat -v "$1.bad" >&2
		echo "control bytes in $1" >&2
		return 1
	fi
	if ! iconv -f UTF-8 -t UTF-8 "$1" >/dev/null; then
		echo "$1 is not valid UTF-8" >&2
		return 1
	fi
	if LC_ALL=C grep -naP '\xc2[\x80-\x9f]|\xe2\x80[\x8b-\x8f\xa8-\xae]|\xe2\x81[\xa0-\xaf]|\xef\xbb\xbf' \
		"$1" >"$1.bad"; then
		cat -v "$1.bad" >&2
		echo "C1 or bidi controls in $1" >&2
		return 1
	fi
}

# unquote WORD: sets GOT to what bash makes of a printed, quoted name.
unquote() {
	GOT=
	eval "printf -v GOT %s $1"
}

# assert_seen PREFIX: every name of hostile_tree under PREFIX is a key of SEEN.
assert_seen() {
	local n
	for n in "${NAMES[@]}" "dir"$'\e[2J' "dir"$'\e[2J'/$'in\nside'; do
		[[ -n ${SEEN["$1/$n"]-} ]] || { printf 'not named: %q\n' "$1/$n" >&2; return 1; }
	done
}

@test "safecp -v: each name quoted, no control byte out, bash gives back the exact names" {
	local line s d
	declare -A SEEN=()
	hostile_tree "$SRC"
	safecp --system-disk -r -v --progress=none "$SRC" "$DST" >"$T/out" 2>"$T/err"
	assert_clean "$T/out"
	assert_clean "$T/err"
	while IFS= read -r line; do
		[[ $line == *" -> "* ]] || continue
		unquote "${line%% -> *}"
		s=$GOT
		unquote "${line#* -> }"
		d=$GOT
		[[ ${d#"$DST/src"} == "${s#"$SRC"}" ]] || { printf 'wrong pair %q %q\n' "$s" "$d" >&2; false; }
		SEEN[$s]=1
	done <"$T/out"
	assert_seen "$SRC"
	tree_digest "$SRC" >"$T/src.digest"
	tree_digest "$DST/src" >"$T/dst.digest"
	diff "$T/src.digest" "$T/dst.digest" | cat -v
	cmp -s "$T/src.digest" "$T/dst.digest"
}

@test "safecp -v: a quote is written as '\\'' and a plain name as before" {
	printf x >"$SRC/it's"
	printf x >"$SRC/plain"
	run -0 safecp --system-disk -v --progress=none "$SRC/it's" "$SRC/plain" "$DST"
	[[ $output == *"'$SRC/it'\\''s' -> '$DST/it'\\''s'"* ]]
	[[ $output == *"'$SRC/plain' -> '$DST/plain'"* ]]
}

@test "-n -v: the kept line quotes both names" {
	local name=$'kept\e[5m\n\x9b' line
	printf new >"$SRC/$name"
	printf old >"$DST/$name"
	safecp --system-disk -n -v --progress=none "$SRC/$name" "$DST" >"$T/out" 2>"$T/err"
	assert_clean "$T/out"
	[[ $(grep -c " kept: " "$T/out") -eq 1 ]]
	line=$(grep -a " kept: " "$T/out")
	unquote "${line%% kept: *}"
	[[ $GOT == "$SRC/$name" ]]
	line=${line#* kept: }
	unquote "${line% exists}"
	[[ $GOT == "$DST/$name" ]]
	[[ $(<"$DST/$name") == old ]]
}

@test "--dry-run -v: the plan names each entry quoted; bash gives back the names" {
	local line
	declare -A SEEN=()
	hostile_tree "$SRC"
	safecp --system-disk -r -v --dry-run "$SRC" "$DST" >"$T/out" 2>"$T/err"
	assert_clean "$T/out"
	assert_clean "$T/err"
	while IFS= read -r line; do
		[[ $line == "  file "* || $line == "  dir "* ]] || continue
		unquote "${line##* -> }"
		SEEN[$GOT]=1
	done <"$T/out"
	assert_seen "$DST/src"
	[[ -z $(ls -A "$DST") ]]
}

@test "a warning (a FIFO skipped) quotes its name" {
	local name=$SRC/$'fifo\e[2J\r\x9b'
	mkfifo "$name"
	safecp --system-disk --progress=none "$name" "$DST" >"$T/out" 2>"$T/err"
	cat -v "$T/err"
	assert_clean "$T/err"
	[[ $(wc -l <"$T/err") -eq 1 ]]
	line=$(<"$T/err")
	line=${line#"safecp: warning: skipping "}
	unquote "${line%%: *}"
	[[ $GOT == "$name" ]]
}

@test "an error (a missing source) quotes its name" {
	local name=$SRC/$'gone\e[31m\n\xc2\x9b'
	run -2 --separate-stderr safecp --system-disk "$name" "$DST"
	printf '%s\n' "$stderr" >"$T/err"
	assert_clean "$T/err"
	[[ ${#stderr_lines[@]} -eq 1 ]]
	line=${stderr#"safecp: cannot stat "}
	unquote "${line%": No such file or directory"}"
	[[ $GOT == "$name" ]]
}

@test "an error in the copy (unreadable, as nobody) quotes its name" {
	require_root
	require_cmd setpriv
	stick_up --size 64
	local name=$STICK_MNT/src/$'secret\e[8m\x9b'
	mkdir "$STICK_MNT/src" "$STICK_MNT/dst"
	printf x >"$STICK_MNT/src/ok"
	printf x >"$name"
	chmod 0644 "$STICK_MNT/src/ok"
	chmod 0000 "$name"
	chown nobody "$STICK_MNT/dst"
	run -1 --separate-stderr setpriv --reuid=nobody --regid=nogroup --clear-groups \
		"$SAFECP_BUILD/cmd/safecp" -r --progress=none "$STICK_MNT/src" "$STICK_MNT/dst"/
	printf '%s\n' "$stderr" >"$T/err"
	cat -v "$T/err"
	assert_clean "$T/err"
	line=$(grep -a "cannot read" "$T/err")
	line=${line#"safecp: cannot read "}
	unquote "${line%": Permission denied, skipping"}"
	[[ $GOT == "$name" ]]
	cmp "$STICK_MNT/src/ok" "$STICK_MNT/dst/src/ok"
}

@test "a note (a stale temporary removed) quotes its path" {
	local dir=$DST/src/$'d\e[1m\nx' line
	mkdir -p "$SRC/"$'d\e[1m\nx' "$dir"
	printf x >"$SRC/"$'d\e[1m\nx/f'
	# PID 99999999 is above any pid_max: a copy that died
	printf 'stale' >"$dir/.safecp-99999999-1.tmp"
	safecp --system-disk -r --progress=none "$SRC" "$DST" >"$T/out" 2>"$T/err"
	cat -v "$T/err"
	assert_clean "$T/err"
	line=$(grep -a "temporary file" "$T/err")
	line=${line#"safecp: note: "}
	unquote "${line%%": removed a temporary file"*}"
	[[ $GOT == "$dir/.safecp-99999999-1.tmp" ]]
	[[ ! -e $dir/.safecp-99999999-1.tmp ]]
}

@test "--progress=json: exact names; file_b64 holds the bytes of a name that is not UTF-8" {
	require_cmd jq
	local n
	hostile_tree "$SRC"
	safecp --system-disk -r --progress=json "$SRC" "$DST" >"$T/events" 2>"$T/err"
	assert_clean "$T/events"
	jq -e . "$T/events" >/dev/null
	for n in "${NAMES[@]}"; do
		[[ $n == $'bad\xffname' || $n == $'raw\x9bx' ]] && continue
		# valid UTF-8: the string itself is exact, and no source_b64
		jq -se --arg f "$SRC/$n" 'map(select(.event == "file" and .state == "finished" and
			.source == $f)) | length == 1 and (.[0] | has("source_b64") | not)' "$T/events"
	done
	# decode every source_b64 and find the exact names among them
	local got=0 b
	while IFS= read -r b; do
		printf '%s' "$b" | base64 -d >"$T/name"
		for n in $'bad\xffname' $'raw\x9bx'; do
			printf '%s' "$SRC/$n" | cmp -s - "$T/name" && got=$((got + 1))
		done
	done < <(jq -r 'select(.event == "file" and .state == "finished" and .source_b64 != null)
		| .source_b64' "$T/events")
	[[ $got -eq 2 ]]
	# the lossy string beside it: U+FFFD for the bad byte; file is relative, "src/..."
	jq -se 'map(select(.event == "file" and .state == "finished" and
		.file == "src/bad\ufffdname")) | length == 1 and .[0].file_b64 == "c3JjL2JhZP9uYW1l"' \
		"$T/events"
}

@test "safeunmount's busy list: a comm with ESC and BEL, an fd target with a newline" {
	require_root
	require_tool safeunmount
	require_cmd jq
	stick_up --size 64
	local path=$STICK_MNT/$'open\nfile\e[2J' comm=$'\e]0;x\a' bad=$STICK_MNT/$'bad\xff' line rest pid
	printf x >"$path"
	printf x >"$bad"
	mkfifo "$T/hold"
	# only a process itself may set its comm: a bash that holds the files open, names
	# itself, then waits in the read builtin (no child to inherit the descriptors)
	bash -c 'exec 3<"$1" 5<"$4" 4<>"$2"; printf %s "$3" >/proc/self/comm; read -r -u 4' _ \
		"$path" "$T/hold" "$comm" "$bad" &
	pid=$!
	SU_KILL=$pid
	wait_for 5 grep -qF "$comm" "/proc/$pid/comm"
	run -3 --separate-stderr safeunmount "$STICK_MNT"
	printf '%s\n' "$stderr" >"$T/err"
	cat -v "$T/err"
	assert_clean "$T/err"
	line=$(grep -a "^  pid $pid (.*): open file '$STICK_MNT/open'" "$T/err")
	rest=${line#"  pid $pid ("}
	unquote "${rest%%"): open file "*}"
	[[ $GOT == "$comm" ]]
	unquote "${rest#*"): open file "}"
	[[ $GOT == "$path" ]]

	run -3 --separate-stderr safeunmount --progress=json "$STICK_MNT"
	printf '%s\n' "$output" >"$T/events"
	assert_clean "$T/events"
	jq -se --argjson p "$pid" --arg c "$comm" --arg f "$path" 'map(select(.event == "busy"))
		| length == 1 and (.[0].holders | any(.pid == $p and .command == $c and .path == $f))' \
		"$T/events"
	# the name that is not UTF-8: lossy path, exact path_b64
	[[ $(jq -r 'select(.event == "busy") | .holders[] | .path_b64 // empty' "$T/events" |
		base64 -d | od -An -tx1) == $(printf '%s' "$bad" | od -An -tx1) ]]
}

@test "dirtystat FILE: a C1 name is quoted in the table and exact in JSON" {
	require_tool dirtystat
	require_cmd jq
	local f=$T/$'c1\xc2\x9bname' b=$T/$'bad\xff' line
	printf x >"$f"
	printf x >"$b"
	run -0 dirtystat "$f"
	printf '%s\n' "$output" >"$T/out"
	cat -v "$T/out"
	assert_clean "$T/out"
	line=$(grep -a "^'$T/c1'" "$T/out")
	unquote "${line%% *}"
	[[ $GOT == "$f" ]]

	run -0 dirtystat --json "$f" "$b"
	printf '%s\n' "$output" >"$T/json"
	assert_clean "$T/json"
	jq -e --arg f "$f" '.files[0] | .path == $f and (has("path_b64") | not)' "$T/json"
	[[ $(jq -r '.files[1].path_b64' "$T/json" | base64 -d | od -An -tx1) == \
		$(printf '%s' "$b" | od -An -tx1) ]]
}

# refused_quoted FS: names FS refuses (control bytes, not UTF-8), each refusal and
# rename quoted.
refused_quoted() {
	local esc=$'a\e[31mb' bad=$'caf\xe9' line
	mkdir "$SRC/d"
	printf x >"$SRC/d/$esc"
	printf y >"$SRC/d/$bad"
	stick_up --fs "$1" --rate 0 --size 64
	run -2 --separate-stderr safecp -r "$SRC/d" "$STICK_MNT/"
	printf '%s\n' "$stderr" >"$T/err"
	assert_clean "$T/err"
	[[ $(grep -c "^safecp: cannot copy" "$T/err") == 2 ]]
	line=$(grep "control character" "$T/err")
	unquote "$(sed -E "s/^safecp: cannot copy (.*) to .*/\1/" <<<"$line")"
	[[ $GOT == "$SRC/d/$esc" ]]
	# the renames are named the same way
	safecp -r --rename-invalid --progress=none "$SRC/d" "$STICK_MNT/" >"$T/out" 2>"$T/err"
	assert_clean "$T/err"
	grep -q "is written as" "$T/err"
}

@test "names exFAT refuses (control bytes, not UTF-8): each refusal and rename is quoted" {
	require_root
	require_cmd mount.exfat-fuse
	refused_quoted exfat
}

@test "names FAT32 refuses (control bytes, not UTF-8): each refusal and rename is quoted" {
	require_root
	require_cmd fusefat
	refused_quoted fat32
}

@test "names NTFS refuses (control bytes, not UTF-8): each refusal and rename is quoted" {
	require_root
	require_cmd ntfs-3g
	refused_quoted ntfs
}
