# Type stubs of rarity.datasets, written by `python -m rarity._stubs`; do not edit.
from typing import Any, Optional, Sequence, Union

import numpy as np
from numpy.typing import ArrayLike, NDArray

__all__: list[str]

def names() -> list[str]: ...
def describe() -> list[tuple[str, str, str]]: ...
def load(name: Any, as_frame: bool = ...) -> tuple[Any, Any]: ...
