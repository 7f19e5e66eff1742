"""Calibrated probabilities: undoing the prior shift of any sampler, moving
to new priors, estimating unknown priors, Platt scaling and isotonic
regression (rarity's ``calibrate`` and ``decide`` modules).

- :func:`correct`: a model trained on a sample that kept class ``k`` at rate
  ``r_k`` estimates ``p_s,k(x) ∝ r_k p_k(x)``, so ``p_k ∝ p_s,k / r_k``; for
  undersampling the negatives at rate beta this is Dal Pozzolo et al.
  (2015) eq. 9, ``p = beta p_s / (beta p_s - p_s + 1)``.
- :func:`corrected_threshold`: eq. 12, the threshold on corrected
  probabilities that gives the labels ``tau_s`` gave on the sample's.
- :func:`adjust_to_priors`: Saerens et al. (2002), the appendix's eq. 14,
  ``p_t,k ∝ (pi_t,k / pi_s,k) p_s,k``.
- :func:`em_priors`: Saerens' EM estimate of unknown test priors.
- :func:`recalibrate`: ``rarity calibrate`` on probabilities (the same
  library request): undo keep rates, move to given or EM-estimated priors,
  and the threshold giving the same labels.
- :class:`Platt`, :class:`Isotonic`: binary calibrators (Platt 1999 with
  Lin, Lin & Weng's Newton method; pool-adjacent-violators with
  scikit-learn's ``IsotonicRegression`` conventions).
"""

from __future__ import annotations

import numpy as np

from . import _rarity

__all__ = ["correct", "corrected_threshold", "adjust_to_priors", "em_priors", "recalibrate", "Platt", "Isotonic"]


def _proba(p):
    """``(matrix, was_1d)``: a 1-d positive-class probability becomes two columns."""
    a = np.asarray(p, dtype=np.float64)
    if a.ndim == 1:
        return np.ascontiguousarray(np.column_stack([1.0 - a, a])), True
    if a.ndim != 2:
        raise ValueError(f"probabilities must be 1-d (positive class) or 2-d (one column per class); got shape {a.shape}")
    return np.ascontiguousarray(a), False


def _out(m, was_1d):
    return m[:, 1] if was_1d else m


def correct(proba, keep_rates):
    """Undoes a sample's prior shift: ``p_k ∝ p_s,k / r_k`` (eq. 9 generalised).

    Parameters
    ----------
    proba : array-like of shape (n_samples,) or (n_samples, n_classes)
        Probabilities of a model trained on the sample: of the positive
        class (1-d, two classes) or of every class.
    keep_rates : array-like of shape (n_classes,)
        Per class, rows in the sample over rows in the population (for
        binary undersampling at rate beta: ``[beta, 1]``).

    Returns
    -------
    ndarray, same shape as ``proba``
        The probabilities in the population the sample was drawn from.

    Examples
    --------
    >>> from rarity.calibration import correct
    >>> beta, ps = 0.2, 0.6
    >>> abs(float(correct([ps], [beta, 1.0])[0]) - beta * ps / (beta * ps - ps + 1)) < 1e-15
    True
    """
    m, one = _proba(proba)
    return _out(_rarity.correct(m, [float(r) for r in keep_rates]), one)


def corrected_threshold(tau_s, beta):
    """Eq. 12: the threshold for corrected probabilities equivalent to ``tau_s``
    on the sample's (``tau' = beta tau_s / ((beta - 1) tau_s + 1)``).

    Parameters
    ----------
    tau_s : float
        Threshold on the sample's probability, in [0, 1].
    beta : float
        The negatives' keep rate over the positives' (``r_0 / r_1``).

    Returns
    -------
    float
        The threshold on the corrected probabilities.

    Examples
    --------
    >>> from rarity.calibration import corrected_threshold
    >>> round(corrected_threshold(0.5, 0.1), 6)
    0.090909
    """
    return _rarity.corrected_threshold(float(tau_s), float(beta))


def adjust_to_priors(proba, train_priors, target_priors):
    """Moves probabilities from ``train_priors`` to ``target_priors`` (eq. 14).

    Parameters
    ----------
    proba : array-like of shape (n_samples,) or (n_samples, n_classes)
    train_priors, target_priors : array-like of shape (n_classes,)

    Returns
    -------
    ndarray, same shape as ``proba``
        The probabilities under ``target_priors``.

    Examples
    --------
    >>> from rarity.calibration import adjust_to_priors
    >>> round(float(adjust_to_priors([0.5], [0.5, 0.5], [0.9, 0.1])[0]), 12)
    0.1
    """
    m, one = _proba(proba)
    return _out(_rarity.adjust_to_priors(m, list(map(float, train_priors)), list(map(float, target_priors))), one)


def em_priors(proba, train_priors, tol=1e-6, max_iter=1000):
    """Saerens, Latinne & Decaestecker's EM estimate of unknown test priors.

    Parameters
    ----------
    proba : array-like of shape (n_samples,) or (n_samples, n_classes)
        Posteriors (under ``train_priors``) of unlabelled rows.
    train_priors : array-like of shape (n_classes,)
    tol : float, default=1e-6
        Stop when no prior moves by more than this.
    max_iter : int, default=1000

    Returns
    -------
    priors : ndarray of shape (n_classes,)
        The estimated priors.
    adjusted : ndarray, same shape as ``proba``
        The posteriors adjusted to them.
    iterations : int
    converged : bool

    Examples
    --------
    >>> from rarity.calibration import em_priors
    >>> p = [0.9] * 20 + [0.02] * 80
    >>> priors, adjusted, it, ok = em_priors(p, [0.5, 0.5], tol=1e-10)
    >>> ok and bool(priors[1] < 0.2)
    True
    """
    m, one = _proba(proba)
    priors, adjusted, it, ok = _rarity.em_priors(m, list(map(float, train_priors)), float(tol), int(max_iter))
    return np.asarray(priors), _out(adjusted, one), it, ok


def recalibrate(
    proba, *, beta=None, keep_rates=None, to_priors=None, em=False, train_priors=None, threshold=0.5,
    classes=None,
):
    """``rarity calibrate`` on probabilities: undo a sample's keep rates
    (eq. 9), move to other priors (eq. 14) or to the priors Saerens' EM
    estimates from these rows, and label them at the threshold that gives
    the same labels (eq. 12). The same library request as the command.

    Parameters
    ----------
    proba : array-like of shape (n_samples,) or (n_samples, n_classes)
        The model's probabilities (1-d: the positive class's).
    beta : float, default=None
        The negatives were undersampled at this rate (binary; keep rates ``beta, 1``).
    keep_rates : array-like of shape (n_classes,), default=None
        Per class, the rate at which the training sample kept it.
    to_priors : array-like of shape (n_classes,), default=None
        Move the (corrected) probabilities to these priors.
    em : bool, default=False
        Move them to the priors EM estimates from these rows.
    train_priors : array-like of shape (n_classes,), default=None
        The priors the (corrected) probabilities are under; needed by
        ``to_priors`` and ``em``.
    threshold : float, default=0.5
        Binary: the threshold on the input whose equivalent decides the labels.
    classes : list of str, default=None
        The class names the result lists (default ``"0"``, ``"1"``, ...).

    Returns
    -------
    dict
        ``rarity calibrate --format json``'s fields (``rows``, ``classes``,
        ``keep_rates``, ``target_priors``, ``em_iterations``,
        ``em_converged``, ``input_threshold``, ``threshold``; ``output`` None)
        plus ``proba`` (same shape as the input) and ``labels`` (class ids).

    Examples
    --------
    >>> from rarity.calibration import recalibrate
    >>> r = recalibrate([0.9] * 20 + [0.2] * 80, em=True, train_priors=[0.5, 0.5])
    >>> r["em_converged"], bool(r["target_priors"][1] < 0.3), r["proba"].shape
    (True, True, (100,))
    """
    m, one = _proba(proba)
    floats = lambda v: None if v is None else [float(x) for x in v]  # noqa: E731
    names = [str(c) for c in classes] if classes is not None else [str(k) for k in range(m.shape[1])]
    out, p, labels = _rarity.calibrate_job(
        m, names, None if beta is None else float(beta), floats(keep_rates), floats(to_priors), bool(em),
        floats(train_priors), float(threshold),
    )
    out["proba"] = _out(p, one)
    out["labels"] = labels
    return out


def _binary(y):
    y = np.asarray(y)
    if y.dtype == bool:
        return y.tolist()
    u = np.unique(y)
    if len(u) > 2:
        raise ValueError(f"calibration targets must be binary; y has {len(u)} labels")
    return (y == u[-1]).tolist() if len(u) == 2 else (y == 1).tolist()


class Platt:
    """Platt scaling: ``p = 1 / (1 + exp(a f + b))`` fitted on scores ``f``.

    Attributes
    ----------
    a_, b_ : float
        The fitted slope and intercept.

    Examples
    --------
    >>> from rarity.calibration import Platt
    >>> f = [0.1, 0.2, 0.3, 0.4, 0.6, 0.7, 0.8, 0.9]
    >>> y = [0, 0, 1, 0, 1, 0, 1, 1]
    >>> p = Platt().fit(f, y)
    >>> bool(p.predict([0.9])[0] > p.predict([0.1])[0])
    True
    """

    def fit(self, scores, y):
        """Fits on scores and binary targets (the larger label is positive)."""
        self.a_, self.b_ = _rarity.platt_fit(list(map(float, scores)), _binary(y))
        return self

    def predict(self, scores):
        """Calibrated probabilities of ``scores``."""
        return _rarity.platt_apply(self.a_, self.b_, np.ascontiguousarray(scores, dtype=np.float64))


class Isotonic:
    """Isotonic regression of binary targets on scores (non-decreasing, linear
    between knots, clipped outside them).

    Examples
    --------
    >>> from rarity.calibration import Isotonic
    >>> iso = Isotonic().fit([1.0, 2.0, 3.0, 4.0], [0, 1, 0, 1])
    >>> iso.predict([1.0, 2.5, 9.0]).tolist()
    [0.0, 0.5, 1.0]
    """

    def fit(self, scores, y, sample_weight=None):
        """Fits on scores and binary targets (the larger label is positive)."""
        w = None if sample_weight is None else list(map(float, sample_weight))
        self.knots_ = _rarity.isotonic_fit(list(map(float, scores)), _binary(y), w)
        return self

    def predict(self, scores):
        """Calibrated probabilities of ``scores``."""
        return _rarity.isotonic_apply(self.knots_, np.ascontiguousarray(scores, dtype=np.float64))
