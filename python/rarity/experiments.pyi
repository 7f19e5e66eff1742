# Type stubs of rarity.experiments, written by `python -m rarity._stubs`; do not edit.
from typing import Any, Optional, Sequence, Union

import numpy as np
from numpy.typing import ArrayLike, NDArray

__all__: list[str]

class ExperimentResult:
    skipped: list[str]
    def to_dict(self) -> dict[str, Any]: ...
    def to_text(self) -> str: ...
    def report(self, directory: Any) -> str: ...
    def report_html(self) -> str: ...

class CalibrationResult(ExperimentResult):
    cv: str
    levels: list[float]
    table_v: list[dict[str, Any]]
    brier_corrected_below_undersampled: list[list[Any]]
    gaussian: list[dict[str, Any]]
    cells: list[dict[str, Any]]
    seconds: float

class PtBaggingResult(ExperimentResult):
    cv: str
    sizes: list[int]
    measures: list[str]
    binary_methods: list[str]
    multiclass_methods: list[str]
    binary: Optional[dict[str, Any]]
    multiclass: Optional[dict[str, Any]]
    datasets: Any
    seconds: float

class ReverseTestingResult(ExperimentResult):
    datasets: Any
    splits: int
    metric: str
    seed: int
    methods: list[dict[str, Any]]
    per_dataset: list[dict[str, Any]]
    cells: list[dict[str, Any]]
    def write_pairs(self, path: Any) -> str: ...

def calibration(datasets: Optional[Union[str, Sequence[str]]] = ..., data_dirs: Optional[Union[Any, Sequence[Any]]] = ..., learners: Union[str, Sequence[str]] = ..., levels: Union[str, Sequence[float]] = ..., cv: Union[str, int] = ..., max_rows: int = ..., seed: int = ..., n_jobs: Optional[int] = ...) -> CalibrationResult: ...
def pt_bagging(datasets: Optional[Union[str, Sequence[str]]] = ..., data_dirs: Optional[Union[Any, Sequence[Any]]] = ..., sizes: Union[str, Sequence[int]] = ..., cv: Union[str, int] = ..., max_rows: int = ..., seed: int = ..., n_jobs: Optional[int] = ...) -> PtBaggingResult: ...
def reverse_testing(datasets: Optional[Union[str, Sequence[str]]] = ..., data_dirs: Optional[Union[Any, Sequence[Any]]] = ..., learners: Union[str, Sequence[str]] = ..., splits: int = ..., metric: str = ..., variants: Union[str, Sequence[str]] = ..., methods: Union[str, Sequence[str]] = ..., bias: str = ..., max_rows: int = ..., seed: int = ..., n_jobs: Optional[int] = ...) -> ReverseTestingResult: ...
