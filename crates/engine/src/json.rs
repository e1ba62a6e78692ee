//! JSON that crosses a boundary (config.json, the Hub's answers, safetensors headers, the measuring
//! tool's output), read with serde_json into its `Value`, plus what serde_json leaves to its
//! caller: a key repeated in one object is refused (serde_json keeps the last value silently, so
//! two readers of one config could disagree on its numbers), nesting stops at [`MAX_DEPTH`] with
//! its own error, and every failure is a [`JsonError`] with a place and a kind the shells put
//! into words.

use std::cell::Cell;
use std::fmt;

use serde::de::{self, DeserializeOwned, DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
pub use serde_json::{Map, Value};

/// The most arrays or objects one inside another (a config.json nests two or three); below
/// serde_json's own limit of 128, so deep text gets [`JsonProblem::TooDeep`] from this reader.
pub const MAX_DEPTH: usize = 64;

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
    /// Arrays or objects nested deeper than [`MAX_DEPTH`].
    TooDeep,
    ExpectedValue,
    ExpectedKey,
    ExpectedColon,
    /// Expected a comma or the end of the object or list.
    ExpectedCommaOrEnd,
    /// A comma right before `]` or `}`.
    TrailingComma,
    BadEscape,
    ControlCharacter,
    /// A malformed number, or one beyond a 64-bit float's range.
    BadNumber,
    /// `NaN` or `Infinity`, which Python's json.dumps writes and JSON does not have.
    NotANumber,
    /// A key that appears earlier in the same object.
    DuplicateKey,
}

/// Parses a whole JSON document.
pub fn parse(text: &str) -> Result<Value, JsonError> {
    let refused = Cell::new(None);
    let mut de = serde_json::Deserializer::from_str(text);
    let read = Checked {
        depth: 0,
        refused: &refused,
    }
    .deserialize(&mut de)
    .and_then(|value| de.end().map(|()| value));
    read.map_err(|e| JsonError {
        line: e.line(),
        column: e.column(),
        why: refused.get().unwrap_or_else(|| kind(text, &e)),
    })
}

/// Reads an already-parsed value into `T`; `None` when its shape is not `T`'s.
pub fn typed<T: DeserializeOwned>(value: &Value) -> Option<T> {
    T::deserialize(value).ok()
}

/// The kind of a serde_json error. serde_json tells only syntax from end of text through its
/// API (`classify`); its finer kinds are in its messages, matched here (a test pins each one).
fn kind(text: &str, e: &serde_json::Error) -> JsonProblem {
    use JsonProblem::*;
    if e.classify() == serde_json::error::Category::Eof {
        return EndOfText;
    }
    if names_a_non_number(text, e.line(), e.column()) {
        return NotANumber;
    }
    let message = e.to_string();
    const KINDS: &[(&str, JsonProblem)] = &[
        ("trailing characters", Trailing),
        ("trailing comma", TrailingComma),
        ("recursion limit", TooDeep),
        ("expected `:`", ExpectedColon),
        ("expected `,` or", ExpectedCommaOrEnd),
        ("key must be a string", ExpectedKey),
        ("invalid escape", BadEscape),
        ("invalid unicode code point", BadEscape),
        ("lone leading surrogate", BadEscape),
        ("unexpected end of hex escape", BadEscape),
        ("control character", ControlCharacter),
        ("invalid number", BadNumber),
        ("number out of range", BadNumber),
    ];
    KINDS
        .iter()
        .find(|(start, _)| message.starts_with(start))
        .map_or(ExpectedValue, |&(_, kind)| kind)
}

/// Whether `NaN`, `Infinity` or `-Infinity` starts at or just before the error's place.
fn names_a_non_number(text: &str, line: usize, column: usize) -> bool {
    let Some(row) = text.split('\n').nth(line.saturating_sub(1)) else {
        return false;
    };
    let at = column.saturating_sub(1);
    (at.saturating_sub(1)..=at).any(|i| {
        row.get(i..).is_some_and(|rest| {
            ["NaN", "Infinity", "-Infinity"]
                .iter()
                .any(|w| rest.starts_with(w))
        })
    })
}

/// Builds a `Value` like serde_json's own, refusing a repeated key and nesting past [`MAX_DEPTH`];
/// the refusal's kind goes into `refused`, as serde's errors carry only a message.
struct Checked<'a> {
    depth: usize,
    refused: &'a Cell<Option<JsonProblem>>,
}

impl Checked<'_> {
    fn refuse<E: de::Error>(&self, why: JsonProblem) -> E {
        self.refused.set(Some(why));
        E::custom(format_args!("{why:?}"))
    }

    fn inner(&self) -> Self {
        Checked {
            depth: self.depth + 1,
            refused: self.refused,
        }
    }
}

impl<'de> DeserializeSeed<'de> for Checked<'_> {
    type Value = Value;

    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Checked<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_bool<E>(self, b: bool) -> Result<Value, E> {
        Ok(Value::Bool(b))
    }

    fn visit_u64<E>(self, n: u64) -> Result<Value, E> {
        Ok(Value::Number(n.into()))
    }

    fn visit_i64<E>(self, n: i64) -> Result<Value, E> {
        Ok(Value::Number(n.into()))
    }

    fn visit_f64<E: de::Error>(self, n: f64) -> Result<Value, E> {
        // serde_json refuses numbers beyond f64's range before they get here
        serde_json::Number::from_f64(n)
            .map(Value::Number)
            .ok_or_else(|| self.refuse(JsonProblem::BadNumber))
    }

    fn visit_str<E>(self, s: &str) -> Result<Value, E> {
        Ok(Value::String(s.to_string()))
    }

    fn visit_string<E>(self, s: String) -> Result<Value, E> {
        Ok(Value::String(s))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        if self.depth >= MAX_DEPTH {
            return Err(self.refuse(JsonProblem::TooDeep));
        }
        let mut items = Vec::new();
        while let Some(item) = seq.next_element_seed(self.inner())? {
            items.push(item);
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        if self.depth >= MAX_DEPTH {
            return Err(self.refuse(JsonProblem::TooDeep));
        }
        let mut object = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            if object.contains_key(&key) {
                return Err(self.refuse(JsonProblem::DuplicateKey));
            }
            let value = map.next_value_seed(self.inner())?;
            object.insert(key, value);
        }
        Ok(Value::Object(object))
    }
}

/// The number as a whole u64, rounded half up ("4096", "4096.0", "4.096e3", "15e-1" is 2); `None`
/// for anything else, a negative number or one past u64.
pub fn whole(value: &Value) -> Option<u64> {
    let Value::Number(n) = value else {
        return None;
    };
    if let Some(u) = n.as_u64() {
        return Some(u);
    }
    let f = n.as_f64().filter(|f| *f >= 0.0)?.round();
    // 2^64 is the first float past u64
    (f < 18_446_744_073_709_551_616.0).then_some(f as u64)
}

/// Whether the value is a number greater than zero (a dropout probability, say).
pub fn is_positive(value: &Value) -> bool {
    value.as_f64().is_some_and(|f| f > 0.0)
}

/// A short account of a value for an error: a number or string as written, a list or object by
/// its size (a value can be a megabyte long).
pub fn brief(value: &Value) -> String {
    match value {
        Value::String(s) => format!("{s:?}"),
        Value::Array(a) => format!("[{} items]", a.len()),
        Value::Object(o) => format!("{{{} fields}}", o.len()),
        other => other.to_string(),
    }
}

/// A field read when it has the type it should and left out otherwise (serde_with's
/// `DefaultOnError`): the Hub's answers carry fields a reader skips rather than refuses over.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lenient<T>(pub Option<T>);

impl<T> Default for Lenient<T> {
    fn default() -> Self {
        Lenient(None)
    }
}

impl<'de, T: DeserializeOwned> Deserialize<'de> for Lenient<T> {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(d)?;
        Ok(Lenient(T::deserialize(value).ok()))
    }
}

/// A whole number as [`whole`] reads it, for typed fields.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Whole(pub u64);

impl<'de> Deserialize<'de> for Whole {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(d)?;
        whole(&value)
            .map(Whole)
            .ok_or_else(|| de::Error::custom("not a whole number"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn why(text: &str) -> JsonProblem {
        parse(text).unwrap_err().why
    }

    #[test]
    fn a_config_json_parses_with_exact_integers_and_nested_objects() {
        let v = parse(r#"{"a": 18446744073709551615, "b": [1, 2.5e3, -3], "c": {"d": null, "e": true}, "s": "x\"\u00e9\ud83d\ude00"}"#).unwrap();
        assert_eq!(whole(&v["a"]), Some(u64::MAX));
        assert_eq!(whole(&v["b"][1]), Some(2500));
        assert_eq!(whole(&v["b"][2]), None);
        assert!(v["c"]["d"].is_null());
        assert_eq!(v["s"].as_str(), Some("x\"é😀"));
    }

    #[test]
    fn whole_numbers_round_half_up_and_stop_at_u64() {
        let n = |t: &str| whole(&parse(t).unwrap());
        // 4096.0 and 4.096e3 are 4096; 1.5 rounds up to 2, 1.4 down to 1
        assert_eq!(
            [n("4096.0"), n("4.096e3"), n("15e-1"), n("14e-1")],
            [Some(4096), Some(4096), Some(2), Some(1)]
        );
        // 2^64 = 18,446,744,073,709,551,616 is one past u64::MAX
        assert_eq!(n("18446744073709551616"), None);
        assert_eq!((n("-1"), n("\"7\""), n("0e50")), (None, None, Some(0)));
    }

    #[test]
    fn an_object_keeps_its_keys_in_document_order() {
        let v = parse(r#"{"z": 1, "a": 2, "m": 3}"#).unwrap();
        let keys: Vec<&String> = v.as_object().unwrap().keys().collect();
        assert_eq!(keys, ["z", "a", "m"]);
    }

    #[test]
    fn malformed_json_is_an_error_with_a_position_never_a_panic() {
        use JsonProblem::*;
        for (bad, kind) in [
            ("", EndOfText),
            ("{", EndOfText),
            ("{\"a\":", EndOfText),
            ("[1,", EndOfText),
            ("\"abc", EndOfText),
            ("{\"a\" 1}", ExpectedColon),
            ("[1 2]", ExpectedCommaOrEnd),
            ("{\"a\":1 \"b\":2}", ExpectedCommaOrEnd),
            ("tru", EndOfText),
            ("trux", ExpectedValue),
            ("{\"a\":1}x", Trailing),
            ("01x", BadNumber),
            ("-", EndOfText),
            ("-x", BadNumber),
            ("[\"\\u12\"]", BadEscape),
            ("\"\\q\"", BadEscape),
            ("\"\\ud800\"", BadEscape),
            ("\"a\u{1}b\"", ControlCharacter),
            ("{1:2}", ExpectedKey),
            ("[1,]", TrailingComma),
            ("{\"a\":1,}", TrailingComma),
            ("1e400", BadNumber),
        ] {
            assert_eq!(why(bad), kind, "{bad:?}");
        }
        let e = parse("{\n  \"a\": ,\n}").unwrap_err();
        assert_eq!((e.line, e.column, e.why), (2, 8, ExpectedValue));
    }

    #[test]
    fn nan_and_infinity_are_named_as_such() {
        for text in [
            r#"{"rope_theta": NaN}"#,
            r#"{"x": Infinity}"#,
            r#"{"x": -Infinity}"#,
            "[1,\n NaN]",
        ] {
            assert_eq!(why(text), JsonProblem::NotANumber, "{text}");
        }
    }

    #[test]
    fn a_repeated_key_is_refused_where_it_repeats() {
        let e = parse("{\"hidden_size\": 4096,\n \"hidden_size\": 8}").unwrap_err();
        assert_eq!((e.line, e.why), (2, JsonProblem::DuplicateKey));
        // in a nested object too; the same key in two objects is fine
        assert_eq!(why(r#"{"a": {"b": 1, "b": 1}}"#), JsonProblem::DuplicateKey);
        assert!(parse(r#"[{"b": 1}, {"b": 2}]"#).is_ok());
    }

    #[test]
    fn deep_nesting_is_refused_instead_of_overflowing_the_stack() {
        assert_eq!(why(&"[".repeat(100_000)), JsonProblem::TooDeep);
        assert_eq!(why(&"{\"a\":".repeat(100_000)), JsonProblem::TooDeep);
        // 64 arrays one in another read; 65 do not
        let nested = |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n));
        assert!(parse(&nested(MAX_DEPTH)).is_ok());
        assert_eq!(why(&nested(MAX_DEPTH + 1)), JsonProblem::TooDeep);
    }

    #[test]
    fn a_lenient_field_of_the_wrong_type_is_left_out() {
        #[derive(Deserialize)]
        struct Sized {
            size: Lenient<Whole>,
            name: Lenient<String>,
        }
        let v = parse(r#"{"size": "big", "name": "m.gguf"}"#).unwrap();
        let s: Sized = typed(&v).unwrap();
        assert_eq!((s.size.0, s.name.0.as_deref()), (None, Some("m.gguf")));
        let v = parse(r#"{"size": 4.0, "name": 7}"#).unwrap();
        let s: Sized = typed(&v).unwrap();
        assert_eq!((s.size.0, s.name.0), (Some(Whole(4)), None));
    }
}
