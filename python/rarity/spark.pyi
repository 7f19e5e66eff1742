# Type stubs of rarity.spark, written by `python -m rarity._stubs`; do not edit.
from typing import Any, Optional, Sequence, Union

import numpy as np
from numpy.typing import ArrayLike, NDArray

__all__: list[str]

class Sample:
    df: Any
    label: str
    counts_before: dict[str, int]
    counts_after: dict[str, int]
    keep_rates: dict[str, float]
    positive: Optional[str]

def undersample(df: Any, label: str, beta: Optional[float] = ..., ratio: Optional[float] = ..., rates: Optional[dict[Any, float]] = ..., seed: int = ..., key: Optional[str] = ..., positive: Optional[Any] = ..., storage_level: Optional[Any] = ...) -> Sample: ...
def fit(sample: Any, spec: str, label: Optional[str] = ..., features: Optional[Sequence[str]] = ..., seed: int = ..., positive: Optional[Any] = ..., n_jobs: Optional[int] = ..., path: Optional[Any] = ..., categorical: str = ..., categorical_cols: Optional[Any] = ..., missing: str = ...) -> Any: ...
def predict(df: Any, model: Any, decision: Optional[str] = ..., unknown: str = ..., reasons: Optional[Any] = ...) -> Any: ...
def evaluate(df: Any, model: Any, label: str, threshold: float = ..., exact: bool = ..., max_groups: int = ..., partitions: Optional[int] = ...) -> dict[str, float]: ...
def monitor(model: Any, reference: Any = ..., current: Any = ..., *, label: Optional[str] = ..., bins: int = ..., bootstrap: int = ..., fail_on: Optional[str] = ..., seed: int = ...) -> Any: ...
def load_model(model: Any) -> Any: ...
