# tests/lib/udisks.bash: the real udisks2 stack for a test, started by hand as root (no
# systemd on these machines): the system bus, udevd, polkitd and udisksd, an unprivileged
# test user, and a polkit rule that grants it org.freedesktop.udisks2.*.  Bash library.
#
#   source tests/lib/udisks.bash
#   udisks_up          start what is not running yet; 0, or 1 with UDISKS_WHY (a reason
#                      to skip) after undoing whatever it did
#   udisks_down        stop every daemon udisks_up started (by pid, and only those),
#                      remove the rule, the users and their /media directories; also
#                      after a failed or partial udisks_up; idempotent
#   udisks_as USER CMD...   run CMD as USER (UDISKS_USER, the granted one, or
#                      UDISKS_NOBODY, a second user the rule does not name)
#   udisks_settle      wait for udev to have probed every queued event
#
# A daemon that is already running (a system bus, udevd, polkitd, udisksd of this
# machine) is used and left alone.  What udisks_up did is written to $UDISKS_STATE as it
# is done, so udisks_down undoes exactly that, from a teardown in another process too.
# Keep the daemons' lifetime short (setup_file to teardown_file): udevd probes every
# block device, and other tests' loop devices should not meet it.

UDISKS_STATE=${UDISKS_STATE:-/run/safecp-udisks}
UDISKS_USER=${UDISKS_USER:-safecp-ud}
UDISKS_NOBODY=${UDISKS_NOBODY:-safecp-ud-no}
UDISKS_RULE=${UDISKS_RULE:-/etc/polkit-1/rules.d/49-safecp-udisks-test.rules}
UDISKS_BUS=unix:path=/run/dbus/system_bus_socket
export UDISKS_STATE UDISKS_USER UDISKS_NOBODY UDISKS_RULE

_UDISKS_UDEVD=/lib/systemd/systemd-udevd
_UDISKS_POLKITD=/usr/lib/polkit-1/polkitd
_UDISKS_UDISKSD=/usr/libexec/udisks2/udisksd

_udisks_log() { printf '%s\n' "$*" >>"$UDISKS_STATE/done"; }

_udisks_bus_up() {
	dbus-send --system --print-reply --dest=org.freedesktop.DBus / \
		org.freedesktop.DBus.GetId >/dev/null 2>&1
}

_udisks_has_name() {
	dbus-send --system --print-reply --dest=org.freedesktop.DBus / \
		org.freedesktop.DBus.NameHasOwner "string:$1" 2>/dev/null | grep -q 'boolean true'
}

# _udisks_wait SECONDS CMD...: poll until CMD succeeds
_udisks_wait() {
	local n=$(($1 * 10))
	shift
	while ((n-- > 0)); do
		"$@" && return 0
		sleep 0.1
	done
	return 1
}

_udisks_alive() {
	[[ -d /proc/$1 && $(awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null) != Z ]]
}

# pids whose comm is $1, one a line
_udisks_pids_of() {
	local p
	for p in /proc/[0-9]*; do
		[[ $(cat "$p/comm" 2>/dev/null) == "$1" ]] && echo "${p#/proc/}"
	done
}

_udisks_why() {
	UDISKS_WHY=$*
	return 1
}

_udisks_start_bus() {
	local pid
	_udisks_bus_up && return 0
	mkdir -p /run/dbus || return 1
	# a pid file left by a bus that died makes dbus-daemon refuse to start
	if [[ -f /run/dbus/pid ]] && ! _udisks_alive "$(cat /run/dbus/pid)"; then
		rm -f /run/dbus/pid
	fi
	pid=$(dbus-daemon --system --fork --print-pid </dev/null 2>"$UDISKS_STATE/dbus.log" 3>&-) ||
		{ _udisks_why "dbus-daemon --system did not start: $(cat "$UDISKS_STATE/dbus.log")"; return 1; }
	_udisks_log daemon "$pid" dbus-daemon
	_udisks_wait 10 _udisks_bus_up || _udisks_why "the system bus did not come up"
}

# udevd --daemon forks: its pid is the new systemd-udevd process that is not a worker
# (a worker's parent is udevd itself).
_udisks_start_udevd() {
	local before pid p ppid
	before=" $(_udisks_pids_of systemd-udevd | tr '\n' ' ') "
	[[ $before != "  " ]] && return 0
	"$_UDISKS_UDEVD" --daemon </dev/null >/dev/null 2>"$UDISKS_STATE/udevd.log" 3>&- ||
		{ _udisks_why "systemd-udevd --daemon failed: $(cat "$UDISKS_STATE/udevd.log")"; return 1; }
	for p in $(_udisks_pids_of systemd-udevd); do
		ppid=$(awk '/^PPid:/ { print $2 }' "/proc/$p/status" 2>/dev/null)
		[[ $(cat "/proc/$ppid/comm" 2>/dev/null) == systemd-udevd ]] || pid=$p
	done
	[[ -n ${pid-} ]] || _udisks_why "systemd-udevd --daemon started, but no udevd process is running" || return
	_udisks_log daemon "$pid" systemd-udevd
	udevadm trigger --action=add --subsystem-match=block
	# a probe of another test's throttled device may outlast this; ours are waited for
	# one by one (udisks_settle), so a timeout here is no failure
	udevadm settle --timeout=30 || echo "udisks: udevadm settle timed out; going on" >&2
	return 0
}

# _udisks_start_bg NAME BUS_NAME CMD...: a daemon in the background, ready once it owns
# BUS_NAME on the system bus.
_udisks_start_bg() {
	local name=$1 busname=$2 pid
	shift 2
	_udisks_has_name "$busname" && return 0
	setsid "$@" </dev/null >>"$UDISKS_STATE/$name.log" 2>&1 3>&- 4>&- &
	pid=$!
	_udisks_log daemon "$pid" "$name"
	_udisks_wait 20 _udisks_has_name "$busname" ||
		_udisks_why "$name did not take $busname on the system bus: $(tail -n 5 "$UDISKS_STATE/$name.log")"
}

_udisks_add_user() {
	if id -u "$1" >/dev/null 2>&1; then
		{ _udisks_why "user '$1' already exists (a teardown that did not finish? remove it with userdel)"; return 1; }
	fi
	_udisks_log user "$1"
	useradd --system --no-create-home --shell /usr/sbin/nologin "$1" ||
		_udisks_why "useradd '$1' failed"
}

_udisks_add_rule() {
	_udisks_log rule "$UDISKS_RULE"
	mkdir -p "${UDISKS_RULE%/*}" || return 1
	cat >"$UDISKS_RULE" <<EOF
// safecp tests (tests/lib/udisks.bash): removed when they end
polkit.addRule(function(action, subject) {
    if (action.id.indexOf("org.freedesktop.udisks2.") == 0 && subject.user == "$UDISKS_USER")
        return polkit.Result.YES;
});
EOF
}

# udisks makes /media/USER for a user's first mount; root's is ours to remove too, when
# it did not exist before
_udisks_media_dirs() {
	local d
	for d in /media/root /run/media/root; do
		[[ -e $d ]] || _udisks_log mediadir "$d"
	done
}

udisks_up() {
	local t
	UDISKS_WHY=''
	((EUID == 0)) || _udisks_why "needs root (starts the system bus, udevd, polkitd and udisksd)" || return
	for t in dbus-daemon dbus-send udevadm useradd userdel "$_UDISKS_UDEVD" "$_UDISKS_POLKITD" "$_UDISKS_UDISKSD"; do
		command -v "$t" >/dev/null ||
			_udisks_why "needs $t (Debian packages dbus, udev, polkitd, udisks2)" || return
	done
	if [[ -f $UDISKS_STATE/done ]]; then
		udisks_down || _udisks_why "a previous run left $UDISKS_STATE that cannot be undone" || return
	fi
	mkdir -p "$UDISKS_STATE" && : >"$UDISKS_STATE/done" || _udisks_why "cannot write $UDISKS_STATE" || return
	if _udisks_start_bus && _udisks_start_udevd &&
		_udisks_start_bg polkitd org.freedesktop.PolicyKit1 "$_UDISKS_POLKITD" --no-debug &&
		_udisks_add_user "$UDISKS_USER" && _udisks_add_user "$UDISKS_NOBODY" && _udisks_add_rule &&
		_udisks_media_dirs && _udisks_start_bg udisksd org.freedesktop.UDisks2 "$_UDISKS_UDISKSD"; then
		# polkitd reads a new rules file on an inotify event: give it a moment; udisksd
		# probes every block device before it answers (slowly, beside a throttled one)
		_udisks_wait 10 _udisks_rule_loaded
		_udisks_wait 60 _udisks_answers || _udisks_why "udisksd does not answer on the system bus" || {
			t=$UDISKS_WHY
			udisks_down
			UDISKS_WHY=$t
			return 1
		}
		return 0
	fi
	t=$UDISKS_WHY
	udisks_down
	UDISKS_WHY=${t:-udisks_up failed}
	return 1
}

_udisks_answers() {
	dbus-send --system --print-reply --reply-timeout=5000 --dest=org.freedesktop.UDisks2 \
		/org/freedesktop/UDisks2/Manager org.freedesktop.DBus.Properties.Get \
		string:org.freedesktop.UDisks2.Manager string:Version >/dev/null 2>&1
}

# The rule is in effect once polkit grants the user what udisks asks for a loop device.
_udisks_rule_loaded() {
	runuser -u "$UDISKS_USER" -- sh -c \
		'exec pkcheck --action-id org.freedesktop.udisks2.filesystem-mount-system --process $$' \
		>/dev/null 2>&1
}

_udisks_stop_pid() {
	local pid=$1 comm=$2 n
	_udisks_alive "$pid" || return 0
	[[ $(cat "/proc/$pid/comm" 2>/dev/null) == "${comm:0:15}" ]] || return 0
	kill "$pid" 2>/dev/null
	# a daemon in a flush of a slow device (udisksd probes them all) dies when it returns
	for ((n = 0; n < 600; n++)); do
		_udisks_alive "$pid" || return 0
		((n == 30)) && kill -9 "$pid" 2>/dev/null
		sleep 0.1
	done
	echo "udisks: $comm (pid $pid) did not stop" >&2
	return 1
}

_udisks_undo() {
	case $1 in
	daemon)
		_udisks_stop_pid "$2" "$3" || return 1
		[[ $3 == dbus-daemon ]] && rm -f /run/dbus/pid
		return 0 ;;
	user)
		id -u "$2" >/dev/null 2>&1 || return 0
		# udisks made /media/USER (and /run/media/USER) for the user's mounts
		rmdir "/media/$2" "/run/media/$2" 2>/dev/null
		userdel "$2" ;;
	rule) rm -f "$2" ;;
	mediadir) [[ ! -d $2 ]] || rmdir "$2" 2>/dev/null || true ;;
	esac
}

udisks_down() {
	local lines=() i rc=0
	[[ -f $UDISKS_STATE/done ]] || return 0
	mapfile -t lines <"$UDISKS_STATE/done"
	for ((i = ${#lines[@]} - 1; i >= 0; i--)); do
		# shellcheck disable=SC2086 # fields without blanks, written by us
		_udisks_undo ${lines[i]} || rc=1
	done
	((rc == 0)) && rm -rf "$UDISKS_STATE"
	return $rc
}

udisks_as() {
	local user=$1
	shift
	runuser -u "$user" -- env PATH="$PATH" DBUS_SYSTEM_BUS_ADDRESS="$UDISKS_BUS" "$@"
}

udisks_settle() {
	udevadm settle --timeout=30
}
