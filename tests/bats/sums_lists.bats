#!/usr/bin/env bats
# tests/bats/sums_lists.bats: checksum lists made by lib/hash (checksum.h, sums_list.h)
# through tests/sums_lines, checked by the tools users check them with: xxhsum 0.8.1
# -c for xxh128, xxh3 and xxh64, and coreutils' sha256sum, sha1sum and md5sum -c, over
# names with spaces, quotes, non-ASCII, bytes that are not UTF-8, a tab, a backslash, a
# newline and a CR. The lists must also be byte for byte what the tools write
# themselves, and the tools' own lists must read back (sums_line_parse) as the names and
# digests they were made of. No root: plain files in the test's own directory.

load helpers

# The tree, relative to $D. The last three cannot be in an xxHash list (xxhsum 0.8.1
# escapes nothing); coreutils' lists hold them escaped.
LISTABLE=(
	'a b' "it's \"q\"" $'caf\xc3\xa9 \xc3\xbc' $'bad\xffname' ' lead' 'trail ' '*star'
	'-dash' 'd ir/(p) = q' 'XXH3 (x) = 1' $'tab\tx' 'sub/dir/big' empty
)
UNLISTABLE=('back\slash' $'new\nline' $'cr\rx')
ALGS=(xxh128 xxh3 xxh64 sha256 sha1 md5)

setup() {
	SUMS=$SAFECP_BUILD/tests/sums_lines
	[[ -x $SUMS ]] || skip "tests/sums_lines is not built in $SAFECP_BUILD"
	require_cmd xxhsum
	D=$BATS_TEST_TMPDIR/dest
	mkdir -p "$D/d ir" "$D/sub/dir"
	NAMES=("${LISTABLE[@]}" "${UNLISTABLE[@]}")
	local i=0 n
	for n in "${NAMES[@]}"; do
		i=$((i + 1))
		printf 'file %d: %s\n' "$i" "$n" >"$D/$n"
	done
	: >"$D/empty"
	# 3 MiB and a bit: the helper reads it in 1 MiB and 4097-byte pieces
	head -c $((3 * 1024 * 1024 + 5)) /dev/urandom >"$D/sub/dir/big"
	cd "$D"
	# one pass over each file for all six lists, as the reader's tap does
	run "$SUMS" "$(IFS=,; echo "${ALGS[*]}")" lists "${NAMES[@]}"
	[ "$status" -eq 0 ]
	LEFT_OUT=$output
}

# checker ALG: the command that checks ALG's list
checker() {
	case $1 in
	xxh*) echo xxhsum ;;
	*) echo "${1}sum" ;;
	esac
}

@test "every list passes its tool's check with every name it holds" {
	local alg
	for alg in "${ALGS[@]}"; do
		run "$(checker "$alg")" --strict -c "lists.$alg"
		echo "$alg: $output"
		[ "$status" -eq 0 ]
		case $alg in
		xxh*) [ "$(grep -c ': OK$' <<<"$output")" -eq "${#LISTABLE[@]}" ] ;;
		# coreutils prints an escaped name escaped again ("\new\nline: OK")
		*) [ "$(grep -c ': OK$' <<<"$output")" -eq "${#NAMES[@]}" ] ;;
		esac
	done
}

@test "a name with a backslash, newline or CR is left out of each xxHash list, and only there" {
	local alg want='' i
	for i in 14 15 16; do
		for alg in xxh128 xxh3 xxh64; do
			want+="left out of $alg: argument $i"$'\n'
		done
	done
	echo "$LEFT_OUT"
	[ "$LEFT_OUT" = "${want%$'\n'}" ]
	[ "$(wc -l <lists.xxh128)" -eq "${#LISTABLE[@]}" ]
	[ "$(wc -l <lists.sha256)" -eq "${#NAMES[@]}" ]
}

@test "the lists are what xxhsum and coreutils write themselves" {
	xxhsum -H2 -- "${LISTABLE[@]}" >theirs.xxh128 2>/dev/null
	xxhsum -H3 -- "${LISTABLE[@]}" >theirs.xxh3 2>/dev/null
	xxhsum -H1 -- "${LISTABLE[@]}" >theirs.xxh64 2>/dev/null
	sha256sum -- "${NAMES[@]}" >theirs.sha256
	sha1sum -- "${NAMES[@]}" >theirs.sha1
	md5sum -- "${NAMES[@]}" >theirs.md5
	local alg
	for alg in "${ALGS[@]}"; do
		cmp "lists.$alg" "theirs.$alg"
	done
}

@test "a byte changed after listing fails every check" {
	local alg old new=X
	# the bytes are random: one that is already X (1 run in 256) becomes Y
	old=$(dd if="sub/dir/big" bs=1 skip=2097152 count=1 status=none | od -An -c | tr -d ' ')
	[[ $old == X ]] && new=Y
	printf %s "$new" | dd of="sub/dir/big" bs=1 seek=2097152 conv=notrunc status=none
	for alg in "${ALGS[@]}"; do
		run "$(checker "$alg")" -c "lists.$alg"
		echo "$alg: $output"
		[ "$status" -eq 1 ]
		grep -q '^sub/dir/big: FAILED$' <<<"$output"
	done
}

@test "the lists the tools write read back to the same lines" {
	xxhsum -H2 -- "${LISTABLE[@]}" >theirs.xxh128 2>/dev/null
	xxhsum -H3 -- "${LISTABLE[@]}" >theirs.xxh3 2>/dev/null
	xxhsum -H1 -- "${LISTABLE[@]}" >theirs.xxh64 2>/dev/null
	sha256sum -- "${NAMES[@]}" >theirs.sha256
	sha1sum -- "${NAMES[@]}" >theirs.sha1
	md5sum -- "${NAMES[@]}" >theirs.md5
	local alg
	for alg in "${ALGS[@]}"; do
		"$SUMS" -r "$alg" "theirs.$alg" >again
		cmp again "theirs.$alg"
	done
	# the binary-mode star (sha256sum -b writes it) and upper-case hex read back too
	sed 's/^\([0-9a-f]*\)  /\U\1 */' theirs.sha256 >star.sha256
	sha256sum --strict -c star.sha256
	"$SUMS" -r sha256 star.sha256 >again
	cmp again lists.sha256
}
