#!/usr/bin/env bats
# tests/bats/completion.bats: the bash completions as installed (build/completions/NAME,
# completions/bash/common at the top of each), driven as bash drives them on a Tab: in a
# `bash --norc` with and without the bash-completion package, COMP_WORDS split at '='
# as COMP_WORDBREAKS splits them, the function that `complete -p` names called, then
# COMPREPLY and standard error read. compopt only works inside a real completion, so a
# function of that name records what it was asked for ($COMPOPT). LABEL= and UUID= are
# completed from a stick of ours. Then in a terminal (a pty, zsh's zpty): what bash's
# readline and zsh's zle write on the command line, also of the zsh completion.
# (cli.bats compares the option lists with --help.)
# tests/run: alone: LABEL=<Tab> as root runs blkid where udevd keeps no labels, which
# reads every block device, other suites' failing ones too

load helpers

BASH_COMPLETION=/usr/share/bash-completion/bash_completion

setup() {
	require_tool safeunmount
	COMPOPT=$BATS_TEST_TMPDIR/compopt
	# what a relative word completes to is in a directory of the test's own
	mkdir "$BATS_TEST_TMPDIR/cwd"
	cd "$BATS_TEST_TMPDIR/cwd"
}

# need_mode MODE: plain (no bash-completion) or bc (bash-completion loaded).
need_mode() {
	[[ $1 == plain || -r $BASH_COMPLETION ]] ||
		skip "needs the bash-completion package ($BASH_COMPLETION)"
}

# comp MODE WORD...: WORD... as COMP_WORDS (the last is completed, the cursor at its
# end; '=' is a word of its own and glued to its neighbours in COMP_LINE, as bash
# splits "--progress=j" into --progress, = and j). Runs with --separate-stderr: output
# is COMPREPLY, one per line; $COMPOPT what compopt was asked for.
comp() {
	local mode=$1
	shift
	rm -f "$COMPOPT"
	run --separate-stderr bash --norc --noprofile -c '
		mode=$1 file=$2 log=$3
		shift 3
		if [[ $mode == bc ]]; then
			source '"$BASH_COMPLETION"' || exit 1
		elif declare -F _init_completion >/dev/null; then
			echo "bash-completion is loaded in a bash --norc" >&2
			exit 1
		fi
		source "$file" || exit 1
		compopt() { local IFS=" "; printf "%s\n" "$*" >>"$log"; }
		COMP_WORDS=("$@") COMP_CWORD=$(($# - 1)) COMP_LINE=$1
		for ((i = 1; i < $#; i++)); do
			w=${COMP_WORDS[i]}
			[[ $w == = || ${COMP_WORDS[i - 1]} == = ]] || COMP_LINE+=" "
			COMP_LINE+=$w
		done
		COMP_POINT=${#COMP_LINE}
		spec=$(complete -p "$1") || exit 1
		fn=${spec#* -F }
		fn=${fn%% *}
		"$fn" "$1" "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
		((${#COMPREPLY[@]} == 0)) || printf "%s\n" "${COMPREPLY[@]}"
		# bash-completion loaded later must find its own names free
		if [[ $mode == plain ]] && declare -F _init_completion _filedir; then
			echo "defines bash-completion functions" >&2
			exit 1
		fi
	' comp "$mode" "$SAFECP_BUILD/completions/$1" "$COMPOPT" "$@"
	echo "$* <Tab> ($mode): status $status, COMPREPLY:"
	echo "$output"
	echo "stderr: $stderr"
	[[ -f $COMPOPT ]] && echo "compopt: $(<"$COMPOPT")"
	return 0
}

# comp_ok MODE WORD...: comp, which must succeed and write nothing on standard error.
comp_ok() {
	comp "$@"
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
}

offers() { grep -qxF -- "$1" <<<"$output" || { echo "'$1' not offered"; return 1; }; }
compopt_has() { grep -qxF -- "$1" "$COMPOPT" 2>/dev/null || { echo "no compopt $1"; return 1; }; }

options_and_values() {
	need_mode "$1"
	comp_ok "$1" safecp --pro
	[ "$output" = --progress= ]
	compopt_has "-o nospace"
	comp_ok "$1" safecp --progress =
	[ "$(sort <<<"$output" | tr '\n' ' ')" = "bar json none plain " ]
	comp_ok "$1" safecp --progress = j
	[ "$output" = json ]
	comp_ok "$1" safecp --sparse = a
	[ "$(sort <<<"$output" | tr '\n' ' ')" = "always auto " ]
	comp_ok "$1" safecp --backup = n
	[ "$(sort <<<"$output" | tr '\n' ' ')" = "never nil none numbered " ]
	comp_ok "$1" safecp --checksum = md5,sh
	[ "$(tr '\n' ' ' <<<"$output")" = "md5,sha1 md5,sha256 " ]
	comp_ok "$1" safecp --preserve = mode,ti
	[ "$output" = mode,timestamps ]
	comp_ok "$1" safecp --no-preserve = x
	[ "$output" = xattr ]
	comp_ok "$1" safeunmount --wait = 3
	[ "$(tr '\n' ' ' <<<"$output")" = "30 300 " ]
	comp_ok "$1" dirtystat --watch
	[ "$output" = --watch ]
	comp_ok "$1" dirtystat -c 6
	[ "$output" = 60 ]
}

@test "bash, without bash-completion: options and their values, nothing on stderr" {
	options_and_values plain
}

@test "bash, with bash-completion: options and their values, nothing on stderr" {
	options_and_values bc
}

files_and_directories() {
	need_mode "$1"
	mkdir "sub dir" subdir2
	touch "some file" other
	comp_ok "$1" safecp s
	[ "$(sort <<<"$output" | tr '\n' '|')" = "some file|sub dir|subdir2|" ]
	compopt_has "-o filenames"
	comp_ok "$1" safecp -t s
	[ "$(sort <<<"$output" | tr '\n' '|')" = "sub dir|subdir2|" ]
	comp_ok "$1" dirtystat --sysroot = sub
	[ "$(sort <<<"$output" | tr '\n' '|')" = "sub dir|subdir2|" ]
	if [[ $1 == plain ]]; then
		# bash-completion 2.11's _filedir finds nothing for a typed backslash
		comp_ok "$1" dirtystat --sysroot = "sub\\ d"
		[ "$output" = "sub dir" ]
	fi
	comp_ok "$1" dirtystat o
	[ "$output" = other ]
	# no target mounted starts with it: directories
	comp_ok "$1" safeunmount su
	[ "$(sort <<<"$output" | tr '\n' '|')" = "sub dir|subdir2|" ]
}

@test "bash, without bash-completion: files and directories, quoted by readline" {
	files_and_directories plain
}

@test "bash, with bash-completion: files and directories, quoted by readline" {
	files_and_directories bc
}

tags() {
	need_mode "$1"
	comp_ok "$1" safeunmount LA
	[ "$output" = LABEL= ]
	compopt_has "-o nospace"
	# as a file name readline would write it LABEL\=
	refute grep -qxF -- "-o filenames" "$COMPOPT"
	comp_ok "$1" safeunmount PART
	[ "$(tr '\n' ' ' <<<"$output")" = "PARTLABEL= PARTUUID= " ]
	comp_ok "$1" safeunmount --wait UU
	[ "$output" = UUID= ]
}

@test "bash, without bash-completion: safeunmount offers LABEL=, UUID=, PARTLABEL=, PARTUUID=" {
	tags plain
}

@test "bash, with bash-completion: safeunmount offers LABEL=, UUID=, PARTLABEL=, PARTUUID=" {
	tags bc
}

# labels MODE: a stick labelled with a space in it; what follows LABEL= and UUID= is
# offered as the value alone (readline replaces what follows the '='), unquoted, with
# compopt -o filenames so that readline quotes it.
labels() {
	need_mode "$1"
	require_root
	local label="sc comp$$" uuid
	stick_up --size 32 --rate 0 --label "$label"
	uuid=$(blkid -p -s UUID -o value "$STICK_DEV")
	[ -n "$uuid" ]
	comp_ok "$1" safeunmount LABEL =
	offers "$label"
	compopt_has "-o filenames"
	comp_ok "$1" safeunmount LABEL = "sc\\ comp"
	offers "$label"
	comp_ok "$1" safeunmount LABEL = "'sc comp"
	offers "$label"
	comp_ok "$1" safeunmount UUID = "${uuid:0:8}"
	[ "$output" = "$uuid" ]
	comp_ok "$1" safeunmount -P LABEL = no-such-label-$$
	[ -z "$output" ]
	# the mount point, as before
	comp_ok "$1" safeunmount "${STICK_MNT%?}"
	offers "$STICK_MNT"
}

@test "bash, without bash-completion: safeunmount LABEL= and UUID= offer a stick's, a space in the label" {
	labels plain
}

@test "bash, with bash-completion: safeunmount LABEL= and UUID= offer a stick's, a space in the label" {
	labels bc
}

# ---- in a terminal: what readline and zle make of the matches -------------------------

ZSH_SETUP="fpath=($SAFECP_SRC/completions/zsh \$fpath); autoload -Uz compinit; compinit -u -D"

need_zsh() {
	command -v zsh >/dev/null || skip "needs zsh (for its zpty, and to test _safeunmount; tests/run --deps installs it)"
}

# in_pty SHELL SETUP LINE: output is the command line SHELL holds after LINE<Tab>
# (tests/bats/completion_pty.zsh).
in_pty() {
	run zsh -f "$SAFECP_SRC/tests/bats/completion_pty.zsh" "$1" "$BATS_TEST_TMPDIR/line" "$2" "$3"
	echo "$3<Tab> in $1 ($2): status $status, '$output'"
	[ "$status" -eq 0 ]
}

bash_setup() {
	local s="source $SAFECP_BUILD/completions/$2"
	[[ $1 == bc ]] && s="source $BASH_COMPLETION; $s"
	echo "$s"
}

@test "in a terminal: safeunmount LA<Tab> gives LABEL= and no space, in bash with and without bash-completion and in zsh" {
	need_zsh
	local mode
	for mode in plain bc; do
		[[ $mode == bc && ! -r $BASH_COMPLETION ]] && continue
		in_pty bash "$(bash_setup $mode safeunmount)" "safeunmount LA"
		[ "$output" = "safeunmount LABEL=" ]
	done
	in_pty zsh "$ZSH_SETUP" "safeunmount LA"
	[ "$output" = "safeunmount LABEL=" ]
	in_pty zsh "$ZSH_SETUP" "safeunmount --prog"
	[ "$output" = "safeunmount --progress=" ]
}

@test "in a terminal: safeunmount LABEL=<Tab> writes a stick's label with its space quoted, UUID= its UUID, in bash with and without bash-completion and in zsh" {
	need_zsh
	require_root
	local label="${$}sc comp" uuid mode
	stick_up --size 32 --rate 0 --label "$label"
	uuid=$(blkid -p -s UUID -o value "$STICK_DEV")
	for mode in plain bc; do
		[[ $mode == bc && ! -r $BASH_COMPLETION ]] && continue
		in_pty bash "$(bash_setup $mode safeunmount)" "safeunmount LABEL=${$}s"
		[ "$output" = "safeunmount LABEL=${$}sc\\ comp " ]
		in_pty bash "$(bash_setup $mode safeunmount)" "safeunmount -P LABEL='${$}s"
		[ "$output" = "safeunmount -P LABEL='${$}sc comp' " ]
		in_pty bash "$(bash_setup $mode safeunmount)" "safeunmount UUID=${uuid:0:8}"
		[ "$output" = "safeunmount UUID=$uuid " ]
	done
	in_pty zsh "$ZSH_SETUP" "safeunmount LABEL=${$}s"
	[ "$output" = "safeunmount LABEL=${$}sc\\ comp " ]
	in_pty zsh "$ZSH_SETUP" "safeunmount -P UUID=${uuid:0:8}"
	[ "$output" = "safeunmount -P UUID=$uuid " ]
}
