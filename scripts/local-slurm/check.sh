#!/usr/bin/env bash
# check.sh - exercise a running local cluster (started by scripts/local-slurm/start.sh):
# GPU env vars, concurrent GPU jobs, srun steps inside a batch job, JSON outputs, scancel.
# With several nodes (LOCAL_SLURM_NODES > 1) it also checks multi-node jobs: one background srun
# step per node, hostnames/addresses per node, HTTP between nodes, scancel across nodes; in netns
# mode with the host link also HTTP from the host (login node) to every node and from a job to the
# host, and that host-link.sh down/up cuts and restores exactly that.
# Exit 0 if all checks pass. Prints "N passed, N failed" at the end.
#   CHECK_HTTP_PORT  port of the per-node HTTP servers in the multi-node checks (default 8000)
set -uo pipefail
DIR=${LOCAL_SLURM_DIR:-/tmp/local-slurm}
export SLURM_CONF=$DIR/etc/slurm.conf
unset SLURM_JWT
HERE=$(dirname "$(readlink -f "$0")")
W=$(mktemp -d /tmp/local-slurm-check.XXXXXX); cd "$W" || exit 1
pass=0; fail=0
ok()  { pass=$((pass + 1)); echo "PASS $*"; }
bad() { fail=$((fail + 1)); echo "FAIL $*"; }
state() { squeue -h --states=all -j "$1" -o %T 2>/dev/null; }
wait_done() {  # wait_done JOBID [SECS] -> prints final state
  local j=$1 secs=${2:-60} s
  for ((i = 0; i < secs * 10; i++)); do
    s=$(state "$j")
    case $s in COMPLETED|FAILED|CANCELLED|TIMEOUT|NODE_FAIL|OUT_OF_MEMORY) echo "$s"; return;; esac
    sleep 0.1
  done
  echo "TIMEOUT_WAITING($s)"
}
expect() {  # expect NAME ACTUAL EXPECTED
  if [ "$2" = "$3" ]; then ok "$1: $2"; else bad "$1: got '$2' expected '$3'"; fi
}
NODES_ALL=$(sinfo -h -N -o %N | sort -u -V | xargs)
NN=$(echo "$NODES_ALL" | wc -w)
OPTS=$(cat "$DIR/options" 2>/dev/null)
NET=loopback; case " $OPTS " in *" net=netns "*) NET=netns;; esac
echo "     cluster: $NN node(s): $NODES_ALL${OPTS:+ ($OPTS)}"

# 1. GPU env for the three ways of asking for GPUs
t0=$(date +%s%N)
j=$(sbatch --parsable --gpus-per-node=2 --nodes=1 --wrap 'echo $CUDA_VISIBLE_DEVICES $SLURM_JOB_GPUS; hostname; sleep 2')
expect "gpus-per-node=2 job state" "$(wait_done "$j")" COMPLETED
echo "     trivial 2 s job: submit->COMPLETED in $(( ($(date +%s%N) - t0) / 1000000 )) ms"
expect "gpus-per-node=2 CUDA_VISIBLE_DEVICES SLURM_JOB_GPUS" "$(head -1 slurm-$j.out)" "0,1 0,1"
j=$(sbatch --parsable --gres=gpu:8 --wrap 'echo $CUDA_VISIBLE_DEVICES $SLURM_JOB_GPUS')
expect "gres=gpu:8 job" "$(wait_done "$j") $(cat slurm-$j.out)" "COMPLETED 0,1,2,3,4,5,6,7 0,1,2,3,4,5,6,7"
j=$(sbatch --parsable --gpus-per-node=8 --wrap 'echo $CUDA_VISIBLE_DEVICES')
expect "gpus-per-node=8 job" "$(wait_done "$j") $(cat slurm-$j.out)" "COMPLETED 0,1,2,3,4,5,6,7"
j=$(sbatch --parsable --gpus-per-node=9 --wrap true 2>err.txt); rc=$?
expect "gpus-per-node=9 rejected at submit" "$rc $(cat err.txt)" "1 sbatch: error: Batch job submission failed: Requested node configuration is not available"

if [ "$NN" = 1 ]; then
# 2. four 2-GPU jobs run concurrently on disjoint GPUs, a fifth waits for Resources
ids=""; for k in 1 2 3 4 5; do ids="$ids $(sbatch --parsable --gpus-per-node=2 --wrap 'echo $CUDA_VISIBLE_DEVICES; sleep 4')"; done
sleep 2
expect "running/pending with 5x2 GPUs on 8" "$(squeue -h -o %T -j "${ids// /,}" | sort | uniq -c | xargs)" "1 PENDING 4 RUNNING"
for j in $ids; do wait_done "$j" >/dev/null; done
expect "GPU sets of the 5 jobs" "$(for j in $ids; do cat slurm-$j.out; done | sort | xargs)" "0,1 0,1 2,3 4,5 6,7"
else
# 2. (multi-node) NN+1 whole-node (8-GPU) jobs: NN run, one per node, the last waits for Resources
ids=""; for ((k = 0; k <= NN; k++)); do ids="$ids $(sbatch --parsable --gpus-per-node=8 --wrap 'echo $SLURMD_NODENAME $CUDA_VISIBLE_DEVICES; sleep 4')"; done
sleep 2
expect "running/pending with $((NN + 1)) 8-GPU jobs on $NN nodes" "$(squeue -h -o %T -j "${ids// /,}" | sort | uniq -c | xargs)" "1 PENDING $NN RUNNING"
for j in $ids; do wait_done "$j" >/dev/null; done
expect "the first $NN got one node each" "$(for j in $ids; do cat slurm-$j.out; done | head -n "$NN" | awk '{print $1}' | sort -V | xargs)" "$NODES_ALL"
# more nodes than exist: accepted, then PENDING for ever (EnforcePartLimits=NO, the default), with
# Reason=PartitionConfig at first and PartitionNodeLimit after the first scheduling pass
j=$(sbatch --parsable --nodes=$((NN + 1)) --wrap true); sleep 1.5
expect "--nodes=$((NN + 1)) job pends" "$(squeue -h -j "$j" -o '%T %r' | sed 's/PartitionConfig\|PartitionNodeLimit/Partition.../')" "PENDING Partition..."
scancel "$j"
fi

# 3. orchestrator-style: concurrent srun steps inside one batch allocation
cat >steps.sh <<'EOF'
#!/bin/bash
#SBATCH --nodes=1 --ntasks=4 --gpus-per-node=4
for k in 0 1 2 3; do
  srun --exact --ntasks=1 --nodes=1 --gpus-per-node=1 bash -c 'echo "step $SLURM_STEP_ID $CUDA_VISIBLE_DEVICES $(date +%s)"; sleep 2' &
done
wait
srun --overlap --ntasks=1 --nodes=1 bash -c 'echo "overlap $CUDA_VISIBLE_DEVICES"' &
srun --overlap --ntasks=1 --nodes=1 bash -c 'echo "overlap $CUDA_VISIBLE_DEVICES"' &
wait
EOF
j=$(sbatch --parsable steps.sh)
expect "steps job" "$(wait_done "$j")" COMPLETED
expect "4 concurrent 1-GPU steps got GPUs" "$(grep ^step slurm-$j.out | awk '{print $3}' | sort | xargs)" "0 1 2 3"
expect "4 steps started within 1 s" "$(grep ^step slurm-$j.out | awk '{print $4}' | sort -u | awk 'NR==1{a=$1} END{print ($1-a<=1)}')" 1
expect "overlap steps see all job GPUs" "$(grep -c '^overlap 0,1,2,3$' slurm-$j.out)" 2

# 4. JSON / formats
j=$(sbatch --parsable -J jsoncheck --gpus-per-node=2 --wrap 'sleep 60')
for ((i = 0; i < 50; i++)); do [ "$(state "$j")" = RUNNING ] && break; sleep 0.1; done
jn=$(squeue -h -j "$j" -o %N)
expect "squeue --json job" "$(squeue --json | python3 -c "
import json,sys; d=json.load(sys.stdin); j=[x for x in d['jobs'] if x['job_id']==$j][0]
print(d['meta']['Slurm']['release'], j['job_state'], j['name'], j['tres_per_node'], j['gres_detail'], j['nodes'])")" \
  "22.05.8 RUNNING jsoncheck gres:gpu:2 ['gpu:2(IDX:0-1)'] $([ "$NN" = 1 ] && hostname -s || echo "${NODES_ALL%% *}")"
expect "sinfo --json gres_used" "$(sinfo --json | python3 -c "import json,sys; n=[n for n in json.load(sys.stdin)['nodes'] if n['name']=='$jn'][0]; print(n['gres'], n['gres_used'], n['state'])")" "gpu:8 gpu:2 mixed"
scontrol --json show job "$j" >/dev/null 2>&1 && bad "scontrol --json unexpectedly works" || ok "scontrol --json not supported on 22.05 (as expected)"
sacct --json >/dev/null 2>&1 && bad "sacct unexpectedly works" || ok "sacct fails without slurmdbd (as expected)"
expect "scontrol show job -o" "$(scontrol show job -o "$j" | grep -o 'JobState=[A-Z]* \|TresPerNode=[^ ]*' | xargs)" "JobState=RUNNING TresPerNode=gres:gpu:2"
scancel "$j"
expect "scancel -> CANCELLED" "$(wait_done "$j" 20)" CANCELLED
expect "jobcomp file has the job" "$(grep -c "JobId=$j .*JobState=CANCELLED" "$DIR/log/jobcomp.txt")" 1
j=$(sbatch --parsable --wrap 'exit 3')
expect "failing job" "$(wait_done "$j") $(scontrol show job "$j" | grep -o 'ExitCode=[0-9:]*' | head -1)" "FAILED ExitCode=3:0"

# 5. multi-node: what a process sees on each node, one background srun step per node, HTTP between
#    nodes, multi-node steps, scancel across nodes
if [ "$NN" -gt 1 ]; then
MODE=$(cat "$DIR/mode" 2>/dev/null); UTS=0; case " $MODE " in *" uts=1 "*) UTS=1;; esac
K=3; [ "$NN" -lt 3 ] && K=$NN
PORT=${CHECK_HTTP_PORT:-8000}
expect "sinfo -N: all $NN nodes idle" "$(sinfo -h -N -o '%T %G' | sort | uniq -c | xargs)" \
  "$NN idle $(sinfo -h -N -o %G | head -1)"
addr_of() { awk -v n="$1" '$1 == n {print $2}' "$DIR/nodes.txt"; }

# 5a. one background `srun --overlap --nodes=1 --ntasks=1 --nodelist=NODE` step per node
cat >multi.sh <<'EOF'
#!/bin/bash
echo "hostnames: $(scontrol show hostnames $SLURM_JOB_NODELIST | xargs)"
for node in $(scontrol show hostnames $SLURM_JOB_NODELIST); do
  srun --overlap --nodes=1 --ntasks=1 --nodelist=$node bash -c 'echo "step $SLURMD_NODENAME $(hostname) $CUDA_VISIBLE_DEVICES $(date +%s.%N) $(getent hosts $(hostname) | awk "{print \$1; exit}") $(python3 -c "import socket; s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.connect((\"198.51.100.1\", 9)); print(s.getsockname()[0])" 2>/dev/null || echo none)"; sleep 5' &
done
wait
EOF
t0=$(date +%s%N)
j=$(sbatch --parsable --nodes=$K --gpus-per-node=8 multi.sh)
expect "$K-node job with background steps" "$(wait_done "$j")" COMPLETED
echo "     $K-node job (5 s steps): submit->COMPLETED in $(( ($(date +%s%N) - t0) / 1000000 )) ms"
want=$(scontrol show hostnames "$(squeue -h -t all -j "$j" -o %N)" | xargs)
expect "scontrol show hostnames \$SLURM_JOB_NODELIST" "$(sed -n 's/^hostnames: //p' slurm-$j.out)" "$want"
grep '^step' slurm-$j.out | sort -k2V | sed 's/^/     seen: /'
expect "one step on each node (SLURMD_NODENAME)" "$(awk '/^step/ {print $2}' slurm-$j.out | sort -V | xargs)" "$want"
if [ "$UTS" = 1 ]; then
  expect "hostname = node name in every step" "$(awk '/^step/ && $2 != $3' slurm-$j.out | wc -l)" 0
  expect "each node resolves its hostname to its own address" \
    "$(awk '/^step/ {print $2, $6}' slurm-$j.out | sort -V | xargs)" "$(for n in $want; do echo "$n $(addr_of "$n")"; done | xargs)"
else
  expect "hostname in every step = the host's (LOCAL_SLURM_UTS off)" "$(awk '/^step/ {print $3}' slurm-$j.out | sort -u)" "$(hostname)"
fi
expect "each step sees all 8 GPUs" "$(awk '/^step/ {print $4}' slurm-$j.out | sort -u)" "0,1,2,3,4,5,6,7"
expect "the $K steps started within 1 s" "$(awk '/^step/ {print $5}' slurm-$j.out | sort -n | awk 'NR==1{a=$1} END{print ($1-a<1)}')" 1
if [ "$NET" = netns ]; then
  expect "netns: the route-based 'my IP' (UDP connect) is the node's address" \
    "$(awk '/^step/ {print $2, $7}' slurm-$j.out | sort -V | xargs)" "$(for n in $want; do echo "$n $(addr_of "$n")"; done | xargs)"
else
  echo "     note: loopback mode: the route-based 'my IP' (UDP connect) is $(awk '/^step/ {print $7}' slurm-$j.out | sort -u | xargs) on every node"
fi

# 5b. HTTP servers on two nodes at once (port $PORT, each bound to its node's address), fetched from
#     a third node by address (and by host name with own hostnames); netns: also 0.0.0.0 binds
cat >get.py <<'EOF'
import socket, sys, time, urllib.request
for url in sys.argv[1:]:
    deadline = time.time() + 15
    while True:
        try:
            r = "%d" % urllib.request.urlopen(url, timeout=3).status
            break
        except Exception as e:
            r = type(e).__name__ + ":" + str(getattr(e, "reason", e))
            if time.time() > deadline or url.startswith("http://127.0.0.1:"):
                break
            time.sleep(0.2)
    print("GET", url, "from", socket.gethostname(), "->", r, flush=True)
EOF
cat >http.sh <<EOF
#!/bin/bash
PORT=$PORT NET=$NET UTS=$UTS W=$W
EOF
cat >>http.sh <<'EOF'
nodes=($(scontrol show hostnames $SLURM_JOB_NODELIST))
addr() { scontrol show node "$1" | grep -o 'NodeAddr=[^ ]*' | cut -d= -f2; }
a0=$(addr ${nodes[0]}); a1=$(addr ${nodes[1]}); pids=()
srun --overlap -N1 -n1 -w ${nodes[0]} python3 -m http.server $PORT --bind $a0 >/dev/null 2>http0.err & pids+=($!)
srun --overlap -N1 -n1 -w ${nodes[1]} python3 -m http.server $PORT --bind $a1 >/dev/null 2>http1.err & pids+=($!)
urls="http://$a0:$PORT/ http://$a1:$PORT/"
[ "$UTS" = 1 ] && urls="$urls http://${nodes[0]}:$PORT/ http://${nodes[1]}:$PORT/"
srun --overlap -N1 -n1 -w ${nodes[-1]} python3 $W/get.py $urls
# the same port on all addresses (0.0.0.0) on two nodes at once
srun --overlap -N1 -n1 -w ${nodes[0]} python3 -m http.server $((PORT + 1)) >/dev/null 2>anyaddr0.err & p0=$!
sleep 1
srun --overlap -N1 -n1 -w ${nodes[1]} python3 -m http.server $((PORT + 1)) >/dev/null 2>anyaddr1.err & p1=$!
sleep 2
echo "anyaddr alive: $(kill -0 $p0 2>/dev/null && echo 1 || echo 0) $(kill -0 $p1 2>/dev/null && echo 1 || echo 0) $(grep -ho 'Address already in use' anyaddr1.err)"
if [ "$NET" = netns ]; then
  srun --overlap -N1 -n1 -w ${nodes[-1]} python3 $W/get.py http://$a0:$((PORT + 1))/ http://$a1:$((PORT + 1))/ http://127.0.0.1:$PORT/
  srun --overlap -N1 -n1 -w ${nodes[0]} bash -c 'echo "iface $(ip -br -4 addr show dev eth0 | awk "{print \$1, \$3}")"'
fi
kill "${pids[@]}" $p0 $p1 2>/dev/null; wait
EOF
j=$(sbatch --parsable --nodes=$K http.sh)
expect "HTTP job" "$(wait_done "$j" 90)" COMPLETED
sed 's/^/     /' slurm-$j.out | grep -E 'GET|anyaddr|iface'
n0=$(echo $want | cut -d' ' -f1); n1=$(echo $want | cut -d' ' -f2)
expect "servers on $n0 and $n1, both on port $PORT (own address), reachable from another node" \
  "$(grep -c "^GET http://[^ ]*:$PORT/ from .* -> 200$" slurm-$j.out)" "$([ "$UTS" = 1 ] && echo 4 || echo 2)"
if [ "$NET" = netns ]; then
  expect "netns: two 0.0.0.0:$((PORT + 1)) servers on two nodes at once" "$(sed -n 's/^anyaddr alive: //p' slurm-$j.out | xargs)" "1 1"
  expect "netns: both reachable from a third node" "$(grep -c "^GET http://[^ ]*:$((PORT + 1))/ from .* -> 200$" slurm-$j.out)" 2
  expect "netns: 127.0.0.1 is per node (nothing on the third node's 127.0.0.1:$PORT)" \
    "$(grep "^GET http://127.0.0.1:$PORT/" slurm-$j.out | grep -c 'Connection refused')" 1
  expect "netns: $n0's eth0 has its NodeAddr" "$(sed -n 's/^iface eth0@if[0-9]* //p' slurm-$j.out)" "$(addr_of "$n0")/24"
else
  expect "loopback: 0.0.0.0:$((PORT + 1)) on a 2nd node collides (shared network namespace; expected)" \
    "$(sed -n 's/^anyaddr alive: //p' slurm-$j.out | xargs)" "1 0 Address already in use"
fi

# 5c. one step over several nodes (tasks on every node at once)
j=$(sbatch --parsable --nodes=$K --ntasks-per-node=2 --wrap 'srun bash -c "echo \$SLURMD_NODENAME \$SLURM_PROCID"')
expect "one srun step with 2 tasks on each of $K nodes" "$(wait_done "$j") $(awk '{print $1}' slurm-$j.out | sort -V | uniq -c | xargs)" \
  "COMPLETED $(for n in $want; do echo "2 $n"; done | xargs)"
if [ "$NET" != netns ]; then
  expect "srun from outside any job, on $K nodes" "$(timeout 60 srun -N$K bash -c 'echo $SLURMD_NODENAME' 2>&1 | sort -V | xargs)" "$want"
fi

# 5d. scancel kills the step processes on all nodes (each step: a child and a grandchild sleep)
job_procs() { grep -lsx "SLURM_JOB_ID=$1" --null-data /proc/[0-9]*/environ 2>/dev/null | cut -d/ -f3 | xargs; }
cat >cancel.sh <<'EOF'
#!/bin/bash
for node in $(scontrol show hostnames $SLURM_JOB_NODELIST); do
  srun --overlap --nodes=1 --ntasks=1 --nodelist=$node bash -c 'sleep 300 & a=$!; bash -c "sleep 301" & b=$!; echo "$SLURMD_NODENAME $$ $a $b" >>pids.txt; wait' &
done
wait
EOF
rm -f pids.txt
j=$(sbatch --parsable --nodes=$K cancel.sh)
for ((i = 0; i < 100; i++)); do [ "$(cat pids.txt 2>/dev/null | wc -l)" = "$K" ] && break; sleep 0.1; done
pids=$(awk '{print $2, $3, $4}' pids.txt | xargs); procs=$(job_procs "$j")
echo "     job $j: step pids per node: $(sort -V pids.txt | awk '{print $1 ":" $2 "," $3 "," $4}' | xargs); $(echo $procs | wc -w) processes with SLURM_JOB_ID=$j"
t0=$(date +%s%N); scancel "$j"
for ((i = 0; i < 200; i++)); do
  left=""; for p in $pids $procs; do kill -0 "$p" 2>/dev/null && left="$left $p"; done
  [ -z "$left" ] && [ -z "$(job_procs "$j")" ] && break; sleep 0.05
done
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
expect "scancel: no process of the job left on any node" "$(echo "$left $(job_procs "$j")" | xargs)" ""
echo "     all step processes gone ${ms} ms after scancel"
expect "scancel: job CANCELLED" "$(wait_done "$j" 20)" CANCELLED
fi

# 6. netns mode with the host link: the host (login node) reaches every node at its own address,
#    a job reaches the host, and host-link.sh down/up cuts and restores exactly that
case " $(cat "$DIR/mode" 2>/dev/null) " in *" hostlink=1 "*)
HL=$HERE/host-link.sh
HOST_ADDR=$(awk '{print $2}' "$DIR/host-link")
PORT=${CHECK_HTTP_PORT:-8000}
cat >hget.py <<'PY'
import sys, time, urllib.request
wait, urls = sys.argv[1] == "wait", sys.argv[2:]
for url in urls:
    deadline = time.time() + (20 if wait else 0)
    while True:
        t0 = time.time()
        try:
            r = "%d" % urllib.request.urlopen(url, timeout=8).status
            break
        except Exception as e:
            r = type(e).__name__ + ":" + str(getattr(e, "reason", e))
            if time.time() > deadline:
                break
            time.sleep(0.2)
    print(url, "->", r, "(%.1f s)" % (time.time() - t0), flush=True)
PY
cat >serve.sh <<'SH'
#!/bin/bash
for node in $(scontrol show hostnames $SLURM_JOB_NODELIST); do
  srun --overlap --nodes=1 --ntasks=1 --nodelist=$node python3 -m http.server "$1" --bind 0.0.0.0 >/dev/null 2>&1 &
done
wait
SH
urls=(); for n in $NODES_ALL; do urls+=("http://$(awk -v n="$n" '$1 == n {print $2}' "$DIR/nodes.txt"):$PORT/"); done
N1=${NODES_ALL%% *}
expect "host link status" "$(bash "$HL" status)" up
j=$(sbatch --parsable --nodes="$NN" serve.sh "$PORT")
out=$(python3 hget.py wait "${urls[@]}"); echo "$out" | sed 's/^/     /'
expect "host reaches the HTTP server on each of the $NN nodes (0.0.0.0:$PORT)" "$(echo "$out" | grep -c -- '-> 200 ')" "$NN"
python3 -m http.server $((PORT + 2)) --bind "$HOST_ADDR" >/dev/null 2>&1 & hpid=$!
jg=$(sbatch --parsable -N1 -w "$N1" --wrap "python3 $W/hget.py wait http://$HOST_ADDR:$((PORT + 2))/")
expect "a job on $N1 reaches the host at $HOST_ADDR" "$(wait_done "$jg") $(grep -c -- '-> 200 ' "slurm-$jg.out")" "COMPLETED 1"
bash "$HL" down 2>/dev/null
expect "host-link.sh down -> status" "$(bash "$HL" status)" down
out=$(python3 hget.py once "${urls[@]}"); echo "$out" | sed 's/^/     /'
expect "host link down: no node reachable from the host (No route to host)" "$(echo "$out" | grep -c 'No route to host')" "$NN"
expect "host link down: Slurm commands still work on the host" "$(squeue -h -j "$j" -o %T)" RUNNING
jg=$(sbatch --parsable -N1 -w "$N1" --wrap "python3 $W/hget.py once http://$HOST_ADDR:$((PORT + 2))/")
expect "host link down: a job cannot reach the host" "$(wait_done "$jg") $(grep -c 'No route to host' "slurm-$jg.out")" "COMPLETED 1"
bash "$HL" up 2>/dev/null
expect "host-link.sh up -> status" "$(bash "$HL" status)" up
out=$(python3 hget.py wait "${urls[@]}")
expect "host link up again: all $NN nodes reachable" "$(echo "$out" | grep -c -- '-> 200 ')" "$NN"
kill "$hpid" 2>/dev/null; scancel "$j"; wait_done "$j" >/dev/null
;; esac

cd /; rm -rf "$W"
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
