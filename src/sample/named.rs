//! Samplers by name: the CLI's `--method NAME [--beta B] [--ratio R] [--k K]
//! [--amount PCT]` and the bagging engine's per-bag specs such as
//! `under(beta=0.2)` or `underover(a=50)`. Every sampler's
//! [`Sampler::name`] is a spec that this module parses back to the same sampler.

use crate::error::{Error, Result};

use super::{
    Adasyn, BalancedBootstrap, BorderlineSmote, CondensedNearestNeighbour, EditedNearestNeighbours,
    EnnRule, ExactlyBalanced, NearMiss, NeighbourhoodCleaningRule, OneSidedSelection, OverTarget,
    RandomOver, RandomUnder, RoughlyBalanced, Sampler, Smote, SmoteEnn, SmoteHybrid, SmoteTomek,
    TomekLinks, UnderOver,
};

/// The method names accepted by [`sampler_from_name`], with what each does.
pub const METHODS: &[(&str, &str)] = &[
    ("under", "random undersampling: beta=B (rate), ratio=R (minority/majority after), rates=R0:R1:..; exact|bernoulli"),
    ("over", "random oversampling with replacement: ratio=R, amount=PCT or counts=N0:N1:.. (default: balance)"),
    ("smote", "SMOTE: k=K (5), ratio=R, amount=PCT or counts (default: balance)"),
    ("borderline-smote", "Borderline-SMOTE1: k=K (5), m=M (10), target as smote"),
    ("adasyn", "ADASYN: k=K (5), target as smote"),
    ("hybrid", "SMOTE amount=PCT (500) of the minority + under=PCT (120) of that many rows per other class"),
    ("tomek", "remove the non-minority member of each Tomek link"),
    ("enn", "edited nearest neighbours: k=K (3), rule=mode|all"),
    ("cnn", "Hart's condensed nearest neighbour"),
    ("oss", "one-sided selection (Kubat & Matwin)"),
    ("ncl", "neighbourhood cleaning rule: k=K (3)"),
    ("nearmiss1", "NearMiss-1: k=K (3)"),
    ("nearmiss2", "NearMiss-2: k=K (3)"),
    ("nearmiss3", "NearMiss-3: k=K (3), k3=M (3)"),
    ("smote-tomek", "SMOTE (as smote), then both members of Tomek links removed"),
    ("smote-enn", "SMOTE (as smote), then ENN on all classes: enn_k=K (3), rule=mode|all"),
    ("eb", "exactly balanced: all minority rows + as many of each other class"),
    ("rb", "roughly balanced (Hido et al.): minority bootstrap, NB(n+, 1/2) majority rows"),
    ("underover", "UnderOver (Wang & Yao): every class bootstrapped to a=PCT (50) of the largest"),
    ("balanced-bootstrap", "stratified balanced bootstrap: n+ rows with replacement per class"),
];

/// Parameters of a named sampler; `None` means the method's default.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SamplerParams {
    /// Undersampling rate (`under`).
    pub beta: Option<f64>,
    /// Minority/majority ratio after resampling (`under`, `over`, SMOTE family).
    pub ratio: Option<f64>,
    /// Neighbours (SMOTE family, ENN, NCL, NearMiss).
    pub k: Option<usize>,
    /// Percent of new minority rows (`over`, SMOTE family; `hybrid`'s over%).
    pub amount: Option<f64>,
    /// UnderOver's rate in percent of the largest class.
    pub a: Option<f64>,
    /// Borderline-SMOTE's neighbours for the danger test.
    pub m: Option<usize>,
    /// NearMiss-3's short-list size.
    pub k3: Option<usize>,
    /// `hybrid`'s majority rows in percent of the new minority rows.
    pub under: Option<f64>,
    /// ENN's neighbours inside `smote-enn`.
    pub enn_k: Option<usize>,
    /// ENN's rule (`enn`, `smote-enn`).
    pub rule: Option<EnnRule>,
    /// Per-class keep rates (`under`).
    pub rates: Option<Vec<f64>>,
    /// Per-class sizes (`over`, SMOTE family).
    pub counts: Option<Vec<usize>>,
    /// `under`: exact-count (`Some(true)`) or Bernoulli (`Some(false)`) mode.
    pub exact: Option<bool>,
    /// Search neighbours on standardised features.
    pub standardise: bool,
}

impl SamplerParams {
    /// Names of the parameters that were given.
    fn given(&self) -> Vec<&'static str> {
        let mut g = Vec::new();
        let mut add = |on: bool, name| {
            if on {
                g.push(name)
            }
        };
        add(self.beta.is_some(), "beta");
        add(self.ratio.is_some(), "ratio");
        add(self.k.is_some(), "k");
        add(self.amount.is_some(), "amount");
        add(self.a.is_some(), "a");
        add(self.m.is_some(), "m");
        add(self.k3.is_some(), "k3");
        add(self.under.is_some(), "under");
        add(self.enn_k.is_some(), "enn_k");
        add(self.rule.is_some(), "rule");
        add(self.rates.is_some(), "rates");
        add(self.counts.is_some(), "counts");
        add(self.exact.is_some(), "exact");
        add(self.standardise, "standardise");
        g
    }

    fn only(&self, method: &str, allowed: &[&str]) -> Result<()> {
        if let Some(bad) = self.given().into_iter().find(|p| !allowed.contains(p)) {
            let ok = if allowed.is_empty() {
                "none".to_string()
            } else {
                allowed.join(", ")
            };
            return Err(Error::invalid(format!(
                "method '{method}' does not take the parameter '{bad}'; it takes: {ok}"
            )));
        }
        Ok(())
    }

    fn over_target(&self, method: &str) -> Result<OverTarget> {
        let chosen = [
            self.ratio.is_some(),
            self.amount.is_some(),
            self.counts.is_some(),
        ];
        if chosen.iter().filter(|&&b| b).count() > 1 {
            return Err(Error::invalid(format!(
                "{method}: give at most one of ratio, amount and counts"
            )));
        }
        Ok(if let Some(r) = self.ratio {
            OverTarget::Ratio(r)
        } else if let Some(p) = self.amount {
            OverTarget::Percent(p)
        } else if let Some(c) = &self.counts {
            OverTarget::Counts(c.clone())
        } else {
            OverTarget::Balance
        })
    }

    fn smote(&self, method: &str) -> Result<Smote> {
        Ok(
            Smote::new(self.k.unwrap_or(5), self.over_target(method)?)
                .standardise(self.standardise),
        )
    }
}

const TARGET: [&str; 4] = ["ratio", "amount", "counts", "standardise"];

/// The sampler called `method` with `params` (defaults for what is not given).
///
/// Unknown methods and parameters a method does not take are errors that
/// list what is accepted.
///
/// ```
/// use rarity::sample::{sampler_from_name, SamplerParams};
/// let p = SamplerParams { beta: Some(0.2), ..SamplerParams::default() };
/// assert_eq!(sampler_from_name("under", &p).unwrap().name(), "under(beta=0.2)");
/// assert!(sampler_from_name("smote", &p).is_err()); // smote takes no beta
/// assert!(sampler_from_name("smoot", &SamplerParams::default()).is_err());
/// ```
pub fn sampler_from_name(method: &str, params: &SamplerParams) -> Result<Box<dyn Sampler>> {
    let p = params;
    let std = p.standardise;
    let with = |extra: &[&'static str]| -> Vec<&'static str> {
        TARGET.iter().chain(extra).copied().collect()
    };
    Ok(match method {
        "under" => {
            p.only(method, &["beta", "ratio", "rates", "exact"])?;
            let given = [p.beta.is_some(), p.ratio.is_some(), p.rates.is_some()];
            if given.iter().filter(|&&b| b).count() > 1 {
                return Err(Error::invalid(
                    "under: give only one of beta, ratio and rates",
                ));
            }
            let s = if let Some(b) = p.beta {
                if !(b > 0.0 && b <= 1.0) {
                    return Err(Error::invalid(format!(
                        "under: beta = {b} is a keep rate of the majority and must be in (0, 1]"
                    )));
                }
                RandomUnder::beta(b)
            } else if let Some(r) = &p.rates {
                RandomUnder::rates(r.clone())
            } else {
                RandomUnder::ratio(p.ratio.unwrap_or(1.0))
            };
            match p.exact {
                Some(e) => Box::new(s.exact(e)),
                None => Box::new(s),
            }
        }
        "over" => {
            p.only(method, &["ratio", "amount", "counts"])?;
            Box::new(RandomOver::new(p.over_target(method)?))
        }
        "smote" => {
            p.only(method, &with(&["k"]))?;
            Box::new(p.smote(method)?)
        }
        "borderline-smote" => {
            p.only(method, &with(&["k", "m"]))?;
            Box::new(
                BorderlineSmote::new(p.k.unwrap_or(5), p.m.unwrap_or(10), p.over_target(method)?)
                    .standardise(std),
            )
        }
        "adasyn" => {
            p.only(method, &with(&["k"]))?;
            Box::new(Adasyn::new(p.k.unwrap_or(5), p.over_target(method)?).standardise(std))
        }
        "hybrid" => {
            p.only(method, &["amount", "under", "k", "standardise"])?;
            Box::new(
                SmoteHybrid::new(
                    p.amount.unwrap_or(500.0),
                    p.under.unwrap_or(120.0),
                    p.k.unwrap_or(5),
                )?
                .standardise(std),
            )
        }
        "tomek" => {
            p.only(method, &["standardise"])?;
            Box::new(TomekLinks::new().standardise(std))
        }
        "enn" => {
            p.only(method, &["k", "rule", "standardise"])?;
            Box::new(
                EditedNearestNeighbours::new(p.k.unwrap_or(3), p.rule.unwrap_or(EnnRule::Mode))?
                    .standardise(std),
            )
        }
        "cnn" => {
            p.only(method, &["standardise"])?;
            Box::new(CondensedNearestNeighbour::new().standardise(std))
        }
        "oss" => {
            p.only(method, &["standardise"])?;
            Box::new(OneSidedSelection::new().standardise(std))
        }
        "ncl" => {
            p.only(method, &["k", "standardise"])?;
            Box::new(NeighbourhoodCleaningRule::new(p.k.unwrap_or(3))?.standardise(std))
        }
        "nearmiss1" | "nearmiss2" => {
            p.only(method, &["k", "standardise"])?;
            let v = if method == "nearmiss1" { 1 } else { 2 };
            Box::new(NearMiss::new(v, p.k.unwrap_or(3), 3)?.standardise(std))
        }
        "nearmiss3" => {
            p.only(method, &["k", "k3", "standardise"])?;
            Box::new(NearMiss::new(3, p.k.unwrap_or(3), p.k3.unwrap_or(3))?.standardise(std))
        }
        "smote-tomek" => {
            p.only(method, &with(&["k"]))?;
            Box::new(SmoteTomek::new(p.smote(method)?, std))
        }
        "smote-enn" => {
            p.only(method, &with(&["k", "enn_k", "rule"]))?;
            let enn = EditedNearestNeighbours::new(
                p.enn_k.unwrap_or(3),
                p.rule.unwrap_or(EnnRule::Mode),
            )?
            .standardise(std);
            Box::new(SmoteEnn::new(p.smote(method)?, enn))
        }
        "eb" => {
            p.only(method, &[])?;
            Box::new(ExactlyBalanced)
        }
        "rb" => {
            p.only(method, &[])?;
            Box::new(RoughlyBalanced)
        }
        "underover" => {
            p.only(method, &["a"])?;
            Box::new(UnderOver::new(p.a.unwrap_or(50.0))?)
        }
        "balanced-bootstrap" => {
            p.only(method, &[])?;
            Box::new(BalancedBootstrap)
        }
        _ => {
            return Err(Error::invalid(format!(
                "unknown resampling method '{method}'; accepted: {}",
                METHODS.iter().map(|m| m.0).collect::<Vec<_>>().join(", ")
            )))
        }
    })
}

/// The sampler described by a spec `method` or `method(key=value,...,flag)`,
/// e.g. `eb`, `rb`, `smote`, `under(beta=0.2)`, `underover(a=50)`,
/// `smote(k=3,amount=200,standardise)`. Lists (`rates`, `counts`) are
/// separated by `:`; the flags are `exact`, `bernoulli` and `standardise`.
///
/// ```
/// use rarity::sample::sampler_from_spec;
/// assert_eq!(sampler_from_spec("underover(a=50)").unwrap().name(), "underover(a=50)");
/// assert_eq!(sampler_from_spec(" rb ").unwrap().name(), "rb");
/// assert!(sampler_from_spec("under(beta=x)").is_err());
/// ```
pub fn sampler_from_spec(spec: &str) -> Result<Box<dyn Sampler>> {
    let spec = spec.trim();
    let (method, args) = match spec.find('(') {
        Some(i) => {
            let inner = spec[i + 1..].strip_suffix(')').ok_or_else(|| {
                Error::invalid(format!("sampler spec '{spec}': missing ')' at the end"))
            })?;
            (spec[..i].trim(), inner)
        }
        None => (spec, ""),
    };
    let mut p = SamplerParams::default();
    for arg in args.split(',').map(str::trim).filter(|a| !a.is_empty()) {
        let bad = |what: &str| Error::invalid(format!("sampler spec '{spec}': {what} in '{arg}'"));
        let (key, value) = match arg.split_once('=') {
            Some((k, v)) => (k.trim(), v.trim()),
            None => {
                match arg {
                    "exact" => p.exact = Some(true),
                    "bernoulli" => p.exact = Some(false),
                    "standardise" | "standardize" => p.standardise = true,
                    _ => return Err(bad("unknown flag (flags: exact, bernoulli, standardise)")),
                }
                continue;
            }
        };
        let num = |v: &str| v.parse::<f64>().map_err(|_| bad("not a number"));
        let int = |v: &str| v.parse::<usize>().map_err(|_| bad("not a whole number"));
        match key {
            "beta" => p.beta = Some(num(value)?),
            "ratio" => p.ratio = Some(num(value)?),
            "amount" => p.amount = Some(num(value)?),
            "a" => p.a = Some(num(value)?),
            "under" => p.under = Some(num(value)?),
            "k" => p.k = Some(int(value)?),
            "m" => p.m = Some(int(value)?),
            "k3" => p.k3 = Some(int(value)?),
            "enn_k" => p.enn_k = Some(int(value)?),
            "rule" => {
                p.rule = Some(match value {
                    "mode" => EnnRule::Mode,
                    "all" => EnnRule::All,
                    _ => return Err(bad("rule must be mode or all")),
                })
            }
            "rates" => p.rates = Some(value.split(':').map(num).collect::<Result<_>>()?),
            "counts" => p.counts = Some(value.split(':').map(int).collect::<Result<_>>()?),
            _ => return Err(bad("unknown parameter")),
        }
    }
    sampler_from_name(method, &p)
}
