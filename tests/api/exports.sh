#!/bin/bash
# tests/api/exports.sh LIBSAFECP_SO SRCDIR: the shared library exports lib/api's
# safecp_* functions and nothing else (lib/libsafecp.sym), each under the version node
# SAFECP_1, and every function include/safecp/*.h declares. Another symbol in the
# dynamic table is an internal function made ABI by accident. TAP.
set -u
so=$1 src=$2
echo "1..3"

if ! syms=$(nm -D --defined-only "$so"); then
	echo "not ok 1 nm -D --defined-only $so failed"
	exit 1
fi
# "ADDR TYPE NAME@@NODE"; the version node itself is "0 A SAFECP_1", the script's
leaks=$(awk '$2 != "A" && !($2 == "T" && $3 ~ /^safecp_/)' <<<"$syms")
if [[ -z $leaks ]]; then
	echo "ok 1 only safecp_* text symbols are exported ($(grep -c ' T ' <<<"$syms"))"
else
	echo "not ok 1 exported beside safecp_*: keep them local in lib/libsafecp.sym"
	sed 's/^/#   /' <<<"$leaks"
fi

unversioned=$(awk '$2 == "T" && $3 !~ /@@?SAFECP_[0-9.]+$/' <<<"$syms")
if [[ -z $unversioned ]]; then
	echo "ok 2 every export has a SAFECP_ version node"
else
	echo "not ok 2 exports without a version node"
	sed 's/^/#   /' <<<"$unversioned"
fi

declared=$(cat "$src"/include/safecp/*.h | grep -oE '\bsafecp_[a-z0-9_]+\(' | tr -d '(' | sort -u)
exported=$(awk '$2 == "T" { sub(/@.*/, "", $3); print $3 }' <<<"$syms" | sort -u)
missing=$(comm -23 <(echo "$declared") <(echo "$exported"))
if [[ -n $declared && -z $missing ]]; then
	echo "ok 3 every function of include/safecp/ is exported ($(wc -l <<<"$declared"))"
else
	echo "not ok 3 declared in include/safecp/ but not exported:" ${missing:-"(none declared)"}
fi
