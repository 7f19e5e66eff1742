//! `rarity calibrate`: recalibrate the probabilities of any model (e.g. a
//! gradient-boosting model trained on an undersampled table) read from a
//! CSV: undo the sampling (Dal Pozzolo et al. 2015, eq. 9), move to new
//! priors (eq. 14) or to the priors Saerens' EM estimates from the unlabeled
//! rows, write the new probabilities and print the threshold that gives the
//! same labels (eq. 12).

use std::path::PathBuf;

use super::output::{print_json, write_stdout};
use super::{Global, OutputFormat};
use rarity::data::scores::{read_probabilities, write_predictions};
use rarity::data::write::JobPaths;
use rarity::error::{Error, Result};
use rarity::experiment::parse_list;
use rarity::job::calibrate::CalibrateRequest;
use rarity::job::Front;

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

pub fn run(g: &Global, a: &Args) -> Result<()> {
    JobPaths::new()
        .input("the scores", &a.file)
        .output("-o", &a.output)
        .check()?;
    if !a.delimiter.is_ascii() {
        return Err(Error::invalid("--delimiter must be one ASCII character"));
    }
    let mut request = CalibrateRequest {
        beta: a.beta,
        keep_rates: None,
        to_priors: None,
        em: a.em,
        train_priors: None,
        threshold: a.threshold,
        front: Front::Cli,
    };
    request.check()?;
    let (proba, classes) = read_probabilities(&a.file, &a.proba, a.delimiter as u8)?;
    let list =
        |flag: &str, text: &Option<String>| text.as_deref().map(|t| numbers(flag, t)).transpose();
    request.keep_rates = list("--keep-rates", &a.keep_rates)?;
    request.to_priors = list("--to-priors", &a.to_priors)?;
    request.train_priors = list("--train-priors", &a.train_priors)?;
    let job = request.run(&proba)?;
    write_predictions(&a.output, &classes, &job.proba, &job.labels)?;
    if g.format == OutputFormat::Json {
        return print_json(&job.to_json(Some(&a.output), &classes));
    }
    write_stdout(&job.to_text(&a.output))
}
