"""RapidOCR's detection input, computed by table (:func:`~workbench.engines.cpu.readers.rapid.
_tabled_preprocess`), is bit for bit the one rapidocr's own preprocessing makes."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("rapidocr")
pytest.importorskip("onnxruntime")

from rapidocr.ch_ppocr_det.utils import DetPreProcess

from workbench.engines.cpu.readers.rapid import RapidReader


@pytest.fixture(scope="module")
def reader() -> RapidReader:
    return RapidReader(1)


@pytest.mark.parametrize("shape", [(700, 500, 3), (2000, 1545, 3), (40, 900, 3)])
def test_the_tabled_detection_input_equals_rapidocrs(reader, shape):
    det = reader._det
    image = np.random.default_rng(sum(shape)).integers(0, 256, shape, dtype=np.uint8)
    ours = det.get_preprocess()(image)
    theirs = DetPreProcess(det.limit_side_len, det.limit_type, det.mean, det.std)(image)
    assert ours is not None and theirs is not None
    assert ours.dtype == theirs.dtype == np.float32
    assert ours.shape == theirs.shape
    assert np.array_equal(ours, theirs)
    assert ours.flags["C_CONTIGUOUS"]


def test_other_inputs_take_rapidocrs_own_path(reader):
    det = reader._det
    image = np.random.default_rng(3).random((64, 96, 3)).astype(np.float32) * 255
    ours = det.get_preprocess()(image)
    theirs = DetPreProcess(det.limit_side_len, det.limit_type, det.mean, det.std)(image)
    assert theirs is not None and np.array_equal(ours, theirs)


def test_the_tabled_layout_input_equals_rapid_layouts():
    pytest.importorskip("rapid_layout")
    from rapid_layout.model_handler.pp.pre_process import PPPreProcess

    from workbench.engines.cpu.readers.rapid import TabledInput

    image = np.random.default_rng(4).integers(0, 256, (1100, 850, 3), dtype=np.uint8)
    theirs = PPPreProcess(img_size=(800, 608))(image)
    ours = TabledInput(PPPreProcess(img_size=(800, 608)))(image)
    assert ours is not None and ours.shape == theirs.shape == (1, 3, 800, 608)
    assert ours.dtype == theirs.dtype and np.array_equal(ours, theirs)
