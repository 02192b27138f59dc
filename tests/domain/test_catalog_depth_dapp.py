"""Depth review of the application-side families (s22-dapp): entries that split a code or reason
out of an entry that lumped it with others, read from the emitter's own source. Each golden line
is quoted from the public thread named beside it or, where none was found, rendered from the
emitter's format string (said "rendered")."""

from __future__ import annotations

import pytest

from autorecover.domain.records import Blame, NodeAction
from domain.golden import CATALOG
from domain.golden import scanned_blames as found

# key -> (blame, the weight range it must keep)
ADDED: dict[str, tuple[Blame, range]] = {
    "pip.requirements_file_io": (Blame.SYMPTOM, range(10, 30)),
    "conda.download_ca_unreadable": (Blame.APPLICATION, range(50, 61)),
    "clearml.login_server_error": (Blame.TRANSIENT, range(20, 50)),
    "checkpoint.zip_archive_read_failed": (Blame.SYMPTOM, range(5, 20)),
    "python.shutdown_stream_lock": (Blame.SYMPTOM, range(0, 20)),
    "lmdeploy.turbomind_cuda_usage": (Blame.APPLICATION, range(50, 61)),
}


@pytest.mark.parametrize(("key", "want"), sorted(ADDED.items()))
def test_added_entry_blame_weight_and_no_node_action(key: str, want: tuple[Blame, range]) -> None:
    sig = CATALOG.signatures[key]
    blame, weights = want
    assert sig.blame is blame
    assert sig.weight in weights, sig.weight
    assert sig.node_action is NodeAction.NONE


@pytest.mark.parametrize(
    ("line", "signal", "blame"),
    [
        # rendered from pip src/pip/_internal/req/req_file.py get_file_content: a stale NFS
        # handle and an I/O error under the requirements file are the storage's
        ("ERROR: Could not open requirements file: [Errno 116] Stale file handle: "
         "'/shared/project/requirements.txt'", "pip.requirements_file_io", Blame.SYMPTOM),
        ("ERROR: Could not open requirements file: [Errno 5] Input/output error: "
         "'/lustre/proj/requirements.txt'", "pip.requirements_file_io", Blame.SYMPTOM),
        ("ERROR: Could not open constraint file: [Errno 107] Transport endpoint is not "
         "connected: '/mnt/gcs/constraints.txt'", "pip.requirements_file_io", Blame.SYMPTOM),
        # fanjunkai1/DVD issue #1: a missing file stays the job's
        ("ERROR: Could not open requirements file: [Errno 2] No such file or directory: "
         "'requirements.txt'", "pip.requirements_unusable", Blame.APPLICATION),
        # rendered from libmamba's build_download_error with curl's strerror texts
        ("critical libmamba Download error (77) Problem with the SSL CA cert (path? access "
         "rights?) [https://conda.anaconda.org/conda-forge/linux-64/repodata.json]",
         "conda.download_ca_unreadable", Blame.APPLICATION),
        ("RuntimeError: Download error (82) Failed to load CRL file (path? access rights?, "
         "format?) [https://conda.anaconda.org/conda-forge/noarch/repodata.json]",
         "conda.download_ca_unreadable", Blame.APPLICATION),
        # dptech-corp/Uni-Dock2 issue #1: a timeout stays the channel's
        (" RuntimeError: Download error (28) Timeout was reached "
         "[http://quetz.dp.tech:8088/get/baymax/noarch/repodata.json]", "conda.download_failed",
         Blame.TRANSIENT),
        # rendered from clearml session.py refresh_token: a 5xx is the server's
        ("clearml.backend_api.session.defs.LoginError: Failed getting token (error 500 from "
         "http://clearml-apiserver:8008): General data error", "clearml.login_server_error",
         Blame.TRANSIENT),
        ("2024-05-01 10:00:00 clearml_agent: ERROR: Failed getting token (error 504 from "
         "https://api.example.org): Gateway Time-out", "clearml.login_server_error",
         Blame.TRANSIENT),
        # clearml/clearml-server issue #174: the keys stay the job's
        ("2023-01-18 16:41:56 clearml_agent: ERROR: Failed getting token (error 401 from "
         "http://clearml-apiserver:8008): Unauthorized (invalid credentials) (failed to locate "
         "provided credentials)", "clearml.credentials_rejected", Blame.APPLICATION),
        # rendered from PyTorch inline_container.cc valid("reading zip archive") with miniz's
        # MZ_ZIP_FILE_READ_FAILED / MZ_ZIP_FILE_SEEK_FAILED texts
        ("RuntimeError: [enforce fail at inline_container.cc:222] . PytorchStreamReader failed "
         "reading zip archive: file read failed", "checkpoint.zip_archive_read_failed",
         Blame.SYMPTOM),
        ("RuntimeError: PytorchStreamReader failed reading zip archive: file seek failed",
         "checkpoint.zip_archive_read_failed", Blame.SYMPTOM),
        # open-mmlab/mmagic issue #876: a file cut short stays the job's artifact
        ("RuntimeError: [enforce fail at inline_container.cc:144] . PytorchStreamReader failed "
         "reading zip archive: failed finding central directory", "checkpoint.file_unreadable",
         Blame.APPLICATION),
        # pfnet/pytorch-pfn-extras issue #298, bitcraze/crazyflie-lib-python issue #351
        ("Fatal Python error: _enter_buffered_busy: could not acquire lock for "
         "<_io.BufferedWriter name='<stderr>'> at interpreter shutdown, possibly due to daemon "
         "threads", "python.shutdown_stream_lock", Blame.SYMPTOM),
        ("Fatal Python error: _enter_buffered_busy: could not acquire lock for "
         "<_io.BufferedWriter name='<stdout>'> at interpreter shutdown, possibly due to daemon "
         "threads", "python.shutdown_stream_lock", Blame.SYMPTOM),
        # pytest-dev/pytest issue #1725 (before Python 3.8: no function name)
        ("Fatal Python error: could not acquire lock for <_io.BufferedWriter name='<stdout>'> at "
         "interpreter shutdown, possibly due to daemon threads", "python.shutdown_stream_lock",
         Blame.SYMPTOM),
        # patrickloeber/snake-ai-pytorch issue #18: the GIL misuse stays the job's
        ("Fatal Python error: PyEval_RestoreThread: the function must be called with the GIL "
         "held, but the GIL is released (the current Python thread state is NULL)",
         "python.fatal_error", Blame.APPLICATION),
        # rendered from TurboMind's check() (src/turbomind/utils/cuda_utils.h)
        ("RuntimeError: [TM][ERROR] CUDA runtime error: invalid argument "
         "/lmdeploy/src/turbomind/utils/allocator.h:197", "lmdeploy.turbomind_cuda_usage",
         Blame.APPLICATION),
        ("[TM][ERROR] CUDA runtime error: invalid device function "
         "/lmdeploy/src/turbomind/kernels/attention/attention.cu:44",
         "lmdeploy.turbomind_cuda_usage", Blame.APPLICATION),
        # InternLM/lmdeploy issue #2414 (MIG through vGPU): stays the symptom
        ("RuntimeError: [TM][ERROR] CUDA runtime error: operation not supported "
         "/lmdeploy/src/turbomind/utils/allocator.h:197", "lmdeploy.turbomind_cuda_error",
         Blame.SYMPTOM),
    ],
)  # fmt: skip
def test_depth_lines(line: str, signal: str, blame: Blame) -> None:
    signals = found(line)
    assert signals.get(signal) is blame, signals


@pytest.mark.parametrize(
    ("line", "not_signal"),
    [
        # the split codes no longer read as the lumped entry's application
        ("ERROR: Could not open requirements file: [Errno 116] Stale file handle: "
         "'/shared/project/requirements.txt'", "pip.requirements_unusable"),
        ("ERROR: Could not open requirements file: [Errno 13] Permission denied: "
         "'/root/requirements.txt'", "pip.requirements_file_io"),
        ("RuntimeError: PytorchStreamReader failed reading zip archive: file read failed",
         "checkpoint.file_unreadable"),
        ("RuntimeError: PytorchStreamReader failed reading zip archive: not a ZIP archive",
         "checkpoint.zip_archive_read_failed"),
        ("Fatal Python error: _enter_buffered_busy: could not acquire lock for "
         "<_io.BufferedWriter name='<stderr>'> at interpreter shutdown, possibly due to daemon "
         "threads", "python.fatal_error"),
        ("Fatal Python error: _enter_buffered_busy: could not acquire lock for "
         "<_io.BufferedWriter name='<stderr>'> at interpreter shutdown, possibly due to daemon "
         "threads", "python.exception"),
        # libmamba's per-attempt warning and other curl codes are not the CA file
        ("warning  libmamba Download error (77) Problem with the SSL CA cert (path? access "
         "rights?) [https://conda.anaconda.org/conda-forge/linux-64/repodata.json]",
         "conda.download_ca_unreadable"),
        ("critical libmamba Download error (60) SSL peer certificate or SSH remote key was not "
         "OK [https://conda.anaconda.org/conda-forge/linux-64/repodata.json]",
         "conda.download_ca_unreadable"),
        # the keys' refusal is not the server's failure, and the reverse
        ("clearml_agent: ERROR: Failed getting token (error 401 from http://apiserver:8008): "
         "Unauthorized (invalid credentials)", "clearml.login_server_error"),
        ("clearml.backend_api.session.defs.LoginError: Failed getting token (error 500 from "
         "http://clearml-apiserver:8008): General data error", "python.exception"),
        # TurboMind's out-of-memory and platform errors are not read as its usage
        ("RuntimeError: [TM][ERROR] CUDA runtime error: out of memory "
         "/lmdeploy/src/turbomind/utils/allocator.h:233", "lmdeploy.turbomind_cuda_usage"),
        ("RuntimeError: [TM][ERROR] CUDA runtime error: operation not permitted "
         "/lmdeploy/src/turbomind/utils/allocator.h:197", "lmdeploy.turbomind_cuda_usage"),
    ],
)  # fmt: skip
def test_look_alikes(line: str, not_signal: str) -> None:
    assert not_signal not in found(line)


def test_examples_read_as_their_own_entry() -> None:
    for key in ADDED:
        sig = CATALOG.signatures[key]
        assert key in found(sig.example), (key, sig.example)
