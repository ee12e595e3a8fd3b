#!/usr/bin/env bash
# One session on a machine with an NVIDIA GPU (see README "The runtime checker"): the
# real-CUDA report, the simulated report made on the same machine, and what differs.
#
#   OUT=reports/ bash benchmarks/gpu_report.sh
#
# Needs torch with CUDA, pytest, click, libcst on PYTHONPATH or installed. Writes under
# $OUT: env.txt, cuda.log, cuda-report.json, sim.log, sim-report.json, compare.txt.
# Each phase has its own time limit and is interrupted with SIGINT, so pytest still
# writes the report of the scripts that finished.
set -u
OUT=${OUT:?set OUT to a folder for the reports}
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1
PY=${PYTHON:-python3}
plugin=()
# an installed devicelint registers the plugin itself; a bare checkout names it
$PY -c "from importlib.metadata import entry_points as e; import sys; sys.exit(not any(p.name == 'devicelint' for p in e(group='pytest11')))" \
  || plugin=(-p devicelint.runtime.plugin)
{
  date -u +%FT%TZ
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv
  $PY -c "import sys, torch; print('python', sys.version.split()[0], 'torch', torch.__version__, 'cuda', torch.version.cuda, torch.cuda.get_device_name(0))"
  echo "cpus $(nproc)"
} >"$OUT/env.txt" 2>&1
cat "$OUT/env.txt"

jobs=${DEVICELINT_JOBS:-8}
start=$SECONDS
timeout -s INT "${CUDA_LIMIT:-330}" $PY -m pytest "${plugin[@]}" tests/test_runtime_fixtures.py -q -p no:cacheprovider \
  --cuda --cuda-report "$OUT/cuda-report.json" --devicelint-jobs "$jobs" --cuda-timeout 90 >"$OUT/cuda.log" 2>&1
echo "real CUDA: exit $? in $((SECONDS - start)) s"
sed -n '/devicelint runtime verdicts/,$p' "$OUT/cuda.log" | grep -v "^ *[0-9.]*s call" | tail -n 70

start=$SECONDS
timeout -s INT "${SIM_LIMIT:-150}" $PY -m pytest "${plugin[@]}" tests/test_runtime_fixtures.py -q -p no:cacheprovider \
  --simulate-cuda --cuda-report "$OUT/sim-report.json" --devicelint-jobs "$jobs" >"$OUT/sim.log" 2>&1
echo "simulated: exit $? in $((SECONDS - start)) s"
grep -E "scripts passed|autofix \(" "$OUT/sim.log"

$PY -m devicelint.runtime.compare "$OUT/cuda-report.json" "$OUT/sim-report.json" | tee "$OUT/compare.txt"
