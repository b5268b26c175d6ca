#!/bin/bash
# tests/layout.sh [SRCDIR]: the layout rules of doc/architecture.md, checked on the
# source tree (default: the tree this script is in). No build, no root.
#
# Prints every violation as FILE:LINE: RULE: what and why, and exits 1 when one of them
# is not in tests/layout.allow (lines `FILE:RULE  # the work that removes it`; such a
# violation is still printed, marked "allowed"). An allow line that matches nothing any
# more is reported so that it can be deleted; it does not fail the check.
#
# Rules (the names the allow list uses):
#   lib-cmd  a lib/ file includes a cmd/ header: lib/ is below cmd/, never beside it
#   option   a string literal in lib/ holds an option name ("--x"): options are cmd/'s
#   popt     <popt.h> outside cmd/
#   extlib   an external library's header outside the one lib/ folder that wraps it,
#            or in cmd/ although lib/ wraps it
#   arrow    a folder includes one it may not (the arrows below); <safecp/...>, the
#            public headers, count as lib/api's; include/ includes no lib/ header
#   cycle    the folder include arrows form a cycle; names the include that closes it
#   file-cycle  two files (a name.c with its name.h counts as one) reach each other by
#            includes: each include on such a loop is named with the loop
#   path     a quoted include that is not "part/name.h" naming a file in lib/ or cmd/
#   public   a cmd/ file includes a lib/ part other than base: the tools use the library
#            through its public headers <safecp/...> only (and lib/base, the language kit)
#   cite     a "doc/kernel.md N.M" citation (in lib, cmd, tests, bench) names no section
#            of doc/kernel.md
set -u
shopt -s nullglob globstar

SRC=${1:-$(cd "$(dirname "$(readlink -f "$0")")/.." && pwd)}
ALLOW="$SRC/tests/layout.allow"
if ! cd "$SRC" 2>/dev/null || [[ ! -d lib || ! -d cmd ]]; then
	echo "layout.sh: '$SRC' is not the safecp source tree (no lib/ and cmd/)" >&2
	exit 2
fi

# The arrows between lib/ parts (doc/architecture.md): a part may include itself and the
# parts listed. cmd/common may include lib/base; a tool's folder lib/base and cmd/common;
# both may include <safecp/...> (the rule "public" names a cmd/ include of another lib/
# part, so that the arrow rule stays about direction); nothing else. api, the public seam (include/safecp/), may
# include every part and no part includes it; include/ itself includes none.
declare -A MAY=(
	[api]="copy unmount archive mhl io hash dirty device util base"
	[base]=""
	[util]="base"
	[hash]="util base"
	[device]="util base"
	[dirty]="device util base"
	[io]="hash dirty device util base"
	[mhl]="util base"
	[copy]="io hash dirty device util mhl archive base"
	[archive]="util base"
	[unmount]="io hash dirty device util base"
)
# External libraries: header pattern (an extended regex on the name between < >) and the
# lib/ folder that wraps it, if one already does. A library without an owner may still
# be used by one folder only.
EXT_LIBS=(libmount blkid unistring xxhash nettle libarchive systemd libxml)
declare -A EXT_RE=(
	[libmount]='^libmount/?.*\.h$|^libmount\.h$'
	[blkid]='^(blkid/)?blkid\.h$'
	[unistring]='^(unistr|unicase|uninorm|unictype|uniwidth|uniconv|unistdio|uniname|uniwbrk|unilbrk|unigbrk|unitypes)\.h$|^unistring/'
	[xxhash]='^xxhash\.h$'
	[nettle]='^nettle/'
	[libarchive]='^archive(_entry)?\.h$'
	[systemd]='^systemd/'
	[libxml]='^libxml/'
	[zlib]='^zlib\.h$'
	[attr]='^attr/'
	[acl]='^(acl/libacl|sys/acl)\.h$'
)
declare -A EXT_OWNER=([libmount]=device [blkid]=device [unistring]=device [xxhash]=hash [nettle]=hash [libxml]=mhl [systemd]=unmount [libarchive]=archive [zlib]=archive [attr]=copy [acl]=copy)

LIB_PARTS=$(printf '%s\n' "${!MAY[@]}" | sort | tr '\n' ' ')
CMD_PARTS=$(for d in cmd/*/; do d=${d%/}; printf '%s ' "${d#cmd/}"; done)

VIOLATIONS=() # "file:line<TAB>rule<TAB>message"
violation() { VIOLATIONS+=("$1:$2"$'\t'"$3"$'\t'"$4"); }

# arrow_ok FROM TO: both are folders like lib/io or cmd/common
arrow_ok() {
	local from=$1 to=$2
	[[ $from == "$to" ]] && return 0
	case $from in
	lib/*)
		[[ $to == lib/* && " ${MAY[${from#lib/}]-} " == *" ${to#lib/} "* ]] ;;
	cmd/common)
		[[ $to == lib/* ]] ;;
	cmd/*)
		[[ $to == lib/* || $to == cmd/common ]] ;;
	*) return 1 ;;
	esac
}
# Public headers: "include/safecp" and lib/api may; no other lib/ part.
public_ok() { [[ $1 != lib/* || $1 == lib/api ]]; }
allowed_list() {
	case $1 in
	lib/*) local m=${MAY[${1#lib/}]-}; echo "${m:-nothing}" ;;
	cmd/common) echo "lib/ parts" ;;
	cmd/*) echo "lib/ parts and cmd/common" ;;
	include/*) echo "nothing of lib/ or cmd/: only <safecp/...> and system headers" ;;
	esac
}

# lex FILE...: one record per include (I<TAB>file<TAB>line<TAB><|"<TAB>name) and per
# string literal that holds an option name (S<TAB>file<TAB>line<TAB>literal), with
# comments and character literals skipped, so a "--x" in a comment does not count.
lex() {
	awk '
	FNR == 1 { incomment = 0 }
	{
		line = $0
		if (!incomment && match(line, /^[ \t]*#[ \t]*include[ \t]*[<"][^>"]*[>"]/)) {
			inc = substr(line, RSTART, RLENGTH)
			sub(/^[ \t]*#[ \t]*include[ \t]*/, "", inc)
			printf "I\t%s\t%d\t%s\t%s\n", FILENAME, FNR, substr(inc, 1, 1), substr(inc, 2, length(inc) - 2)
			i = RSTART + RLENGTH
		} else
			i = 1
		n = length(line)
		while (i <= n) {
			c = substr(line, i, 1)
			if (incomment) {
				if (c == "*" && substr(line, i + 1, 1) == "/") { incomment = 0; i += 2 } else i++
				continue
			}
			if (c == "/" && substr(line, i + 1, 1) == "*") { incomment = 1; i += 2; continue }
			if (c == "/" && substr(line, i + 1, 1) == "/") break
			if (c == "\"" || c == "\047") {
				j = i + 1
				while (j <= n && substr(line, j, 1) != c) {
					if (substr(line, j, 1) == "\\") j++
					j++
				}
				lit = substr(line, i, j - i + 1)
				if (c == "\"" && lit ~ /--[A-Za-z]/)
					printf "S\t%s\t%d\t%s\n", FILENAME, FNR, lit
				i = j + 1
				continue
			}
			i++
		}
	}' "$@"
}

C_FILES=(lib/**/*.[ch] cmd/**/*.[ch] include/**/*.h)
OTHER_C=(tests/**/*.[ch] bench/**/*.[ch])
mapfile -t RECORDS < <(lex "${C_FILES[@]}")
mapfile -t OTHER_INCLUDES < <(grep -Hn '^[[:space:]]*#[[:space:]]*include[[:space:]]*<popt\.h>' \
	"${OTHER_C[@]}" /dev/null 2>/dev/null)

declare -A EDGE_SITES # "from to" -> "file:line file:line ..."
declare -A FILE_SITES # "lib/io/writer lib/base/size" -> "file:line ..." (name.c + name.h: one)
declare -A EXT_SITES  # library -> "folder|file|line ..."
for rec in "${RECORDS[@]}"; do
	IFS=$'\t' read -r kind file line a b <<<"$rec"
	from=${file%/*} # the folder: "lib/io/writer.c" -> "lib/io"
	if [[ $kind == S ]]; then
		[[ $file == lib/* ]] &&
			violation "$file" "$line" option "$a: lib/ knows no options; return a kind and let cmd/ name the option"
		continue
	fi
	delim=$a name=$b
	if [[ $delim == '<' ]]; then
		if [[ $name == popt.h && $file != cmd/* ]]; then
			violation "$file" "$line" popt "<popt.h> outside cmd/: option parsing is cmd/'s"
		fi
		if [[ $name == safecp/* ]] && ! public_ok "$from"; then
			violation "$file" "$line" arrow "$from may not include <$name>: the public headers are lib/api's, above every part; it may include $(allowed_list "$from")"
		fi
		for lib in "${EXT_LIBS[@]}"; do
			[[ $name =~ ${EXT_RE[$lib]} ]] && EXT_SITES[$lib]+="$from|$file|$line|$name "
		done
		continue
	fi
	[[ $name == config.h ]] && continue
	# the folder a quoted include names ("io/writer.h" -> "lib/io"), or ""; inline,
	# not a function: a subshell per include made the check take 18 s
	to='' part=${name%%/*}
	if [[ $name == */* ]]; then
		if [[ " $LIB_PARTS " == *" $part "* ]]; then to=lib/$part
		elif [[ " $CMD_PARTS " == *" $part "* ]]; then to=cmd/$part
		fi
	fi
	if [[ -z $to || ! -f ${to%/*}/$name ]]; then
		violation "$file" "$line" path "\"$name\": include headers as \"part/name.h\" of lib/ or cmd/"
		continue
	fi
	if [[ $file == cmd/* && $to == lib/* && $to != lib/base ]]; then
		violation "$file" "$line" public "\"$name\" is inside the library: cmd/ uses <safecp/...> (and \"base/...\", the language kit)"
	fi
	if [[ $file == lib/* && $to == cmd/* ]]; then
		violation "$file" "$line" lib-cmd "\"$name\" is a cmd/ header: lib/ never depends on cmd/"
		continue
	fi
	mod_from=${file%.[ch]} mod_to=$to/${name##*/}
	mod_to=${mod_to%.h}
	[[ $mod_from == "$mod_to" ]] || FILE_SITES["$mod_from $mod_to"]+="$file:$line "
	[[ $from == "$to" ]] && continue
	EDGE_SITES["$from $to"]+="$file:$line "
	arrow_ok "$from" "$to" ||
		violation "$file" "$line" arrow "$from may not include $to (\"$name\"); it may include $(allowed_list "$from")"
done
for hit in "${OTHER_INCLUDES[@]}"; do
	IFS=: read -r file line _ <<<"$hit"
	violation "$file" "$line" popt "<popt.h> outside cmd/: option parsing is cmd/'s"
done

# extlib: every site outside the owner; without an owner, every site once a second
# lib/ folder uses the library; in cmd/, every site of a library lib/ wraps.
for lib in "${EXT_LIBS[@]}"; do
	sites=${EXT_SITES[$lib]-}
	[[ -n $sites ]] || continue
	owner=${EXT_OWNER[$lib]-}
	lib_folders=$(for s in $sites; do [[ $s == lib/* ]] && echo "${s%%|*}"; done | sort -u)
	nfolders=$(grep -c . <<<"$lib_folders")
	[[ -n $owner ]] && lib_folders="lib/$owner"
	for s in $sites; do
		IFS='|' read -r folder file line name <<<"$s"
		if [[ $folder == cmd/* ]]; then
			[[ -n $owner || -n ${lib_folders//[[:space:]]/} ]] &&
				violation "$file" "$line" extlib "<$name> in cmd/: $(tr '\n' ' ' <<<"$lib_folders" | sed 's/ $//') wraps $lib; use that part"
		elif [[ -n $owner && $folder != "lib/$owner" ]]; then
			violation "$file" "$line" extlib "<$name>: $lib belongs to lib/$owner only; ask that part"
		elif [[ -z $owner ]] && ((nfolders > 1)); then
			violation "$file" "$line" extlib "<$name>: $lib is included in $nfolders lib/ folders; one part must wrap it"
		fi
	done
done

# cycle: an arrow A -> B lies on a cycle when B reaches A. Report the includes of the
# arrows on cycles that break the rules above (the ones to remove); if every arrow on a
# cycle is allowed, the table itself is cyclic and all of them are reported.
EDGES=$(for e in "${!EDGE_SITES[@]}"; do echo "$e"; done | sort)
# reach FROM: the folders reachable from FROM (breadth first), one per line
reach() {
	awk -v start="$1" '
	{ adj[$1] = adj[$1] " " $2 }
	END {
		q[1] = start; head = 1; tail = 1   # start is printed only if it is reached again
		while (head <= tail) {
			u = q[head++]; m = split(adj[u], v, " ")
			for (k = 1; k <= m; k++) if (!(v[k] in seen)) { seen[v[k]] = 1; q[++tail] = v[k]; print v[k] }
		}
	}' <<<"$EDGES"
}
# path FROM TO: one shortest path as "FROM -> ... -> TO"
path() {
	awk -v start="$1" -v goal="$2" '
	{ adj[$1] = adj[$1] " " $2 }
	END {
		q[1] = start; head = 1; tail = 1; seen[start] = 1
		while (head <= tail) {
			u = q[head++]; m = split(adj[u], v, " ")
			for (k = 1; k <= m; k++) if (!(v[k] in seen)) { seen[v[k]] = 1; prev[v[k]] = u; q[++tail] = v[k] }
		}
		if (!(goal in seen)) exit 1
		s = goal; while (s != start) { s = prev[s]; out = s " -> " out }
		print out goal
	}' <<<"$EDGES"
}
# The table must be a one-way order itself, or a cycle of allowed arrows could hide.
TABLE=$(for p in "${!MAY[@]}"; do for q in ${MAY[$p]}; do echo "lib/$p lib/$q"; done; done)
for p in "${!MAY[@]}"; do
	EDGES=$TABLE reach "lib/$p" | grep -qxF "lib/$p" &&
		{ echo "layout.sh: the MAY table lets lib/$p reach itself: fix the table" >&2; exit 2; }
done

declare -A REACH SCC # folder -> " reachable folders "; folder -> its cycle's members
NODES=$(awk '{ print $1; print $2 }' <<<"$EDGES" | sort -u)
for u in $NODES; do REACH[$u]=" $(reach "$u" | tr '\n' ' ')"; done
for u in $NODES; do
	[[ ${REACH[$u]} == *" $u "* ]] || continue
	SCC[$u]=$(for v in $NODES; do [[ ${REACH[$u]} == *" $v "* && ${REACH[$v]} == *" $u "* ]] && echo "$v"; done | tr '\n' ' ')
done
# Per cycle (strongly connected set of folders): its forbidden arrows, else all of them.
for key in $(printf '%s\n' "${SCC[@]}" | sort -u | tr ' ' ','); do
	members=" ${key//,/ } "
	on_cycle=() culprits=()
	while read -r from to; do
		[[ -n $from && $members == *" $from "* && $members == *" $to "* ]] || continue
		on_cycle+=("$from $to")
		arrow_ok "$from" "$to" || culprits+=("$from $to")
	done <<<"$EDGES"
	((${#culprits[@]})) || culprits=("${on_cycle[@]}")
	for e in "${culprits[@]}"; do
		read -r from to <<<"$e"
		loop="$from -> $(path "$to" "$from")"
		for site in ${EDGE_SITES[$e]}; do
			violation "${site%:*}" "${site##*:}" cycle "$loop: this include makes $from -> $to"
		done
	done
done

# file-cycle: an include A -> B between files lies on a loop when B reaches A. One awk
# finds every such arrow (a walk from each file) and one shortest loop through it.
FILE_EDGES=$(for e in "${!FILE_SITES[@]}"; do echo "$e"; done | sort)
while read -r from to loop; do
	[[ -n $from ]] || continue
	for site in ${FILE_SITES["$from $to"]}; do
		violation "${site%:*}" "${site##*:}" file-cycle "$loop: files that include each other are one file, or need a third below both"
	done
done < <(awk '
	{ adj[$1] = adj[$1] " " $2; edge[NR] = $0 }
	END {
		for (e = 1; e <= NR; e++) {
			split(edge[e], uv, " "); u = uv[1]; w = uv[2]
			delete seen; delete prev; q[1] = w; head = 1; tail = 1; seen[w] = 1
			while (head <= tail && !(u in seen)) {
				x = q[head++]; m = split(adj[x], v, " ")
				for (k = 1; k <= m; k++) if (!(v[k] in seen)) { seen[v[k]] = 1; prev[v[k]] = x; q[++tail] = v[k] }
			}
			if (!(u in seen)) continue
			out = u; s = u; while (s != w) { s = prev[s]; out = s " -> " out }
			print u, w, u " -> " out
		}
	}' <<<"$FILE_EDGES")

# cite: the numbers after "doc/kernel.md" ("4.1", "4.1-4.3", "4.2, 5"), also when the
# citation wraps onto the next line of a comment, must be section numbers of the file.
SECTIONS=" $( [[ -f doc/kernel.md ]] && grep -oE '^#{2,3} [0-9]+(\.[0-9]+)?\.? ' doc/kernel.md |
	awk '{ sub(/\.$/, "", $2); print $2 }' | tr '\n' ' ') "
mapfile -t CITING < <(grep -rlI --exclude-dir=fixtures 'doc/kernel\.md' lib cmd tests bench 2>/dev/null)
if ((${#CITING[@]})); then
	while IFS=$'\t' read -r file line sec; do
		[[ $SECTIONS == *" $sec "* ]] ||
			violation "$file" "$line" cite "doc/kernel.md $sec: no such section in doc/kernel.md"
	done < <(awk '
	# (mawk mis-matches nested optional groups: take a run of digits, dots, commas,
	# dashes and blanks, then check each piece)
	function take(text, ln,   n, i, parts, t) {
		if (!match(text, /^[ \t]*[0-9][0-9., \t-]*/))
			return
		n = split(substr(text, RSTART, RLENGTH), parts, /[, \t-]+/)
		for (i = 1; i <= n; i++) {
			t = parts[i]; sub(/\.+$/, "", t)
			if (t ~ /^[0-9]+(\.[0-9]+)?$/) printf "%s\t%d\t%s\n", FILENAME, ln, t
		}
	}
	FNR == 1 { pend = 0 }
	{
		if (pend) { t = $0; sub(/^[ \t]*(\*|#|\/\/)?[ \t]*/, "", t); take(t, pend); pend = 0 }
		rest = $0
		while ((p = index(rest, "doc/kernel.md")) > 0) {
			rest = substr(rest, p + 13)
			if (rest ~ /^[ \t]*$/) pend = FNR; else take(rest, FNR)
		}
	}' "${CITING[@]}")
fi

# ----------------------------------------------------------------------------- verdict

declare -A ALLOWED ALLOW_USED # "file:rule" -> allow-list line number
if [[ -f $ALLOW ]]; then
	n=0
	while IFS= read -r l || [[ -n $l ]]; do
		n=$((n + 1))
		l=${l%%#*}
		l=${l//[[:space:]]/}
		[[ -n $l ]] && ALLOWED[$l]=$n
	done <"$ALLOW"
fi

failed=0 allowed=0
mapfile -t SORTED < <(printf '%s\n' "${VIOLATIONS[@]}" | sort -t: -k1,1 -k2,2n | awk 'NF && !seen[$0]++')
for v in "${SORTED[@]}"; do
	IFS=$'\t' read -r where rule msg <<<"$v"
	key="${where%:*}:$rule"
	if [[ -n ${ALLOWED[$key]-} ]]; then
		ALLOW_USED[$key]=1
		allowed=$((allowed + 1))
		echo "$where: $rule: $msg (allowed: tests/layout.allow:${ALLOWED[$key]})"
	else
		failed=$((failed + 1))
		echo "$where: $rule: $msg"
	fi
done
for key in "${!ALLOWED[@]}"; do
	[[ -n ${ALLOW_USED[$key]-} ]] ||
		echo "tests/layout.allow:${ALLOWED[$key]}: '$key' matches nothing now: delete the line"
done
echo "layout: $failed violation(s), $allowed allowed by tests/layout.allow"
((failed == 0))
