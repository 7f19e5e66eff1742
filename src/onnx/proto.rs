//! The few ONNX protobuf messages an exported model needs, encoded by hand
//! (field numbers from `onnx.proto`, IR version 10): a model, its graph,
//! nodes, attributes, tensors and the types of inputs and outputs.
//!
//! Protobuf's wire format is a sequence of (field number, wire type, value)
//! records: varints for integers, length-prefixed bytes for strings and
//! nested messages, packed runs for repeated numbers. Fields are written in
//! a fixed order, so the same model gives the same bytes.

/// Element types of tensors (`TensorProto.DataType`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DataType {
    /// 8-bit unsigned integer.
    Uint8 = 2,
    /// 64-bit signed integer.
    Int64 = 7,
    /// UTF-8 string.
    String = 8,
    /// 64-bit float.
    Double = 11,
}

/// A protobuf message under construction.
#[derive(Debug, Default, Clone)]
pub struct Message(Vec<u8>);

impl Message {
    /// An empty message.
    pub fn new() -> Self {
        Message(Vec::new())
    }

    /// The encoded bytes.
    pub fn into_bytes(self) -> Vec<u8> {
        self.0
    }

    fn varint(&mut self, mut v: u64) {
        while v >= 0x80 {
            self.0.push((v as u8) | 0x80);
            v >>= 7;
        }
        self.0.push(v as u8);
    }

    fn key(&mut self, field: u32, wire: u8) {
        self.varint(u64::from(field) << 3 | u64::from(wire));
    }

    /// An integer field (`int32`, `int64`, enums).
    pub fn int(&mut self, field: u32, v: i64) -> &mut Self {
        self.key(field, 0);
        self.varint(v as u64);
        self
    }

    /// A bytes or string field.
    pub fn bytes(&mut self, field: u32, v: &[u8]) -> &mut Self {
        self.key(field, 2);
        self.varint(v.len() as u64);
        self.0.extend_from_slice(v);
        self
    }

    /// A string field.
    pub fn string(&mut self, field: u32, v: &str) -> &mut Self {
        self.bytes(field, v.as_bytes())
    }

    /// A nested message field.
    pub fn message(&mut self, field: u32, m: &Message) -> &mut Self {
        self.bytes(field, &m.0)
    }

    /// A packed repeated `int64` field.
    pub fn packed_ints(&mut self, field: u32, v: &[i64]) -> &mut Self {
        let mut body = Message::new();
        v.iter().for_each(|&x| body.varint(x as u64));
        self.bytes(field, &body.0)
    }

    /// A packed repeated `double` field.
    pub fn packed_doubles(&mut self, field: u32, v: &[f64]) -> &mut Self {
        let body: Vec<u8> = v.iter().flat_map(|x| x.to_le_bytes()).collect();
        self.bytes(field, &body)
    }
}

/// A constant tensor: its shape and values.
#[derive(Debug, Clone, PartialEq)]
pub enum Tensor {
    /// 64-bit floats.
    Double(Vec<i64>, Vec<f64>),
    /// 64-bit integers.
    Int64(Vec<i64>, Vec<i64>),
    /// Bytes (stored as raw data).
    Uint8(Vec<i64>, Vec<u8>),
    /// Strings.
    Strings(Vec<i64>, Vec<String>),
}

impl Tensor {
    /// A one-dimensional tensor of doubles.
    pub fn doubles(v: Vec<f64>) -> Tensor {
        Tensor::Double(vec![v.len() as i64], v)
    }

    /// A one-dimensional tensor of integers.
    pub fn ints(v: Vec<i64>) -> Tensor {
        Tensor::Int64(vec![v.len() as i64], v)
    }

    /// A scalar double.
    pub fn scalar(v: f64) -> Tensor {
        Tensor::Double(Vec::new(), vec![v])
    }

    /// The `TensorProto` named `name`.
    pub fn encode(&self, name: &str) -> Message {
        let mut m = Message::new();
        let dims = match self {
            Tensor::Double(d, _) | Tensor::Int64(d, _) | Tensor::Uint8(d, _) => d,
            Tensor::Strings(d, _) => d,
        };
        dims.iter().for_each(|&d| {
            m.int(1, d);
        });
        match self {
            Tensor::Double(_, v) => {
                m.int(2, DataType::Double as i64);
                m.string(8, name);
                m.packed_doubles(10, v);
            }
            Tensor::Int64(_, v) => {
                m.int(2, DataType::Int64 as i64);
                m.packed_ints(7, v);
                m.string(8, name);
            }
            Tensor::Uint8(_, v) => {
                m.int(2, DataType::Uint8 as i64);
                m.string(8, name);
                m.bytes(9, v);
            }
            Tensor::Strings(_, v) => {
                m.int(2, DataType::String as i64);
                v.iter().for_each(|s| {
                    m.string(6, s);
                });
                m.string(8, name);
            }
        }
        m
    }
}

/// A node attribute's value.
#[derive(Debug, Clone, PartialEq)]
pub enum Attr {
    /// One integer.
    Int(i64),
    /// Integers.
    Ints(Vec<i64>),
    /// A tensor.
    Tensor(Tensor),
    /// A text (UTF-8).
    String(String),
}

impl Attr {
    /// The `AttributeProto` named `name`.
    pub fn encode(&self, name: &str) -> Message {
        let mut m = Message::new();
        m.string(1, name);
        match self {
            Attr::Int(v) => m.int(3, *v).int(20, 2),
            Attr::Tensor(t) => m.message(5, &t.encode("")).int(20, 4),
            Attr::Ints(v) => m.packed_ints(8, v).int(20, 7),
            Attr::String(s) => m.string(4, s).int(20, 3),
        };
        m
    }
}

/// One dimension of a declared shape.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Dim {
    /// A fixed size.
    Fixed(i64),
    /// A size named by a parameter (`N`: the rows of a batch).
    Named(String),
}

/// A graph input's or output's `ValueInfoProto`: name, element type, shape.
pub fn value_info(name: &str, elem: DataType, shape: &[Dim]) -> Message {
    let mut dims = Message::new();
    for d in shape {
        let mut dim = Message::new();
        match d {
            Dim::Fixed(v) => dim.int(1, *v),
            Dim::Named(s) => dim.string(2, s),
        };
        dims.message(1, &dim);
    }
    let mut tensor = Message::new();
    tensor.int(1, elem as i64).message(2, &dims);
    let mut ty = Message::new();
    ty.message(1, &tensor);
    let mut m = Message::new();
    m.string(1, name).message(2, &ty);
    m
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn varints_and_fields_follow_the_wire_format() {
        let mut m = Message::new();
        m.int(1, 150);
        assert_eq!(m.clone().into_bytes(), vec![0x08, 0x96, 0x01]);
        m.string(2, "testing");
        assert_eq!(
            &m.clone().into_bytes()[3..],
            &[0x12, 0x07, b't', b'e', b's', b't', b'i', b'n', b'g']
        );
        let mut neg = Message::new();
        neg.int(1, -1);
        assert_eq!(
            neg.into_bytes().len(),
            11,
            "a negative int64 takes ten bytes"
        );
        let mut p = Message::new();
        p.packed_ints(4, &[3, 270, 86942]);
        assert_eq!(
            p.into_bytes(),
            vec![0x22, 0x06, 0x03, 0x8E, 0x02, 0x9E, 0xA7, 0x05]
        );
    }

    #[test]
    fn doubles_are_little_endian_and_packed() {
        let mut m = Message::new();
        m.packed_doubles(10, &[1.0]);
        assert_eq!(m.into_bytes(), vec![0x52, 8, 0, 0, 0, 0, 0, 0, 0xF0, 0x3F]);
    }
}
