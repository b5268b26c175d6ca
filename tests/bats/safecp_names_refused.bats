#!/usr/bin/env bats
# tests/bats/safecp_names_refused.bats: names a stick cannot hold refuse the whole copy
# (issue 25 item 2); the words must say so: nothing was copied, how many names, how to go
# on, and no more than ten of them one by one.

load helpers
load safecp_common

setup() {
	require_tool safecp
	require_root
	SRC=$BATS_TEST_TMPDIR/src
	mkdir -p "$SRC/mixed"
	for i in 1 2 3 4 5; do make_file "$SRC/mixed/IMG_000$i.JPG" 3000; done
	stick_up --fs exfat --rate 0 --size 64
}

@test "one name exFAT cannot hold: its line, then that nothing was copied and what to do" {
	make_file "$SRC/mixed/notes 12:00.txt" 10
	run -2 --separate-stderr safecp -r "$SRC/mixed" "$STICK_MNT"/
	echo "$stderr"
	[[ $stderr == *"cannot copy '$SRC/mixed/notes 12:00.txt'"*"exFAT does not allow ':'"* ]]
	[[ ${stderr##*$'\n'} == "safecp: nothing was copied to '$STICK_MNT/': 1 name exFAT cannot hold (see above); rename it, or use --rename-invalid to give it names it can hold" ]]
	[[ -z $(ls -A "$STICK_MNT") ]]
}

@test "many names: ten shown, a count of the rest, every one in JSON" {
	local i
	for i in $(seq -w 1 14); do make_file "$SRC/mixed/clip $i?.mov" 10; done
	run -2 --separate-stderr safecp -r "$SRC/mixed" "$STICK_MNT"/
	echo "$stderr"
	[ "$(grep -c "does not allow '?'" <<<"$stderr")" -eq 10 ]
	grep -qx "safecp: ... and 4 more like these (--progress=json lists every one)" <<<"$stderr"
	[[ ${stderr##*$'\n'} == "safecp: nothing was copied to '$STICK_MNT/': 14 names exFAT cannot hold (see above); rename them, or use --rename-invalid to give them names it can hold" ]]
	run -2 safecp -r --progress=json "$SRC/mixed" "$STICK_MNT"/
	[ "$(jq -R -c 'fromjson? | select(.event == "refused" and .kind == "name-invalid")' <<<"$output" | wc -l)" -eq 14 ]
	[[ -z $(ls -A "$STICK_MNT") ]]
}
