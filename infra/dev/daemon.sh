# shellcheck shell=bash
# The background servers of the launchers in infra/dev (sourced, not run): start one in a session of its
# own, find it again from its pid file, stop it.
#
# Nothing here trusts /proc unless it belongs to this script's pid namespace: CI runs in a namespace of
# its own without remounting /proc, where /proc/<pid> describes another process, and kill -0 is the only
# question about a pid that gets a true answer.

# daemon_pid FILE MARK: the pid in FILE when that process runs and, where /proc can tell, its command
# line contains MARK; else nothing. A file left by a server that was killed may name another process by
# now, and the mark keeps it from being taken for the server.
daemon_pid() {
  local file="$1" mark="$2" pid self=
  [ -f "$file" ] || return 0
  pid="$(cat "$file")"
  { [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; } || return 0
  read -r self _ </proc/self/stat 2>/dev/null || true
  if [ "$self" = "$BASHPID" ] && ! tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -qF -- "$mark"; then
    return 0
  fi
  echo "$pid"
}

# daemon_launch FILE LOG COMMAND...: COMMAND in a session of its own, with its output in LOG. An inner
# shell writes its pid to FILE and becomes COMMAND, so the file names the server itself. The file is
# removed first: it is written some time after this returns, and until then a leftover must not be read
# as the new server's. Sets DAEMON_LAUNCHED, which daemon_launched_runs watches until the server answers.
daemon_launch() {
  local file="$1" log="$2"
  shift 2
  rm -f "$file"
  # Without descriptor 9, where the launchers hold their start locks: a server holding it would keep
  # every later start waiting.
  # shellcheck disable=SC2016
  setsid bash -c 'echo $$ >"$1"; shift; exec "$@"' _ "$file" "$@" >"$log" 2>&1 </dev/null 9>&- &
  DAEMON_LAUNCHED=$!
}

# Whether the server daemon_launch started still runs (bash reaps its own children, so one that exited
# is gone for kill -0 too).
daemon_launched_runs() { kill -0 "$DAEMON_LAUNCHED" 2>/dev/null; }

# daemon_stop PID SECONDS: SIGTERM, and SIGKILL if the process is still there after SECONDS.
daemon_stop() {
  local pid="$1" grace="$2" i
  kill -TERM "$pid" 2>/dev/null || return 0
  for ((i = 0; i < grace * 2; i++)); do
    kill -0 "$pid" 2>/dev/null || return 0
    sleep 0.5
  done
  say "no clean shutdown after ${grace}s, killing pid $pid"
  kill -KILL "$pid" 2>/dev/null || true
}
