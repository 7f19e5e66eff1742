"""scikit-learn's estimator contract, with or without scikit-learn.

When scikit-learn is installed, rarity's estimators derive from its
``BaseEstimator`` and ``ClassifierMixin`` (so ``clone``, ``get_params``,
``set_params``, pipelines, grid searches and the estimator checks apply).
Without it, the same names provide ``get_params``, ``set_params``, ``score``
and the not-fitted error, read from each class's ``__init__`` signature as
scikit-learn reads them.
"""

from __future__ import annotations

import inspect

import numpy as np

try:  # scikit-learn is optional
    from sklearn.base import BaseEstimator, ClassifierMixin
    from sklearn.exceptions import DataConversionWarning, NotFittedError

    HAVE_SKLEARN = True
except ImportError:  # pragma: no cover - exercised without scikit-learn
    HAVE_SKLEARN = False

    class NotFittedError(ValueError, AttributeError):
        """Raised when a method needs a fitted estimator."""

    class DataConversionWarning(UserWarning):
        """A column-vector ``y`` was given where a 1-d array was expected."""

    class BaseEstimator:
        """Parameters read from the ``__init__`` signature (scikit-learn's rule)."""

        @classmethod
        def _get_param_names(cls):
            sig = inspect.signature(cls.__init__)
            return sorted(
                p.name
                for p in sig.parameters.values()
                if p.name != "self" and p.kind != p.VAR_KEYWORD
            )

        def get_params(self, deep=True):
            out = {}
            for key in self._get_param_names():
                value = getattr(self, key)
                if deep and hasattr(value, "get_params") and not isinstance(value, type):
                    out.update((f"{key}__{k}", v) for k, v in value.get_params().items())
                out[key] = value
            return out

        def set_params(self, **params):
            valid = self._get_param_names()
            for key, value in params.items():
                key, _, sub = key.partition("__")
                if key not in valid:
                    raise ValueError(
                        f"invalid parameter {key!r} for {type(self).__name__}; "
                        f"valid parameters: {', '.join(valid)}"
                    )
                if sub:
                    getattr(self, key).set_params(**{sub: value})
                else:
                    setattr(self, key, value)
            return self

        def __repr__(self):
            args = ", ".join(f"{k}={v!r}" for k, v in self.get_params(deep=False).items())
            return f"{type(self).__name__}({args})"

    class ClassifierMixin:
        """``score``: the accuracy of ``predict``."""

        _estimator_type = "classifier"

        def score(self, X, y, sample_weight=None):
            y = np.asarray(y)
            hit = (self.predict(X) == y).astype(float)
            return float(np.average(hit, weights=sample_weight))


def check_fitted(est, attribute="model_"):
    """Raises ``NotFittedError`` unless ``est`` has been fitted."""
    if not hasattr(est, attribute):
        raise NotFittedError(
            f"This {type(est).__name__} instance is not fitted yet. Call 'fit' "
            "with appropriate arguments before using this estimator."
        )


def clone(est):
    """scikit-learn's ``clone`` when installed, else a fresh copy with the same parameters."""
    if HAVE_SKLEARN:
        from sklearn.base import clone as sk_clone

        return sk_clone(est)
    return type(est)(**est.get_params(deep=False))
