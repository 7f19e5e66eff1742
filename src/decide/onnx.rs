//! Decision rules as ONNX graph nodes: each row's decided class (`[N]`,
//! int64) from its probabilities, with the tie-breaking of
//! [`Rule::decide`]: argmax takes the first most probable class, `lambda`
//! and `cost` the last best one (their loops keep a later class on a tie).

use crate::onnx::{DataType, Graph, Tensor, Value};

use super::Rule;

impl Rule {
    /// The decided class of each row of `p` (`[N, k]`); `amounts` is the
    /// column (`[N, 1]`) a benefit rule reads.
    pub fn to_onnx(
        &self,
        g: &mut Graph,
        p: &Value,
        amounts: Option<&Value>,
    ) -> Result<Value, String> {
        let k = match self {
            Rule::Lambda(l) => l.len(),
            Rule::Cost(m) => m.n_classes(),
            _ => 2,
        };
        let flag = |g: &mut Graph, b: &Value| {
            let axes = g.ints(vec![1]);
            let c = g.op("Squeeze", &[b, &axes], &[]);
            g.cast(&c, DataType::Int64)
        };
        Ok(match self {
            Rule::Argmax => g.row_argmax(p, false),
            Rule::Threshold(t) => {
                let p1 = g.columns(p, 1, 2);
                let t = g.scalar(*t);
                let b = g.op("GreaterOrEqual", &[&p1, &t], &[]);
                flag(g, &b)
            }
            Rule::Lambda(l) => {
                let l = g.doubles(l.clone());
                let r = g.div(p, &l);
                g.row_argmax(&r, true)
            }
            Rule::Cost(m) => {
                // risk(d) = sum_j p_j loss(d, j): p times the transposed matrix.
                let t: Vec<f64> = (0..k * k).map(|i| m.loss(i % k, i / k)).collect();
                let lt = g.constant(Tensor::Double(vec![k as i64, k as i64], t));
                let risk = g.op("MatMul", &[p, &lt], &[]);
                g.row_argmin_last(&risk)
            }
            Rule::Benefit(b) => {
                let a = amounts.ok_or_else(|| format!("the amount column '{}'", b.amount))?;
                let p1 = g.columns(p, 1, 2);
                let gain = g.mul(&p1, a);
                let v = g.scalar(b.overhead);
                let act = g.op("Greater", &[&gain, &v], &[]);
                flag(g, &act)
            }
        })
    }
}
