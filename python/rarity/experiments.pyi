# Type stubs of rarity.experiments, written by `python -m rarity._stubs`; do not edit.
from typing import Any, Optional, Sequence, Union

import numpy as np
from numpy.typing import ArrayLike, NDArray

__all__: list[str]

class ExperimentResult:
    skipped: Any
    def to_dict(self) -> dict[str, Any]: ...
    def to_text(self) -> str: ...
    def report(self, directory: Any) -> str: ...
    def report_html(self) -> str: ...

class CalibrationResult(ExperimentResult):
    cv: Any
    levels: Any
    table_v: Any
    brier_corrected_below_undersampled: Any
    gaussian: Any
    cells: Any
    seconds: Any

class PtBaggingResult(ExperimentResult):
    cv: Any
    sizes: Any
    measures: Any
    binary_methods: Any
    multiclass_methods: Any
    binary: Any
    multiclass: Any
    datasets: Any
    seconds: Any

class ReverseTestingResult(ExperimentResult):
    datasets: Any
    splits: Any
    metric: Any
    seed: Any
    methods: Any
    per_dataset: Any
    cells: Any
    def write_pairs(self, path: Any) -> str: ...

def calibration(datasets: Optional[Union[str, Sequence[str]]] = ..., data_dirs: Optional[Union[Any, Sequence[Any]]] = ..., learners: Union[str, Sequence[str]] = ..., levels: Union[str, Sequence[float]] = ..., cv: str = ..., max_rows: int = ..., seed: int = ..., n_jobs: Optional[int] = ...) -> CalibrationResult: ...
def pt_bagging(datasets: Optional[Union[str, Sequence[str]]] = ..., data_dirs: Optional[Union[Any, Sequence[Any]]] = ..., sizes: Union[str, Sequence[int]] = ..., cv: str = ..., max_rows: int = ..., seed: int = ..., n_jobs: Optional[int] = ...) -> PtBaggingResult: ...
def reverse_testing(datasets: Optional[Union[str, Sequence[str]]] = ..., data_dirs: Optional[Union[Any, Sequence[Any]]] = ..., learners: Union[str, Sequence[str]] = ..., splits: int = ..., metric: str = ..., variants: Union[str, Sequence[str]] = ..., methods: Union[str, Sequence[str]] = ..., bias: str = ..., max_rows: int = ..., seed: int = ..., n_jobs: Optional[int] = ...) -> ReverseTestingResult: ...
