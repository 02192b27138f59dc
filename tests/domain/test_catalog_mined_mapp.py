"""Real-line mining of the application-side emitters (session 23): the host toolchain a job's
native build runs (GCC, clang, MSVC, GNU ld, collect2, make, CMake, setuptools, ptxas), pip's
build-subprocess failure and PyTorch 0.4's state-dict size mismatch. Each golden line is a real
line from the public thread named beside it; each look-alike must keep its older reading. Every
entry is the application's: a build that fails is the job's sources, toolchain or environment, the
same on every node and retry, and none may act on the node it ran on."""

from __future__ import annotations

from autorecover.domain.records import Blame

from .golden import Golden, assert_no_node_action, golden_line_checks, hits

# The entries this sweep added or widened, with the blame each decides.
BLAME: dict[str, Blame] = {
    "gcc.header_not_found": Blame.APPLICATION,
    "ld.library_not_found": Blame.APPLICATION,
    "gcc.link_failed": Blame.APPLICATION,
    "make.target_failed": Blame.APPLICATION,
    "cmake.configure_failed": Blame.APPLICATION,
    "cmake.cuda_toolkit_not_found": Blame.APPLICATION,
    "setuptools.command_failed": Blame.APPLICATION,
    "nvcc.ptxas_fatal": Blame.APPLICATION,
    "gcc.compile_error": Blame.APPLICATION,
    "ld.undefined_reference": Blame.APPLICATION,
    "nvcc.tool_died": Blame.APPLICATION,
    "gcc.unrecognized_option": Blame.APPLICATION,
    "gcc.compiler_killed": Blame.APPLICATION,
    "libstdcxx.logic_error": Blame.APPLICATION,
    "data.video_undecodable": Blame.APPLICATION,
    "pip.subprocess_failed": Blame.APPLICATION,
    "pip.uv_build_failed": Blame.APPLICATION,
    "pip.wheel_build_failed": Blame.APPLICATION,
    "torchser.state_dict_size_mismatch": Blame.APPLICATION,
    "deepspeed.op_build_failed": Blame.APPLICATION,
    "torch.cpu_alloc_failed": Blame.APPLICATION,
}

GOLDEN: Golden = [
    # BVLC/caffe issue #841 (GCC, make 3.x)
    (
        "src/caffe/blob.cpp:3:26: fatal error: cuda_runtime.h: No such file or directory",
        "gcc.header_not_found",
        {"header": "cuda_runtime.h"},
    ),
    # open-mmlab/mmdetection issue #71 (nvcc's host compiler, an include from the command line)
    (
        "/usr/include/stdc-predef.h:59:1: fatal error: cuda_runtime.h: No such file or directory",
        "gcc.header_not_found",
        {"header": "cuda_runtime.h"},
    ),
    # LeelaChessZero/lc0 issue #312
    (
        "cc1plus: fatal error: cuda_runtime.h: No such file or directory",
        "gcc.header_not_found",
        {"header": "cuda_runtime.h"},
    ),
    # lhao0301/pytorch-liteflownet3 issue #3 (torch's own headers include the CUDA runtime's)
    (
        "anaconda3/lib/python3.6/site-packages/torch/include/ATen/cuda/CUDAContext.h:5:30: fatal "
        "error: cuda_runtime_api.h: No such file or directory",
        "gcc.header_not_found",
        {"header": "cuda_runtime_api.h"},
    ),
    # wang-xinyu/tensorrtx issue #2
    (
        "project/resnet/resnext50_32x4d.cpp:2:10: fatal error: cuda_runtime_api.h: No such file "
        "or directory",
        "gcc.header_not_found",
        {"header": "cuda_runtime_api.h"},
    ),
    # erikwijmans/Pointnet2_PyTorch issue #181 (pip's indented build output)
    (
        "      <command-line>: fatal error: cuda_runtime.h: No such file or directory",
        "gcc.header_not_found",
        {"header": "cuda_runtime.h"},
    ),
    # HAWAIILAB/cuda-flux issue #1 (clang)
    (
        "/home/mnaderan/cuda-flux/lib/hostRuntime.cpp:3:10: fatal error: 'cuda_runtime.h' file "
        "not found",
        "gcc.header_not_found",
        {"quoted": "cuda_runtime.h"},
    ),
    # phvu/cuda-smi issue #9 (clang on macOS)
    (
        "cuda-smi.cpp:4:10: fatal error: 'cuda_runtime_api.h' file not found",
        "gcc.header_not_found",
        {"quoted": "cuda_runtime_api.h"},
    ),
    # JPaulMora/Pyrit issue #643 (clang as nvcc's host compiler, a C++ standard header)
    (
        "/usr/include/crt/common_functions.h:111:10: fatal error: 'new' file not found",
        "gcc.header_not_found",
        {"quoted": "new"},
    ),
    # bazel-contrib/rules_cuda pull request #376 (clang's CUDA wrapper, curand missing)
    (
        "/usr/lib/llvm-19/lib/clang/19/include/__clang_cuda_runtime_wrapper.h:486:10: fatal "
        "error: 'curand_mtgp32_kernel.h' file not found",
        "gcc.header_not_found",
        {"quoted": "curand_mtgp32_kernel.h"},
    ),
    # Jimver/cuda-toolkit issue #109 (MSVC)
    (
        "fatal error C1083: Cannot open include file: 'cuda_runtime.h': No such file or directory",
        "gcc.header_not_found",
        {"include": "cuda_runtime.h"},
    ),
    # sgl-project/sglang issue #1117, pytorch/pytorch issue #97146 (Triton's launcher stub without
    # the Python headers: python3-dev missing from the image)
    (
        "/tmp/tmps1rkq3y3/main.c:5:10: fatal error: Python.h: No such file or directory",
        "gcc.header_not_found",
        {"header": "Python.h"},
    ),
    # woct0rdho/triton-windows issues #113 and #96 (TinyCC)
    (
        "C:/Users/steven/AppData/Local/Temp/tmptw09ntof/cuda_utils.c:14: error: include file "
        "'Python.h' not found",
        "gcc.header_not_found",
        {"tcc": "Python.h"},
    ),
    (
        "E:/Comfy_UI/ComfyUI_windows_portable/python_embeded/Include/Python.h:12: error: include "
        "file 'pyconfig.h' not found",
        "gcc.header_not_found",
        {"tcc": "pyconfig.h"},
    ),
    # JPaulMora/Pyrit issue #213 (GNU ld before 2.38, no strerror)
    ("/usr/bin/ld: cannot find -lcuda", "ld.library_not_found", {"library": "-lcuda"}),
    # rendered from binutils ld/ldfile.c (2.38 and later append the errno text)
    (
        "/usr/bin/ld: cannot find -lcudart: No such file or directory",
        "ld.library_not_found",
        {"library": "-lcudart"},
    ),
    # rendered from lld ELF/Driver.cpp
    ("ld.lld: error: unable to find library -lcuda", "ld.library_not_found", {"lld": "-lcuda"}),
    # andrejrcarvalho/OrangePi_SSD1306 issue #2, rivetTDA/rivet issue #170
    (
        "collect2: error: ld returned 1 exit status",
        "gcc.link_failed",
        {"linker": "ld", "status": "1"},
    ),
    # andlabs/ui issue #424 (MinGW)
    (
        "collect2.exe: error: ld returned 1 exit status",
        "gcc.link_failed",
        {"linker": "ld", "status": "1"},
    ),
    # JPaulMora/Pyrit issue #213 (GCC before 4.8)
    ("collect2: ld returned 1 exit status", "gcc.link_failed", {"linker": "ld", "status": "1"}),
    # gflags/gflags issue #241 (two lines pasted as one)
    (
        "collect2: error: ld returned 1 exit status Makefile:1079: recipe for target "
        "'logging_unittest' faile",
        "gcc.link_failed",
        {"status": "1"},
    ),
    # BananaWorks07/trigger-control issue #1 (make 4.x)
    (
        "make: *** [Makefile:24: trigger-control] Error 1",
        "make.target_failed",
        {"target": "Makefile:24: trigger-control", "error": "Error 1"},
    ),
    # Duncaen/lobase issue #15 (recursive make)
    (
        "make[2]: *** [../../../mk/bsd.prog.mk:74: indent] Error 1",
        "make.target_failed",
        {"target": "../../../mk/bsd.prog.mk:74: indent"},
    ),
    (
        "make[1]: *** [../../mk/bsd.subdir.mk:40: _SUBDIRUSE] Error 1",
        "make.target_failed",
        {"target": "../../mk/bsd.subdir.mk:40: _SUBDIRUSE"},
    ),
    # open-mmlab/mmdetection issue #71 (make 3.x)
    ("make: *** [all] Error 1", "make.target_failed", {"target": "all"}),
    # wang-xinyu/tensorrtx issue #2
    (
        "make[2]: *** [CMakeFiles/resnext50.dir/resnext50_32x4d.cpp.o] Error 1",
        "make.target_failed",
        {"target": "CMakeFiles/resnext50.dir/resnext50_32x4d.cpp.o", "error": "Error 1"},
    ),
    # xenogenesi/task-spooler issue #8
    (
        "CMake Error at /usr/share/cmake/Modules/CMakeDetermineCUDACompiler.cmake:180 (message):",
        "cmake.configure_failed",
        {"line": "180", "command": "message"},
    ),
    # torch/cutorch issue #833
    (
        "CMake Error at /usr/share/cmake-3.10/Modules/FindCUDA.cmake:682 (message):",
        "cmake.configure_failed",
        {"file": "/usr/share/cmake-3.10/Modules/FindCUDA.cmake", "line": "682"},
    ),
    # Cytnx-dev/Cytnx issue #949
    (
        "CMake Error at CMakeLists.txt:212 (enable_language):",
        "cmake.configure_failed",
        {"file": "CMakeLists.txt", "line": "212", "command": "enable_language"},
    ),
    # openhpc/ohpc issue #2141
    ("-- Configuring incomplete, errors occurred!", "cmake.configure_failed", {}),
    # xenogenesi/task-spooler issue #8, ecmwf/atlas issue #189, microsoft/vcpkg issue #36418
    ("  Failed to find nvcc.", "cmake.cuda_toolkit_not_found", {"text": "Failed to find nvcc."}),
    # torch/cutorch issue #833, isunchy/cuboid_abstraction issue #2
    (
        "  Specify CUDA_TOOLKIT_ROOT_DIR",
        "cmake.cuda_toolkit_not_found",
        {"text": "Specify CUDA_TOOLKIT_ROOT_DIR"},
    ),
    # compiler-explorer/infra pull request #2304
    (
        "  Could not find `nvcc` executable in any searched paths, please set",
        "cmake.cuda_toolkit_not_found",
        {"text": "Could not find `nvcc` executable in any searched paths"},
    ),
    # GMMTeam/GMM issue #3
    (
        '  Could NOT find CUDA (missing: CUDA_INCLUDE_DIRS) (found version "6.0")',
        "cmake.cuda_toolkit_not_found",
        {"text": "Could NOT find CUDA (missing: CUDA_INCLUDE_DIRS)"},
    ),
    # Cytnx-dev/Cytnx issue #949
    (
        "  No CMAKE_CUDA_COMPILER could be found.",
        "cmake.cuda_toolkit_not_found",
        {"text": "No CMAKE_CUDA_COMPILER could be found."},
    ),
    # JPaulMora/Pyrit issue #213, thangvubk/SoftGroup issue #41
    (
        "error: command 'gcc' failed with exit status 1",
        "setuptools.command_failed",
        {"command": "gcc", "status": "1"},
    ),
    # YuqingWang1029/VisTR issue #56, xingyizhou/CenterNet issue #999
    (
        "error: command 'g++' failed with exit status 1",
        "setuptools.command_failed",
        {"command": "g++", "status": "1"},
    ),
    # facebookresearch/maskrcnn-benchmark issue #750
    (
        "error: command '/usr/local/cuda/bin/nvcc' failed with exit status 2",
        "setuptools.command_failed",
        {"command": "/usr/local/cuda/bin/nvcc", "status": "2"},
    ),
    # jwyang/faster-rcnn.pytorch issue #719 (Python 2's repr)
    (
        "error: command u'/usr/local/cuda/bin/nvcc' failed with exit status 1",
        "setuptools.command_failed",
        {"command": "/usr/local/cuda/bin/nvcc", "status": "1"},
    ),
    # MVIG-SJTU/AlphaPose issue #814 (Windows)
    (
        "error: command 'C:\\\\Program Files\\\\NVIDIA GPU Computing Toolkit\\\\CUDA\\\\v10.0\\\\bin"
        "\\\\nvcc.exe' failed with exit status 2",
        "setuptools.command_failed",
        {"status": "2"},
    ),
    # open-mmlab/mmdetection issue #71
    (
        "error: command 'nvcc' failed with exit status 1",
        "setuptools.command_failed",
        {"command": "nvcc", "status": "1"},
    ),
    # xiumingzhang/GenRe-ShapeHD issue #41 (the exception distutils raised)
    (
        "distutils.errors.LinkError: command 'gcc' failed with exit status 1",
        "setuptools.command_failed",
        {"command": "gcc"},
    ),
    # rendered from setuptools/_distutils/spawn.py (2021 and later; the compiler not installed)
    (
        "error: command 'gcc' failed: No such file or directory",
        "setuptools.command_failed",
        {"command": "gcc", "error": "No such file or directory"},
    ),
    (
        "error: command '/usr/bin/gcc' failed with exit code 1",
        "setuptools.command_failed",
        {"command": "/usr/bin/gcc", "status": "1"},
    ),
    # triton-lang/triton pull request #5017
    (
        "  ptxas fatal   : (C7600) Register allocation failed with register count of '255'. "
        "Compile the program with a higher register target",
        "nvcc.ptxas_fatal",
        {},
    ),
    (
        "  ptxas fatal   : Ptx assembly aborted due to errors",
        "nvcc.ptxas_fatal",
        {"error": "Ptx assembly aborted due to errors"},
    ),
    # NVIDIA/nccl issue #87 (nvcc's EDG front end)
    (
        'src/core.cu(717): error: identifier "so" is undefined',
        "gcc.compile_error",
        {"file": "src/core.cu", "edg_line": "717", "error": 'identifier "so" is undefined'},
    ),
    # DerryHub/BEVFormer_tensorrt issue #92
    (
        'rotateKernel.cu(40): error: identifier "__hdiv" is undefined',
        "gcc.compile_error",
        {"file": "rotateKernel.cu", "edg_line": "40"},
    ),
    # tromp/cuckoo issue #20
    (
        "cuda_miner.cu(215): error: too few arguments in function call",
        "gcc.compile_error",
        {"error": "too few arguments in function call"},
    ),
    # laugh12321/TensorRT-YOLO issue #1 (pycuda's nvcc stderr)
    (
        "kernel.cu(5): error: incomplete type is not allowed",
        "gcc.compile_error",
        {"file": "kernel.cu", "edg_line": "5"},
    ),
    # Dookoo2/CUDACyclone issue #10, NVlabs/instant-ngp issue #1547 (GCC 11 headers under CUDA 11.5)
    (
        "/usr/include/c++/11/bits/std_function.h:435:145: error: parameter packs not expanded with "
        "\u2018...\u2019:",
        "gcc.compile_error",
        {"file": "/usr/include/c++/11/bits/std_function.h", "line": "435"},
    ),
    # inducer/pycuda issue #2 (GCC 4.3: no column)
    (
        "src/wrapper/wrap_cudadrv.cpp:905: error: 'launch_kernel' is not a member of "
        "'init_module__driver()::cl'",
        "gcc.compile_error",
        {"file": "src/wrapper/wrap_cudadrv.cpp", "line": "905"},
    ),
    # NVIDIA/cudf issue #8018, madgraph5/madgraph4gpu issue #639
    (
        "nvcc error   : 'cicc' died due to signal 9 (Kill signal)",
        "nvcc.tool_died",
        {"program": "cicc", "signal": "9"},
    ),
    (
        "nvcc error   : 'cudafe++' died due to signal 9 (Kill signal)",
        "nvcc.tool_died",
        {"program": "cudafe++", "signal": "9"},
    ),
    # travis-ci/travis-ci issue #2407, arrayfire/arrayfire issue #2156, NVIDIA-Merlin/HugeCTR #199
    (
        "g++: internal compiler error: Killed (program cc1plus)",
        "gcc.compiler_killed",
        {"ice": "Killed", "program": "cc1plus"},
    ),
    (
        "cc: internal compiler error: Killed (program cc1plus)",
        "gcc.compiler_killed",
        {"program": "cc1plus"},
    ),
    # inducer/pycuda issue #65
    (
        'cc1plus: error: unrecognized command line option "-Wp"',
        "gcc.unrecognized_option",
        {"driver": "cc1plus", "option": "-Wp"},
    ),
    # ggml-org/llama.cpp issue #12325
    (
        "gcc-12: error: unrecognized command-line option \u2018-compress-mode=size\u2019",
        "gcc.unrecognized_option",
        {"driver": "gcc-12", "option": "-compress-mode=size"},
    ),
    # AndybnACT/GPU-comcot issue #1
    (
        "tmpxft_00003c4e_00000000-5_GPUMoment_s.cudafe1.cpp:(.text+0x4ee): undefined reference to "
        "`cudaLaunchKernel'",
        "ld.undefined_reference",
        {"symbol": "cudaLaunchKernel"},
    ),
    (
        "/usr/bin/ld: tmpxft_00003c68_00000000-5_GPUOpen_BD.cudafe1.cpp:(.text+0xa4): undefined "
        "reference to `__cudaPushCallConfiguration'",
        "ld.undefined_reference",
        {"symbol": "__cudaPushCallConfiguration"},
    ),
    # voutcn/megahit issue #95 (CUDA 8 objects: cudaSetupArgument left CUDA 10)
    (
        "/tmp/tmpxft_000035b5_00000000-4_lv2_gpu_functions.cudafe1.stub.c:16: undefined reference "
        "to `cudaSetupArgument'",
        "ld.undefined_reference",
        {"symbol": "cudaSetupArgument"},
    ),
    # BVLC/caffe issue #6269
    (
        "tmpxft_000053c6_00000000-4_math_functions.compute_61.cudafe1.cpp:(.text+0x45e): undefined "
        "reference to `cudaLaunch'",
        "ld.undefined_reference",
        {"symbol": "cudaLaunch"},
    ),
    # uzh-rpg/rpg_ultimate_slam_open issue #26, CEA-LIST/Cingulata issue #41
    (
        "  what():  vector::_M_range_check: __n (which is 1) >= this->size() (which is 1)",
        "libstdcxx.logic_error",
        {"what": "vector::_M_range_check: __n (which is 1) >= this->size() (which is 1)"},
    ),
    # JDAI-CV/DNNLibrary issue #79, ov2slam/ov2slam issue #24
    ("  what():  _Map_base::at", "libstdcxx.logic_error", {"what": "_Map_base::at"}),
    # OlafvdSpek/xbt issue #28
    ("  what():  basic_string::append", "libstdcxx.logic_error", {"what": "basic_string::append"}),
    # gaoxiang12/slambook issue #132, JuneFeng/GAKE issue #3, pmelsted/KmerStream issue #16
    (
        "  what():  basic_string::_M_construct null not valid",
        "libstdcxx.logic_error",
        {"what": "basic_string::_M_construct null not valid"},
    ),
    # RawTherapee/RawTherapee issue #2322 (the pre-C++11 ABI)
    (
        "  what():  basic_string::_S_construct null not valid",
        "libstdcxx.logic_error",
        {"what": "basic_string::_S_construct null not valid"},
    ),
    # KDE/heaptrack pull request #58 (GCC 12)
    (
        "  what():  basic_string: construction from null is not valid",
        "libstdcxx.logic_error",
        {"what": "basic_string: construction from null is not valid"},
    ),
    # rogersce/cnpy issue #73, rohanmohapatra/hdbscan-cpp issue #13
    (
        "  what():  cannot create std::vector larger than max_size()",
        "libstdcxx.logic_error",
        {"what": "cannot create std::vector larger than max_size()"},
    ),
    # USCiLab/cereal issue #192
    (
        "      what():  vector::_M_default_append",
        "libstdcxx.logic_error",
        {"what": "vector::_M_default_append"},
    ),
    # OpenGVLab/UniFormerV2 issue #13 (decord under a retrying loader), open-mmlab/mmaction2 #1415
    (
        "[mov,mp4,m4a,3gp,3g2,mj2 @ 0x5647f2c997c0] moov atom not found",
        "data.video_undecodable",
        {"error": "moov atom not found"},
    ),
    (
        "[11:33:14] /github/workspace/src/video/video_reader.cc:83: ERROR opening: "
        "/data/gpfs/projects/punim0512/data/kinetics-dataset/k400/train/Haqw7b9U-L4.mp4, Invalid "
        "data found when processing input",
        "data.video_undecodable",
        {
            "file": "/data/gpfs/projects/punim0512/data/kinetics-dataset/k400/train/Haqw7b9U-L4.mp4",
            "averror": "Invalid data found when processing input",
        },
    ),
    # PKU-YuanGroup/Video-LLaVA issue #163 (a progress bar before the demuxer's line)
    (
        "89%|\u2588\u2588\u2588\u2588\u2588\u2588\u2588\u2588\u2589 | 5307/5979 "
        "[15:40:54<2:01:44, 10.87s/it][mov,mp4,m4a,3gp,3g2,mj2 @ 0xf78b0000] moov atom not found",
        "data.video_undecodable",
        {"error": "moov atom not found"},
    ),
    # epic-kitchens/epic-kitchens-download-scripts issue #23 (ffprobe)
    (
        "P37/P37_102.MP4: Invalid data found when processing input",
        "data.video_undecodable",
        {"path": "P37/P37_102.MP4"},
    ),
    # Dao-AILab/flash-attention issue #304 (both lines)
    ("  error: subprocess-exited-with-error", "pip.subprocess_failed", {}),
    (
        "  × python setup.py bdist_wheel did not run successfully.",
        "pip.subprocess_failed",
        {"command": "python setup.py bdist_wheel"},
    ),
    # astral-sh/uv issue #7015 (uv 0.4)
    (
        "  Caused by: Build backend failed to determine extra requires with `build_wheel()` with "
        "exit status: 1",
        "pip.uv_build_failed",
        {"hook": "build_wheel"},
    ),
    # genmoai/mochi issue #22
    (
        "  Caused by: Build backend failed to build wheel through `build_wheel()` with exit status: 1",
        "pip.uv_build_failed",
        {"hook": "build_wheel"},
    ),
    # ai-bond/flash-attention-v100 pull request #23 (uv 0.6)
    (
        "  × Failed to build `flash-attn-v100 @ file:///[...]/git/flash-attention-v100`",
        "pip.uv_build_failed",
        {"dist": "flash-attn-v100 @ file:///[...]/git/flash-attention-v100"},
    ),
    (
        "  ╰─▶ Call to `setuptools.build_meta.build_wheel` failed (exit status: 1)",
        "pip.uv_build_failed",
        {"call": "setuptools.build_meta.build_wheel", "status": "1"},
    ),
    # NovaSky-AI/SkyRL issue #1382
    (
        "  × Failed to download and build `flash-attn==2.8.1`",
        "pip.uv_build_failed",
        {"dist": "flash-attn==2.8.1"},
    ),
    # astral-sh/uv pull request #11271
    (
        "      hint: This usually indicates a problem with the package or the build environment.",
        "pip.uv_build_failed",
        {},
    ),
    # QwenLM/Qwen issue #10 (wheel_builder's summary)
    ("Failed to build flash-attn", "pip.wheel_build_failed", {"failed": "flash-attn"}),
    # deepspeedai/DeepSpeed issue #3211, LlamaChinese/Llama-Chinese issue #27 (setup.py's abort)
    (
        " [ERROR]  Unable to pre-compile async_io",
        "deepspeed.op_build_failed",
        {"op": "async_io"},
    ),
    (
        "AssertionError: Unable to pre-compile async_io",
        "deepspeed.op_build_failed",
        {"op": "async_io"},
    ),
    # mxfold/mxfold2 issue #20 (the what() of an uncaught c10::Error)
    (
        "  what():  [enforce fail at alloc_cpu.cpp:75] err == 0. DefaultCPUAllocator: can't "
        "allocate memory: you tried to allocate 132426121216 bytes. Error code 12 (Cannot allocate "
        "memory)",
        "torch.cpu_alloc_failed",
        {"bytes": "132426121216"},
    ),
    # lllyasviel/Fooocus issue #237 (Windows)
    (
        "RuntimeError: [enforce fail at ..\\c10\\core\\impl\\alloc_cpu.cpp:72] data. "
        "DefaultCPUAllocator: not enough memory: you tried to allocate 26214400 bytes.",
        "torch.cpu_alloc_failed",
        {"bytes": "26214400"},
    ),
    # pytorch/android-demo-app issue #114 (before pytorch/pytorch pull request #20618's bytes)
    (
        "RuntimeError: [enforce fail at CPUAllocator.cpp:73] data. DefaultCPUAllocator: not enough "
        "memory: you tried to allocate 473909280 bytes. Buy new RAM!",
        "torch.cpu_alloc_failed",
        {"bytes": "473909280"},
    ),
    # pytorch/pytorch issue #15720 (PyTorch 0.4's wording)
    (
        "\tsize mismatch for block_level.position_enc.weight: copying a param of "
        "torch.Size([51, 30]) from checkpoint, where the shape is torch.Size([18290, 30]) in "
        "current model.",
        "torchser.state_dict_size_mismatch",
        {
            "param": "block_level.position_enc.weight",
            "old_saved": "torch.Size([51, 30])",
            "old_current": "torch.Size([18290, 30])",
        },
    ),
]

NEGATIVE: list[tuple[str, str]] = [
    # a missing source file on the command line is not a header; a Python open() of a header
    ("gcc.header_not_found", "cc1plus: fatal error: train.cpp: No such file or directory"),
    ("gcc.header_not_found", "gcc: fatal error: no input files"),
    (
        "gcc.header_not_found",
        "FileNotFoundError: [Errno 2] No such file or directory: 'include/config.h'",
    ),
    # the MinGW line names a file, not a -l library (andlabs/ui issue #424)
    (
        "ld.library_not_found",
        "c:/users/map/scoop/apps/gcc/current/bin/../lib/gcc/x86_64-w64-mingw32/11.2.0/../../../../"
        "x86_64-w64-mingw32/bin/ld.exe: cannot find 1: No such file or directory",
    ),
    ("gcc.link_failed", "collect2 version 11.3.0"),
    # a caller's OOM marker list quoting the text without an allocation size
    ("torch.cpu_alloc_failed", '    "defaultcpuallocator: can\'t allocate memory",'),
    # DeepSpeed's warnings when an op is skipped (ds_report, setup.py since #6489)
    (
        "deepspeed.op_build_failed",
        " [WARNING]  async_io requires the dev libaio .so object and headers but these were not found.",
    ),
    (
        "deepspeed.op_build_failed",
        " [WARNING]  Skip pre-compile of incompatible async_io; One can disable async_io with "
        "DS_BUILD_AIO=0",
    ),
    # nvcc's warnings and GCC's own warning about a C++-only flag
    (
        "nvcc.tool_died",
        "nvcc warning : The -std=c++14 flag is not supported with the configured host compiler.",
    ),
    (
        "gcc.unrecognized_option",
        "cc1: warning: command line option \u2018-std=c++11\u2019 is valid for C++/ObjC++ but not for C",
    ),
    ("gcc.compiler_killed", "g++: internal compiler error: Segmentation fault (program cc1plus)"),
    # a decoder's per-frame complaint (decoding goes on) and PyAV's Python exception
    ("data.video_undecodable", "[h264 @ 0xa5268c0] mmco: unref short failure"),
    ("data.video_undecodable", "error while decoding MB 30 0, bytestream 26548"),
    # other what() lines keep their own entries; a Python-side IndexError is Python's
    ("libstdcxx.logic_error", "  what():  std::bad_alloc"),
    (
        "libstdcxx.logic_error",
        "  what():  CUDA error: an illegal memory access was encountered",
    ),
    (
        "libstdcxx.logic_error",
        "IndexError: vector::_M_range_check: __n (which is 3) >= this->size()",
    ),
    ("libstdcxx.logic_error", "terminate called after throwing an instance of 'std::out_of_range'"),
    # DeepSpeed's op probe (op_builder/builder.py has_function): a missing optional library
    (
        "gcc.header_not_found",
        "/tmp/tmpk2j3/test.c:1:10: fatal error: libaio.h: No such file or directory",
    ),
    ("ld.library_not_found", "/usr/bin/ld: cannot find -laio: No such file or directory"),
    ("ld.library_not_found", "/usr/bin/ld: cannot find -lcufile"),
    # a warning, a note and nvcc's summary are not errors
    (
        "gcc.compile_error",
        "/usr/include/c++/11/bits/std_function.h:435:145: note:         '_ArgTypes'",
    ),
    ("gcc.compile_error", 'kernel.cu(5): warning: attribute "__global__" does not apply here'),
    (
        "gcc.compile_error",
        '15 errors detected in the compilation of "/tmp/tmpxft_00001830_00000000-9_cuda_miner.cpp1.ii".',
    ),
    ("ld.undefined_reference", "ld.lld: error: undefined symbol: cudaLaunchKernel"),
    # make's "-" recipe it ignores, and its directory notes
    ("make.target_failed", "make: [Makefile:5: clean] Error 1 (ignored)"),
    ("make.target_failed", "make[1]: Leaving directory '/home/user/apex'"),
    ("cmake.configure_failed", "CMake Warning at CMakeLists.txt:12 (message):"),
    ("cmake.configure_failed", "-- Configuring done"),
    ("cmake.cuda_toolkit_not_found", '-- Found CUDA: /usr/local/cuda (found version "12.1")'),
    ("cmake.cuda_toolkit_not_found", "-- Found CUDAToolkit: /usr/local/cuda/include"),
    # cpp_extension's ninja call is cppext.build_failed's; the issue's own typo is not the format
    (
        "setuptools.command_failed",
        "subprocess.CalledProcessError: Command '['ninja', '-v']' returned non-zero exit status 1.",
    ),
    ("setuptools.command_failed", "error: commond '/usr/bin/gcc' failed with exit code 1"),
    ("nvcc.ptxas_fatal", "ptxas info    : Used 64 registers, 380 bytes cmem[0]"),
    (
        "pip.subprocess_failed",
        "  note: This error originates from a subprocess, and is likely not a problem with pip.",
    ),
    ("pip.wheel_build_failed", "Successfully built flash-attn"),
    ("pip.uv_build_failed", "   Building flash-attn-v100 @ file:///[...]/git/flash-attention-v100"),
    ("pip.uv_build_failed", "      Built flash-attn-v100 @ file:///[...]/git/flash-attention-v100"),
    ("pip.wheel_build_failed", "  Running setup.py clean for flash-attn"),
]

(
    test_golden_line_yields_its_signal,
    test_only_application_lines_read_as_the_application,
    test_negative_line,
    test_blame,
    test_every_entry_pinned_here_has_a_golden_line,
) = golden_line_checks(GOLDEN, NEGATIVE, BLAME)


def test_a_failed_build_names_no_node() -> None:
    """A build's failure is the software's: none of these entries may act on the node."""
    assert_no_node_action(BLAME)


def test_the_informing_lines_stay_under_the_deciding_weight() -> None:
    """make's and CMake's generic lines only restate a failure the compiler's line decides."""
    assert "make.target_failed" in hits("make: *** [all] Error 1")
    from .golden import CATALOG

    assert CATALOG.signatures["make.target_failed"].weight < 50
    assert CATALOG.signatures["cmake.configure_failed"].weight < 50


def test_a_wrapped_failed_to_build_is_not_pips_summary() -> None:
    """An exception or logger text that says "Failed to build X" after its own prefix is not pip's."""
    assert "pip.wheel_build_failed" not in hits("RuntimeError: Failed to build engine")
