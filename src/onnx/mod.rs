//! Writing models in the ONNX format: the protobuf messages (`proto`), a
//! graph builder with the operators an exported strategy uses (`graph`),
//! and sums of trees as one `TreeEnsemble` node (`trees`).
//!
//! Each fitted learner writes its own probabilities into a graph
//! ([`crate::learn::Classifier::to_onnx`]); `export` adds what a strategy
//! does after the learner (correction, calibration, prior shift, decision).

pub mod graph;
pub mod proto;
pub mod trees;

pub use graph::{Graph, Value};
pub use proto::{DataType, Dim, Tensor};
pub use trees::{tree_sum, Child, Split, TreeTable};

/// Softmax of each row of `z` (`[N, K]`), as rarity computes it: the row's
/// maximum subtracted, exponentials divided by their sum.
pub fn softmax_rows(g: &mut Graph, z: &Value, k: usize) -> Value {
    let m = g.row_max(z);
    let c = g.sub(z, &m);
    let e = g.exp(&c);
    let s = g.row_sum_in_order(&e, k);
    g.div(&e, &s)
}

/// The logistic function of `z`, as rarity computes it without overflow:
/// `1 / (1 + exp(-z))` where `z >= 0`, else `exp(z) / (1 + exp(z))`.
pub fn sigmoid(g: &mut Graph, z: &Value) -> Value {
    let zero = g.scalar(0.0);
    let one = g.scalar(1.0);
    let nonneg = g.op("GreaterOrEqual", &[z, &zero], &[]);
    let mz = g.neg(z);
    let em = g.exp(&mz);
    let d1 = g.add(&one, &em);
    let pos = g.div(&one, &d1);
    let ep = g.exp(z);
    let d2 = g.add(&one, &ep);
    let neg = g.div(&ep, &d2);
    g.select(&nonneg, &pos, &neg)
}

/// The sum over axis `axis` (of size `n`) of `t`, added in index order as
/// a Rust loop adds (`acc += t[j]` from 0), the axis removed.
pub fn sum_in_order(g: &mut Graph, t: &Value, n: usize, axis: usize) -> Value {
    let parts = if n == 1 {
        vec![t.clone()]
    } else {
        g.split(t, n, axis)
    };
    let mut s = parts[0].clone();
    for p in &parts[1..] {
        s = g.add(&s, p);
    }
    let axes = g.ints(vec![axis as i64]);
    g.op("Squeeze", &[&s, &axes], &[])
}

/// `[1 - p, p]` as two columns, from a column `p` (`[N, 1]`).
pub fn binary_columns(g: &mut Graph, p: &Value) -> Value {
    let one = g.scalar(1.0);
    let q = g.sub(&one, p);
    g.concat_columns(&[&q, p])
}

/// `k` columns from the columns of `p`, placed at `classes` (zeros in the
/// others): rarity's `scatter` of the classes a model saw.
pub fn scatter_columns(g: &mut Graph, p: &Value, classes: &[usize], k: usize) -> Value {
    if classes.len() == k && classes.iter().enumerate().all(|(i, &c)| i == c) {
        return p.clone();
    }
    // A k x m matrix would mix values through sums; gather a zero column
    // instead: column m of [p | 0] holds zeros.
    let first = g.columns(p, 0, 1);
    let zero = g.scalar(0.0);
    let zeros = g.mul(&first, &zero);
    let padded = g.concat_columns(&[p, &zeros]);
    let m = classes.len();
    let mut pick = vec![m as i64; k];
    for (s, &c) in classes.iter().enumerate() {
        pick[c] = s as i64;
    }
    g.pick_columns(&padded, pick)
}

/// Each row of `p` divided by its sum, a row summing to 0 or less made
/// uniform: rarity's `normalise_rows`.
pub fn normalise_rows(g: &mut Graph, p: &Value, k: usize) -> Value {
    let s = g.row_sum_in_order(p, k);
    let zero = g.scalar(0.0);
    let positive = g.op("Greater", &[&s, &zero], &[]);
    let q = g.div(p, &s);
    let uniform = g.scalar(1.0 / k as f64);
    g.select(&positive, &q, &uniform)
}

/// `row` repeated for every row of `x` (`[N, row.len()]`).
pub fn constant_rows(g: &mut Graph, x: &Value, row: Vec<f64>) -> Value {
    let k = row.len() as i64;
    let n = g.op("Shape", &[x], &[("end", proto::Attr::Int(1))]);
    let kk = g.ints(vec![k]);
    let shape = g.op("Concat", &[&n, &kk], &[("axis", proto::Attr::Int(0))]);
    let c = g.constant(Tensor::Double(vec![1, k], row));
    g.op("Expand", &[&c, &shape], &[])
}

/// `b + W x` for each row of `x` (`[N, d]`): `coef` holds `W`'s rows
/// (`o x d`, row major), `intercept` its `o` offsets (`[N, o]`). Each dot
/// product is added as rarity's `linalg::dot` adds it (four running sums
/// over the features in chunks of four, combined as `(s0 + s2) + (s1 +
/// s3)`, then the remainder in order), so that ill-conditioned models give
/// the same bits, where a `MatMul` would add in its own order.
pub fn linear(g: &mut Graph, x: &Value, coef: &[f64], intercept: &[f64]) -> Value {
    let o = intercept.len();
    let d = coef.len() / o.max(1);
    // Products [N, o, d]: x as [N, 1, d] times W [o, d].
    let axis = g.ints(vec![1]);
    let rows = g.op("Unsqueeze", &[x, &axis], &[]);
    let w = g.constant(Tensor::Double(vec![o as i64, d as i64], coef.to_vec()));
    let prod = g.mul(&rows, &w);
    let s = dot_sums(g, &prod, d);
    let b = g.doubles(intercept.to_vec());
    g.add(&b, &s)
}

/// The sums over the last axis (`d` products) of `prod` (`[N, o, d]`) in
/// rarity's `linalg::dot` order, as `[N, o]`.
fn dot_sums(g: &mut Graph, prod: &Value, d: usize) -> Value {
    let take = |g: &mut Graph, from: usize, to: usize| {
        let (s, e, a) = (
            g.ints(vec![from as i64]),
            g.ints(vec![to as i64]),
            g.ints(vec![2]),
        );
        g.op("Slice", &[prod, &s, &e, &a], &[])
    };
    let chunks = d / 4;
    let mut s: Option<Value> = None;
    if chunks > 0 {
        // acc[l] += x[4c + l] * w[4c + l], chunk by chunk: [N, o, 4].
        let mut acc = take(g, 0, 4);
        for c in 1..chunks {
            let part = take(g, 4 * c, 4 * c + 4);
            acc = g.add(&acc, &part);
        }
        let lane = |g: &mut Graph, l: usize| {
            let (st, en, ax) = (
                g.ints(vec![l as i64]),
                g.ints(vec![l as i64 + 1]),
                g.ints(vec![2]),
            );
            g.op("Slice", &[&acc, &st, &en, &ax], &[])
        };
        let (a0, a1, a2, a3) = (lane(g, 0), lane(g, 1), lane(g, 2), lane(g, 3));
        let l02 = g.add(&a0, &a2);
        let l13 = g.add(&a1, &a3);
        s = Some(g.add(&l02, &l13));
    }
    for j in 4 * chunks..d {
        let t = take(g, j, j + 1);
        s = Some(match s {
            Some(v) => g.add(&v, &t),
            None => t,
        });
    }
    let s = match s {
        Some(v) => v,
        None => {
            // No features: every dot product is the empty sum, 0.
            let none = take(g, 0, 0);
            let axes = g.ints(vec![2]);
            g.op(
                "ReduceSum",
                &[&none, &axes],
                &[("keepdims", proto::Attr::Int(1))],
            )
        }
    };
    let axes = g.ints(vec![2]);
    g.op("Squeeze", &[&s, &axes], &[])
}
