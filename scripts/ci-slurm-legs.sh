#!/usr/bin/env bash
# ci-slurm-legs.sh - the Slurm 25.11 legs of CI's transport matrix (22.05 ran already in `make check`).
#
# Runs the tests marked `slurm25` (the ones that submit and read jobs) on a Slurm 25.11 test cluster,
# twice: once with the command-line transport, once with the real pyslurm 25.11.2 (in a virtualenv made
# here from the vendored wheel). The 25.11 build and the wheel come from the read-only vendor folder next
# to the repository: $(dirname repo)/shared/vendor/slurm-25.11/ (see its README).
#
#   bash scripts/ci-slurm-legs.sh            # both legs
#   LEGS="cli" bash scripts/ci-slurm-legs.sh # one leg (cli | pyslurm)
#
# The cluster is the project's own scripts/local-slurm/start.sh with the 25.11 daemons first on PATH,
# in $LOCAL_SLURM_DIR (default /tmp/local-slurm, honouring the other LOCAL_SLURM_* knobs): a cluster
# already running there (22.05 from `make check`) is stopped first and the 25.11 one is stopped at the end.
# Without the vendor folder: a failure under CI=true, a skip elsewhere.
set -euo pipefail
cd "$(dirname "$0")/.."
REPO=$PWD
VENDOR=${SLURM25_VENDOR:-$(dirname "$REPO")/shared/vendor/slurm-25.11}
PREFIX=/opt/slurm-25.11
WHEEL=$VENDOR/pyslurm-25.11.2-cp311-cp311-linux_x86_64.whl
VENV=${PYSLURM_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/srt-tui-ci/venv-pyslurm}
LEGS=${LEGS:-cli pyslurm}
PYTEST_ARGS=${PYTEST_ARGS:--m slurm25 -q -p no:cacheprovider tests}
export LOCAL_SLURM_DIR=${LOCAL_SLURM_DIR:-/tmp/local-slurm}
log() { echo "[ci-slurm-legs] $*" >&2; }
missing() {
  if [ "${CI:-}" = true ]; then log "CI=true and $1: the Slurm 25.11 legs cannot run"; exit 1; fi
  log "skipped: $1"; exit 0
}

[ -d "$VENDOR" ] || missing "no vendor folder $VENDOR"
[ -f "$WHEEL" ] || missing "no pyslurm wheel $WHEEL"
t0=$(date +%s)
[ -x "$VENV/bin/python" ] || python3 -m venv --system-site-packages "$VENV"  # sees srt-tui + its test extras
if [ ! -x "$PREFIX/sbin/slurmctld" ]; then
  VENV=$VENV bash "$VENDOR/install.sh" >&2        # apt runtime libraries, /opt/slurm-25.11 unpacked, the wheel
elif ! "$VENV/bin/python" -c 'import importlib.util as u, sys; sys.exit(u.find_spec("pyslurm") is None)'; then
  "$VENV/bin/pip" install -q "$WHEEL" >&2          # 0.6 s (install.sh would also run apt-get update)
fi
log "Slurm $("$PREFIX/sbin/slurmctld" -V | awk '{print $2}'), pyslurm in $VENV ($(($(date +%s) - t0)) s)"

# the 25.11 cluster in place of whatever runs in $LOCAL_SLURM_DIR (munged is shared: kept)
LOCAL_SLURM_KEEP_MUNGE=1 bash scripts/local-slurm/stop.sh >/dev/null 2>&1 || true
export PATH=$PREFIX/bin:$PREFIX/sbin:$PATH
stop25() { LOCAL_SLURM_KEEP_MUNGE=1 bash scripts/local-slurm/stop.sh >/dev/null 2>&1 || true; }
trap stop25 EXIT
LOCAL_SLURM_NODES=${LOCAL_SLURM_NODES:-3} LOCAL_SLURM_NET=${LOCAL_SLURM_NET:-netns} bash scripts/local-slurm/start.sh
# shellcheck source=/dev/null
source "$LOCAL_SLURM_DIR/env.sh"
scontrol show config | grep -q 'SLURM_VERSION *= *25\.11' || { log "the cluster is not Slurm 25.11"; exit 1; }

failed=()
summary=()
for leg in $LEGS; do
  case $leg in
    cli) python=python3 ;;
    pyslurm) python=$VENV/bin/python ;;
    *) log "unknown leg $leg (cli | pyslurm)"; exit 2 ;;
  esac
  log "leg slurm-25.11/$leg: $python -m pytest $PYTEST_ARGS"
  start=$(date +%s)
  # shellcheck disable=SC2086  # PYTEST_ARGS is a word list on purpose
  if SRT_TUI_SLURM_TRANSPORT=$leg CI_PYSLURM=$([ "$leg" = pyslurm ] && echo 1 || echo 0) \
    "$python" -m pytest $PYTEST_ARGS; then
    result=passed
  else
    result=FAILED; failed+=("$leg")
  fi
  summary+=("slurm-25.11/$leg: $result in $(($(date +%s) - start)) s")
done
for line in "${summary[@]}"; do log "$line"; done
if ((${#failed[@]})); then log "failed legs: ${failed[*]}"; exit 1; fi
