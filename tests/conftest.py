import os
import zlib

import pytest
import torch

# Outputs start as NaN, so an element a kernel fails to write fails the test.
os.environ["FLASH_EXT_POISON_OUTPUTS"] = "1"
# Without a GPU the flex tests run the Triton kernels on CPU tensors in Triton's interpreter,
# which must be on before triton is first imported (importing flash_ext imports it).
if not torch.cuda.is_available():
    os.environ.setdefault("TRITON_INTERPRET", "1")


def pytest_collection_modifyitems(config, items):
    if torch.cuda.is_available():
        return
    skip = pytest.mark.skip(reason="needs a CUDA device")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)


@pytest.fixture(autouse=True)
def _seed(request):
    # Random inputs per test, reproducible from the test's name (crc32: str hashes change from
    # one Python process to the next).
    torch.manual_seed(zlib.crc32(request.node.nodeid.encode()))


@pytest.fixture(params=["default", "sm80"])
def kernels(request, monkeypatch):
    """For the flash tests: "sm80" runs the case again with FLASH_EXT_SM80_KERNELS=1 (the
    mma.sync kernels) on Hopper, where the default runs the wgmma ones; skipped elsewhere."""
    if request.param == "sm80":
        if not torch.cuda.is_available() or torch.cuda.get_device_capability() != (9, 0):
            pytest.skip("the default already runs the sm80 kernels on this device")
        monkeypatch.setenv("FLASH_EXT_SM80_KERNELS", "1")
    return request.param
