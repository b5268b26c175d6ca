#!/usr/bin/env bats
# tests/bats/safecp_kill.bats: safecp killed with SIGKILL at random instants, drawn from a
# printed seed, on a throttled stick of each filesystem (ext4, exfat-fuse, fusefat,
# ntfs-3g). After each kill the image is looked at afresh (stick_reattach: new loop
# device, journal replayed, fsck, mounted again): fsck-clean, no partial file under a
# final name, and a rerun completes the copy. (Apart from safecp_faults.bats so that
# tests/run's two lanes stay even: together they were a third of the plain pass.)
#
# SAFECP_KILL_ROUNDS sets the rounds per filesystem (10, fat32 and ntfs 4; 5 and 3 under
# tests/run --sanitize: each CI run draws new instants, and bench/killnine runs 100);
# SAFECP_KILL_SEED replays a seed.

load helpers
load safecp_common

setup() {
	require_tool safecp
	require_root
	SRC=$BATS_TEST_TMPDIR/src
	ERR=$BATS_TEST_TMPDIR/err
	mkdir -p "$SRC/t"
}

teardown() {
	[[ -n ${SAFECP_PID-} ]] && { kill -9 "$SAFECP_PID" 2>/dev/null; wait "$SAFECP_PID" 2>/dev/null; }
	stick_down_all
}

# kill_rounds FS [ROUNDS]: safecp of a small tree killed at random instants (from a printed
# seed) on a throttled stick; after each kill the image is fsck-clean, holds only
# complete files under final names, and a rerun completes the copy. The instants are
# spread over 1.2 times what one whole copy took here (measured first, so a slower
# build, such as the sanitizers', is covered alike).
# ROUNDS (default: SAFECP_KILL_ROUNDS) for the rows added later, which cost suite time.
kill_rounds() {
	local rounds=${2:-${SAFECP_KILL_ROUNDS:-$( ((${SAFECP_SANITIZE:-0})) && echo 5 || echo 10)}}
	local seed=${SAFECP_KILL_SEED:-$((($$ * 7919 + ${EPOCHSECONDS:-0}) % 32768))}
	local round delay i t0 span_ms finals temps
	echo "kill -9 rounds: $rounds, seed $seed (SAFECP_KILL_SEED=$seed replays them)"
	RANDOM=$seed
	stick_up --fs "$1" --size 64 --rate $((8 * MIB))
	for i in 1 2 3 4 5 6 7 8; do make_file "$SRC/t/s$i" $((100 * 1024 + i)); done
	mkdir "$SRC/t/d"
	for i in 1 2; do make_file "$SRC/t/d/big$i" $((2 * MIB + i)); done
	t0=${EPOCHREALTIME/./}
	safecp -r "$SRC/t" "$STICK_MNT"/
	span_ms=$(((${EPOCHREALTIME/./} - t0) * 12 / 10000 + 1))
	echo "a whole copy: $((span_ms * 10 / 12)) ms; kills within $span_ms ms"
	for ((round = 1; round <= rounds; round++)); do
		rm -rf "${STICK_MNT:?}/t"
		sync -f "$STICK_MNT"
		# the killed copy on the slow stick (stick_reattach lifted the rule)
		stick_throttle "$STICK_ID" $((8 * MIB))
		delay=$(((RANDOM * 32768 + RANDOM) % span_ms))
		delay=$(printf '%d.%03d' $((delay / 1000)) $((delay % 1000)))
		safecp -r "$SRC/t" "$STICK_MNT"/ 2>"$ERR" &
		SAFECP_PID=$!
		sleep "$delay"
		kill -9 "$SAFECP_PID" 2>/dev/null || true
		wait "$SAFECP_PID" 2>/dev/null || true
		SAFECP_PID=
		stick_reattach "$STICK_ID"
		finals=$(find "$STICK_MNT/t" -type f ! -name '.safecp-*' 2>/dev/null | wc -l)
		temps=$(temporaries "$STICK_MNT" | wc -l)
		echo "round $round: killed after $delay s: $finals of 10 files, $temps temporaries, fsck exit $STICK_FSCK_RC"
		((STICK_FSCK_RC == 0)) || { echo "$STICK_FSCK_OUT"; return 1; }
		[[ ! -d $STICK_MNT/t ]] || assert_final_names_complete "$SRC" "$STICK_MNT"
		# the rerun removes what the killed one left and completes the copy (unthrottled:
		# what it is judged by is the tree it leaves, not when)
		safecp -r "$SRC/t" "$STICK_MNT"/ >/dev/null 2>"$ERR" || { cat "$ERR"; return 1; }
		[[ $(tree_digest "$SRC/t") == "$(tree_digest "$STICK_MNT/t")" ]]
		assert_no_temporaries "$STICK_MNT"
	done
}

@test "ext4: kill -9 at random instants: fsck-clean, only complete files, a rerun completes" {
	kill_rounds ext4
}

@test "exfat: kill -9 at random instants: fsck-clean, only complete files, a rerun completes" {
	kill_rounds exfat
}

@test "fat32: kill -9 at random instants: fsck-clean, only complete files, a rerun completes" {
	require_cmd fusefat
	kill_rounds fat32 "${SAFECP_KILL_ROUNDS:-$( ((${SAFECP_SANITIZE:-0})) && echo 3 || echo 4)}"
}

@test "ntfs: kill -9 at random instants: fsck-clean, only complete files, a rerun completes" {
	require_cmd ntfs-3g
	kill_rounds ntfs "${SAFECP_KILL_ROUNDS:-$( ((${SAFECP_SANITIZE:-0})) && echo 3 || echo 4)}"
}
