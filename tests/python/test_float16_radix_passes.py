"""The radix sort's passes on float16 elements, called directly (past the workaround
_sorting._sort_float16_on_opencl), on every device.

On PoCL 3.1 (LLVM 15) the downsweep kernel of two blocks places float16 elements wrongly:
PoCL's kernel compiler drops the block `if t < RADIX: base[t] = ...; run[t] += ...` that
follows a barrier when the same barrier region stores a float16 element to a shared
array (the value through simt_h2f/simt_f2h), so base[] is never written and both blocks
write their tiles at base 0. The OpenCL C that simt generates is right: clang-15 -O2
keeps the store, PoCL with -cl-opt-disable runs it right, and PoCL's parallel.bc no
longer has it. Not yet worked around in simt's OpenCL codegen: xfail there until it is.
"""

import numpy as np
import pytest

import simt
from simt._array_api import _sorting
from simt._array_api._sorting import empty


@pytest.mark.parametrize("ranking", ["thread", "warp"])
def test_float16_radix_passes_over_two_blocks(device, rng, ranking, request):
    if ranking == "warp" and device.backend == "opencl":
        pytest.skip("OpenCL has no warp operations in simt")
    if device.backend == "opencl":
        # Runs, and is expected to fail there (not strict: other OpenCL drivers pass).
        request.applymarker(pytest.mark.xfail(
            reason="PoCL drops a local store next to float16 staging (see module doc)"))
    tile = _sorting._Plan(device, np.dtype(np.float16), np.dtype(np.int32), ranking).tile
    n = 2 * tile  # two tiles: two blocks of the downsweep
    x = (rng.standard_normal(n) * 10).astype(np.float16)
    a = simt.asarray(x, device=device)
    rows = _sorting._as_rows(a, (0,))[0]
    order = empty((n,), np.int64, device)
    _sorting.radix_sort(rows, order, False, True, ranking)
    np.testing.assert_array_equal(order.get(), np.argsort(x, kind="stable"))
