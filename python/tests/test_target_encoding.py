"""``categorical="target"`` (issue 41 item 3): a data file's text columns
read as level codes, and every strategy without an ``encode(...)`` stage
fits ``encode(target)`` first, as ``rarity evaluate --categorical target``
does; a learner without native categorical splits (logistic) can then use
them."""

from __future__ import annotations

import pytest

import rarity
from test_jobs import _cli_json, shops_csv


@pytest.fixture
def shops(tmp_path):
    return shops_csv(tmp_path / "shops.csv", seed=8, rows=900, levels=120, risky_every=6)


def test_evaluate_encodes_a_files_categories_as_the_command_line(cli, shops):
    spec = "under(beta=0.3)+logistic+correct"
    want = _cli_json(cli, "--seed", "3", "evaluate", str(shops), "-m", spec, "--cv", "3",
                     "--categorical", "target")
    got = rarity.evaluate(str(shops), model=spec, cv="3", seed=3, categorical="target").to_dict()
    for k in ("fit_seconds", "predict_seconds"):
        want.pop(k), got.pop(k)
    assert got == want
    # The shops carry the signal: the encoded column is worth something.
    assert got["metrics"]["roc_auc"]["mean"] > 0.7
    # The flag's stage is encode(target) itself.
    explicit = rarity.evaluate(str(shops), model=f"encode(target)+{spec}", cv="3", seed=3,
                               categorical="native").to_dict()
    assert explicit["metrics"] == got["metrics"]


def test_run_takes_categorical_target_and_the_winner_holds_the_tables(shops):
    res = rarity.run(str(shops), models=["logistic", "forest(n=5)"], cv="1x3", categorical="target")
    # (and the priors copy of logistic, calibrated, deciding at 0.5)
    assert {"logistic", "forest(n=5)"} <= set(res.ranking["strategy"])
    # Whichever won, its model file holds the level table.
    assert "shop (120 levels) -> shop=p(p)" in rarity.show(res.winner)["encoding"]


def test_bad_categorical_values_name_target():
    with pytest.raises(ValueError, match="native or target"):
        rarity.evaluate("no-such-file.csv", model="logistic", categorical="targets")
