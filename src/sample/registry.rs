//! Every sampler by name, with its parameters: the table that strategy specs
//! (`under(beta=0.2)+tree`), bagging's `sample=...`, `rarity resample
//! --method` and its help all read.
//!
//! A sampler is built from a parsed [`Call`] into its parameter struct, so
//! every argument is checked (name, type, range) before any work starts, and
//! unknown names get a did-you-mean error listing the alternatives. Besides
//! `key=value`, a few bare words are accepted as flags: `exact` and
//! `bernoulli` (undersampling's `mode`) and `standardise` (or
//! `standardize`; `standardise=true`). Lists are written `rates=[0.5, 1]` or
//! `rates=0.5:1`.
//!
//! ```
//! use rarity::sample::{build_sampler, parse_sampler};
//! let s = parse_sampler("under(beta=0.2,exact)").unwrap();
//! assert_eq!(s.name(), "under(beta=0.2,exact)");
//! let call = &rarity::params::syntax::parse("smote(k=3,counts=[100,100])").unwrap()[0];
//! assert_eq!(build_sampler(call).unwrap().name(), "smote(k=3,counts=100:100)");
//! let e = parse_sampler("smot").unwrap_err().to_string();
//! assert!(e.contains("did you mean 'smote'"), "{e}");
//! ```

// Every sampler's module is declared here, beside its entry in `SAMPLERS`,
// so that adding a sampler touches its own file and this one; `sample`
// re-exports them.
#[path = "balanced.rs"]
mod balanced;
#[path = "bootstrap.rs"]
pub mod bootstrap;
#[path = "cleaning/mod.rs"]
mod cleaning;
#[path = "cluster_centroids.rs"]
mod cluster_centroids;
#[path = "kmeans_smote.rs"]
mod kmeans_smote;
#[path = "no_resampling.rs"]
pub mod no_resampling;
#[path = "over.rs"]
mod over;
#[path = "smote.rs"]
pub(crate) mod smote;
#[path = "svm_smote.rs"]
mod svm_smote;
#[path = "under.rs"]
mod under;

pub use balanced::{BalancedBootstrap, ExactlyBalanced, RoughlyBalanced, UnderOver};
pub use cleaning::{
    keep_highest, own_class_proba, AllKnn, CondensedNearestNeighbour, EditedNearestNeighbours,
    EnnRule, InstanceHardness, NearMiss, NearMissScores, NeighbourhoodCleaningRule,
    OneSidedSelection, RepeatedEnn, ShortList, SmoteEnn, SmoteEnnEditing, SmoteTomek, Ties,
    TomekLinks,
};
pub use cluster_centroids::{ClusterCentroids, Voting};
pub use kmeans_smote::{KMeansClusters, KMeansSmote};
pub use over::{OverTarget, RandomOver, Smoothing};
pub use smote::{
    Adasyn, AdasynShares, BorderlineSmote, Danger, HybridSizes, Smote, SmoteHybrid, SmoteNeighbours,
};
pub use svm_smote::{SvmBorder, SvmSmote};
pub use under::{RandomUnder, UnderMode};

use std::sync::Arc;

use crate::error::{Error, Result};
use crate::params::{self, defaults_table, syntax, Call, Entry, Family, ParamInfo, Params, Value};

use self::bootstrap::Bootstrap;
use self::no_resampling::NoResampling;
use super::Sampler;

/// The entry of sampler `S` (its parameters are those of `S`; bare flag
/// words such as `exact` are read as its parameters).
const fn entry<S: Sampler + Params + Default + 'static>(
    name: &'static str,
    summary: &'static str,
) -> Entry<Arc<dyn Sampler>> {
    Entry::of::<S>(name, summary, |call| {
        let call = with_flags(call, &defaults_table::<S>());
        Ok(Arc::new(params::from_call::<S>(&call)?))
    })
}

/// Every sampler, in the order help lists them.
pub static SAMPLERS: &[Entry<Arc<dyn Sampler>>] = &[
    entry::<Bootstrap>(
        "bootstrap",
        "the plain bootstrap (Efron 1979): round(fraction * n) rows drawn uniformly with replacement",
    )
    .python("Bootstrap"),
    entry::<NoResampling>("none", "no resampling: every row once").python("NoResampling"),
    entry::<RandomUnder>(
        "under",
        "random undersampling: a rate (beta), a ratio (minority/majority after) or per-class rates; exact|bernoulli",
    ),
    entry::<RandomOver>(
        "over",
        "random oversampling with replacement: to a ratio, an amount (%) or counts (default: balance)",
    ),
    entry::<Smote>("smote", "SMOTE: k nearest minority rows; target as over (default: balance)"),
    entry::<BorderlineSmote>(
        "borderline-smote",
        "Borderline-SMOTE1: SMOTE from the minority rows in danger among their m neighbours; target as smote",
    ),
    entry::<SvmSmote>(
        "svm-smote",
        "SVM-SMOTE: SMOTE from an SVM's support vectors, extrapolating from the safe ones; target as smote",
    ),
    entry::<KMeansSmote>(
        "kmeans-smote",
        "k-means SMOTE: SMOTE within the k-means clusters the class dominates, more in sparse ones; target as smote",
    ),
    entry::<Adasyn>("adasyn", "ADASYN: SMOTE weighted by each row's other-class neighbours; target as smote"),
    entry::<SmoteHybrid>(
        "hybrid",
        "SMOTE amount % of the minority + under % of that many rows per other class",
    )
    .python("SMOTEUnder"),
    entry::<TomekLinks>("tomek", "remove the non-minority member of each Tomek link"),
    entry::<EditedNearestNeighbours>("enn", "edited nearest neighbours: rule=mode|all"),
    entry::<RepeatedEnn>(
        "renn",
        "repeated ENN: ENN again on what it kept until nothing changes (at most max_iter rounds)",
    ),
    entry::<AllKnn>("allknn", "AllKNN: ENN with 1, 2, ..., k neighbours in turn"),
    entry::<CondensedNearestNeighbour>("cnn", "Hart's condensed nearest neighbour (once: one pass, imbalanced-learn's)"),
    entry::<OneSidedSelection>("oss", "one-sided selection (Kubat & Matwin)"),
    entry::<NeighbourhoodCleaningRule>("ncl", "neighbourhood cleaning rule"),
    entry::<NearMiss<1>>("nearmiss1", "NearMiss-1: the rows nearest their k nearest minority rows"),
    entry::<NearMiss<2>>("nearmiss2", "NearMiss-2: the rows nearest their k farthest minority rows"),
    entry::<NearMiss<3>>(
        "nearmiss3",
        "NearMiss-3: of the k3 nearest rows of each minority row, those farthest from their k nearest minority rows",
    ),
    entry::<InstanceHardness>(
        "iht",
        "instance hardness threshold: each reduced class keeps its rows a learner's cross-validated probabilities find easiest",
    ),
    entry::<ClusterCentroids>(
        "cluster-centroids",
        "cluster centroids: each reduced class replaced by k-means centres (voting=soft) or the rows nearest them (hard)",
    ),
    entry::<SmoteTomek>(
        "smote-tomek",
        "SMOTE (as smote), then both members of Tomek links removed",
    ),
    entry::<SmoteEnn>("smote-enn", "SMOTE (as smote), then ENN on all classes"),
    entry::<ExactlyBalanced>(
        "eb",
        "exactly balanced: all minority rows + as many of each other class",
    )
    .python("ExactlyBalanced"),
    entry::<RoughlyBalanced>(
        "rb",
        "roughly balanced (Hido et al.): minority bootstrap, NB(n+, 1/2) majority rows",
    )
    .python("RoughlyBalanced"),
    entry::<UnderOver>(
        "underover",
        "UnderOver (Wang & Yao): every class bootstrapped to a % of the largest",
    )
    .python("UnderOver"),
    entry::<BalancedBootstrap>(
        "balanced-bootstrap",
        "stratified balanced bootstrap: n+ rows with replacement per class",
    )
    .python("BalancedBootstrap"),
];

/// Bare words accepted as flags: `(word, parameter, value)`.
const FLAGS: &[(&str, &str, &str)] = &[
    ("exact", "mode", "exact"),
    ("bernoulli", "mode", "bernoulli"),
    ("standardise", "standardise", "true"),
    ("standardize", "standardise", "true"),
];

/// `call` with each bare flag word (`exact`, `standardise`, ...) written as
/// the keyword argument it stands for, where `table` has that parameter
/// (other positional arguments are left for the parameter check to reject).
pub fn with_flags(call: &Call, table: &[ParamInfo]) -> Call {
    let args = call
        .args
        .iter()
        .map(|(k, v)| {
            let flag = FLAGS.iter().find(|(word, key, _)| {
                k.is_none() && v.word() == Some(*word) && table.iter().any(|p| p.name == *key)
            });
            match flag {
                Some((_, key, value)) => (Some(key.to_string()), Value::Call(Call::bare(value))),
                None => (k.clone(), v.clone()),
            }
        })
        .collect();
    Call {
        name: call.name.clone(),
        args,
    }
}

/// The sampler a parsed call names, e.g. `under(rates=[0.5, 1])`: unknown
/// samplers and arguments, and invalid values, are errors that say what is
/// accepted.
pub fn build_sampler(call: &Call) -> Result<Arc<dyn Sampler>> {
    (params::find(SAMPLERS, &call.name, "sampler")?.build)(call)
}

/// The sampler a spec of one call names (`smote(k=3, standardise)`).
pub fn parse_sampler(spec: &str) -> Result<Arc<dyn Sampler>> {
    let stages = syntax::parse(spec)?;
    if stages.len() > 1 {
        return Err(Error::invalid(format!(
            "sampler spec '{spec}': one sampler is expected, e.g. under(beta=0.2); found {} stages",
            stages.len()
        )));
    }
    build_sampler(&stages[0])
}

/// Whether `name` is a sampler's name.
pub fn is_sampler(name: &str) -> bool {
    SAMPLERS.iter().any(|e| e.name == name)
}

/// Samplers as parameters (bagging's `sample=under(beta=0.2)`): any spec
/// the registry reads, shown as its [`Sampler::name`].
impl Family for dyn Sampler {
    fn expected() -> String {
        let names: Vec<&str> = SAMPLERS.iter().map(|e| e.name).collect();
        format!(
            "a sampler such as under(beta=0.2): one of {}",
            names.join(", ")
        )
    }
    fn build(call: &Call) -> Result<Arc<Self>> {
        build_sampler(call)
    }
    fn spec_text(&self) -> String {
        self.name()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::Dataset;
    use crate::params::ParamType;
    use crate::rng::stream;

    /// One call per entry, every one with non-default parameters where the
    /// sampler has any.
    const NON_DEFAULT: &[&str] = &[
        "bootstrap(fraction=0.5)",
        "none",
        "under(rates=[0.5,1],replacement=true)",
        "over(counts=[90,40],shrinkage=[0,1.5])",
        "smote(k=3,amount=150,standardise)",
        "borderline-smote(k=4,m=6,kind=2,ratio=0.5)",
        "svm-smote(k=4,m=6,c=2,out_step=0.4,ratio=0.8)",
        "kmeans-smote(k=3,clusters=2,balance=0.1,density_exponent=2,round_up=true,counts=[60,50])",
        "adasyn(k=4,counts=[90,50],round_each=true,standardise=true)",
        "hybrid(amount=300,under=100,k=4,standardise)",
        "tomek(standardise)",
        "enn(k=4,rule=all,ties=lowest,classes=0:1,standardise)",
        "renn(k=2,max_iter=5,rule=all,ties=lowest,standardise)",
        "allknn(k=4,rule=all,allow_minority=true,classes=0)",
        "cnn(classes=0,once=true,standardise)",
        "oss(standardize)",
        "ncl(k=4,enn_k=2,rule=all,ties=lowest,self_vote=true,threshold=0.6,strict=true,classes=0:1,standardise)",
        "nearmiss1(k=2,standardise)",
        "nearmiss2(k=2,counts=20:30,ranked=true,classes=0)",
        "nearmiss3(k=2,k3=4,standardise)",
        "iht(learner=tree,folds=3,counts=40:30)",
        "cluster-centroids(voting=hard,counts=25:30,max_iter=50)",
        "smote-tomek(k=4,ratio=0.8,standardise)",
        "smote-enn(k=4,amount=100,enn_k=5,rule=all,standardise)",
        "eb",
        "rb",
        "underover(a=80)",
        "balanced-bootstrap",
    ];

    fn call(s: &str) -> Call {
        syntax::parse(s).unwrap().remove(0)
    }

    fn data() -> Dataset {
        let rows: Vec<Vec<f64>> = (0..90)
            .map(|i| vec![(i % 13) as f64, (i * i % 17) as f64 * 10.0])
            .collect();
        let y: Vec<u32> = (0..90).map(|i| u32::from(i % 3 == 0)).collect();
        Dataset::from_rows(rows, y, vec!["n".into(), "p".into()]).unwrap()
    }

    #[test]
    fn every_name_reads_back_to_the_same_sampler() {
        assert_eq!(NON_DEFAULT.len(), SAMPLERS.len());
        let ds = data();
        for e in SAMPLERS {
            let spec = NON_DEFAULT
                .iter()
                .find(|s| call(s).name == e.name)
                .unwrap_or_else(|| panic!("no test call for {}", e.name));
            let s = build_sampler(&call(spec)).unwrap();
            let back = parse_sampler(&s.name()).unwrap();
            assert_eq!(back.name(), s.name(), "{spec}");
            let a = s.resample(&ds, &mut stream(4, 1)).unwrap();
            let b = back.resample(&ds, &mut stream(4, 1)).unwrap();
            assert_eq!(a, b, "{spec}");
            // The defaults read back too.
            let d = (e.build)(&Call::bare(e.name)).unwrap();
            assert_eq!(parse_sampler(&d.name()).unwrap().name(), d.name());
        }
    }

    #[test]
    fn lists_flags_and_modes() {
        let name = |s: &str| parse_sampler(s).unwrap().name();
        assert_eq!(name("under(rates=[0.5,1])"), "under(rates=0.5:1)");
        assert_eq!(name("under(rates=0.5:1)"), "under(rates=0.5:1)");
        assert_eq!(
            name("under(rates='0.5:1',mode=exact)"),
            "under(rates=0.5:1,exact)"
        );
        assert_eq!(name("under(beta=0.2,exact)"), "under(beta=0.2,exact)");
        assert_eq!(
            name("under(ratio=0.5,bernoulli)"),
            "under(ratio=0.5,bernoulli)"
        );
        assert_eq!(name("under(ratio=0.5,mode=exact)"), "under(ratio=0.5)");
        assert_eq!(name("under"), "under(ratio=1)");
        assert_eq!(name("smote(counts=[100,100])"), "smote(k=5,counts=100:100)");
        assert_eq!(name("smote(standardize)"), "smote(k=5,standardise)");
        assert_eq!(name("hybrid"), "hybrid(amount=500,under=120,k=5)");
        assert_eq!(name("bootstrap(fraction=1)"), "bootstrap");
    }

    #[test]
    fn errors_name_the_argument_and_what_is_accepted() {
        for (spec, needles) in [
            (
                "smot(k=3)",
                &[
                    "unknown sampler 'smot' (did you mean 'smote'?)",
                    "nearmiss3",
                ][..],
            ),
            (
                "smote(beta=0.5)",
                &["unknown argument 'beta'", "accepted: k, standardise"],
            ),
            ("smote(exact)", &["argument exact needs a name"]),
            (
                "under(beta=0.2,ratio=0.5)",
                &["only one of beta, ratio and rates"],
            ),
            (
                "smote(ratio=0.5,amount=100)",
                &["at most one of ratio, amount"],
            ),
            (
                "under(beta=1.5)",
                &["beta=1.5 is invalid; expected a number in (0, 1] or none"],
            ),
            ("under(rates=[0.5,0])", &["in (0, 1]"]),
            ("smote(k=0)", &["k=0 is invalid"]),
            ("enn(rule=any)", &["one of mode, all"]),
            ("nearmiss1(k3=2)", &["unknown argument 'k3'"]),
            ("underover(a=0)", &["a=0 is invalid"]),
            ("bootstrap(fraction=0)", &["fraction=0 is invalid"]),
            ("under+smote", &["one sampler is expected"]),
        ] {
            let e = parse_sampler(spec).unwrap_err().to_string();
            for n in needles {
                assert!(e.contains(n), "{spec}: {e}");
            }
        }
    }

    #[test]
    fn a_sampler_is_a_parameter_type() {
        let v = Value::Call(call("under(beta=0.25)"));
        let s = <Arc<dyn Sampler>>::from_value(&v).unwrap();
        assert_eq!(s.to_text(), "under(beta=0.25)");
        assert!(<Arc<dyn Sampler>>::from_value(&Value::Number(1.0)).is_err());
        assert!(<Arc<dyn Sampler>>::expected().contains("smote-enn"));
    }

    #[test]
    fn help_lists_every_sampler_with_its_parameters() {
        let h = params::help(SAMPLERS);
        for e in SAMPLERS {
            assert!(h.contains(&format!("  {}: ", e.name)), "{}", e.name);
        }
        assert!(h.contains("k=5 (a whole number >= 1)"), "{h}");
        assert!(h.contains("enn_k=3"), "{h}");
        assert!(
            h.contains("mode=none (one of exact, bernoulli or none)"),
            "{h}"
        );
    }
}
