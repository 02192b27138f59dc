"""Golden lines from sweep 10 over what compiled HPC codes' runtimes and GPU applications print
when a job fails (signatures-hpcruntime.toml): the NVIDIA HPC SDK's OpenACC / CUDA Fortran
runtime, LLVM's libomptarget, gfortran's and Intel Fortran's run-time libraries, Kokkos, Charm++
and NAMD, GROMACS, AMBER's pmemd.cuda, LAMMPS and OpenMM.

Each line is a real one from the public thread cited beside it, or, where none was found, the
emitter's format string rendered (said so beside it); every line goes through the scanner's own
matcher. Blame is pinned to what a careful SRE reads from the one line: a program's own bounds,
data-presence and input checks are the application; a CUDA error code reads as the core catalog
reads that code; a signal report is a local crash (symptom); host memory is the job's. Hints,
headers and healthy look-alikes must not match.
"""

from __future__ import annotations

from autorecover.domain.records import Blame
from domain.golden import (
    CATALOG,
    assert_no_node_action,
    family_contract,
    family_keys,
    golden_line_checks,
    hits,
)

FILE = "signatures-hpcruntime.toml"
FAMILY = family_keys(FILE)

BLAME: dict[str, Blame] = {
    "openacc.cuda_illegal_address": Blame.APPLICATION,
    "openacc.cuda_out_of_memory": Blame.APPLICATION,
    "openacc.cuda_launch_failed": Blame.SYMPTOM,
    "openacc.cuda_unknown_error": Blame.HARDWARE,
    "openacc.cuda_call_failed": Blame.SYMPTOM,
    "openacc.data_not_present": Blame.APPLICATION,
    "openacc.failing_thread": Blame.SYMPTOM,
    "omptarget.target_failed": Blame.SYMPTOM,
    "omptarget.present_not_mapped": Blame.APPLICATION,
    "crayftn.library_error": Blame.APPLICATION,
    "crayftn.acc_not_present": Blame.APPLICATION,
    "crayftn.acc_usm_unsupported": Blame.APPLICATION,
    "gfortran.runtime_error": Blame.APPLICATION,
    "gfortran.signal": Blame.SYMPTOM,
    "forrtl.program_error": Blame.APPLICATION,
    "forrtl.insufficient_memory": Blame.APPLICATION,
    "forrtl.signal": Blame.SYMPTOM,
    "forrtl.killed": Blame.SYMPTOM,
    "forrtl.io_error": Blame.SYMPTOM,
    "kokkos.allocation_failed": Blame.APPLICATION,
    "charm.cuda_error": Blame.SYMPTOM,
    "charm.namd_unstable": Blame.APPLICATION,
    "charm.namd_gpu_config": Blame.APPLICATION,
    "gromacs.domain_decomposition": Blame.APPLICATION,
    "gromacs.gpu_alloc_failed": Blame.APPLICATION,
    "gromacs.system_unstable": Blame.APPLICATION,
    "amber.small_box": Blame.APPLICATION,
    "gromacs.cuda_assert": Blame.SYMPTOM,
    "amber.gpu_out_of_memory": Blame.APPLICATION,
    "lammps.cuda_illegal_address": Blame.APPLICATION,
    "lammps.cuda_driver_error": Blame.SYMPTOM,
    "lammps.gpu_out_of_memory": Blame.APPLICATION,
    "lammps.lost_atoms": Blame.APPLICATION,
    "openmm.particle_nan": Blame.APPLICATION,
    "openmm.illegal_address_code": Blame.APPLICATION,
    "gasnet.ofi_init_failed": Blame.APPLICATION,
    # depth review (s22): tests/domain/test_catalog_depth_drun.py
    "lammps.cuda_build_mismatch": Blame.APPLICATION,
    "gfortran.os_io_error": Blame.SYMPTOM,
}

NAMESPACES = frozenset(
    {"openacc", "omptarget", "crayftn", "gfortran", "forrtl", "kokkos", "charm", "gromacs", "amber", "lammps",
     "openmm", "gasnet"}
)  # fmt: skip

(
    test_family_keys_are_new_and_namespaced,
    test_required_signature_and_blame,
    test_every_family_signature_is_pinned,
) = family_contract({FILE: NAMESPACES}, BLAME)

# (line, signal, captures the line must yield)
GOLDEN: list[tuple[str, str, dict[str, str]]] = [
    # StanfordLegion/gasnet issue #22 (GASNet-EX's ofi conduit on Slingshot-11)
    (
        "*** FATAL ERROR (proc 0): in gasnetc_ofi_init() at .../gasnet_ofi.c:946: fi_domain "
        "failed: -38(Function not implemented)",
        "gasnet.ofi_init_failed",
        {"call": "fi_domain", "code": "-38"},
    ),
    # the same error before GASNet-EX named the function (gasneti_fatalerror's header alone;
    # the format rendered)
    (
        "*** FATAL ERROR: fi_getinfo failed: -61(No data available)",
        "gasnet.ofi_init_failed",
        {"call": "fi_getinfo", "reason": "No data available"},
    ),
    # grimme-lab/xtb pull request #353 (the GPU pre-SCF routines under NVHPC)
    (
        "call to cuStreamSynchronize returned error 700: Illegal address during kernel execution",
        "openacc.cuda_illegal_address",
        {"call": "cuStreamSynchronize"},
    ),
    ("Failing in Thread:1", "openacc.failing_thread", {"thread": "1"}),
    # the NVHPC runtime's format, rendered (NVHPC 22+ prefix, and the line before it)
    (
        "Accelerator Fatal Error: call to cuMemAlloc returned error 2: Out of memory",
        "openacc.cuda_out_of_memory",
        {"call": "cuMemAlloc"},
    ),
    ("call to cuMemAlloc returned error 2: Out of memory", "openacc.cuda_out_of_memory", {}),
    (
        "Out of memory allocating 8589934592 bytes of device memory",
        "openacc.cuda_out_of_memory",
        {},
    ),
    (
        "call to cuStreamSynchronize returned error 719: Launch failed (often invalid pointer "
        "dereference)",
        "openacc.cuda_launch_failed",
        {"call": "cuStreamSynchronize"},
    ),
    (
        "call to cuCtxSynchronize returned error 999: Unknown",
        "openacc.cuda_unknown_error",
        {"call": "cuCtxSynchronize"},
    ),
    (
        "call to cuModuleLoadData returned error 209: No binary for GPU",
        "openacc.cuda_call_failed",
        {"call": "cuModuleLoadData", "code": "209"},
    ),
    # marshallward/acc_global_test README.rst (present(G) without enter data; a derived type
    # copied without its members)
    (
        "FATAL ERROR: data in PRESENT clause was not found on device 1: name=g host:0x623a10",
        "openacc.data_not_present",
        {"device": "1", "name": "g"},
    ),
    (
        "FATAL ERROR: variable in data clause is partially present on the device: name=g",
        "openacc.data_not_present",
        {"partial": "g"},
    ),
    # the brief's probe (the same format with a host address cut short)
    (
        "FATAL ERROR: data in PRESENT clause was not found on device 1: name=a host:0x7ffd",
        "openacc.data_not_present",
        {"name": "a"},
    ),
    # ANL-CESAR/RSBench issue #15, llvm/llvm-project issues #56790 and #54091
    (
        "simulation.c:24:2: Libomptarget fatal error 1: failure of target construct while "
        "offloading is mandatory",
        "omptarget.target_failed",
        {"code": "1"},
    ),
    (
        "Libomptarget error: Copying data from device failed.",
        "omptarget.target_failed",
        {"error": "Copying data from device failed"},
    ),
    (
        "Libomptarget error: Call to targetDataEnd failed, abort target.",
        "omptarget.target_failed",
        {"error": "Call to targetDataEnd failed"},
    ),
    (
        "Libomptarget error: Executing target region abort target.",
        "omptarget.target_failed",
        {"error": "Executing target region abort target"},
    ),
    (
        "Libomptarget error: Failed to init globals on device 0",
        "omptarget.target_failed",
        {"error": "Failed to init globals on device 0"},
    ),
    # OpenMP-Validation-and-Verification/OpenMP_VV pull request #848 (LLVM 21's "omptarget" prefix)
    (
        "omptarget error: Call to targetDataBegin failed, abort target.",
        "omptarget.target_failed",
        {"error": "Call to targetDataBegin failed"},
    ),
    (
        "omptarget fatal error 1: failure of target construct while offloading is mandatory",
        "omptarget.target_failed",
        {"code": "1"},
    ),
    (
        "omptarget message: device mapping required by 'present' map type modifier does not exist "
        "for host address 0x00007ffe9ed6eda4 (4 bytes)",
        "omptarget.present_not_mapped",
        {"address": "0x00007ffe9ed6eda4"},
    ),
    (
        "omptarget error: Call to getTargetPointer returned null pointer ('present' map type "
        "modifier).",
        "omptarget.present_not_mapped",
        {},
    ),
    # OpenMP-Validation-and-Verification/OpenMP_VV pull request #703 (LLVM 17)
    (
        "Libomptarget message: device mapping required by 'present' map type modifier does not "
        "exist for host address 0x000000011df198e0 (8000 bytes) ",
        "omptarget.present_not_mapped",
        {"address": "0x000000011df198e0"},
    ),
    # E3SM-Project/E3SM issue #5001 (under srun's rank prefix), ecmwf/atlas issue #361,
    # HDFGroup/hdf5 issue #5283
    ("6: lib-4412 : UNRECOVERABLE library error", "crayftn.library_error", {"code": "4412"}),
    ("lib-4220 : UNRECOVERABLE library error ", "crayftn.library_error", {"code": "4220"}),
    ("lib-4611 : UNRECOVERABLE library error ", "crayftn.library_error", {"code": "4611"}),
    # CCE's libcrayacc present-table check, rendered as OLCF users quote it
    (
        "ACC: libcrayacc/acc_runtime.c:856 CRAY_ACC_ERROR - Variable not found in present table",
        "crayftn.acc_not_present",
        {},
    ),
    (
        "ACC: find_in_present_table failed for 'length(:)' (0x4079c0-0x4079d8)",
        "crayftn.acc_not_present",
        {"name": "length(:)"},
    ),
    # csc-training/portable-gpu-programming (the OpenMP unified shared memory exercise)
    (
        "ACC: CRAY_ACC_ERROR - OpenMP program 'requires unified_shared_memory', but the current "
        "device does not support unified shared memory",
        "crayftn.acc_usm_unsupported",
        {},
    ),
    # OpenFAST/openfast issue #133, ivan-pi/y12m issue #29, NOAA-GFDL/SIS2 issue #242
    (
        "Fortran runtime error: Index '7' of dimension 1 of array 'p%qp%mmm' above upper bound of 6",
        "gfortran.runtime_error",
        {"error": "Index '7' of dimension 1 of array 'p%qp%mmm' above upper bound of 6"},
    ),
    (
        "Fortran runtime error: Index '-999' of dimension 1 of array 'ha' below lower bound of 1",
        "gfortran.runtime_error",
        {},
    ),
    (
        "Fortran runtime error: Index '5' of dimension 1 of array 'zinter_ice' above upper bound "
        "of 4",
        "gfortran.runtime_error",
        {},
    ),
    # desjardi/NGA2 issue #13; ExeClim/Isca issue #219 (inside Python's logging prefix)
    (
        "Program received signal SIGSEGV: Segmentation fault - invalid memory reference.",
        "gfortran.signal",
        {"signal": "SIGSEGV"},
    ),
    (
        "2021-08-24 11:16:27,842 - isca - DEBUG - Program received signal SIGSEGV: Segmentation "
        "fault - invalid memory reference.",
        "gfortran.signal",
        {"signal": "SIGSEGV"},
    ),
    # GEOS-ESM/MAPL pull request #1364 (Intel's -check bounds)
    (
        "forrtl: severe (408): fort: (2): Subscript #1 of the array R8_TO_R4 has value 150 which "
        "is greater than the upper bound of 149",
        "forrtl.program_error",
        {"code": "408"},
    ),
    # Intel's run-time error list, rendered
    (
        "forrtl: severe (29): file not found, unit 11, file /scratch/run/namelist.input",
        "forrtl.program_error",
        {"code": "29"},
    ),
    (
        "forrtl: severe (24): end-of-file during read, unit 5, file /scratch/run/input.dat",
        "forrtl.program_error",
        {"code": "24"},
    ),
    ("forrtl: severe (41): insufficient virtual memory", "forrtl.insufficient_memory", {}),
    ("forrtl: error (78): process killed (SIGTERM)", "forrtl.killed", {"code": "78"}),
    (
        "forrtl: severe (38): error during write, unit 10, file /scratch/run/out.dat",
        "forrtl.io_error",
        {"code": "38"},
    ),
    # firemodels/fds issues #6713 and #1377 (older releases misspell "occured")
    (
        "forrtl: severe (174): SIGSEGV, segmentation fault occurred",
        "forrtl.signal",
        {"code": "174", "signal": "SIGSEGV"},
    ),
    (
        "forrtl: severe (174): SIGSEGV, segmentation fault occured",
        "forrtl.signal",
        {"code": "174"},
    ),
    # kynema/kynema-ugf issue #973 (quoting #926)
    (
        'Allocation using MemorySpace named "Cuda" failed with the following error:  Allocation '
        "of size 1.279 G failed, likely due to insufficient memory.",
        "kokkos.allocation_failed",
        {"space": "Cuda"},
    ),
    # charmplusplus/charm issues #802 and #1488
    (
        "Fatal CUDA Error at cuda-hybrid-api.cu:450.",
        "charm.cuda_error",
        {"file": "cuda-hybrid-api.cu"},
    ),
    (
        "Return value 46 from 'cudaStreamCreate(&kernel_stream)'.  Exiting.",
        "charm.cuda_error",
        {"code": "46", "call": "cudaStreamCreate"},
    ),
    (
        "Fatal CUDA Error out of memory at cuda-hybrid-api.cu:790.",
        "charm.cuda_error",
        {"error": "out of memory"},
    ),
    # fhh2626/BFEE3 issue #72 (NAMD's RATTLE)
    ("ERROR: Constraint failure in RATTLE algorithm for atom 2572!", "charm.namd_unstable", {}),
    ("ERROR: Constraint failure; simulation has become unstable.", "charm.namd_unstable", {}),
    # HuiLiuCode/CaFE_Plugin issue #3, fhh2626/BFEE3 issue #133
    (
        "Reason: FATAL ERROR: Pair interaction calculation is not supported in CUDA version",
        "charm.namd_gpu_config",
        {"error": "Pair interaction calculation is not supported in CUDA version"},
    ),
    (
        "FATAL ERROR: CudaTileListKernel::buildTileLists, maximum shared memory allocation "
        "exceeded. Too many atoms in a patch",
        "charm.namd_gpu_config",
        {},
    ),
    # michellab/BioSimSpace issue #305, Becksteinlab/MDPOW pull request #77, makson96/Dynamics #84
    (
        "There is no domain decomposition for 10 ranks that is compatible with the",
        "gromacs.domain_decomposition",
        {"ranks": "10"},
    ),
    (
        "The box size in direction X (2.449397) times the triclinic skew factor (0.816496) is too "
        "small for a cut-off of 1.000000 with 2 domain decomposition cells, use 1 or more than 2 "
        "processors or increase the box size in this direction",
        "gromacs.domain_decomposition",
        {},
    ),
    (
        "Domain decomposition does not support simple neighbor searching, use grid searching or "
        "run with one MPI rank",
        "gromacs.domain_decomposition",
        {},
    ),
    # OpenBioSim/biosimspace issue #446 (a protein FEP run)
    (
        "2 particles communicated to PME rank 4 are more than 2/3 times the cut-off out of the "
        "domain decomposition cell of their charge group in dimension x.This usually means that "
        "your system is not well equilibrated",
        "gromacs.system_unstable",
        {"particles": "2"},
    ),
    # PodewitzLab/PyConSolv issue #20 (pmemd.cuda's small-box refusal)
    ("Error is:  Small box detected, with <= 2 cells in one or more", "amber.small_box", {}),
    # Intel's list, rendered (an AVX-512 binary on an older node prints it)
    (
        "forrtl: severe (168): Program Exception - illegal instruction",
        "forrtl.signal",
        {"code": "168", "signal": "Program Exception - illegal instruction"},
    ),
    # the brief's probes (GROMACS's GPU buffer allocation and CUDA assertion)
    ("Fatal error: cudaMalloc of GPU memory failed", "gromacs.gpu_alloc_failed", {}),
    (
        'Assertion failed for "cudaSuccess == stat" in file gpu_utils.cu, line 123',
        "gromacs.cuda_assert",
        {"file": "gpu_utils.cu"},
    ),
    # AMBER pmemd.cuda GpuBuffer's RTERROR, rendered (message, then cudaGetErrorString)
    ("cudaMalloc GpuBuffer::Allocate failed out of memory", "amber.gpu_out_of_memory", {}),
    # lammps/lammps issue #2684 (700 and 4), #2981 (100), #2040 (GPU package out of memory)
    (
        "Cuda driver error 700 in call at file '/home/osc111station/lammps/lib/gpu/geryon/"
        "nvd_memory.h' in line 502.",
        "lammps.cuda_illegal_address",
        {"file": "/home/osc111station/lammps/lib/gpu/geryon/nvd_memory.h"},
    ),
    (
        "Cuda driver error 4 in call at file '/home/osc111station/lammps/lib/gpu/geryon/"
        "nvd_timer.h' in line 98.",
        "lammps.cuda_driver_error",
        {"code": "4"},
    ),
    (
        "Cuda driver error 100 in call at file '/data/sourcecode/lammps/lammps-stable_29Sep2021/"
        "lib/gpu/geryon/nvd_device.h' in line 323",
        "lammps.cuda_driver_error",
        {"code": "100"},
    ),
    (
        "ERROR: Insufficient memory on accelerator (src/GPU/gpu_extra.h:38)",
        "lammps.gpu_out_of_memory",
        {},
    ),
    (
        "ERROR: Lost atoms: original 9411 current 9153 (src/thermo.cpp:427)",
        "lammps.lost_atoms",
        {"original": "9411", "current": "9153"},
    ),
    # lammps/lammps issue #5145 (CPU path)
    ("ERROR: Lost atoms: original 8000 current 7999", "lammps.lost_atoms", {"current": "7999"}),
    # openmm/openmm issues #4745 and #2026 (lower-case before 7.5), #820 (old error table)
    (
        "openmm.OpenMMException: Particle coordinate is NaN.  For more information, see "
        "https://github.com/openmm/openmm/wiki/Frequently-Asked-Questions#nan",
        "openmm.particle_nan",
        {},
    ),
    ("Exception: Particle coordinate is nan", "openmm.particle_nan", {}),
    (
        " Exception: Error invoking kernel: Invalid error code (700)",
        "openmm.illegal_address_code",
        {},
    ),
    # depth review (s22): rendered from geryon's format (tests/domain/test_catalog_depth_drun.py)
    (
        "Cuda driver error 222 in call at file '/opt/lammps/lib/gpu/geryon/nvd_kernel.h' in line "
        "154.",
        "lammps.cuda_build_mismatch",
        {"code": "222"},
    ),
    ("Fortran runtime error: Input/output error", "gfortran.os_io_error", {}),
]

# (key, healthy look-alike or hint it must not match)
NEGATIVE: list[tuple[str, str]] = [
    # another GASNet fatal error (an out-of-segment access: the program's, not the network set-up)
    ("gasnet.ofi_init_failed", "*** FATAL ERROR (proc 3): gasnet_put out of segment bounds"),
    # marshallward/acc_global_test README.rst: the trailer after the PRESENT clause error
    (
        "*",
        " file:/scratch/cimes/mw0089/openacc/acc_global_test/loop.f90 loop_with_g line:25",
    ),
    # exasmr/openmc issue #27, llvm/llvm-project issue #56790: the debugging hints
    (
        "*",
        "Libomptarget error: Consult https://openmp.llvm.org/design/Runtimes.html for debugging "
        "options.",
    ),
    ("*", "Libomptarget error: LIBOMPTARGET_DEBUG=1 to display basic debug information."),
    ("*", "Libomptarget error: Run with"),
    # OpenMP-Validation-and-Verification/OpenMP_VV pull request #848: the hint lines
    (
        "*",
        "omptarget error: Source location information not present. Compile with -g or "
        "-gline-tables-only.",
    ),
    # E3SM-Project/E3SM issue #5001: the message line after Cray's header (the header decides)
    (
        "*",
        " 3:   An argument in the DEALLOCATE statement is a disassociated pointer, an",
    ),
    # HongjianFang/DSurfTomo issue #17: gfortran's backtrace header
    ("*", "Error termination. Backtrace:"),
    # DOI-USGS/COAWST issue #17: forrtl's traceback header
    (
        "*",
        "Image              PC                Routine            Line        Source             ",
    ),
    # ECP-copa/CabanaMD issue #102: Kokkos' start-up warning; the brief's probe: the teardown
    ("*", "Kokkos::Cuda::initialize WARNING: Cuda is allocating into UVMSpace by default"),
    ("*", "Kokkos::Cuda ERROR: Failed to call Kokkos::Cuda::finalize()"),
    # michellab/BioSimSpace issue #305: GROMACS's trailer
    ("*", "For more information and tips for troubleshooting, please check the GROMACS"),
    # codes with their own entries stay out of the catch-all ones (formats rendered)
    (
        "lammps.cuda_driver_error",
        "Cuda driver error 700 in call at file 'nvd_memory.h' in line 502.",
    ),
    ("openacc.cuda_call_failed", "call to cuMemAlloc returned error 2: Out of memory"),
    ("openacc.cuda_call_failed", "call to cuCtxSynchronize returned error 999: Unknown"),
    # OpenMM's old wording with another code (rendered), and a healthy StateDataReporter row
    # (openmm/openmm issue #3328)
    ("openmm.illegal_address_code", "Exception: Error invoking kernel: Invalid error code (2)"),
    (
        "openmm.particle_nan",
        "45.8%\t4580000\t-22790726.0\t457.66740073574175\t158201.65221084215\t209",
    ),
]

(
    test_golden_line_yields_its_signal,
    test_only_application_lines_read_as_the_application,
    test_negative_line,
    test_blame,
    test_every_entry_pinned_here_has_a_golden_line,
) = golden_line_checks(GOLDEN, [(k, line) for k, line in NEGATIVE if k != "*"], BLAME)


def test_hints_and_headers_match_no_family_entry() -> None:
    """The runtimes' hints, backtrace headers and warnings stay unread by every entry here."""
    for key, line in NEGATIVE:
        if key == "*":
            assert not set(hits(line)) & FAMILY, line


def test_cuda_codes_read_as_the_core_catalog_reads_them() -> None:
    """A CUDA error code in an HPC runtime's words weighs as the core entry for that code."""
    same = {
        "openacc.cuda_illegal_address": "cuda.illegal_memory_access",
        "lammps.cuda_illegal_address": "cuda.illegal_memory_access",
        "openmm.illegal_address_code": "cuda.illegal_memory_access",
        "openacc.cuda_out_of_memory": "cuda.oom",
        "amber.gpu_out_of_memory": "cuda.oom",
        "openacc.cuda_launch_failed": "cuda.launch_failure",
        "openacc.cuda_unknown_error": "cuda.unknown_error",
    }
    for key, core in same.items():
        ours, theirs = CATALOG.signatures[key], CATALOG.signatures[core]
        assert (ours.blame, ours.weight) == (theirs.blame, theirs.weight), key


def test_charms_numbered_device_errors_read_as_cuda_finding_no_usable_gpu() -> None:
    """Charm++ prints the cudaError_t number without its text: 46 (devices unavailable) and 100
    (no device) are what CUDA's own text reads as `cuda.device_unavailable`; other numbers stay
    the carrier's alone."""
    for code in ("46", "100"):
        line = f"Return value {code} from 'cudaStreamCreate(&kernel_stream)'.  Exiting."
        assert {"charm.cuda_error", "cuda.device_unavailable"} <= set(hits(line)), line
    assert "cuda.device_unavailable" not in hits("Return value 2 from 'cudaMalloc(&p, n)'.")
    assert "cuda.device_unavailable" not in hits("Return value 46 from 'MPI_Init(&argc)'.")


def test_signal_reports_weigh_like_the_other_crash_handlers() -> None:
    """gfortran's and forrtl's signal reports are local crashes, weighed like Open MPI's handler."""
    handler = CATALOG.signatures["ompi.signal_report"]
    for key in ("gfortran.signal", "forrtl.signal"):
        sig = CATALOG.signatures[key]
        assert (sig.blame, sig.weight) == (handler.blame, handler.weight), key


def test_only_the_unknown_cuda_error_acts_on_the_node() -> None:
    """Everything here is the job's or one process's; only error 999 asks to watch the node."""
    assert_no_node_action(FAMILY - {"openacc.cuda_unknown_error"})
    assert CATALOG.signatures["openacc.cuda_unknown_error"].weight < 60


def test_the_fortran_runtimes_signal_reports_are_local_crashes() -> None:
    """gfortran's and Intel Fortran's signal reports are one process's crash, weighed like Open
    MPI's and UCX's handlers (`LOCAL_CRASHES`), not a complaint about a peer."""
    from autorecover.domain.shape import LOCAL_CRASHES

    for key in ("gfortran.signal", "forrtl.signal"):
        assert key in LOCAL_CRASHES
