#!/bin/bash
# Copy into .gpulab/bin (with ../shared/gpu-lab/{unpack,wait,env}.sh, make_model_folder.py and
# the compressed-tensors and loguru wheels in .gpulab/bin/wheels) before the hold.
# Call 2 on the GPU machine, from the call's project copy: join the site, copy this project to
# $LAB/proj (it outlives the call), start benchmarks/h200/$1 in its own session.
set -e
LAB=${LAB:-$HOME/gpulab}
bash .gpulab/bin/unpack.sh join .gpulab/part2
# vLLM requirements the lab's site leaves out (Qwen3.5 imports compressed_tensors at inspection)
for w in .gpulab/bin/wheels/*.whl; do if [ -e "$w" ]; then python3 -m zipfile -e "$w" "$LAB/site/"; fi; done
rm -rf "$LAB/proj"; mkdir -p "$LAB/proj" "$LAB/out"
tar --exclude=./.gpulab/part2 --exclude=./.git -cf - . | tar -xf - -C "$LAB/proj"
cd "$LAB/proj"
setsid nohup bash "$LAB/proj/benchmarks/h200/$1" > "$LAB/out/driver.log" 2>&1 < /dev/null &
sleep 2; echo "driver $1 started"; head -5 "$LAB/out/driver.log" || true
