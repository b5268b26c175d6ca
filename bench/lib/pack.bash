# bench/lib/pack.bash: the workload of issue 11's --pack.
#
#   pack-zip   the tree workload's 2000 files (lib/workloads.bash) packed with
#              `safecp --pack=zip` onto an exfat-fuse stick (whatever --fs says: the
#              target is exfat's), against the raw time of the archive's bytes at the
#              stick's rate: a zip of the same tree, made once beforehand on /dev/shm (the
#              same size: the same entries and fields), written with
#              dd oflag=direct to the raw disk of a fresh stick. Target: total <= 1.05 x
#              raw, peak device dirty <= 24 MiB.
#
# The check after the run reads the archive on the stick back with Python's zipfile
# (tests/tools/archive_check.py: every file's content, mode and time against the tree).
# Not a cmp with the archive made beforehand: zip's extended-timestamp field holds the
# sources' access times, which reading them for that archive changed.

bench_wl_is_pack() { [[ $1 == pack-zip ]]; }

bench_pack_methods() { echo dd-pack safecp+pack; }

# The archive's bytes, made once: $B_TMP/pack/tree.zip.
bench_pack_archive() {
	local a=$B_TMP/pack/tree.zip
	[[ -s $a ]] && { echo "$a"; return 0; }
	mkdir -p "$B_TMP/pack" &&
		"$B_SAFECP" -q --system-disk --pack=zip "$(bench_wl_src pack-zip)" "$B_TMP/pack/" </dev/null >&2 ||
		{ bench_warn "pack-zip: cannot make the reference archive"; return 1; }
	echo "$a"
}

# The command of METHOD into DEST, as words in B_CMD.
bench_pack_cmd() {
	local m=$1 dest=$2 a
	a=$(bench_pack_archive) || return 1
	case $m in
	dd-pack) B_CMD=(dd if="$a" of="$STICK_DISK" bs=4M oflag=direct conv=fsync status=none) ;;
	safecp+pack) B_CMD=("$B_SAFECP" --progress=none --pack=zip "${B_SAFECP_OPTS[@]}" \
		"$(bench_wl_src pack-zip)" "$dest/") ;;
	*) return 1 ;;
	esac
}

# Inside the content check (the stick mounted read-only): "ok" or "DIFF".
bench_pack_verify() {
	python3 "$B_ROOT/tests/tools/archive_check.py" "$STICK_MNT/tree.zip" "$(bench_wl_src pack-zip)" \
		>"$B_TMP/verify.out" 2>&1 && echo ok || echo DIFF
}

# The target, from results.tsv.
bench_pack_report() {
	[[ " ${B_WORKLOADS[*]} " == *" pack-zip "* ]] || return 0
	echo
	echo "Targets (issue 11, exfat-fuse):"
	echo
	awk -v size="$(stat -c %s "$B_TMP/pack/tree.zip" 2>/dev/null || echo 0)" '
	BEGIN { FS = "\t" }
	NR > 1 && $1 == "pack-zip" { TOT[$2] = $9; PEAK[$2] = $11; RC[$2] = $5; VER[$2] = $16
		DONE[$2] = $18 > $9 + 0.1 ? $18 : $9 }
	function ok(c) { return c ? "ok" : "**MISS**" }
	END {
		if (!("safecp+pack" in TOT) || !("dd-pack" in TOT)) { print "- pack-zip: not measured"; exit }
		if (RC["safecp+pack"] != 0 || VER["safecp+pack"] != "ok") {
			printf "- pack-zip safecp --pack=zip: exit %s, archive %s: **MISS**\n", RC["safecp+pack"], VER["safecp+pack"]
			exit
		}
		r = DONE["dd-pack"] > 0 ? DONE["safecp+pack"] / DONE["dd-pack"] : 0
		printf "- pack-zip safecp --pack=zip: total %.3f s / raw write of the archive'"'"'s %.1f MiB %.3f s = %.3f (target <= 1.05): %s\n",
		    DONE["safecp+pack"], size / 1048576, DONE["dd-pack"], r, ok(r > 0 && r <= 1.05)
		printf "- pack-zip safecp --pack=zip: peak device dirty %.1f MiB (target <= 24): %s\n",
		    PEAK["safecp+pack"], ok(PEAK["safecp+pack"] <= 24)
	}' "$B_OUT/results.tsv"
}
