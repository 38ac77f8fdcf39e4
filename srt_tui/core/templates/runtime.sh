# ---- srt-tui runtime (static; identical in every job) ----------------------------------------
srt_now() { date -u +%Y-%m-%dT%H:%M:%S.%3NZ; }
srt_json_escape() { local s=$1; s=${s//\\/\\\\}; s=${s//\"/\\\"}; s=${s//$'\n'/ }; printf '%s' "$s"; }
srt_log() { printf '%s srt-tui: %s\n' "$(srt_now)" "$*"; }
SRT_FINAL=""
srt_event() {
  # one JSON object per lifecycle event: stage, time, detail
  { printf '{"stage": "%s", "time": "%s", "detail": "%s"}\n' "$1" "$(srt_now)" "$(srt_json_escape "${2:-}")" \
    >>"$SRT_JOB_DIR/status.jsonl"; } 2>/dev/null || srt_unwritable status.jsonl
  srt_log "stage: $1 ${2:-}"
}
SRT_UNWRITABLE=""
srt_unwritable() {
  # the job directory cannot be written (made read-only, full, gone): the job keeps serving and says why, once
  if [[ -z $SRT_UNWRITABLE ]]; then
    SRT_UNWRITABLE=1
    srt_log "warning: cannot write $SRT_JOB_DIR/$1 (read-only, full or removed): the job keeps running; status and the monitor stop updating"
  fi
}
srt_local_record() {
  # the local launcher's record of a step's process group: pid and start time (so `srt-tui cancel` never
  # signals a reused pid), in the user's state directory and, best effort, in the job directory
  local st f
  st=$(<"/proc/$1/stat") || return 0
  st=${st##*) }
  read -ra f <<<"$st"
  if [[ -n ${SRT_LOCAL_PROCS:-} ]]; then printf '%s %s\n' "$1" "${f[19]}" >>"$SRT_LOCAL_PROCS" || true; fi
  { printf '%s %s\n' "$1" "${f[19]}" >>"$SRT_JOB_DIR/.local-pids"; } 2>/dev/null || srt_unwritable .local-pids
}
srt_fail() { SRT_FINAL=failed; srt_event failed "$1"; exit 1; }
srt_who() {
  # srt_who KIND NAME: a step as the job's lines name it, `worker decode_0`, `infra nats`; one whose name is its
  # kind once, `router` (`router router exited with code 137` read as a stutter)
  if [[ $1 == "$2" ]]; then printf '%s' "$1"; else printf '%s %s' "$1" "$2"; fi
}

SRT_PIDS=()
SRT_PID_NAMES=()
SRT_PID_LOGS=()
SRT_PID_KINDS=()
# the local launcher's stand-in for `srun --mpi`: every task of an MPI step, with Slurm's rank variables
SRT_LOCAL_MPI='nodes=$1 tpn=$2; shift 2; IFS=, read -ra ns <<<"$nodes"; export SLURM_NTASKS=$((${#ns[@]} * tpn)); r=0
for i in "${!ns[@]}"; do for ((l = 0; l < tpn; l++)); do
  SLURM_PROCID=$r SLURM_LOCALID=$l SLURM_NODEID=$i SLURMD_NODENAME=local${ns[$i]} "$@" & r=$((r + 1))
done; done
wait -n; rc=$?; kill $(jobs -p) 2>/dev/null; wait; exit "$rc"'
srt_tag() {
  # srt_tag NAME: each line read, as `NAME: line`: srun's own words about a step (a step it could not create, an
  # MPI plugin that does not load) name the step in the job's output, `router: srun: error: Unable to create step …`
  local line
  while IFS= read -r line || [[ -n $line ]]; do printf '%s: %s\n' "$1" "$line"; done
}
srt_step() {
  # srt_step NAME KIND NODE_INDEX LOG -- ARGV...: one step per process, on one node
  # SRT_STEP_IMAGE=IMAGE srt_step …: this step runs in a container image of its own (a GPU exporter)
  # SRT_STEP_MPI=PLUGIN SRT_STEP_NODES=I,J SRT_STEP_TASKS=N SRT_STEP_TPN=K srt_step …: one MPI step on
  #   nodes I,J with N tasks, K per node (a worker launched over MPI, one task per GPU)
  local name=$1 kind=$2 node=$3 log=$4 container=("${SRT_CONTAINER_ARGS[@]}") where i hosts=() opts=() extra=()
  shift 5
  # SRT_STEP_NO_OPTS=1 srt_step …: the recipe's srun_options are not for this step (srtctl's MPI workers,
  #   NATS/etcd, nginx); SRT_STEP_SRUN='--opt …' srt_step …: srun options of this step alone
  if [[ -z ${SRT_STEP_NO_OPTS:-} ]]; then opts=("${SRT_SRUN_OPTS[@]}"); fi
  if [[ -n ${SRT_STEP_SRUN:-} ]]; then read -ra extra <<<"$SRT_STEP_SRUN"; fi
  # SRT_STEP_EXPORT=VALUE srt_step …: srun --export=VALUE in a container (root for the ai-dynamo install)
  if [[ -n ${SRT_STEP_IMAGE:-} && ${#container[@]} -gt 0 ]]; then container[0]="--container-image=$SRT_STEP_IMAGE"; fi
  if [[ -n ${SRT_STEP_EXPORT:-} && ${#container[@]} -gt 0 ]]; then container+=("--export=$SRT_STEP_EXPORT"); fi
  where=(--nodes=1 --ntasks=1 --nodelist="${SRT_NODES[$node]}")
  if [[ -n ${SRT_STEP_NODES:-} ]]; then
    for i in ${SRT_STEP_NODES//,/ }; do hosts+=("${SRT_NODES[$i]}"); done
    where=(--mpi="$SRT_STEP_MPI" --oversubscribe "--cpu-bind=verbose,none" --nodes="${#hosts[@]}"
      --ntasks="$SRT_STEP_TASKS" --nodelist="$(IFS=,; printf '%s' "${hosts[*]}")")
  fi
  if [[ $SRT_LAUNCHER == slurm ]]; then
    srun --overlap "${where[@]}" --job-name="$name" \
      --output="$log" --open-mode=append "${opts[@]}" "${extra[@]}" "${container[@]}" "$@" </dev/null \
      2> >(srt_tag "$name" >&2) &
  elif [[ -n ${SRT_STEP_NODES:-} ]]; then
    SRT_NODE_IP="${SRT_NODE_IPS[$node]}" setsid bash -c "$SRT_LOCAL_MPI" srt-mpi "$SRT_STEP_NODES" "$SRT_STEP_TPN" "$@" \
      >>"$log" 2>&1 </dev/null &
    srt_local_record "$!"
  else
    SRT_NODE_IP="${SRT_NODE_IPS[$node]}" setsid "$@" >>"$log" 2>&1 </dev/null &
    srt_local_record "$!"
  fi
  SRT_PIDS+=("$!")
  SRT_PID_NAMES+=("$name")
  SRT_PID_LOGS+=("$log")
  SRT_PID_KINDS+=("$kind")
  srt_log "started $(srt_who "$kind" "$name") on ${SRT_NODES[$node]} (pid $!, log $log)"
}

srt_http() {
  # srt_http HOST PORT PATH [TIMEOUT]: print the HTTP status line's code and body (plain bash, no curl)
  timeout "${4:-5}" bash -c 'exec 3<>"/dev/tcp/$1/$2" || exit 1
    printf "GET %s HTTP/1.0\r\nHost: %s\r\nConnection: close\r\n\r\n" "$3" "$1" >&3
    cat <&3' srt-http "$1" "$2" "$3" 2>/dev/null | tr -d '\r'
}
srt_http_code() { srt_http "$@" | head -n 1 | awk '{print $2}'; }
srt_json_int() { grep -o "\"$1\": *[0-9]*" | head -n 1 | grep -o '[0-9]*$' || true; }

srt_sleep() { sleep "$1" & wait $! || true; }

srt_check_alive() {
  # a worker, router or infra step that ends while the job runs fails the job, naming its log
  local i pid rc
  for i in "${!SRT_PIDS[@]}"; do
    pid=${SRT_PIDS[$i]}
    [[ ${SRT_PID_KINDS[$i]} == benchmark || ${SRT_PID_KINDS[$i]} == telemetry ]] && continue
    if ! kill -0 "$pid" 2>/dev/null; then
      rc=0
      wait "$pid" || rc=$?
      srt_fail "$(srt_who "${SRT_PID_KINDS[$i]}" "${SRT_PID_NAMES[$i]}") exited with code $rc; log: ${SRT_PID_LOGS[$i]}"
    fi
  done
}

srt_cleanup() {
  local rc=$? pid deadline
  trap - EXIT INT TERM
  # the final scrape, before anything stops: an ended job keeps its counters and registrations in relay/
  if [[ -n ${SRT_NODE_IPS+set} && ${#SRT_PIDS[@]} -gt 0 ]]; then SRT_RELAY_FINAL=1 srt_relay || true; fi
  for pid in "${SRT_PIDS[@]}"; do
    if [[ $SRT_LAUNCHER == slurm ]]; then kill -TERM "$pid" 2>/dev/null || true
    else kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null || true; fi
  done
  deadline=$((SECONDS + 10))
  for pid in "${SRT_PIDS[@]}"; do
    while kill -0 "$pid" 2>/dev/null && ((SECONDS < deadline)); do sleep 0.2; done
    if [[ $SRT_LAUNCHER == slurm ]]; then kill -KILL "$pid" 2>/dev/null || true
    else kill -KILL -- "-$pid" 2>/dev/null || kill -KILL "$pid" 2>/dev/null || true; fi
  done
  # NATS/etcd state of this job, node-local on the infra node (node 0, where this script runs)
  if [[ -n ${SRT_SCRATCH:-} ]]; then rm -rf "$SRT_SCRATCH"; fi
  if [[ -z $SRT_FINAL ]]; then
    if ((rc == 0)); then srt_event completed "exit 0"; else srt_event failed "launch script exited with code $rc"; fi
  fi
  exit "$rc"
}
trap srt_cleanup EXIT
srt_cancelled() {
  # `srt-tui cancel` and the Monitor leave cancel.json in the job directory before they signal the job: it says
  # who stopped it; anything else (scancel by hand, the time limit) can only be guessed
  if [[ -f $SRT_JOB_DIR/cancel.json ]]; then srt_event cancelled "cancelled with srt-tui (cancel.json)"
  else srt_event cancelled "stopped by a signal (scancel, srt-tui cancel or time limit)"; fi
}
trap 'SRT_FINAL=cancelled; srt_cancelled; exit 143' TERM INT

srt_resolve_nodes() {
  # each node's IPv4 on the profile's interface, resolved once, on the node itself
  local i addr
  SRT_NODE_IPS=()
  if [[ $SRT_LAUNCHER == slurm ]]; then
    mapfile -t SRT_NODES < <(scontrol show hostnames "$SLURM_JOB_NODELIST")
  else
    SRT_NODES=()
    for ((i = 0; i < SRT_N_NODES; i++)); do SRT_NODES+=("local$i"); done
  fi
  ((${#SRT_NODES[@]} >= SRT_N_NODES)) || srt_fail "the allocation has ${#SRT_NODES[@]} node(s), the plan needs $SRT_N_NODES"
  for ((i = 0; i < SRT_N_NODES; i++)); do
    if [[ $SRT_LAUNCHER == slurm ]]; then
      addr=$(srun --overlap --nodes=1 --ntasks=1 --nodelist="${SRT_NODES[$i]}" bash -c "$SRT_IP_PROBE" srt-ip "$SRT_INTERFACE" 2>/dev/null || true)
    else
      addr="${SRT_LOCAL_NET:-127.0.0}.$((11 + i))"
    fi
    [[ $addr =~ ^[0-9]+(\.[0-9]+){3}$ ]] || srt_fail "no IPv4 address on interface $SRT_INTERFACE on node ${SRT_NODES[$i]}"
    SRT_NODE_IPS+=("$addr")
  done
  srt_log "nodes: ${SRT_NODES[*]:0:$SRT_N_NODES} addresses: ${SRT_NODE_IPS[*]}"
}

srt_wait_workers() {
  # every worker answers /health with 200 (the static-router gate), polling at the health-check interval;
  # a worker's health port is its engine's HTTP port, or its Dynamo system port (DYN_SYSTEM_PORT)
  local attempt healthy last=-1 i host port
  srt_log "asking the workers, then the router, every ${SRT_HEALTH_INTERVAL}s (health_check.interval_seconds, as srtctl): stages workers healthy and router ready come up to ${SRT_HEALTH_INTERVAL}s after the fact"
  for ((attempt = 1; attempt <= SRT_HEALTH_ATTEMPTS; attempt++)); do
    srt_check_alive
    healthy=0
    for i in "${!SRT_HEALTH_HOSTS[@]}"; do
      host=${SRT_NODE_IPS[${SRT_HEALTH_HOSTS[$i]}]}
      port=${SRT_HEALTH_PORTS[$i]}
      if [[ $(srt_http_code "$host" "$port" /health 3) == 200 ]]; then healthy=$((healthy + 1)); fi
    done
    if ((healthy != last)); then srt_event "workers healthy" "$healthy/${#SRT_HEALTH_HOSTS[@]}"; last=$healthy; fi
    ((healthy == ${#SRT_HEALTH_HOSTS[@]})) && return 0
    srt_maybe_relay
    srt_sleep "$SRT_HEALTH_INTERVAL"
  done
  srt_fail "workers not healthy after $SRT_HEALTH_ATTEMPTS checks every ${SRT_HEALTH_INTERVAL}s"
}

srt_router_counts() {
  # registered workers as `P D A`, from the router's /workers (sglang-router / vllm-router shape)
  local body p d r
  body=$(srt_http "${SRT_NODE_IPS[$SRT_ROUTER_NODE]}" "$SRT_ROUTER_PORT" /workers 3 || true)
  p=$(srt_json_int prefill_count <<<"$body")
  d=$(srt_json_int decode_count <<<"$body")
  r=$(srt_json_int regular_count <<<"$body")
  printf '%s %s %s' "${p:-0}" "${d:-0}" "${r:-0}"
}

srt_dynamo_counts() {
  # registered `generate` instances in the Dynamo frontend's /health, as `PREFILL OTHER`
  local body p d
  body=$(srt_http "${SRT_NODE_IPS[$SRT_ROUTER_NODE]}" "$SRT_ROUTER_PORT" /health 3 || true)
  p=$(grep -o '"component": *"[^"]*", *"endpoint": *"generate"' <<<"$body" | grep -c '"component": *"prefill"' || true)
  d=$(grep -o '"component": *"[^"]*", *"endpoint": *"generate"' <<<"$body" | grep -vc '"component": *"prefill"' || true)
  printf '%s %s' "${p:-0}" "${d:-0}"
}

srt_wait_infra() {
  # every discovery service (NATS, etcd) accepts TCP connections before any worker starts (srtctl: 300 s)
  local i deadline=$((SECONDS + 300))
  for i in "${!SRT_INFRA_NAMES[@]}"; do
    until timeout 2 bash -c 'exec 3<>"/dev/tcp/$1/$2"' srt-tcp "${SRT_NODE_IPS[${SRT_INFRA_HOSTS[$i]}]}" "${SRT_INFRA_PORTS[$i]}" 2>/dev/null; do
      srt_check_alive
      ((SECONDS < deadline)) || srt_fail "${SRT_INFRA_NAMES[$i]} does not accept connections on port ${SRT_INFRA_PORTS[$i]} after 300 s"
      srt_sleep 0.5
    done
    srt_log "${SRT_INFRA_NAMES[$i]} is ready on port ${SRT_INFRA_PORTS[$i]}"
  done
  srt_event "infra ready" "${SRT_INFRA_NAMES[*]}"
}

srt_wait_router() {
  # the router is ready once it has registered the expected workers of every role
  # (SRT_ROUTER_NAME/NODE/PORT/REGISTRATION name the router; each router of a multi-frontend job in turn,
  # SRT_ROUTER_STAGE=`router starting` for all but the last, so the job is ready once nginx answers too)
  local attempt p d r detail last="" host=${SRT_NODE_IPS[$SRT_ROUTER_NODE]} who=""
  if [[ $SRT_ROUTER_NAME != router ]]; then who="$SRT_ROUTER_NAME: "; fi
  for ((attempt = 1; attempt <= SRT_HEALTH_ATTEMPTS; attempt++)); do
    srt_check_alive
    case $SRT_ROUTER_REGISTRATION in
      router-workers)
        read -r p d r <<<"$(srt_router_counts)"
        detail="${who}P $p/$SRT_EXPECT_PREFILL D $d/$SRT_EXPECT_DECODE A $r/$SRT_EXPECT_AGG"
        if ((p >= SRT_EXPECT_PREFILL && d >= SRT_EXPECT_DECODE && r >= SRT_EXPECT_AGG)); then
          srt_event "${SRT_ROUTER_STAGE:-router ready}" "$detail"; return 0
        fi ;;
      dynamo-health)
        # srtctl's count: `generate` instances of component prefill are P, of any other component D (or A)
        read -r p d <<<"$(srt_dynamo_counts)"
        detail="${who}P $p/$SRT_EXPECT_PREFILL D+A $d/$((SRT_EXPECT_DECODE + SRT_EXPECT_AGG)) (Dynamo /health instances)"
        if ((p >= SRT_EXPECT_PREFILL && d >= SRT_EXPECT_DECODE + SRT_EXPECT_AGG)); then
          srt_event "${SRT_ROUTER_STAGE:-router ready}" "$detail"; return 0
        fi ;;
      *)
        if [[ $(srt_http_code "$host" "$SRT_ROUTER_PORT" /health 3) == 200 ]]; then
          srt_event "${SRT_ROUTER_STAGE:-router ready}" "${who}health 200"; return 0
        fi
        detail="${who}waiting for /health" ;;
    esac
    if [[ $detail != "$last" ]]; then srt_log "router: $detail"; last=$detail; fi
    srt_maybe_relay
    srt_sleep "$SRT_HEALTH_INTERVAL"
  done
  srt_fail "router did not register the workers after $SRT_HEALTH_ATTEMPTS checks ($detail)"
}

srt_relay_put() {
  # move a scrape into place; the final scrape (SRT_RELAY_FINAL) keeps the last answer over no answer
  if [[ -s $1 || -z ${SRT_RELAY_FINAL:-} ]]; then mv -f "$1" "$2"; else rm -f "$1"; fi
}

srt_relay() {
  # what the job itself sees, for monitors that cannot reach the nodes (written atomically)
  local i host port code tmp="$SRT_JOB_DIR/relay/.health.tmp" first=1 sig=""
  mkdir -p "$SRT_JOB_DIR/relay"
  {
    printf '{"time": "%s", "workers": {' "$(srt_now)"
    for i in "${!SRT_HEALTH_HOSTS[@]}"; do
      host=${SRT_NODE_IPS[${SRT_HEALTH_HOSTS[$i]}]}
      port=${SRT_HEALTH_PORTS[$i]}
      code=$(srt_http_code "$host" "$port" /health 2 || true)
      ((first)) || printf ', '
      first=0
      printf '"%s": %s' "${SRT_HEALTH_NAMES[$i]}" "${code:-0}"
      sig+="${code:-0} "
    done
    printf '}}\n'
  } >"$tmp" && mv -f "$tmp" "$SRT_JOB_DIR/relay/health.json"
  for i in "${!SRT_HEALTH_HOSTS[@]}"; do
    host=${SRT_NODE_IPS[${SRT_HEALTH_HOSTS[$i]}]}
    srt_http "$host" "${SRT_HEALTH_PORTS[$i]}" /metrics 2 >"$SRT_JOB_DIR/relay/.m.tmp" || true
    srt_relay_put "$SRT_JOB_DIR/relay/.m.tmp" "$SRT_JOB_DIR/relay/${SRT_HEALTH_NAMES[$i]}.metrics"
  done
  # the registrations every third relay (each read is a line or two of the router's log), at once when a worker's
  # health changed, and in the final scrape
  SRT_RELAY_N=$((${SRT_RELAY_N:-0} + 1))
  local registrations=0
  if [[ -n ${SRT_RELAY_FINAL:-} || $sig != "${SRT_RELAY_SIG:-}" ]] || ((SRT_RELAY_N % 3 == 1)); then registrations=1; fi
  SRT_RELAY_SIG=$sig
  if [[ -n ${SRT_ROUTER_PORT:-} ]]; then
    if ((registrations)); then
      # the registrations: /workers of sglang-router/vllm-router, the instance list of Dynamo's /health
      local reg=/workers
      [[ ${SRT_ROUTER_REGISTRATION:-} == dynamo-health ]] && reg=/health
      srt_http "${SRT_NODE_IPS[$SRT_ROUTER_NODE]}" "$SRT_ROUTER_PORT" "$reg" 2 >"$SRT_JOB_DIR/relay/.w.tmp" || true
      srt_relay_put "$SRT_JOB_DIR/relay/.w.tmp" "$SRT_JOB_DIR/relay/router_workers.http"
    fi
    if [[ -n ${SRT_ROUTER_METRICS_PORT:-} ]]; then
      srt_http "${SRT_NODE_IPS[$SRT_ROUTER_NODE]}" "$SRT_ROUTER_METRICS_PORT" /metrics 2 >"$SRT_JOB_DIR/relay/.r.tmp" || true
      srt_relay_put "$SRT_JOB_DIR/relay/.r.tmp" "$SRT_JOB_DIR/relay/router.metrics"
    fi
  fi
}

SRT_RELAY_NEXT=0
srt_maybe_relay() {
  # relay at most every SRT_RELAY_INTERVAL seconds, from start-up on, so a cut-off monitor sees progress too;
  # at once when `srt-tui cancel` asks (relay/final.request): Slurm stops every step together with this
  # script, so the counters are scraped before it cancels, and the request removed to say they are in
  if ((SECONDS >= SRT_RELAY_NEXT)) || [[ -e $SRT_JOB_DIR/relay/final.request ]]; then
    srt_relay 2>/dev/null || srt_unwritable relay/
    rm -f "$SRT_JOB_DIR/relay/final.request" 2>/dev/null || true
    SRT_RELAY_NEXT=$((SECONDS + SRT_RELAY_INTERVAL))
  fi
}

srt_serve() {
  # keep watching every step; with a benchmark, finish when it does
  local rc
  while true; do
    srt_check_alive
    srt_maybe_relay
    if [[ -n ${SRT_BENCH_PID:-} ]] && ! kill -0 "$SRT_BENCH_PID" 2>/dev/null; then
      rc=0
      wait "$SRT_BENCH_PID" || rc=$?
      SRT_BENCH_PID=""
      ((rc == 0)) || srt_fail "benchmark exited with code $rc; log: $SRT_BENCH_LOG"
      return 0
    fi
    srt_sleep 1
  done
}
