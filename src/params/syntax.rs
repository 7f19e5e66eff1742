//! The syntax of specs: `name(key=value, ...)` calls joined by `+`, parsed
//! once into a tree of [`Call`]s and [`Value`]s that the registries read.
//!
//! Grammar (whitespace ignored):
//!
//! ```text
//! spec  := call ('+' call)*            stages, applied left to right
//! list  := call (',' call)*            e.g. a --learners flag
//! call  := NAME [ '(' [arg (',' arg)*] ')' ]
//! arg   := [NAME '='] value            keyword or positional
//! value := item (':' item)*            `0.5:1` is a list of two numbers
//! item  := NUMBER | 'text' | "text" | call | '[' [value (',' value)*] ']'
//! ```
//!
//! e.g. `bagging(n=100, learner=tree(criterion=entropy), sample=bootstrap)`
//! or `under(rates=[0.2, 1])` (the same as `under(rates=0.2:1)`). Names may
//! hold `_` and inner hyphens (`eb-bagging`, `roc-closest`).
//!
//! **Nesting.** The parser descends one level for each `(` of a call and
//! each `[` of a list, and refuses a spec nested deeper than
//! [`MAX_NESTING`] (128) levels, the recursion limit serde_json keeps for
//! JSON's arrays and objects: any depth of brackets is then a clear error,
//! never a stack overflow, on the main thread as on a small worker stack.
//! Everything that later walks the parsed tree (building, printing,
//! dropping it) is bounded by the same depth.

use std::fmt;

use crate::error::{Error, Result};

/// The deepest nesting of calls and lists a spec may have: serde_json's
/// recursion limit (128), which bounds the parser's recursion and that of
/// everything walking the parsed spec.
pub const MAX_NESTING: usize = 128;

/// Specs longer than this many characters are shortened in error messages.
const SHOWN_CHARS: usize = 200;

/// `spec` as error messages quote it: whole, or its first
/// [`SHOWN_CHARS`] characters and its length.
fn shown(spec: &str) -> String {
    shortened(spec, SHOWN_CHARS)
}

/// `text` whole when it has at most `most` characters, else its first
/// `most` and its length: how messages quote a spec or a part of one.
///
/// ```
/// use rarity::params::syntax::shortened;
/// assert_eq!(shortened("tree", 10), "tree");
/// assert_eq!(shortened("abcdefgh", 3), "abc... (8 characters)");
/// ```
pub fn shortened(text: &str, most: usize) -> String {
    let n = text.chars().count();
    if n <= most {
        return text.to_string();
    }
    let head: String = text.chars().take(most).collect();
    format!("{head}... ({n} characters)")
}

/// `name(key=value, ...)`; a bare `name` has no arguments.
#[derive(Debug, Clone, PartialEq)]
pub struct Call {
    /// The name.
    pub name: String,
    /// Arguments in the order written: `(Some(name), value)` for
    /// `name=value`, `(None, value)` for a positional value.
    pub args: Vec<(Option<String>, Value)>,
}

/// An argument value.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// A number.
    Number(f64),
    /// A quoted text.
    Text(String),
    /// A name, possibly with arguments (`sqrt`, `tree(max_depth=3)`).
    Call(Call),
    /// A list: `[a, b, c]` or `a:b:c`.
    List(Vec<Value>),
}

impl Call {
    /// A call without arguments.
    pub fn bare(name: &str) -> Call {
        Call {
            name: name.to_string(),
            args: Vec::new(),
        }
    }

    /// The value of keyword argument `key`, if given.
    pub fn arg(&self, key: &str) -> Option<&Value> {
        self.args
            .iter()
            .find(|(k, _)| k.as_deref() == Some(key))
            .map(|(_, v)| v)
    }

    /// The positional arguments, in order.
    pub fn positional(&self) -> impl Iterator<Item = &Value> {
        self.args
            .iter()
            .filter(|(k, _)| k.is_none())
            .map(|(_, v)| v)
    }
}

impl Value {
    /// The name of a bare call (`sqrt`), if this value is one.
    pub fn word(&self) -> Option<&str> {
        match self {
            Value::Call(c) if c.args.is_empty() => Some(&c.name),
            _ => None,
        }
    }
}

impl fmt::Display for Call {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name)?;
        if !self.args.is_empty() {
            f.write_str("(")?;
            for (i, (k, v)) in self.args.iter().enumerate() {
                if i > 0 {
                    f.write_str(",")?;
                }
                match k {
                    Some(k) => write!(f, "{k}={v}")?,
                    None => write!(f, "{v}")?,
                }
            }
            f.write_str(")")?;
        }
        Ok(())
    }
}

/// Shortest text of a number as a spec writes it (`5`, `0.25`, `1e-9`;
/// `1e18` rather than its 19 digits, from 10^16 on).
pub fn number_text(x: f64) -> String {
    if x.is_finite() && x.abs() >= 1e16 {
        format!("{x:e}")
    } else {
        format!("{x}")
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Number(x) => f.write_str(&number_text(*x)),
            Value::Text(t) => write!(f, "'{t}'"),
            Value::Call(c) => write!(f, "{c}"),
            Value::List(items) => {
                f.write_str("[")?;
                for (i, v) in items.iter().enumerate() {
                    if i > 0 {
                        f.write_str(",")?;
                    }
                    write!(f, "{v}")?;
                }
                f.write_str("]")
            }
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
enum Token {
    Name(String),
    Number(f64),
    Text(String),
    Punct(char),
}

fn tokenize(s: &str) -> Result<Vec<(usize, usize, Token)>> {
    let chars: Vec<char> = s.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c.is_whitespace() {
            i += 1;
        } else if "(),=+[]:".contains(c) {
            out.push((i, i + 1, Token::Punct(c)));
            i += 1;
        } else if c == '\'' || c == '"' {
            let end = chars[i + 1..].iter().position(|&q| q == c).ok_or_else(|| {
                Error::invalid(format!("spec '{}': unclosed quote at {}", shown(s), i + 1))
            })?;
            out.push((
                i,
                i + end + 2,
                Token::Text(chars[i + 1..i + 1 + end].iter().collect()),
            ));
            i += end + 2;
        } else if c.is_ascii_digit() || c == '.' || c == '-' {
            let start = i;
            // Digits, letters, '.', '-', and '+' only after an exponent's e.
            let continues = |i: usize| {
                let ch = chars[i];
                if ch == '+' {
                    matches!(chars[i - 1], 'e' | 'E')
                } else {
                    ch.is_ascii_alphanumeric() || ch == '.' || ch == '-'
                }
            };
            while i < chars.len() && continues(i) {
                i += 1;
            }
            let text: String = chars[start..i].iter().collect();
            let x = text
                .parse::<f64>()
                .ok()
                .filter(|x| x.is_finite())
                .ok_or_else(|| {
                    Error::invalid(format!("spec '{}': '{text}' is not a number", shown(s)))
                })?;
            out.push((start, i, Token::Number(x)));
        } else if c.is_alphabetic() || c == '_' {
            let start = i;
            // Names may hold inner hyphens before a letter (`nb-binned`).
            while i < chars.len()
                && (chars[i].is_alphanumeric()
                    || chars[i] == '_'
                    || (chars[i] == '-' && chars.get(i + 1).is_some_and(|c| c.is_alphabetic())))
            {
                i += 1;
            }
            out.push((start, i, Token::Name(chars[start..i].iter().collect())));
        } else {
            return Err(Error::invalid(format!(
                "spec '{}': unexpected '{c}' at position {}",
                shown(s),
                i + 1
            )));
        }
    }
    Ok(out)
}

struct Parser<'a> {
    src: &'a str,
    toks: Vec<(usize, usize, Token)>,
    pos: usize,
    /// The calls and lists open at `pos` (at most [`MAX_NESTING`]).
    depth: usize,
}

impl Parser<'_> {
    fn new(src: &str) -> Result<Parser<'_>> {
        Ok(Parser {
            src,
            toks: tokenize(src)?,
            pos: 0,
            depth: 0,
        })
    }

    fn err(&self, what: &str) -> Error {
        let src = shown(self.src);
        match self.toks.get(self.pos) {
            Some((at, _, _)) => Error::invalid(format!(
                "spec '{src}': expected {what} at position {}",
                at + 1
            )),
            None => Error::invalid(format!("spec '{src}': expected {what} at the end")),
        }
    }

    /// Enters a call's arguments or a list, whose opening token was just
    /// eaten: refused beyond [`MAX_NESTING`] levels.
    fn descend(&mut self) -> Result<()> {
        self.depth += 1;
        if self.depth > MAX_NESTING {
            let at = self.toks[self.pos - 1].0 + 1;
            return Err(Error::invalid(format!(
                "spec '{}': nested deeper than {MAX_NESTING} levels of parentheses and \
                 brackets at position {at}",
                shown(self.src)
            )));
        }
        Ok(())
    }

    fn eat(&mut self, c: char) -> bool {
        if self.toks.get(self.pos).map(|t| &t.2) == Some(&Token::Punct(c)) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn call(&mut self) -> Result<Call> {
        let name = match self.toks.get(self.pos) {
            Some((_, _, Token::Name(n))) => n.clone(),
            _ => return Err(self.err("a name")),
        };
        self.pos += 1;
        let mut args = Vec::new();
        if self.eat('(') {
            self.descend()?;
            if !self.eat(')') {
                loop {
                    args.push(self.arg()?);
                    if self.eat(')') {
                        break;
                    }
                    if !self.eat(',') {
                        return Err(self.err("',' or ')'"));
                    }
                }
            }
            self.depth -= 1;
        }
        Ok(Call { name, args })
    }

    /// One argument of a call: `key=value` or a positional value.
    fn arg(&mut self) -> Result<(Option<String>, Value)> {
        let key = match (self.toks.get(self.pos), self.toks.get(self.pos + 1)) {
            (Some((_, _, Token::Name(k))), Some((_, _, Token::Punct('=')))) => {
                self.pos += 2;
                Some(k.clone())
            }
            _ => None,
        };
        let what = format!("a value for '{}'", key.as_deref().unwrap_or("an argument"));
        Ok((key, self.value(&what)?))
    }

    fn value(&mut self, what: &str) -> Result<Value> {
        let first = self.item(what)?;
        if !self.eat(':') {
            return Ok(first);
        }
        let mut items = vec![first];
        loop {
            items.push(self.item(what)?);
            if !self.eat(':') {
                return Ok(Value::List(items));
            }
        }
    }

    fn item(&mut self, what: &str) -> Result<Value> {
        match self.toks.get(self.pos) {
            Some((_, _, Token::Number(x))) => {
                self.pos += 1;
                Ok(Value::Number(*x))
            }
            Some((_, _, Token::Text(t))) => {
                self.pos += 1;
                Ok(Value::Text(t.clone()))
            }
            Some((_, _, Token::Name(_))) => Ok(Value::Call(self.call()?)),
            Some((_, _, Token::Punct('['))) => {
                self.pos += 1;
                self.descend()?;
                let mut items = Vec::new();
                if !self.eat(']') {
                    loop {
                        items.push(self.value("a list item")?);
                        if self.eat(']') {
                            break;
                        }
                        if !self.eat(',') {
                            return Err(self.err("',' or ']'"));
                        }
                    }
                }
                self.depth -= 1;
                Ok(Value::List(items))
            }
            _ => Err(self.err(what)),
        }
    }

    fn end(&self, what: &str) -> Result<()> {
        if self.pos < self.toks.len() {
            return Err(self.err(what));
        }
        Ok(())
    }
}

/// Parses a spec into its stages (`a + b(c=1) + d`).
///
/// ```
/// use rarity::params::syntax::{parse, Value};
/// let s = parse("bagging(n=100, learner=tree(max_depth=3)) + correct").unwrap();
/// assert_eq!(s.len(), 2);
/// assert_eq!(s[0].args[0], (Some("n".to_string()), Value::Number(100.0)));
/// assert_eq!(parse("under(rates=0.5:1)").unwrap(), parse("under(rates=[0.5, 1])").unwrap());
/// assert!(parse("tree(max_depth=)").is_err());
/// ```
pub fn parse(s: &str) -> Result<Vec<Call>> {
    Ok(parse_spanned(s)?.into_iter().map(|(c, _)| c).collect())
}

/// [`parse`], with the text of each stage as written (spaces kept).
///
/// ```
/// use rarity::params::syntax::parse_spanned;
/// let s = parse_spanned("under(beta=0.1) + forest(n=10)").unwrap();
/// assert_eq!(s[1].1, "forest(n=10)");
/// ```
pub fn parse_spanned(s: &str) -> Result<Vec<(Call, String)>> {
    let chars: Vec<char> = s.chars().collect();
    let mut p = Parser::new(s)?;
    let mut stages = Vec::new();
    loop {
        let start = p.toks.get(p.pos).map_or(chars.len(), |t| t.0);
        let call = p.call()?;
        let end = p.toks[p.pos - 1].1;
        stages.push((call, chars[start..end].iter().collect()));
        if !p.eat('+') {
            break;
        }
    }
    p.end("'+' or the end of the spec")?;
    Ok(stages)
}

/// Parses one argument value and nothing else: what a parameter given
/// from code (a Python keyword argument) may be, so that its text can
/// never add arguments or stages to the spec it is written into.
///
/// ```
/// use rarity::params::syntax::{parse_value, Value};
/// assert_eq!(parse_value("3").unwrap(), Value::Number(3.0));
/// assert!(matches!(parse_value("tree(max_depth=2)").unwrap(), Value::Call(_)));
/// assert!(parse_value("3)+threshold(0.001").is_err());
/// assert!(parse_value("2,min_samples_leaf=50").is_err());
/// assert!(parse_value("tree)+threshold(0.001").is_err());
/// ```
pub fn parse_value(s: &str) -> Result<Value> {
    let mut p = Parser::new(s)?;
    let v = p.value("a value")?;
    p.end("the end of the value")?;
    Ok(v)
}

/// Parses a comma-separated list of calls, as a `--learners` flag takes:
/// commas inside parentheses or brackets belong to the calls.
///
/// ```
/// use rarity::params::syntax::parse_list;
/// let l = parse_list("forest(n=100,max_depth=4), svm").unwrap();
/// assert_eq!(l.len(), 2);
/// assert_eq!(l[0].to_string(), "forest(n=100,max_depth=4)");
/// assert!(parse_list("tree,,svm").is_err());
/// ```
pub fn parse_list(s: &str) -> Result<Vec<Call>> {
    let mut p = Parser::new(s)?;
    let mut out = vec![p.call()?];
    while p.eat(',') {
        out.push(p.call()?);
    }
    p.end("',' or the end of the list")?;
    Ok(out)
}

/// Parses the arguments of a call written without its name and
/// parentheses, as an option such as `--cost fn=10,fp=1` takes them: the
/// call `name(text)`.
///
/// ```
/// use rarity::params::syntax::parse_args;
/// let c = parse_args("cost", "fn=10, fp=1").unwrap();
/// assert_eq!(c.to_string(), "cost(fn=10,fp=1)");
/// assert!(parse_args("cost", "fn=").is_err());
/// ```
pub fn parse_args(name: &str, text: &str) -> Result<Call> {
    let mut p = Parser::new(text)?;
    let mut args = Vec::new();
    if !p.toks.is_empty() {
        loop {
            args.push(p.arg()?);
            if !p.eat(',') {
                break;
            }
        }
    }
    p.end("',' or the end")?;
    Ok(Call {
        name: name.to_string(),
        args,
    })
}

/// The source text of each top-level item of a comma-separated list
/// (trimmed), for labels that keep what the user wrote.
///
/// ```
/// use rarity::params::syntax::split_list;
/// assert_eq!(split_list("tree, forest(n=10,max_depth=4)"), vec!["tree", "forest(n=10,max_depth=4)"]);
/// ```
pub fn split_list(s: &str) -> Vec<String> {
    let (mut out, mut cur, mut depth) = (Vec::new(), String::new(), 0i32);
    let mut quote = None;
    for c in s.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '\'' | '"') => quote = Some(c),
            (None, '(' | '[') => depth += 1,
            (None, ')' | ']') => depth -= 1,
            (None, ',') if depth == 0 => {
                out.push(std::mem::take(&mut cur).trim().to_string());
                continue;
            }
            _ => {}
        }
        cur.push(c);
    }
    out.push(cur.trim().to_string());
    out.into_iter().filter(|s| !s.is_empty()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_nested_calls_and_stages() {
        let s = parse(" bagging( n = 10 , learner = tree(max_features=0.5), sample=bootstrap ) + threshold(priors) ").unwrap();
        assert_eq!(s.len(), 2);
        assert_eq!(
            s[0].to_string(),
            "bagging(n=10,learner=tree(max_features=0.5),sample=bootstrap)"
        );
        assert_eq!(s[1].to_string(), "threshold(priors)");
        assert_eq!(
            parse("x(a='t', b=-1e-3)").unwrap()[0].args[1].1,
            Value::Number(-1e-3)
        );
    }

    #[test]
    fn lists_in_brackets_or_with_colons() {
        let a = parse("under(rates=[0.25, 1])").unwrap();
        assert_eq!(
            a[0].arg("rates"),
            Some(&Value::List(vec![Value::Number(0.25), Value::Number(1.0)]))
        );
        assert_eq!(a, parse("under(rates=0.25:1)").unwrap());
        assert_eq!(parse("f(x=[])").unwrap()[0].to_string(), "f(x=[])");
        assert!(parse("f(x=[1,)").is_err());
        assert!(parse("f(x=1:)").is_err());
    }

    #[test]
    fn syntax_errors_say_where() {
        for bad in [
            "",
            "tree(",
            "tree(a=)",
            "tree(=1)",
            "tree(a=1 b=2)",
            "tree)",
            "tree(a='x)",
            "tree(a=1e)",
            "tree + ",
            "tree(a=[1 2])",
        ] {
            let e = parse(bad).unwrap_err().to_string();
            assert!(e.contains("spec"), "{bad}: {e}");
        }
    }

    #[test]
    fn any_depth_of_nesting_is_a_clear_error() {
        // At the limit: parsed.
        let deep = |n: usize| format!("f(x={}{})", "[".repeat(n - 1), "]".repeat(n - 1));
        assert!(parse(&deep(MAX_NESTING)).is_ok());
        let calls = |n: usize| format!("{}tree{}", "bagging(learner=".repeat(n), ")".repeat(n));
        assert!(parse(&calls(MAX_NESTING)).is_ok());
        // One level deeper, or far deeper (which overflowed the stack), on
        // a small thread stack too: a clear error that quotes the spec
        // shortened.
        let deeper = [
            deep(MAX_NESTING + 1),
            deep(20_000),
            calls(MAX_NESTING + 1),
            calls(3_000),
        ];
        std::thread::Builder::new()
            .stack_size(256 << 10)
            .spawn(move || {
                for spec in &deeper {
                    let e = parse(spec).unwrap_err().to_string();
                    assert!(e.contains("nested deeper than 128 levels"), "{e}");
                    assert!(e.len() < 400, "{e}");
                    assert!(parse_list(spec).is_err() && parse_args("cost", spec).is_err());
                }
            })
            .unwrap()
            .join()
            .unwrap();
    }

    #[test]
    fn split_list_keeps_quoted_and_nested_commas() {
        assert_eq!(
            split_list("cost(matrix='0,1;5,0'), a(b=[1,2]),c"),
            vec!["cost(matrix='0,1;5,0')", "a(b=[1,2])", "c"]
        );
    }
}
