//! `rarity calibrate`: recalibrate the probabilities of any model (e.g. a
//! gradient-boosting model trained on an undersampled table) read from a
//! CSV: undo the sampling (Dal Pozzolo et al. 2015, eq. 9), move to new
//! priors (eq. 14) or to the priors Saerens' EM estimates from the unlabeled
//! rows, write the new probabilities and print the threshold that gives the
//! same labels (eq. 12).

use std::path::PathBuf;

use serde_json::json;

use super::output::{num, print_json, write_stdout};
use super::{Global, OutputFormat};
use rarity::calibrate::{PriorShift, Recalibration};
use rarity::data::scores::{read_probabilities, write_predictions};
use rarity::data::write::JobPaths;
use rarity::decide::registry::EmParams;
use rarity::error::{Error, Result};
use rarity::experiment::parse_list;

/// Arguments of `rarity calibrate`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// CSV with probability column(s); other columns are ignored.
    file: PathBuf,
    /// Probability column(s): one for binary (the positive class's), one per
    /// class beyond, in class order (`p_<label>` columns name the classes).
    #[arg(long, required = true, value_name = "COL")]
    proba: Vec<String>,
    /// The negatives were undersampled at this rate when the model was
    /// trained (binary; the keep rates `beta,1`).
    #[arg(long, value_name = "B", conflicts_with = "keep_rates")]
    beta: Option<f64>,
    /// Per class, the rate at which the model's training sample kept the
    /// class, in class order (e.g. `0.1,1`; above 1 for oversampling).
    #[arg(long, value_name = "RATES")]
    keep_rates: Option<String>,
    /// Move the (corrected) probabilities to these class priors, in class
    /// order (e.g. `0.999,0.001`).
    #[arg(long, value_name = "PRIORS", conflicts_with = "em")]
    to_priors: Option<String>,
    /// Estimate the priors of the scored rows by Saerens' EM and move the
    /// probabilities to them.
    #[arg(long)]
    em: bool,
    /// The class priors the (corrected) probabilities are under: those of
    /// the training data before any sampling. Needed by --to-priors and
    /// --em.
    #[arg(long, value_name = "PRIORS")]
    train_priors: Option<String>,
    /// Binary: the threshold on the input probabilities whose equivalent on
    /// the output is printed (eq. 12) and decides the written labels.
    #[arg(long, default_value_t = 0.5)]
    threshold: f64,
    /// CSV field delimiter.
    #[arg(long, default_value = ",")]
    delimiter: char,
    /// Where to write the probabilities (`p_<class>` columns and the label).
    #[arg(short, long)]
    output: PathBuf,
}

/// A comma-separated list of numbers given to `flag`.
fn numbers(flag: &str, text: &str) -> Result<Vec<f64>> {
    parse_list(flag, text, "a number", "0.99,0.01")
}

/// The recalibration the arguments describe, for `k` classes.
fn recalibration(a: &Args, k: usize) -> Result<Recalibration> {
    let keep_rates = match (a.beta, &a.keep_rates) {
        (Some(_), _) if k != 2 => {
            return Err(Error::invalid(format!(
                "--beta undoes binary undersampling; these scores have {k} classes \
                 (give --keep-rates, one per class)"
            )))
        }
        (Some(b), _) if !(b > 0.0 && b <= 1.0) => {
            return Err(Error::invalid(format!(
                "--beta {b} is not an undersampling rate in (0, 1]"
            )))
        }
        (Some(b), _) => Some(vec![b, 1.0]),
        (None, Some(r)) => Some(numbers("--keep-rates", r)?),
        (None, None) => None,
    };
    let shift = match (&a.to_priors, a.em) {
        (Some(p), _) => Some(PriorShift::To(numbers("--to-priors", p)?)),
        (None, true) => {
            let em = EmParams::default();
            Some(PriorShift::Em {
                tol: em.tol,
                max_iter: em.max_iter,
            })
        }
        (None, false) => None,
    };
    let shift = match (shift, &a.train_priors) {
        (Some(s), Some(p)) => Some((s, numbers("--train-priors", p)?)),
        (Some(_), None) => {
            return Err(Error::invalid(
                "--to-priors and --em move probabilities from the priors they are under: \
                 give --train-priors, the training data's class priors before any sampling \
                 (e.g. --train-priors 0.998,0.002)",
            ))
        }
        (None, _) => None,
    };
    if keep_rates.is_none() && shift.is_none() {
        return Err(Error::invalid(
            "nothing to do: give --beta or --keep-rates (undo sampling), and/or \
             --to-priors or --em with --train-priors (move to other priors)",
        ));
    }
    Ok(Recalibration { keep_rates, shift })
}

pub fn run(g: &Global, a: &Args) -> Result<()> {
    JobPaths::new()
        .input("the scores", &a.file)
        .output("-o", &a.output)
        .check()?;
    if !a.delimiter.is_ascii() {
        return Err(Error::invalid("--delimiter must be one ASCII character"));
    }
    if !(0.0..=1.0).contains(&a.threshold) {
        return Err(Error::invalid(format!(
            "--threshold {} is not in [0, 1]",
            a.threshold
        )));
    }
    let (proba, classes) = read_probabilities(&a.file, &a.proba, a.delimiter as u8)?;
    let k = proba.n_classes();
    let recal = recalibration(a, k)?;
    let out = recal.apply(&proba)?;
    let threshold = if k == 2 {
        Some(recal.threshold(a.threshold, out.shifted.as_ref())?)
    } else {
        None
    };
    let labels: Vec<u32> = match threshold {
        Some(t) => out
            .proba
            .column(1)
            .iter()
            .map(|p| u32::from(*p >= t))
            .collect(),
        None => out.proba.argmax().iter().map(|&c| c as u32).collect(),
    };
    write_predictions(&a.output, &classes, &out.proba, &labels)?;
    let priors = out.shifted.as_ref().map(|s| &s.priors);
    let em = out.shifted.as_ref().and_then(|s| s.em);
    if g.format == OutputFormat::Json {
        return print_json(&json!({
            "output": a.output.display().to_string(),
            "rows": labels.len(),
            "classes": classes,
            "keep_rates": recal.keep_rates,
            "target_priors": priors,
            "em_iterations": em.map(|e| e.0),
            "em_converged": em.map(|e| e.1),
            "input_threshold": (k == 2).then_some(a.threshold),
            "threshold": threshold,
        }));
    }
    let mut text = format!(
        "{} rows, {} classes -> {}\n",
        labels.len(),
        k,
        a.output.display()
    );
    if let Some(p) = priors {
        let list: Vec<String> = p.iter().map(|v| num(*v, 6)).collect();
        text.push_str(&format!(
            "{} priors: {}{}\n",
            if em.is_some() {
                "estimated (EM)"
            } else {
                "target"
            },
            list.join(", "),
            match em {
                Some((it, true)) => format!(" ({it} iterations)"),
                Some((it, false)) => format!(" (not converged after {it} iterations)"),
                None => String::new(),
            }
        ));
    }
    if let Some(t) = threshold {
        text.push_str(&format!(
            "threshold {} on the input = {} on the output (same labels; Dal Pozzolo et al. eq. 12)\n",
            a.threshold, t
        ));
    }
    write_stdout(&text)
}
