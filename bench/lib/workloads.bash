# bench/lib/workloads.bash: the benchmark's source data, made once per run from fixed seeds.
#
# Every byte comes from AES-128-CTR over zeros keyed by the workload's seed (openssl), so
# two runs copy identical, incompressible data. Files are carved from one stream with
# `head -c`, which on a pipe reads exactly the bytes it writes (GNU head_bytes asks read()
# for no more than what is left), so the carving is as deterministic as the stream.
#
#   1gib     one file of 1 GiB                                   $B_SRC/big.bin
#   1000x1m  1000 files of 1 MiB in one directory                $B_SRC/m1000/
#   tree     2000 files of 1-64 KiB in 200 directories:          $B_SRC/tree/
#            20 top directories with 9 subdirectories each, 10 files in each directory;
#            sizes uniform in [1024, 65536] bytes from bash's RANDOM seeded with 3
#   mixed    2100 files in 150 directories: $B_SRC/mixed/
#            15 top directories with 9 subdirectories each, file n in directory n % 150;
#            every file n with n % 7 < 2 is 256 KiB (600 of them), the other 1500 are
#            uniform in [1024, 65536] bytes from bash's RANDOM seeded with 9
#   card     1 GiB as 32 files of 32 MiB in DCIM/100SAFE/ on a second stick (ext4, no
#            write throttle while it is filled), then read-throttled to $B_CARD_RATE
#   two-sticks   the 1gib file, to two sticks at once (lib/multi.bash)
#   card3, card-split   the card, to three or two sticks at once (lib/multi.bash)
#   verify, checksum, two-sticks-verify   the 1gib file (lib/offload.bash)
#   pack-zip   the tree, packed into one zip on exfat-fuse (lib/pack.bash)
#   sparse   a 2 GiB image with 256 MiB of data (issue 29: holes stay holes): eight
#            32 MiB extents of seed 6's stream at 0, 256, ... 1792 MiB, holes between;
#            its bytes are the data (the raw time: data / the raw rate)  $B_SRC/sparse.img
#   noop-rerun   1000 files of 32 KiB in DCIM/100SAFE..109SAFE/     $B_SRC/noop/
#                (lib/offload.bash; not scaled by --size-scale: the target is 1000 files)
#   tree-100k    100000 files of 0-8 KiB (uniform 0..8192 bytes) in 1000 leaf directories
#                of 100, d000-d009/s0-s9/t0-t9/ (depth 3)            $B_SRC/tree-100k/
#   tree-1m      1000000 such files in 10000 leaf directories, d000-d099/s0-s9/t0-t9/
#                (tree-100k's are its first 100000)                  $B_SRC/tree-1m/
#   walk-1m      tree-1m walked, not copied: safecp --dry-run against find, warm and cold
#                (lib/trees.bash, which also makes the trees: lib/gentree.py)
#   links-500    1000 files of 1-128 KiB in originals/d00-d19/ (file n in d(n % 20));
#                sizes uniform in [1024, 131072] bytes from bash's RANDOM seeded with 29;
#                each even-numbered one (500) also has a second name, a hard link, in
#                albums/a00-a19/ (issue 29: -a keeps each pair one file; lib/links.bash
#                checks the stick)                                   $B_SRC/links-500/
#
# --size-scale 1/N divides byte counts of 1gib and card and the file counts of 1000x1m,
# tree, mixed, links-500, tree-100k and tree-1m by N (file sizes stay what a camera or a
# photo library has).
#
# The card's read throttle is set here and lifted by bench_card_unthrottle (from the EXIT
# trap): stick.bash only manages write rules (request in /work/notes/requests.md).

_BLKIO_READ=/sys/fs/cgroup/blkio/blkio.throttle.read_bps_device
MIB=1048576

# bench_stream SEED BYTES: the deterministic byte stream on stdout.
bench_stream() {
	openssl enc -aes-128-ctr -nosalt -K "$(printf '%032x' "$1")" \
		-iv 00000000000000000000000000000000 </dev/zero 2>/dev/null | head -c "$2"
}

bench_wl_bytes() {
	case $1 in
	1gib | card | two-sticks | card3 | card-split | verify | checksum | two-sticks-verify) echo $((1024 * MIB / B_DIV)) ;;
	1000x1m) echo $(((1000 / B_DIV) * MIB)) ;; # whole files: the count is divided
	noop | noop-rerun) echo $((B_NOOP_FILES * B_NOOP_SIZE)) ;; # not scaled: the target is 1000 files
	tree | mixed | pack-zip | links-500 | tree-100k | tree-1m | walk-1m) awk -F'\t' '{ s += $1 } END { printf "%.0f\n", s }' "$B_SRC/$(bench_wl_kind "$1").sizes" ;;
	unpack) echo $((2000 / B_DIV * B_UNPACK_SIZE)) ;; # lib/unpack.bash
	sparse) echo $((256 * MIB / B_DIV)) ;; # its data; the image is 8 times as long
	esac
}

bench_wl_files() {
	case $1 in
	1gib | two-sticks | verify | checksum | two-sticks-verify | sparse) echo 1 ;;
	1000x1m) echo $((1000 / B_DIV)) ;;
	noop | noop-rerun) echo "$B_NOOP_FILES" ;;
	tree | pack-zip) echo $((2000 / B_DIV)) ;;
	mixed) echo $((2100 / B_DIV)) ;;
	links-500) echo $((1000 / B_DIV)) ;; # files, not names: 500 of them have two
	unpack) echo $((2000 / B_DIV)) ;;
	card | card3 | card-split) echo 32 ;;
	tree-100k | tree-1m | walk-1m) bench_tree_files "$1" ;; # lib/trees.bash
	esac
}

# The path given to cp/safecp; a directory is copied whole (-r).
bench_wl_src() {
	case $1 in
	1gib | two-sticks | verify | checksum | two-sticks-verify) echo "$B_SRC/big.bin" ;;
	1000x1m) echo "$B_SRC/m1000" ;;
	sparse) echo "$B_SRC/sparse.img" ;;
	noop-rerun) echo "$B_SRC/noop" ;;
	tree | pack-zip) echo "$B_SRC/tree" ;;
	mixed) echo "$B_SRC/mixed" ;;
	links-500) echo "$B_SRC/links-500" ;;
	unpack) echo "$B_SRC/unpack/u" ;;
	card | card3 | card-split) echo "$B_CARD_MNT/DCIM" ;;
	tree-100k | tree-1m | walk-1m) echo "$B_SRC/$(bench_wl_kind "$1")" ;;
	esac
}

# The source a workload copies is made by _bench_gen_KIND: the multi-destination
# workloads share the 1gib file and the card.
bench_wl_kind() {
	case $1 in
	two-sticks | verify | checksum | two-sticks-verify) echo 1gib ;;
	card3 | card-split) echo card ;;
	noop-rerun) echo noop ;;
	pack-zip) echo tree ;;
	walk-1m) echo tree-1m ;;
	*) echo "$1" ;;
	esac
}

bench_wl_is_card() { [[ $(bench_wl_kind "$1") == card ]]; }

# The write request limit (blkio write_iops_device) of the workload's sticks: --iops for
# every workload when given, else 300 for mixed (a slow stick's controller) and none.
bench_wl_iops() {
	if [[ -n $B_IOPS ]]; then
		echo "$B_IOPS"
	elif [[ $1 == mixed ]]; then
		echo 300
	else
		echo 0
	fi
}

# The card's read rate during WORKLOAD: card3 reads as fast as its three sticks write.
bench_wl_card_rate() {
	case $1 in
	card3) echo $((3 * B_RATE)) ;;
	*) echo "$B_CARD_RATE" ;;
	esac
}

_bench_gen_1gib() {
	bench_stream 1 "$(bench_wl_bytes 1gib)" >"$B_SRC/big.bin"
}

# Eight extents, each 1/8 of the data, at every eighth of the image; holes between (the
# source lies on /dev/shm: tmpfs keeps holes and answers SEEK_DATA).
_bench_gen_sparse() {
	local data ext k
	data=$(bench_wl_bytes sparse)
	ext=$((data / 8))
	truncate -s $((8 * data)) "$B_SRC/sparse.img" || return 1
	for ((k = 0; k < 8; k++)); do
		bench_stream $((6 + k)) "$ext" |
			dd of="$B_SRC/sparse.img" bs="$ext" seek=$((8 * k)) iflag=fullblock conv=notrunc \
				status=none || return 1
	done
}

_bench_gen_1000x1m() {
	mkdir "$B_SRC/m1000" &&
		bench_stream 2 "$(bench_wl_bytes 1000x1m)" | split -b $MIB -d -a 4 - "$B_SRC/m1000/f"
}

# Sizes first (one line per file: size, relative path), then the bytes.
_bench_tree_sizes() {
	local t s f n=0 nfiles dir
	nfiles=$(bench_wl_files tree)
	RANDOM=3
	for ((t = 0; t < 20; t++)); do
		for ((s = -1; s < 9; s++)); do
			dir=$(printf 't%02d' "$t")
			((s >= 0)) && dir+="/s$s"
			for ((f = 0; f < 10 && n < nfiles; f++, n++)); do
				printf '%d\t%s/f%04d.jpg\n' $((1024 + (RANDOM * 32768 + RANDOM) % 64513)) "$dir" "$n"
			done
		done
	done
}

# The same for mixed: 600 camera-sized and 1500 small files, interleaved.
_bench_mixed_sizes() {
	local n nfiles d size sub
	nfiles=$(bench_wl_files mixed)
	RANDOM=9
	for ((n = 0; n < nfiles; n++)); do
		d=$((n % 150))
		if ((n % 7 < 2)); then
			size=262144
		else
			size=$((1024 + (RANDOM * 32768 + RANDOM) % 64513))
		fi
		sub=''
		((d % 10)) && sub=/s$((d % 10 - 1))
		printf '%d\tm%02d%s/f%04d.jpg\n' "$size" $((d / 10)) "$sub" "$n"
	done
}

# _bench_gen_files NAME SEED: the files listed in NAME.sizes, carved from one stream.
_bench_gen_files() {
	local name=$1 size rel total fd
	total=$(bench_wl_bytes "$name")
	mkdir -p "$B_SRC/$name" || return 1
	exec {fd}< <(bench_stream "$2" "$total")
	while IFS=$'\t' read -r size rel; do
		mkdir -p "$B_SRC/$name/${rel%/*}"
		head -c "$size" <&"$fd" >"$B_SRC/$name/$rel" || { exec {fd}<&-; return 1; }
	done <"$B_SRC/$name.sizes"
	exec {fd}<&-
}

_bench_gen_tree() {
	_bench_tree_sizes >"$B_SRC/tree.sizes" && _bench_gen_files tree 3
}

_bench_gen_mixed() {
	_bench_mixed_sizes >"$B_SRC/mixed.sizes" && _bench_gen_files mixed 5
}

# links-500: every file once in .sizes, by its first name (so the workload's bytes count
# each file once, as a copy that keeps the links writes them); .links has one line per
# second name: the first name, tab, the link.
_bench_links_sizes() {
	local n nfiles
	nfiles=$(bench_wl_files links-500)
	RANDOM=29
	for ((n = 0; n < nfiles; n++)); do
		printf '%d\toriginals/d%02d/f%04d.jpg\n' $((1024 + (RANDOM * 32768 + RANDOM) % 130049)) $((n % 20)) "$n"
	done
}

# shellcheck disable=SC2329 # called as _bench_gen_$KIND
_bench_gen_links-500() {
	local dir=$B_SRC/links-500 rel link
	_bench_links_sizes >"$B_SRC/links-500.sizes" && _bench_gen_files links-500 29 || return 1
	awk -F'\t' 'NR % 2 == 1 { n = NR - 1; printf "%s\talbums/a%02d/f%04d.jpg\n", $2, n / 2 % 20, n }' \
		"$B_SRC/links-500.sizes" >"$B_SRC/links-500.links" || return 1
	while IFS=$'\t' read -r rel link; do
		mkdir -p "$dir/${link%/*}" && ln "$dir/$rel" "$dir/$link" || return 1
	done <"$B_SRC/links-500.links"
}

# The card: a stick with room to spare, filled unthrottled, then read-throttled.
_bench_gen_card() {
	local bytes size_mib
	bytes=$(bench_wl_bytes card)
	size_mib=$((bytes * 5 / 4 / MIB + 128))
	stick_up --fs ext4 --size "$size_mib" --rate 0 --label CARD || return 1
	B_CARD_ID=$STICK_ID B_CARD_DISK=$STICK_DISK B_CARD_MNT=$STICK_MNT B_CARD_MAJMIN=$STICK_MAJMIN
	mkdir -p "$B_CARD_MNT/DCIM/100SAFE" || return 1
	bench_stream 4 "$bytes" |
		split -b $((bytes / 32)) -d -a 4 --additional-suffix=.CR3 - "$B_CARD_MNT/DCIM/100SAFE/IMG_" ||
		return 1
	sync -f "$B_CARD_MNT" && sync "$B_CARD_DISK" || return 1
	# Set before it is written, so the trap lifts even a half-written rule.
	B_CARD_THROTTLED=$B_CARD_MAJMIN
	echo "$B_CARD_MAJMIN $B_CARD_RATE" >"$_BLKIO_READ"
}

# bench_card_rate BYTES_PER_S: the card's read throttle for the next run.
bench_card_rate() {
	[[ -n ${B_CARD_THROTTLED-} ]] || return 1
	echo "$B_CARD_MAJMIN $1" >"$_BLKIO_READ"
}

# Lifts the rule only while that MAJ:MIN is still the card's loop device.
bench_card_unthrottle() {
	[[ -n ${B_CARD_THROTTLED-} ]] || return 0
	local dev
	dev=$(readlink -f "/sys/dev/block/$B_CARD_THROTTLED" 2>/dev/null)
	if [[ -n $dev ]] && _stick_loop_is_ours "/dev/${dev##*/}" "$STICK_BACKING_DIR/safecp-$B_CARD_ID.img"; then
		echo "$B_CARD_THROTTLED 0" >"$_BLKIO_READ" || return 1
	fi
	B_CARD_THROTTLED=''
}

# Cold card for every run: drop the files' pages (dd nocache = POSIX_FADV_DONTNEED on the
# whole file) and the block device's buffer cache (metadata), both scoped to the card;
# drop_caches would also empty other people's caches on this shared machine.
bench_card_cold() {
	local f left
	for f in "$B_CARD_MNT"/DCIM/100SAFE/*; do
		dd if="$f" iflag=nocache count=0 status=none
	done
	blockdev --flushbufs "$B_CARD_DISK"
	left=$(fincore -b -n -o RES "$B_CARD_MNT"/DCIM/100SAFE/* | awk '{ s += $1 } END { print s + 0 }')
	((left == 0)) || bench_warn "card still has $left bytes cached after the drop"
}

# Raw read time of the card for BYTES: O_DIRECT from the disk, through the read throttle.
bench_card_raw_read() {
	local bytes=$1 t0 t1
	t0=${EPOCHREALTIME/./}
	dd if="$B_CARD_DISK" iflag=direct bs=4M count=$((bytes / (4 * MIB))) of=/dev/null status=none || return 1
	t1=${EPOCHREALTIME/./}
	echo $((t1 - t0))
}

bench_gen_sources() {
	local w t0 done=' '
	mkdir -p "$B_SRC" || return 1
	for w in "${B_WORKLOADS[@]}"; do
		w=$(bench_wl_kind "$w")
		[[ $done == *" $w "* ]] && continue
		done+="$w "
		t0=${EPOCHREALTIME/./}
		"_bench_gen_$w" || { bench_warn "cannot generate the '$w' workload"; return 1; }
		bench_log "source $w: $(bench_wl_files "$w") files, $(($(bench_wl_bytes "$w") / 1024)) KiB, made in $(bench_us_s $((${EPOCHREALTIME/./} - t0))) s"
	done
}
