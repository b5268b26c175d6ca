#!/usr/bin/env bats
# tests/bats/try.bats: ./try as a newcomer runs it, on its own simulated stick: piped,
# safecp's plain progress lines; on a terminal (script(1) gives it a pty), safecp's bar;
# in both, safecp's closing line and a dirtystat line, taken before any sync, showing
# the device left clean; exit 0, and the stick gone afterwards.
# tests/run: alone: ./try shows plain cp's dirty data draining, and the system's figures

load helpers

setup() {
	require_root
	require_tool safecp
	require_tool dirtystat
}

# size_bytes "16.0 KiB": a dirtystat size in bytes (integer).
size_bytes() {
	awk -v n="${1% *}" -v u="${1#* }" 'BEGIN {
		m = u == "B" ? 1 : u == "KiB" ? 1024 : u == "MiB" ? 1048576 : u == "GiB" ? 1073741824 : -1
		if (m < 0) exit 1
		printf "%d\n", n * m }'
}

# try_checks: what both runs must show in $output.
try_checks() {
	local line dirty wb
	[[ $output == *"in 1 file is on /dev/loop"*" and the device is idle"* ]]
	# the line after "dirtystat right after safecp": dirty and writeback under 1 MiB
	line=$(sed -n '/dirtystat right after safecp/{n;p;q}' <<<"$output" | tr -d '\r')
	echo "dirtystat line: $line"
	[[ $line =~ \|\ loop[0-9]+\ dirty\ ([0-9.]+\ [KMG]?i?B)\ writeback\ ([0-9.]+\ [KMG]?i?B) ]]
	dirty=$(size_bytes "${BASH_REMATCH[1]}") wb=$(size_bytes "${BASH_REMATCH[2]}")
	((dirty + wb < 1048576))
	[[ $output == *"safecp returned after "*" s (exit 0)"* ]]
	# try removed its stick: the mount point it named is gone from the mount table
	[[ $output =~ mounted\ on\ (/run/safecp-mnt/stick\.[A-Za-z0-9]+) ]]
	refute findmnt -n "${BASH_REMATCH[1]}"
	[[ ! -e $STICK_REGISTRY/${BASH_REMATCH[1]##*/} ]]
}

@test "try piped: cp with dirtystat lines, then safecp's plain progress lines and a clean device" {
	run "$SAFECP_SRC/try" --build "$SAFECP_BUILD" --no-build --size 24 --idle 0
	echo "$output"
	((status == 0))
	# the cp part: dirtystat --watch lines of the stick, as lines (no terminal)
	[[ $output =~ [0-9:]+\ system\ dirty\ .*\ \|\ loop[0-9]+\ dirty ]]
	[[ $output == *"--progress=plain"* ]]
	# safecp's plain progress: whole lines counting the bytes on the device up to 100%
	grep -Eqx '100%  24\.0 MiB / 24\.0 MiB on device  .*' <<<"$output"
	refute grep -q $'\r' <<<"$output"
	try_checks
}

@test "try on a terminal: safecp's bar up to 100%, then its closing line" {
	require_cmd script
	run script -qec "'$SAFECP_SRC/try' --build '$SAFECP_BUILD' --no-build --size 24 --job safecp" /dev/null
	echo "$output"
	((status == 0))
	[[ $output == *"--progress=bar"* ]]
	# the bar redrawn in place: carriage returns, and the full bar at 100%
	[[ $output == *$'\r['*'] 100%  24.0 MiB / 24.0 MiB on device'* ]]
	try_checks
}
