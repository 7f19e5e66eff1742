"""Python's jobs take every reader option the command line takes
(``--delimiter``, ``--decimal``, ``--no-header``, ``--drop``,
``--drop-constant``), parsed by the library's one reading request, with
the command line's results and the front end's own spelling in errors."""

from __future__ import annotations

import json
import subprocess

import numpy as np
import pytest

import rarity
from conftest import imbalanced


def _european(tmp_path, header=True):
    """A `;`-separated CSV with decimal commas, an id column and a
    constant column: the same table as a plain CSV."""
    X, y = imbalanced(n=300, d=2)
    plain = tmp_path / "plain.csv"
    euro = tmp_path / "euro.csv"
    rows = [(f"r{i}", float(X[i, 0]), float(X[i, 1]), int(y[i])) for i in range(len(y))]
    plain.write_text("a,b,class\n" + "".join(f"{a!r},{b!r},{c}\n" for _, a, b, c in rows))
    head = "id;a;b;k;class\n" if header else ""
    euro.write_text(
        head + "".join(f"{i};{repr(a).replace('.', ',')};{repr(b).replace('.', ',')};7;{c}\n" for i, a, b, c in rows)
    )
    return plain, euro


def test_a_european_csv_reads_as_the_plain_one(tmp_path):
    plain, euro = _european(tmp_path)
    kw = dict(delimiter=";", decimal=",", drop=["id"], drop_constant=True)
    want = rarity.evaluate(plain, model="tree(max_depth=3)", cv="3")
    got = rarity.evaluate(euro, model="tree(max_depth=3)", cv="3", **kw)
    assert got.to_dict()["metrics"] == want.to_dict()["metrics"]
    r = rarity.resample(euro, "under(beta=0.5)", **kw)
    assert r.before == rarity.resample(plain, "under(beta=0.5)").before and r.X.shape[1] == 2
    run = rarity.run(euro, models=["tree"], cv="1x3", **kw)
    assert run.to_dict()["ranking"] == rarity.run(plain, models=["tree"], cv="1x3").to_dict()["ranking"]


def test_no_header_names_the_columns_x0_and_on(tmp_path):
    _, euro = _european(tmp_path, header=False)
    r = rarity.evaluate(euro, model="tree", cv="3", delimiter=";", decimal=",", header=False, drop=["x0", "x3"])
    assert r.to_dict()["model"] == "tree"
    with pytest.raises(ValueError, match="x9"):
        rarity.evaluate(euro, model="tree", cv="3", delimiter=";", decimal=",", header=False, drop="x9")


def test_python_equals_the_command_line(cli, tmp_path):
    _, euro = _european(tmp_path)
    out = subprocess.run(
        [cli, "--quiet", "evaluate", str(euro), "--model", "tree(max_depth=2)", "--cv", "3", "--delimiter", ";",
         "--decimal", ",", "--drop", "id", "--drop-constant", "--format", "json"],
        check=True, capture_output=True, text=True,
    ).stdout
    got = rarity.evaluate(euro, model="tree(max_depth=2)", cv="3", delimiter=";", decimal=",", drop=["id"],
                          drop_constant=True)
    assert got.to_dict()["metrics"] == json.loads(out)["metrics"]


def test_a_tab_delimiter_is_spelled_tab(tmp_path):
    X, y = imbalanced(n=200, d=2)
    p = tmp_path / "t.tsv"
    p.write_text("a\tb\tclass\n" + "".join(f"{X[i, 0]}\t{X[i, 1]}\t{y[i]}\n" for i in range(len(y))))
    r = rarity.resample(p, "under", delimiter="tab")
    assert sorted(r.before) == sorted(np.bincount(y).tolist()) and r.X.shape == (r.X.shape[0], 2)


@pytest.mark.parametrize(
    "kw, message",
    [
        (dict(delimiter=";;"), "delimiter must be one ASCII character or 'tab', got ';;'"),
        (dict(decimal=";"), "decimal must be '.' or ',', got ';'"),
        (dict(header="no"), "header='no' is invalid; expected True or False"),
        (dict(categorical="codes"), "categorical='codes' is invalid; expected error, one-hot, native or target"),
        (dict(categorical_cols=["=native"]), "categorical_cols '=native' names no column"),
        (dict(categorical_cols=["shop=codes"]), "the mode of column 'shop' must be native"),
    ],
)
def test_bad_reader_options_name_the_keyword(kw, message, tmp_path):
    plain, _ = _european(tmp_path)
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        rarity.evaluate(plain, model="tree", cv="3", **kw)


def test_a_table_refuses_what_only_a_file_has():
    X, y = imbalanced(n=100, d=2)
    with pytest.raises(ValueError, match="delimiter=';' applies to a data file"):
        rarity.evaluate((X, y), model="tree", cv="3", delimiter=";")
    with pytest.raises(ValueError, match="drop applies to a data file"):
        rarity.run((X, y), models=["tree"], cv="1x3", drop=["a"])
    # A table's COL=MODE entries are parsed by the same request.
    with pytest.raises(ValueError, match="categorical_cols '=native' names no column"):
        rarity.evaluate((X, y), model="tree", cv="3", categorical_cols=["=native"])
