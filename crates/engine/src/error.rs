use std::fmt;

/// Everything that can be wrong with a scenario, a config.json or a link, in words a user understands.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EngineError {
    /// A config.json lacks a field the engine needs.
    MissingField(String),
    /// A field holds something that is not a usable number.
    BadField { field: String, why: String },
    /// A setting is outside the range the engine accepts.
    OutOfRange {
        setting: String,
        value: String,
        min: u64,
        max: u64,
    },
    /// The model's shape does not hold together (heads that do not divide, ...).
    BadShape(String),
    /// The pasted text is not JSON, or too large.
    BadConfig(String),
    /// A link or flag names something unknown.
    Unknown { what: String, value: String },
    /// The job asks for something the chosen setup cannot do.
    Unsupported(String),
}

impl fmt::Display for EngineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EngineError::MissingField(field) => write!(
                f,
                "config.json has no \"{field}\", which the estimate needs"
            ),
            EngineError::BadField { field, why } => {
                write!(f, "config.json field \"{field}\" {why}")
            }
            EngineError::OutOfRange {
                setting,
                value,
                min,
                max,
            } => {
                write!(f, "{setting} must be between {min} and {max}, not {value}")
            }
            EngineError::BadShape(why) => write!(f, "the model's shape does not add up: {why}"),
            EngineError::BadConfig(why) => write!(f, "this is not a usable config.json: {why}"),
            EngineError::Unknown { what, value } => write!(f, "unknown {what} \"{value}\""),
            EngineError::Unsupported(why) => write!(f, "{why}"),
        }
    }
}

impl std::error::Error for EngineError {}
