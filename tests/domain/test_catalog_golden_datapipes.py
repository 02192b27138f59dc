"""Golden tests for the data-pipeline family (signatures-datapipes.toml).

A data file its reader cannot accept (a Parquet or Arrow file without its footer, a TFRecord
that fails its CRC, an image nvJPEG cannot decode, an MDS shard shorter than its index says)
fails the same way on every retry and every node: the job's data, the application's, never the
node. Real lines (named beside each) must match through the scanner's own matcher and read as
the application's; the decoder's and the library's own failures, which are not the data's,
must not.
"""

from __future__ import annotations

import pytest

from autorecover.domain.records import Blame, Source
from domain.golden import (
    assert_matches,
    assert_no_match,
    assert_no_node_action,
    family_contract,
    family_keys,
    found,
)

FAMILY_FILE = "signatures-datapipes.toml"
NAMESPACES = frozenset({"data"})

REQUIRED: dict[str, Blame] = {
    "data.parquet_unreadable": Blame.APPLICATION,
    "data.tfrecord_corrupted": Blame.APPLICATION,
    "data.image_undecodable": Blame.APPLICATION,
    "data.mds_sample_missing": Blame.APPLICATION,
    "data.video_undecodable": Blame.APPLICATION,  # mapp (session 23): test_catalog_mined_mapp.py
}

FAMILY_KEYS = family_keys(FAMILY_FILE)


(
    test_family_keys_are_new_and_namespaced,
    test_required_signature_and_blame,
    test_every_family_signature_is_pinned,
) = family_contract({FAMILY_FILE: NAMESPACES}, REQUIRED)


def test_bad_data_names_no_node() -> None:
    """A data file's contents are the job's: no entry of the family may exclude a node."""
    assert_no_node_action(FAMILY_KEYS)


POSITIVE: list[tuple[str, str, dict[str, str]]] = [
    (  # huggingface/datasets issue #4077 (reloading a data set pushed to the Hub)
        "data.parquet_unreadable",
        "ArrowInvalid: Parquet magic bytes not found in footer. Either the file is corrupted or "
        "this is not a parquet file.",
        {},
    ),
    (  # NVlabs/Tool-N1 issue #4 (a data file fetched through git without its LFS object)
        "data.parquet_unreadable",
        "ArrowInvalid: Could not open Parquet input source '<Buffer>': Parquet magic bytes not "
        "found in footer. Either the file is corrupted or this is not a parquet file.",
        {},
    ),
    (  # apache/arrow issue #37631 (Parquet bytes read as an Arrow IPC stream)
        "data.parquet_unreadable",
        "pyarrow.lib.ArrowInvalid: Expected to read 827474256 metadata bytes, but only read 6635",
        {"expected": "827474256", "read": "6635"},
    ),
    (  # elastacloud/parquet-dotnet issue #435 (an older pyarrow's wording)
        "data.parquet_unreadable",
        "pyarrow.lib.ArrowIOError: Invalid parquet file. Corrupt footer",
        {},
    ),
    (  # apache/arrow cpp/src/parquet/file_reader.cc (a file cut to a few bytes)
        "data.parquet_unreadable",
        "pyarrow.lib.ArrowInvalid: Could not open Parquet input source '<Buffer>': Parquet file "
        "size is 2 bytes, smaller than the minimum file footer (8 bytes)",
        {"size": "2"},
    ),
    (  # tensorflow/tensorflow issue #21772 (a TFRecord failing at random steps)
        "data.tfrecord_corrupted",
        "tensorflow.python.framework.errors_impl.DataLossError: corrupted record at 775087002",
        {"kind": "corrupted", "offset": "775087002"},
    ),
    (  # AdaCompNUS/pfnet issue #1 (a download cut short; the offset moved with each download)
        "data.tfrecord_corrupted",
        "The Error code is DataLossError: corrupted record at 15458974733",
        {"offset": "15458974733"},
    ),
    (  # tensorflow/tensorflow issue #13463 (the title: TF 1.x's graph-mode wording)
        "data.tfrecord_corrupted",
        "DataLossError (see above for traceback): corrupted record at 12",
        {"offset": "12"},
    ),
    (  # NVIDIA/DALI issue #211 (OpenImages with corrupted JPEGs)
        "data.image_undecodable",
        "InternalError (see above for traceback): DALI daliOutput(&pipe_handle_) failed: Critical "
        "error in pipeline: Error in thread 0: [/opt/dali/dali/pipeline/operators/decoder/"
        'nvjpeg_decoder.h:331] NVJPEG error "3"',
        {"code": "3"},
    ),
    (  # NVIDIA/DALI issue #1204 (faulty images in a .rec file)
        "data.image_undecodable",
        'NVJPEG error "4" : NVJPEG_STATUS_JPEG_NOT_SUPPORTED',
        {"code": "4"},
    ),
    (  # NVIDIA/DALI issue #3817 (libjpeg's fallback on a bad file)
        "data.image_undecodable",
        "Error in thread 0: [/opt/dali/dali/operators/decoder/nvjpeg/nvjpeg_helper.h:228] "
        '[/opt/dali/dali/image/jpeg_mem.cc:176] Assert on "jpeg_start_decompress(&cinfo)" failed',
        {},
    ),
    (  # NVIDIA/DALI issue #2172 (bytes of no known image format)
        "data.image_undecodable",
        "RuntimeError: Critical error in pipeline: [/opt/dali/dali/image/image_factory.cc:87] "
        'Assert on "CheckIsPNG(encoded_image, length) + CheckIsBMP(encoded_image, length) + '
        "CheckIsGIF(encoded_image, length) + CheckIsJPEG(encoded_image, length) + "
        'CheckIsTiff(encoded_image, length) + CheckIsPNM(encoded_image, length) == 1" failed: '
        "Encoded image has ambiguous format",
        {},
    ),
    (  # mosaicml/streaming issue #677 (the last sample of large shards)
        "data.mds_sample_missing",
        "[rank5]: IndexError: Relative sample index 5205 is not present in the shard.01000.mds "
        "file.",
        {"index": "5205", "shard": "shard.01000.mds"},
    ),
    (  # mosaicml/streaming issue #399 (index.json and the shard disagree)
        "data.mds_sample_missing",
        "IndexError: Relative sample index 85 is not present in the 17/shard.00085.mds file.",
        {"index": "85", "shard": "17/shard.00085.mds"},
    ),
]


@pytest.mark.parametrize(("key", "line", "expected"), POSITIVE)
def test_real_line_matches(key: str, line: str, expected: dict[str, str]) -> None:
    hits = assert_matches(key, line, expected)
    assert "python.exception" not in hits, "a specific signature must win over the generic one"


def test_a_bad_shard_reads_as_the_application() -> None:
    """A full scan of a corrupted record finds the application's fault and nothing else."""
    assert found(
        "tensorflow.python.framework.errors_impl.DataLossError: corrupted record at 0",
        Source.LOGS,
    ) == [("data.tfrecord_corrupted", Blame.APPLICATION, 55)]


NEGATIVE: list[tuple[str, str]] = [
    # nvJPEG's own failures (internal error, execution failed) are the library's or the device's
    (  # NVIDIA/DALI issue #2019
        "data.image_undecodable",
        "Critical error in pipeline: Error in thread 1: [/opt/dali/dali/operators/decoder/nvjpeg/"
        'decoupled_api/nvjpeg_decoder_decoupled_api.h:342] NVJPEG error "8" : '
        "NVJPEG_STATUS_INTERNAL_ERROR ",
    ),
    ("data.image_undecodable", 'NVJPEG error "6" : NVJPEG_STATUS_EXECUTION_FAILED'),
    # a record count in a progress line is no corruption
    ("data.tfrecord_corrupted", "Wrote 1200 examples; last record at 775087002"),
    # Arrow reading a file of the right format is no footer error
    ("data.parquet_unreadable", "Parquet file written: 12 row groups, 1.2 GB"),
    # a plain index error elsewhere in the job is not a shard out of step with its index
    ("data.mds_sample_missing", "IndexError: list index out of range"),
]


@pytest.mark.parametrize(("key", "line"), NEGATIVE)
def test_line_must_not_match(key: str, line: str) -> None:
    assert_no_match(key, line, FAMILY_KEYS)
