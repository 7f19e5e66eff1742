""":func:`resample`: a sampler's draw on a dataset, as ``rarity resample``
draws and reports it (the same library request and call,
``rarity::job::resample``): the sample and the class counts before and
after. The samplers of :mod:`rarity.sampling` are the same draws under
imbalanced-learn's ``fit_resample``.
"""

from __future__ import annotations

import copy

import numpy as np

from . import _html, _rarity
from . import _validation as V
from ._declared import Job
from ._docs import sections
from ._run import READ_PARAMS, _data, _missing

DECLARED = Job("resample")
_D = DECLARED.defaults

__all__ = ["resample", "ResampleResult"]


class ResampleResult:
    """What :func:`resample` drew.

    Attributes
    ----------
    X : ndarray of shape (n_rows, n_features), or table
        The sample's features (encoded as rarity encodes them: a one-hot
        column is its 0/1 features, a categorical column level codes). From
        a pandas, polars or pyarrow table with categorical columns
        (``categorical="native"`` or ``categorical_cols=``): a table of the
        same kind and feature columns, each categorical column in the
        input's dtype and every value a level of the input (a synthetic
        row's is SMOTE-NC's vote).
    y : ndarray of shape (n_rows,)
        The sample's labels (the input's labels; class names for a file).
    method : str
        The sampler's spec with every parameter.
    classes : list of str
        rarity's class names, in class order.
    before, after : list of int
        Rows of each class before and in the sample.
    keep_rates : list of float
        Per class, rows in the sample over rows before.
    synthetic_rows : int
        Synthetic rows made.
    notes : list of str
        Things the sampler wants you to know.

    Examples
    --------
    >>> import rarity
    >>> X, y = rarity.datasets.load("ecoli4")
    >>> r = rarity.resample((X, y), "under", beta=0.5)
    >>> r.to_dict()["synthetic_rows"], r.X.shape[0] == sum(r.after)
    (0, True)
    """

    def __init__(self, summary, X, y):
        self._raw = summary
        self.X, self.y = X, y
        for key in ("method", "classes", "before", "after", "keep_rates", "synthetic_rows", "notes"):
            setattr(self, key, summary[key])

    def to_dict(self):
        """The result as ``rarity resample --format json`` prints it
        (``output`` is None: nothing was written).

        Returns
        -------
        dict
        """
        return copy.deepcopy(self._raw)

    def _repr_html_(self):
        rows = [[c, b, a, r] for c, b, a, r in zip(self.classes, self.before, self.after, self.keep_rates)]
        parts = [_html.table(["class", "before", "after", "keep rate"], rows,
                             f"{self.method} ({self.synthetic_rows} synthetic rows)")]
        parts += [_html.paragraph(f"note: {n}") for n in self.notes]
        return "".join(parts)

    def __repr__(self):
        return f"ResampleResult(method={self.method!r}, before={self.before!r}, after={self.after!r})"


@sections(read=READ_PARAMS, declared=DECLARED.docs())
def resample(
    data, method, target=None, *, beta=_D["beta"], ratio=_D["ratio"], k=_D["k"], amount=_D["amount"],
    a=_D["a"], standardise=_D["standardise"], pos_label=None, seed=42, random_state=None, n_jobs=None, categorical="error",
    categorical_cols=None,
    missing="auto",
    delimiter=",", decimal=".", header=True, drop=None, drop_constant=False,
):
    """Draws a sampler on a dataset: ``rarity resample``.

    Parameters
    ----------
    data : table, path or (X, y)
        As for :func:`rarity.run`: a table holding the target column, a data
        file, or a pair ``(X, y)``.
    %(declared)s
    target : str or int, default=None
        The target column of a table or file; default: the last.
    pos_label : label, default=None
        The positive class (binary; default: the minority).
    seed : int, default=42
        Seed of the draw (``rarity resample --seed``).
    random_state : int, default=None
        scikit-learn's name for ``seed``, an alias: when given, it is the seed.
    n_jobs : int, default=None
        Threads: ``None`` or ``-1`` every core.
    categorical : {"error", "one-hot", "native", "target"}, default="error"
        How text and category columns are read (``--categorical``):
        ``"native"`` keeps each as one feature of level codes, which the
        neighbour-based samplers compare by level (SMOTE-NC's distance,
        Chawla et al. 2002, section 6.1) and SMOTE's kin never interpolate.
    categorical_cols : list of str, default=None
        Columns read as categorical whatever their values
        (``--categorical-cols``).
    missing : {"auto", "keep", "drop", "error"}, default="auto"
        Missing values, as ``rarity resample --missing``: kept (NaN) for a
        sampler that draws by class alone (under, over, the bootstrap,
        EB/RB), dropped with their rows for one that measures distances
        (``"auto"``), or refused.
    %(read)s

    Returns
    -------
    ResampleResult
        The resampled rows and labels, with the class counts before and
        after.

    Examples
    --------
    >>> import rarity
    >>> X, y = rarity.datasets.load("ecoli4")
    >>> r = rarity.resample((X, y), "under", beta=0.5)
    >>> r.after[1] == r.before[1], len(r.y) == sum(r.after)
    (True, True)
    """
    if not isinstance(method, str):
        raise ValueError(f"method={method!r} is invalid; expected a sampler name or spec such as 'smote(k=5)'")
    n_jobs = V.n_jobs_of(n_jobs)
    seed = V.seed_of(seed, random_state)
    policy = _missing(missing, "sampler", [method])
    native, _, lab = _data(
        data, target, pos_label, n_jobs, categorical=categorical, categorical_cols=categorical_cols,
        missing=policy, who="rarity.resample", reader=dict(delimiter=delimiter, decimal=decimal, header=header, drop=drop, drop_constant=drop_constant),
    )
    params = DECLARED.texts(dict(method=method, beta=beta, ratio=ratio, k=k, amount=amount, a=a,
                                 standardise=standardise))
    summary, sample = _rarity.resample_job(native, params, seed, n_jobs)
    X, codes = _rarity.dataset_arrays(sample)
    if lab is None:
        y = np.asarray(summary["classes"], dtype=object)[codes]
    else:
        y = lab.classes_[lab.from_rarity[codes]]
    if lab is not None and native.has_categorical and not isinstance(data, tuple):
        if native.rows_dropped_:
            raise ValueError(
                "rarity.resample: the table has categorical columns and rows dropped for missing "
                "values, whose levels cannot be copied back; drop those rows first"
            )
        X = _levels_table(data, target, native, summary["method"], seed, n_jobs)
    return ResampleResult(summary, X, y)


def _levels_table(data, target, native, spec, seed, n_jobs):
    """The sample of a table with categorical columns as a table of its kind
    (the same draw: the full spec on the same stream, as a sampler class
    draws it), its levels copied from the input's rows."""
    from ._run import _split_target
    from .sampling import _resample_outputs

    X, y, _ = _split_target(data, target)
    drawn = _rarity.resample(spec, native, seed, n_jobs)
    lab = V.labels(y, None)
    X_res, _ = _resample_outputs(X, drawn, np.asarray(drawn.rows, dtype=np.int64), lab, native, n_jobs)
    return X_res
