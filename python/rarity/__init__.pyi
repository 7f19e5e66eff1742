# Type stubs of rarity, written by `python -m rarity._stubs`; do not edit.
from typing import Any, Optional, Sequence, Union

import numpy as np
from numpy.typing import ArrayLike, NDArray

from . import calibration as calibration, datasets as datasets, metrics as metrics
from . import experiments as experiments
from . import model_selection as model_selection, sampling as sampling, select as select, stats as stats

__version__: str

class NotANumberError(ValueError, TypeError): ...

def registry(family: str) -> list[dict[str, Any]]: ...
def export_onnx(model: Any, path: Any = ...) -> bytes | None: ...
def load(path: Any) -> Any: ...

class _RarityClassifier:
    classes_: NDArray[Any]
    n_features_in_: int
    feature_names_in_: NDArray[np.object_]
    spec_: str
    priors_: NDArray[np.float64]
    keep_rates_: NDArray[np.float64]
    member_keep_rates_: Optional[NDArray[np.float64]]
    threshold_: Optional[float]
    pos_label_: Any
    decision_rule_: dict[str, Any]
    is_categorical_: Optional[NDArray[np.bool_]]
    model_: Any
    feature_importances_: NDArray[np.float64]
    def fit(self, X: Any, y: Any, sample_weight: Optional[ArrayLike] = ...) -> Any: ...
    def predict_proba(self, X: Any) -> NDArray[np.float64]: ...
    def predict(self, X: Any) -> NDArray[Any]: ...
    def score(self, X: Any, y: Any, sample_weight: Optional[ArrayLike] = ...) -> Any: ...
    def get_params(self, deep: bool = ...) -> dict[str, Any]: ...
    def set_params(self, **params: Any) -> Any: ...
    def to_bytes(self) -> bytes: ...
    def save(self, path: Any) -> None: ...
    def to_onnx(self, path: Any = ...) -> bytes | None: ...
    @classmethod
    def load(cls, path: Any) -> Any: ...

class Classifier(_RarityClassifier):
    def __init__(self, spec: str = ..., seed: int = ..., n_jobs: Optional[int] = ..., pos_label: Any = ..., categorical_features: Optional[Union[str, Sequence[Any]]] = ..., missing: str = ..., unknown: str = ..., random_state: Optional[int] = ...) -> None: ...

class RandomForest(_RarityClassifier):
    n_estimators: int
    def __init__(self, *, n: int = ..., vote: str = ..., sample: str = ..., criterion: str = ..., max_depth: Optional[Any] = ..., min_samples_split: int = ..., min_samples_leaf: int = ..., max_features: str = ..., leaf: str = ..., splitter: str = ..., cat_smooth: float = ..., min_data_per_group: int = ..., max_cat_threshold: int = ..., cat_l2: float = ..., max_cat_to_onehot: int = ..., missing_split: str = ..., monotone: Sequence[float] = ..., correct: Optional[Union[bool, str]] = ..., calibration: Optional[str] = ..., decision: Optional[str] = ..., seed: int = ..., n_jobs: Optional[int] = ..., pos_label: Any = ..., categorical_features: Optional[Union[str, Sequence[Any]]] = ..., missing: str = ..., unknown: str = ..., random_state: Optional[int] = ..., n_estimators: int = ...) -> None: ...

class Bagging(_RarityClassifier):
    n_estimators: int
    def __init__(self, *, n: int = ..., learner: str = ..., sample: str = ..., vote: str = ..., correct: Optional[Union[bool, str]] = ..., calibration: Optional[str] = ..., decision: Optional[str] = ..., seed: int = ..., n_jobs: Optional[int] = ..., pos_label: Any = ..., categorical_features: Optional[Union[str, Sequence[Any]]] = ..., missing: str = ..., unknown: str = ..., random_state: Optional[int] = ..., n_estimators: int = ...) -> None: ...

class RandomDecisionTrees(_RarityClassifier):
    n_estimators: int
    def __init__(self, *, n: int = ..., vote: str = ..., max_depth: Optional[Any] = ..., min_samples_split: int = ..., leaf: str = ..., correct: Optional[Union[bool, str]] = ..., calibration: Optional[str] = ..., decision: Optional[str] = ..., seed: int = ..., n_jobs: Optional[int] = ..., pos_label: Any = ..., categorical_features: Optional[Union[str, Sequence[Any]]] = ..., missing: str = ..., unknown: str = ..., random_state: Optional[int] = ..., n_estimators: int = ...) -> None: ...

class PTBagging(_RarityClassifier):
    n_estimators: int
    def __init__(self, *, n: int = ..., vote: str = ..., criterion: str = ..., max_depth: Optional[Any] = ..., min_samples_split: int = ..., min_samples_leaf: int = ..., max_features: Optional[Any] = ..., leaf: str = ..., splitter: str = ..., cat_smooth: float = ..., min_data_per_group: int = ..., max_cat_threshold: int = ..., cat_l2: float = ..., max_cat_to_onehot: int = ..., missing_split: str = ..., monotone: Sequence[float] = ..., correct: Optional[Union[bool, str]] = ..., calibration: Optional[str] = ..., decision: Optional[str] = ..., seed: int = ..., n_jobs: Optional[int] = ..., pos_label: Any = ..., categorical_features: Optional[Union[str, Sequence[Any]]] = ..., missing: str = ..., unknown: str = ..., random_state: Optional[int] = ..., n_estimators: int = ...) -> None: ...

class EBBagging(_RarityClassifier):
    n_estimators: int
    def __init__(self, *, n: int = ..., vote: str = ..., criterion: str = ..., max_depth: Optional[Any] = ..., min_samples_split: int = ..., min_samples_leaf: int = ..., max_features: Optional[Any] = ..., leaf: str = ..., splitter: str = ..., cat_smooth: float = ..., min_data_per_group: int = ..., max_cat_threshold: int = ..., cat_l2: float = ..., max_cat_to_onehot: int = ..., missing_split: str = ..., monotone: Sequence[float] = ..., correct: Optional[Union[bool, str]] = ..., calibration: Optional[str] = ..., decision: Optional[str] = ..., seed: int = ..., n_jobs: Optional[int] = ..., pos_label: Any = ..., categorical_features: Optional[Union[str, Sequence[Any]]] = ..., missing: str = ..., unknown: str = ..., random_state: Optional[int] = ..., n_estimators: int = ...) -> None: ...

class RBBagging(_RarityClassifier):
    n_estimators: int
    def __init__(self, *, n: int = ..., vote: str = ..., criterion: str = ..., max_depth: Optional[Any] = ..., min_samples_split: int = ..., min_samples_leaf: int = ..., max_features: Optional[Any] = ..., leaf: str = ..., splitter: str = ..., cat_smooth: float = ..., min_data_per_group: int = ..., max_cat_threshold: int = ..., cat_l2: float = ..., max_cat_to_onehot: int = ..., missing_split: str = ..., monotone: Sequence[float] = ..., correct: Optional[Union[bool, str]] = ..., calibration: Optional[str] = ..., decision: Optional[str] = ..., seed: int = ..., n_jobs: Optional[int] = ..., pos_label: Any = ..., categorical_features: Optional[Union[str, Sequence[Any]]] = ..., missing: str = ..., unknown: str = ..., random_state: Optional[int] = ..., n_estimators: int = ...) -> None: ...

class SMOTEBagging(_RarityClassifier):
    n_estimators: int
    def __init__(self, *, n: int = ..., vote: str = ..., criterion: str = ..., max_depth: Optional[Any] = ..., min_samples_split: int = ..., min_samples_leaf: int = ..., max_features: Optional[Any] = ..., leaf: str = ..., splitter: str = ..., cat_smooth: float = ..., min_data_per_group: int = ..., max_cat_threshold: int = ..., cat_l2: float = ..., max_cat_to_onehot: int = ..., missing_split: str = ..., monotone: Sequence[float] = ..., amount: float = ..., under: float = ..., k: int = ..., standardise: bool = ..., seed_vote: bool = ..., correct: Optional[Union[bool, str]] = ..., calibration: Optional[str] = ..., decision: Optional[str] = ..., seed: int = ..., n_jobs: Optional[int] = ..., pos_label: Any = ..., categorical_features: Optional[Union[str, Sequence[Any]]] = ..., missing: str = ..., unknown: str = ..., random_state: Optional[int] = ..., n_estimators: int = ...) -> None: ...

class UnderOverBagging(_RarityClassifier):
    n_estimators: int
    def __init__(self, *, n: int = ..., vote: str = ..., criterion: str = ..., max_depth: Optional[Any] = ..., min_samples_split: int = ..., min_samples_leaf: int = ..., max_features: Optional[Any] = ..., leaf: str = ..., splitter: str = ..., cat_smooth: float = ..., min_data_per_group: int = ..., max_cat_threshold: int = ..., cat_l2: float = ..., max_cat_to_onehot: int = ..., missing_split: str = ..., monotone: Sequence[float] = ..., a: float = ..., correct: Optional[Union[bool, str]] = ..., calibration: Optional[str] = ..., decision: Optional[str] = ..., seed: int = ..., n_jobs: Optional[int] = ..., pos_label: Any = ..., categorical_features: Optional[Union[str, Sequence[Any]]] = ..., missing: str = ..., unknown: str = ..., random_state: Optional[int] = ..., n_estimators: int = ...) -> None: ...

class UnderBagging(_RarityClassifier):
    n_estimators: int
    def __init__(self, *, n: int = ..., vote: str = ..., criterion: str = ..., max_depth: Optional[Any] = ..., min_samples_split: int = ..., min_samples_leaf: int = ..., max_features: Optional[Any] = ..., leaf: str = ..., splitter: str = ..., cat_smooth: float = ..., min_data_per_group: int = ..., max_cat_threshold: int = ..., cat_l2: float = ..., max_cat_to_onehot: int = ..., missing_split: str = ..., monotone: Sequence[float] = ..., beta: Optional[Any] = ..., ratio: Optional[Any] = ..., rates: Optional[Any] = ..., mode: Optional[Any] = ..., replacement: bool = ..., correct: Optional[Union[bool, str]] = ..., calibration: Optional[str] = ..., decision: Optional[str] = ..., seed: int = ..., n_jobs: Optional[int] = ..., pos_label: Any = ..., categorical_features: Optional[Union[str, Sequence[Any]]] = ..., missing: str = ..., unknown: str = ..., random_state: Optional[int] = ..., n_estimators: int = ...) -> None: ...

class BalancedForest(_RarityClassifier):
    n_estimators: int
    def __init__(self, *, n: int = ..., vote: str = ..., criterion: str = ..., max_depth: Optional[Any] = ..., min_samples_split: int = ..., min_samples_leaf: int = ..., max_features: str = ..., leaf: str = ..., splitter: str = ..., cat_smooth: float = ..., min_data_per_group: int = ..., max_cat_threshold: int = ..., cat_l2: float = ..., max_cat_to_onehot: int = ..., missing_split: str = ..., monotone: Sequence[float] = ..., correct: Optional[Union[bool, str]] = ..., calibration: Optional[str] = ..., decision: Optional[str] = ..., seed: int = ..., n_jobs: Optional[int] = ..., pos_label: Any = ..., categorical_features: Optional[Union[str, Sequence[Any]]] = ..., missing: str = ..., unknown: str = ..., random_state: Optional[int] = ..., n_estimators: int = ...) -> None: ...

class EasyEnsemble(_RarityClassifier):
    n_estimators: int
    def __init__(self, *, n: int = ..., vote: str = ..., rounds: int = ..., depth: int = ..., correct: Optional[Union[bool, str]] = ..., calibration: Optional[str] = ..., decision: Optional[str] = ..., seed: int = ..., n_jobs: Optional[int] = ..., pos_label: Any = ..., categorical_features: Optional[Union[str, Sequence[Any]]] = ..., missing: str = ..., unknown: str = ..., random_state: Optional[int] = ..., n_estimators: int = ...) -> None: ...

class RUSBoost(_RarityClassifier):
    n_estimators: int
    def __init__(self, *, n: int = ..., depth: int = ..., correct: Optional[Union[bool, str]] = ..., calibration: Optional[str] = ..., decision: Optional[str] = ..., seed: int = ..., n_jobs: Optional[int] = ..., pos_label: Any = ..., categorical_features: Optional[Union[str, Sequence[Any]]] = ..., missing: str = ..., unknown: str = ..., random_state: Optional[int] = ..., n_estimators: int = ...) -> None: ...

class GradientBoosting(_RarityClassifier):
    n_iter_: int
    def __init__(self, *, max_iter: int = ..., learning_rate: float = ..., max_leaf_nodes: int = ..., max_depth: Optional[Any] = ..., min_samples_leaf: int = ..., l2_regularization: float = ..., max_bins: int = ..., class_weight: Optional[Any] = ..., early_stopping: bool = ..., validation_fraction: float = ..., n_iter_no_change: int = ..., scale_pos_weight: Optional[Any] = ..., max_delta_step: float = ..., monotonic_cst: Optional[Any] = ..., interaction_cst: Optional[Any] = ..., monotone_method: str = ..., monotone_penalty: float = ..., correct: Optional[Union[bool, str]] = ..., calibration: Optional[str] = ..., decision: Optional[str] = ..., seed: int = ..., n_jobs: Optional[int] = ..., pos_label: Any = ..., categorical_features: Optional[Union[str, Sequence[Any]]] = ..., missing: str = ..., unknown: str = ..., random_state: Optional[int] = ...) -> None: ...

class CorrectedClassifier:
    estimator_: Any
    classes_: NDArray[Any]
    n_features_in_: int
    keep_rates_: NDArray[np.float64]
    threshold_: Optional[float]
    lambdas_: Optional[NDArray[np.float64]]
    pos_label_: Any
    sample_indices_: NDArray[np.int64]
    def __init__(self, estimator: Any = ..., sampler: Any = ..., seed: int = ..., n_jobs: Optional[int] = ..., pos_label: Any = ..., categorical_features: Optional[Union[str, Sequence[Any]]] = ..., random_state: Optional[int] = ...) -> None: ...
    def fit(self, X: Any, y: Any, sample_weight: Optional[ArrayLike] = ...) -> Any: ...
    def predict_proba(self, X: Any) -> NDArray[np.float64]: ...
    def predict(self, X: Any) -> NDArray[Any]: ...
    def score(self, X: Any, y: Any, sample_weight: Optional[ArrayLike] = ...) -> Any: ...
    def get_params(self, deep: bool = ...) -> dict[str, Any]: ...
    def set_params(self, **params: Any) -> Any: ...

class RunResult:
    ranking: Any
    verdict: dict[str, Any]
    winner: Classifier
    metric: str
    level: str
    decision_metric: str
    decisions: list[dict[str, Any]]
    def __init__(self, native: Any, winner: Any, source: Any) -> None: ...
    def folds(self) -> list[dict[str, Any]]: ...
    def to_dict(self) -> dict[str, Any]: ...
    def to_text(self) -> str: ...
    def report(self, directory: Any) -> str: ...

def run(data: Any, target: Optional[Union[str, int]] = ..., *, models: Optional[Sequence[str]] = ..., metric: str = ..., cv: Union[str, int] = ..., cost: Optional[Union[str, dict[str, float]]] = ..., benefit: Optional[Any] = ..., pos_label: Any = ..., seed: int = ..., random_state: Optional[int] = ..., n_jobs: Optional[int] = ..., decision_metric: Optional[str] = ..., pooled: bool = ..., categorical: str = ..., categorical_cols: Optional[Any] = ..., missing: str = ..., delimiter: str = ..., decimal: str = ..., header: bool = ..., drop: Optional[Any] = ..., drop_constant: bool = ...) -> RunResult: ...

class EvaluateResult:
    metrics: dict[str, Any]
    oof: Any
    def to_dict(self) -> dict[str, Any]: ...
    def to_text(self) -> str: ...

def evaluate(data: Any, target: Optional[Union[str, int]] = ..., *, model: Any, cv: Union[str, int] = ..., pooled: bool = ..., metrics: Optional[Sequence[str]] = ..., oof: bool = ..., pos_label: Any = ..., seed: int = ..., random_state: Optional[int] = ..., n_jobs: Optional[int] = ..., categorical: str = ..., categorical_cols: Optional[Any] = ..., missing: str = ..., delimiter: str = ..., decimal: str = ..., header: bool = ..., drop: Optional[Any] = ..., drop_constant: bool = ...) -> EvaluateResult: ...

class Explanation:
    spec: str
    metric: str
    higher_is_better: bool
    baseline: float
    repeats: int
    rows: int
    permutation: Any
    split_gain: Any
    def to_dict(self) -> dict[str, Any]: ...

class ModelSummary(dict[str, Any]):
    def to_dict(self) -> dict[str, Any]: ...

def explain(model: Any, X: Any, y: Any, metric: str = ..., n_repeats: int = ..., seed: int = ..., n_jobs: Optional[int] = ..., random_state: Optional[int] = ...) -> Explanation: ...
def show(model: Any) -> ModelSummary: ...

class MonitorResult:
    columns: Any
    score: dict[str, Any]
    alert_rate: dict[str, Any]
    priors: dict[str, Any]
    labelled: Optional[dict[str, Any]]
    failed: list[str]
    def to_dict(self) -> dict[str, Any]: ...
    def to_text(self) -> str: ...
    def report(self, directory: Any) -> str: ...
    def report_html(self) -> str: ...

def monitor(model: Any, reference: Any = ..., current: Any = ..., *, label: Optional[str] = ..., bins: int = ..., bootstrap: int = ..., fail_on: Optional[str] = ..., seed: int = ..., random_state: Optional[int] = ..., n_jobs: Optional[int] = ..., delimiter: str = ..., decimal: str = ...) -> MonitorResult: ...

class ResampleResult:
    X: NDArray[np.float64]
    y: NDArray[Any]
    method: str
    classes: list[str]
    before: list[int]
    after: list[int]
    keep_rates: list[float]
    synthetic_rows: int
    notes: list[str]
    def to_dict(self) -> dict[str, Any]: ...

def resample(data: Any, method: str, target: Optional[Union[str, int]] = ..., *, beta: Optional[float] = ..., ratio: Optional[float] = ..., k: Optional[int] = ..., amount: Optional[float] = ..., a: Optional[float] = ..., standardise: bool = ..., pos_label: Any = ..., seed: int = ..., random_state: Optional[int] = ..., n_jobs: Optional[int] = ..., categorical: str = ..., categorical_cols: Optional[Any] = ..., missing: str = ..., delimiter: str = ..., decimal: str = ..., header: bool = ..., drop: Optional[Any] = ..., drop_constant: bool = ...) -> ResampleResult: ...
