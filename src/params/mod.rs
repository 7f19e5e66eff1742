//! Parameters and registries: the syntax of specs, typed parameters with
//! their defaults and ranges declared once, and the registry entries of
//! every family (learners in `learn::registry`, samplers in
//! `sample::registry`, decision rules and calibrators in `decide::registry`,
//! ensembles in `ensemble::registry`).
//!
//! - [`syntax`]: `name(key=value, ...)` calls joined by `+`, parsed once into
//!   a tree of [`Call`]s and [`Value`]s;
//! - [`ParamType`]: how a value becomes a typed field (numbers, whole numbers,
//!   words, lists, `none`), with [`Bounds`] for numeric ranges;
//! - [`params!`](params): a parameter struct declared once, field by field,
//!   with its default, range and doc;
//! - [`Entry`], [`find`], [`help`]: the registry tables and their lookups.

mod macros;
pub mod syntax;
mod table;
mod types;

pub(crate) use macros::params;
pub use syntax::{number_text, Call, Value};
pub use table::{
    apply, defaults_table, find, from_call, help, set_text, unknown, Entry, Family, Merged,
    ParamInfo, Params,
};
pub use types::{affordable, expected, within, Bounds, ParamType};
pub(crate) use types::{choice, word_or_number};

#[cfg(test)]
mod tests {
    use super::*;

    choice! {
        /// A test choice.
        #[derive(Debug, Clone, Copy, PartialEq)]
        pub enum Shape {
            /// Round.
            Round = "round",
            /// Square.
            Square = "square",
        }
    }

    fn no_negative_total(p: &Demo) -> crate::error::Result<()> {
        if p.rates.iter().sum::<f64>() > 10.0 {
            return Err(crate::error::Error::invalid("rates sum above 10"));
        }
        Ok(())
    }

    params! {
        /// A demo parameter struct.
        #[derive(Debug, Clone, PartialEq)]
        pub struct Demo {
            /// Rounds.
            pub n: usize = 50 => Bounds::at_least(1.0),
            /// A rate.
            pub beta: Option<f64> = None => Bounds::left_open(0.0, 1.0),
            /// A shape.
            pub shape: Shape = Shape::Round,
            /// Per-class rates.
            pub rates: Vec<f64> = vec![1.0] => Bounds::at_least(0.0),
        }
        check = no_negative_total;
    }

    fn call(s: &str) -> Call {
        syntax::parse(s).unwrap().remove(0)
    }

    #[test]
    fn params_read_defaults_ranges_and_lists() {
        let d: Demo = from_call(&call("demo")).unwrap();
        assert_eq!(d, Demo::default());
        let d: Demo = from_call(&call("demo(n=3, beta=0.5, shape=square, rates=0.2:1)")).unwrap();
        assert_eq!((d.n, d.beta, d.shape), (3, Some(0.5), Shape::Square));
        assert_eq!(d.rates, vec![0.2, 1.0]);
        let d: Demo = from_call(&call("demo(rates='0.5,1', beta=none)")).unwrap();
        assert_eq!((d.rates, d.beta), (vec![0.5, 1.0], None));
        let t = Demo::default().table();
        assert_eq!(t[0].name, "n");
        assert_eq!(t[0].default, "50");
        assert_eq!(t[0].expected, "a whole number >= 1");
        assert_eq!(t[1].expected, "a number in (0, 1] or none");
        assert_eq!(t[2].expected, "one of round, square");
        assert_eq!(t[3].default, "[1]");
        assert_eq!(t[0].doc, "Rounds.");
    }

    #[test]
    fn params_errors_name_the_argument_and_the_alternatives() {
        let err = |s: &str| from_call::<Demo>(&call(s)).unwrap_err().to_string();
        assert!(err("demo(n=0)").contains("n=0 is invalid; expected a whole number >= 1"));
        assert!(err("demo(n=1e18)").contains("n=1e18 is invalid; too large: at most 4294967295"));
        assert!(err("demo(beta=1.5)").contains("in (0, 1]"));
        assert!(err("demo(shape=oval)").contains("one of round, square"));
        let e = err("demo(nn=3)");
        assert!(
            e.contains("unknown argument 'nn' (did you mean 'n'?)")
                && e.contains("accepted: n, beta, shape, rates"),
            "{e}"
        );
        assert!(err("demo(3)").contains("needs a name"));
        assert!(err("demo(n=1,n=2)").contains("given twice"));
        assert!(err("demo(rates=[5,6])").contains("rates sum above 10"));
        let bad = Demo {
            n: 0,
            ..Demo::default()
        };
        assert!(bad
            .check()
            .unwrap_err()
            .to_string()
            .contains("n=0 is invalid"));
    }

    #[test]
    fn find_suggests_and_lists() {
        let entries: Vec<Entry<u8>> = ["tree", "forest"]
            .iter()
            .map(|n| Entry {
                name: n,
                python: None,
                summary: "",
                params: Vec::new,
                build: |_| Ok(1),
            })
            .collect();
        let e = find(&entries, "forrest", "learner")
            .unwrap_err()
            .to_string();
        assert_eq!(
            e,
            "unknown learner 'forrest' (did you mean 'forest'?); accepted: tree, forest"
        );
        assert_eq!(find(&entries, "tree", "learner").unwrap().name, "tree");
    }
}
