//! Informative undersampling (Kim's lecture, "selection criteria"; the set of
//! R's `unbalanced` package) and the SMOTE + cleaning hybrids, one file per
//! method, each citing its source:
//!
//! | module | method |
//! | --- | --- |
//! | `tomek` | [`TomekLinks`] (Tomek 1976) |
//! | `enn` | [`EditedNearestNeighbours`] (Wilson 1972) |
//! | `renn`, `allknn` | [`RepeatedEnn`], [`AllKnn`] (Tomek 1976) |
//! | `cnn` | [`CondensedNearestNeighbour`] (Hart 1968) |
//! | `oss` | [`OneSidedSelection`] (Kubat & Matwin 1997) |
//! | `ncl` | [`NeighbourhoodCleaningRule`] (Laurikkala 2001) |
//! | `nearmiss` | [`NearMiss`] 1, 2 and 3 (Mani & Zhang 2003) |
//! | `iht` | [`InstanceHardness`] (Smith, Martinez & Giraud-Carrier 2014) |
//! | `smote_clean` | [`SmoteTomek`], [`SmoteEnn`] (Batista, Prati & Monard 2004) |
//!
//! Each searches neighbours in the space its `standardise` parameter
//! chooses ([`crate::sample::space`]). These selections depend on `x`, not only on
//! the class, so the keep rates (which are exact counts) undo the prior
//! shift only approximately; every sample says so in its notes. For several
//! classes the minority is the smallest class and every other class is
//! reduced.

mod allknn;
mod cnn;
mod enn;
mod iht;
mod ncl;
mod nearmiss;
mod oss;
mod renn;
mod smote_clean;
mod tomek;

pub use allknn::AllKnn;
pub use cnn::CondensedNearestNeighbour;
pub use enn::{EditedNearestNeighbours, EnnRule, Ties};
pub use iht::{keep_highest, own_class_proba, InstanceHardness};
pub use ncl::NeighbourhoodCleaningRule;
pub use nearmiss::{NearMiss, NearMissScores, ShortList};
pub use oss::OneSidedSelection;
pub use renn::RepeatedEnn;
pub use smote_clean::{SmoteEnn, SmoteEnnEditing, SmoteTomek};
pub use tomek::TomekLinks;

use crate::data::Dataset;
use crate::error::Result;
use crate::neighbors::{Exclude, Neighbours, Points};
use crate::params::Params;

use crate::sample::draw::{assemble_rows, Classes};
use crate::sample::space::{Labelled, Space};
use crate::sample::Sample;

const X_DEPENDENT: &str = "the selection depends on the features, not only on the class: \
                           correcting probabilities with the keep rates is approximate";

/// The nearest of the rows `store` of `set` to each of its rows `queries`.
fn nearest_in(set: Labelled<'_>, queries: &[usize], store: &[usize]) -> Neighbours {
    let d = set.pts.dim();
    let qx = set.pts.gather(queries);
    let sx = set.pts.gather(store);
    set.metric.knn(
        Points::new(&qx, queries.len(), d).expect("shape"),
        Points::new(&sx, store.len(), d).expect("shape"),
        1,
        Exclude::Nothing,
    )
}

/// The indices not flagged in `removed`.
fn survivors(removed: &[bool]) -> Vec<usize> {
    removed
        .iter()
        .enumerate()
        .filter_map(|(i, &r)| (!r).then_some(i))
        .collect()
}

/// The `classes` parameter of a cleaning sampler as its name writes it.
pub(super) fn classes_flag(classes: &Option<Vec<usize>>) -> String {
    classes
        .as_ref()
        .map(|c| format!("classes={}", crate::sample::colon_list(c)))
        .unwrap_or_default()
}

/// Runs the cleaning method `name` with parameters `p`: checks them and
/// that `data` has two classes, prepares its rows in the search space
/// (standardised or not) and keeps the rows `select` returns (given the
/// points and the classes; `classes`, the class ids cleaned, by default
/// every class but the minority).
fn clean<P: Params>(
    p: &P,
    data: &Dataset,
    (name, standardise, classes): (&str, bool, Option<&[usize]>),
    select: impl FnOnce(Labelled<'_>, &Classes) -> Vec<usize>,
) -> Result<Sample> {
    p.check()?;
    let classes = Classes::cleaning(data, name, classes)?;
    let space = Space::new(data, standardise);
    let x = space.all();
    let rows = select(Labelled::of(&space, &x), &classes);
    let mut notes = space.note();
    notes.push(X_DEPENDENT.into());
    Ok(assemble_rows(data, rows, notes))
}
