# Type stubs of rarity.select, written by `python -m rarity._stubs`; do not edit.
from typing import Any, Optional, Sequence, Union

import numpy as np
from numpy.typing import ArrayLike, NDArray

__all__: list[str]

def select(learners: Union[str, Sequence[str]], X_train: Any, y_train: Any, X_target: Any, *, method: str = ..., variant: str = ..., metric: str = ..., benefit: Optional[Any] = ..., y_target: Optional[Any] = ..., seed: int = ..., random_state: Optional[int] = ..., n_jobs: Optional[int] = ..., pos_label: Any = ..., missing: str = ...) -> Selection: ...
def reverse_testing(learners: Union[str, Sequence[str]], X_train: Any, y_train: Any, X_target: Any, *, method: str = ..., variant: str = ..., metric: str = ..., benefit: Optional[Any] = ..., y_target: Optional[Any] = ..., seed: int = ..., random_state: Optional[int] = ..., n_jobs: Optional[int] = ..., pos_label: Any = ..., missing: str = ...) -> Selection: ...
class Selection(dict[str, Any]): ...
