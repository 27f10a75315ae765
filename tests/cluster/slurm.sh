#!/usr/bin/env bash
# A throwaway single-node SLURM cluster (Debian's SLURM 22.05 + munge) for the
# SLURM tests: everything runs as root, without systemd, and listens on
# loopback only.  See README.md beside this file.
#
#   tests/cluster/slurm.sh install   # apt-get the packages when missing (idempotent)
#   tests/cluster/slurm.sh up        # config + munged + slurmctld + slurmd; prints the partition
#   tests/cluster/slurm.sh status    # exit 0 when the cluster is up and idle/usable
#   tests/cluster/slurm.sh down      # stop the daemons by PID file, check nothing listens
#
# Environment (all optional):
#   SLURM_TEST_PARTITION   partition name                       (default: debug)
#   SLURM_TEST_TIMEOUT     seconds `up` waits for the node       (default: 60)
#   SLURM_TEST_LOGDIR      daemon logs                          (default: /var/log/slurm-test)
#   SLURM_TEST_SPOOLDIR    state and spool                      (default: /var/spool/slurm-test)
#   SLURM_TEST_FORCE=1     overwrite an /etc/slurm/slurm.conf this script did not write
#
# `up` prints only the partition name on stdout (messages go to stderr), so a
# caller can do:  PARTITION=$(tests/cluster/slurm.sh up)
set -euo pipefail

PACKAGES=(munge slurmctld slurmd slurm-client)
PARTITION="${SLURM_TEST_PARTITION:-debug}"
TIMEOUT="${SLURM_TEST_TIMEOUT:-60}"
LOGDIR="${SLURM_TEST_LOGDIR:-/var/log/slurm-test}"
SPOOLDIR="${SLURM_TEST_SPOOLDIR:-/var/spool/slurm-test}"
CONFDIR=/etc/slurm
CONF="$CONFDIR/slurm.conf"
MARKER="# Written by tests/cluster/slurm.sh"
MUNGE_KEY=/etc/munge/munge.key
MUNGE_RUNDIR=/run/munge
MUNGE_PIDFILE="$MUNGE_RUNDIR/munged.pid"
CTLD_PIDFILE=/run/slurmctld.pid
SLURMD_PIDFILE=/run/slurmd.pid
DAEMONS=(slurmd slurmctld munged)   # stop order

msg() { printf 'slurm.sh: %s\n' "$*" >&2; }
die() { printf 'slurm.sh: ERROR: %s\n' "$*" >&2; exit 1; }

usage() {
    sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2
    exit 2
}

require_root() {
    [[ "$(id -u)" -eq 0 ]] || die "must run as root (it installs packages, writes /etc/slurm and starts daemons); try: sudo $0 ${1:-}"
}

pidfile_of() {
    case "$1" in
        munged) echo "$MUNGE_PIDFILE" ;;
        slurmctld) echo "$CTLD_PIDFILE" ;;
        slurmd) echo "$SLURMD_PIDFILE" ;;
    esac
}

# PID of a running daemon from its PID file, checked against /proc/PID/comm
# (so a stale file whose PID was reused is not taken for the daemon).
daemon_pid() {
    local name=$1 file pid comm
    file=$(pidfile_of "$name")
    [[ -s "$file" ]] || return 1
    pid=$(tr -dc '0-9' <"$file")
    [[ -n "$pid" && -r "/proc/$pid/comm" ]] || return 1
    comm=$(cat "/proc/$pid/comm" 2>/dev/null) || return 1
    [[ "$comm" == "$name" ]] || return 1
    echo "$pid"
}

is_running() { daemon_pid "$1" >/dev/null; }

node_name() { hostname -s; }

# sinfo's node state for our partition ("idle", "mix", "alloc", "down*", ...), or empty.
node_state() {
    timeout 10 sinfo -h -p "$PARTITION" -o %t 2>/dev/null | head -n1 || true
}

cluster_usable() {
    local st
    st=$(node_state)
    [[ "$st" == idle || "$st" == mix || "$st" == alloc || "$st" == comp ]]
}

log_tail() {
    local f
    for f in "$LOGDIR"/munged.log "$LOGDIR"/slurmctld.log "$LOGDIR"/slurmd.log; do
        [[ -f "$f" ]] || continue
        printf '\n==== tail -n 30 %s ====\n' "$f" >&2
        tail -n 30 "$f" >&2 || true
    done
}

# --------------------------------------------------------------------- install
packages_missing() {
    local p missing=()
    for p in "${PACKAGES[@]}"; do
        if [[ "$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)" != "install ok installed" ]]; then
            missing+=("$p")
        fi
    done
    echo "${missing[*]}"
}

cmd_install() {
    require_root install
    if ! command -v apt-get >/dev/null 2>&1 || ! command -v dpkg-query >/dev/null 2>&1; then
        die "apt-get/dpkg not found: this script installs SLURM from Debian/Ubuntu packages; on another system install munge, slurmctld, slurmd and the SLURM client tools yourself"
    fi
    local missing
    missing=$(packages_missing)
    if [[ -z "$missing" ]]; then
        msg "packages already installed: ${PACKAGES[*]}"
        return 0
    fi
    export DEBIAN_FRONTEND=noninteractive
    # Wait (up to 5 min) for a concurrent apt/dpkg run instead of failing on its lock.
    local -a apt_install=(apt-get install -y -qq --no-install-recommends
        -o Dpkg::Use-Pty=0 -o DPkg::Lock::Timeout=300)
    # Update the package lists only when needed: no candidate for a package,
    # or an install that failed (e.g. the lists point at files since removed).
    local p need_update=0
    for p in $missing; do
        # (not `apt-cache | grep -q`: with pipefail, grep's early exit fails the pipe)
        if [[ "$(apt-cache policy "$p" 2>/dev/null)" != *"Candidate: "[0-9]* ]]; then need_update=1; fi
    done
    if [[ $need_update -eq 1 ]]; then
        msg "apt-get update"
        apt-get update -qq -o DPkg::Lock::Timeout=300 >/dev/null || die "apt-get update failed"
    fi
    # Keep the packages' init scripts from starting daemons at install time
    # (no systemd here; `up` starts them with the test configuration).
    local policy=/usr/sbin/policy-rc.d
    if [[ ! -e "$policy" ]]; then
        printf '#!/bin/sh\n# temporary, tests/cluster/slurm.sh install\nexit 101\n' >"$policy"
        chmod 755 "$policy"
        trap 'rm -f /usr/sbin/policy-rc.d' EXIT
    fi
    msg "installing: $missing"
    # shellcheck disable=SC2086
    if ! "${apt_install[@]}" $missing >/tmp/slurm-test-apt.log 2>&1; then
        if [[ $need_update -eq 0 ]]; then
            msg "install failed; apt-get update and retry"
            apt-get update -qq -o DPkg::Lock::Timeout=300 >/dev/null || die "apt-get update failed"
            # shellcheck disable=SC2086
            "${apt_install[@]}" $missing >/tmp/slurm-test-apt.log 2>&1 \
                || { tail -n 30 /tmp/slurm-test-apt.log >&2; die "apt-get install failed (log: /tmp/slurm-test-apt.log)"; }
        else
            tail -n 30 /tmp/slurm-test-apt.log >&2
            die "apt-get install failed (log: /tmp/slurm-test-apt.log)"
        fi
    fi
    missing=$(packages_missing)
    [[ -z "$missing" ]] || die "still missing after install: $missing"
    msg "installed: ${PACKAGES[*]}"
}

# -------------------------------------------------------------------------- up
write_config() {
    local node cpus mem
    node=$(node_name)
    cpus=$(nproc)
    mem=$(awk '/^MemTotal:/ {printf "%d", $2 / 1024}' /proc/meminfo)
    [[ -n "$mem" && "$mem" -gt 0 ]] || mem=$(free -m | awk '/^Mem:/ {print $2}')
    if [[ -f "$CONF" ]] && ! grep -qF "$MARKER" "$CONF" && [[ "${SLURM_TEST_FORCE:-0}" != 1 ]]; then
        die "$CONF exists and was not written by this script; refusing to overwrite it (set SLURM_TEST_FORCE=1 to do so)"
    fi
    mkdir -p "$CONFDIR"
    local tmp="$CONF.tmp.$$"
    cat >"$tmp" <<EOF
$MARKER for the test suite: a single-node cluster
# on loopback, run as root, without accounting.  Regenerated by every 'up'.
ClusterName=testcluster
SlurmctldHost=${node}(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
MpiDefault=none
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SwitchType=switch/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
MailProg=/bin/true
# Keep finished jobs visible to squeue/scontrol for 5 minutes (no sacct here).
MinJobAge=300
ReturnToService=2
# Reject at submission a job that can never run here (e.g. more CPUs than the
# node has) instead of leaving it PENDING (PartitionConfig) for ever.
EnforcePartLimits=ALL
# Listen on the configured (loopback) addresses only, not on 0.0.0.0.
CommunicationParameters=NoCtldInAddrAny,NoInAddrAny
SlurmctldPort=6817
SlurmdPort=6818
SlurmctldPidFile=$CTLD_PIDFILE
SlurmdPidFile=$SLURMD_PIDFILE
StateSaveLocation=$SPOOLDIR/ctld
SlurmdSpoolDir=$SPOOLDIR/d
SlurmctldLogFile=$LOGDIR/slurmctld.log
SlurmdLogFile=$LOGDIR/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
SlurmctldTimeout=30
SlurmdTimeout=30
InactiveLimit=0
KillWait=5
Waittime=0
NodeName=${node} NodeAddr=127.0.0.1 CPUs=${cpus} RealMemory=${mem} State=UNKNOWN
PartitionName=${PARTITION} Nodes=${node} Default=YES MaxTime=INFINITE State=UP
EOF
    mv -f "$tmp" "$CONF"
    chmod 644 "$CONF"
}

start_munged() {
    if is_running munged; then
        msg "munged already running (pid $(daemon_pid munged))"
        return 0
    fi
    id munge >/dev/null 2>&1 || die "no 'munge' user: is the munge package installed? run: $0 install"
    if [[ ! -s "$MUNGE_KEY" ]]; then
        msg "creating $MUNGE_KEY"
        mkdir -p "$(dirname "$MUNGE_KEY")"
        if command -v mungekey >/dev/null 2>&1; then
            mungekey --create --keyfile="$MUNGE_KEY" --force
        else
            dd if=/dev/urandom of="$MUNGE_KEY" bs=1024 count=1 status=none
        fi
    fi
    chown munge:munge "$MUNGE_KEY"
    chmod 400 "$MUNGE_KEY"
    install -d -o munge -g munge -m 0755 "$MUNGE_RUNDIR"
    install -d -o munge -g munge -m 0700 "$LOGDIR/munge"
    rm -f "$MUNGE_PIDFILE"
    runuser -u munge -- /usr/sbin/munged --pid-file="$MUNGE_PIDFILE" \
        --log-file="$LOGDIR/munge/munged.log" \
        || { tail -n 20 "$LOGDIR/munge/munged.log" >&2 2>/dev/null || true; die "munged failed to start"; }
    ln -sf munge/munged.log "$LOGDIR/munged.log"
    local i
    for ((i = 0; i < 50; i++)); do
        munge -n 2>/dev/null | unmunge >/dev/null 2>&1 && break
        sleep 0.1
    done
    munge -n 2>/dev/null | unmunge >/dev/null 2>&1 || up_fail "munge credential round-trip failed"
    msg "munged started (pid $(daemon_pid munged))"
}

start_slurm_daemon() {
    local name=$1
    shift
    if is_running "$name"; then
        msg "$name already running (pid $(daemon_pid "$name"))"
        return 0
    fi
    rm -f "$(pidfile_of "$name")"
    # Both daemonise; the parent returns once the daemon has forked.
    "/usr/sbin/$name" -f "$CONF" "$@" >>"$LOGDIR/$name.stdout" 2>&1 \
        || up_fail "$name failed to start"
    local i
    for ((i = 0; i < 50; i++)); do
        is_running "$name" && break
        sleep 0.1
    done
    is_running "$name" || up_fail "$name did not stay up"
    msg "$name started (pid $(daemon_pid "$name"))"
}

up_fail() {
    log_tail
    die "$* -- logs in $LOGDIR; '$0 down' stops whatever did start"
}

cmd_up() {
    require_root up
    local b
    for b in /usr/sbin/munged /usr/sbin/slurmctld /usr/sbin/slurmd sinfo sbatch; do
        command -v "$b" >/dev/null 2>&1 || die "$b not found; run first: $0 install"
    done
    if is_running munged && is_running slurmctld && is_running slurmd && cluster_usable; then
        msg "already up: partition $PARTITION, node $(node_name) $(node_state)"
        echo "$PARTITION"
        return 0
    fi
    mkdir -p "$LOGDIR" "$SPOOLDIR/ctld" "$SPOOLDIR/d"
    chmod 755 "$LOGDIR"
    # Rewrite the config only when no SLURM daemon is running on the old one.
    if ! is_running slurmctld && ! is_running slurmd; then
        write_config
    fi
    start_munged
    start_slurm_daemon slurmctld
    start_slurm_daemon slurmd -N "$(node_name)"
    local deadline=$((SECONDS + TIMEOUT)) st=""
    while ((SECONDS < deadline)); do
        st=$(node_state)
        case "$st" in
            idle | mix | alloc | comp) break ;;
        esac
        is_running slurmctld || up_fail "slurmctld died while starting"
        is_running slurmd || up_fail "slurmd died while starting"
        sleep 0.5
    done
    case "$st" in
        idle | mix | alloc | comp) ;;
        *)
            timeout 10 sinfo -N -l >&2 2>&1 || true
            up_fail "node not usable after ${TIMEOUT}s (sinfo state: '${st:-none}')"
            ;;
    esac
    msg "up: partition $PARTITION, node $(node_name) $st, $(nproc) CPUs; logs in $LOGDIR"
    echo "$PARTITION"
}

# ------------------------------------------------------------------------ down
our_listeners() {
    # Sockets (TCP/UDP/unix) held by munged, slurmctld, slurmd or slurmstepd.
    ss -Hlpntux 2>/dev/null | grep -E '"(munged|slurmctld|slurmd|slurmstepd)"' || true
}

# PIDs of processes left over from this cluster's jobs (their environment
# says SLURM_CLUSTER_NAME=testcluster), except this script and its ancestors.
# A job process that ignores SIGTERM (Snakemake does, while it has jobs) and
# was re-parented to init can escape proctrack/linuxproc when its job is
# cancelled; `down` kills those by PID.
leftover_job_pids() {
    local keep=" $BASHPID " p=$$
    while [[ -n "$p" && "$p" -gt 1 ]]; do
        keep+="$p "
        p=$(awk '/^PPid:/ {print $2}' "/proc/$p/status" 2>/dev/null || true)
    done
    for p in /proc/[0-9]*; do
        p=${p#/proc/}
        [[ "$keep" == *" $p "* ]] && continue
        if { tr '\0' '\n' <"/proc/$p/environ" | grep -qx 'SLURM_CLUSTER_NAME=testcluster'; } 2>/dev/null; then
            echo "$p"
        fi
    done
    return 0
}

stop_daemon() {
    local name=$1 pid i
    pid=$(daemon_pid "$name") || { msg "$name not running"; rm -f "$(pidfile_of "$name")"; return 0; }
    kill -TERM "$pid" 2>/dev/null || true
    for ((i = 0; i < 100; i++)); do
        [[ -d "/proc/$pid" ]] || break
        sleep 0.1
    done
    if [[ -d "/proc/$pid" ]]; then
        msg "$name (pid $pid) ignored SIGTERM for 10 s; sending SIGKILL"
        kill -KILL "$pid" 2>/dev/null || true
        for ((i = 0; i < 50; i++)); do
            [[ -d "/proc/$pid" ]] || break
            sleep 0.1
        done
    fi
    [[ -d "/proc/$pid" ]] && die "$name (pid $pid) is still alive"
    rm -f "$(pidfile_of "$name")"
    msg "$name stopped (was pid $pid)"
}

cmd_down() {
    require_root down
    # Cancel whatever is still queued or running, so no job step outlives slurmd.
    if is_running slurmctld && command -v scancel >/dev/null 2>&1; then
        local jobs
        jobs=$(timeout 10 squeue -h -o %i 2>/dev/null | tr '\n' ' ' || true)
        if [[ -n "${jobs// /}" ]]; then
            msg "cancelling jobs: $jobs"
            # shellcheck disable=SC2086
            timeout 10 scancel $jobs 2>/dev/null || true
            local i
            for ((i = 0; i < 40; i++)); do
                [[ -z "$(timeout 5 squeue -h -t RUNNING,COMPLETING -o %i 2>/dev/null || true)" ]] && break
                sleep 0.25
            done
        fi
    fi
    local d
    for d in "${DAEMONS[@]}"; do stop_daemon "$d"; done
    local pids
    pids=$(leftover_job_pids | tr '\n' ' ')
    if [[ -n "${pids// /}" ]]; then
        msg "killing processes left over from jobs: $pids"
        # shellcheck disable=SC2086
        kill -KILL $pids 2>/dev/null || true
        sleep 0.5
    fi
    local left
    left=$(our_listeners)
    [[ -z "$left" ]] || die "sockets still held after stopping the daemons:
$left"
    # Remove our slurm.conf: with it and no slurmctld, every `scontrol show config` waits ~9 s for
    # the controller, and snakemake-executor-plugin-slurm 2.8.0 runs that at import, i.e. in every
    # `snakemake` command (even local ones) on this machine. Without it scontrol fails at once.
    if [[ -f "$CONF" ]] && grep -qF "$MARKER" "$CONF"; then
        rm -f "$CONF"
        msg "down: removed $CONF (written by up)"
    fi
    msg "down: no munged/slurmctld/slurmd socket left"
}

# ---------------------------------------------------------------------- status
cmd_status() {
    local d pid rc=0
    for d in munged slurmctld slurmd; do
        if pid=$(daemon_pid "$d"); then
            printf '%-10s running (pid %s)\n' "$d" "$pid"
        else
            printf '%-10s stopped\n' "$d"
            rc=3
        fi
    done
    if is_running slurmctld; then
        printf 'partition  %s, node state: %s\n' "$PARTITION" "$(node_state)"
        cluster_usable || rc=3
        timeout 10 squeue 2>/dev/null || true
    fi
    local l
    l=$(our_listeners)
    if [[ -n "$l" ]]; then
        printf 'listening:\n%s\n' "$l"
    fi
    return $rc
}

case "${1:-}" in
    install) cmd_install ;;
    up) cmd_up ;;
    down) cmd_down ;;
    status) cmd_status ;;
    -h | --help | help) usage ;;
    *) usage ;;
esac
