"""Writes tests/fixtures/imblearn_samplers.json: imbalanced-learn 0.14.2's
own test inputs for its deterministic samplers, with the rows each sampler
keeps, for tests/imblearn_samplers.rs (the library's conventions) and
python/tests/test_imblearn_fixtures.py (the drop-in classes).

Inputs, copied as data:
- X, Y of imblearn/under_sampling/_prototype_selection/tests/
  test_edited_nearest_neighbours.py (also the CNN tests' data),
  test_tomek_links.py and test_nearmiss.py (module-level arrays);
- the `data` fixture of test_neighbourhood_cleaning_rule.py:
  make_classification(n_samples=200, n_features=2, n_informative=2,
  n_redundant=0, n_repeated=0, n_clusters_per_class=1, n_classes=3,
  weights=[0.1, 0.3, 0.6], random_state=0).

Expected rows: imbalanced-learn 0.14.2's `sample_indices_` on those inputs
(the same rows its tests compare against their X_gt arrays), sorted.

    pip install imbalanced-learn==0.14.2 scikit-learn
    python3 tools/gen_imblearn_fixtures.py
"""

import json
import pathlib

import imblearn
import numpy as np
from imblearn.under_sampling import (
    EditedNearestNeighbours,
    NearMiss,
    NeighbourhoodCleaningRule,
    TomekLinks,
)
from imblearn.under_sampling._prototype_selection.tests import (
    test_edited_nearest_neighbours as enn_t,
    test_nearmiss as nm_t,
    test_tomek_links as tl_t,
)
from sklearn.datasets import make_classification

assert imblearn.__version__ == "0.14.2", imblearn.__version__

SRC = "imblearn/under_sampling/_prototype_selection/tests/"
ncl_X, ncl_y = make_classification(
    n_samples=200,
    n_features=2,
    n_informative=2,
    n_redundant=0,
    n_repeated=0,
    n_clusters_per_class=1,
    n_classes=3,
    weights=[0.1, 0.3, 0.6],
    random_state=0,
)
inputs = {
    "enn": (enn_t.X, enn_t.Y, SRC + "test_edited_nearest_neighbours.py: X, Y"),
    "tomek": (tl_t.X, tl_t.Y, SRC + "test_tomek_links.py: X, Y"),
    "nearmiss": (nm_t.X, nm_t.Y, SRC + "test_nearmiss.py: X, Y"),
    "ncl": (
        ncl_X,
        ncl_y,
        SRC + "test_neighbourhood_cleaning_rule.py: the `data` fixture (make_classification, random_state=0)",
    ),
}

# (input, imbalanced-learn sampler, its constructor as text, rarity's spec)
cases = [
    ("enn", EditedNearestNeighbours(), "EditedNearestNeighbours()", "enn(k=3,rule=all,ties=lowest)"),
    ("enn", EditedNearestNeighbours(kind_sel="mode"), "EditedNearestNeighbours(kind_sel='mode')", "enn(k=3,ties=lowest)"),
    ("ncl", EditedNearestNeighbours(), "EditedNearestNeighbours()", "enn(k=3,rule=all,ties=lowest)"),
    ("ncl", EditedNearestNeighbours(kind_sel="mode"), "EditedNearestNeighbours(kind_sel='mode')", "enn(k=3,ties=lowest)"),
    ("tomek", TomekLinks(), "TomekLinks()", "tomek"),
    ("ncl", TomekLinks(), "TomekLinks()", "tomek"),
    ("ncl", NeighbourhoodCleaningRule(), "NeighbourhoodCleaningRule()", "ncl(k=3,ties=lowest,self_vote=true,strict=true)"),
    (
        "ncl",
        NeighbourhoodCleaningRule(n_neighbors=10),
        "NeighbourhoodCleaningRule(n_neighbors=10)",
        "ncl(k=10,ties=lowest,self_vote=true,strict=true)",
    ),
    ("enn", NeighbourhoodCleaningRule(), "NeighbourhoodCleaningRule()", "ncl(k=3,ties=lowest,self_vote=true,strict=true)"),
]
for v in (1, 2, 3):
    spec = "nearmiss3(k=3,k3=3)" if v == 3 else f"nearmiss{v}(k=3)"
    cases.append(("nearmiss", NearMiss(version=v), f"NearMiss(version={v})", spec))
    cases.append(("ncl", NearMiss(version=v), f"NearMiss(version={v})", spec))

out = {
    "source": f"imbalanced-learn {imblearn.__version__}",
    "inputs": {
        k: {"X": np.asarray(X).tolist(), "y": np.asarray(y).tolist(), "from": src}
        for k, (X, y, src) in inputs.items()
    },
    "cases": [],
}
for name, sampler, text, spec in cases:
    X, y, _ = inputs[name]
    sampler.fit_resample(X, y)
    out["cases"].append(
        {
            "input": name,
            "imblearn": text,
            "rarity": spec,
            "kept": sorted(int(i) for i in sampler.sample_indices_),
        }
    )

path = pathlib.Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "imblearn_samplers.json"
path.write_text(json.dumps(out, indent=1) + "\n")
print(f"wrote {path}: {len(out['cases'])} cases")
