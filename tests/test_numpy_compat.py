"""NumPy's own tests of its cumulative sums and products (shipped in the installed numpy package), pointed at
simdscan: imported and subclassed, or with the module-level names they call monkeypatched, nothing copied. Each
deliberate difference is a strict xfail naming the README rule it follows."""

import numpy as np
import pytest

import simdscan

ABSENT = "this numpy was installed without its own test modules (numpy/lib/tests), which this run imports"
numpy_function_base = pytest.importorskip("numpy.lib.tests.test_function_base", reason=ABSENT)
numpy_nanfunctions = pytest.importorskip("numpy.lib.tests.test_nanfunctions", reason=ABSENT)

# The README's rules that NumPy's tests meet as differences.
KEEPS_DTYPE = "README, Data types: dtype=None keeps the input's dtype (narrow integers are not widened)"
FOURTEEN_DTYPES = "README, Data types: float16/32/64, complex64/128, integers and bool only (no longdouble, no object)"
NARROW = "bBhHiI"  # int8/16/32 and their unsigned: NumPy widens them to the default integer, simdscan keeps them
LONG = "gG"  # longdouble and clongdouble


def xfail_for_dtype(request, code):
    """Marks this test a strict xfail where the dtype code ``code`` meets a rule of the README."""
    if code in LONG or code == "O":
        request.applymarker(pytest.mark.xfail(strict=True, raises=TypeError, reason=FOURTEEN_DTYPES))
    elif code in NARROW:
        request.applymarker(pytest.mark.xfail(strict=True, raises=AssertionError, reason=KEEPS_DTYPE))


class TestCumsum(numpy_function_base.TestCumsum):
    @pytest.mark.parametrize("cumsum", [simdscan.cumsum, simdscan.cumulative_sum])
    def test_basic(self, cumsum):
        numpy_function_base.TestCumsum.test_basic(self, cumsum)


class TestCumprod(numpy_function_base.TestCumprod):
    @pytest.mark.parametrize("cumprod", [simdscan.cumprod, simdscan.cumulative_prod])
    def test_basic(self, cumprod):
        numpy_function_base.TestCumprod.test_basic(self, cumprod)


def test_cumulative_include_initial(monkeypatch):
    monkeypatch.setattr(np, "cumulative_sum", simdscan.cumulative_sum)
    monkeypatch.setattr(np, "cumulative_prod", simdscan.cumulative_prod)
    numpy_function_base.test_cumulative_include_initial()


class TestNanFunctions_CumSumProd(numpy_nanfunctions.TestNanFunctions_CumSumProd):
    nanfuncs = [simdscan.nancumsum, simdscan.nancumprod]

    @pytest.fixture(autouse=True)
    def _names_point_at_simdscan(self, monkeypatch):
        """test_result_values calls np.nancumsum and np.nancumprod by name."""
        monkeypatch.setattr(np, "nancumsum", simdscan.nancumsum)
        monkeypatch.setattr(np, "nancumprod", simdscan.nancumprod)

    @pytest.fixture(autouse=True)
    def _deliberate_differences(self, request):
        params = getattr(request.node, "callspec", None)
        if params is not None and "dtype" in params.params:
            xfail_for_dtype(request, params.params["dtype"])

    # NumPy's loops over 'efdgFDG' end in longdouble, which simdscan refuses
    @pytest.mark.xfail(strict=True, raises=TypeError, reason=FOURTEEN_DTYPES)
    def test_dtype_from_dtype(self):
        numpy_nanfunctions.TestNanFunctions_CumSumProd.test_dtype_from_dtype(self)

    @pytest.mark.xfail(strict=True, raises=TypeError, reason=FOURTEEN_DTYPES)
    def test_dtype_from_char(self):
        numpy_nanfunctions.TestNanFunctions_CumSumProd.test_dtype_from_char(self)

    @pytest.mark.xfail(strict=True, raises=TypeError, reason=FOURTEEN_DTYPES)
    def test_dtype_from_input(self):
        numpy_nanfunctions.TestNanFunctions_CumSumProd.test_dtype_from_input(self)


@pytest.mark.filterwarnings("ignore::numpy.exceptions.ComplexWarning")
class TestNanFunctions_NumberTypes(numpy_nanfunctions.TestNanFunctions_NumberTypes):
    nanfuncs = {simdscan.nancumsum: np.cumsum, simdscan.nancumprod: np.cumprod}

    @pytest.mark.parametrize("nanfunc,func", nanfuncs.items(), ids=["nancumsum", "nancumprod"])
    def test_nanfunc(self, request, mat, dtype, nanfunc, func):
        xfail_for_dtype(request, dtype)
        numpy_nanfunctions.TestNanFunctions_NumberTypes.test_nanfunc(self, mat, dtype, nanfunc, func)

    # NumPy's other nan functions (quantiles, var, std): not simdscan's
    test_nanfunc_q = test_nanfunc_ddof = test_nanfunc_correction = None
