use super::*;
use crate::data::Dataset;
use crate::decide::{Decision, Rule};

#[test]
fn builds_every_learner() {
    let cases = [
        ("tree", "tree(criterion=gini)"),
        ("tree(criterion=gain_ratio,max_depth=4,min_samples_leaf=2,max_features=log2,leaf=laplace)",
         "tree(criterion=gain_ratio,max_depth=4,min_samples_leaf=2,max_features=log2,leaf=laplace)"),
        ("tree(max_features=3, leaf=m_estimate(m=5))", "tree(criterion=gini,max_features=3,leaf=m_estimate(m=5))"),
        ("tree(splitter=exact)", "tree(criterion=gini,splitter=exact)"),
        ("tree(splitter=hist)", "tree(criterion=gini)"),
        ("forest(n=7,splitter=exact)", "bagging(n=7,learner=tree(criterion=gini,max_features=sqrt,splitter=exact),sample=bootstrap)"),
        ("forest(n=7)", "bagging(n=7,learner=tree(criterion=gini,max_features=sqrt),sample=bootstrap)"),
        ("forest(n=7,max_features=none,vote=hard)", "bagging(n=7,learner=tree(criterion=gini),sample=bootstrap,vote=hard)"),
        ("bagging(n=3, learner=tree(criterion=entropy), sample=bootstrap(fraction=0.5))",
         "bagging(n=3,learner=tree(criterion=entropy),sample=bootstrap(fraction=0.5))"),
        ("bagging", "bagging(n=100,learner=tree(criterion=gini),sample=bootstrap)"),
        ("rdt(n=4, max_depth=3)", "bagging(n=4,learner=random_tree(max_depth=3),sample=none)"),
        ("bagging(n=2, learner=rdt(n=3))", "bagging(n=2,learner=bagging(n=3,learner=random_tree,sample=none),sample=bootstrap)"),
    ];
    for (spec, name) in cases {
        assert_eq!(build_learner(spec).unwrap().name(), name, "{spec}");
    }
    // A built ensemble fits.
    let ds = Dataset::from_rows(
        (0..30).map(|i| vec![i as f64]).collect(),
        (0..30).map(|i| (i > 20) as u32).collect(),
        vec!["a".into(), "b".into()],
    )
    .unwrap();
    let rows: Vec<usize> = (0..30).collect();
    let m = build_learner("bagging(n=3, learner=rdt(n=2))")
        .unwrap()
        .fit(&ds.view(&rows), &mut crate::rng::stream(0, 0))
        .unwrap();
    assert_eq!(m.predict_proba(&ds).unwrap().n_rows(), 30);
}

#[test]
fn bad_names_and_values_list_what_is_accepted() {
    let err = |s: &str| build_learner(s).unwrap_err().to_string();
    assert!(err("perceptron").contains("tree, random_tree, logistic"));
    assert!(err("tree(depth=3)").contains("accepted: criterion, max_depth"));
    assert!(err("tree(criterion=chaos)").contains("one of gini, entropy, gain_ratio"));
    assert!(err("tree(splitter=approx)").contains("one of exact, hist"));
    assert!(err("tree(max_features=0)").contains("max_features"));
    assert!(err("tree(max_features=1.5)").contains("max_features"));
    assert!(err("tree(max_depth=0)").contains("max_depth"));
    assert!(err("tree(max_depth=2.5)").contains("whole number"));
    assert!(err("forest(n=0)").contains("n=0"));
    assert!(err("bagging(sample=smoot)").contains("unknown"));
    assert!(err("bagging(learner=3)").contains("learner"));
    assert!(err("tree(leaf=m_estimate(m=-1))").contains("leaf"));
    assert!(err("tree(max_depth=1,max_depth=2)").contains("twice"));
    assert!(err("bagging(sample=bootstrap(fraction=0))").contains("fraction"));
    assert!(err("tree + correct").contains("stage 'correct'"));
    assert!(err("tree(3)").contains("needs a name"));
}

#[test]
fn base_learner_names_are_specs_of_the_same_learner() {
    for spec in [
        "logistic",
        "logistic(c=0.5, class_weight=given(1, 4.5), tol=1e-8, max_iter=50)",
        "gnb(var_smoothing=1e-6)",
        "nb-binned(bins=7)",
        "knn(k=3, weights=distance)",
        "svm(kernel=linear, c=2, class_weight=balanced)",
        "svm(gamma=0.25)",
        "lda(priors=balanced)",
        "qda(priors=given(0.2, 0.8), reg=0.3)",
        "adaboost(n=10, depth=2)",
        "adac2(n=5, cost_pos=balanced, cost_neg=0.2)",
        "logitboost(n=7)",
        "svdd(nu=0.2, gamma=0.5, normal=0)",
    ] {
        let name = build_learner(spec).unwrap().name();
        let again = build_learner(&name).unwrap_or_else(|e| panic!("{spec} -> {name}: {e}"));
        assert_eq!(again.name(), name, "{spec}");
    }
    assert_eq!(
        build_learner("logistic(c=2, class_weight=balanced)")
            .unwrap()
            .name(),
        "logistic(c=2,class_weight=balanced)"
    );
}

#[test]
fn named_ensembles_have_the_papers_defaults() {
    let cases = [
        (
            "pt-bagging",
            "bagging(n=100,learner=tree(criterion=gini),sample=bootstrap)",
        ),
        (
            "eb-bagging(n=7)",
            "bagging(n=7,learner=tree(criterion=gini),sample=eb)",
        ),
        (
            "smote-bagging",
            "bagging(n=100,learner=tree(criterion=gini),sample=hybrid(amount=500,under=120,k=5))",
        ),
        (
            "underover-bagging(a=10)",
            "bagging(n=100,learner=tree(criterion=gini),sample=underover(a=10))",
        ),
        (
            "under-bagging",
            "bagging(n=100,learner=tree(criterion=gini),sample=under(ratio=1))",
        ),
        (
            "under-bagging(beta=0.25)",
            "bagging(n=100,learner=tree(criterion=gini),sample=under(beta=0.25))",
        ),
        (
            "balanced-forest(n=3)",
            "bagging(n=3,learner=tree(criterion=gini,max_features=sqrt),sample=balanced-bootstrap)",
        ),
        (
            "easy-ensemble",
            "bagging(n=10,learner=adaboost(n=50,depth=1),sample=eb)",
        ),
        ("rus-boost(n=20)", "rus-boost(n=20,depth=1)"),
    ];
    for (spec, name) in cases {
        assert_eq!(build_learner(spec).unwrap().name(), name, "{spec}");
    }
    for (spec, decision) in [
        ("pt-bagging", Decision::Priors),
        ("pt-bagging+threshold(f1)", Decision::F1),
        ("eb-bagging", Decision::Half),
        ("rus-boost+argmax", Decision::Rule(Rule::Argmax)),
        ("bagging", Decision::Rule(Rule::Argmax)),
    ] {
        assert_eq!(build_strategy(spec).unwrap().decision, decision, "{spec}");
    }
}

#[test]
fn named_ensembles_reject_bad_arguments() {
    for (spec, needle) in [
        ("pt-bagging(a=5)", "unknown argument 'a'"),
        ("under-bagging(beta=0.2,ratio=1)", "only one of beta, ratio"),
        ("under-bagging(beta=2)", "beta"),
        ("underover-bagging(a=-1)", "a=-1"),
        ("smote-bagging(k=0)", "k="),
        ("rus-boost(n=0)", "n="),
        ("easy-ensemble(rounds=x)", "rounds"),
    ] {
        let e = build_strategy(spec).unwrap_err().to_string();
        assert!(e.contains(needle), "{spec}: {e}");
    }
}
