//! The command line's two spellings of a flag with a value: `--flag=value` and `--flag value`.

/// `--flag=value` split into the flag and its inline value; anything else is a flag alone.
pub fn split_inline(raw: &str) -> (String, Option<String>) {
    match raw.split_once('=') {
        Some((f, v)) if f.starts_with("--") => (f.to_string(), Some(v.to_string())),
        _ => (raw.to_string(), None),
    }
}

/// The value of `flag`: the inline one, else the next argument (and `i` moves onto it).
pub fn take_value(
    argv: &[String],
    i: &mut usize,
    flag: &str,
    inline: Option<&str>,
) -> Result<String, String> {
    if let Some(v) = inline {
        return Ok(v.to_string());
    }
    *i += 1;
    argv.get(*i)
        .cloned()
        .ok_or_else(|| format!("{flag} needs a value"))
}
