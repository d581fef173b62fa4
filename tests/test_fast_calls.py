"""The public scans are builtins (simdscan/_fast_calls.py): a call that the Python function's body would hand straight
to the core is made without entering Python, in every form Python allows it (positional, keyword, **kwargs), a
pair of axes of an ndarray included, and every other call (another tuple axis, return_indices, a wrong or repeated
argument) is the Python function's own, with its result or its error. NumPy is the reference for the values."""

import inspect
import sys

import numpy as np
import pytest

import simdscan

# Each public scan: the keywords of its signature after a and axis, and NumPy's scan along axis 1 of a 2-D array.
#: the segment and group keywords every scan ends with
SEGMENTS = ("reset", "labels")
SCANS = {
    "cumsum": (("direction", "exclusive", "dtype", "out", "compensated", *SEGMENTS), lambda x: np.cumsum(x, 1)),
    "cumprod": (("direction", "exclusive", "dtype", "out", *SEGMENTS), lambda x: np.cumprod(x, 1)),
    "cummax": (("direction", "exclusive", "out", "return_indices", *SEGMENTS), lambda x: np.maximum.accumulate(x, 1)),
    "cummin": (("direction", "exclusive", "out", "return_indices", *SEGMENTS), lambda x: np.minimum.accumulate(x, 1)),
    "nancummax": (("direction", "exclusive", "out", *SEGMENTS), lambda x: np.fmax.accumulate(x, 1)),
    "nancummin": (("direction", "exclusive", "out", *SEGMENTS), lambda x: np.fmin.accumulate(x, 1)),
    "nancumsum": (("direction", "exclusive", "dtype", "out", "compensated", *SEGMENTS), lambda x: np.nancumsum(x, 1)),
    "nancumprod": (("direction", "exclusive", "dtype", "out", *SEGMENTS), lambda x: np.nancumprod(x, 1)),
    "logcumsumexp": (("direction", "exclusive", "dtype", "out", *SEGMENTS), lambda x: logaddexp_accumulate(x)),
}


def logaddexp_accumulate(x):
    with np.errstate(invalid="ignore"):  # NumPy warns of the NaN it propagates
        return np.logaddexp.accumulate(x, 1)


def python_frames(call):
    """call()'s result and the names of the Python functions it entered."""
    entered = []

    def profile(frame, event, arg):
        if event == "call" and frame.f_code is not call.__code__:
            entered.append(frame.f_code.co_name)

    sys.setprofile(profile)
    try:
        result = call()
    finally:
        sys.setprofile(None)
    return result, entered


def data():
    return np.array([[0.5, 2.0, np.nan, 1.5], [3.0, -1.0, 2.5, 0.25]])


@pytest.mark.parametrize("name", SCANS)
def test_signature_and_help(name):
    function = getattr(simdscan, name)
    keywords, _ = SCANS[name]
    parameters = list(inspect.signature(function).parameters.values())
    assert [p.name for p in parameters] == ["a", "axis", *keywords]
    assert [p.kind for p in parameters[2:]] == [inspect.Parameter.KEYWORD_ONLY] * len(keywords)
    assert parameters[1].default is None and inspect.signature(function).parameters["direction"].default == "increasing"
    assert repr(function) == f"<built-in function {name}>" and function.__module__ == "simdscan"
    assert function.__doc__ and ">>> " in function.__doc__


@pytest.mark.parametrize("name", SCANS)
def test_every_form_of_a_plain_call_is_made_without_python(name):
    function = getattr(simdscan, name)
    x = data()
    want = SCANS[name][1](x)
    axis_name = "".join(["ax", "is"])  # a keyword that is not the interned literal
    forms = {
        "positional": lambda: function(x, 1),
        "keywords": lambda: function(a=x, axis=1),
        "kwargs": lambda: function(x, **{axis_name: 1, "direction": "increasing", "exclusive": False}),
        "Direction": lambda: function(x, -1, direction=simdscan.Direction.INCREASING),
    }
    for form, call in forms.items():
        got, entered = python_frames(call)
        assert entered == [], f"{name} ({form}) entered Python: {entered}"
        np.testing.assert_allclose(got, want, rtol=1e-15, err_msg=f"{name} ({form})")
    out = np.zeros_like(x)
    got, entered = python_frames(lambda: function(x, 1, out=out, direction="decreasing", exclusive=True))
    assert entered == [] and got is out
    np.testing.assert_allclose(out[:, :-1], SCANS[name][1](x[:, :0:-1])[:, ::-1], rtol=1e-15)


@pytest.mark.parametrize("name", SCANS)
def test_a_pair_of_axes_is_made_without_python_other_tuples_by_the_function(name):
    function = getattr(simdscan, name)
    x = data()
    along_1 = SCANS[name][1]
    both = along_1(along_1(x.T).T)  # axis 0, then axis 1
    pairs = {
        "pair": lambda: function(x, (0, 1)),
        "negative": lambda: function(x, axis=(0, -1), direction=("increasing", "increasing"), exclusive=(0, False)),
        "Direction": lambda: function(x, (-2, 1), direction=simdscan.Direction.INCREASING),
    }
    for form, call in pairs.items():
        got, entered = python_frames(call)
        assert entered == [], f"{name} ({form}) entered Python: {entered}"
        np.testing.assert_allclose(got, both, rtol=1e-15, err_msg=f"{name} ({form})")
    others = {  # what scan_axes takes and the fast path leaves to it
        "list input": (lambda: function(x.tolist(), (0, 1)), both),
        "one axis": (lambda: function(x, (1,)), along_1(x)),
        "numpy integer": (lambda: function(x, (np.int64(0), 1)), both),
    }
    for form, (call, want) in others.items():
        got, entered = python_frames(call)
        assert name in entered, f"{name} ({form}) did not enter Python"
        np.testing.assert_allclose(got, want, rtol=1e-15, err_msg=f"{name} ({form})")
    out = np.full_like(x, 7.0)
    for axis, error in (((0, 0), ValueError), ((0, 2), np.exceptions.AxisError), ((0, 1, 1), ValueError)):
        with pytest.raises(error):
            function(x, axis, out=out)
    with pytest.raises(ValueError, match="direction must be"):  # from the fast path
        function(x, (0, 1), direction=("increasing", "sideways"), out=out)
    with pytest.raises(TypeError, match="list"):  # from scan_axes
        function(x, (0, 1), direction=["increasing", "increasing"], out=out)
    assert (out == 7.0).all()


@pytest.mark.parametrize("name", ["cummax", "cummin"])
def test_indices_are_the_python_functions(name):
    function = getattr(simdscan, name)
    x = np.array([[1, 2, 3], [4, 5, 6]])
    (values, indices), entered = python_frames(lambda: function(x, 1, return_indices=True))
    assert name in entered
    np.testing.assert_array_equal(values, SCANS[name][1](x))
    np.testing.assert_array_equal(indices, [[0, 1, 2], [0, 1, 2]] if name == "cummax" else [[0, 0, 0]] * 2)


@pytest.mark.parametrize("name", SCANS)
@pytest.mark.parametrize("args, kwargs, message", [
    ((), {}, "missing"),
    ((data(), 1, "decreasing"), {}, "positional"),
    ((data(), 1), {"axis": 0}, "multiple values"),
    ((), {"axis": 0}, "missing"),
    ((data(),), {"reverse": True}, "unexpected keyword"),
])
def test_wrong_calls_raise_the_python_functions_errors(name, args, kwargs, message):
    with pytest.raises(TypeError, match=message):
        getattr(simdscan, name)(*args, **kwargs)


@pytest.mark.parametrize("name", SCANS)
def test_bad_values_raise_from_the_fast_path_leaving_out_alone(name):
    function = getattr(simdscan, name)
    x = data()
    out = np.full_like(x, 7.0)
    with pytest.raises(ValueError, match="direction must be"):
        function(x, 1, direction="sideways", out=out)
    with pytest.raises(np.exceptions.AxisError):
        function(x, axis=2, out=out)
    with pytest.raises(ValueError, match="shape"):
        function(x, 1, out=out[:, :2])
    assert (out == 7.0).all()
