#!/usr/bin/env bash
# stop.sh - stop the cluster started by start.sh (same LOCAL_SLURM_DIR).
# Cancels all jobs, then stops slurmd (all nodes), slurmctld and the socat forwarders (netns mode)
# by the pid files in $LOCAL_SLURM_DIR; deletes the host link and the network namespaces the start
# script created (netns mode, listed in $LOCAL_SLURM_DIR/host-link and netns.list); stops munged
# only if the start script started it; removes the /etc/slurm/slurm.conf symlink only if the start
# script made it. Never kills anything by name.
# Idempotent: safe to run when nothing is running.
#   LOCAL_SLURM_PURGE=1  also delete $LOCAL_SLURM_DIR (config, logs, job-completion file)
#   LOCAL_SLURM_KEEP_MUNGE=1  leave munged running (used by the start script when it restarts)
set -uo pipefail
DIR=${LOCAL_SLURM_DIR:-/tmp/local-slurm}
CONF=$DIR/etc/slurm.conf
export SLURM_CONF=$CONF
unset SLURM_JWT
log() { echo "[local-slurm stop] $*" >&2; }
# running PID: exists and is not a zombie (an exited daemon stays a zombie until PID 1 reaps it,
# which on some machines takes ~2 s)
running() { kill -0 "$1" 2>/dev/null && [ "$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -c1)" != Z ]; }
pid_alive() { [ -f "$1" ] && running "$(cat "$1" 2>/dev/null)"; }
stop_pidfiles() {  # stop_pidfiles NAME=FILE... : SIGTERM all at once, wait up to 15 s, then SIGKILL
  local spec name f pid pids="" left=""
  for spec in "$@"; do
    name=${spec%%=*}; f=${spec#*=}
    if pid_alive "$f"; then pid=$(cat "$f"); kill -TERM "$pid" 2>/dev/null; pids="$pids $name:$pid"; fi
    rm -f "$f"
  done
  for _ in $(seq 1 150); do
    left=""; for spec in $pids; do running "${spec#*:}" && left="$left $spec"; done
    [ -z "$left" ] && break; sleep 0.1
  done
  for spec in $left; do log "${spec%%:*} (pid ${spec#*:}) ignored SIGTERM for 15 s: SIGKILL"; kill -KILL "${spec#*:}" 2>/dev/null; done
  for spec in $pids; do log "stopped ${spec%%:*} (pid ${spec#*:})"; done
}

# 1. cancel every job of this cluster while the controller still runs; wait for them to end
if pid_alive "$DIR/slurmctld.pid" && [ -f "$CONF" ]; then
  mapfile -t jobs < <(squeue -h -o %A -t PENDING,RUNNING,SUSPENDED,COMPLETING,CONFIGURING 2>/dev/null)
  if [ "${#jobs[@]}" -gt 0 ]; then
    log "cancelling jobs: ${jobs[*]}"
    scancel "${jobs[@]}" 2>/dev/null
    for _ in $(seq 1 150); do   # KillWait=5 in our slurm.conf; allow up to 15 s
      [ -z "$(squeue -h -o %A -t RUNNING,COMPLETING,CONFIGURING 2>/dev/null)" ] && break
      sleep 0.1
    done
  fi
fi

# 2. daemons, by their pid files (order matters: clients of a daemon go first)
# (netns mode: the socat forwarders go at the same time (socat takes ~1 s to exit), and also the
# per-connection socats they forked)
specs=("slurmd=$DIR/slurmd.pid"); kids=""
for f in "$DIR"/slurmd-*.pid "$DIR"/fwd-*.pid; do
  [ -f "$f" ] || continue
  specs+=("$(basename "$f" .pid)=$f")
  case $f in */fwd-*) pid_alive "$f" && kids="$kids $(cat /proc/"$(cat "$f")"/task/*/children 2>/dev/null | xargs)";; esac
done
stop_pidfiles "${specs[@]}" slurmctld="$DIR/slurmctld.pid"
for pid in $kids; do kill -TERM "$pid" 2>/dev/null; done

# 3. job step daemons of THIS cluster that outlived slurmd (executable slurmstepd + our SLURM_CONF)
for p in /proc/[0-9]*; do
  pid=${p#/proc/}
  [ "$(readlink "$p/exe" 2>/dev/null)" = /usr/sbin/slurmstepd ] || continue
  tr '\0' '\n' <"$p/environ" 2>/dev/null | grep -qx "SLURM_CONF=$CONF" || continue
  log "killing leftover slurmstepd pid $pid"
  kill -KILL "$pid" 2>/dev/null
done

# 3b. netns mode: delete the host link, then our network namespaces; whatever still runs inside
# them can only be a process of this cluster (a job's child that escaped), so it is killed by pid first
if [ -f "$DIR/host-link" ]; then
  read -r hif _ <"$DIR/host-link"
  if [ -n "${hif:-}" ] && [ -e "/sys/class/net/$hif" ]; then
    ip link del "$hif" 2>/dev/null && log "deleted host link $hif" || log "warning: could not delete $hif"
  fi
  rm -f "$DIR/host-link"
fi
if [ -f "$DIR/netns.list" ]; then
  while read -r ns; do
    [ -n "$ns" ] && [ -e "/run/netns/$ns" ] || continue
    pids=$(ip netns pids "$ns" 2>/dev/null | xargs)
    if [ -n "$pids" ]; then
      log "killing leftover processes in netns $ns: $pids"
      # shellcheck disable=SC2086  # a list of pids
      kill -KILL $pids 2>/dev/null; sleep 0.2
    fi
    ip netns del "$ns" 2>/dev/null && log "deleted netns $ns" || log "warning: could not delete netns $ns"
  done <"$DIR/netns.list"
  rm -f "$DIR/netns.list"
fi

# 4. munged, only if the start script started it (and it is still that same process); kept when
# the start script restarts a cluster (LOCAL_SLURM_KEEP_MUNGE=1)
if [ -f "$DIR/munged.pid.ours" ] && [ "${LOCAL_SLURM_KEEP_MUNGE:-0}" != 1 ]; then
  if [ "$(cat /run/munge/munged.pid 2>/dev/null)" = "$(cat "$DIR/munged.pid.ours")" ]; then
    stop_pidfiles munged=/run/munge/munged.pid
  fi
  rm -f "$DIR/munged.pid.ours"
fi

# 5. /etc/slurm/slurm.conf symlink, only if it is ours
if [ -f "$DIR/etc-link.ours" ]; then
  [ "$(readlink /etc/slurm/slurm.conf 2>/dev/null)" = "$CONF" ] && rm -f /etc/slurm/slurm.conf
  rm -f "$DIR/etc-link.ours"
fi
rm -f "$DIR/options"

if [ "${LOCAL_SLURM_PURGE:-0}" = 1 ]; then rm -rf "${DIR:?}" && log "removed $DIR"; fi
log "stopped"
exit 0
