"""The child's harness between two calls: what it puts back before any trusted code runs."""

from __future__ import annotations

import numpy as np

from sandbox.child import _restore_numpy_errors


def test_numpy_error_modes_callback_and_buffer_size_are_all_put_back() -> None:
    zygote = (np.geterr(), np.geterrcall(), np.getbufsize())
    try:
        np.seterr(all="raise")
        np.seterrcall(lambda kind, flag: None)
        np.setbufsize(16384)
        _restore_numpy_errors()
        assert (np.geterr(), np.geterrcall(), np.getbufsize()) == zygote
        with np.errstate(all="call", call=print):  # an errstate still open, as a held generator
            _restore_numpy_errors()
            assert (np.geterr(), np.geterrcall()) == zygote[:2]
    finally:
        np.seterr(**zygote[0])
        np.seterrcall(zygote[1])
        np.setbufsize(zygote[2])
