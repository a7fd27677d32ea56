# Sourced by .ci/run and scripts/gpu/prepare.sh: installs nvcc 13.0 from pip wheels (pinned
# to the lent GPU's toolkit: a newer one emits PTX its 580 driver cannot JIT) into a venv and
# puts it on PATH, so build.rs compiles every kernel and a kernel that does not compile
# fails the build.
CUDA_VENV=${CUDA_VENV:-/opt/cudalens-cuda-venv}
if [ ! -x "$CUDA_VENV/bin/python" ]; then
    python3 -m venv "$CUDA_VENV"
fi
"$CUDA_VENV/bin/python" -m pip install -q --disable-pip-version-check \
    nvidia-cuda-nvcc==13.0.88 nvidia-nvvm==13.0.88 nvidia-cuda-crt==13.0.88 nvidia-cuda-runtime==13.0.96
CUDA_ROOT=$("$CUDA_VENV/bin/python" -c 'import nvidia, os; print(os.path.join(list(nvidia.__path__)[0], "cu13"))')
export PATH="$CUDA_ROOT/bin:$PATH"
export CUDALENS_REQUIRE_NVCC=1
