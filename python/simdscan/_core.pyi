from typing import Any, Optional

import numpy as np

__version__: str
xsimd_version: str
xsimd_source: str

def _initialise(direction_type: type) -> None: ...
def scan(
    op: str,
    a: Any,
    axis: Any,
    direction: Any,
    exclusive: Any,
    dtype: Any,
    out: Optional[np.ndarray],
    compensated: Any,
    skip_nan: bool,
) -> np.ndarray: ...
def scan_indexed(
    op: str,
    a: Any,
    axis: Any,
    direction: Any,
    exclusive: Any,
    out: Optional[np.ndarray],
    indices_out: Optional[np.ndarray],
) -> tuple[np.ndarray, np.ndarray]: ...
def isa() -> str: ...
def supported_isas() -> list[str]: ...
def compiled_isas() -> list[str]: ...
def select_isa(name: str) -> None: ...
def falling_row_walk() -> str: ...
def select_falling_row_walk(name: str) -> None: ...
def set_num_threads(n: int) -> None: ...
def get_num_threads() -> int: ...
