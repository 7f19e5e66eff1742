//! `rarity._rarity`: the native module of the Python package, a thin layer
//! over the rarity library (every name, parameter, default, message and
//! number comes from it). The pure-Python package `rarity` builds the
//! scikit-learn and imbalanced-learn estimators on top.

mod data;
mod declared;
mod experiments;
mod explain;
mod functions;
mod model;
mod monitor;
mod pool;
mod sampling;
mod spark;

use pyo3::prelude::*;

/// The module's allocator: a failed allocation outside the library's
/// fallible growth says what could not be allocated and exits 2, the
/// temporaries removed, where Rust would abort the interpreter.
#[cfg(target_os = "linux")]
#[global_allocator]
static ALLOCATOR: rarity::out_of_memory::Watched = rarity::out_of_memory::Watched::new(
    "rarity: error",
    "try a smaller input, a smaller n_jobs, or more memory",
);

#[pymodule]
fn _rarity(m: &Bound<'_, PyModule>) -> PyResult<()> {
    // Under `ulimit -v`, glibc's arenas sized to the limit before any of
    // the module's threads start (see `rarity::limits`).
    rarity::limits::fit_allocator_to_address_space();
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("FORMAT_VERSION", rarity::persist::FORMAT_VERSION)?;
    // The defaults the Python signatures read (declared once in the library).
    m.add(
        "DEFAULT_METRIC",
        rarity::job::run::RunRequest::DEFAULT_METRIC,
    )?;
    m.add("DEFAULT_CV", rarity::job::run::RunRequest::DEFAULT_CV)?;
    m.add("DEFAULT_METHOD", rarity::job::select::DEFAULT_METHOD)?;
    m.add_class::<data::Features>()?;
    m.add_class::<data::Data>()?;
    m.add_class::<model::Model>()?;
    m.add_class::<sampling::Drawn>()?;
    m.add_class::<functions::RunResult>()?;
    m.add_class::<functions::EvaluateResult>()?;
    m.add_class::<experiments::Experiment>()?;
    m.add_class::<spark::Summary>()?;
    m.add_class::<spark::RankSums>()?;
    m.add_class::<spark::LevelTable>()?;
    m.add_class::<spark::RangeWalk>()?;
    m.add_class::<monitor::MonitorResult>()?;
    m.add_class::<monitor::MonitorProfile>()?;
    m.add_function(wrap_pyfunction!(data::assign_labels, m)?)?;
    m.add_function(wrap_pyfunction!(model::fit, m)?)?;
    m.add_function(wrap_pyfunction!(sampling::resample, m)?)?;
    m.add_function(wrap_pyfunction!(pool::threads_for, m)?)?;
    for f in [
        wrap_pyfunction!(functions::registry, m)?,
        wrap_pyfunction!(functions::sampler_synthesizes, m)?,
        wrap_pyfunction!(functions::missing_policy, m)?,
        wrap_pyfunction!(functions::value_kind, m)?,
        wrap_pyfunction!(functions::spec_stages, m)?,
        wrap_pyfunction!(functions::column_modes, m)?,
        wrap_pyfunction!(functions::target_index, m)?,
        wrap_pyfunction!(functions::write_report_files, m)?,
        wrap_pyfunction!(functions::write_file, m)?,
        wrap_pyfunction!(functions::bundled, m)?,
        wrap_pyfunction!(functions::load_bundled, m)?,
        wrap_pyfunction!(functions::read_file, m)?,
        wrap_pyfunction!(functions::dataset_arrays, m)?,
        wrap_pyfunction!(functions::correct, m)?,
        wrap_pyfunction!(functions::corrected_threshold, m)?,
        wrap_pyfunction!(functions::adjust_to_priors, m)?,
        wrap_pyfunction!(functions::em_priors, m)?,
        wrap_pyfunction!(functions::calibrate_job, m)?,
        wrap_pyfunction!(functions::consistent_rule, m)?,
        wrap_pyfunction!(functions::decide, m)?,
        wrap_pyfunction!(functions::platt_fit, m)?,
        wrap_pyfunction!(functions::platt_apply, m)?,
        wrap_pyfunction!(functions::isotonic_fit, m)?,
        wrap_pyfunction!(functions::isotonic_apply, m)?,
        wrap_pyfunction!(functions::score_report, m)?,
        wrap_pyfunction!(functions::metric_value, m)?,
        wrap_pyfunction!(functions::positive_label, m)?,
        wrap_pyfunction!(functions::friedman, m)?,
        wrap_pyfunction!(functions::mean_ranks, m)?,
        wrap_pyfunction!(functions::critical_difference, m)?,
        wrap_pyfunction!(functions::nemenyi_p_value, m)?,
        wrap_pyfunction!(functions::wilcoxon, m)?,
        wrap_pyfunction!(functions::select, m)?,
        wrap_pyfunction!(functions::run_job, m)?,
        wrap_pyfunction!(functions::evaluate_job, m)?,
        wrap_pyfunction!(functions::resample_job, m)?,
        wrap_pyfunction!(spark::keep_batch, m)?,
        wrap_pyfunction!(spark::label_counts, m)?,
        wrap_pyfunction!(spark::under_rates, m)?,
        wrap_pyfunction!(spark::fit_drawn, m)?,
        wrap_pyfunction!(spark::for_partitions, m)?,
        wrap_pyfunction!(spark::predict_batch, m)?,
        wrap_pyfunction!(spark::check_reasons, m)?,
        wrap_pyfunction!(spark::score_keys, m)?,
        wrap_pyfunction!(spark::counts_above, m)?,
        wrap_pyfunction!(spark::save_model, m)?,
        wrap_pyfunction!(functions::column_folds, m)?,
        wrap_pyfunction!(monitor::monitor, m)?,
        wrap_pyfunction!(monitor::monitor_labels, m)?,
        wrap_pyfunction!(monitor::monitor_profiles, m)?,
        wrap_pyfunction!(monitor::monitor_training, m)?,
        wrap_pyfunction!(declared::job_params, m)?,
        wrap_pyfunction!(declared::declared_jobs, m)?,
        wrap_pyfunction!(explain::explain, m)?,
        wrap_pyfunction!(explain::show, m)?,
        wrap_pyfunction!(explain::split_gain, m)?,
        wrap_pyfunction!(experiments::calibration_experiment, m)?,
        wrap_pyfunction!(experiments::pt_bagging_experiment, m)?,
        wrap_pyfunction!(experiments::reverse_testing_experiment, m)?,
    ] {
        m.add_function(f)?;
    }
    Ok(())
}
