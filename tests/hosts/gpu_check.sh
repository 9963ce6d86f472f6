#!/bin/bash
# The kit on a GPU host, checked as an instructor would grade there: root, wherever the host put
# this shell's cgroup (shared with its own processes), no --allow-unsandboxed, the host's PyTorch
# with CUDA. About 9 minutes on 16 cores and one H200, doctor's comparison 4 to 5 of them: give it 600 s
# (DOCTOR=0 leaves doctor out: under 4 minutes). Prints, in order:
#   host; doctor --device cuda (where the job cgroups went and how, CUDA's tier, every reference on
#   the GPU, and the verdicts of the reference, correct samples and every known mistake on the GPU,
#   exact and fast kernels, against the CPU's); each reference on cuda and cpu and each blank
#   release on cuda (0); the hostile set on cuda (each as expected.json says, the GPU hog included);
#   a class of 48 with two GPU hogs graded with 16 jobs on cuda (the hogs lose Embeddings only,
#   everyone else full marks); --device auto; bench --device cuda: classes of 48 and 320 with 16
#   jobs on cpu and cuda, per submission and in bare imports, and GPU memory per grading.
# Run it from the checkout's root, with the wheels the host lacks beside it (tests/hosts/README.md):
#   bash .device/gpu_check.sh        (here, without a GPU: PY=.venv/bin/python bash .device/gpu_check.sh)
set -u
OUT=${OUT:-/tmp/device_out}; mkdir -p "$OUT"
exec > >(tee "$OUT/log.txt") 2>&1
here=$(cd "$(dirname "$0")" && pwd)
PY=${PY:-python3}
if ls "$here"/*.whl >/dev/null 2>&1 && $PY -c 'import sys; sys.exit(sys.version_info[:2] != (3, 12))'; then
  $PY -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site "$here"/*.whl \
    && export PYTHONPATH=/tmp/site
fi
T0=$(date +%s); el() { echo "[t+$(( $(date +%s) - T0 ))s] $*"; }
now() { date +%s.%N; }
G=/tmp/g; rm -rf "$G"; mkdir -p "$G"
echo "== host"; nvidia-smi -L 2>&1 | head -2; nproc; id -u; uname -r; stat -fc %T /sys/fs/cgroup; cat /proc/self/cgroup
$PY -c "import torch, sys; print('python', sys.version.split()[0], 'torch', torch.__version__, 'cuda', torch.cuda.is_available())"
score() {  # score RESULTS.json LABEL: points, what was lost, the device and why, any error
  $PY - "$@" <<'PY'
import json, sys
path, label = sys.argv[1:]
try:
    r = json.load(open(path))
except Exception as e:
    print(f"{label}: no results.json ({type(e).__name__})"); sys.exit()
x = r.get("extra_data", {})
lost = sorted(n for n, p in x.get("by_name", {}).items() if p["score"] < p["max_score"] - 1e-9)
why = f" ({x['device_why'][:160]})" if x.get("device_why") else ""
err = f"; error: {str(x.get('error', ''))[:300]}" if x.get("error") else ""
cpu = [" ".join(n.split()) for n in x.get("notes", []) if "graded on the CPU" in n]  # CUDA failed their process
moved = f"; {len(cpu)} names graded on the CPU instead ({cpu[0][-160:]})" if cpu else ""
print(f"{label}: {r.get('score')} of {x.get('max_score')} on {x.get('device')}{why}; lost {lost}{moved}{err}")
PY
}
one() {  # one DEVICE ASSIGNMENT SUBMISSION LABEL
  local d="$G/$1-$2-$4"
  timeout 200 $PY -m autograder grade "$3" --assignment "$2" --out "$d" --device "$1" >"$d.log" 2>&1
  score "$d/results.json" "$1 $2 $4 (exit $?)"
}
el "1. in parallel: the hostile set on cuda; each reference on cuda and cpu, each blank release on cuda"
(timeout 400 $PY -m tests.sandbox.hostile_run "$G/hostile.json" --device cuda >"$G/hostile.log" 2>&1; echo "hostile_run exit $?" >>"$G/hostile.log") &
hostile=$!
for a in mha encoder_block attention_numpy; do
  one cuda "$a" "solutions/$a/reference.py" reference >"$G/ref-$a.txt" &
  one cpu "$a" "solutions/$a/reference.py" reference >>"$G/ref-$a.cpu.txt" &
  one cuda "$a" "release/$a/$a.ipynb" blank >"$G/blank-$a.txt" &
done
wait $(jobs -p | grep -v "^$hostile$"); cat "$G"/ref-*.txt "$G"/blank-*.txt
if [ "${DOCTOR:-1}" != 0 ]; then
  el "2. doctor --device cuda --jobs 16 (the hostile set still running)"
  timeout 300 $PY -m autograder doctor --device cuda --jobs 16 2>&1 | grep -v "^  \(hardened\|userns\|uid\|process\) \|go-rwx" | tail -40
fi
wait $hostile; tail -n 2 "$G/hostile.log"
$PY - "$G/hostile.json" <<'PY'
import json, sys
try:
    r = json.load(open(sys.argv[1]))
except Exception as e:
    print(f"hostile set: no report ({type(e).__name__})"); sys.exit()
bad = {n: p for n, p in r["problems"].items() if p}
print(f"hostile set on {r['tier'].get('device')} in {r['tier'].get('tier')} ({r['tier'].get('limits')}): "
      f"{len(r['problems']) - len(bad)} of {len(r['problems'])} as expected; kit files changed: {len(r['changed'])}")
for n, p in bad.items():
    print(f"  {n}: {'; '.join(p)[:400]}")
PY
el "3. a class of 48 with two GPU hogs, 16 jobs on cuda"
rm -rf /tmp/class /tmp/o; mkdir -p /tmp/class
for i in $(seq -w 1 48); do mkdir -p "/tmp/class/s$i"; cp solutions/mha/reference.py "/tmp/class/s$i/mha.py"; done
for i in 07 30; do cat solutions/mha/reference.py tests/data/hostile/gpu_hog.py >"/tmp/class/s$i/mha.py"; done
s=$(now); timeout 240 $PY -m autograder grade-all /tmp/class --assignment mha --out /tmp/o --jobs 16 --device cuda --quiet >"$G/hogs.log" 2>&1
echo "grade-all exit $? in $($PY -c "print(round($(now) - $s, 1))") s"; tail -n 3 "$G/hogs.log"
for f in /tmp/o/students/*/results.json; do score "$f" "$(basename "$(dirname "$f")")"; done | sed 's/ (.*)//; s/^s[0-9]*:/s..:/' | sort | uniq -c
for i in 07 30; do score "/tmp/o/students/s$i/results.json" "s$i (a hog)"; done
el "4. --device auto"; one auto mha solutions/mha/reference.py reference
el "5. bench --device cuda: classes of 48 and 320, 16 jobs, cpu and cuda"
timeout 420 $PY -m autograder bench --device cuda --devices-only --n 48 --scaling 320 --jobs 16 2>&1 | tail -12
el done
