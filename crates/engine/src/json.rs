//! A small JSON reader for config.json files: the whole grammar, a depth limit, exact integers.
//!
//! The engine reads only a handful of fields, so it keeps its own reader rather than a general
//! serialisation framework (which is most of what a config costs in the page's download).

use std::fmt;

/// Nesting deeper than this is refused (a config.json nests two or three levels).
pub const MAX_DEPTH: usize = 64;

/// A parsed JSON value. Numbers keep their text so integers stay exact.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    Null,
    Bool(bool),
    Number(String),
    String(String),
    Array(Vec<Value>),
    Object(Map<String, Value>),
}

/// A JSON object: keys in document order (a later duplicate wins on lookup, as in most readers).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Map<K, V> {
    entries: Vec<(K, V)>,
}

impl<V> Map<String, V> {
    pub fn get(&self, key: &str) -> Option<&V> {
        self.entries
            .iter()
            .rev()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v)
    }

    pub fn contains_key(&self, key: &str) -> bool {
        self.get(key).is_some()
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Entries in document order (duplicates included).
    pub fn iter(&self) -> impl Iterator<Item = (&String, &V)> {
        self.entries.iter().map(|(k, v)| (k, v))
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

impl Value {
    pub fn is_null(&self) -> bool {
        matches!(self, Value::Null)
    }

    pub fn as_bool(&self) -> Option<bool> {
        match self {
            Value::Bool(b) => Some(*b),
            _ => None,
        }
    }

    /// The number as a whole u64 when it is one exactly ("4096", "4096.0", "4.096e3").
    pub fn as_u64(&self) -> Option<u64> {
        match self {
            Value::Number(n) => {
                let (negative, mantissa, exp) = decimal(n)?;
                let v = scaled(mantissa, exp, 0)?;
                (!negative || v == 0).then_some(v)
            }
            _ => None,
        }
    }

    /// Whether the value is a number greater than zero (a dropout probability, say).
    pub fn is_positive(&self) -> bool {
        match self {
            Value::Number(n) => decimal(n).is_some_and(|(neg, m, _)| !neg && m > 0),
            _ => false,
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::String(s) => Some(s),
            _ => None,
        }
    }

    pub fn as_array(&self) -> Option<&Vec<Value>> {
        match self {
            Value::Array(a) => Some(a),
            _ => None,
        }
    }

    pub fn as_object(&self) -> Option<&Map<String, Value>> {
        match self {
            Value::Object(o) => Some(o),
            _ => None,
        }
    }

    pub fn get(&self, key: &str) -> Option<&Value> {
        self.as_object().and_then(|o| o.get(key))
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Null => f.write_str("null"),
            Value::Bool(b) => write!(f, "{b}"),
            Value::Number(n) => f.write_str(n),
            Value::String(s) => write!(f, "{s:?}"),
            Value::Array(a) => write!(f, "[{} items]", a.len()),
            Value::Object(o) => write!(f, "{{{} fields}}", o.len()),
        }
    }
}

/// A JSON number's text as (negative, digits, power of ten): "-1.25e3" is (true, 125, 1).
/// Exact, with no floating point; None past 38 significant digits.
pub fn decimal(text: &str) -> Option<(bool, u128, i32)> {
    let (negative, rest) = match text.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, text),
    };
    let (mant, exp) = match rest.find(['e', 'E']) {
        Some(i) => (
            &rest[..i],
            rest[i + 1..].trim_start_matches('+').parse::<i32>().ok()?,
        ),
        None => (rest, 0),
    };
    let (int, frac) = mant.split_once('.').unwrap_or((mant, ""));
    if int.is_empty() || !int.bytes().chain(frac.bytes()).all(|b| b.is_ascii_digit()) {
        return None;
    }
    let mut m: u128 = 0;
    for b in int.bytes().chain(frac.bytes()) {
        m = m.checked_mul(10)?.checked_add(u128::from(b - b'0'))?;
    }
    Some((negative, m, exp.checked_sub(frac.len() as i32)?))
}

/// `mantissa × 10^(exp + shift)` as a whole u64, rounded half up; None when it does not fit.
pub fn scaled(mantissa: u128, exp: i32, shift: i32) -> Option<u64> {
    let e = exp.checked_add(shift)?;
    if mantissa == 0 {
        return Some(0);
    }
    let v = if e >= 0 {
        mantissa.checked_mul(10u128.checked_pow(e as u32)?)?
    } else {
        // a divisor past u128 (10^39 and up) exceeds twice any mantissa: the value rounds to 0
        let Some(d) = 10u128.checked_pow(e.unsigned_abs()) else {
            return Some(0);
        };
        // half up without `mantissa + d / 2`, which overflows for 39-digit mantissas
        let (q, r) = (mantissa / d, mantissa % d);
        q + u128::from(r >= d - r)
    };
    u64::try_from(v).ok()
}

/// Where and why the text is not JSON.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct JsonError {
    pub line: usize,
    pub column: usize,
    pub why: JsonProblem,
}

/// What is wrong at that place.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum JsonProblem {
    /// The text ends inside a value.
    EndOfText,
    /// More text after the value.
    Trailing,
    /// Arrays or objects nested deeper than the reader goes.
    TooDeep,
    ExpectedValue,
    ExpectedKey,
    ExpectedColon,
    /// Expected a comma or the end of the object or list.
    ExpectedCommaOrEnd,
    BadEscape,
    BadUtf8,
    ControlCharacter,
    BadNumber,
}

/// Parses a whole JSON document.
pub fn parse(text: &str) -> Result<Value, JsonError> {
    let mut p = Parser {
        s: text.as_bytes(),
        i: 0,
    };
    p.ws();
    let v = p.value(0)?;
    p.ws();
    if p.i != p.s.len() {
        return Err(p.err(JsonProblem::Trailing));
    }
    Ok(v)
}

struct Parser<'a> {
    s: &'a [u8],
    i: usize,
}

impl Parser<'_> {
    fn err(&self, why: JsonProblem) -> JsonError {
        let upto = &self.s[..self.i.min(self.s.len())];
        let line = upto.iter().filter(|&&b| b == b'\n').count() + 1;
        let column = upto.iter().rev().take_while(|&&b| b != b'\n').count() + 1;
        JsonError { line, column, why }
    }

    fn ws(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.s.get(self.i) {
            self.i += 1;
        }
    }

    fn eat(&mut self, lit: &[u8]) -> bool {
        if self.s[self.i..].starts_with(lit) {
            self.i += lit.len();
            true
        } else {
            false
        }
    }

    fn value(&mut self, depth: usize) -> Result<Value, JsonError> {
        if depth > MAX_DEPTH {
            return Err(self.err(JsonProblem::TooDeep));
        }
        match self.s.get(self.i) {
            None => Err(self.err(JsonProblem::EndOfText)),
            Some(b'{') => self.object(depth),
            Some(b'[') => self.array(depth),
            Some(b'"') => self.string().map(Value::String),
            Some(b't') if self.eat(b"true") => Ok(Value::Bool(true)),
            Some(b'f') if self.eat(b"false") => Ok(Value::Bool(false)),
            Some(b'n') if self.eat(b"null") => Ok(Value::Null),
            Some(b'-' | b'0'..=b'9') => self.number(),
            Some(_) => Err(self.err(JsonProblem::ExpectedValue)),
        }
    }

    fn object(&mut self, depth: usize) -> Result<Value, JsonError> {
        self.i += 1;
        let mut entries = Vec::new();
        self.ws();
        if self.eat(b"}") {
            return Ok(Value::Object(Map { entries }));
        }
        loop {
            self.ws();
            if self.s.get(self.i) != Some(&b'"') {
                return Err(self.err(JsonProblem::ExpectedKey));
            }
            let k = self.string()?;
            self.ws();
            if !self.eat(b":") {
                return Err(self.err(JsonProblem::ExpectedColon));
            }
            self.ws();
            let v = self.value(depth + 1)?;
            entries.push((k, v));
            self.ws();
            if self.eat(b",") {
                continue;
            }
            if self.eat(b"}") {
                return Ok(Value::Object(Map { entries }));
            }
            return Err(self.err(if self.i >= self.s.len() {
                JsonProblem::EndOfText
            } else {
                JsonProblem::ExpectedCommaOrEnd
            }));
        }
    }

    fn array(&mut self, depth: usize) -> Result<Value, JsonError> {
        self.i += 1;
        let mut items = Vec::new();
        self.ws();
        if self.eat(b"]") {
            return Ok(Value::Array(items));
        }
        loop {
            self.ws();
            items.push(self.value(depth + 1)?);
            self.ws();
            if self.eat(b",") {
                continue;
            }
            if self.eat(b"]") {
                return Ok(Value::Array(items));
            }
            return Err(self.err(if self.i >= self.s.len() {
                JsonProblem::EndOfText
            } else {
                JsonProblem::ExpectedCommaOrEnd
            }));
        }
    }

    fn hex4(&mut self) -> Result<u32, JsonError> {
        let h = self
            .s
            .get(self.i..self.i + 4)
            .ok_or_else(|| self.err(JsonProblem::EndOfText))?;
        let h = std::str::from_utf8(h)
            .ok()
            .and_then(|h| u32::from_str_radix(h, 16).ok())
            .ok_or_else(|| self.err(JsonProblem::BadEscape))?;
        self.i += 4;
        Ok(h)
    }

    fn string(&mut self) -> Result<String, JsonError> {
        self.i += 1;
        let mut out = Vec::new();
        loop {
            let Some(&b) = self.s.get(self.i) else {
                return Err(self.err(JsonProblem::EndOfText));
            };
            self.i += 1;
            match b {
                b'"' => return String::from_utf8(out).map_err(|_| self.err(JsonProblem::BadUtf8)),
                b'\\' => {
                    let Some(&e) = self.s.get(self.i) else {
                        return Err(self.err(JsonProblem::EndOfText));
                    };
                    self.i += 1;
                    let c = match e {
                        b'"' => '"',
                        b'\\' => '\\',
                        b'/' => '/',
                        b'b' => '\u{8}',
                        b'f' => '\u{c}',
                        b'n' => '\n',
                        b'r' => '\r',
                        b't' => '\t',
                        b'u' => {
                            let hi = self.hex4()?;
                            let code = if (0xD800..0xDC00).contains(&hi) && self.eat(b"\\u") {
                                let lo = self.hex4()?;
                                0x10000 + ((hi - 0xD800) << 10) + (lo.wrapping_sub(0xDC00) & 0x3FF)
                            } else {
                                hi
                            };
                            char::from_u32(code).unwrap_or('\u{FFFD}')
                        }
                        _ => return Err(self.err(JsonProblem::BadEscape)),
                    };
                    let mut buf = [0u8; 4];
                    out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
                }
                0..=0x1f => return Err(self.err(JsonProblem::ControlCharacter)),
                _ => out.push(b),
            }
        }
    }

    fn number(&mut self) -> Result<Value, JsonError> {
        let start = self.i;
        self.eat(b"-");
        let digits = |p: &mut Self| {
            let s = p.i;
            while let Some(b'0'..=b'9') = p.s.get(p.i) {
                p.i += 1;
            }
            p.i > s
        };
        if !digits(self) {
            return Err(self.err(JsonProblem::BadNumber));
        }
        if self.eat(b".") && !digits(self) {
            return Err(self.err(JsonProblem::BadNumber));
        }
        if let Some(b'e' | b'E') = self.s.get(self.i) {
            self.i += 1;
            if let Some(b'+' | b'-') = self.s.get(self.i) {
                self.i += 1;
            }
            if !digits(self) {
                return Err(self.err(JsonProblem::BadNumber));
            }
        }
        let text = std::str::from_utf8(&self.s[start..self.i]).expect("ASCII digits");
        Ok(Value::Number(text.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_config_json_parses_with_exact_integers_and_nested_objects() {
        let v = parse(r#"{"a": 18446744073709551615, "b": [1, 2.5e3, -3], "c": {"d": null, "e": true}, "s": "x\"\u00e9\ud83d\ude00"}"#).unwrap();
        assert_eq!(v.get("a").unwrap().as_u64(), Some(u64::MAX));
        assert_eq!(
            v.get("b").unwrap().as_array().unwrap()[1].as_u64(),
            Some(2500)
        );
        assert!(v.get("c").unwrap().get("d").unwrap().is_null());
        assert_eq!(v.get("s").unwrap().as_str(), Some("x\"é😀"));
    }

    #[test]
    fn malformed_json_is_an_error_with_a_position_never_a_panic() {
        for bad in [
            "",
            "{",
            "{\"a\":",
            "[1,",
            "{\"a\" 1}",
            "tru",
            "\"abc",
            "{\"a\":1}x",
            "01x",
            "-",
            "[\"\\u12\"]",
            "{1:2}",
            "\"\\q\"",
        ] {
            assert!(parse(bad).is_err(), "{bad:?}");
        }
        let e = parse("{\n  \"a\": ,\n}").unwrap_err();
        assert_eq!((e.line, e.column), (2, 8));
    }

    #[test]
    fn deep_nesting_is_refused_instead_of_overflowing_the_stack() {
        let deep = "[".repeat(100_000);
        assert_eq!(parse(&deep).unwrap_err().why, JsonProblem::TooDeep);
    }
}
