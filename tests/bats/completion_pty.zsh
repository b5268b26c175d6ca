#!/bin/zsh -f
# tests/bats/completion_pty.zsh SHELL OUT SETUP LINE: what an interactive SHELL (bash
# or zsh) makes of LINE and a Tab, as a user at a terminal sees it: SHELL runs in a
# pseudo-terminal (zsh's zpty), runs the SETUP command line, gets LINE and a Tab
# typed, then Ctrl-X, bound to write the command line it holds to OUT; this prints OUT.
# What readline or zle does with the matches (quoting, the space after them) is
# tested too, which calling a completion function cannot show.
zmodload zsh/zpty || exit 1
shell=$1 out=$2 setup=$3 line=$4
rm -f -- $out
if [[ $shell == zsh ]]; then
	zpty -b t 'TERM=xterm zsh -f -i'
	zpty -w t "dump() { print -r -- \$BUFFER >${(q)out} }; zle -N dump; bindkey '^X' dump"
else
	zpty -b t 'TERM=xterm bash --norc --noprofile -i'
	zpty -w t "bind -x '\"\\C-x\": printf \"%s\\n\" \"\$READLINE_LINE\" >${(q)out}'"
fi
zpty -w t $setup
zpty -w -n t $line$'\t'
# the Tab's completion runs before the shell reads the next key
zpty -w -n t $'\x18'
for i in {1..100}; do
	[[ -s $out ]] && break
	sleep 0.1
done
zpty -d t
[[ -s $out ]] || { print -u2 "$shell wrote no command line for '$line<Tab>'"; exit 1 }
cat -- $out
