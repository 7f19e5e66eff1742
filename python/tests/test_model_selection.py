"""rarity.model_selection: the library's time and group folds as
scikit-learn CV splitters (``cv=`` of cross_val_score and GridSearchCV),
equal to the command line's ``--cv time(...)`` / ``group(...)`` folds."""

from __future__ import annotations

import json
import subprocess

import numpy as np
import pytest

import rarity
from rarity.model_selection import GroupFolds, TimeSeriesFolds
from conftest import imbalanced

sklearn = pytest.importorskip("sklearn")
from sklearn.model_selection import GridSearchCV, TimeSeriesSplit, cross_val_score  # noqa: E402


def test_time_folds_are_scikit_learns_when_every_time_is_distinct():
    X = np.zeros((120, 2))
    ours = [(tr.tolist(), te.tolist()) for tr, te in TimeSeriesFolds(n_splits=5).split(X)]
    theirs = [(tr.tolist(), te.tolist()) for tr, te in TimeSeriesSplit(n_splits=5).split(X)]
    assert ours == theirs


def test_time_folds_follow_the_times_and_never_cut_a_time():
    rng = np.random.default_rng(3)
    times = rng.integers(0, 40, size=300).astype(float)
    X, y = imbalanced(n=300, seed=4)
    folds = list(TimeSeriesFolds(n_splits=4).split(X, y, groups=times))
    assert len(folds) == 4
    for train, test in folds:
        assert times[train].max() < times[test].min()
    # The column of a table works as groups= does.
    pd = pytest.importorskip("pandas")
    df = pd.DataFrame({"t": times, "x": X[:, 0]})
    by_col = list(TimeSeriesFolds(n_splits=4, col="t").split(df, y))
    assert all((a[0] == b[0]).all() and (a[1] == b[1]).all() for a, b in zip(folds, by_col))


def test_group_folds_keep_groups_apart_in_cross_val_score_and_grid_search():
    X, y = imbalanced(n=400, seed=5)
    groups = np.repeat(np.arange(40), 10)
    cv = GroupFolds(n_splits=4, seed=1)
    for train, test in cv.split(X, y, groups):
        assert not set(groups[train]) & set(groups[test])
        assert 90 <= len(test) <= 110
    scores = cross_val_score(rarity.Classifier("logistic"), X, y, cv=cv, groups=groups, scoring="roc_auc")
    assert scores.shape == (4,) and (scores > 0.6).all()
    search = GridSearchCV(rarity.Classifier("tree"), {"spec": ["tree(max_depth=2)", "gnb"]}, cv=cv, scoring="roc_auc")
    search.fit(X, y, groups=groups)
    assert search.best_params_["spec"] in ("tree(max_depth=2)", "gnb")
    # Same seed, same folds; string groups in the same order work as numbers do.
    again = [te.tolist() for _, te in GroupFolds(n_splits=4, seed=1).split(X, y, [f"g{g:02d}" for g in groups])]
    assert sorted(again) == sorted(te.tolist() for _, te in cv.split(X, y, groups))


def test_the_same_folds_as_the_command_line(cli, tmp_path):
    n = 200
    day = np.arange(n) // 4
    X, y = imbalanced(n=n, d=2, seed=6)
    csv = tmp_path / "d.csv"
    with open(csv, "w") as f:
        f.write("day,x0,x1,y\n")
        for i in range(n):
            f.write(f"{day[i]},{float(X[i, 0])!r},{float(X[i, 1])!r},{y[i]}\n")
    oof = tmp_path / "oof.csv"
    subprocess.run(
        [cli, "--quiet", "evaluate", str(csv), "--target", "y", "-m", "gnb", "--cv", "time(col=day, folds=4)",
         "--oof", str(oof), "--format", "json"],
        check=True, capture_output=True,
    )
    rows = [line.split(",") for line in oof.read_text().splitlines()[1:]]
    cli_tests = [sorted(int(r[0]) for r in rows if int(r[2]) == f) for f in range(4)]
    ours = [te.tolist() for _, te in TimeSeriesFolds(n_splits=4).split(X, y, groups=day)]
    assert ours == cli_tests


def test_bad_input_raises_value_errors_with_the_librarys_message():
    X, y = np.zeros((10, 1)), np.array([0, 1] * 5)
    with pytest.raises(ValueError, match="finite"):
        list(TimeSeriesFolds(n_splits=2).split(X, y, groups=[0, 1, 2, np.nan, 4, 5, 6, 7, 8, 9]))
    with pytest.raises(ValueError, match="distinct value"):
        list(TimeSeriesFolds(n_splits=3).split(X, y, groups=[0] * 5 + [1] * 5))
    with pytest.raises(ValueError, match="1 group"):
        list(GroupFolds(n_splits=2).split(X, y, groups=["a"] * 10))
    with pytest.raises(ValueError, match="needs the groups"):
        list(GroupFolds().split(X, y))
    with pytest.raises(ValueError, match="folds=1 is invalid"):
        list(GroupFolds(n_splits=1).split(X, y, groups=list(range(10))))
    with pytest.raises(ValueError, match="numbers or datetimes"):
        list(TimeSeriesFolds(n_splits=2).split(X, y, groups=list("abcdefghij")))
    with pytest.raises(ValueError, match="3 time values for 10 rows"):
        list(TimeSeriesFolds(n_splits=2).split(X, y, groups=[1, 2, 3]))


def test_run_reads_datetimes_iso_text_and_text_ids_as_the_cv_column(tmp_path):
    """``rarity.run(cv="time(...)" / "group(...)")`` on a table whose column
    holds datetimes, ISO 8601 text or text ids (more than one-hot's 50)
    gives the results of the same column as numbers, from a table and from
    a file."""
    pd = pytest.importorskip("pandas")
    n = 400
    X, y = imbalanced(n=n, d=2, seed=8)
    day = np.arange(n) // 5
    card = np.arange(n) % 80
    base = pd.DataFrame({"x0": X[:, 0], "x1": X[:, 1], "y": y})
    models = ["gnb", "logistic"]

    def scores(df, cv):
        res = rarity.run(df, target="y", models=models, cv=cv, seed=3)
        table = res.ranking
        rows = table.to_dict("records") if hasattr(table, "to_dict") else table.to_dicts()
        return sorted((r["strategy"], r["average_precision"], r["average_precision_std"]) for r in rows)

    time_cv, group_cv = "time(col=day, folds=4)", "group(col=card, folds=4)"
    want_time = scores(base.assign(day=day), time_cv)
    stamps = pd.Timestamp("2024-02-20") + pd.to_timedelta(day, unit="D")
    assert scores(base.assign(day=stamps), time_cv) == want_time
    iso = base.assign(day=stamps.strftime("%Y-%m-%dT%H:%M:%S"))
    assert scores(iso, time_cv) == want_time
    want_group = scores(base.assign(card=card), group_cv)
    ids = base.assign(card=[f"card-{c:03d}" for c in card])
    assert scores(ids, group_cv) == want_group
    path = tmp_path / "ids.csv"
    ids.to_csv(path, index=False)
    assert scores(str(path), group_cv) == want_group
    with pytest.raises(ValueError, match="neither a number nor an ISO 8601 date"):
        rarity.run(base.assign(day=["31/01/2024"] * n), target="y", models=models, cv=time_cv)
    with pytest.raises(ValueError, match="time column 'dy' is not a column"):
        rarity.run(base.assign(day=day), target="y", models=models, cv="time(col=dy)")
