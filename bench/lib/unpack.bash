# bench/lib/unpack.bash: the workload of issue 11's --unpack.
#
#   unpack   2000 files of 512 KiB (1000 MiB) in 20 directories of 100, as a pax tar made
#            with bsdtar: `safecp --unpack` of the tar (method safecp+unpack) against
#            `safecp -r` of the same tree (method safecp); target: total <= 1.05x the
#            copy's, peak dirty <= 24 MiB. --size-scale 1/N divides the file count.
# The content check compares the stick's u/ with the tree, for both methods.

B_UNPACK_SIZE=524288

bench_wl_is_unpack() { [[ $1 == unpack ]]; }

bench_unpack_methods() { echo safecp safecp+unpack; }

_bench_unpack_sizes() {
	local n nfiles
	nfiles=$((2000 / B_DIV))
	for ((n = 0; n < nfiles; n++)); do
		printf '%d\tu/d%02d/f%04d.bin\n' "$B_UNPACK_SIZE" $((n / 100)) "$n"
	done
}

# The tree (carved like tree's: lib/workloads.bash) and its tar beside it.
_bench_gen_unpack() {
	_bench_unpack_sizes >"$B_SRC/unpack.sizes" && _bench_gen_files unpack 7 &&
		bsdtar -C "$B_SRC/unpack" --format=pax -cf "$B_SRC/unpack.tar" u
}

# Targets of issue 11's unpack, from results.tsv.
bench_unpack_report() {
	[[ " ${B_WORKLOADS[*]} " == *" unpack "* ]] || return 0
	echo
	echo "Targets (issue 11, --unpack):"
	echo
	awk -F'\t' '$1 == "unpack" { t[$2] = $9; p[$2] = $11; rc[$2] = $5; v[$2] = $16 }
	END {
		if (!("safecp" in t) || !("safecp+unpack" in t)) { print "- unpack: a run is missing"; exit }
		r = t["safecp"] > 0 ? t["safecp+unpack"] / t["safecp"] : 0
		printf "- unpack safecp+unpack: total %.2f s vs safecp -r %.2f s (%.3f) (target <= 1.05): %s\n",
		    t["safecp+unpack"], t["safecp"], r, r <= 1.05 && rc["safecp+unpack"] == 0 && v["safecp+unpack"] == "ok" ? "ok" : "**MISS**"
		printf "- unpack safecp+unpack: peak dirty %s MiB (target <= 24 MiB): %s\n",
		    p["safecp+unpack"], p["safecp+unpack"] <= 24 ? "ok" : "**MISS**"
	}' "$B_OUT/results.tsv"
}
