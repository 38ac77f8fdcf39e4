#!/usr/bin/env bash
# host-link.sh up|down|status - cut or restore the "login node" link of the local test cluster.
#
# In netns mode start.sh gives the host (the login node) an address on the compute nodes' subnet
# (default 10.254.0.2/24) through a veth pair: the host end (default lslurm-host) lives in the host
# namespace, the other end (vhost) is plugged into the bridge br0 of the controller namespace.
#   down    unplug the bridge end (vhost down): the host keeps its address and route, but the link has
#           no carrier, so every connection from the host to a node (and from a job to the host)
#           fails with "No route to host" after ~3 s of ARP (EHOSTUNREACH) - nothing leaks to the
#           host's default route. Slurm commands keep working: they reach slurmctld through
#           127.0.0.1:6817, a forwarder that does not use this link
#   up      plug it back in (connections work again at once)
#   status  print "up" or "down" (exit 0 if up, 1 if down, 2 if there is no host link)
# Idempotent. Knob: LOCAL_SLURM_DIR (default /tmp/local-slurm).
set -euo pipefail
DIR=${LOCAL_SLURM_DIR:-/tmp/local-slurm}
cmd=${1:-status}
case $cmd in up|down|status) ;; *) echo "usage: $0 up|down|status" >&2; exit 2;; esac
if [ ! -f "$DIR/host-link" ]; then
  echo "host-link: no host link in $DIR (cluster not running, or not netns mode with LOCAL_SLURM_HOST_LINK=1)" >&2
  exit 2
fi
read -r IF ADDR NS PEER <"$DIR/host-link"
if [ ! -e "/sys/class/net/$IF" ]; then
  echo "host-link: interface $IF is missing (cluster stopped?); restart with scripts/local-slurm/start.sh" >&2
  exit 2
fi
# up = the host end is administratively up, has carrier (vhost is up) and its connected route exists
is_up() {
  [ "$(cat "/sys/class/net/$IF/carrier" 2>/dev/null)" = 1 ] && ip -4 route show dev "$IF" | grep -q .
}
case $cmd in
  down)
    ip -n "$NS" link set dev "$PEER" down
    # no cached neighbour on either side: connections fail by ARP (EHOSTUNREACH) instead of hanging
    ip neigh flush dev "$IF" 2>/dev/null || true
    if [ -f "$DIR/netns.list" ]; then
      while read -r ns; do ip -n "$ns" neigh flush to "$ADDR" 2>/dev/null || true; done <"$DIR/netns.list"
    fi
    echo "host-link: down ($IF $ADDR unplugged from br0: the host cannot reach the nodes)" >&2
    ;;
  up)
    ip -4 addr show dev "$IF" | grep -q " $ADDR/" || ip addr add "$ADDR/24" dev "$IF"
    ip link set dev "$IF" up
    ip -n "$NS" link set dev "$PEER" master br0 up
    for _ in $(seq 1 50); do is_up && break; sleep 0.1; done   # carrier + route come back at once
    is_up || { echo "host-link: $IF did not come up" >&2; exit 1; }
    echo "host-link: up ($IF $ADDR)" >&2
    ;;
  status)
    if is_up; then echo up; exit 0; else echo down; exit 1; fi
    ;;
esac
