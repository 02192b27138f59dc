"""Golden lines from the sweep over scientific HPC libraries and model frameworks
(signatures-hpclibs.toml): HDF5's error stack frames, netCDF-C's nc_strerror texts, ParallelIO's
aborts, PETSc's error blocks, E3SM/CESM's shr_abort_abort, WRF's fatal and CFL checks, AMReX's
amrex::Abort, Kokkos' architecture and bounds checks, Trilinos' Teuchos checks, OpenFOAM's
FatalError and sigFpe, CP2K's abort banner, Quantum ESPRESSO's errore and NAMD's input errors.

Each line is a real one from the public thread cited beside it, or rendered from the emitter's
format string where no public line was found (marked so), and goes through the scanner's own
matcher. Blame is pinned to what the emitter means: a library's own input, argument and numerics
checks are the application's; a library restating the layer under it (netCDF's "HDF error", PIO's
aborts, shr_abort without a message) and a file system's I/O error are symptoms; a remote OPeNDAP
server is transient below the decisive weight. Look-alikes (healthy lines of the same emitters,
and texts another family reads) must not match.
"""

from __future__ import annotations

from autorecover.domain.records import Blame
from autorecover.domain.shape import COLLECTIVE
from domain.golden import (
    CATALOG,
    assert_family_keys,
    assert_no_node_action,
    family_keys,
    golden_line_checks,
    hits,
)

FILE = "signatures-hpclibs.toml"
KEYS = family_keys(FILE)

BLAME: dict[str, Blame] = {
    "hdf5.file_lock_failed": Blame.APPLICATION,
    "hdf5.input_file_unusable": Blame.APPLICATION,
    "hdf5.sec2_io_failed": Blame.SYMPTOM,
    "netcdf.hdf_error": Blame.SYMPTOM,
    "netcdf.call_error": Blame.APPLICATION,
    "netcdf.bad_file": Blame.APPLICATION,
    "netcdf.dap_remote_failed": Blame.TRANSIENT,
    "pio.fatal_error": Blame.SYMPTOM,
    "petsc.usage_error": Blame.APPLICATION,
    "petsc.out_of_memory": Blame.APPLICATION,
    "petsc.floating_point_exception": Blame.APPLICATION,
    "petsc.crash_signal": Blame.SYMPTOM,
    "e3sm.shr_abort_unknown": Blame.SYMPTOM,
    "wrf.fatal_called": Blame.APPLICATION,
    "wrf.cfl_exceeded": Blame.APPLICATION,
    "amrex.abort": Blame.APPLICATION,
    "kokkos.arch_mismatch": Blame.APPLICATION,
    "kokkos.view_bounds": Blame.APPLICATION,
    "trilinos.test_for_exception": Blame.APPLICATION,
    "openfoam.fatal_error": Blame.APPLICATION,
    "openfoam.sigfpe": Blame.APPLICATION,
    "cp2k.abort": Blame.APPLICATION,
    "qe.error_in_routine": Blame.APPLICATION,
    "namd.input_error": Blame.APPLICATION,
}

# (line, signal, captures the line must yield)
GOLDEN: list[tuple[str, str, dict[str, str]]] = [
    # EDmodel/ED2 issue #400 (HDF5 1.14.2, another process holding the file)
    (
        "  #007: H5FDsec2.c line 941 in H5FD__sec2_lock(): unable to lock file, errno = 11, "
        "error message = 'Resource temporarily unavailable'",
        "hdf5.file_lock_failed",
        {"errno": "11", "error": "Resource temporarily unavailable"},
    ),
    # open-mpi/ompi issue #6535 (h5py's form: every rank opening one file read-write)
    (
        "OSError: Unable to open file (unable to lock file, errno = 11, error message = "
        "'Resource temporarily unavailable')",
        "hdf5.file_lock_failed",
        {"errno": "11"},
    ),
    # PyTables/PyTables issue #888 (macOS's EAGAIN, a second process with the file open)
    (
        "    unable to lock file, errno = 35, error message = 'Resource temporarily unavailable'",
        "hdf5.file_lock_failed",
        {"errno": "35"},
    ),
    # E3SM-Project/e3sm_diags issue #164 (Edison's scratch file system without flock)
    (
        "H5FDsec2.c line 940 in H5FD_sec2_lock(): unable to lock file, errno = 524",
        "hdf5.file_lock_failed",
        {"errno": "524"},
    ),
    # dcjones/isolator issue #10 (HDF5 1.8.17)
    (
        "  #002: H5Fsuper.c line 277 in H5F_super_read(): file signature not found",
        "hdf5.input_file_unusable",
        {},
    ),
    # mollerhoj/Scandinavian-ULMFiT issue #1 (a Git LFS pointer opened with h5py)
    ("OSError: Unable to open file (file signature not found)", "hdf5.input_file_unusable", {}),
    # h5py/h5py issue #1179
    (
        "IOError: Unable to open file (truncated file: eof = 96, sblock->base_addr = 0, "
        "stored_eof = 2048)",
        "hdf5.input_file_unusable",
        {"eof": "96", "stored_eof": "2048"},
    ),
    # aimagelab/meshed-memory-transformer issue #64 (a 74 GB feature file cut short in download)
    (
        "OSError: Unable to open file (truncated file: eof = 74570219520, sblock->base_addr = 0, "
        "stored_eof = 74924166416)",
        "hdf5.input_file_unusable",
        {"eof": "74570219520", "stored_eof": "74924166416"},
    ),
    # JarveeLee/SynthText_Chinese_version issue #15 (HDF5 1.8's spelling)
    (
        "IOError: Unable to open file (Truncated file: eof = 15030288384, sblock->base_addr = 0, "
        "stored_eoa = 15807826032)",
        "hdf5.input_file_unusable",
        {"eof": "15030288384"},
    ),
    # NatLabRockies/SOWFA issue #113 (the coupled solver's input file never written)
    (
        "  #003: ../../src/H5FDsec2.c line 343 in H5FD_sec2_open(): unable to open file: name = "
        "'velDatafile.0.h5', errno = 2, error message = 'No such file or directory', flags = 1, "
        "o_flags = 2",
        "hdf5.input_file_unusable",
        {"file": "velDatafile.0.h5"},
    ),
    # rendered from src/H5FDsec2.c H5FD__sec2_read/_write (the line after ctime()'s newline; no
    # public line found)
    (
        ", filename = '/lustre/scratch/run42/restart_0100.h5', file descriptor = 17, errno = 5, "
        "error message = 'Input/output error', buf = 0x7f3a2c000b20, total read size = 8388608, "
        "bytes this sub-read = 8388608, bytes actually read = 18446744073709551615, offset = 0",
        "hdf5.sec2_io_failed",
        {"file": "/lustre/scratch/run42/restart_0100.h5", "errno": "5"},
    ),
    (
        ", filename = '/mnt/s3fuse/out/fields_0042.h5', file descriptor = 9, errno = 107, error "
        "message = 'Transport endpoint is not connected', buf = 0x2b3c4d5e6f70, total write size = "
        "4194304, bytes this sub-write = 4194304, bytes actually written = 18446744073709551615, "
        "offset = 0",
        "hdf5.sec2_io_failed",
        {"errno": "107", "error": "Transport endpoint is not connected"},
    ),
    # StormSurgeLive/asgs issue #984 (ADCIRC: every rank reading one netCDF-4 hotstart file)
    ("ERROR: check_err: NetCDF: HDF error", "netcdf.hdf_error", {}),
    # NOAA-EMC/global-workflow issue #1256 (Hera, after a maintenance changed the file system)
    (
        "  1219:  file: module_write_netcdf.F90 line:          663 NetCDF: HDF error",
        "netcdf.hdf_error",
        {},
    ),
    # NOAA-EMC/GSI issue #357 (a scratch file system problem, gone after maintenance)
    (" **   ERROR: NetCDF: HDF error", "netcdf.hdf_error", {}),
    # nansencenter/nextsim issue #220 (netcdf-cxx4's NcHdfErr)
    ("  what():  NetCDF: HDF error", "netcdf.hdf_error", {}),
    # rendered from netcdf-c libdispatch/derror.c in NCO's nco_err_exit() form
    (
        "nco_err_exit(): ERROR Error code is -49. Translation into English with nc_strerror(-49) "
        'is "NetCDF: Variable not found"',
        "netcdf.call_error",
        {"error": "Variable not found"},
    ),
    ("NetCDF: Start+count exceeds dimension bound", "netcdf.call_error", {}),
    (
        "RuntimeError: NetCDF: Not a valid ID",
        "netcdf.call_error",
        {"error": "Not a valid ID"},
    ),
    # rendered from derror.c (netCDF4-python's OSError form)
    (
        "OSError: [Errno -51] NetCDF: Unknown file format: b'/data/era5/2019/t2m_201901.nc'",
        "netcdf.bad_file",
        {"error": "Unknown file format"},
    ),
    (
        "NetCDF: File likely truncated or possibly corrupted",
        "netcdf.bad_file",
        {"error": "File likely truncated or possibly corrupted"},
    ),
    # rendered from derror.c (an OPeNDAP URL through netCDF4-python)
    (
        "OSError: [Errno -70] NetCDF: DAP server error: "
        "b'https://thredds.example.org/thredds/dodsC/gfs/Best'",
        "netcdf.dap_remote_failed",
        {"error": "DAP server error"},
    ),
    ("NetCDF: Malformed or inaccessible DAP DDS", "netcdf.dap_remote_failed", {}),
    # E3SM-Project/scream issue #694 (SCORPIO with ADIOS, ne1024)
    (
        "11152: PIO: FATAL ERROR: Aborting... An error occured, Reading variable (x2oacc_ox_cnt, "
        "varid=172) from file (f.ne1024pg2tri.s29-oct16.cpl.r.2020-01-20-01800.nc, ncid=79) "
        "failed. Starting independent (across processes) access failed on the file. err=-204. "
        "Aborting since the error handler was set to PIO_INTERNAL_ERROR... "
        "(/global/cscratch1/sd/ndk/scorpio/src/clib/pio_getput_int.c: 744)",
        "pio.fatal_error",
        {"err": "-204"},
    ),
    # E3SM-Project/E3SM issue #595 (PIO1 relaying NC_ERANGE while writing cam.h0)
    (
        "17:  pio_support::pio_die:: myrank= -1 : ERROR: pionfwrite_mod::write_nfdarray_double: "
        "250 : Numeric conversion not representable",
        "pio.fatal_error",
        {
            "where": "pionfwrite_mod::write_nfdarray_double",
            "error": "Numeric conversion not representable",
        },
    ),
    # E3SM-Project/scorpio issue #32 (PIO2's piodie on Theta)
    (
        "Abort with message totiosize <= 0 in file "
        "/home/jayesh/acme/pio/ParallelIO/src/clib/pio_rearrange.c at line 242",
        "pio.fatal_error",
        {"message": "totiosize <= 0", "line": "242"},
    ),
    # geodynamics/pylith issue #412; libMesh/libmesh issue #3803
    ("[0]PETSC ERROR: Nonconforming object sizes", "petsc.usage_error", {"rank": "0"}),
    # rendered from petsc src/sys/error/err.c (PetscErrorStrings)
    (
        "[2]PETSC ERROR: Argument out of range",
        "petsc.usage_error",
        {"error": "Argument out of range"},
    ),
    (
        "[0]PETSC ERROR: Unknown type. Check for miss-spelling or missing package: "
        "https://petsc.org/release/install/install/#external-packages",
        "petsc.usage_error",
        {},
    ),
    # rendered from PETSc's PETSC_ERR_MEM message
    ("[3]PETSC ERROR: Out of memory. This could be due to allocating", "petsc.out_of_memory", {}),
    # fppimenta/rheoTool issue #69; dealii/dealii issue #2063
    (
        "[0]PETSC ERROR: Caught signal number 8 FPE: Floating Point Exception,probably divide by "
        "zero",
        "petsc.floating_point_exception",
        {"rank": "0"},
    ),
    (
        "[2]PETSC ERROR: Caught signal number 8 FPE: Floating Point Exception,probably divide by "
        "zero",
        "petsc.floating_point_exception",
        {"rank": "2"},
    ),
    # rendered from err.c (PETSC_ERR_FP as the error's text)
    ("[0]PETSC ERROR: Floating point exception", "petsc.floating_point_exception", {}),
    # rendered from src/sys/error/signal.c
    (
        "[0]PETSC ERROR: Caught signal number 11 SEGV: Segmentation Violation, probably memory "
        "access out of range",
        "petsc.crash_signal",
        {"signal": "11 SEGV"},
    ),
    (
        "[5]PETSC ERROR: Caught signal number 7 BUS: Bus Error, possibly illegal memory access",
        "petsc.crash_signal",
        {"rank": "5", "signal": "7 BUS"},
    ),
    # E3SM-Project/E3SM issue #2498 (endrun() without a message on every rank)
    (" ERROR: Unknown error submitted to shr_abort_abort.", "e3sm.shr_abort_unknown", {}),
    # NCAR/pi-wrf issue #11 (wrfinput_d01 missing); aws-samples/aws-hpc-workshops issue #7
    (
        "FATAL CALLED FROM FILE:  <stdin>  LINE:      70",
        "wrf.fatal_called",
        {"file": "<stdin>", "line": "70"},
    ),
    # wrf-model/WRF issue #770 (wrflowinp_d01 missing, reported as a pre-v4 input)
    ("FATAL CALLED FROM FILE:  <stdin>  LINE:     324", "wrf.fatal_called", {"line": "324"}),
    # rendered from dyn_em's vertical CFL check (both wordings)
    (
        " d01 2019-07-29_00:01:40           15  points exceeded w_critical_cfl in domain d01 at "
        "time 2019-07-29_00:01:40 hours",
        "wrf.cfl_exceeded",
        {"points": "15", "domain": "d01"},
    ),
    (
        "d02 2016-08-01_06:30:00          204  points exceeded cfl=2 in domain d02 at time "
        "2016-08-01_06:30:00 hours",
        "wrf.cfl_exceeded",
        {"points": "204", "domain": "d02"},
    ),
    # MFIX-Exa's documentation (the particle-only fixed_dt check)
    (
        "amrex::Abort::0::If running particle-only must specify fixed_dt in the inputs file !!!",
        "amrex.abort",
        {"rank": "0"},
    ),
    # a PeleLMeX tutorial's output in its documentation (CVODE giving up on rank 3)
    ("    amrex::Abort::3::Aborting from CVODE !!!", "amrex.abort", {"rank": "3"}),
    # the lammps-metatomic and Idefix documentation (both quote Kokkos' message)
    ("Kokkos::Cuda::initialize ERROR: likely mismatch of architecture", "kokkos.arch_mismatch", {}),
    # rendered from core/src/Cuda/Kokkos_Cuda_Instance.cpp
    (
        "Kokkos::Cuda::initialize ERROR: running kernels compiled for compute capability 9.0 on "
        "device with compute capability 8.9 is not supported by CUDA!",
        "kokkos.arch_mismatch",
        {"compiled": "9.0", "device": "8.9"},
    ),
    # rendered from Kokkos' View, DynRankView and OffsetView bounds checks
    (
        "View bounds error of view velocity ( 1024 < 1024 )",
        "kokkos.view_bounds",
        {"view": "velocity"},
    ),
    (
        "OffsetView bounds error of view labeled phi (-1 < 0 )",
        "kokkos.view_bounds",
        {"view": "phi"},
    ),
    # rendered from Teuchos_TestForException.hpp
    (
        "Throw test that evaluated to true: numEntries != numEntriesToInsert",
        "trilinos.test_for_exception",
        {"condition": "numEntries != numEntriesToInsert"},
    ),
    # rendered from OpenFOAM's error.C header (the .com build tag; Foundation builds print none)
    ("--> FOAM FATAL ERROR: (openfoam-2306)", "openfoam.fatal_error", {}),
    ("--> FOAM FATAL IO ERROR: ", "openfoam.fatal_error", {"io": "IO "}),
    ("[3] --> FOAM FATAL ERROR: ", "openfoam.fatal_error", {}),
    # rendered from OpenFOAM's printStack format
    ("#2  Foam::sigFpe::sigHandler(int) at ??:?", "openfoam.sigfpe", {}),
    # cp2k/cp2k issue #4288 (an RPA gradient with CHOLESKY OFF)
    (
        " * [ABORT]                                                                     *",
        "cp2k.abort",
        {},
    ),
    # aiidateam/aiida-quantumespresso issue #213 (pw.x's diagonalization)
    (
        "     Error in routine  cdiaghg (668):",
        "qe.error_in_routine",
        {"routine": "cdiaghg", "code": "668"},
    ),
    # rendered from q-e's errore (the input check of iosys)
    ("     Error in routine iosys (1):", "qe.error_in_routine", {"routine": "iosys", "code": "1"}),
    # rendered from NAMD's Parameters.C and common file opening (names invented)
    (
        "FATAL ERROR: UNABLE TO FIND BOND PARAMETERS FOR CG2R61 NG2S1 (ATOMS 2 5)",
        "namd.input_error",
        {"error": "UNABLE TO FIND BOND PARAMETERS FOR"},
    ),
    ("FATAL ERROR: Unable to open text file ionized.pdb", "namd.input_error", {}),
]

# (key, look-alike line it must not match)
NEGATIVE: list[tuple[str, str]] = [
    # errno 37 is errno.file_lock_unavailable's (uzh-rpg/RVT issue #75)
    (
        "hdf5.file_lock_failed",
        "OSError: [Errno 37] Unable to open file (unable to lock file, errno = 37, error message = "
        "'No locks available')",
    ),
    # the stack's header and its outer frames (EDmodel/ED2 issue #400)
    ("hdf5.input_file_unusable", "HDF5-DIAG: Error detected in HDF5 (1.14.2) thread 0:"),
    (
        "hdf5.input_file_unusable",
        "  #000: H5F.c line 836 in H5Fopen(): unable to synchronously open file",
    ),
    # a permission problem is not a missing file
    (
        "hdf5.input_file_unusable",
        "  #003: H5FDsec2.c line 343 in H5FD_sec2_open(): unable to open file: name = 'x.h5', "
        "errno = 13, error message = 'Permission denied', flags = 0, o_flags = 0",
    ),
    # ESTALE is storage.stale_handle's; another program's "file descriptor = "
    (
        "hdf5.sec2_io_failed",
        ", filename = 'x.h5', file descriptor = 4, errno = 122, error message = 'Disk quota "
        "exceeded', buf = 0x1, total write size = 8",
    ),
    (
        "hdf5.sec2_io_failed",
        ", filename = '/nfs/run/x.h5', file descriptor = 4, errno = 116, error message = 'Stale "
        "file handle', buf = 0x1, total read size = 8, bytes this sub-read = 8, bytes actually "
        "read = 18446744073709551615, offset = 0",
    ),
    ("hdf5.sec2_io_failed", "uvc open succeeded, file descriptor = 22"),
    # netCDF's routinely probed attribute, and healthy version strings
    ("netcdf.call_error", "NetCDF: Attribute not found"),
    ("netcdf.hdf_error", "netCDF 4.9.2 built with HDF5 1.14.3"),
    ("netcdf.bad_file", "netcdf library version 4.9.2 of Mar 14 2023 12:00:00 $"),
    ("netcdf.dap_remote_failed", "NetCDF: HDF error"),
    # another library's "Abort with message"; PIO's healthy start-up
    (
        "pio.fatal_error",
        "Abort with message out of memory in file /src/solver/alloc.c at line 12",
    ),
    ("pio.fatal_error", " PIO rearranger options:"),
    # PETSc's own boilerplate and the SIGTERM every rank prints when another died
    (
        "petsc.usage_error",
        "[0]PETSC ERROR: See https://petsc.org/release/faq/ for trouble shooting.",
    ),
    (
        "petsc.usage_error",
        "[0]PETSC ERROR: --------------------- Error Message "
        "--------------------------------------------------------------",
    ),
    (
        "petsc.crash_signal",
        "[0]PETSC ERROR: Caught signal number 15 Terminate: Some process (or the batch system) has "
        "told this process to end",
    ),
    ("petsc.floating_point_exception", "[0]PETSC ERROR: Signal received"),
    # a component's endrun with its own message (E3SM-Project/E3SM issue #2498)
    (
        "e3sm.shr_abort_unknown",
        " ERROR: PHYS_GRID_INIT error: phys_loadbalance -1 specified but PCOLS < MAXBLKSIZ",
    ),
    # WRF's banner line and a healthy timing line
    ("wrf.fatal_called", "-------------- FATAL CALLED ---------------"),
    (
        "wrf.cfl_exceeded",
        "d01 2019-07-29_00:01:40 Timing for main: time 2019-07-29_00:01:40 on domain   1:    "
        "0.52300 elapsed seconds",
    ),
    # AMReX relaying a CUDA error: cuda.oom's line
    (
        "amrex.abort",
        "amrex::Abort::0::CUDA error 2 in file /glade/work/altuntas/turbo-stack-iturbo/submodules/"
        "amrex/Src/Base/AMReX_Arena.cpp line 258: out of memory !!!",
    ),
    # Kokkos' warning for a newer GPU than the build (it still runs)
    (
        "kokkos.arch_mismatch",
        "Kokkos::Cuda::initialize WARNING: running kernels compiled for compute capability 6.1 on "
        "device with compute capability 8.6 , this will likely reduce potential performance.",
    ),
    ("kokkos.view_bounds", "  KOKKOS_ENABLE_DEBUG_BOUNDS_CHECK: no"),
    ("trilinos.test_for_exception", "Throw number = 1"),
    # OpenFOAM's start-up banner line and its warnings
    ("openfoam.sigfpe", "sigFpe : Enabling floating point exception trapping (FOAM_SIGFPE)."),
    ("openfoam.fatal_error", "--> FOAM Warning : "),
    # CP2K's warning box (cp2k/cp2k issue #4774)
    (
        "cp2k.abort",
        " *** WARNING in rpa_util.F:956 :: The Cholesky decomposition before        ***",
    ),
    # davcio's errors are the scratch directory's I/O, left out
    ("qe.error_in_routine", "     Error in routine davcio (20):"),
    # NAMD's integrator blow-up is charm.namd_unstable's
    ("namd.input_error", "FATAL ERROR: Atoms moving too fast; simulation has become unstable"),
]


(
    test_golden_line_yields_its_signal,
    test_only_application_lines_read_as_the_application,
    test_negative_line,
    test_blame,
    test_every_entry_pinned_here_has_a_golden_line,
) = golden_line_checks(GOLDEN, NEGATIVE, BLAME)


def test_family_keys_are_new_namespaced_and_pinned() -> None:
    assert_family_keys(
        FILE,
        KEYS,
        frozenset(
            {
                "hdf5",
                "netcdf",
                "pio",
                "petsc",
                "e3sm",
                "wrf",
                "amrex",
                "kokkos",
                "trilinos",
                "openfoam",
                "cp2k",
                "qe",
                "namd",
            }
        ),
    )
    assert set(BLAME) == KEYS


def test_no_library_line_here_names_a_node() -> None:
    """None of these libraries sees the hardware: no entry acts on the node it was printed on,
    and none is hardware."""
    assert_no_node_action(KEYS)
    for key in KEYS:
        assert CATALOG.signatures[key].blame is not Blame.HARDWARE, key


# symptoms heavier than a collective complaint, as the entries they mirror: a rank's crash signal
# (gfortran.signal, ompi.signal_report) and a file system's error under a read (storage.eio)
LOCAL_WEIGHTS = {"petsc.crash_signal": 45, "hdf5.sec2_io_failed": 30}


def test_restatements_and_outages_do_not_decide_alone() -> None:
    """A library restating the layer under it stays below a collective complaint; a remote data
    server that does not answer is transient below the decisive weight."""
    for key in KEYS:
        sig = CATALOG.signatures[key]
        if sig.blame is Blame.TRANSIENT:
            assert sig.weight < 50, key
        if sig.blame is Blame.SYMPTOM:
            assert sig.weight < COLLECTIVE or key in LOCAL_WEIGHTS, key
            assert sig.weight == LOCAL_WEIGHTS.get(key, sig.weight), key


def test_the_hdf5_lock_and_io_entries_leave_errno_entries_their_lines() -> None:
    """ENOLCK and ESTALE keep their errno entries' readings and no second reading of this family."""
    enolck = hits("unable to lock file, errno = 37, error message = 'No locks available'")
    assert "errno.file_lock_unavailable" in enolck
    assert not set(enolck) & KEYS
    estale = hits(
        ", filename = '/nfs/x.h5', file descriptor = 4, errno = 116, error message = "
        "'Stale file handle', buf = 0x1"
    )
    assert "storage.stale_handle" in estale
    assert not set(estale) & KEYS
