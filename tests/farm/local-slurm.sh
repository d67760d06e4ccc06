#!/usr/bin/env bash
# End-to-end test of `make farm` against a real Slurm (`make farm-test`).
#
# Starts a private one-node Slurm cluster on this host: munged, slurmctld and slurmd from a
# generated slurm.conf, a fresh munge key, their own socket, ports, state, spool and logs, all
# in one `mktemp -d` directory; then
#   1. a 4-shard regression through `make farm`, which must pass, and whose merged JSON must
#      equal a direct, unsharded `fma-cosim run` of the same parameters (params, and per family
#      and per chunk the vectors, cycles and divergences);
#   2. the injected fault (COSIM_RTL=fault_sticky_rz) as 2 shards: `make farm` must fail and
#      the merged JUnit XML must carry a <failure> that names align_sticky;
#   3. a shard that writes no result (a wrapper FARM_BIN that fails for task 2): `make farm`
#      must fail and the merge must name the missing shard;
#   4. `make farm-exhaust` of a few values of `a` of the kit's RTL as 2 shards: it must pass with
#      a complete merged file; with task 2 failing, it must exit 2 and name the missing shard.
# Whatever happens (failure, Ctrl-C), the jobs are cancelled, exactly the daemons started here
# are stopped (by their recorded pids) and the directory is removed.
#
# Installs slurm-wlm and munge with apt-get when they are missing (as root or with password-less
# sudo; tools/apt-install.sh). The daemons run as the calling user (SlurmUser, SlurmdUser): root
# is needed only for the installation.
# Environment: FARM_TEST_KEEP=1 keeps the temporary directory (logs, results) for a look.
set -u -o pipefail

export PATH=$PATH:/usr/sbin:/sbin
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
here=$root/tests/farm
say() { echo "farm-test: $*"; }
fail_now() { echo "farm-test: error: $*" >&2; exit 1; }

# --- packages --------------------------------------------------------------------------------
have_slurm() {
    local c
    for c in munged munge unmunge slurmctld slurmd sbatch sinfo squeue scancel; do
        command -v "$c" >/dev/null 2>&1 || return 1
    done
}
if ! have_slurm; then
    "$root/tools/apt-install.sh" --no-recommends --for "make farm-test (Slurm)" slurm-wlm munge ||
        exit 1
    have_slurm || fail_now "slurm-wlm and munge are installed but their commands are not found"
fi
command -v python3 >/dev/null || fail_now "python3 is required"

# --- the private cluster ---------------------------------------------------------------------
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ptxfma-farm-test.XXXXXX") || fail_now "mktemp -d failed"
# munged requires its socket path to be searchable by everyone; nothing in it is readable.
chmod 0711 "$tmp"
daemons=()    # "name:pid", in start order
cluster_up=
ctld_pid=
user=$(id -un)

# From /proc (procps may be missing): field 3 of /proc/PID/stat is the state, 4 the parent.
stat_field() { # pid n: field n of /proc/pid/stat (after the command name), or nothing
    local s
    s=$(cat "/proc/$1/stat" 2>/dev/null) || return 0
    s=${s##*) }
    cut -d' ' -f$(($2 - 2)) <<<"$s"
}

alive() { # pid: running (not exited, not a zombie waiting to be reaped)
    case "$(stat_field "$1" 3)" in '' | Z | X) return 1 ;; esac
}

stop_pid() { # name pid: SIGTERM, up to 30 s, then SIGKILL; reaps it
    local name=$1 pid=$2 i
    kill -TERM "$pid" 2>/dev/null
    for ((i = 0; i < 300; i++)); do
        alive "$pid" || break
        sleep 0.1
    done
    if [ "$i" = 300 ]; then
        echo "farm-test: $name (pid $pid) did not stop in 30 s; killing it" >&2
        kill -KILL "$pid" 2>/dev/null
    fi
    wait "$pid" 2>/dev/null
}

daemon_pids() { local e; for e in "${daemons[@]}"; do echo "${e##*:}"; done; }

strays() { # pids with a file open under $tmp other than the daemons and their children
    local p ours
    ours=" $(daemon_pids | tr '\n' ' ') "
    for p in $(find /proc/[0-9]*/fd -maxdepth 1 -lname "$tmp/*" 2>/dev/null | cut -d/ -f3 |
               sort -un); do
        [[ $ours == *" $p "* || $ours == *" $(stat_field "$p" 4) "* ]] ||
            [ "$p" = $$ ] || echo "$p"
    done
}

cleanup() {
    local rc=$? t0 entry left i
    # Bounded (about a minute at worst); a second Ctrl-C must not leave the daemons behind.
    trap '' INT TERM HUP
    trap - EXIT
    if [ -n "$cluster_up" ] && alive "$ctld_pid"; then
        # Jobs first: their slurmstepd and fma-cosim processes are not children of slurmd; a
        # slurmstepd lingers a moment after its job ends, so wait for those too.
        timeout 20 scancel --quiet --user="$user" 2>/dev/null
        t0=$SECONDS
        while ((SECONDS - t0 < 30)); do
            [ -z "$(timeout 10 squeue -h -o %i 2>/dev/null)" ] && [ -z "$(strays)" ] && break
            sleep 0.2
        done
    fi
    for ((i = ${#daemons[@]} - 1; i >= 0; i--)); do
        entry=${daemons[i]}
        stop_pid "${entry%%:*}" "${entry##*:}"
    done
    left=$(strays)
    [ -z "$left" ] || echo "farm-test: warning: processes of the test's jobs still running:" \
                           "$(tr "\n" " " <<<"$left")" >&2
    if [ "${FARM_TEST_KEEP:-0}" = 1 ]; then
        say "kept $tmp"
    else
        rm -rf "$tmp"
    fi
    exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

show_logs() {
    local f
    for f in "$tmp"/log/*; do
        [ -s "$f" ] || continue
        echo "---- ${f#"$tmp"/} (last 30 lines)" >&2
        tail -n 30 "$f" >&2
    done
}

host=$(hostname -s)
mkdir -p "$tmp"/{munge,state,spool,log,run,results} || fail_now "cannot populate $tmp"
chmod 0711 "$tmp"/munge

# Two free TCP ports in 16800-16899, from a random start.
read -r ctld_port slurmd_port < <(python3 - <<'EOF'
import random, socket
ports = list(range(16800, 16900))
start = random.randrange(len(ports))
free = []
for p in ports[start:] + ports[:start]:
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        s.bind(("0.0.0.0", p))
        free.append(p)
    except OSError:
        pass
    finally:
        s.close()
    if len(free) == 2:
        break
print(*free)
EOF
)
[ -n "${slurmd_port:-}" ] || fail_now "no two free TCP ports in 16800-16899"

# This machine as slurmd sees it, with the memory a little below the real one.
node_line=$(slurmd -C 2>/dev/null | grep '^NodeName=') || fail_now "slurmd -C failed"
real_mem=$(sed -n 's/.*RealMemory=\([0-9]*\).*/\1/p' <<<"$node_line")
node_line=$(sed "s/^NodeName=[^ ]*/NodeName=$host/; s/ RealMemory=[0-9]*//" <<<"$node_line")
mem=$(( ${real_mem:-2048} > 1024 ? ${real_mem:-2048} - 512 : ${real_mem:-2048} / 2 ))

socket=$tmp/munge/munge.socket
conf=$tmp/slurm.conf
: > "$tmp/plugstack.conf"
cat > "$conf" <<EOF
# ptxfma farm-test: a private one-node cluster (tests/farm/local-slurm.sh)
ClusterName=ptxfma-farm-test
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=$user
SlurmdUser=$user
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$socket
StateSaveLocation=$tmp/state
SlurmdSpoolDir=$tmp/spool/slurmd-%n
SlurmctldPidFile=$tmp/run/slurmctld.pid
SlurmdPidFile=$tmp/run/slurmd-%n.pid
SlurmctldLogFile=$tmp/log/slurmctld.log
SlurmdLogFile=$tmp/log/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
PlugStackConfig=$tmp/plugstack.conf
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SwitchType=switch/none
MpiDefault=none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MailProg=/bin/true
ReturnToService=2
# Never purge finished jobs (the cluster lives for one test): sbatch --wait then polls every 2 s
# instead of backing off to 32 s.
MinJobAge=0
SlurmdTimeout=60
$node_line RealMemory=$mem NodeAddr=127.0.0.1 NodeHostname=$host State=UNKNOWN
PartitionName=farm Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF=$conf
# Nothing from the caller's Slurm or make environment may leak into the test's jobs and makes.
unset SBATCH_PARTITION SBATCH_TIMELIMIT SBATCH_ACCOUNT SBATCH_QOS SBATCH_EXPORT SQUEUE_FORMAT \
      SINFO_FORMAT MAKEFLAGS MFLAGS MAKELEVEL FARM_BIN FARM_RESULTS FARM_PARTITION FARM_TIME \
      FARM_CPUS FARM_CHUNK FARM_SBATCH_ARGS COSIM_RTL

mungekey --create --keyfile="$tmp/munge/munge.key" >/dev/null 2>&1 ||
    { dd if=/dev/urandom of="$tmp/munge/munge.key" bs=1024 count=1 status=none &&
      chmod 0600 "$tmp/munge/munge.key"; } || fail_now "cannot create a munge key"

# Each daemon in its own session (setsid, which does not fork here: a background job of a
# script is no process group leader), so that a Ctrl-C meant for the test does not reach it;
# $! is then the daemon itself, checked by start().
start() { # name command...: starts it in the background and records its pid
    local name=$1 pid
    shift
    setsid "$@" >> "$tmp/log/$name.out" 2>&1 < /dev/null &
    pid=$!
    daemons+=("$name:$pid")
    sleep 0.2
    if ! alive "$pid" || [ "$(cat "/proc/$pid/comm" 2>/dev/null)" != "$name" ]; then
        show_logs
        fail_now "$name did not start (pid $pid: $(cat "/proc/$pid/comm" 2>/dev/null))"
    fi
}

start munged munged --foreground --socket="$socket" --key-file="$tmp/munge/munge.key" \
    --pid-file="$tmp/run/munged.pid" --log-file="$tmp/log/munged.log" \
    --seed-file="$tmp/munge/munged.seed"
for ((i = 0; i < 100; i++)); do
    munge -n -S "$socket" 2>/dev/null | unmunge -S "$socket" >/dev/null 2>&1 && break
    sleep 0.1
done
[ "$i" -lt 100 ] || { show_logs; fail_now "munged did not answer on $socket in 10 s"; }

cluster_up=1
start slurmctld slurmctld -D -c -f "$conf"
ctld_pid=${daemons[-1]##*:}
start slurmd slurmd -D -f "$conf"

say "private Slurm in $tmp: node $host, slurmctld port $ctld_port, slurmd port $slurmd_port"
t0=$SECONDS
state=
while ((SECONDS - t0 < 60)); do
    state=$(sinfo -h -N -n "$host" -o %T 2>/dev/null)
    [ "$state" = idle ] && break
    for entry in "${daemons[@]}"; do
        if ! alive "${entry##*:}"; then
            show_logs
            fail_now "${entry%%:*} exited while starting"
        fi
    done
    sleep 0.5
done
[ "$state" = idle ] || { show_logs; fail_now "node $host not idle after 60 s (state: ${state:-none})"; }
say "node $host is idle after $((SECONDS - t0)) s"

# --- the tests -------------------------------------------------------------------------------
passed=0
failed=0
failures=()
pass() { passed=$((passed + 1)); say "PASS $1"; }
fail() { failed=$((failed + 1)); failures+=("$1"); say "FAIL $1"; }

seed=11
results=$tmp/results

# make farm with explicit knobs only; the output goes to the terminal and to LOG.
run_farm() { # log knobs...
    local log=$1
    shift
    make -C "$root" --no-print-directory farm FARM_BIN= FARM_PARTITION= FARM_TIME= FARM_CPUS= \
        FARM_SBATCH_ARGS= "$@" 2>&1 | tee "$log"
}

# 1. Four shards pass and equal the direct run.
say "== 4 shards, seed $seed, 40000 operations, chunks of 4096"
t_start=$(date +%s.%N)
run_farm "$tmp/four.log" FARM_SHARDS=4 FARM_RESULTS="$results/four" COSIM_RTL=default \
    COSIM_SEED=$seed COSIM_COUNT=40000 COSIM_FILTER=all FARM_CHUNK=4096
four_rc=$?
four_secs=$(awk -v a="$t_start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
if [ "$four_rc" = 0 ] && [ -s "$results/four/merged.json" ] && [ -s "$results/four/junit.xml" ]
then
    pass "4-shard make farm passes in $four_secs s"
else
    fail "4-shard make farm (exit status $four_rc; merged.json/junit.xml written?)"
fi

say "== the same run unsharded: fma-cosim run --json direct.json"
if [ -x "$results/four/fma-cosim" ] &&
   "$results/four/fma-cosim" run --seed $seed --count 40000 --filter all --rtl default \
       --chunk-size 4096 --json "$tmp/direct.json" --waves-dir "$tmp/direct-waves" \
       > "$tmp/direct.log" 2>&1; then
    if python3 "$here/compare_results.py" "$results/four/merged.json" "$tmp/direct.json"; then
        pass "merged JSON of 4 shards equals the direct run"
    else
        fail "merged JSON of 4 shards differs from the direct run"
    fi
else
    tail -n 20 "$tmp/direct.log" >&2
    fail "direct fma-cosim run (no binary, or it failed)"
fi

# 2. The injected fault: the farm fails, and the JUnit XML says where.
say "== injected fault fault_sticky_rz, 2 shards, f32"
run_farm "$tmp/fault.log" FARM_SHARDS=2 FARM_RESULTS="$results/fault" \
    COSIM_RTL=fault_sticky_rz COSIM_SEED=1 COSIM_COUNT=20000 COSIM_FILTER=f32 FARM_CHUNK=
fault_rc=$?
if [ "$fault_rc" != 0 ]; then
    pass "make farm with the injected fault exits non-zero ($fault_rc)"
else
    fail "make farm with the injected fault exited 0"
fi
if python3 "$here/check_junit.py" "$results/fault/junit.xml" align_sticky; then
    pass "merged junit.xml has a <failure> naming align_sticky"
else
    fail "merged junit.xml lacks a <failure> naming align_sticky"
fi

# 3. A shard that writes nothing: the other is merged, the missing one named, the farm fails.
say "== a shard that writes no result (task 2 of 2 fails before running)"
mkdir -p "$results/missing"
cat > "$tmp/broken-fma-cosim" <<EOF
#!/bin/sh
if [ "\${SLURM_ARRAY_TASK_ID:-}" = 2 ]; then echo "simulated crash of shard 2" >&2; exit 2; fi
exec "$results/four/fma-cosim" "\$@"
EOF
chmod +x "$tmp/broken-fma-cosim"
run_farm "$tmp/missing.log" FARM_SHARDS=2 FARM_RESULTS="$results/missing" \
    FARM_BIN="$tmp/broken-fma-cosim" COSIM_RTL=default COSIM_SEED=$seed COSIM_COUNT=4000 \
    COSIM_FILTER=f32 FARM_CHUNK=
missing_rc=$?
if [ "$missing_rc" != 0 ] && [ -s "$results/missing/shard-1.json" ] &&
   grep -q 'shard 2/2 wrote no result' "$tmp/missing.log" &&
   grep -Eq 'shard 2/2 missing|missing.*2/2' "$tmp/missing.log"; then
    pass "a shard without a result fails the farm and is named by the merge"
else
    fail "missing shard (exit status $missing_rc; see the output above)"
fi

# 4. make farm-exhaust: two shards of an exhaustion of the kit's RTL merge into a complete file;
#    a shard that writes nothing leaves the merge incomplete, named, and the farm failing.
run_farm_exhaust() { # log knobs...
    local log=$1
    shift
    make -C "$root" --no-print-directory farm-exhaust FARM_BIN= FARM_PARTITION= FARM_TIME= \
        FARM_CPUS= FARM_SBATCH_ARGS= EXHAUST_DUT= COSIM_RTL=default EXHAUST_FORMS=mul.rn.f16 \
        EXHAUST_A_RANGE=0x3c00..0x3c06 "$@" 2>&1 | tee "$log"
}
say "== make farm-exhaust: mul.rn.f16, a 0x3c00..0x3c06, 2 shards"
run_farm_exhaust "$tmp/exhaust.log" FARM_SHARDS=2 FARM_RESULTS="$results/exhaust"
exhaust_rc=$?
if [ "$exhaust_rc" = 0 ] && grep -q '"complete": true' "$results/exhaust/merged.json" 2>/dev/null &&
   grep -q '6 of 6 values of a done, 0 differ' "$tmp/exhaust.log"; then
    pass "2-shard make farm-exhaust passes, the merged file complete"
else
    fail "2-shard make farm-exhaust (exit status $exhaust_rc; see the output above)"
fi
say "== make farm-exhaust with a shard that writes no result (task 2 of 2)"
run_farm_exhaust "$tmp/exhaust-missing.log" FARM_SHARDS=2 FARM_RESULTS="$results/exhaust-missing" \
    FARM_BIN="$tmp/broken-fma-cosim"
exhaust_missing_rc=$?
if [ "$exhaust_missing_rc" = 2 ] &&
   grep -q 'shard 2/2 (a 0x3c03..0x3c06) wrote no file' "$tmp/exhaust-missing.log" &&
   grep -q '"complete": false' "$results/exhaust-missing/merged.json" 2>/dev/null; then
    pass "a shard of an exhaustion without a result fails the farm (2) and is named"
else
    fail "missing shard of an exhaustion (exit status $exhaust_missing_rc; see the output above)"
fi

# --- summary ---------------------------------------------------------------------------------
echo
say "summary"
array_secs=$(sed -n 's/^farm: job [0-9]* finished in \([0-9.]*\) s.*/\1/p' "$tmp/four.log")
echo "  4-shard farm run: $four_secs s wall for make farm (build check, copy, submit, 4 tasks," \
     "merge), of which ${array_secs:-?} s from submission to the last task's end"
if [ -s "$results/four/merged.json" ]; then
    python3 "$here/compare_results.py" --summary "$results/four/merged.json" | sed 's/^/  /'
fi
if ((failed)); then
    for f in "${failures[@]}"; do echo "  failed: $f"; done
fi
echo "farm-test: $passed passed, $failed failed"
((failed == 0))
