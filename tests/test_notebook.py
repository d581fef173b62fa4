"""examples/quickstart.ipynb runs from top to bottom without an error.

The notebook is executed as Jupyter would run it, by nbclient with the ``python3`` kernel of this interpreter
(ipykernel), in a temporary working directory, with a time limit per cell; any cell that raises fails the
test. The notebook's arrays are small and its Dask part uses Dask's default scheduler, so this takes seconds.
The notebook in the repository is not modified (it is kept without outputs).
"""

import os
from pathlib import Path

import pytest

NOTEBOOK = Path(__file__).resolve().parent.parent / "examples" / "quickstart.ipynb"
CELL_TIMEOUT_S = 120  # matplotlib may build its font cache in the first plotting cell of a fresh machine


@pytest.fixture
def jupyter_env(tmp_path, monkeypatch):
    """Jupyter's and IPython's files (connection files, history) in the temporary directory, not in ~."""
    monkeypatch.setenv("JUPYTER_PLATFORM_DIRS", "1")  # jupyter_core < 6 warns (DeprecationWarning) without it
    monkeypatch.setenv("JUPYTER_RUNTIME_DIR", str(tmp_path / "jupyter-runtime"))
    monkeypatch.setenv("IPYTHONDIR", str(tmp_path / "ipython"))
    monkeypatch.setenv("MPLBACKEND", "module://matplotlib_inline.backend_inline")
    monkeypatch.delenv("SIMDSCAN_NUM_THREADS", raising=False)
    work = tmp_path / "work"
    work.mkdir()
    return work


@pytest.mark.exhaustive  # a Jupyter kernel's start and the notebook's plots
def test_quickstart_notebook_runs(jupyter_env):
    import nbformat
    from nbclient import NotebookClient

    nb = nbformat.read(NOTEBOOK, as_version=4)
    nbformat.validate(nb)
    code_cells = [c for c in nb.cells if c.cell_type == "code"]
    assert code_cells, f"{NOTEBOOK} has no code cells"
    assert all(not c.outputs and c.execution_count is None for c in code_cells), (
        f"{NOTEBOOK.name} is kept without outputs (Jupyter: Edit > Clear Outputs of All Cells)"
    )

    client = NotebookClient(
        nb,
        kernel_name="python3",
        timeout=CELL_TIMEOUT_S,
        allow_errors=False,  # the first failing cell raises CellExecutionError, with its traceback
        resources={"metadata": {"path": str(jupyter_env)}},
    )
    client.execute()

    for cell in code_cells:
        assert cell.execution_count is not None, f"cell {cell.id} did not run"
        errors = [o for o in cell.outputs if o.output_type == "error"]
        assert not errors, f"cell {cell.id}: {errors}"
    images = [o for c in code_cells for o in c.outputs if "image/png" in o.get("data", {})]
    assert len(images) == 1, "the timing cell should draw one matplotlib figure"
    assert os.listdir(jupyter_env) == [], "the notebook should write no files"
