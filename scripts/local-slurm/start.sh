#!/usr/bin/env bash
# start.sh - start a REAL Slurm cluster from Debian bookworm's packages (Slurm 22.05.8) on this
# machine, with fake GPUs, so tests and demos submit real batch jobs. Default: 3 nodes
# (node1..node3), each in its own network namespace with its own eth0 address 10.254.0.(10+i), and
# a "login node" link that gives the host 10.254.0.2 on the same subnet (see README.md).
#
#   sudo scripts/local-slurm/start.sh           # prints "export SLURM_CONF=..." on success
#   source /tmp/local-slurm/env.sh              # export SLURM_CONF=/tmp/local-slurm/etc/slurm.conf
#
# - installs the packages it needs if they are missing (apt-get; runs apt-get update if needed)
# - idempotent: if the cluster in $LOCAL_SLURM_DIR is already up (same options), it only re-checks
# - every real start is a FRESH cluster: state, spool and logs are wiped, job ids restart at 1
# - fails loudly (exit 1 + last log lines) if a daemon dies or something is not up within
#   $LOCAL_SLURM_TIMEOUT seconds
# - needs root (slurmd must run as root; SlurmUser=root)
# Stop with stop.sh (kills only what this script started, by pid file).
#
# Knobs (environment variables, all optional):
#   LOCAL_SLURM_DIR         config/state/log dir                  (default /tmp/local-slurm)
#   LOCAL_SLURM_NODES       number of Slurm nodes (slurmd daemons) (default 3; 1 = single node on
#                           127.0.0.1 named `hostname -s`)
#   LOCAL_SLURM_NET         netns = one network namespace per node (eth0 = $LOCAL_SLURM_SUBNET.(10+i)/24,
#                             own 127.0.0.1), slurmctld in its own namespace; needs socat (default)
#                           loopback = all slurmds in the host network namespace, node i at
#                             127.0.0.(10+i), slurmd port $LOCAL_SLURM_SLURMD_PORT_BASE+i
#   LOCAL_SLURM_HOST_LINK   netns mode: 1 = give the host ("login node") $LOCAL_SLURM_HOST_ADDR on the
#                           nodes' subnet through a veth pair (host end: ${LOCAL_SLURM_NETNS_PREFIX}host)
#                           whose other end is plugged into the bridge br0 (default 1);
#                           host-link.sh down|up cuts and restores it
#   LOCAL_SLURM_HOST_ADDR   the host's address on that subnet        (default $LOCAL_SLURM_SUBNET.2)
#   LOCAL_SLURM_GPUS        fake GPUs per node                    (default 8)
#   LOCAL_SLURM_GPU_TYPE    GPU type, e.g. h100 -> Gres=gpu:h100:8 (default none -> Gres=gpu:8)
#   LOCAL_SLURM_CPUS        CPUs advertised (may exceed the real count) (default 16)
#   LOCAL_SLURM_MEM_MB      RealMemory advertised, MB (not enforced) (default 256000)
#   LOCAL_SLURM_PARTITION   partition name (Default=YES)          (default gpu)
#   LOCAL_SLURM_NODE        node name (single-node mode only)    (default `hostname -s`)
#   LOCAL_SLURM_NODE_PREFIX node names are PREFIX1..PREFIXn        (default node)
#   LOCAL_SLURM_UTS         own hostname + /etc/hosts per node (unshare --uts --mount):
#                           auto (if unshare works) | 1 (required) | 0   (default auto; netns needs it)
#   LOCAL_SLURM_SLURMD_PORT_BASE  loopback mode: node i listens on BASE+i (default 6900)
#   LOCAL_SLURM_SUBNET      netns mode: first 3 octets of the private /24 (controller .1, host .2,
#                           node i .(10+i))                       (default 10.254.0)
#   LOCAL_SLURM_NETNS_PREFIX  netns mode: namespace names PREFIXctl, PREFIXnode1.. (default lslurm-)
#   LOCAL_SLURM_CTLD_PORT / LOCAL_SLURM_SLURMD_PORT               (default 6817 / 6818)
#   LOCAL_SLURM_TIMEOUT     seconds allowed for each wait         (default 60)
#   LOCAL_SLURM_SMOKE       1 = run a smoke job (one srun task on every node) before returning (default 1)
#   LOCAL_SLURM_LINK_ETC    1 = symlink /etc/slurm/slurm.conf -> ours if that path is free (default 1)
set -euo pipefail

DIR=${LOCAL_SLURM_DIR:-/tmp/local-slurm}
# one start at a time per cluster: two test workers that found it down both started it, and nodes.txt listed every
# node twice (a 3-node cluster read as 6, so a job for "every node" waited for nodes that do not exist). flock -o:
# the daemons started below do not inherit the lock, which ends with this start
if [ -z "${LOCAL_SLURM_START_LOCKED:-}" ]; then
  mkdir -p "$DIR"
  LOCAL_SLURM_START_LOCKED=1 exec flock -o "$DIR/.start.lock" bash "$0" "$@"
fi
unset LOCAL_SLURM_START_LOCKED
GPUS=${LOCAL_SLURM_GPUS:-8}
GPU_TYPE=${LOCAL_SLURM_GPU_TYPE:-}
CPUS=${LOCAL_SLURM_CPUS:-16}
MEM_MB=${LOCAL_SLURM_MEM_MB:-256000}
PART=${LOCAL_SLURM_PARTITION:-gpu}
HOST=$(hostname -s)
NODE=${LOCAL_SLURM_NODE:-$HOST}
CTLD_PORT=${LOCAL_SLURM_CTLD_PORT:-6817}
SLURMD_PORT=${LOCAL_SLURM_SLURMD_PORT:-6818}
TIMEOUT=${LOCAL_SLURM_TIMEOUT:-60}
SMOKE=${LOCAL_SLURM_SMOKE:-1}
LINK_ETC=${LOCAL_SLURM_LINK_ETC:-1}
NODES=${LOCAL_SLURM_NODES:-3}
NET=${LOCAL_SLURM_NET:-netns}
PREFIX=${LOCAL_SLURM_NODE_PREFIX:-node}
UTS=${LOCAL_SLURM_UTS:-auto}
PORT_BASE=${LOCAL_SLURM_SLURMD_PORT_BASE:-6900}
SUBNET=${LOCAL_SLURM_SUBNET:-10.254.0}
NSP=${LOCAL_SLURM_NETNS_PREFIX:-lslurm-}
HOST_LINK=${LOCAL_SLURM_HOST_LINK:-1}
HOST_ADDR=${LOCAL_SLURM_HOST_ADDR:-$SUBNET.2}
HOST_IF=${NSP}host
CONF=$DIR/etc/slurm.conf
export SLURM_CONF=$CONF   # slurmd derives the gres.conf path from this variable
unset SLURM_JWT           # would switch the client commands (and srun in jobs) to auth/jwt
case $NODES in ''|*[!0-9]*) echo "local-slurm: ERROR: LOCAL_SLURM_NODES must be a number" >&2; exit 1;; esac
[ "$NODES" -ge 1 ] && [ "$NODES" -le 200 ] || { echo "local-slurm: ERROR: LOCAL_SLURM_NODES must be 1..200" >&2; exit 1; }
case $NET in loopback|netns) ;; *) echo "local-slurm: ERROR: LOCAL_SLURM_NET must be loopback or netns" >&2; exit 1;; esac
[ "${#HOST_IF}" -le 15 ] || { echo "local-slurm: ERROR: LOCAL_SLURM_NETNS_PREFIX too long (interface name $HOST_IF > 15 chars)" >&2; exit 1; }
[ "$NODES" -gt 1 ] && [ "$NET" = netns ] || HOST_LINK=0
OPTIONS="gpus=$GPUS type=$GPU_TYPE cpus=$CPUS mem=$MEM_MB part=$PART node=$NODE ports=$CTLD_PORT,$SLURMD_PORT"
if [ "$NODES" -gt 1 ]; then
  OPTIONS="$OPTIONS nodes=$NODES net=$NET prefix=$PREFIX uts=$UTS portbase=$PORT_BASE subnet=$SUBNET nsp=$NSP hostlink=$HOST_LINK:$HOST_ADDR"
  NODE_LIST=""; for ((i = 1; i <= NODES; i++)); do NODE_LIST="$NODE_LIST $PREFIX$i"; done
  NODE_RANGE="${PREFIX}[1-$NODES]"
else
  NODE_LIST=" $NODE"; NODE_RANGE=$NODE
fi
# node_addr I / node_port I: where slurmctld and srun reach node I (multi-node mode)
node_addr() { if [ "$NET" = netns ]; then echo "$SUBNET.$((10 + $1))"; else echo "127.0.0.$((10 + $1))"; fi; }
node_port() { if [ "$NET" = netns ]; then echo "$SLURMD_PORT"; else echo "$((PORT_BASE + $1))"; fi; }

T0=$(date +%s%N)
log() { local ms=$(( ($(date +%s%N) - T0) / 1000000 )); printf '[local-slurm %3d.%01ds] %s\n' $((ms / 1000)) $((ms % 1000 / 100)) "$*" >&2; }
dump_logs() {
  local f
  for f in "$DIR"/log/slurmctld.log "$DIR"/log/slurmd.log "$DIR"/log/slurmd-*.log "$DIR"/log/fwd-*.log \
           /var/log/munge/munged.log; do
    [ -s "$f" ] && { echo "----- last lines of $f -----" >&2; tail -n 25 "$f" >&2; }
  done
  # (only with a live slurmctld: otherwise scontrol retries for ~10 s)
  if pid_alive "$DIR/slurmctld.pid"; then
    if [ "$NODES" = 1 ]; then scontrol show node "$NODE" >&2 2>/dev/null || true
    else sinfo -N -o '%N %T %E' >&2 2>/dev/null || true; fi
  fi
}
die() { echo "local-slurm: ERROR: $*" >&2; dump_logs; exit 1; }
# running PID: exists and is not a zombie (an exited daemon stays a zombie until PID 1 reaps it,
# which on some machines takes ~2 s)
running() { kill -0 "$1" 2>/dev/null && [ "$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -c1)" != Z ]; }
pid_alive() { [ -f "$1" ] && running "$(cat "$1" 2>/dev/null)"; }
port_busy() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
# wait_for SECONDS DESCRIPTION CMD... : poll CMD every 0.1 s. Fails fast (after a 3 s grace for
# pid files to appear) if a daemon listed in WATCH_PIDFILES is not alive any more.
WATCH_PIDFILES=""
wait_for() {
  local secs=$1 what=$2; shift 2
  local now start f
  start=$(date +%s)
  until "$@" >/dev/null 2>&1; do
    now=$(date +%s)
    if [ $((now - start)) -ge 3 ]; then
      for f in $WATCH_PIDFILES; do
        pid_alive "$f" || die "$what: the daemon of $f is not running (it exited; see its log below)"
      done
    fi
    [ $((now - start)) -ge "$secs" ] && die "$what did not happen within ${secs}s"
    sleep 0.1
  done
}

[ "$(id -u)" = 0 ] || die "must run as root (slurmd needs root; SlurmUser=root)"

# ------------------------------------------------------------------------------ 1. packages
PKGS="slurmctld slurmd slurm-client munge"
[ "$NODES" -gt 1 ] && [ "$NET" = netns ] && PKGS="$PKGS socat iproute2"
missing=()
for p in $PKGS; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
  log "installing: ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  APTLOG=${TMPDIR:-/tmp}/local-slurm-apt.log
  # policy-rc.d / no systemd: postinst cannot start services; that is fine, we start them here
  if ! apt-get install -y --no-install-recommends -o DPkg::Lock::Timeout=120 "${missing[@]}" >"$APTLOG" 2>&1; then
    log "apt-get install failed; running apt-get update and retrying"
    apt-get update >>"$APTLOG" 2>&1 || true
    apt-get install -y --no-install-recommends -o DPkg::Lock::Timeout=120 "${missing[@]}" >>"$APTLOG" 2>&1 \
      || { tail -n 30 "$APTLOG" >&2; die "apt-get install ${missing[*]} failed (log: $APTLOG)"; }
  fi
  log "installed"
fi
log "slurm $(slurmd -V 2>/dev/null | awk '{print $2}')"

# ------------------------------------------------------------------------------ 2. munge
mkdir -p "$DIR"
munge_ok() { munge -n 2>/dev/null | unmunge >/dev/null 2>&1; }
if munge_ok; then
  [ -f "$DIR/munged.pid.ours" ] || log "munged already answering (not started by this script)"
else
  getent passwd munge >/dev/null || die "user 'munge' missing (package munge not installed correctly?)"
  install -d -o munge -g munge -m 0700 /etc/munge /var/log/munge
  install -d -o munge -g munge -m 0711 /var/lib/munge
  install -d -o munge -g munge -m 0755 /run/munge
  if [ ! -s /etc/munge/munge.key ]; then   # Debian's postinst normally creates it
    log "creating /etc/munge/munge.key"
    if command -v mungekey >/dev/null; then mungekey --create --force --keyfile=/etc/munge/munge.key
    else dd if=/dev/urandom of=/etc/munge/munge.key bs=1 count=1024 status=none; fi
  fi
  chown munge:munge /etc/munge/munge.key; chmod 0400 /etc/munge/munge.key
  # a pid file of a dead munged makes it refuse to start
  if [ -f /run/munge/munged.pid ] && ! pid_alive /run/munge/munged.pid; then
    rm -f /run/munge/munged.pid /run/munge/munge.socket.2 /run/munge/munge.socket.2.lock
  fi
  runuser -u munge -- /usr/sbin/munged || die "munged failed to start"
  wait_for "$TIMEOUT" "munged answering" munge_ok
  cp /run/munge/munged.pid "$DIR/munged.pid.ours"   # the stop script stops munged only if we started it
  log "munged started (pid $(cat "$DIR/munged.pid.ours"))"
fi

# ------------------------------------------------------------------------------ 3. already running?
# nodes_in STATE_REGEX: true if all our nodes are known to slurmctld and in one of these states
nodes_in() {
  local out
  out=$(sinfo -h -N -n "$NODE_RANGE" -o '%N %T' 2>/dev/null | sort -u) || return 1
  [ "$(echo "$out" | grep -cE " ($1)\$")" = "$NODES" ]
}
node_idle()   { nodes_in 'idle'; }
node_usable() { nodes_in 'idle|mixed|allocated|completing'; }
ctld_up()     { scontrol ping 2>/dev/null | grep -q 'is UP'; }
host_link_ok() { [ "$HOST_LINK" = 0 ] || [ -e "/sys/class/net/$HOST_IF" ]; }
# pid files of this cluster's daemons, in stop order (forwarders fwd-*: netns mode)
our_pidfiles() {
  local f
  for f in "$DIR"/slurmd.pid "$DIR"/slurmd-*.pid "$DIR"/slurmctld.pid "$DIR"/fwd-*.pid; do
    [ -f "$f" ] && echo "$f"
  done
}
# netns mode: delete the host link and the namespaces this script created (listed in
# $DIR/host-link and $DIR/netns.list), after killing whatever still runs inside them (only our
# daemons and their job processes can be in there)
netns_teardown() {
  local ns pids
  if [ -f "$DIR/host-link" ]; then
    read -r hif _ <"$DIR/host-link" || true
    [ -n "${hif:-}" ] && [ -e "/sys/class/net/$hif" ] && { ip link del "$hif" 2>/dev/null || log "warning: could not delete $hif"; }
    rm -f "$DIR/host-link"
  fi
  [ -f "$DIR/netns.list" ] || return 0
  while read -r ns; do
    [ -n "$ns" ] && [ -e "/run/netns/$ns" ] || continue
    pids=$(ip netns pids "$ns" 2>/dev/null | xargs)
    if [ -n "$pids" ]; then
      log "killing leftover processes in netns $ns: $pids"
      # shellcheck disable=SC2086  # a list of pids
      kill -KILL $pids 2>/dev/null || true; sleep 0.2
    fi
    ip netns del "$ns" 2>/dev/null || log "warning: could not delete netns $ns"
  done <"$DIR/netns.list"
  rm -f "$DIR/netns.list"
}
if [ "$NODES" -gt 1 ]; then
  SLURMD_PIDFILES=""; for n in $NODE_LIST; do SLURMD_PIDFILES="$SLURMD_PIDFILES $DIR/slurmd-$n.pid"; done
else
  SLURMD_PIDFILES="$DIR/slurmd.pid"
fi
running=""
for f in $(our_pidfiles); do pid_alive "$f" && running="$running $(basename "$f" .pid)"; done
if [ -n "$running" ]; then
  want="$SLURMD_PIDFILES $DIR/slurmctld.pid"
  [ "$NODES" -gt 1 ] && [ "$NET" = netns ] && want="$want $DIR/fwd-host.pid"
  all=1; for f in $want; do pid_alive "$f" || all=0; done
  if [ "$all" = 1 ] && [ "$(cat "$DIR/options" 2>/dev/null)" = "$OPTIONS" ] && ctld_up && node_usable && host_link_ok; then
    if [ "$HOST_LINK" = 1 ] && [ "$(cat "/sys/class/net/$HOST_IF/carrier" 2>/dev/null)" != 1 ]; then
      ip -n "${NSP}ctl" link set dev vhost master br0 up && log "host link $HOST_IF was cut (host-link.sh down): restored"
    fi
    log "already running:$running (same options) - nothing to do"
    cat "$DIR/env.sh"
    exit 0
  fi
  log "a previous cluster in $DIR is (partly) running with other options or unhealthy:$running - restarting it"
  # the stop script cancels the jobs first and cleans up leftover slurmstepd and namespaces
  stop_script=$(dirname "$(readlink -f "$0")")/stop.sh
  if [ -f "$stop_script" ]; then
    LOCAL_SLURM_DIR=$DIR LOCAL_SLURM_KEEP_MUNGE=1 LOCAL_SLURM_PURGE=0 bash "$stop_script" 2>&1 | sed 's/^/    /' >&2 || true
  fi
  for f in $(our_pidfiles); do
    if pid_alive "$f"; then
      pid=$(cat "$f"); kill "$pid" 2>/dev/null || true
      for _ in $(seq 1 100); do running "$pid" || break; sleep 0.1; done
      running "$pid" && kill -KILL "$pid" 2>/dev/null
      log "stopped leftover $(basename "$f" .pid) (pid $pid)"
    fi
    rm -f "$f"
  done
fi
netns_teardown
ports="$CTLD_PORT"
if [ "$NODES" = 1 ]; then ports="$ports $SLURMD_PORT"
elif [ "$NET" = loopback ]; then for ((i = 1; i <= NODES; i++)); do ports="$ports $(node_port "$i")"; done; fi
for p in $ports; do
  port_busy "$p" && die "TCP port $p on 127.0.0.1 is already in use (another Slurm?); see the LOCAL_SLURM_*_PORT knobs"
done
if [ "$HOST_LINK" = 1 ]; then
  [ -e "/sys/class/net/$HOST_IF" ] && die "interface $HOST_IF exists already in the host namespace and is not ours: 'ip link del $HOST_IF' removes it"
  if ip -4 route show | grep -q "^$SUBNET\.0/24 "; then
    die "the host already has a route to $SUBNET.0/24 ($(ip -4 route show | grep "^$SUBNET\.0/24 ")): pick another LOCAL_SLURM_SUBNET"
  fi
fi

# ------------------------------------------------------------------------------ 4. config (fresh every start)
rm -rf "${DIR:?}/state" "${DIR:?}/spool" "${DIR:?}/dev" "${DIR:?}/etc" "${DIR:?}/log" "${DIR:?}/options" "${DIR:?}/mnt"
mkdir -p "$DIR/etc" "$DIR/state" "$DIR/spool" "$DIR/log" "$DIR/dev"
rm -f "$DIR/nodes.txt" "$DIR/mode"
# Slurm 22.05 drops GPUs without File= ("Removing file-less GPU") and rejects regular files
# ("is not a valid character or block device"): symlinks to /dev/null are accepted.
# The trailing number of each file name is the GPU index -> CUDA_VISIBLE_DEVICES=0,1,...
for ((i = 0; i < GPUS; i++)); do ln -sfn /dev/null "$DIR/dev/gpu$i"; done
if [ -n "$GPU_TYPE" ]; then GRES="gpu:$GPU_TYPE:$GPUS"; TYPE_KV="Type=$GPU_TYPE "; else GRES="gpu:$GPUS"; TYPE_KV=""; fi
GRES_KV="Gres=$GRES"; [ "$GPUS" = 0 ] && GRES_KV=""
if [ "$NODES" -gt 1 ]; then
  # one slurmd per node on this host: per-node spool dir, pid file and log (%n = node name; the
  # stock slurmd expands %n even without --enable-multiple-slurmd)
  SLURMD_PATHS="SlurmdSpoolDir=$DIR/spool/%n
SlurmdPidFile=$DIR/slurmd-%n.pid
SlurmdLogFile=$DIR/log/slurmd-%n.log"
  NODE_LINES=""
  for ((i = 1; i <= NODES; i++)); do
    n=$PREFIX$i
    mkdir -p "$DIR/spool/$n"   # else slurmd logs "Domain socket directory ...: No such file or directory"
    NODE_LINES="$NODE_LINES
NodeName=$n NodeAddr=$(node_addr "$i") Port=$(node_port "$i") CPUs=$CPUS Boards=1 SocketsPerBoard=1 CoresPerSocket=$CPUS ThreadsPerCore=1 RealMemory=$MEM_MB $GRES_KV State=UNKNOWN"
    echo "$n $(node_addr "$i") $(node_port "$i")" >>"$DIR/nodes.txt"
  done
  # /etc/hosts as seen inside the nodes (bind-mounted over /etc/hosts in each node's mount namespace
  # when LOCAL_SLURM_UTS is on): the host's entries + one line per node (+ controller and login node)
  { cat /etc/hosts 2>/dev/null; echo "# local-slurm nodes ($NET)"
    [ "$NET" = netns ] && echo "$SUBNET.1 $HOST-ctl"
    [ "$HOST_LINK" = 1 ] && echo "$HOST_ADDR $HOST-login"
    while read -r n a _; do echo "$a $n"; done <"$DIR/nodes.txt"; } >"$DIR/etc/hosts"
else
  SLURMD_PATHS="SlurmdSpoolDir=$DIR/spool
SlurmdPidFile=$DIR/slurmd.pid
SlurmdLogFile=$DIR/log/slurmd.log"
  NODE_LINES="NodeName=$NODE NodeAddr=127.0.0.1 CPUs=$CPUS Boards=1 SocketsPerBoard=1 CoresPerSocket=$CPUS ThreadsPerCore=1 RealMemory=$MEM_MB $GRES_KV State=UNKNOWN"
fi
cat >"$CONF" <<EOF
# generated by scripts/local-slurm/start.sh ($OPTIONS)
ClusterName=local
SlurmctldHost=$HOST(127.0.0.1)
SlurmctldPort=$CTLD_PORT
SlurmdPort=$SLURMD_PORT
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
StateSaveLocation=$DIR/state
SlurmctldPidFile=$DIR/slurmctld.pid
SlurmctldLogFile=$DIR/log/slurmctld.log
$SLURMD_PATHS
SlurmctldDebug=info
SlurmdDebug=info
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
MpiDefault=none
SwitchType=switch/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
GresTypes=gpu
# no slurmdbd: sacct does not work ("Slurm accounting storage is disabled"); finished jobs stay
# visible to squeue/scontrol for MinJobAge seconds and are appended to the jobcomp text file
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/filetxt
JobCompLoc=$DIR/log/jobcomp.txt
SchedulerType=sched/backfill
# default batch_sched_delay=3 keeps a new sbatch job PENDING up to 3 s; with 0 it starts within ~1 s
SchedulerParameters=batch_sched_delay=0
ReturnToService=2
# advertise CPUs/memory from this file, not the hardware (else the node is drained as "Low ... count")
SlurmdParameters=config_overrides
# finished jobs stay visible to squeue/scontrol for 1 h
MinJobAge=3600
KillWait=5
InactiveLimit=0
MailProg=/bin/true
$NODE_LINES
PartitionName=$PART Nodes=$NODE_RANGE Default=YES MaxTime=INFINITE State=UP
EOF
echo "AutoDetect=off" >"$DIR/etc/gres.conf"
# all nodes share the same /dev/null symlinks; each node schedules its own 8 GPUs
[ "$GPUS" -gt 0 ] && echo "NodeName=$NODE_RANGE Name=gpu ${TYPE_KV}File=$DIR/dev/gpu[0-$((GPUS - 1))]" >>"$DIR/etc/gres.conf"
: >"$DIR/etc/plugstack.conf"   # keep /etc/slurm/plugstack.conf.d out of this cluster
if [ "$LINK_ETC" = 1 ]; then
  mkdir -p /etc/slurm
  if [ ! -e /etc/slurm/slurm.conf ] || [ "$(readlink /etc/slurm/slurm.conf)" = "$CONF" ]; then
    ln -sfn "$CONF" /etc/slurm/slurm.conf && touch "$DIR/etc-link.ours"
  else
    log "note: /etc/slurm/slurm.conf exists and is not ours; clients MUST set SLURM_CONF=$CONF"
  fi
fi

# ------------------------------------------------------------------------------ 5. daemons
IN_CTL=()   # netns mode: prefix that runs a command in the controller's network namespace
if [ "$NODES" -gt 1 ]; then
  case $UTS in
    auto) if unshare --uts --mount true 2>/dev/null; then UTS=1; else UTS=0
            log "note: 'unshare --uts --mount' fails here (no CAP_SYS_ADMIN?): all nodes keep the hostname $(hostname)"; fi;;
    1) unshare --uts --mount true 2>/dev/null || die "LOCAL_SLURM_UTS=1 but 'unshare --uts --mount' fails (needs CAP_SYS_ADMIN)";;
    0) ;;
    *) die "LOCAL_SLURM_UTS must be auto, 1 or 0";;
  esac
  [ "$NET" = netns ] && [ "$UTS" = 0 ] && die "LOCAL_SLURM_NET=netns needs LOCAL_SLURM_UTS (unshare --uts --mount)"
fi
if [ "$NODES" -gt 1 ] && [ "$NET" = netns ]; then
  # One network namespace per node (eth0 = $SUBNET.(10+i)/24, its own lo/127.0.0.1) and one for
  # slurmctld, which also holds the bridge br0 that all node veths are plugged into. The host
  # ("login node") gets one veth of its own on br0 (LOCAL_SLURM_HOST_LINK): $HOST_IF with
  # $HOST_ADDR/24 and hence a route to the subnet; nothing else is added to the host.
  CTL_NS=${NSP}ctl
  IN_CTL=(nsenter "--net=/run/netns/$CTL_NS")
  for ns in $CTL_NS $(for n in $NODE_LIST; do echo "$NSP$n"; done); do
    [ -e "/run/netns/$ns" ] && die "network namespace $ns exists already (another cluster, or left over): see 'ip netns pids $ns'; 'ip netns del $ns' removes it"
  done
  ipx() { ip "$@" || die "'ip $*' failed (netns mode needs CAP_NET_ADMIN + CAP_SYS_ADMIN)"; }
  log "creating network namespaces $CTL_NS (bridge br0 $SUBNET.1/24) + $NSP${PREFIX}1..$NSP$PREFIX$NODES"
  : >"$DIR/netns.list"
  ipx netns add "$CTL_NS"; echo "$CTL_NS" >>"$DIR/netns.list"
  ipx -n "$CTL_NS" link set lo up
  ipx -n "$CTL_NS" link add br0 type bridge
  ipx -n "$CTL_NS" addr add "$SUBNET.1/24" dev br0
  ipx -n "$CTL_NS" link set br0 up
  # nodes get a default route via br0 so that "which IP do I use" lookups (UDP connect to any
  # address) give the node's eth0 address; the controller namespace answers anything beyond the
  # subnet with "No route to host" at once (forwarding on, unreachable default) instead of
  # silently dropping it
  "${IN_CTL[@]}" sysctl -qw net.ipv4.ip_forward=1 || die "sysctl in $CTL_NS failed"
  ipx -n "$CTL_NS" route add unreachable default
  for ((i = 1; i <= NODES; i++)); do
    ns=$NSP$PREFIX$i
    ipx netns add "$ns"; echo "$ns" >>"$DIR/netns.list"
    ipx -n "$ns" link set lo up
    ipx -n "$CTL_NS" link add "veth$i" type veth peer name eth0 netns "$ns"
    ipx -n "$CTL_NS" link set "veth$i" master br0 up
    ipx -n "$ns" addr add "$(node_addr "$i")/24" dev eth0
    ipx -n "$ns" link set eth0 up
    ipx -n "$ns" route add default via "$SUBNET.1"
  done
  if [ "$HOST_LINK" = 1 ]; then
    # the login node's link: host end $HOST_IF ($HOST_ADDR/24 -> connected route to the subnet),
    # other end "vhost" plugged into br0. Nodes reach $HOST_ADDR directly on the shared L2 segment.
    ipx link add "$HOST_IF" type veth peer name vhost netns "$CTL_NS"
    echo "$HOST_IF $HOST_ADDR $CTL_NS vhost" >"$DIR/host-link"
    ipx -n "$CTL_NS" link set vhost master br0 up
    ipx addr add "$HOST_ADDR/24" dev "$HOST_IF"
    ipx link set "$HOST_IF" up
    log "host link up: $HOST_IF $HOST_ADDR/24 <-> br0 in $CTL_NS (scripts/local-slurm/host-link.sh down|up)"
  fi
  log "network namespaces up"
fi
# listening NETNS_FILE PORT: a TCP listener on 127.0.0.1:PORT exists in that network namespace
listening() { [ -n "$(nsenter --net="$1" ss -Hltn "sport = :$2" 2>/dev/null)" ]; }
# forwarder NAME NETNS_FILE LISTEN_PORT TARGET: socat listening on 127.0.0.1:LISTEN_PORT inside the
# network namespace NETNS_FILE, relaying each connection to TARGET (a socat address)
forwarder() {
  setsid nsenter --net="$2" socat "TCP-LISTEN:$3,bind=127.0.0.1,reuseaddr,fork,backlog=512" "$4" \
    </dev/null >"$DIR/log/fwd-$1.log" 2>&1 &
  echo $! >"$DIR/fwd-$1.pid"
  WATCH_PIDFILES="$WATCH_PIDFILES $DIR/fwd-$1.pid"
  wait_for "$TIMEOUT" "forwarder $1 listening on 127.0.0.1:$3" listening "$2" "$3"
}
if [ "${#IN_CTL[@]}" -gt 0 ]; then
  # the host's clients (sbatch, squeue, ...) reach slurmctld through 127.0.0.1:$CTLD_PORT, so
  # SlurmctldHost can stay $HOST(127.0.0.1) for everybody, and Slurm commands keep working on the
  # host while host-link.sh has cut the login node's link to the compute nodes
  forwarder host "/proc/$$/ns/net" "$CTLD_PORT" "EXEC:nsenter --net=/run/netns/$CTL_NS socat STDIO TCP\:127.0.0.1\:$CTLD_PORT"
fi
log "starting slurmctld"
"${IN_CTL[@]}" slurmctld -f "$CONF" -i || die "slurmctld failed to start"
WATCH_PIDFILES="$WATCH_PIDFILES $DIR/slurmctld.pid"
wait_for "$TIMEOUT" "slurmctld answering 'scontrol ping'" ctld_up
log "slurmctld up (pid $(cat "$DIR/slurmctld.pid"))"
if [ "$NODES" -gt 1 ]; then
  log "starting $NODES slurmd ($NODE_RANGE, net=$NET, own hostname: $([ "$UTS" = 1 ] && echo yes || echo no))"
  for n in $NODE_LIST; do
    in_net=()
    if [ "$NET" = netns ]; then
      in_net=(nsenter "--net=/run/netns/$NSP$n")
      # jobs (srun, scontrol) and slurmd talk to 127.0.0.1:$CTLD_PORT inside the node -> slurmctld
      forwarder "$n" "/run/netns/$NSP$n" "$CTLD_PORT" "TCP:$SUBNET.1:$CTLD_PORT"
    fi
    # (nsenter, not 'ip netns exec': the latter remounts /sys without /sys/fs/cgroup, and slurmd
    # then dies with "Unable to initialize cgroup plugin")
    if [ "$UTS" = 1 ]; then
      # own UTS + mount namespace: hostname = node name; /etc/hosts lists all nodes' addresses;
      # netns: a fresh /sys so that /sys/class/net shows the node's lo + eth0 (keeping /sys/fs/cgroup)
      sysfs=""
      if [ "$NET" = netns ] && mountpoint -q /sys/fs/cgroup; then
        mkdir -p "$DIR/mnt/$n"
        sysfs="mount --rbind /sys/fs/cgroup $DIR/mnt/$n && mount -t sysfs sysfs /sys && mount --move $DIR/mnt/$n /sys/fs/cgroup && "
      fi
      # shellcheck disable=SC2016  # $1.. expand in the inner sh
      "${in_net[@]}" unshare --uts --mount --propagation slave sh -c \
        "${sysfs}"'hostname "$1" && mount --bind "$2" /etc/hosts && exec slurmd -f "$3" -N "$1"' sh "$n" "$DIR/etc/hosts" "$CONF" \
        || die "slurmd for $n failed to start"
    else
      slurmd -f "$CONF" -N "$n" || die "slurmd for $n failed to start"
    fi
  done
else
  log "starting slurmd (node $NODE)"
  slurmd -f "$CONF" -N "$NODE" || die "slurmd failed to start"
fi
WATCH_PIDFILES="$WATCH_PIDFILES $SLURMD_PIDFILES"
wait_for "$TIMEOUT" "node(s) $NODE_RANGE becoming idle in sinfo" node_idle
if [ "$NODES" -gt 1 ]; then
  log "$NODES slurmd up; nodes idle: $(sinfo -h -N -o '%N' | xargs) ($(sinfo -h -N -o '%c CPUs, %G, partition %P' | sort -u | xargs) each)"
else
  log "slurmd up (pid $(cat "$DIR/slurmd.pid")); node $NODE idle: $(sinfo -h -n "$NODE" -o '%c CPUs, %G, partition %P')"
fi

echo "export SLURM_CONF=$CONF" >"$DIR/env.sh"

# ------------------------------------------------------------------------------ 6. smoke job
if [ "$SMOKE" = 1 ]; then
  out=$DIR/log/smoke.out
  gpu_opt=(--gpus-per-node=1); [ "$GPUS" = 0 ] && gpu_opt=()
  # one srun task on every node
  # shellcheck disable=SC2016  # expanded in the job
  jid=$(sbatch --parsable -p "$PART" -N "$NODES" --ntasks-per-node=1 "${gpu_opt[@]}" -o "$out" -J local-slurm-smoke \
        --wrap 'srun bash -c "echo ok \$SLURMD_NODENAME \$(hostname) CUDA_VISIBLE_DEVICES=\$CUDA_VISIBLE_DEVICES"') \
    || die "sbatch of the smoke job failed"
  smoke_done() { [ "$(grep -c '^ok ' "$out")" = "$NODES" ] && [ "$(squeue -h --states=all -j "$jid" -o %T)" = COMPLETED ]; }
  wait_for "$TIMEOUT" "smoke job $jid completing" smoke_done
  log "smoke job $jid: $(sort "$out" | paste -sd ';' | sed 's/;/; /g')"
fi
echo "$OPTIONS" >"$DIR/options"
[ "$NODES" = 1 ] && NET=single && UTS=0
echo "nodes=$NODES net=$NET uts=$UTS hostlink=$HOST_LINK" >"$DIR/mode"   # what was actually set up
if [ "$NODES" -gt 1 ]; then
  log "nodes (name address slurmd-port), also in $DIR/nodes.txt:"
  sed 's/^/    /' "$DIR/nodes.txt" >&2
  if [ "$NET" = netns ]; then
    if [ "$HOST_LINK" = 1 ]; then
      log "netns mode: the host (login node) is $HOST_ADDR on the nodes' subnet (interface $HOST_IF); it reaches slurmctld via 127.0.0.1:$CTLD_PORT"
    else
      log "netns mode: the host reaches slurmctld only (via 127.0.0.1:$CTLD_PORT); use sbatch, not srun/salloc, from the host"
    fi
  fi
fi
log "ready. Clients need:  source $DIR/env.sh   (export SLURM_CONF=$CONF)"
cat "$DIR/env.sh"
