"""imbalanced-learn's own sampler tests, run against :mod:`rarity.sampling`.

The 22 test files imbalanced-learn ships in its wheel under
``imblearn/{under_sampling,over_sampling,combine}`` are read from the
installed package at collection time; every import of a sampler from
``imblearn.under_sampling``, ``imblearn.over_sampling`` or
``imblearn.combine`` is rewritten (in the syntax tree, nothing else
changes) to import the class of the same name from ``rarity.sampling``, and
the file runs as a module of its own. Imports of imbalanced-learn's test
helpers (``imblearn.utils.testing``) and of scikit-learn stay as they are.

A test is skipped only when it cannot say anything about rarity: it pins
imbalanced-learn's random stream (expected rows drawn by NumPy's
``RandomState`` as imbalanced-learn consumes it) or calls one of
imbalanced-learn's private methods. :data:`SKIPPED` lists each with its
reason; every other test must pass.
"""

from __future__ import annotations

import ast
import importlib.util
import pathlib
import types

import pytest

#: The modules whose sampler imports point at ``rarity.sampling``.
REWRITTEN = ("imblearn.under_sampling", "imblearn.over_sampling", "imblearn.combine")

#: The test files, relative to the installed ``imblearn`` package.
FILES = (
    "under_sampling/_prototype_generation/tests/test_cluster_centroids.py",
    "under_sampling/_prototype_selection/tests/test_allknn.py",
    "under_sampling/_prototype_selection/tests/test_condensed_nearest_neighbour.py",
    "under_sampling/_prototype_selection/tests/test_edited_nearest_neighbours.py",
    "under_sampling/_prototype_selection/tests/test_instance_hardness_threshold.py",
    "under_sampling/_prototype_selection/tests/test_nearmiss.py",
    "under_sampling/_prototype_selection/tests/test_neighbourhood_cleaning_rule.py",
    "under_sampling/_prototype_selection/tests/test_one_sided_selection.py",
    "under_sampling/_prototype_selection/tests/test_random_under_sampler.py",
    "under_sampling/_prototype_selection/tests/test_repeated_edited_nearest_neighbours.py",
    "under_sampling/_prototype_selection/tests/test_tomek_links.py",
    "over_sampling/_smote/tests/test_borderline_smote.py",
    "over_sampling/_smote/tests/test_kmeans_smote.py",
    "over_sampling/_smote/tests/test_smote.py",
    "over_sampling/_smote/tests/test_smote_nc.py",
    "over_sampling/_smote/tests/test_smoten.py",
    "over_sampling/_smote/tests/test_svm_smote.py",
    "over_sampling/tests/test_adasyn.py",
    "over_sampling/tests/test_common.py",
    "over_sampling/tests/test_random_over_sampler.py",
    "combine/tests/test_smote_enn.py",
    "combine/tests/test_smote_tomek.py",
)

_STREAM = "pins imbalanced-learn's random stream: the expected rows are those NumPy's RandomState draws as imbalanced-learn consumes it"
_PRIVATE = "calls imbalanced-learn's private method _validate_estimator"

#: ``(file stem, test name)`` -> why the test is skipped. A name without
#: ``[...]`` covers every parametrisation of the test.
SKIPPED = {
    ("test_random_under_sampler", "test_rus_fit_resample"): _STREAM,
    ("test_random_under_sampler", "test_rus_fit_resample_half"): _STREAM,
    ("test_random_over_sampler", "test_ros_fit_resample"): _STREAM,
    ("test_random_over_sampler", "test_random_over_sampler_smoothed_bootstrap"): None,
    ("test_smote", "test_sample_regular"): _STREAM,
    ("test_smote", "test_sample_regular_half"): _STREAM,
    ("test_smote", "test_sample_regular_with_nn"): _STREAM,
    ("test_adasyn", "test_ada_fit_resample"): _STREAM,
    ("test_adasyn", "test_ada_fit_resample_nn_obj"): _STREAM,
    ("test_condensed_nearest_neighbour", "test_cnn_fit_resample"): _STREAM
    + " (the seed row of the store)",
    ("test_condensed_nearest_neighbour", "test_cnn_fit_resample_with_object"): _STREAM
    + " (the seed row of the store)",
    ("test_one_sided_selection", "test_oss_fit_resample"): _STREAM + " (the seed row of the store)",
    ("test_one_sided_selection", "test_oss_with_object"): _STREAM + " (the seed row of the store)",
    ("test_smote_enn", "test_sample_regular"): _STREAM,
    ("test_smote_enn", "test_sample_regular_pass_smote_enn"): _STREAM,
    ("test_smote_enn", "test_sample_regular_half"): _STREAM,
    ("test_smote_enn", "test_validate_estimator_init"): _STREAM,
    ("test_smote_enn", "test_validate_estimator_default"): _STREAM,
    ("test_smote_enn", "test_parallelisation"): _PRIVATE,
    ("test_smote_tomek", "test_sample_regular"): _STREAM,
    ("test_smote_tomek", "test_sample_regular_half"): _STREAM,
    ("test_smote_tomek", "test_validate_estimator_init"): _STREAM,
    ("test_smote_tomek", "test_validate_estimator_default"): _STREAM,
    ("test_smote_tomek", "test_parallelisation"): _PRIVATE,
}
SKIPPED = {k: v for k, v in SKIPPED.items() if v is not None}


def imblearn_root():
    """The installed ``imblearn`` package's directory, or None."""
    spec = importlib.util.find_spec("imblearn")
    if spec is None or spec.origin is None:
        return None
    return pathlib.Path(spec.origin).parent


class _PointAtRarity(ast.NodeTransformer):
    """``from imblearn.<sampler module> import X`` -> ``from rarity.sampling import X``."""

    def __init__(self):
        self.rewritten = 0

    def visit_ImportFrom(self, node):
        if node.module in REWRITTEN:
            self.rewritten += 1
            return ast.copy_location(ast.ImportFrom(module="rarity.sampling", names=node.names, level=0), node)
        return node


def rewritten_module(path, name):
    """The test file ``path`` as a module named ``name``, its sampler imports
    pointed at ``rarity.sampling``."""
    tree = ast.parse(path.read_text(), filename=str(path))
    fix = _PointAtRarity()
    tree = ast.fix_missing_locations(fix.visit(tree))
    assert fix.rewritten, f"{path}: no sampler import to point at rarity.sampling"
    module = types.ModuleType(name)
    module.__file__ = str(path)
    exec(compile(tree, str(path), "exec"), module.__dict__)
    return module


class RewrittenModule(pytest.Module):
    """One of imbalanced-learn's test files, collected from its rewritten module."""

    def _getobj(self):
        return rewritten_module(self.path, f"imblearn_suite.{self.path.stem}")


class Suite(pytest.File):
    """The file ``test_imblearn_suite.py`` (its own tests) plus imbalanced-learn's test files."""

    def collect(self):
        yield pytest.Module.from_parent(self, path=self.path, name="self")
        root = imblearn_root()
        if root is None:
            return
        for rel in FILES:
            yield RewrittenModule.from_parent(self, path=root / rel, name=rel)


def mark_skipped(items):
    """Adds the skip mark (with its reason) to every test :data:`SKIPPED` lists."""
    for item in items:
        if not isinstance(item.parent, RewrittenModule):
            continue
        key = (item.parent.path.stem, item.originalname)
        reason = SKIPPED.get(key)
        if reason is not None:
            item.add_marker(pytest.mark.skip(reason=reason))
