//! Building an ONNX graph: named values, constants (initializers), nodes of
//! the standard (`ai.onnx`, opset 21) and machine-learning (`ai.onnx.ml`,
//! opset 5) domains, and the model around them.
//!
//! Values get sequential names, so building the same graph twice gives the
//! same bytes. The arithmetic helpers are one node each, in double
//! precision, so an exported computation can follow rarity's own formulas
//! operation by operation.

use super::proto::{value_info, Attr, DataType, Dim, Message, Tensor};

/// ONNX IR version written (the one of ONNX 1.16+, which defines
/// `ai.onnx.ml` opset 5).
pub const IR_VERSION: i64 = 10;
/// Opset of the default domain.
pub const OPSET: i64 = 21;
/// Opset of `ai.onnx.ml` (the one with `TreeEnsemble`).
pub const ML_OPSET: i64 = 5;
/// The machine-learning domain.
pub const ML: &str = "ai.onnx.ml";

/// A value of the graph: a node output, an input or a constant.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Value(String);

impl Value {
    /// The value's name in the graph.
    pub fn name(&self) -> &str {
        &self.0
    }
}

/// A graph under construction.
#[derive(Debug, Default)]
pub struct Graph {
    nodes: Vec<Message>,
    initializers: Vec<Message>,
    inputs: Vec<Message>,
    outputs: Vec<Message>,
    next: usize,
}

impl Graph {
    /// An empty graph.
    pub fn new() -> Self {
        Graph::default()
    }

    fn fresh(&mut self, hint: &str) -> String {
        self.next += 1;
        format!("{hint}_{}", self.next)
    }

    /// Declares a graph input.
    pub fn input(&mut self, name: &str, elem: DataType, shape: &[Dim]) -> Value {
        self.inputs.push(value_info(name, elem, shape));
        Value(name.to_string())
    }

    /// Declares `v` a graph output under `name` (through an `Identity` node).
    pub fn output(&mut self, v: &Value, name: &str, elem: DataType, shape: &[Dim]) {
        self.node_named("Identity", "", &[v], &[], name);
        self.outputs.push(value_info(name, elem, shape));
    }

    /// A constant tensor.
    pub fn constant(&mut self, t: Tensor) -> Value {
        let name = self.fresh("c");
        self.initializers.push(t.encode(&name));
        Value(name)
    }

    /// A scalar double constant.
    pub fn scalar(&mut self, v: f64) -> Value {
        self.constant(Tensor::scalar(v))
    }

    /// A one-dimensional double constant.
    pub fn doubles(&mut self, v: Vec<f64>) -> Value {
        self.constant(Tensor::doubles(v))
    }

    /// A one-dimensional integer constant.
    pub fn ints(&mut self, v: Vec<i64>) -> Value {
        self.constant(Tensor::ints(v))
    }

    fn node_named(
        &mut self,
        op: &str,
        domain: &str,
        inputs: &[&Value],
        attrs: &[(&str, Attr)],
        out: &str,
    ) {
        self.node_outputs(op, domain, inputs, attrs, &[out.to_string()]);
    }

    fn node_outputs(
        &mut self,
        op: &str,
        domain: &str,
        inputs: &[&Value],
        attrs: &[(&str, Attr)],
        outs: &[String],
    ) {
        let mut m = Message::new();
        inputs.iter().for_each(|v| {
            m.string(1, &v.0);
        });
        outs.iter().for_each(|o| {
            m.string(2, o);
        });
        m.string(3, &format!("{op}_{}", outs[0]));
        m.string(4, op);
        for (name, a) in attrs {
            m.message(5, &a.encode(name));
        }
        if !domain.is_empty() {
            m.string(7, domain);
        }
        self.nodes.push(m);
    }

    /// A node of `domain` (empty: the default) with one output.
    pub fn op_in(
        &mut self,
        domain: &str,
        op: &str,
        inputs: &[&Value],
        attrs: &[(&str, Attr)],
    ) -> Value {
        let out = self.fresh(&op.to_ascii_lowercase());
        self.node_named(op, domain, inputs, attrs, &out);
        Value(out)
    }

    /// A node of the default domain with one output.
    pub fn op(&mut self, op: &str, inputs: &[&Value], attrs: &[(&str, Attr)]) -> Value {
        self.op_in("", op, inputs, attrs)
    }

    /// `a + b` (broadcasting).
    pub fn add(&mut self, a: &Value, b: &Value) -> Value {
        self.op("Add", &[a, b], &[])
    }

    /// `a - b`.
    pub fn sub(&mut self, a: &Value, b: &Value) -> Value {
        self.op("Sub", &[a, b], &[])
    }

    /// `a * b`.
    pub fn mul(&mut self, a: &Value, b: &Value) -> Value {
        self.op("Mul", &[a, b], &[])
    }

    /// `a / b`.
    pub fn div(&mut self, a: &Value, b: &Value) -> Value {
        self.op("Div", &[a, b], &[])
    }

    /// `exp(a)`.
    pub fn exp(&mut self, a: &Value) -> Value {
        self.op("Exp", &[a], &[])
    }

    /// `-a`.
    pub fn neg(&mut self, a: &Value) -> Value {
        self.op("Neg", &[a], &[])
    }

    /// `c ? a : b`.
    pub fn select(&mut self, c: &Value, a: &Value, b: &Value) -> Value {
        self.op("Where", &[c, a, b], &[])
    }

    /// Columns `from..to` of a matrix (`[N, to - from]`).
    pub fn columns(&mut self, m: &Value, from: usize, to: usize) -> Value {
        let (s, e, a) = (
            self.ints(vec![from as i64]),
            self.ints(vec![to as i64]),
            self.ints(vec![1]),
        );
        self.op("Slice", &[m, &s, &e, &a], &[])
    }

    /// Columns of a matrix picked by index (`[N, indices.len()]`).
    pub fn pick_columns(&mut self, m: &Value, indices: Vec<i64>) -> Value {
        let i = self.ints(indices);
        self.op("Gather", &[m, &i], &[("axis", Attr::Int(1))])
    }

    /// Matrices side by side (`Concat` on axis 1).
    pub fn concat_columns(&mut self, parts: &[&Value]) -> Value {
        self.op("Concat", parts, &[("axis", Attr::Int(1))])
    }

    /// `m` cut into its `k` slices of width 1 along `axis` (one `Split`
    /// node).
    pub fn split(&mut self, m: &Value, k: usize, axis: usize) -> Vec<Value> {
        let outs: Vec<String> = (0..k).map(|_| self.fresh("split")).collect();
        self.node_outputs(
            "Split",
            "",
            &[m],
            &[
                ("axis", Attr::Int(axis as i64)),
                ("num_outputs", Attr::Int(k as i64)),
            ],
            &outs,
        );
        outs.into_iter().map(Value).collect()
    }

    /// The `k` columns of a matrix, each `[N, 1]`.
    pub fn split_columns(&mut self, m: &Value, k: usize) -> Vec<Value> {
        if k == 1 {
            return vec![m.clone()];
        }
        self.split(m, k, 1)
    }

    /// The sum of each row's `k` values added left to right, as a column
    /// (`[N, 1]`): the order of a Rust `iter().sum()`, where a reduction
    /// node may add in any order.
    pub fn row_sum_in_order(&mut self, m: &Value, k: usize) -> Value {
        let cols = self.split_columns(m, k);
        let mut s = cols[0].clone();
        for c in &cols[1..] {
            s = self.add(&s, c);
        }
        s
    }

    /// The sum of each row, kept as a column (`[N, 1]`), in any order.
    pub fn row_sum(&mut self, m: &Value) -> Value {
        let axes = self.ints(vec![1]);
        self.op("ReduceSum", &[m, &axes], &[("keepdims", Attr::Int(1))])
    }

    /// The largest value of each row, kept as a column.
    pub fn row_max(&mut self, m: &Value) -> Value {
        let axes = self.ints(vec![1]);
        self.op("ReduceMax", &[m, &axes], &[("keepdims", Attr::Int(1))])
    }

    /// Each row's index of its largest (`last`: its last largest) value
    /// (`[N]`, int64).
    pub fn row_argmax(&mut self, m: &Value, last: bool) -> Value {
        self.op(
            "ArgMax",
            &[m],
            &[
                ("axis", Attr::Int(1)),
                ("keepdims", Attr::Int(0)),
                ("select_last_index", Attr::Int(i64::from(last))),
            ],
        )
    }

    /// Each row's index of its last smallest value (`[N]`, int64).
    pub fn row_argmin_last(&mut self, m: &Value) -> Value {
        self.op(
            "ArgMin",
            &[m],
            &[
                ("axis", Attr::Int(1)),
                ("keepdims", Attr::Int(0)),
                ("select_last_index", Attr::Int(1)),
            ],
        )
    }

    /// A value converted to another element type.
    pub fn cast(&mut self, v: &Value, to: DataType) -> Value {
        self.op("Cast", &[v], &[("to", Attr::Int(to as i64))])
    }

    /// The `ModelProto` of this graph with its metadata, encoded.
    pub fn into_model(
        self,
        name: &str,
        producer_version: &str,
        metadata: &[(&str, String)],
    ) -> Vec<u8> {
        let mut graph = Message::new();
        self.nodes.iter().for_each(|n| {
            graph.message(1, n);
        });
        graph.string(2, name);
        self.initializers.iter().for_each(|t| {
            graph.message(5, t);
        });
        self.inputs.iter().for_each(|v| {
            graph.message(11, v);
        });
        self.outputs.iter().for_each(|v| {
            graph.message(12, v);
        });
        let mut model = Message::new();
        model
            .int(1, IR_VERSION)
            .string(2, "rarity")
            .string(3, producer_version)
            .string(4, "io.github.rarity")
            .int(5, 1)
            .message(7, &graph);
        for (domain, version) in [("", OPSET), (ML, ML_OPSET)] {
            let mut o = Message::new();
            o.string(1, domain).int(2, version);
            model.message(8, &o);
        }
        for (k, v) in metadata {
            let mut e = Message::new();
            e.string(1, k).string(2, v);
            model.message(14, &e);
        }
        model.into_bytes()
    }
}
