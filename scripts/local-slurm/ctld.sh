#!/usr/bin/env bash
# ctld.sh stop|start|status - stop or start ONLY slurmctld of the cluster start.sh made (same
# LOCAL_SLURM_DIR), to test clients across a controller outage. Jobs survive: slurmctld saves its
# state on SIGTERM and recovers it on start, and slurmd keeps running them meanwhile. slurmd, the
# forwarders and the network namespaces are left alone. Keep outages short: the cluster is shared.
#   ctld.sh stop     SIGTERM slurmctld (by its pid file), wait until it is gone (SIGKILL after 15 s)
#   ctld.sh start    start it exactly as start.sh does (in the controller's namespace in netns
#                    mode) and wait until `scontrol ping` says UP
#   ctld.sh status   prints "up" or "down"
set -euo pipefail
DIR=${LOCAL_SLURM_DIR:-/tmp/local-slurm}
CONF=$DIR/etc/slurm.conf
TIMEOUT=${LOCAL_SLURM_TIMEOUT:-60}
export SLURM_CONF=$CONF
unset SLURM_JWT
PIDFILE=$DIR/slurmctld.pid
die() { echo "local-slurm ctld: ERROR: $*" >&2; exit 1; }
# running PID: exists and is not a zombie
running() { kill -0 "$1" 2>/dev/null && [ "$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -c1)" != Z ]; }
pid_alive() { [ -f "$PIDFILE" ] && running "$(cat "$PIDFILE" 2>/dev/null)"; }
ctld_up() { scontrol ping 2>/dev/null | grep -q 'is UP'; }

[ -f "$CONF" ] || die "no cluster in $DIR (run start.sh first)"
case ${1:-} in
  status)
    if pid_alive; then echo up; else echo down; fi ;;
  stop)
    pid_alive || { echo "slurmctld is not running" >&2; exit 0; }
    pid=$(cat "$PIDFILE")
    kill -TERM "$pid"
    for _ in $(seq 1 150); do running "$pid" || break; sleep 0.1; done
    running "$pid" && { echo "slurmctld (pid $pid) ignored SIGTERM for 15 s: SIGKILL" >&2; kill -KILL "$pid"; }
    echo "stopped slurmctld (pid $pid)" >&2 ;;
  start)
    pid_alive && { echo "slurmctld already runs (pid $(cat "$PIDFILE"))" >&2; exit 0; }
    [ "$(id -u)" = 0 ] || die "must run as root (SlurmUser=root)"
    in_ctl=()
    ctl_ns=$(grep -m1 'ctl$' "$DIR/netns.list" 2>/dev/null || true)  # start.sh lists the controller's first
    [ -n "$ctl_ns" ] && in_ctl=(nsenter "--net=/run/netns/$ctl_ns")
    "${in_ctl[@]}" slurmctld -f "$CONF" -i || die "slurmctld failed to start (log: $DIR/log/slurmctld.log)"
    for _ in $(seq 1 $((TIMEOUT * 10))); do ctld_up && break; sleep 0.1; done
    ctld_up || die "slurmctld did not answer 'scontrol ping' within ${TIMEOUT}s (log: $DIR/log/slurmctld.log)"
    echo "started slurmctld (pid $(cat "$PIDFILE"))" >&2 ;;
  *)
    echo "usage: $0 stop|start|status" >&2; exit 2 ;;
esac
