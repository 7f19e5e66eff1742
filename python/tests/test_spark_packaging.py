"""Shipping rarity to Spark's executors in a packed virtual environment
(docs/SPARK.md, "Shipping the package to a cluster"), through
``spark-submit`` in a subprocess.

The environment is a virtual environment holding the package as pip
installed it from the wheel built from this checkout (copied from the test
environment, with numpy and pyarrow: no download, no build), packed as a
tar archive and given to ``spark.archives`` as ``env.tar#environment``.
The executors' Python is ``PYSPARK_PYTHON=./environment/bin/python``:
Spark unpacks the archive in each executor's working directory, and the job
reports from its tasks the interpreter and the ``rarity`` they ran, which
must be the shipped ones, then scores rows with :func:`rarity.spark.predict`.

The master is ``local-cluster[1,2,512]`` (a master, a worker and an executor
JVM on this machine), not ``local[2]``: local mode unpacks the archive into
the SparkFiles directory but starts the Python workers in the driver's
working directory, where ``./environment/bin/python`` does not exist. The
archive is a ``.tar.gz`` of a ``venv --copies``: Spark unpacks a plain
``.tar`` without the executable bits, and refuses a symlink that points out
of the archive (a venv's ``bin/python`` by default). Skipped, with the
reason, without pyspark or Java.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import tarfile
from pathlib import Path

import pytest

pyspark = pytest.importorskip("pyspark", reason="pyspark is not installed (pip install ./python[spark])")
if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
    pytest.skip(
        "Java is not installed: Spark needs a Java 17 runtime (Debian: openjdk-17-jre-headless)",
        allow_module_level=True,
    )

JOB = '''
import json, sys
from pyspark.sql import SparkSession
from rarity import spark as rs

spark = SparkSession.builder.appName("rarity-shipped").getOrCreate()

def where(batches):
    import os, sys
    import pyarrow as pa
    import rarity
    for b in batches:
        yield pa.RecordBatch.from_arrays(
            [pa.array([sys.executable]), pa.array([sys.prefix]), pa.array([os.path.realpath(rarity.__file__)])],
            names=["exe", "prefix", "rarity"])

seen = spark.range(8, numPartitions=4).mapInArrow(where, "exe string, prefix string, rarity string").collect()
df = spark.range(4000).selectExpr(
    "id", "CAST(id % 40 = 0 AS INT) AS y", "CAST(id % 40 = 0 AS INT) + CAST(id % 7 AS DOUBLE) / 7 AS x")
model = rs.fit(df, "tree(max_depth=2)", label="y", features=["x"])
positives = rs.predict(df, model).where("label = '1'").count()
print("RESULT " + json.dumps({"seen": [r.asDict() for r in seen], "positives": positives}))
spark.stop()
'''


def _packed_environment(tmp_path):
    """A virtual environment with rarity, numpy and pyarrow copied from this
    one's site-packages, packed as ``env.tar``."""
    env = tmp_path / "env"
    # --copies: the interpreter itself, not a symlink out of the archive (which
    # Spark refuses to unpack).
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", "--copies", str(env)], check=True)
    src = Path(sysconfig.get_paths()["purelib"])
    (dst,) = list(env.glob("lib/python3*/site-packages"))
    for name in os.listdir(src):
        base = name.split("-")[0].split(".")[0].lower()
        if base in ("rarity", "numpy", "pyarrow"):
            if (src / name).is_dir():
                shutil.copytree(src / name, dst / name)
            else:
                shutil.copy2(src / name, dst / name)
    archive = tmp_path / "env.tar.gz"
    with tarfile.open(archive, "w:gz", compresslevel=1) as t:
        # Entries named bin/..., lib/...: Spark refuses a "./" entry.
        for child in env.iterdir():
            t.add(child, arcname=child.name)
    return archive


def test_a_packed_environment_ships_the_package_to_the_executors(tmp_path):
    submit = Path(pyspark.__file__).parent / "bin" / "spark-submit"
    if not submit.exists():
        pytest.skip(f"no spark-submit beside pyspark ({submit})")
    archive = _packed_environment(tmp_path)
    job = tmp_path / "job.py"
    job.write_text(JOB)
    env = dict(os.environ)
    env.update(
        PYSPARK_PYTHON="./environment/bin/python",
        PYSPARK_DRIVER_PYTHON=sys.executable,
    )
    env.pop("SPARK_HOME", None)
    out = subprocess.run(
        [
            str(submit),
            "--master", "local-cluster[1,2,512]",
            "--conf", f"spark.archives={archive}#environment",
            "--conf", "spark.ui.enabled=false",
            "--conf", "spark.driver.memory=512m",
            "--conf", "spark.executor.memory=512m",
            str(job),
        ],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    lines = [l for l in out.stdout.splitlines() if l.startswith("RESULT ")]
    assert out.returncode == 0 and lines, f"spark-submit failed:\n{out.stdout[-3000:]}\n{out.stderr[-6000:]}"
    result = json.loads(lines[-1][len("RESULT "):])
    assert result["positives"] == 100
    here = os.path.realpath(sys.prefix)
    for row in result["seen"]:
        # The workers ran the shipped interpreter and package, unpacked by
        # Spark into the executor's directory, not this environment's.
        assert row["exe"].endswith("environment/bin/python"), row
        prefix = os.path.realpath(row["prefix"])
        assert prefix != here and os.path.basename(prefix) == "environment", row
        assert row["rarity"].startswith(prefix + os.sep), row
